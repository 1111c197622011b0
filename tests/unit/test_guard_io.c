/*
 * The repairs' write guard (lib/fs/guard_io.c): what libext2fs writes to
 * metadata goes through; a directory or data write onto a superblock, a
 * descriptor block, a bitmap or an inode table is refused, nothing of it
 * reaches the image, and every later write is refused too. e2fsck -fn judges
 * the image after the writes that went through.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs/guard_io.h"
#include "util/e4r_err.h"
#include "unit.h"

static int sh(const char *cmd)
{
	char full[1024];

	snprintf(full, sizeof(full), "PATH=/sbin:/usr/sbin:$PATH; %s >/dev/null 2>&1", cmd);
	return system(full);
}

/* The bytes of block BLK of IMG. */
static void read_block(const char *img, blk64_t blk, unsigned bs, char *buf)
{
	int fd = open(img, O_RDONLY);

	CHECK(fd >= 0 && pread(fd, buf, bs, (off_t)blk * bs) == (ssize_t)bs);
	if (fd >= 0)
		close(fd);
}

static ext2_filsys open_guarded(const char *img)
{
	ext2_filsys fs = NULL;

	CHECK_EQ(ext2fs_open(img, EXT2_FLAG_RW | EXT2_FLAG_64BITS, 0, 0,
			     fs_guard_io(unix_io_manager), &fs), 0);
	if (fs)
		CHECK_EQ(fs_guard_arm(fs), 0);
	return fs;
}

/* A refused write of BUF at BLK: the error, the block named, the image unchanged. */
static void refused(ext2_filsys fs, const char *img, blk64_t blk, const char *buf,
		    const char *what)
{
	char *before = malloc(fs->blocksize), *after = malloc(fs->blocksize);
	blk64_t got = 0;
	const char *kind = NULL;

	read_block(img, blk, fs->blocksize, before);
	CHECK_EQ(io_channel_write_blk64(fs->io, blk, 1, buf), E4R_WRITE_GUARD);
	CHECK(fs_guard_tripped(&got, &kind));
	CHECK_EQ(got, blk);
	CHECK(kind && strcmp(kind, what) == 0);
	io_channel_flush(fs->io);
	read_block(img, blk, fs->blocksize, after);
	CHECK(memcmp(before, after, fs->blocksize) == 0);
	free(before);
	free(after);
}

static void one_layout(const char *mkfs_opts)
{
	const char *img = "guard.img";
	char cmd[512], *junk;
	ext2_filsys fs;
	struct ext2_inode inode;
	blk64_t data_blk = 0, sb_blk;
	unsigned bs;

	snprintf(cmd, sizeof(cmd), "mke2fs -q -F -t ext4 %s %s 16M", mkfs_opts, img);
	if (sh(cmd)) {
		fprintf(stderr, "mke2fs %s failed: layout skipped\n", mkfs_opts);
		return;
	}
	/* what libext2fs writes to metadata passes: an inode, descriptors, bitmaps, the superblock */
	fs = open_guarded(img);
	if (!fs)
		return;
	bs = fs->blocksize;
	CHECK_EQ(ext2fs_read_inode(fs, EXT2_ROOT_INO, &inode), 0);
	inode.i_atime ^= 1;
	CHECK_EQ(ext2fs_write_inode(fs, EXT2_ROOT_INO, &inode), 0);
	CHECK_EQ(ext2fs_read_bitmaps(fs), 0);
	CHECK_EQ(ext2fs_new_block2(fs, 0, NULL, &data_blk), 0);
	ext2fs_block_alloc_stats2(fs, data_blk, +1);
	ext2fs_block_alloc_stats2(fs, data_blk, -1);
	/* a data block is no metadata: written freely */
	junk = malloc(bs);
	memset(junk, 0x5a, bs);
	CHECK_EQ(io_channel_write_blk64(fs->io, data_blk, 1, junk), 0);
	fs_guard_bitmaps(1);
	CHECK_EQ(ext2fs_close_free(&fs), 0);
	fs_guard_bitmaps(0);
	fs_guard_disarm();
	CHECK_EQ(sh("e2fsck -fn guard.img"), 0);

	/* a directory-like block over each kind of metadata: refused, nothing written */
	sb_blk = bs == 1024 ? 1 : 0;
	fs = open_guarded(img);
	if (!fs)
		return;
	refused(fs, img, sb_blk, junk, "a superblock");
	/* once tripped, nothing more is written, however harmless */
	CHECK_EQ(io_channel_write_blk64(fs->io, data_blk, 1, junk), E4R_WRITE_GUARD);
	ext2fs_free(fs);
	fs_guard_disarm();

	fs = open_guarded(img);
	refused(fs, img, ext2fs_descriptor_block_loc2(fs, fs->super->s_first_data_block, 0),
		junk, "a group descriptor block");
	ext2fs_free(fs);
	fs_guard_disarm();

	fs = open_guarded(img);
	refused(fs, img, ext2fs_block_bitmap_loc(fs, 0), junk, "a bitmap block");
	ext2fs_free(fs);
	fs_guard_disarm();

	fs = open_guarded(img);
	refused(fs, img, ext2fs_inode_table_loc(fs, 0), junk, "an inode table block");
	ext2fs_free(fs);
	fs_guard_disarm();

	/* bitmaps written outside the window are refused: the close reports it */
	fs = open_guarded(img);
	CHECK_EQ(ext2fs_read_bitmaps(fs), 0);
	ext2fs_mark_bb_dirty(fs);
	{
		blk64_t got;
		const char *kind = NULL;

		/* libext2fs reports its own code (a bitmap write failed); the guard says why */
		CHECK(ext2fs_close_free(&fs) != 0);
		CHECK(fs_guard_tripped(&got, &kind) && kind && !strcmp(kind, "a bitmap block"));
	}
	fs_guard_disarm();
	CHECK_EQ(sh("e2fsck -fn guard.img"), 0);
	free(junk);
	unlink(img);
}

int main(void)
{
	add_error_table(&et_e4r_error_table);
	add_error_table(&et_ext2_error_table);
	one_layout("-b 4096");
	one_layout("-b 1024");
	one_layout("-b 1024 -O meta_bg,^resize_inode");
	one_layout("-b 2048 -O ^metadata_csum,^flex_bg");
	return unit_done("test_guard_io");
}
