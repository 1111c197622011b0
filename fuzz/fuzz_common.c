/* The shared body of the fuzz targets (see fuzz_common.h). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <et/com_err.h>
#include <ext2fs/ext2fs.h>

#include "fuzz_common.h"
#include "fs/bitmaps.h"
#include "fs/guard_io.h"
#include "fs/mem_io.h"
#include "util/e4r_err.h"
#include "cli.h"

/* recover/cli.c names the program in its messages. */
const char *progname = "e4recover";

static int initialised;

/*
 * libext2fs does not fail a bitmap test, mark or unmark outside the
 * bitmap: it prints a warning through com_err and goes on. Such a call is
 * our bug (a number not checked against the filesystem first), and the
 * warning lands on the user's terminal, so every one is a finding (the
 * bitmap loads of fs/bitmaps.h keep libext2fs's own out of it).
 */
typedef void (*com_err_fn)(const char *, long, const char *, va_list);

static unsigned long bitmap_misuses;
static com_err_fn next_hook;

static void watch_com_err(const char *whoami, long code, const char *fmt, va_list ap)
{
	if (fs_bitmap_range_warning(code))
		bitmap_misuses++;
	next_hook(whoami, code, fmt, ap);
}

static void init_once(void)
{
	if (initialised)
		return;
	initialize_e4r_error_table();
	initialize_ext2_error_table();
	next_hook = set_com_err_hook(watch_com_err);
	initialised = 1;
}

static int documented_exit(int rc)
{
	switch (rc) {
	case EXIT_OK: case EXIT_PROBLEMS: case EXIT_UNCORRECTED:
	case EXIT_OPERATIONAL: case EXIT_CANCELLED:
	case EXIT_OPERATIONAL | EXIT_UNCORRECTED:	/* check cut short with errors left */
		return 1;
	default:
		return 0;
	}
}

/* Tests compare what a run left in memory with what e2fsck leaves in a file. */
static void dump_image(const struct sparse_image *img)
{
	const char *path = getenv("E4R_FUZZ_DUMP");
	FILE *f;

	if (!path)
		return;
	f = fopen(path, "wb");
	if (!f || fwrite(img->buf, 1, img->len, f) != img->len || fclose(f)) {
		perror(path);
		abort();
	}
}

/* The image the last fuzz_run decoded, as that run left it, for fuzz_rerun. */
static struct sparse_image last;

/*
 * Where the decode buffer may hold bytes of an earlier image: what the
 * decode put there and what the commands wrote. The next decode clears only
 * that, so every run sees its image over zeros as in a fresh process.
 */
static unsigned char dirty[SPARSE_DIRTY_BYTES];

static void note_write(void *arg, uint64_t off, uint64_t len)
{
	sparse_dirty_mark(arg, off, len);
}

static int guard_trip_wanted(void)
{
	static int wanted = -1;

	if (wanted < 0) {
		const char *e = getenv("E4R_FUZZ_GUARD");

		wanted = !(e && *e == '0');
	}
	return wanted;
}

/* Run CMD on the registered image and check the aftermath (see fuzz_run). */
static int run_registered(fuzz_command cmd, int argc, const char **argv, enum fuzz_expect expect)
{
	struct fs_mem_io_stats st;
	const char *args[16];
	unsigned long trips = fs_guard_trips(), misuses = bitmap_misuses;
	int rc;

	if (argc < 1 || argc > 14)
		abort();
	memcpy(args, argv, argc * sizeof(*args));
	args[argc] = FUZZ_IMAGE;
	args[argc + 1] = NULL;
	if (fs_mem_image_add(FUZZ_IMAGE, last.buf, last.len) ||
	    !fs_mem_image_watch(FUZZ_IMAGE, note_write, dirty))
		abort();
	rc = cmd(argc + 1, args);
	/*
	 * libext2fs keeps one static zeroing buffer, sized by the block size of
	 * the filesystem that first needed it; a later run on larger blocks
	 * would write from past its end. One process is one image for the
	 * tool; here every run starts without it.
	 */
	ext2fs_zero_blocks2(NULL, 0, 0, NULL, NULL);
	dump_image(&last);
	if (!fs_mem_image_stats(FUZZ_IMAGE, &st))
		abort();
	fs_mem_image_remove(FUZZ_IMAGE);

	if (!documented_exit(rc)) {
		fprintf(stderr, "fuzz: %s exited %d, not a documented exit code\n", argv[0], rc);
		abort();
	}
	if (st.refused) {
		fprintf(stderr, "fuzz: %s tried %lu writes outside the image\n", argv[0], st.refused);
		abort();
	}
	/*
	 * The write guard refused a repair's write: an internal error, whatever
	 * the exit code says. On unless E4R_FUZZ_GUARD=0 (to look past one
	 * while it is open: fuzz/open/README).
	 */
	if (fs_guard_trips() != trips && guard_trip_wanted()) {
		fprintf(stderr, "fuzz: %s tripped the write guard\n", argv[0]);
		abort();
	}
	if (bitmap_misuses != misuses) {
		fprintf(stderr, "fuzz: %s passed libext2fs %lu block or inode numbers outside its bitmaps\n",
			argv[0], bitmap_misuses - misuses);
		abort();
	}
	if (expect == FUZZ_READ_ONLY && st.writes) {
		fprintf(stderr, "fuzz: %s wrote %lu times to an image it must only read\n", argv[0], st.writes);
		abort();
	}
	return rc;
}

int fuzz_run(const uint8_t *data, size_t size, fuzz_command cmd, int argc, const char **argv,
	     enum fuzz_expect expect)
{
	static unsigned char *buf;

	init_once();
	/* zeroed once; after that the decode clears only what is dirty */
	if (!buf && !(buf = calloc(1, SPARSE_MAX_BYTES)))
		abort();
	last.buf = NULL;
	if (sparse_image_decode(data, size, buf, SPARSE_MAX_BYTES, dirty, &last))
		return -1;
	return run_registered(cmd, argc, argv, expect);
}

int fuzz_rerun(fuzz_command cmd, int argc, const char **argv, enum fuzz_expect expect)
{
	if (!last.buf)
		abort();
	return run_registered(cmd, argc, argv, expect);
}

const struct sparse_image *fuzz_last_image(void)
{
	return last.buf ? &last : NULL;
}
