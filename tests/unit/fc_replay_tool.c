/*
 * Test helper (run by tests/t/replay-fc.sh): fc_replay_tool IMAGE
 * scans IMAGE's fast-commit area, replays its full commits (stop policy),
 * then applies the committed fast-commit tags with replay_fc: the order
 * in which the replay command is to call it. Prints one summary line.
 * Exit 0 when every committed tag applied, 1 when some failed, 8 on error.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <et/com_err.h>

#include "replay/image.h"
#include "jbd/scan.h"
#include "jbd/fc.h"
#include "replay/fc.h"
#include "util/e4r_err.h"

#define OPEN_FLAGS	(EXT2_FLAG_64BITS | EXT2_FLAG_IGNORE_CSUM_ERRORS)

/* The fast commits that follow the full commits a stop-policy replay replays. */
static errcode_t scan_fc(const char *image, struct jbd_fc **fc)
{
	ext2_filsys fs;
	struct jbd_journal *j = NULL;
	struct jbd_scan *s = NULL;
	errcode_t err;

	err = ext2fs_open(image, OPEN_FLAGS, 0, 0, unix_io_manager, &fs);
	if (err)
		return err;
	err = jbd_journal_open(fs, NULL, &j);
	if (!err)
		err = jbd_scan_log(j, 0, &s);
	if (!err && (s->end_reason == JBD_END_CLEAN || s->stop_error))
		err = E4R_FC_NOT_ENABLED;	/* nothing reaches the fast commits */
	if (!err)
		err = jbd_fc_scan(j, s->stop_end, fc);
	if (s)
		jbd_scan_free(s);
	if (j)
		jbd_journal_close(j);
	ext2fs_close_free(&fs);
	return err;
}

int main(int argc, char **argv)
{
	struct replay_opts o;
	struct replay_result *r = NULL;
	struct replay_fc_result res;
	struct jbd_fc *fc = NULL;
	ext2_filsys fs = NULL;
	errcode_t err;

	if (argc != 2) {
		fprintf(stderr, "usage: fc_replay_tool IMAGE\n");
		return 16;
	}
	initialize_e4r_error_table();
	initialize_ext2_error_table();
	err = scan_fc(argv[1], &fc);
	if (err) {
		fprintf(stderr, "%s: fast-commit scan: %s\n", argv[1], error_message(err));
		return 8;
	}
	memset(&o, 0, sizeof(o));
	o.policy = JBD_POLICY_STOP;
	err = replay_image(argv[1], &o, &r);
	replay_free(r);
	if (!err)
		err = ext2fs_open(argv[1], OPEN_FLAGS | EXT2_FLAG_RW, 0, 0, unix_io_manager, &fs);
	if (!err)
		err = replay_fc(fs, fc, &res);
	if (fs) {
		errcode_t cerr = ext2fs_close_free(&fs);
		if (!err)
			err = cerr;
	}
	if (err) {
		fprintf(stderr, "%s: replay: %s\n", argv[1], error_message(err));
		jbd_fc_free(fc);
		return 8;
	}
	printf("committed %u applied %u failed %u inodes %u first_error %s (tag %u)\n", fc->ncommitted,
	       res.applied, res.failed, res.inodes, res.first_error ? error_message(res.first_error) : "none",
	       res.first_error_tag);
	jbd_fc_free(fc);
	return res.failed ? 1 : 0;
}
