/*
 * Test helper (run by tests/t/repair-interrupt.sh): repair_cuts [--undo] IMAGE
 * runs `check -y -f` (fsck_session_run) on a copy of IMAGE once without
 * interruption and counts its block writes; then, for every k below that
 * count, cuts a fresh copy's repair after k writes (a power cut, through the
 * fault-injecting io manager under every file the session opens) and runs
 * `check -y -f` again without a cut. Every such image must be clean for the
 * oracle (e2fsck -fn exits 0) and must keep every inode the uninterrupted
 * repair keeps (in use in the inode bitmap, links_count > 0, same file type).
 * With --undo the cut run writes an undo file, and e2undo must give back
 * IMAGE's bytes exactly. Exit 0 when all agree; prints one line per problem
 * and a summary "IMAGE: N block writes, N cuts, N converged".
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs/ioerr_io.h"
#include "fsck/session.h"
#include "fault_io.h"
#include "util/e4r_err.h"
#include "unit.h"

/* A sparse copy (zero runs are holes): the images are mostly empty and copied ~4 times a cut. */
static int copy_file(const char *from, const char *to)
{
	static const char zero[65536];
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[65536];
	size_t n;
	long long size = 0;
	int ok = in && out;

	while (ok && (n = fread(buf, 1, sizeof(buf), in)) > 0) {
		if (n == sizeof(buf) && !memcmp(buf, zero, n))
			ok = fseeko(out, n, SEEK_CUR) == 0;
		else
			ok = fwrite(buf, 1, n, out) == n;
		size += n;
	}
	if (ok && fflush(out) == 0)
		ok = ftruncate(fileno(out), size) == 0;
	if (in)
		fclose(in);
	if (out && fclose(out))
		ok = 0;
	return ok ? 0 : -1;
}

static int same_bytes(const char *a, const char *b)
{
	FILE *x = fopen(a, "rb"), *y = fopen(b, "rb");
	char bx[65536], by[65536];
	size_t nx, ny;
	int same = x && y;

	while (same) {
		nx = fread(bx, 1, sizeof(bx), x);
		ny = fread(by, 1, sizeof(by), y);
		same = nx == ny && !memcmp(bx, by, nx);
		if (!nx)
			break;
	}
	if (x)
		fclose(x);
	if (y)
		fclose(y);
	return same;
}

/* check -y -f on IMG, with an undo file when UNDO is not NULL; the session's exit code. */
static int repair(const char *img, const char *undo)
{
	struct fsck_session_opts o = { .image = img, .undo_file = undo };
	struct fsck_session s;
	int rc;

	o.check.force = 1;
	o.check.repair = E4R_REPAIR_YES;
	o.policy = JBD_POLICY_STOP;
	rc = fsck_session_run(&o, &s);
	if (getenv("E4R_CUTS_VERBOSE") && s.stopped != FSCK_STAGE_NONE)
		fprintf(stderr, "%s: stopped at stage %d: %s\n", img, (int)s.stopped, error_message(s.err));
	fsck_session_free(&s);
	return rc;
}

/*
 * The inodes IMG keeps: for each inode number, its file type (mode >> 12)
 * when it is in use in the bitmap with a link, else 0. NULL when IMG does not open.
 */
static unsigned char *kept_inodes(const char *img, ext2_ino_t *count)
{
	ext2_filsys fs = NULL;
	unsigned char *kept = NULL;
	struct ext2_inode inode;

	if (ext2fs_open(img, 0, 0, 0, unix_io_manager, &fs))
		return NULL;
	if (!ext2fs_read_inode_bitmap(fs) && (kept = calloc(fs->super->s_inodes_count + 1, 1))) {
		*count = fs->super->s_inodes_count;
		for (ext2_ino_t ino = 1; ino <= *count; ino++) {
			if (!ext2fs_test_inode_bitmap2(fs->inode_map, ino) ||
			    ext2fs_read_inode(fs, ino, &inode) || !inode.i_links_count)
				continue;
			kept[ino] = (inode.i_mode >> 12) ? (inode.i_mode >> 12) : 0x10;
		}
	}
	ext2fs_close_free(&fs);
	return kept;
}

static int e2fsck_clean(const char *img)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "e2fsck -fn '%s' >/dev/null 2>&1", img);
	return system(cmd) == 0;
}

static int e2undo_gives_back(const char *undo, const char *img, const char *orig)
{
	char cmd[8600];

	snprintf(cmd, sizeof(cmd), "e2undo '%s' '%s' %s", undo, img, getenv("E4R_CUTS_VERBOSE") ? "" : ">/dev/null 2>&1");
	return system(cmd) == 0 && same_bytes(img, orig);
}

int main(int argc, char **argv)
{
	const char *image;
	char ref[4096], cut[4096], undo[4096], undone[4096];
	int with_undo = 0, converged = 0;
	unsigned char *want = NULL, *got;
	ext2_ino_t nwant = 0, ngot = 0;
	long total, k;

	if (argc == 3 && !strcmp(argv[1], "--undo"))
		with_undo = 1;
	else if (argc != 2) {
		fprintf(stderr, "usage: repair_cuts [--undo] IMAGE\n");
		return 2;
	}
	image = argv[argc - 1];
	initialize_e4r_error_table();
	initialize_ext2_error_table();
	snprintf(ref, sizeof(ref), "%s.ref", image);
	snprintf(cut, sizeof(cut), "%s.cut", image);
	snprintf(undo, sizeof(undo), "%s.undo", image);
	snprintf(undone, sizeof(undone), "%s.undone", image);

	fs_set_base_io(e4r_fault_io_manager);
	CHECK(copy_file(image, ref) == 0);
	e4r_fault_io_setup(unix_io_manager, -1);
	CHECK(repair(ref, NULL) <= FSCK_EXIT_FIXED);
	total = e4r_fault_io_written();
	CHECK(total > 0);
	CHECK(e2fsck_clean(ref));
	want = kept_inodes(ref, &nwant);
	CHECK(want != NULL);
	for (k = 0; k < total && want; k++) {
		int ok = 1;

		CHECK(copy_file(image, cut) == 0);
		remove(undo);
		e4r_fault_io_setup(unix_io_manager, k);
		e4r_fault_io_target(cut);
		repair(cut, with_undo ? undo : NULL);
		e4r_fault_io_target(NULL);
		/* to look at one cut by hand: E4R_CUT_ONLY=k leaves IMAGE.cut as the cut made it */
		if (getenv("E4R_CUT_ONLY") && atol(getenv("E4R_CUT_ONLY")) == k) {
			printf("%s.cut: cut after %ld of %ld writes\n", image, k, total);
			free(want);
			return 0;
		}
		if (!e4r_fault_io_tripped()) {
			printf("cut after %ld of %ld writes: the repair wrote less than that\n", k, total);
			ok = 0;
		}
		if (with_undo) {
			copy_file(cut, undone);
			if (!e2undo_gives_back(undo, undone, image)) {
				printf("cut after %ld of %ld writes: e2undo does not give the image back\n", k, total);
				ok = 0;
			}
			remove(undo);
			remove(undone);
		}
		e4r_fault_io_setup(unix_io_manager, -1);
		if (repair(cut, NULL) >= FSCK_EXIT_OPERATIONAL) {
			printf("cut after %ld of %ld writes: the rerun stopped\n", k, total);
			ok = 0;
		}
		if (!e2fsck_clean(cut)) {
			printf("cut after %ld of %ld writes, then rerun: e2fsck -fn finds errors\n", k, total);
			ok = 0;
		}
		got = kept_inodes(cut, &ngot);
		for (ext2_ino_t ino = 1; got && ino <= nwant && ino <= ngot; ino++) {
			if (want[ino] && got[ino] != want[ino]) {
				printf("cut after %ld of %ld writes, then rerun: inode %u (type %#x) is not kept\n",
				       k, total, ino, want[ino]);
				ok = 0;
			}
		}
		if (!got || ngot != nwant) {
			printf("cut after %ld of %ld writes, then rerun: the image does not open alike\n", k, total);
			ok = 0;
		}
		free(got);
		CHECK(ok);
		converged += ok;
	}
	printf("%s: %ld block writes, %ld cuts, %d converged%s\n", image, total, k, converged,
	       with_undo ? " (undo checked at each)" : "");
	free(want);
	remove(ref);
	remove(cut);
	return unit_done("repair_cuts");
}
