/*
 * Unit test: pass 1's inode walk (lib/check/iscan.c) returns what
 * libext2fs's inode scan returns (the oracle, run beside it on the same
 * image): the same inode numbers in the same order, the same bytes, the
 * same error at the same place, the same group callbacks; and each
 * checksum verdict the reader computed ahead is check_inode_csum_ok's on
 * the inode. Images (mke2fs and debugfs): 1 KiB blocks with inode tables of
 * two chunks, a partly used group (bg_itable_unused) and uninitialised
 * ones; the same with damaged inodes, with a table past the end of the
 * image, with a table at block 0, cut short inside a table (the walk falls
 * back to libext2fs mid-group); uninit_bg without metadata_csum; ext2
 * without group checksums. Where the walk must not read ahead (128-byte
 * inodes, a bad blocks list) it does not.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ext2fs/ext2fs.h>

#include "check/csum.h"
#include "check/iscan.h"
#include "fs/image.h"
#include "unit.h"

#define MAX_CALLS	64

struct calls {
	dgrp_t	group[MAX_CALLS];
	int	n;
};

static errcode_t note_group(ext2_filsys fs, ext2_inode_scan scan, dgrp_t group, void *arg)
{
	struct calls *c = arg;

	(void)fs;
	(void)scan;
	if (c->n < MAX_CALLS)
		c->group[c->n] = group;
	c->n++;
	return 0;
}

static char dir[] = "/tmp/e4r-unit-iscan-XXXXXX";

/* inodes libext2fs's scan called garbage in the last compare */
static unsigned long garbage_seen;

static int sh(const char *cmd)
{
	char full[4096];

	snprintf(full, sizeof(full), "cd %s && PATH=/sbin:/usr/sbin:$PATH && (%s) >/dev/null 2>&1", dir, cmd);
	return system(full);
}

/*
 * Walk IMG with the walk (read ahead unless SLOW) and with libext2fs's scan
 * side by side; FAST: whether the walk must read ahead. Returns the inodes
 * both returned.
 */
static unsigned long compare(const char *what, const char *img, int fast)
{
	char path[512];
	ext2_filsys fs = NULL;
	struct check_iscan *walk = NULL;
	ext2_inode_scan scan = NULL;
	struct calls a = { { 0 }, 0 }, b = { { 0 }, 0 };
	struct ext2_inode_large *in, *copy;
	ext2_ino_t ia = 0, ib = 0;
	unsigned long n = 0, bad_csums = 0;
	errcode_t ea, eb;
	size_t isize;
	int i, mismatch = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, img);
	CHECK_EQ(fs_image_open(path, E4R_OPEN_NO_SIZE_CHECK, NULL, &fs), 0);
	if (!fs) {
		fprintf(stderr, "%s: cannot open\n", what);
		return 0;
	}
	isize = EXT2_INODE_SIZE(fs->super);
	copy = calloc(1, isize < sizeof(*copy) ? sizeof(*copy) : isize);
	CHECK_EQ(check_iscan_open(fs, 0, note_group, &a, &walk), 0);
	CHECK_EQ(ext2fs_open_inode_scan(fs, 0, &scan), 0);
	garbage_seen = 0;
	if (!walk || !scan || !copy)
		goto out;
	ext2fs_set_inode_callback(scan, note_group, &b);
	if (check_iscan_fast(walk) != fast) {
		fprintf(stderr, "%s: read ahead %d, wanted %d\n", what, check_iscan_fast(walk), fast);
		CHECK(0);
	}
	/* as e2fsck asks, on every filesystem */
	ext2fs_inode_scan_flags(scan, EXT2_SF_WARN_GARBAGE_INODES, 0);
	for (;;) {
		int csum = -1, garbage = -1, lib_garbage;

		ea = check_iscan_next(walk, &ia, &in, &csum, &garbage);
		eb = ext2fs_get_next_inode_full(scan, &ib, (struct ext2_inode *)copy, (int)isize);
		lib_garbage = eb == EXT2_ET_INODE_IS_GARBAGE;
		if (lib_garbage)
			eb = 0;
		if (!ea && garbage != lib_garbage) {
			fprintf(stderr, "%s: inode %u garbage %d, libext2fs %d\n", what, ia, garbage, lib_garbage);
			mismatch = 1;
			break;
		}
		garbage_seen += lib_garbage;
		if (ea != eb || ia != ib) {
			fprintf(stderr, "%s: walk gives %ld at inode %u, libext2fs %ld at %u\n",
				what, (long)ea, ia, (long)eb, ib);
			mismatch = 1;
			break;
		}
		if (ea == EXT2_ET_BAD_BLOCK_IN_INODE_TABLE)
			continue;
		if (ea || !ia)
			break;
		n++;
		if (memcmp(in, copy, isize)) {
			fprintf(stderr, "%s: inode %u differs\n", what, ia);
			mismatch = 1;
			break;
		}
		if (csum >= 0 && csum != check_inode_csum_ok(fs, ia, copy)) {
			fprintf(stderr, "%s: inode %u checksum verdict %d\n", what, ia, csum);
			mismatch = 1;
			break;
		}
		bad_csums += csum == 0;
		/* the caller may change the inode in place */
		in->i_mode = 0xffff;
	}
	CHECK(!mismatch);
	CHECK_EQ(a.n, b.n);
	for (i = 0; i < a.n && i < b.n && i < MAX_CALLS; i++)
		CHECK_EQ(a.group[i], b.group[i]);
	printf("%s: %lu inodes, %d group calls, error %ld, %lu bad checksums, %lu garbage\n",
	       what, n, a.n, (long)ea, bad_csums, garbage_seen);
out:
	check_iscan_close(walk);
	if (scan)
		ext2fs_close_inode_scan(scan);
	free(copy);
	ext2fs_close_free(&fs);
	return n;
}

/* The same walk asked to stay slow: libext2fs's scan, never reading ahead. */
static void slow_stays_slow(const char *img)
{
	char path[512];
	ext2_filsys fs = NULL;
	struct check_iscan *walk = NULL;

	snprintf(path, sizeof(path), "%s/%s", dir, img);
	CHECK_EQ(fs_image_open(path, 0, NULL, &fs), 0);
	if (!fs)
		return;
	CHECK_EQ(check_iscan_open(fs, 1, NULL, NULL, &walk), 0);
	CHECK(walk && !check_iscan_fast(walk));
	check_iscan_close(walk);
	ext2fs_close_free(&fs);
}

#define MKFS	"mke2fs -q -F -E lazy_itable_init=0 "

int main(void)
{
	FILE *f;
	int i;
	unsigned long n;

	initialize_ext2_error_table();
	if (!mkdtemp(dir)) {
		CHECK(0);
		return unit_done("test_iscan");
	}
	{
		char p[600];

		snprintf(p, sizeof(p), "%s/mkdirs", dir);
		f = fopen(p, "w");
		CHECK(f != NULL);
		if (!f)
			return unit_done("test_iscan");
		/* 2500 directories: group 0 full, group 1 in part, the rest never used */
		for (i = 1; i <= 2500; i++)
			fprintf(f, "mkdir d%d\n", i);
		fclose(f);
	}
	if (sh(MKFS "-t ext4 -b 1024 -N 16384 base.img 64M") || sh("debugfs -w -f mkdirs base.img")) {
		fprintf(stderr, "mke2fs or debugfs not available: skipped\n");
		return unit_done("test_iscan");
	}
	n = compare("populated", "base.img", 1);
	CHECK(n > 2500);
	slow_stays_slow("base.img");

	/* inodes of group 0's second chunk and of group 1 damaged: their checksums fail */
	CHECK_EQ(sh("cp base.img damaged.img && "
		    "printf 'XXXXXXXX' | dd of=damaged.img bs=1 seek=$((600 * 1024 + 40)) conv=notrunc && "
		    "printf 'YYYYYYYY' | dd of=damaged.img bs=1 seek=$((790 * 1024 + 8)) conv=notrunc"), 0);
	compare("damaged inodes", "damaged.img", 1);
	CHECK_EQ(garbage_seen, 0);

	/*
	 * Three of the four inodes of a table block overwritten: the block is
	 * garbage, its sound fourth inode too; two of four in another are not
	 */
	CHECK_EQ(sh("cp base.img garbage.img && "
		    "yes GARBAGE | head -c 768 | dd of=garbage.img bs=256 seek=2800 conv=notrunc && "
		    "yes GARBAGE | head -c 512 | dd of=garbage.img bs=256 seek=2900 conv=notrunc"), 0);
	compare("a garbage table block", "garbage.img", 1);
	CHECK_EQ(garbage_seen, 4);

	/* group 1's table past the end of the image: the read fails (a short read) */
	CHECK_EQ(sh("cp base.img far.img && "
		    "debugfs -w -R 'set_bg 1 inode_table 70000' far.img && "
		    "debugfs -w -R 'set_bg 1 checksum calc' far.img"), 0);
	compare("table past the end", "far.img", 1);

	/* group 1's table at block 0: libext2fs's missing-table error */
	CHECK_EQ(sh("cp base.img zero.img && "
		    "debugfs -w -R 'set_bg 1 inode_table 0' zero.img && "
		    "debugfs -w -R 'set_bg 1 checksum calc' zero.img"), 0);
	compare("table at block 0", "zero.img", 1);

	/* cut inside group 0's second chunk (its table starts at block 275): fall back mid-group */
	CHECK_EQ(sh("cp base.img cut.img && truncate -s $(((275 + 300) * 1024)) cut.img"), 0);
	n = compare("cut short", "cut.img", 1);
	CHECK(n > 1024 && n < 2048);

	CHECK_EQ(sh(MKFS "-t ext4 -O ^metadata_csum,uninit_bg -b 4096 -N 4096 uninit.img 64M && "
		    "debugfs -w -f mkdirs uninit.img"), 0);
	compare("uninit_bg", "uninit.img", 1);

	CHECK_EQ(sh(MKFS "-t ext2 -b 1024 -N 4096 ext2.img 32M && debugfs -w -f mkdirs ext2.img"), 0);
	compare("ext2", "ext2.img", 1);
	CHECK_EQ(garbage_seen, 0);

	/*
	 * Without checksums only the maps count: three directories of one
	 * table block with most of i_block outside the filesystem make the
	 * block garbage, the fourth inode too
	 */
	CHECK_EQ(sh("cp ext2.img ext2-garbage.img && "
		    "it=$(dumpe2fs ext2.img 2>/dev/null | sed -n 's/^ *Inode table at \\([0-9]*\\)-.*/\\1/p' | head -n 1) && "
		    "python3 -c 'import struct, sys\n"
		    "f = open(\"ext2-garbage.img\", \"r+b\")\n"
		    "for i in range(3):\n"
		    "    f.seek((int(sys.argv[1]) + 3) * 1024 + i * 256)\n"
		    "    ino = bytearray(f.read(256))\n"
		    "    struct.pack_into(\"<H\", ino, 0, 0o40755)\n"
		    "    struct.pack_into(\"<H\", ino, 26, 2)\n"
		    "    struct.pack_into(\"<15I\", ino, 40, *([0xfffffff0] * 15))\n"
		    "    f.seek((int(sys.argv[1]) + 3) * 1024 + i * 256)\n"
		    "    f.write(ino)\n' $it"), 0);
	compare("ext2, a garbage table block", "ext2-garbage.img", 1);
	CHECK_EQ(garbage_seen, 4);

	CHECK_EQ(sh(MKFS "-t ext4 -I 128 -b 1024 -N 4096 small.img 32M && "
		    "debugfs -w -f mkdirs small.img"), 0);
	compare("128-byte inodes", "small.img", 0);

	/* a bad blocks list naming a block of group 1's table: libext2fs blanks it */
	CHECK_EQ(sh("echo 800 > bb && " MKFS "-t ext4 -b 1024 -N 16384 -l bb bb.img 64M && "
		    "debugfs -w -f mkdirs bb.img"), 0);
	compare("bad blocks", "bb.img", 0);

	sh("rm -f base.img damaged.img garbage.img far.img zero.img cut.img uninit.img ext2.img ext2-garbage.img small.img bb.img bb mkdirs");
	rmdir(dir);
	return unit_done("test_iscan");
}
