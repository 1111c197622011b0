/*
 * Test helper (run by tests/t/nomem-clean.sh): nomem_clean [--max-runs N] IMAGE
 * runs `check -y -f` (fsck_session_run) on a copy of IMAGE, a clean
 * filesystem, with allocations of the whole process failing: libext2fs's and
 * the C library's as well as ours (tests/unit/repair_cuts fails only ours).
 * One run without failures counts the allocations; then, for each index k,
 * one run where the k-th allocation alone fails ("only": the rest succeed, so
 * a caller that reads the failure as damage goes on to act on it) and one
 * where every allocation from the k-th on fails ("from"). Each run is a child
 * process, so a crash is seen and the next run starts afresh.
 *
 * A clean image is never changed in content, whatever failed: each run must
 * exit 0 or 8 (never 1 or 4: the failure is no finding), leave IMAGE's bytes
 * except the primary superblock's state, error and time fields (and its
 * checksum), and e2fsck -fn must find the result clean.
 *
 * libext2fs 1.47.0 does not survive every failure of its own allocations
 * (ext2fs_extent_open2 uses one it did not check): a crash whose innermost
 * frame outside the C library is in libext2fs is a dependency's crash, and
 * counted apart. Of such a run only this is asked: the image is unchanged, or
 * it holds a log that a replay ends. A crash anywhere else fails.
 *
 * With more than N indices (--max-runs, default all), every S-th index is
 * tried (S the smallest stride that keeps to N), and the last: deterministic,
 * so a failure replays. E4R_NOMEM_ONLY=k runs index k alone, both ways.
 * Prints one line per problem and a summary; exit 0 when all agree.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check/problem.h"
#include "fsck/session.h"
#include "jbd/journal.h"
#include "util/e4r_err.h"
#include "unit.h"
#include "nomem_inject.h"

/* check -y -f on IMG with allocations failing as MODE, K say; in a child. Returns the child's status. */
static int run_child(const char *image, const char *img, int mode, long k, long *count)
{
	int fds[2];
	pid_t pid;

	if (pipe(fds))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		struct fsck_session_opts o = { .image = img };
		struct fsck_session s;
		long n;
		int rc, hit;

		close(fds[0]);
		crash_handlers();
		if (unit_copy_file(image, img))
			_exit(CHILD_SETUP);
		o.check.force = 1;
		o.check.repair = E4R_REPAIR_YES;
		o.policy = JBD_POLICY_STOP;
		inject(mode, k);
		rc = fsck_session_run(&o, &s);
		n = injected_count();
		hit = injected_hit();
		inject(OFF, 0);
		if (getenv("E4R_NOMEM_VERBOSE"))
			fprintf(stderr, "k %ld (%s): exit %d, stage %d (%s), backup superblock %llu, %zu findings\n",
				k, mode == ONLY ? "only" : "from", rc, (int)s.stopped,
				s.err ? error_message(s.err) : "-", (unsigned long long)s.backup_sb,
				s.result ? s.result->count : 0);
		for (size_t i = 0; getenv("E4R_NOMEM_VERBOSE") && s.result && i < s.result->count; i++)
			fprintf(stderr, "k %ld: finding %s%s\n", k,
				check_problem_info(s.result->findings[i].code) ?
				check_problem_info(s.result->findings[i].code)->name : "?",
				s.result->findings[i].fixed ? " (fixed)" : "");
		child_report(fds[1], mode, rc, n, hit);
	}
	return child_wait(pid, fds, count);
}

/*
 * The primary superblock's fields a run may change on a clean image (offsets
 * in struct ext2_super_block): the check's times, the error state a dropped
 * round leaves, and the checksum over them.
 */
static const struct { unsigned off, len; } may_change[] = {
	{ 0x2c, 8 },	/* s_mtime, s_wtime */
	{ 0x3a, 2 },	/* s_state */
	{ 0x40, 4 },	/* s_lastcheck */
	{ 0x178, 8 },	/* s_kbytes_written */
	{ 0x194, 0x6c },	/* s_error_count ... s_last_error_func */
	{ 0x274, 8 },	/* the times' high bytes, the error codes */
	{ 0x3fc, 4 },	/* s_checksum */
};

/* The first byte where A and B differ outside MAY_CHANGE; -1 when none, -2 when they cannot be read. */
static long long content_diff(const char *a, const char *b, int *differs)
{
	FILE *x = fopen(a, "rb"), *y = fopen(b, "rb");
	unsigned char bx[65536], by[65536];
	long long off = 0, first = -1;
	size_t nx = 0, ny = 0, i, j;

	*differs = 0;
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
		for (i = 0; i < nx && first == -1; i++) {
			long long at = off + i, in_sb = at - 1024;
			int allowed = 0;

			if (bx[i] == by[i])
				continue;
			*differs = 1;
			for (j = 0; j < sizeof(may_change) / sizeof(may_change[0]); j++)
				if (in_sb >= may_change[j].off && in_sb < may_change[j].off + may_change[j].len)
					allowed = 1;
			if (!allowed)
				first = at;
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

static int sh(const char *fmt, const char *arg)
{
	char cmd[8400];

	snprintf(cmd, sizeof(cmd), fmt, arg);
	return system(cmd);
}

/* e2fsck -fn's exit code on IMG (0 clean). */
static int e2fsck_rc(const char *img)
{
	int st = sh("e2fsck -fn '%s' >/dev/null 2>&1", img);

	return WIFEXITED(st) ? WEXITSTATUS(st) : 255;
}

/* Does IMG say needs_recovery? */
static int needs_recovery(const char *img)
{
	struct ext2_super_block sb;
	FILE *f = fopen(img, "rb");
	int yes = f && fseek(f, 1024, SEEK_SET) == 0 && fread(&sb, sizeof(sb), 1, f) == 1 &&
		  ext2fs_has_feature_journal_needs_recovery(&sb);

	if (f)
		fclose(f);
	return yes;
}

/* One run: allocation K fails (MODE ONLY) or every one from K on (FROM). 0 when it broke a rule. */
static int one(const char *image, const char *img, int mode, long k, int *past_end)
{
	int differs = 0, dep, ok = 1;
	int code = child_code(run_child(image, img, mode, k, NULL), mode, k, past_end, &dep);
	long long at;

	if (code < 0)
		return 0;
	if (!dep && code != FSCK_EXIT_OK && code != FSCK_EXIT_OPERATIONAL) {
		printf("allocation %ld (%s) failed: exit %d on a clean image (only 0 or 8 allowed)\n", k,
		       mode_name(mode), code);
		ok = 0;
	}
	at = content_diff(image, img, &differs);
	if (at != -1) {
		/* a crash's traces: a committed transaction still in the log, which a replay ends */
		if (dep && needs_recovery(img) && sh("e2fsck -E journal_only -p '%s' >/dev/null 2>&1", img) == 0 &&
		    e2fsck_rc(img) == 0)
			return ok;
		printf("allocation %ld (%s) failed%s: the image changed at byte %lld (block %lld of 1 KiB)\n",
		       k, mode_name(mode), dep ? ", libext2fs crashed" : "", at, at / 1024);
		ok = 0;
	}
	if (differs && e2fsck_rc(img) != 0) {
		printf("allocation %ld (%s) failed: e2fsck -fn finds the image not clean\n", k, mode_name(mode));
		ok = 0;
	}
	return ok;
}

int main(int argc, char **argv)
{
	const char *image, *env_only = getenv("E4R_NOMEM_ONLY");
	char img[4096];
	long total = -1, max_runs = 0, stride, k, runs = 0, only = env_only ? atol(env_only) : -1;
	int st, ok = 1, past_end;

	if (argc == 4 && !strcmp(argv[1], "--max-runs"))
		max_runs = atol(argv[2]);
	else if (argc != 2) {
		fprintf(stderr, "usage: nomem_clean [--max-runs N] IMAGE\n");
		return 2;
	}
	image = argv[argc - 1];
	if (!INJECT) {
		printf("allocation failures not injected in this build (a sanitizer's allocator)\n");
		return 77;
	}
	initialize_e4r_error_table();
	initialize_ext2_error_table();
	snprintf(img, sizeof(img), "%s.run", image);

	/* the image is clean, and a run without failures leaves it so */
	CHECK(e2fsck_rc(image) == 0);
	st = run_child(image, img, COUNT, 0, &total);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == FSCK_EXIT_OK);
	CHECK(total > 0);
	{
		int differs;

		CHECK(content_diff(image, img, &differs) == -1);
	}
	if (total <= 0)
		return unit_done("nomem_clean");
	stride = index_stride(total, max_runs);
	/* indices 0, S, 2S, ... and the last one */
	for (k = only >= 0 ? only : 0; k < total; k = next_index(k, stride, total)) {
		for (int mode = ONLY; mode <= FROM; mode++) {
			runs++;
			if (!one(image, img, mode, k, &past_end))
				ok = 0;
			if (past_end && getenv("E4R_NOMEM_VERBOSE"))
				printf("allocation %ld (%s): not reached\n", k, mode_name(mode));
		}
		if (only >= 0)
			break;
	}
	CHECK(ok);
	printf("%s: %ld allocations, every %ld-th failed (%ld runs), %ld libext2fs crashes%s%s\n", image, total,
	       stride, runs, dep_crashes, dep_crashes ? ":" : "", dep_list);
	remove(img);
	return unit_done("nomem_clean");
}
