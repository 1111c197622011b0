/*
 * Fuzz target: check -f on an image in memory, in each mode: -n (every pass,
 * and not one write), -y (the repairs, which must stay inside the image)
 * and -p (safe repairs only, or nothing).
 *
 * And differentially: when -y or -p says it fixed everything (exit 0 or 1),
 * a second check -n of what it left must find nothing (exit 0), as e2fsck's
 * own second run must. A repair that leaves something behind, or a check
 * that complains about its own repair, aborts. On unless
 * E4R_FUZZ_SECOND_CHECK=0 (to look for other findings while one that breaks
 * it is open: fuzz/open/README).
 *
 * One case is let through: inodes per group not a multiple of 8. libext2fs
 * loads a group's inode bitmap by whole bytes only, so an inode in use in
 * the last, partial byte always reads as free; no repair can say otherwise,
 * and e2fsck -fy then e2fsck -fn find the same difference
 * (fuzz/regress/check/inode-in-partial-bitmap-byte).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "fuzz_common.h"
#include "commands.h"
#include "cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const modes[] = { "-n", "-y", "-p" };

static int second_check_wanted(void)
{
	static int wanted = -1;

	if (wanted < 0) {
		const char *e = getenv("E4R_FUZZ_SECOND_CHECK");

		wanted = !(e && *e == '0');
	}
	return wanted;
}

/* Inodes per group, as the superblock the repair left says, not a multiple of 8. */
static int partial_inode_bitmap_byte(void)
{
	const struct sparse_image *img = fuzz_last_image();
	const unsigned char *p;

	if (!img || img->len < 2048)
		return 0;
	p = img->buf + 1024 + 40;	/* s_inodes_per_group */
	return (p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24) % 8 != 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned opt = size > 5 ? data[5] : 0;
	unsigned mode = (opt >> 1) % 3;
	const char *argv[4] = { "check", modes[mode], "-f" };
	const char *again[3] = { "check", "-n", "-f" };
	int argc = 3, rc, rc2;

	if (opt & 1)
		argv[argc++] = "--json";
	/* -n never writes, even when the journal needs replaying. */
	rc = fuzz_run(data, size, cmd_check, argc, argv, mode == 0 ? FUZZ_READ_ONLY : FUZZ_MAY_WRITE);
	if (mode == 0 || (rc != EXIT_OK && rc != EXIT_PROBLEMS) || !second_check_wanted())
		return 0;
	rc2 = fuzz_rerun(cmd_check, 3, again, FUZZ_READ_ONLY);
	fflush(stdout);	/* what the two checks said, before the abort */
	if (rc2 != EXIT_OK && !partial_inode_bitmap_byte()) {
		fprintf(stderr, "fuzz: check %s exited %d (all fixed), then check -n found more (exit %d)\n",
			modes[mode], rc, rc2);
		abort();
	}
	return 0;
}
