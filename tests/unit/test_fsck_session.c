/*
 * Unit test: the check command's exit code follows e2fsck's rules (0 clean,
 * 1 fixed, 4 errors left replacing 1, 8 added when cut short, 8 or 16 when
 * it could not run), for every combination of outcomes; and a whole session
 * on a small image ends in the code its outcome calls for.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsck/session.h"
#include "fs/image.h"
#include "util/e4r_err.h"
#include "unit.h"

/* The exit code of a session that ran to its end with these outcomes. */
static int code_of(unsigned fixed, unsigned left, int preen_halt, int aborted, blk64_t backup_sb)
{
	struct check_result r = { 0 };
	struct fsck_session s = { 0 };

	r.fixed = fixed;
	r.left = left;
	r.errors = left;
	r.preen_halt = preen_halt;
	r.aborted = aborted;
	s.result = &r;
	s.backup_sb = backup_sb;
	return fsck_exit_code(&s);
}

static int stopped_code(enum fsck_stage stage, errcode_t err)
{
	struct fsck_session s = { 0 };

	s.stopped = stage;
	s.err = err;
	return fsck_exit_code(&s);
}

static void check_rules(void)
{
	unsigned fixed, left;
	int halt, aborted, backup;

	CHECK_EQ(code_of(0, 0, 0, 0, 0), 0);		/* nothing wrong */
	CHECK_EQ(code_of(5, 0, 0, 0, 0), 1);		/* everything fixed */
	CHECK_EQ(code_of(5, 2, 0, 0, 0), 4);		/* errors left replace "fixed" */
	CHECK_EQ(code_of(0, 2, 0, 0, 0), 4);		/* -n on a damaged filesystem */
	CHECK_EQ(code_of(0, 2, 1, 0, 0), 4);		/* -p stopped for a person */
	CHECK_EQ(code_of(0, 2, 0, 1, 0), 12);		/* cut short with errors */
	CHECK_EQ(code_of(3, 0, 0, 1, 0), 8);		/* cut short after fixes: "fixed" dropped */
	CHECK_EQ(code_of(0, 0, 0, 1, 0), 8);		/* cut short, nothing found */
	CHECK_EQ(code_of(0, 0, 0, 0, 32768), 1);	/* a backup superblock's descriptors written back */
	CHECK_EQ(code_of(0, 1, 0, 0, 32768), 4);

	/* Every combination: 1 and 4 never together, 8 only when cut short. */
	for (fixed = 0; fixed < 2; fixed++)
		for (left = 0; left < 2; left++)
			for (halt = 0; halt < 2; halt++)
				for (aborted = 0; aborted < 2; aborted++)
					for (backup = 0; backup < 2; backup++) {
						int rc = code_of(fixed, left, halt, aborted, backup ? 8193 : 0);
						int bad = left || halt;

						CHECK(!((rc & 1) && (rc & 4)));
						CHECK_EQ(!!(rc & 8), aborted);
						CHECK_EQ(!!(rc & 4), bad);
						CHECK_EQ(!!(rc & 1), (fixed || backup) && !bad && !aborted);
					}

	CHECK_EQ(stopped_code(FSCK_STAGE_OPEN, EXT2_ET_BAD_MAGIC), 8);
	CHECK_EQ(stopped_code(FSCK_STAGE_MOUNTED, E4R_CHECK_MOUNTED), 8);
	CHECK_EQ(stopped_code(FSCK_STAGE_REPLAY, EXT2_ET_SHORT_READ), 8);
	CHECK_EQ(stopped_code(FSCK_STAGE_UNDO, E4R_UNDO_EXISTS), 16);
	CHECK_EQ(stopped_code(FSCK_STAGE_UNDO, ENOSPC), 8);
	CHECK_EQ(stopped_code(FSCK_STAGE_CLOSE, EIO), 8);
	CHECK_EQ(stopped_code(FSCK_STAGE_CHECK, ENOMEM), 8);
}

/* Make group 0's free block count wrong (with a valid descriptor checksum): fixable damage. */
static int damage_counts(const char *img)
{
	ext2_filsys fs;

	if (fs_image_open(img, E4R_OPEN_RW, NULL, &fs))
		return -1;
	ext2fs_bg_free_blocks_count_set(fs, 0, ext2fs_bg_free_blocks_count(fs, 0) - 7);
	ext2fs_group_desc_csum_set(fs, 0);
	ext2fs_mark_super_dirty(fs);
	return ext2fs_close_free(&fs) ? -1 : 0;
}

struct events { int journal, backup; };

static void on_event(void *arg, enum fsck_event what, const struct fsck_session *s)
{
	struct events *e = arg;

	(void)s;
	if (what == FSCK_EVENT_JOURNAL_REPLAYED)
		e->journal++;
	else
		e->backup++;
}

static int session(const char *img, enum check_repair_mode mode, const char *undo, struct fsck_session *s)
{
	struct events ev = { 0, 0 };
	struct fsck_session_opts o = { .image = img, .undo_file = undo, .policy = JBD_POLICY_STOP,
				       .event = on_event, .event_arg = &ev };
	int rc;

	o.check.repair = mode;
	o.check.force = 1;
	rc = fsck_session_run(&o, s);
	CHECK_EQ(rc, s->exit_code);
	/* the image has no journal to replay and sound descriptors */
	CHECK(ev.journal == 0 && ev.backup == 0);
	return rc;
}

/* Asked the first question, the person presses Ctrl-C (the handler's call), then answers yes. */
static int cancel_at_question(void *arg, const struct check_finding *f)
{
	(void)f;
	++*(int *)arg;
	fsck_session_cancel();
	return 1;
}

static unsigned char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long size;

	if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)size)) && fread(buf, 1, (size_t)size, f) != (size_t)size) {
		free(buf);
		buf = NULL;
	}
	if (f)
		fclose(f);
	*n = buf ? (size_t)size : 0;
	return buf;
}

/*
 * A cancel during the repairs: the round under way is dropped whole, the
 * exit code is e2fsck's 32, and the image is the one before the repairs
 * but for the superblock's state (marked with errors) and its checksum;
 * e2fsck says so, and still finds the damage.
 */
static void check_cancel(const char *img)
{
	struct fsck_session_opts o = { .image = img, .policy = JBD_POLICY_STOP };
	struct fsck_session s;
	struct ext2_super_block sb;
	size_t n0, n1, i, differ = 0;
	unsigned char *before = slurp(img, &n0), *after;
	int asked = 0;
	char cmd[512];

	o.check.repair = E4R_REPAIR_ASK;
	o.check.force = 1;
	o.check.ask = cancel_at_question;
	o.check.ask_arg = &asked;
	CHECK_EQ(fsck_session_run(&o, &s), FSCK_EXIT_CANCELED);
	CHECK(asked >= 1);
	CHECK(s.stopped != FSCK_STAGE_NONE && s.result && s.result->round_dropped);
	CHECK(s.result && s.result->fixed == 0);
	fsck_session_free(&s);
	after = slurp(img, &n1);
	CHECK(before && after && n0 == n1);
	for (i = 0; before && after && i < n0 && i < n1; i++) {
		int sb_state = i >= 1024 + 0x3a && i < 1024 + 0x3c, sb_csum = i >= 1024 + 0x3fc && i < 2048;

		if (before[i] != after[i] && !sb_state && !sb_csum)
			differ++;
	}
	CHECK_EQ(differ, 0);
	if (after && n1 >= 2048) {
		memcpy(&sb, after + 1024, sizeof(sb));
		CHECK(sb.s_state & EXT2_ERROR_FS);
	}
	snprintf(cmd, sizeof(cmd), "PATH=/sbin:/usr/sbin:$PATH e2fsck -n %s 2>&1 | grep -q 'contains a file system with errors'",
		 img);
	CHECK(system(cmd) == 0);
	free(before);
	free(after);
}

static void check_sessions(const char *dir, const char *img)
{
	struct fsck_session s;
	char missing[300], undo[300];
	FILE *f;

	CHECK_EQ(session(img, E4R_REPAIR_NONE, NULL, &s), 0);
	CHECK(s.stopped == FSCK_STAGE_NONE && s.result && s.result->errors == 0);
	fsck_session_free(&s);

	snprintf(missing, sizeof(missing), "%s/missing.img", dir);
	CHECK_EQ(session(missing, E4R_REPAIR_NONE, NULL, &s), 8);
	CHECK(s.stopped == FSCK_STAGE_OPEN && s.err != 0 && !s.result);
	fsck_session_free(&s);

	CHECK_EQ(damage_counts(img), 0);
	/* -n: found, not fixed */
	CHECK_EQ(session(img, E4R_REPAIR_NONE, NULL, &s), 4);
	CHECK(s.result && s.result->errors > 0 && s.result->fixed == 0);
	fsck_session_free(&s);
	/* an existing undo file: refused before anything is written (the damage stays) */
	snprintf(undo, sizeof(undo), "%s/exists.undo", dir);
	f = fopen(undo, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
	CHECK_EQ(session(img, E4R_REPAIR_YES, undo, &s), 16);
	CHECK(s.stopped == FSCK_STAGE_UNDO && s.err == E4R_UNDO_EXISTS && !s.result);
	fsck_session_free(&s);
	unlink(undo);
	check_cancel(img);
	/* -y: fixed, then clean */
	CHECK_EQ(session(img, E4R_REPAIR_YES, NULL, &s), 1);
	CHECK(s.result && s.result->fixed > 0 && s.result->left == 0);
	fsck_session_free(&s);
	CHECK_EQ(session(img, E4R_REPAIR_NONE, NULL, &s), 0);
	fsck_session_free(&s);
}

int main(void)
{
	char dir[] = "/tmp/e4r-unit-session-XXXXXX", img[256], cmd[512];

	initialize_e4r_error_table();
	initialize_ext2_error_table();
	check_rules();
	CHECK(mkdtemp(dir) != NULL);
	snprintf(img, sizeof(img), "%s/s.img", dir);
	snprintf(cmd, sizeof(cmd), "PATH=/sbin:/usr/sbin:$PATH mke2fs -q -F -t ext4 -O ^has_journal %s 8M >/dev/null 2>&1", img);
	if (system(cmd) == 0)
		check_sessions(dir, img);
	else
		fprintf(stderr, "mke2fs not available: session part skipped\n");
	unlink(img);
	rmdir(dir);
	return unit_done("test_fsck_session");
}
