/* What every fuzz target does: decode the input, run a subcommand on it in memory, check the aftermath. */
#ifndef E4R_FUZZ_COMMON_H
#define E4R_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "sparse_image.h"

/* The name the decoded image is registered under (mem_io.h). */
#define FUZZ_IMAGE	"mem:fuzz.img"

typedef int (*fuzz_command)(int argc, const char **argv);

enum fuzz_expect {
	FUZZ_MAY_WRITE = 0,
	FUZZ_READ_ONLY,		/* not one write may reach the image */
};

/*
 * Run CMD with ARGV (ARGC entries; FUZZ_IMAGE is appended) on the image in
 * DATA. Aborts, so that libFuzzer records the input, when the command
 * returns an exit code outside the documented set, writes outside the image
 * or, for FUZZ_READ_ONLY, writes at all (every write to the image goes
 * through the in-memory io manager, which counts them). Returns the
 * command's exit code, or -1 when DATA is no sparse image.
 */
int fuzz_run(const uint8_t *data, size_t size, fuzz_command cmd, int argc, const char **argv,
	     enum fuzz_expect expect);

/* Run CMD as fuzz_run does, on the image the last fuzz_run left (not decoded again). */
int fuzz_rerun(fuzz_command cmd, int argc, const char **argv, enum fuzz_expect expect);

/* The image the last fuzz_run decoded, as the commands since left it (NULL before any). */
const struct sparse_image *fuzz_last_image(void);

#endif
