/*
 * Unit test: the checker's inode, directory block and extent node checksums
 * (lib/check/csum.c, hardware crc32c) give libext2fs's answers (its verify
 * functions are the oracle) on seeded random blocks: valid checksums set by
 * libext2fs, the same with one bit flipped, all-zero inodes, inodes with and
 * without the checksum's high half, leaves with and without a tail, htree
 * nodes, extent nodes whose tail lies past the block. Images of 1 KiB blocks
 * with 128-byte inodes and 4 KiB blocks with 256-byte inodes. Setting a
 * leaf's checksum writes the bytes libext2fs's setter writes.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ext2fs/ext2fs.h>

#include "check/csum.h"
#include "unit.h"

static unsigned seed = 777;

static unsigned rnd(unsigned n)
{
	seed = seed * 1103515245 + 12345;
	return (seed >> 8) % n;
}

static void fill(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)rnd(256);
}

static void flip_one(unsigned char *p, size_t n)
{
	p[rnd((unsigned)n)] ^= (unsigned char)(1u << rnd(8));
}

static void inodes(ext2_filsys fs, unsigned *agree, unsigned *total)
{
	size_t size = EXT2_INODE_SIZE(fs->super);
	unsigned char *buf = calloc(1, size < sizeof(struct ext2_inode_large) ? sizeof(struct ext2_inode_large) : size);
	struct ext2_inode_large *in = (struct ext2_inode_large *)buf;

	for (unsigned k = 0; k < 3000; k++) {
		ext2_ino_t ino = 1 + rnd(fs->super->s_inodes_count);
		unsigned how = rnd(5);

		if (how == 0) {
			memset(buf, 0, size);	/* never written */
		} else {
			fill(buf, size);
			if (size > EXT2_GOOD_OLD_INODE_SIZE) {
				static const uint16_t extra[] = { 0, 2, 4, 32, 3 };
				in->i_extra_isize = ext2fs_cpu_to_le16(extra[rnd(5)]);
			}
			if (how >= 2)
				ext2fs_inode_csum_set(fs, ino, in);
			if (how == 3)
				flip_one(buf, size);
		}
		*agree += !check_inode_csum_ok(fs, ino, in) == !ext2fs_inode_csum_verify(fs, ino, in);
		(*total)++;
	}
	free(buf);
}

/* A leaf of random entries (a sane chain) ending in a checksum tail. */
static void make_leaf(ext2_filsys fs, unsigned char *b)
{
	unsigned bs = fs->blocksize, top = bs - 12, off = 0;

	memset(b, 0, bs);
	while (off < top) {
		struct ext2_dir_entry *de = (struct ext2_dir_entry *)(b + off);
		unsigned len = 1 + rnd(30), rec = (8 + len + 3) & ~3u;

		if (top - off < rec + 12 || rnd(20) == 0) {
			rec = top - off;	/* the last entry takes the rest (always 12 bytes or more) */
			if (len > rec - 8)
				len = rec - 8;
		}
		de->inode = ext2fs_cpu_to_le32(1 + rnd(1000));
		de->name_len = ext2fs_cpu_to_le16(len | 1 << 8);
		fill((unsigned char *)de->name, len);
		de->rec_len = ext2fs_cpu_to_le16(rec);
		off += rec;
	}
	struct ext2_dir_entry_tail *t = (struct ext2_dir_entry_tail *)(b + top);
	t->det_rec_len = ext2fs_cpu_to_le16(12);
	t->det_reserved_name_len = ext2fs_cpu_to_le16(0xDE00);
}

static void dir_blocks(ext2_filsys fs, ext2_ino_t ino, unsigned *agree, unsigned *total)
{
	unsigned bs = fs->blocksize;
	unsigned char *b = malloc(bs), *copy = malloc(bs);
	/* the inode as a caller holds it: its generation must give the same answers */
	struct ext2_inode inode, *in = &inode;

	CHECK_EQ(ext2fs_read_inode(fs, ino, &inode), 0);

	for (unsigned k = 0; k < 2000; k++) {
		unsigned how = rnd(6);

		if (how == 5) {
			fill(b, bs);	/* no chain at all: libext2fs answers */
		} else if (how == 4) {
			/* an htree node: an empty entry over the block, a count and limit, no leaf tail */
			memset(b, 0, bs);
			((struct ext2_dir_entry *)b)->rec_len = ext2fs_cpu_to_le16(bs);
			fill(b + 8, 64);
			ext2fs_dir_block_csum_set(fs, ino, (struct ext2_dir_entry *)b);
		} else {
			make_leaf(fs, b);
			if (how >= 1)
				CHECK_EQ(ext2fs_dir_block_csum_set(fs, ino, (struct ext2_dir_entry *)b), 0);
			if (how == 2)
				flip_one(b, bs);
			if (how == 3)
				b[bs - 12 + 8] = 0;	/* a broken tail */
		}
		*agree += !check_dir_block_csum_ok(fs, ino, NULL, (char *)b) ==
			  !ext2fs_dir_block_csum_verify(fs, ino, (struct ext2_dir_entry *)b);
		/* the same answer from the inode the caller holds */
		*agree += !check_dir_block_csum_ok(fs, ino, in, (char *)b) ==
			  !ext2fs_dir_block_csum_verify(fs, ino, (struct ext2_dir_entry *)b);
		(*total) += 2;
		/* setting: the same bytes as libext2fs's, or nothing done where this does not apply */
		memcpy(copy, b, bs);
		if (!check_dir_leaf_csum_set(fs, ino, (char *)copy)) {
			CHECK_EQ(ext2fs_dir_block_csum_set(fs, ino, (struct ext2_dir_entry *)b), 0);
			*agree += !memcmp(copy, b, bs);
			(*total)++;
		} else {
			*agree += !memcmp(copy, b, bs);
			(*total)++;
		}
	}
	free(b);
	free(copy);
}

static void extent_blocks(ext2_filsys fs, ext2_ino_t ino, unsigned *agree, unsigned *total)
{
	unsigned bs = fs->blocksize, fits = (bs - 12 - 4) / 12;
	unsigned char *b = malloc(bs + 12 * 65536);	/* libext2fs reads a tail past the block as it is */
	struct ext3_extent_header *eh = (struct ext3_extent_header *)b;
	/* the inode as a caller holds it: its generation must give the same answers */
	struct ext2_inode inode, *in = &inode;

	CHECK_EQ(ext2fs_read_inode(fs, ino, &inode), 0);

	for (unsigned k = 0; k < 2000; k++) {
		unsigned how = rnd(5);

		fill(b, bs);
		eh->eh_magic = ext2fs_cpu_to_le16(EXT3_EXT_MAGIC);
		eh->eh_max = ext2fs_cpu_to_le16(how == 4 ? fits + 1 + rnd(20) : 1 + rnd(fits));
		if (how == 4)
			memset(b + bs, 0, 12 * 32);
		if (how >= 1 && how < 4)
			CHECK_EQ(ext2fs_extent_block_csum_set(fs, ino, eh), 0);
		if (how == 2)
			flip_one(b, bs);
		*agree += !check_extent_block_csum_ok(fs, ino, NULL, (char *)b) ==
			  !ext2fs_extent_block_csum_verify(fs, ino, eh);
		*agree += !check_extent_block_csum_ok(fs, ino, in, (char *)b) ==
			  !ext2fs_extent_block_csum_verify(fs, ino, eh);
		(*total) += 2;
	}
	free(b);
}

static void one_image(const char *dir, const char *opts)
{
	char img[256], cmd[768];
	ext2_filsys fs = NULL;
	struct ext2_inode in;
	unsigned agree = 0, total = 0;

	snprintf(img, sizeof(img), "%s/csum.img", dir);
	snprintf(cmd, sizeof(cmd), "PATH=/sbin:/usr/sbin:$PATH mke2fs -q -F -t ext4 -O metadata_csum %s %s 8M >/dev/null 2>&1",
		 opts, img);
	if (system(cmd) != 0) {
		fprintf(stderr, "mke2fs not available: %s skipped\n", opts);
		return;
	}
	CHECK_EQ(ext2fs_open(img, EXT2_FLAG_RW | EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &fs), 0);
	if (!fs)
		return;
	/* a generation other than 0 on the inodes whose blocks are tested */
	CHECK_EQ(ext2fs_read_inode(fs, 11, &in), 0);
	in.i_generation = 0x5eed1234;
	CHECK_EQ(ext2fs_write_inode(fs, 11, &in), 0);
	inodes(fs, &agree, &total);
	dir_blocks(fs, 11, &agree, &total);
	dir_blocks(fs, 2, &agree, &total);
	extent_blocks(fs, 11, &agree, &total);
	CHECK_EQ(agree, total);
	fprintf(stderr, "%s: %u of %u answers agree\n", opts, agree, total);
	ext2fs_close_free(&fs);
	unlink(img);
}

int main(void)
{
	char dir[] = "/tmp/e4r-unit-csum-XXXXXX";

	initialize_ext2_error_table();
	CHECK(mkdtemp(dir) != NULL);
	one_image(dir, "-b 1024 -I 128");
	one_image(dir, "-b 4096 -I 256");
	/* past the inode size checked over a copy: the inode in pieces */
	one_image(dir, "-b 4096 -I 2048 -N 256");
	rmdir(dir);
	return unit_done("test_check_csum");
}
