/*
 * Test helper (run by tests/t/nomem-cmds.sh):
 *   nomem_cmds [--max-runs N] SUBCOMMAND [OPTION...] IMAGE
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
 *  - logdump, diagnose, replay --dry-run (read-only): unchanged, byte for
 *    byte, whatever the exit;
 *  - replay: with the uninjected run's exit, the uninjected run's image; with
 *    exit 8, unchanged, or a state from which a second, uninjected run of the
 *    same replay gives the uninjected run's image (a replay cut short leaves
 *    the log to end it).
 *  - write: whatever the exit, what e2fsck finds consistent once the log is
 *    replayed (its inodes' times follow the clock: no byte comparison).
 * The superblock's time fields (and its checksum) are not compared: a replay
 * stamps the times it ran at.
 *
 * Crashes inside libext2fs 1.47.0 are a dependency's and counted apart (the
 * image rules still hold); a crash anywhere else fails. With more than N
 * indices (--max-runs), every S-th index is tried, and the last:
 * deterministic. E4R_NOMEM_ONLY=k runs index k alone, both ways;
 * E4R_NOMEM_VERBOSE prints a backtrace at each failure.
 * Prints one line per problem and a summary; exit 0 when all agree.
 */
#include "config.h"

#include <fcntl.h>
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
 * The primary superblock's fields a replay stamps (offsets in struct
 * ext2_super_block): the times, the bytes-written count, and the checksum over
 * them. Their values follow the clock, not the journal.
 */
static const struct { unsigned off, len; } may_change[] = {
	{ 0x2c, 8 },	/* s_mtime, s_wtime */
	{ 0x40, 4 },	/* s_lastcheck */
	{ 0x178, 8 },	/* s_kbytes_written */
	{ 0x274, 4 },	/* the times' high bytes */
	{ 0x3fc, 4 },	/* s_checksum */
};

/* The first byte where A and B differ; -1 when none; -2 when unreadable. STAMPS: not the times'. */
static long long first_diff(const char *a, const char *b, int stamps)
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

			if (bx[i] == by[i])
				continue;
			for (j = 0; !stamps && j < sizeof(may_change) / sizeof(may_change[0]); j++)
				if (in_sb >= may_change[j].off && in_sb < may_change[j].off + may_change[j].len)
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
		inject(mode, k);
		rc = recover_main(cargc, cargv);
		/* stdout's buffer is written with the rest of the run's allocations failing: part of the run */
		fflush(stdout);
		n = injected_count();
		hit = injected_hit();
		inject(OFF, 0);
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

static int writes;		/* 1: replay without --dry-run; 2: write */
static int base_rc;
static char *base_out;
static size_t base_len;

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
	if (!writes) {
		/* read-only: not one byte written */
		if ((at = first_diff(image, img, 1)) != -1) {
			printf("allocation %ld (%s) failed: read-only, the image changed at byte %lld\n", k,
			       mode_name(mode), at);
			ok = 0;
		}
	} else if (writes == 2) {
		/*
		 * write: its times follow the clock, so no two runs give the same
		 * bytes; done or cut short, what it leaves must be what a crash
		 * may leave, a consistent filesystem once the log is replayed.
		 */
		if (first_diff(image, img, 0) != -1 && !consistent(img)) {
			printf("allocation %ld (%s) failed: exit %d%s, e2fsck does not find the image "
			       "consistent after its journal\n", k, mode_name(mode), code,
			       dep ? " (libext2fs crashed)" : "");
			ok = 0;
		}
	} else if (!dep && code == base_rc) {
		if ((at = first_diff(want, img, 0)) != -1) {
			printf("allocation %ld (%s) failed: exit %d, the image differs from the uninjected "
			       "replay's at byte %lld\n", k, mode_name(mode), code, at);
			ok = 0;
		}
	} else if (first_diff(image, img, 0) != -1) {
		/* cut short: a second replay, uninjected, ends the work */
		st = run_child(NULL, img, OFF, 0, NULL);
		if (!WIFEXITED(st) || (at = first_diff(want, img, 0)) != -1) {
			printf("allocation %ld (%s) failed: exit %d%s left the image changed, and a second "
			       "replay (status %#x) does not give the uninjected replay's image\n", k,
			       mode_name(mode), code, dep ? " (libext2fs crashed)" : "", st);
			ok = 0;
		}
	}
	if (!ok || (dep && getenv("E4R_NOMEM_VERBOSE")))
		show_stderr();
	return ok;
}

int main(int argc, char **argv)
{
	const char *image, *env_only = getenv("E4R_NOMEM_ONLY");
	char img[4096], want[4200];
	long total = -1, max_runs = 0, stride, k, runs = 0, only = env_only ? atol(env_only) : -1;
	int st, ok = 1, past_end, first = 1, i;

	if (argc > 3 && !strcmp(argv[1], "--max-runs")) {
		max_runs = atol(argv[2]);
		first = 3;
	}
	if (argc - first < 2) {
		fprintf(stderr, "usage: nomem_cmds [--max-runs N] SUBCOMMAND [OPTION...] IMAGE\n");
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
	/* e4recover's own argv, on the run's copy */
	cargv = calloc(argc - first + 2, sizeof(*cargv));
	CHECK(cargv != NULL);
	if (!cargv)
		return 1;
	cargv[cargc++] = "e4recover";
	for (i = first; i < argc - 1; i++) {
		cargv[cargc++] = argv[i];
		if (!strcmp(argv[i], "--dry-run"))
			writes = -1;
	}
	cargv[cargc++] = img;
	writes = !strcmp(argv[first], "write") ? 2 : !strcmp(argv[first], "replay") && writes != -1;

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
	/* a read-only command leaves the image alone, and a replay has something to do */
	CHECK((first_diff(image, want, 1) == -1) == !writes);
	if (!base_out)
		return unit_done("nomem_cmds");
	stride = index_stride(total, max_runs);
	/* indices 0, S, 2S, ... and the last one */
	for (k = only >= 0 ? only : 0; k < total; k = next_index(k, stride, total)) {
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
