/*
 * Test helper (run by tests/t/nomem-cmds.sh, nomem-write.sh and
 * nomem-check-{n,y,p}.sh):
 *   nomem_cmds [--max-runs N] [--dense-pcs FILE] SUBCOMMAND [OPTION...] IMAGE
 * runs `e4recover SUBCOMMAND [OPTION...]` (recover_main, the whole program)
 * on a copy of IMAGE with allocations of the whole process failing, as
 * nomem_clean does for check (nomem_inject.h): one run without failures
 * counts the allocations and gives the verdict (exit code, stdout, resulting
 * image); then, for each index k, one run where the k-th allocation alone
 * fails ("only") and one where every allocation from the k-th on fails
 * ("from"). Each run is a child process, on a fresh copy.
 *
 * An allocation failure is an operational error (exit 8), never a property
 * of the filesystem or the journal. So each run either exits 8, or exits as
 * the uninjected run did and prints the same stdout (the same verdict: no
 * checksum failure, "no journal" or damage that is not there). The image:
 *  - logdump, diagnose, replay --dry-run, check -n (read-only): unchanged,
 *    byte for byte, whatever the exit;
 *  - replay: with the uninjected run's exit, the uninjected run's image; with
 *    exit 8, unchanged, or a state from which a second, uninjected run of the
 *    same replay gives the uninjected run's image (a replay cut short leaves
 *    the log to end it).
 *  - write: whatever the exit, what e2fsck finds consistent once the log is
 *    replayed (its inodes' times follow the clock: no byte comparison); with
 *    --script=FILE, also the tree (names, kinds, sizes, link counts,
 *    contents) of the uninjected run of FILE's first j operations for some
 *    j, all of them with the uninjected exit: never half an operation.
 *  - check with repairs (-y, -p): with the uninjected exit, the uninjected
 *    run's image; else the round under way dropped whole: the input but for
 *    the superblock's error marks, or what earlier rounds committed (the
 *    distinct such states are counted in the summary), from which an
 *    uninjected run of the same check ends in what e2fsck -fn finds clean.
 * The superblock's time fields (and its checksum) are not compared: a replay
 * stamps the times it ran at; nor, for check, the log's blocks past the
 * journal superblock (a commit block holds the clock's nanoseconds, and an
 * emptied log is no part of the filesystem).
 *
 * With --json and E4R_JSON_SPOOL set (tests/runner.sh), every run's stdout
 * but a crashed one's is kept there for tests/tools/json_validate.py.
 *
 * Crashes inside libext2fs 1.47.0 are a dependency's and counted apart (the
 * image rules still hold); a crash anywhere else fails. With more than N
 * indices (--max-runs), every S-th index is tried, and the last:
 * deterministic; --dense-pcs FILE tries every allocation made with one of
 * FILE's code ranges on the stack ("START SIZE" in hex, as nm -S gives them:
 * a repair round's functions) and strides only over the others. E4R_NOMEM_ONLY=k
 * runs index k alone, both ways; E4R_NOMEM_VERBOSE prints a backtrace at each
 * failure. Prints one line per problem and a summary; exit 0 when all agree.
 */
#include "config.h"

#include <fcntl.h>
#include <ext2fs/ext2fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "unit.h"
#include "nomem_inject.h"

#define EXIT_OPERATIONAL_CODE 8

/* The whole of FILE, NUL-terminated (NULL when unreadable); *LEN its length. */
static char *slurp(const char *file, size_t *len)
{
	FILE *f = fopen(file, "rb");
	char *buf = NULL;
	long n;

	if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc(n + 1)) && fread(buf, 1, n, f) == (size_t)n) {
		buf[n] = 0;
		*len = n;
	} else {
		free(buf);
		buf = NULL;
	}
	if (f)
		fclose(f);
	return buf;
}

/*
 * The primary superblock's fields a replay or a check stamps (offsets in
 * struct ext2_super_block): the times, the bytes-written count, and the
 * checksum over them. Their values follow the clock, not the journal. A
 * dropped repair round also marks the filesystem with errors (MARKED).
 */
static const struct { unsigned off, len, marked; } may_change[] = {
	{ 0x2c, 8, 0 },		/* s_mtime, s_wtime */
	{ 0x3a, 2, 1 },		/* s_state */
	{ 0x40, 4, 0 },		/* s_lastcheck */
	{ 0x178, 8, 0 },	/* s_kbytes_written */
	{ 0x194, 0x6c, 1 },	/* s_error_count ... s_last_error_func */
	{ 0x274, 4, 0 },	/* the times' high bytes */
	{ 0x278, 4, 1 },	/* the error times' high bytes, the error codes */
	{ 0x3fc, 4, 0 },	/* s_checksum */
};

enum { SAME_BYTES, SAME_BUT_TIMES, SAME_BUT_MARKS };

/*
 * The log's blocks past the journal superblock (byte ranges): a repair's
 * commit blocks carry the clock's nanoseconds, and a log checkpointed or
 * never committed holds nothing of the filesystem. Repairs compare outside
 * them; the journal superblock (where the log starts, its sequence) is
 * compared.
 */
static struct { long long from, to; } log_area[256];
static int nlog_area;

static void find_log_area(const char *image)
{
	ext2_filsys fs;
	struct ext2_inode in;
	blk64_t lblk, pblk, end = 0;

	if (ext2fs_open(image, 0, 0, 0, unix_io_manager, &fs))
		return;
	if (ext2fs_has_feature_journal(fs->super) && fs->super->s_journal_inum &&
	    !ext2fs_read_inode(fs, fs->super->s_journal_inum, &in)) {
		for (lblk = 1; lblk < EXT2_I_SIZE(&in) / fs->blocksize; lblk++) {
			if (ext2fs_bmap2(fs, fs->super->s_journal_inum, &in, NULL, 0, lblk, NULL, &pblk) || !pblk)
				continue;
			if (nlog_area && pblk == end) {
				log_area[nlog_area - 1].to += fs->blocksize;
			} else if (nlog_area < (int)(sizeof(log_area) / sizeof(log_area[0]))) {
				log_area[nlog_area].from = (long long)pblk * fs->blocksize;
				log_area[nlog_area++].to = (long long)(pblk + 1) * fs->blocksize;
			}
			end = pblk + 1;
		}
	}
	ext2fs_close_free(&fs);
}

static int in_log(long long at)
{
	for (int i = 0; i < nlog_area; i++)
		if (at >= log_area[i].from && at < log_area[i].to)
			return 1;
	return 0;
}

/* The first byte where A and B differ (beyond what HOW allows); -1 when none; -2 when unreadable. */
static long long first_diff(const char *a, const char *b, int how)
{
	FILE *x = fopen(a, "rb"), *y = fopen(b, "rb");
	static unsigned char bx[65536], by[65536];
	long long off = 0, first = -1;
	size_t nx, ny, i, j;

	if (!x || !y) {
		first = -2;
		goto out;
	}
	while (first == -1 && (nx = fread(bx, 1, sizeof(bx), x)) > 0) {
		ny = fread(by, 1, sizeof(by), y);
		if (nx != ny) {
			first = off + (nx < ny ? nx : ny);
			break;
		}
		if (memcmp(bx, by, nx) == 0) {
			off += nx;
			continue;
		}
		for (i = 0; i < nx && first == -1; i++) {
			long long in_sb = off + i - 1024;
			int allowed = 0;

			if (bx[i] == by[i] || (how != SAME_BYTES && in_log(off + i)))
				continue;
			for (j = 0; how != SAME_BYTES && j < sizeof(may_change) / sizeof(may_change[0]); j++)
				if (in_sb >= may_change[j].off && in_sb < may_change[j].off + may_change[j].len &&
				    (how == SAME_BUT_MARKS || !may_change[j].marked))
					allowed = 1;
			if (!allowed)
				first = off + i;
		}
		off += nx;
	}
	if (first == -1 && fread(by, 1, 1, y) == 1)
		first = off;
out:
	if (x)
		fclose(x);
	if (y)
		fclose(y);
	return first;
}

/*
 * --dense-pcs FILE: the code ranges ("START SIZE" in hex, from nm -S) whose
 * allocations are all tried, a repair round's: the counting run marks each
 * allocation made with one of them on the stack.
 */
#define MAX_MARKED 65536
static struct { uintptr_t from, to; } dense_pcs[512];
static int ndense_pcs;
static uintptr_t code_base;
static unsigned char marked[MAX_MARKED];
static char marks_file[4200];	/* where the counting child leaves MARKED */

static void mark_dense(long n)
{
	void *pcs[64];
	int depth, i, j;

	if (n >= MAX_MARKED)
		return;
	depth = backtrace(pcs, 64);
	for (i = 1; i < depth && !marked[n]; i++)
		for (j = 0; j < ndense_pcs; j++)
			if ((uintptr_t)pcs[i] - code_base >= dense_pcs[j].from &&
			    (uintptr_t)pcs[i] - code_base < dense_pcs[j].to)
				marked[n] = 1;
}

static int read_dense_pcs(const char *file)
{
	FILE *f = fopen(file, "r");
	unsigned long long from, size;
	Dl_info di;

	if (!f || !dladdr((void *)read_dense_pcs, &di))
		return -1;
	code_base = (uintptr_t)di.dli_fbase;
	while (ndense_pcs < (int)(sizeof(dense_pcs) / sizeof(dense_pcs[0])) &&
	       fscanf(f, "%llx %llx", &from, &size) == 2) {
		dense_pcs[ndense_pcs].from = from;
		dense_pcs[ndense_pcs++].to = from + size;
	}
	fclose(f);
	return ndense_pcs ? 0 : -1;
}

static int cargc;
static const char **cargv;	/* "e4recover", the subcommand, its options, the run's image */
static char out_file[4200], err_file[4200];

/*
 * e4recover CARGV on IMG (copied from FROM first, unless FROM is NULL), allocations failing
 * as MODE, K say; in a child, stdout to OUT_FILE and stderr to ERR_FILE. The child's status.
 */
static int run_child(const char *from, const char *img, int mode, long k, long *count)
{
	int fds[2];
	pid_t pid;

	if (pipe(fds))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int out, err, rc, hit;
		long n;

		close(fds[0]);
		crash_handlers();
		if (from && unit_copy_file(from, img))
			_exit(CHILD_SETUP);
		out = open(out_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		err = open(err_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (out < 0 || err < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
			_exit(CHILD_SETUP);
		close(out);
		close(err);
		if (mode == COUNT && ndense_pcs) {
			void *warm[4];

			backtrace(warm, 4);	/* loads its unwinder (with malloc) before it counts */
			alloc_observe = mark_dense;
		}
		inject(mode, k);
		rc = recover_main(cargc, cargv);
		/* stdout's buffer is written with the rest of the run's allocations failing: part of the run */
		fflush(stdout);
		n = injected_count();
		hit = injected_hit();
		inject(OFF, 0);
		alloc_observe = NULL;
		if (mode == COUNT && ndense_pcs) {
			FILE *m = fopen(marks_file, "wb");

			if (!m || fwrite(marked, 1, sizeof(marked), m) != sizeof(marked) || fclose(m))
				_exit(CHILD_SETUP);
		}
		child_report(fds[1], mode, rc, n, hit);
	}
	return child_wait(pid, fds, count);
}

/*
 * Is IMG a consistent filesystem once its log is replayed, as after a crash?
 * e2fsck is the oracle: -E journal_only when the log needs it, then -fn.
 */
static int consistent(const char *img)
{
	char cmd[8400];
	int st;

	snprintf(cmd, sizeof(cmd), "e2fsck -E journal_only -p '%s' >/dev/null 2>&1 && e2fsck -fn '%s' >/dev/null 2>&1",
		 img, img);
	st = system(cmd);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* A failed run's stderr, for the log. */
static void show_stderr(void)
{
	size_t len;
	char *e = slurp(err_file, &len);

	if (e && len)
		printf("--- its stderr:\n%s---\n", e);
	free(e);
}

/* ---- write --script: the states a run may leave, each the uninjected run of a prefix ---- */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		h = (h ^ *b++) * 1099511628211ULL;
	return h;
}

struct walk {
	ext2_filsys	fs;
	char		path[4096];
	uint64_t	sum;
	errcode_t	err;
};

static int walk_entry(ext2_ino_t dir, int entry, struct ext2_dir_entry *d, int offset, int blocksize,
		      char *buf, void *priv);

/* One path's line, hashed: name, mode, size, links and content (a symlink's target); no numbers of inodes or blocks. */
static void walk_inode(struct walk *w, ext2_ino_t ino)
{
	struct ext2_inode in;
	uint64_t h = fnv(1469598103934665603ULL, w->path, strlen(w->path)), size;
	char buf[4096];
	unsigned got;
	ext2_file_t file;

	if ((w->err = ext2fs_read_inode(w->fs, ino, &in)))
		return;
	size = EXT2_I_SIZE(&in);
	h = fnv(h, &in.i_mode, sizeof(in.i_mode));
	h = fnv(h, &in.i_links_count, sizeof(in.i_links_count));
	h = fnv(h, &size, sizeof(size));
	if (LINUX_S_ISLNK(in.i_mode) && ext2fs_is_fast_symlink(&in)) {
		h = fnv(h, in.i_block, size < sizeof(in.i_block) ? size : sizeof(in.i_block));
	} else if (LINUX_S_ISREG(in.i_mode) || LINUX_S_ISLNK(in.i_mode)) {
		if ((w->err = ext2fs_file_open(w->fs, ino, 0, &file)))
			return;
		while (!(w->err = ext2fs_file_read(file, buf, sizeof(buf), &got)) && got)
			h = fnv(h, buf, got);
		ext2fs_file_close(file);
	}
	/* a sum: the order of a directory's entries is no part of the state */
	w->sum += h;
	if (LINUX_S_ISDIR(in.i_mode) && !w->err) {
		errcode_t err = ext2fs_dir_iterate2(w->fs, ino, 0, NULL, walk_entry, w);

		if (!w->err)
			w->err = err;
	}
}

static int walk_entry(ext2_ino_t dir, int entry, struct ext2_dir_entry *d, int offset, int blocksize,
		      char *buf, void *priv)
{
	struct walk *w = priv;
	int len = ext2fs_dirent_name_len(d);
	size_t at = strlen(w->path);

	(void)offset; (void)blocksize; (void)buf;
	if (entry == DIRENT_DOT_FILE || entry == DIRENT_DOT_DOT_FILE ||
	    (dir == EXT2_ROOT_INO && len == 10 && !memcmp(d->name, "lost+found", 10)))
		return 0;
	if (at + len + 2 > sizeof(w->path)) {
		w->err = EXT2_ET_NO_MEMORY;
		return DIRENT_ABORT;
	}
	w->path[at] = '/';
	memcpy(w->path + at + 1, d->name, len);
	w->path[at + 1 + len] = 0;
	walk_inode(w, d->inode);
	w->path[at] = 0;
	return w->err ? DIRENT_ABORT : 0;
}

/* The tree IMG holds, as one hash; 0 when it cannot be read. */
static uint64_t tree_hash(const char *img)
{
	struct walk w;

	memset(&w, 0, sizeof(w));
	if (ext2fs_open(img, 0, 0, 0, unix_io_manager, &w.fs))
		return 0;
	walk_inode(&w, EXT2_ROOT_INO);
	ext2fs_close_free(&w.fs);
	return w.err ? 0 : w.sum | 1;
}

static uint64_t *prefix_trees;	/* the tree after the first j operations of the script, j = 0 .. nprefix - 1 */
static long nprefix;

/* Is TREE the tree some prefix of the script leaves? Its length (-1: none). */
static long prefix_of(uint64_t tree)
{
	for (long j = 0; tree && j < nprefix; j++)
		if (prefix_trees[j] == tree)
			return j;
	return -1;
}

/* ---- --json: each run's document kept for tests/tools/json_validate.py (the runner's spool) ---- */

static const char *spool;
static int first_arg;		/* argv's index of the subcommand */

static void spool_run(int argc, char **argv, int code, int mode, long k)
{
	char base[4400], file[4500];
	size_t len;
	char *out;
	FILE *f;

	if (!spool || !(out = slurp(out_file, &len)))
		return;
	/* the run's index and mode in the name: a violation names the allocation that failed */
	snprintf(base, sizeof(base), "%s/nomem.%d.%ld-%s", spool, (int)getpid(), k, mode_name(mode));
	snprintf(file, sizeof(file), "%s.out", base);
	if ((f = fopen(file, "wb"))) {
		fwrite(out, 1, len, f);
		fclose(f);
	}
	snprintf(file, sizeof(file), "%s.args", base);
	if ((f = fopen(file, "w"))) {
		for (int i = first_arg; i < argc - 1; i++)
			fprintf(f, "%s\n", argv[i]);
		/* the image's line names the run for the validator's messages */
		fprintf(f, "%s (allocation %ld, %s)\n", argv[argc - 1], k, mode_name(mode));
		fclose(f);
	}
	/* the .rc last: the validator reads a run only once it is there */
	snprintf(file, sizeof(file), "%s.rc", base);
	if ((f = fopen(file, "w"))) {
		fprintf(f, "%d\n", code);
		fclose(f);
	}
	free(out);
}

enum { READ_ONLY, REPLAY, WRITE, REPAIR };
static int writes;		/* what the command does to the image */
static int base_rc;
static char *base_out;
static size_t base_len;
static long distinct_dropped;	/* the distinct images exit-8 repairs left, the input's aside */
static uint64_t dropped_seen[64];
static int json_argc;
static char **json_argv;

/* The bytes of IMG but the superblock's stamps and marks, hashed (a dropped round's state). */
static uint64_t image_state(const char *img)
{
	FILE *f = fopen(img, "rb");
	static unsigned char b[65536];
	uint64_t h = 1469598103934665603ULL;
	long long off = 0;
	size_t n, i, j;

	if (!f)
		return 0;
	while ((n = fread(b, 1, sizeof(b), f)) > 0) {
		for (i = 0; i < n; i++) {
			long long in_sb = off + i - 1024;

			if (in_log(off + i))
				b[i] = 0;
			for (j = 0; in_sb < 0x400 && j < sizeof(may_change) / sizeof(may_change[0]); j++)
				if (in_sb >= may_change[j].off && in_sb < may_change[j].off + may_change[j].len)
					b[i] = 0;
		}
		h = fnv(h, b, n);
		off += n;
	}
	fclose(f);
	return h;
}

/* The exit code of an uninjected run (OFF: no index is ever reached) from its STATUS; -1 when it crashed. */
static int plain_rc(int st)
{
	if (!WIFEXITED(st) || WEXITSTATUS(st) < CHILD_NOT_HIT || WEXITSTATUS(st) >= CHILD_DEP_CRASH)
		return -1;
	return WEXITSTATUS(st) - CHILD_NOT_HIT;
}

/* An uninjected check -fy of IMG, then e2fsck -fn: does the filesystem come out clean? */
static int repairs_to_clean(const char *img)
{
	char cmd[8400];
	int st = plain_rc(run_child(NULL, img, OFF, 0, NULL));

	if (st < 0 || st >= 8)
		return 0;
	snprintf(cmd, sizeof(cmd), "e2fsck -fn '%s' >/dev/null 2>&1", img);
	st = system(cmd);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* One run: allocation K fails (MODE ONLY) or every one from K on (FROM). 0 when it broke a rule. */
static int one(const char *image, const char *img, const char *want, int mode, long k, int *past_end)
{
	int st, dep, ok = 1;
	int code = child_code(run_child(image, img, mode, k, NULL), mode, k, past_end, &dep);
	long long at;
	size_t len;
	char *out;

	if (code < 0) {
		show_stderr();
		return 0;
	}
	/* now: a second run below (a replay's, a check's) writes the same files */
	if (getenv("E4R_NOMEM_VERBOSE"))
		show_stderr();
	if (!dep && json_argv)
		spool_run(json_argc, json_argv, code, mode, k);
	if (dep) {
		/* counted apart; the image rules below still hold */
	} else if (code == base_rc) {
		/* the uninjected verdict, word for word */
		out = slurp(out_file, &len);
		if (!out || len != base_len || memcmp(out, base_out, len)) {
			printf("allocation %ld (%s) failed: exit %d as uninjected, but stdout differs\n", k,
			       mode_name(mode), code);
			ok = 0;
		}
		free(out);
	} else if (code != EXIT_OPERATIONAL_CODE) {
		printf("allocation %ld (%s) failed: exit %d (uninjected %d; only it or 8 allowed)\n", k,
		       mode_name(mode), code, base_rc);
		ok = 0;
	}
	if (writes == READ_ONLY) {
		/* read-only: not one byte written */
		if ((at = first_diff(image, img, SAME_BYTES)) != -1) {
			printf("allocation %ld (%s) failed: read-only, the image changed at byte %lld\n", k,
			       mode_name(mode), at);
			ok = 0;
		}
	} else if (writes == WRITE) {
		/*
		 * write: its times follow the clock, so no two runs give the same
		 * bytes; done or cut short, what it leaves must be what a crash
		 * may leave, a consistent filesystem once the log is replayed,
		 * holding the tree of the script's first j operations for some j
		 * (all of them with the uninjected exit): never half an operation.
		 */
		long j = -2;

		if (first_diff(image, img, SAME_BUT_TIMES) != -1 && !consistent(img)) {
			printf("allocation %ld (%s) failed: exit %d%s, e2fsck does not find the image "
			       "consistent after its journal\n", k, mode_name(mode), code,
			       dep ? " (libext2fs crashed)" : "");
			ok = 0;
		} else if (nprefix && ((j = prefix_of(tree_hash(img))) < 0 ||
				       (!dep && code == base_rc && j != nprefix - 1))) {
			printf("allocation %ld (%s) failed: exit %d%s, the image holds %s\n", k, mode_name(mode),
			       code, dep ? " (libext2fs crashed)" : "",
			       j < 0 ? "no prefix of the script's operations" : "only a prefix of the operations");
			ok = 0;
		}
	} else if (writes == REPAIR) {
		/*
		 * check with repairs: the uninjected run's image with its exit;
		 * with exit 8, the repair round under way dropped whole: the
		 * image as before it (the input, or what the rounds committed
		 * before it left), marked with errors, from which an uninjected
		 * check repairs to what e2fsck finds clean.
		 */
		if (!dep && code == base_rc) {
			if ((at = first_diff(want, img, SAME_BUT_TIMES)) != -1) {
				printf("allocation %ld (%s) failed: exit %d, the image differs from the uninjected "
				       "check's at byte %lld\n", k, mode_name(mode), code, at);
				ok = 0;
			}
		} else if (first_diff(image, img, SAME_BUT_MARKS) != -1) {
			uint64_t h = image_state(img);
			long i;

			for (i = 0; i < distinct_dropped && dropped_seen[i] != h; i++)
				;
			if (i == distinct_dropped && i < (long)(sizeof(dropped_seen) / sizeof(dropped_seen[0])))
				dropped_seen[distinct_dropped++] = h;
			if (!repairs_to_clean(img)) {
				printf("allocation %ld (%s) failed: exit %d%s left the image changed, and an "
				       "uninjected check -fy does not repair it to clean\n", k, mode_name(mode),
				       code, dep ? " (libext2fs crashed)" : "");
				ok = 0;
			}
		}
	} else if (!dep && code == base_rc) {
		if ((at = first_diff(want, img, SAME_BUT_TIMES)) != -1) {
			printf("allocation %ld (%s) failed: exit %d, the image differs from the uninjected "
			       "replay's at byte %lld\n", k, mode_name(mode), code, at);
			ok = 0;
		}
	} else if (first_diff(image, img, SAME_BUT_TIMES) != -1) {
		/* cut short: a second replay, uninjected, ends the work */
		st = run_child(NULL, img, OFF, 0, NULL);
		if (!WIFEXITED(st) || (at = first_diff(want, img, SAME_BUT_TIMES)) != -1) {
			printf("allocation %ld (%s) failed: exit %d%s left the image changed, and a second "
			       "replay (status %#x) does not give the uninjected replay's image\n", k,
			       mode_name(mode), code, dep ? " (libext2fs crashed)" : "", st);
			ok = 0;
		}
	}
	if (!ok && !getenv("E4R_NOMEM_VERBOSE"))
		show_stderr();
	return ok;
}

/*
 * write --script=FILE: the tree each prefix of FILE's operations leaves,
 * from uninjected runs on copies of IMAGE (the prefix's script in PREFIX).
 */
static int prefix_states(const char *image, const char *img, const char *script, const char *prefix)
{
	char line[8192], **lines = NULL;
	long n = 0, cap = 0;
	FILE *in = fopen(script, "r");
	char arg[4300];
	const char *given = NULL;
	int i, at = -1, st;

	if (!in)
		return -1;
	while (fgets(line, sizeof(line), in)) {
		char *p = line + strspn(line, " \t");

		if (*p == '#' || *p == '\n' || !*p)
			continue;
		if (n == cap && !(lines = realloc(lines, (cap = cap ? 2 * cap : 64) * sizeof(*lines))))
			return -1;
		lines[n++] = strdup(line);
	}
	fclose(in);
	prefix_trees = calloc(n + 1, sizeof(*prefix_trees));
	if (!prefix_trees)
		return -1;
	/* the run's own argv, its script replaced by the prefix's */
	snprintf(arg, sizeof(arg), "--script=%s", prefix);
	for (i = 0; i < cargc; i++)
		if (!strncmp(cargv[i], "--script=", 9)) {
			given = cargv[i];
			cargv[at = i] = arg;
		}
	if (at < 0)
		return -1;
	for (long j = 0; j <= n; j++) {
		FILE *out = fopen(prefix, "w");

		if (!out)
			return -1;
		for (long l = 0; l < j; l++)
			fputs(lines[l], out);
		fclose(out);
		st = run_child(image, img, OFF, 0, NULL);
		if (plain_rc(st) != 0 || !consistent(img) || !(prefix_trees[j] = tree_hash(img))) {
			printf("the uninjected run of the script's first %ld operations fails (status %#x)\n", j, st);
			return -1;
		}
	}
	nprefix = n + 1;
	cargv[at] = given;
	for (long l = 0; l < n; l++)
		free(lines[l]);
	free(lines);
	remove(prefix);
	return 0;
}

int main(int argc, char **argv)
{
	const char *image, *env_only = getenv("E4R_NOMEM_ONLY");
	char img[4096], want[4200];
	long total = -1, max_runs = 0, stride, k, runs = 0, only = env_only ? atol(env_only) : -1;
	const char *dense_file = NULL;
	long nmarked = 0;
	int st, ok = 1, past_end, first = 1, i;

	for (;;) {
		if (argc - first > 2 && !strcmp(argv[first], "--max-runs"))
			max_runs = atol(argv[first + 1]);
		else if (argc - first > 2 && !strcmp(argv[first], "--dense-pcs"))
			dense_file = argv[first + 1];
		else
			break;
		first += 2;
	}
	if (argc - first < 2) {
		fprintf(stderr, "usage: nomem_cmds [--max-runs N] [--dense-pcs FILE] SUBCOMMAND [OPTION...] IMAGE\n");
		return 2;
	}
	image = argv[argc - 1];
	if (!INJECT) {
		printf("allocation failures not injected in this build (a sanitizer's allocator)\n");
		return 77;
	}
	snprintf(img, sizeof(img), "%s.run", image);
	snprintf(want, sizeof(want), "%s.want", image);
	snprintf(out_file, sizeof(out_file), "%s.out", image);
	snprintf(err_file, sizeof(err_file), "%s.err", image);
	snprintf(marks_file, sizeof(marks_file), "%s.marks", image);
	if (dense_file && read_dense_pcs(dense_file)) {
		fprintf(stderr, "nomem_cmds: no code ranges in %s\n", dense_file);
		return 2;
	}
	/* e4recover's own argv, on the run's copy */
	cargv = calloc(argc - first + 2, sizeof(*cargv));
	CHECK(cargv != NULL);
	if (!cargv)
		return 1;
	cargv[cargc++] = "e4recover";
	writes = !strcmp(argv[first], "write") ? WRITE : !strcmp(argv[first], "replay") ? REPLAY :
		 !strcmp(argv[first], "check") ? REPAIR : READ_ONLY;
	for (i = first; i < argc - 1; i++) {
		cargv[cargc++] = argv[i];
		if (!strcmp(argv[i], "--dry-run") ||
		    (writes == REPAIR && argv[i][0] == '-' && argv[i][1] != '-' && strchr(argv[i], 'n')))
			writes = READ_ONLY;
		if (!strcmp(argv[i], "--json") && getenv("E4R_JSON_SPOOL")) {
			spool = getenv("E4R_JSON_SPOOL");
			json_argc = argc;
			json_argv = argv;
			first_arg = first;
		}
	}
	cargv[cargc++] = img;
	if (writes == REPAIR)
		find_log_area(image);
	for (i = first; writes == WRITE && i < argc - 1; i++)
		if (!strncmp(argv[i], "--script=", 9)) {
			char prefix[4200];

			snprintf(prefix, sizeof(prefix), "%s.prefix", image);
			CHECK(prefix_states(image, img, argv[i] + 9, prefix) == 0);
		}

	/* the uninjected run: its verdict and image are what every injected run is held to */
	st = run_child(image, img, COUNT, 0, &total);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) < CHILD_NOT_HIT && WEXITSTATUS(st) != EXIT_OPERATIONAL_CODE);
	CHECK(total > 0);
	if (!WIFEXITED(st) || total <= 0)
		return unit_done("nomem_cmds");
	base_rc = WEXITSTATUS(st);
	base_out = slurp(out_file, &base_len);
	CHECK(base_out != NULL);
	CHECK(unit_copy_file(img, want) == 0);
	/* a read-only command leaves the image alone; a replay or a write has something to do (a -p may stop before it) */
	if (writes != REPAIR)
		CHECK((first_diff(image, want, SAME_BYTES) == -1) == (writes == READ_ONLY));
	if (!base_out)
		return unit_done("nomem_cmds");
	/* --dense-pcs: the marked indices all, the stride over the rest */
	if (dense_file) {
		FILE *m = fopen(marks_file, "rb");

		CHECK(m && fread(marked, 1, sizeof(marked), m) == sizeof(marked));
		if (m)
			fclose(m);
		remove(marks_file);
		for (k = 0; k < total && k < MAX_MARKED; k++)
			nmarked += marked[k];
	}
	stride = index_stride(total - nmarked, max_runs);
	/* indices 0, S, 2S, ... and the last one, and every marked one */
	for (k = only >= 0 ? only : 0; k < total; k++) {
		if (only < 0 && k % stride && k != total - 1 && !(k < MAX_MARKED && marked[k]))
			continue;
		for (int mode = ONLY; mode <= FROM; mode++) {
			runs++;
			if (!one(image, img, want, mode, k, &past_end))
				ok = 0;
			if (past_end && getenv("E4R_NOMEM_VERBOSE"))
				printf("allocation %ld (%s): not reached\n", k, mode_name(mode));
		}
		if (only >= 0)
			break;
	}
	CHECK(ok);
	if (nprefix)
		printf("%s %s: %ld prefixes of the script as oracles\n", argv[first], image, nprefix);
	if (writes == REPAIR)
		printf("%s %s: %ld distinct states left by exit-8 runs besides the input\n", argv[first], image,
		       distinct_dropped);
	if (dense_file)
		printf("%s %s: %ld allocations made in the code --dense-pcs names, every one failed\n", argv[first],
		       image, nmarked);
	printf("%s %s: exit %d, %ld allocations, every %ld-th failed (%ld runs), %ld libext2fs crashes%s%s\n",
	       argv[first], image, base_rc, total, stride, runs, dep_crashes, dep_crashes ? ":" : "", dep_list);
	remove(img);
	remove(want);
	remove(out_file);
	remove(err_file);
	free(base_out);
	free(cargv);
	return unit_done("nomem_cmds");
}
