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

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs/ioerr_io.h"
#include "check/problem.h"
#include "fsck/session.h"
#include "jbd/journal.h"
#include "fault_io.h"
#include "util/e4r_err.h"
#include "unit.h"

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

/*
 * Allocation failures on demand: this program's malloc, calloc and realloc
 * stand in for the C library's (for libext2fs's allocations too). A
 * sanitizer brings its own allocator, which these would break: there the
 * failures are not injected.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
static int alloc_failure_possible(void) { return 0; }
static void alloc_fail_from(long k) { (void)k; }
static int alloc_failed(void) { return 0; }
#else
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

static long alloc_left = -1;	/* allocations that still succeed; < 0: all */
static int alloc_hit;

/* The bounds of this program's own code (the linker's symbols). */
extern char __executable_start[], etext[];

/*
 * Only allocations made by e4recover's code fail (ext2fs_get_mem is inline:
 * its calls are ours too). libext2fs's own are left alone: its inode
 * cache frees pointers it never set when one of them fails (1.47.0), a
 * crash of the library's, not a path of ours.
 */
static int alloc_fails(const void *caller)
{
	if (__atomic_load_n(&alloc_left, __ATOMIC_RELAXED) < 0)
		return 0;
	if ((const char *)caller < __executable_start || (const char *)caller >= etext)
		return 0;
	if (__atomic_fetch_sub(&alloc_left, 1, __ATOMIC_RELAXED) > 0)
		return 0;
	__atomic_store_n(&alloc_left, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&alloc_hit, 1, __ATOMIC_RELAXED);
	errno = ENOMEM;
	return 1;
}

void *malloc(size_t n)
{
	return alloc_fails(__builtin_return_address(0)) ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return alloc_fails(__builtin_return_address(0)) ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	return alloc_fails(__builtin_return_address(0)) ? NULL : __libc_realloc(p, n);
}

static int alloc_failure_possible(void) { return 1; }

/* The K-th allocation from now and every later one fail; K < 0: none. */
static void alloc_fail_from(long k)
{
	alloc_hit = 0;
	__atomic_store_n(&alloc_left, k, __ATOMIC_RELAXED);
}

static int alloc_failed(void)
{
	return alloc_hit;
}
#endif

/*
 * E4R_CUT_STRIDE=S: cut after every S-th write only (and after the last),
 * and fail every S-th allocation, for repairs too large to cut everywhere
 * in a test's time. The stride's cuts still fall in every transaction.
 */
static long cut_stride(void)
{
	const char *s = getenv("E4R_CUT_STRIDE");
	long v = s ? atol(s) : 1;

	return v > 0 ? v : 1;
}

/* How the last uncut repair's writes reached the disk. */
static struct check_commits commits;

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
	if (s.result)
		commits = s.result->commits;
	if (getenv("E4R_CUTS_VERBOSE"))
		fprintf(stderr, "%s: exit %d, stage %d (%s), backup superblock %llu, %zu findings, %u left\n", img, rc,
			(int)s.stopped, s.err ? error_message(s.err) : "-", (unsigned long long)s.backup_sb,
			s.result ? s.result->count : 0, s.result ? s.result->left : 0);
	if (getenv("E4R_CUTS_VERBOSE") && s.result)
		for (size_t i = 0; i < s.result->count; i++)
			fprintf(stderr, "%s: round %u: %s%s\n", img, s.result->findings[i].round,
				check_problem_info(s.result->findings[i].code) ?
				check_problem_info(s.result->findings[i].code)->name : "?",
				s.result->findings[i].fixed ? " (fixed)" : "");
	fsck_session_free(&s);
	return rc;
}

struct skip_arg {
	unsigned char	*skip;
	blk64_t		count;
};

static int mark_skip(ext2_filsys fs, blk64_t *blk, e2_blkcnt_t n, blk64_t ref, int off, void *priv)
{
	struct skip_arg *a = priv;

	(void)fs, (void)n, (void)ref, (void)off;
	if (*blk < a->count)
		a->skip[*blk] = 1;
	return 0;
}

/*
 * The blocks a state comparison leaves out, from IMG as it was before the
 * repair: the journal inode's (the log is where a cut leaves its traces)
 * and the backup superblocks and descriptor tables (e2fsck's replay
 * rewrites them from the primary). *BS is the block size. NULL on failure.
 */
static unsigned char *skipped_blocks(const char *img, unsigned *bs, blk64_t *count)
{
	ext2_filsys fs = NULL;
	unsigned char *skip = NULL;
	blk64_t b;
	dgrp_t g;

	if (ext2fs_open(img, 0, 0, 0, unix_io_manager, &fs))
		return NULL;
	*bs = fs->blocksize;
	*count = ext2fs_blocks_count(fs->super);
	skip = calloc(*count, 1);
	/* every block of the journal inode: the log's and its map's (negative BLOCKCNT) */
	if (skip && fs->super->s_journal_inum) {
		struct skip_arg a = { skip, *count };

		ext2fs_block_iterate3(fs, fs->super->s_journal_inum, BLOCK_FLAG_READ_ONLY, NULL, mark_skip, &a);
	}
	for (g = 1; skip && g < fs->group_desc_count; g++) {
		blk64_t first = ext2fs_group_first_block2(fs, g);
		blk64_t n = 1 + fs->desc_blocks + fs->super->s_reserved_gdt_blocks;

		if (!ext2fs_bg_has_super(fs, g))
			continue;
		for (b = first; b < first + n && b < *count; b++)
			skip[b] = 1;
	}
	ext2fs_close_free(&fs);
	return skip;
}

/*
 * A digest of IMG without the SKIP blocks, and with the primary
 * superblock's write time, lifetime writes and checksum left out (a replay
 * writes the superblock anew). 0 when IMG cannot be read.
 */
/* What state_of leaves out besides the write times: a mount's traces, the error state. */
#define MASK_KERNEL	1
#define MASK_STATE	2

static uint64_t state_of(const char *img, const unsigned char *skip, unsigned bs, blk64_t count, int masks)
{
	static const struct { unsigned off, len; int mask; } volatile_fields[] = {
		{ 0x30, 4, 0 },		/* s_wtime */
		{ 0x40, 4, 0 },		/* s_lastcheck: the clock of the run */
		{ 0x178, 8, 0 },	/* s_kbytes_written */
		{ 0x274, 8, 0 },	/* the times' high bytes */
		{ 0x3fc, 4, 0 },	/* s_checksum */
		/* a mount's: its clock, its count, where, the errors it notes, and the flag it clears */
		{ 0x2c, 4, MASK_KERNEL },	/* s_mtime */
		{ 0x34, 2, MASK_KERNEL },	/* s_mnt_count */
		{ 0x60, 1, MASK_KERNEL },	/* s_feature_incompat's low byte: needs_recovery */
		{ 0x88, 64, MASK_KERNEL },	/* s_last_mounted */
		{ 0x190, 16, MASK_KERNEL },	/* s_error_count, s_first_error_time ... */
		{ 0x3a, 2, MASK_STATE | MASK_KERNEL },	/* s_state (a mount sets it clean at its unmount) */
	};
	FILE *f = fopen(img, "rb");
	unsigned char *buf = malloc(bs);
	uint64_t h = 14695981039346656037ULL;
	blk64_t b;

	for (b = 0; f && buf && b < count; b++) {
		size_t i;

		if (fread(buf, 1, bs, f) != bs)
			break;
		if (skip[b])
			continue;
		if (b * bs <= 1024 && 1024 < (b + 1) * bs)
			for (i = 0; i < sizeof(volatile_fields) / sizeof(volatile_fields[0]); i++)
				if (!volatile_fields[i].mask || (volatile_fields[i].mask & masks))
					memset(buf + (1024 - b * bs) + volatile_fields[i].off, 0,
					       volatile_fields[i].len);
		for (i = 0; i < bs; i++)
			h = (h ^ buf[i]) * 1099511628211ULL;
		h ^= b;
	}
	if (f)
		fclose(f);
	free(buf);
	return b == count ? h : 0;
}

/*
 * Does IMG's journal hold a committed transaction (needs_recovery, and a
 * log that starts somewhere)? Before the first commit a mount would only
 * show what the kernel makes of the damage itself.
 */
static int log_live(const char *img)
{
	ext2_filsys fs = NULL;
	struct jbd_journal *j = NULL;
	int yes = 0;

	if (ext2fs_open(img, 0, 0, 0, unix_io_manager, &fs))
		return 0;
	if (ext2fs_has_feature_journal_needs_recovery(fs->super) && !jbd_journal_open(fs, NULL, &j))
		yes = j->start != 0;
	jbd_journal_close(j);
	ext2fs_close_free(&fs);
	return yes;
}

/* Does IMG's primary superblock say clean (valid, no errors), the state a preen passes over? */
static int marked_clean(const char *img)
{
	struct ext2_super_block sb;
	FILE *f = fopen(img, "rb");
	int clean = f && fseek(f, 1024, SEEK_SET) == 0 && fread(&sb, sizeof(sb), 1, f) == 1 &&
		    (sb.s_state & EXT2_VALID_FS) && !(sb.s_state & EXT2_ERROR_FS);

	if (f)
		fclose(f);
	return clean;
}

/* The kernel's replay: a loop mount of IMG on DIR (a read-only one would not replay), and its unmount. */
static int kernel_replay(const char *img, const char *dir)
{
	char cmd[8600];

	snprintf(cmd, sizeof(cmd), "mount -o loop '%s' '%s' >/dev/null 2>&1 && umount '%s'", img, dir, dir);
	return system(cmd) == 0;
}

/* e2fsck's replay of IMG's journal and nothing more (the kernel's mount would replay the same). */
static int e2fsck_replay(const char *img)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "e2fsck -E journal_only -p '%s' >/dev/null 2>&1", img);
	return system(cmd) == 0;
}

/*
 * Out of memory at every allocation: with the K-th allocation of a repair
 * and every one after it failing, the run must end as an operational error
 * (exit 8; or, if it needed no memory past that, as the uncut repair ends)
 * and leave one of the states a cut can leave (STATES, the error state left
 * out), marked with errors when it is not the image as it was. Never a
 * finding made of the failure.
 */
static int nomem_states(const char *image, const char *cut, const unsigned char *skip, unsigned bs, blk64_t count,
			const uint64_t *states, unsigned nstates)
{
	long k, tried = 0, only = getenv("E4R_NOMEM_ONLY") ? atol(getenv("E4R_NOMEM_ONLY")) : -1;
	int ok = 1;

	if (!alloc_failure_possible()) {
		printf("%s: allocation failures not injected in this build (a sanitizer's allocator)\n", image);
		return 1;
	}
	for (k = 0; ok; k += cut_stride()) {
		struct ext2_super_block sb;
		uint64_t h;
		unsigned i;
		int rc, hit, marked;
		FILE *f;

		CHECK(unit_copy_file(image, cut) == 0);
		e4r_fault_io_setup(unix_io_manager, -1);
		/* to look at one failure by hand: E4R_NOMEM_ONLY=k runs that one alone */
		if (only >= 0 && k < only)
			continue;
		alloc_fail_from(k);
		rc = repair(cut, NULL);
		hit = alloc_failed();
		alloc_fail_from(-1);
		if (!hit) {
			if (rc > FSCK_EXIT_FIXED) {
				printf("no allocation failed, yet the repair ended with %d\n", rc);
				ok = 0;
			}
			break;
		}
		tried++;
		if (rc < FSCK_EXIT_OPERATIONAL) {
			printf("allocation %ld failed, and the repair still said %d (not an operational error)\n", k, rc);
			ok = 0;
		}
		/* what the failure left before any replay: marked with errors, or a log to replay */
		f = fopen(cut, "rb");
		marked = f && fseek(f, 1024, SEEK_SET) == 0 && fread(&sb, sizeof(sb), 1, f) == 1 &&
			 ((sb.s_state & EXT2_ERROR_FS) || ext2fs_has_feature_journal_needs_recovery(&sb));
		if (f)
			fclose(f);
		CHECK(e2fsck_replay(cut));
		h = state_of(cut, skip, bs, count, MASK_STATE);
		for (i = 0; i < nstates && states[i] != h; i++)
			;
		if (i == nstates) {
			printf("allocation %ld failed: the image is in none of the states a cut leaves\n", k);
			ok = 0;
		}
		if (i && !marked && rc >= FSCK_EXIT_OPERATIONAL) {
			printf("allocation %ld failed: the image was changed, not marked with errors, no log to replay\n",
			       k);
			ok = 0;
		}
		if (only >= 0)
			break;
	}
	printf("%s: %ld allocations failed in turn, each run ended in a state a cut leaves\n", image, tried);
	return ok;
}

/*
 * --states: every cut, replayed by e2fsck, leaves one of the states the
 * repair passes through between its transactions, and they come in order:
 * at most commits + 1 of them, never one seen again after a later one;
 * every state but the first and the last is marked not clean.
 */
static int cut_states(const char *image, const char *ref, const char *cut, long total)
{
	/* E4R_CUTS_KERNEL=DIR: mount each cut that left a live log on DIR as well */
	const char *kernel_dir = getenv("E4R_CUTS_KERNEL");
	char kcut[4200];
	unsigned kernel_replays = 0;
	unsigned bs = 0;
	blk64_t count = 0;
	unsigned char *skip = skipped_blocks(image, &bs, &count);
	uint64_t *seen = NULL, *seen_state = NULL, want_first, want_last, h;
	unsigned char *seen_clean = NULL;
	unsigned nseen = 0, limit = commits.journaled + commits.direct + 1;
	long k, cuts = 0, stride = cut_stride();
	int ok = 1;

	snprintf(kcut, sizeof(kcut), "%s.k", cut);
	CHECK(skip != NULL);
	if (!skip)
		return 0;
	CHECK(e2fsck_replay(ref));
	want_first = state_of(image, skip, bs, count, 0);
	want_last = state_of(ref, skip, bs, count, 0);
	seen = calloc(total + 2, sizeof(*seen));
	seen_state = calloc(total + 2, sizeof(*seen_state));
	seen_clean = calloc(total + 2, 1);
	CHECK(seen && seen_state && seen_clean && want_first && want_last);
	for (k = 0; seen && k <= total; k = k < total && k + stride > total ? total : k + stride) {
		unsigned i;

		cuts++;
		CHECK(unit_copy_file(image, cut) == 0);
		e4r_fault_io_setup(unix_io_manager, k);
		e4r_fault_io_target(cut);
		repair(cut, NULL);
		e4r_fault_io_target(NULL);
		/* to look at a cut before any replay: E4R_CUT_RAW=k leaves CUT as the cut made it */
		if (getenv("E4R_CUT_RAW") && atol(getenv("E4R_CUT_RAW")) == k) {
			printf("%s: cut after %ld of %ld writes, not replayed\n", cut, k, total);
			exit(0);
		}
		/* a cut that left a transaction in the log: the kernel's replay gives what e2fsck's gives */
		if (kernel_dir && log_live(cut)) {
			CHECK(unit_copy_file(cut, kcut) == 0);
			if (!kernel_replay(kcut, kernel_dir)) {
				printf("cut after %ld of %ld writes: the kernel's mount fails\n", k, total);
				ok = 0;
			} else {
				CHECK(e2fsck_replay(cut));
				if (state_of(kcut, skip, bs, count, MASK_KERNEL) != state_of(cut, skip, bs, count, MASK_KERNEL)) {
					printf("cut after %ld of %ld writes: the kernel's replay differs from e2fsck's\n",
					       k, total);
					ok = 0;
				}
				kernel_replays++;
			}
			remove(kcut);
		}
		if (!e2fsck_replay(cut)) {
			printf("cut after %ld of %ld writes: e2fsck's journal replay fails\n", k, total);
			ok = 0;
		}
		if (getenv("E4R_CUT_ONLY") && atol(getenv("E4R_CUT_ONLY")) == k) {
			printf("%s: cut after %ld of %ld writes, replayed\n", cut, k, total);
			exit(0);
		}
		h = state_of(cut, skip, bs, count, 0);
		for (i = 0; i < nseen && seen[i] != h; i++)
			;
		if (i == nseen) {
			seen_state[nseen] = state_of(cut, skip, bs, count, MASK_STATE);
			seen_clean[nseen] = marked_clean(cut);
			seen[nseen++] = h;
		} else if (i + 1 != nseen) {
			printf("cut after %ld of %ld writes: an earlier state again (state %u after %u)\n",
			       k, total, i + 1, nseen);
			ok = 0;
		}
		if (k == 0 && h != want_first) {
			printf("no write at all, replayed: not the image as it was\n");
			ok = 0;
		}
	}
	if (nseen && seen[nseen - 1] != want_last) {
		printf("every write made, replayed: not the state the uncut repair leaves\n");
		ok = 0;
	}
	/* between the first state and the last the filesystem says it needs checking */
	for (unsigned i = 1; i + 1 < nseen; i++)
		if (seen_clean[i]) {
			printf("state %u of %u, between transactions, is marked clean\n", i + 1, nseen);
			ok = 0;
		}
	if (nseen > limit) {
		printf("%u states for %u transactions: a cut left something in between\n", nseen, limit - 1);
		ok = 0;
	}
	printf("%s: %ld block writes, %ld cuts, %u states, %u journaled and %u direct transactions, "
	       "%u replayed by the kernel too\n",
	       image, total, cuts, nseen, commits.journaled, commits.direct, kernel_replays);
	if (ok && seen_state)
		ok = nomem_states(image, cut, skip, bs, count, seen_state, nseen);
	free(seen);
	free(seen_state);
	free(seen_clean);
	free(skip);
	return ok;
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
	int with_undo = 0, with_states = 0, converged = 0;
	unsigned char *want = NULL, *got;
	ext2_ino_t nwant = 0, ngot = 0;
	long total, k;

	if (argc == 3 && !strcmp(argv[1], "--undo"))
		with_undo = 1;
	else if (argc == 3 && !strcmp(argv[1], "--states"))
		with_states = 1;
	else if (argc != 2) {
		fprintf(stderr, "usage: repair_cuts [--undo|--states] IMAGE\n");
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
	CHECK(unit_copy_file(image, ref) == 0);
	e4r_fault_io_setup(unix_io_manager, -1);
	CHECK(repair(ref, NULL) <= FSCK_EXIT_FIXED);
	total = e4r_fault_io_written();
	CHECK(total > 0);
	CHECK(e2fsck_clean(ref));
	if (with_states) {
		/* a journaled repair must have used the journal for every transaction */
		if (getenv("E4R_CUTS_JOURNALED"))
			CHECK(commits.direct == 0 && commits.journaled > 0);
		CHECK(cut_states(image, ref, cut, total));
		remove(ref);
		remove(cut);
		return unit_done("repair_cuts");
	}
	want = kept_inodes(ref, &nwant);
	CHECK(want != NULL);
	for (k = 0; k < total && want; k++) {
		int ok = 1;

		CHECK(unit_copy_file(image, cut) == 0);
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
			unit_copy_file(cut, undone);
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
