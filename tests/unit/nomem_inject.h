/*
 * Allocation failures on demand for every caller in the process, the
 * classification of a crash they cause, and the plumbing of one run in a
 * child and of the indices tried: shared by the helpers that fail each
 * allocation in turn (nomem_clean: check; nomem_cmds: replay, logdump,
 * diagnose). Included once, by the helper's one source file: the definitions
 * of malloc and its kin must be in the program itself.
 */
#ifndef E4R_NOMEM_INJECT_H
#define E4R_NOMEM_INJECT_H

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Allocation failures on demand for every caller in the process: this
 * program's malloc, calloc, realloc and posix_memalign stand in for the C
 * library's. A sanitizer brings its own allocator, which these would break:
 * there the test does not run.
 */
enum { OFF, COUNT, ONLY, FROM };

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define INJECT 0
static void (*alloc_observe)(long n) __attribute__((unused));	/* never called: nothing is counted */
static void inject(int mode, long k) { (void)mode; (void)k; }
static long injected_count(void) { return 0; }
static int injected_hit(void) { return 0; }
#else
#define INJECT 1
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);

static int alloc_mode = OFF;
static long alloc_k;		/* the index that fails (ONLY) or the first that fails (FROM) */
static long alloc_n;		/* allocations seen since inject() */
static int alloc_hit;
static int alloc_trace;
/* Called with each allocation's index while counting (it must not allocate itself). */
static void (*alloc_observe)(long n);

static int alloc_fails(void)
{
	long n;

	if (alloc_mode == OFF)
		return 0;
	n = alloc_n++;
	if (alloc_mode == COUNT && alloc_observe)
		alloc_observe(n);
	if (alloc_mode == COUNT || n < alloc_k || (alloc_mode == ONLY && n > alloc_k))
		return 0;
	alloc_hit = 1;
	/* E4R_NOMEM_VERBOSE: where each failure lands (backtrace() is warm: it needs no memory) */
	if (alloc_trace) {
		void *pcs[32];

		fprintf(stderr, "allocation %ld fails here:\n", n);
		backtrace_symbols_fd(pcs, backtrace(pcs, 32), 2);
	}
	errno = ENOMEM;
	return 1;
}

void *malloc(size_t n)
{
	return alloc_fails() ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return alloc_fails() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	return alloc_fails() ? NULL : __libc_realloc(p, n);
}

/* libext2fs's aligned buffers (the unix io manager's) come from here */
int posix_memalign(void **p, size_t align, size_t n)
{
	void *q;

	if (alloc_fails())
		return ENOMEM;
	if (!(q = __libc_memalign(align, n)))
		return ENOMEM;
	*p = q;
	return 0;
}

static void inject(int mode, long k)
{
	alloc_trace = mode == ONLY && getenv("E4R_NOMEM_VERBOSE") != NULL;
	alloc_n = 0;
	alloc_hit = 0;
	alloc_k = k;
	alloc_mode = mode;
}

static long injected_count(void) { return alloc_n; }
static int injected_hit(void) { return alloc_hit; }
#endif

/* A child's report through its exit status: the command's exit code, or one of these. */
#define CHILD_NOT_HIT	64	/* + rc: the index was past the run's last allocation */
#define CHILD_DEP_CRASH	96	/* crashed inside libext2fs */
#define CHILD_CRASH	97	/* crashed in our code */
#define CHILD_SETUP	98	/* the copy could not be made */

static const char *mode_name(int mode)
{
	return mode == ONLY ? "only" : "from";
}

/* The indices a run of TOTAL tries, at most MAX_RUNS of them (0: all): every STRIDE-th, and the last. */
static inline long index_stride(long total, long max_runs)
{
	return max_runs > 0 && total > max_runs ? (total + max_runs - 1) / max_runs : 1;
}

static inline long next_index(long k, long stride, long total)
{
	return k + stride < total || k == total - 1 ? k + stride : total - 1;
}

/* The libext2fs crashes seen, counted apart: how many, and which runs (for the summary). */
static long dep_crashes;
static char dep_list[4096];

/*
 * What a child's STATUS says of run K (MODE): its command's exit code, or
 * -1 when it crashed outside libext2fs (said here). *PAST_END: K was past
 * the run's last allocation; *DEP: libext2fs crashed (counted, and the code
 * is CHILD_DEP_CRASH).
 */
static int child_code(int status, int mode, long k, int *past_end, int *dep)
{
	int code;

	*past_end = *dep = 0;
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) == CHILD_SETUP ||
	    WEXITSTATUS(status) == CHILD_CRASH) {
		printf("allocation %ld (%s): the run crashed outside libext2fs (status %#x)\n", k, mode_name(mode),
		       status);
		return -1;
	}
	code = WEXITSTATUS(status);
	if (code >= CHILD_NOT_HIT && code < CHILD_DEP_CRASH) {
		*past_end = 1;
		code -= CHILD_NOT_HIT;
	}
	if (code == CHILD_DEP_CRASH) {
		*dep = 1;
		dep_crashes++;
		if (strlen(dep_list) + 32 < sizeof(dep_list))
			snprintf(dep_list + strlen(dep_list), 32, " %ld(%s)", k, mode_name(mode));
	}
	return code;
}

/*
 * The child's end of a run: the allocations it saw go to the parent through
 * FD, and its exit status says RC, or that MODE's index was never reached.
 * N and HIT as injected_count and injected_hit read them when the run ended.
 */
static void child_report(int fd, int mode, int rc, long n, int hit)
{
	if (write(fd, &n, sizeof(n)) != sizeof(n))
		_exit(CHILD_SETUP);
	_exit(mode != COUNT && !hit ? CHILD_NOT_HIT + rc : rc);
}

/* The parent's end: the status of child PID, and (COUNT not NULL) the allocations it reported on FDS. */
static int child_wait(pid_t pid, int fds[2], long *count)
{
	int status;

	close(fds[1]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		close(fds[0]);
		return -1;
	}
	if (count && read(fds[0], count, sizeof(*count)) != sizeof(*count))
		*count = -1;
	close(fds[0]);
	return status;
}

/* Are a frame's code bytes in the shared object whose name holds NAME? */
static int frame_in(void *pc, const char *name)
{
	Dl_info di;

	return dladdr(pc, &di) && di.dli_fname && strstr(di.dli_fname, name);
}

/*
 * A crash: whose is it? The innermost frame outside the C library (free()'s
 * abort on a bad pointer, memcpy's fault, the signal trampoline) is the
 * caller at fault. The backtrace goes to stderr for the log.
 */
static void on_crash(int sig)
{
	void *pcs[64];
	int n = backtrace(pcs, 64), i, dep = 0;

	backtrace_symbols_fd(pcs, n, 2);
	/* pcs[0] is this handler; the trampoline and the faulting frames follow */
	for (i = 1; i < n; i++) {
		if (frame_in(pcs[i], "libc.so") || frame_in(pcs[i], "libc-"))
			continue;
		dep = frame_in(pcs[i], "libext2fs");
		break;
	}
	fprintf(stderr, "signal %d, %s\n", sig, dep ? "inside libext2fs" : "outside libext2fs");
	_exit(dep ? CHILD_DEP_CRASH : CHILD_CRASH);
}

/* In a fresh child: send a crash to on_crash (warming backtrace() first, which allocates on first use). */
static void crash_handlers(void)
{
	struct sigaction sa;
	void *warm[4];

	/* backtrace() loads its unwinder with malloc on first use: not in the handler */
	backtrace(warm, 4);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_crash;
	sa.sa_flags = SA_RESETHAND;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGABRT, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
}

#endif
