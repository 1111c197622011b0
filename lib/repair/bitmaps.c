/*
 * Checker repair of pass 5's findings: the bitmaps, free counts, directory
 * counts, unused-inode marks and checksums rebuilt from what the passes
 * computed (the damage the 2012 ext4 journal bug left). libext2fs writes
 * the bitmaps with their checksums and the descriptors on close.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/ctx.h"
#include "fs/bitmaps.h"
#include "fs/guard_io.h"
#include "repair/repair.h"

/* Group G's block bitmap becomes the computed one; returns its free clusters. */
static errcode_t rebuild_block_group(struct check_ctx *c, dgrp_t g, unsigned char *ours,
				     unsigned char *disk, uint64_t *free_c)
{
	ext2_filsys fs = c->fs;
	uint64_t first = EXT2FS_B2C(fs, ext2fs_group_first_block2(fs, g));
	uint64_t n = EXT2FS_B2C(fs, ext2fs_group_last_block2(fs, g)) - first + 1;
	size_t bytes = (n + 7) / 8;
	errcode_t err;

	memset(ours, 0, bytes + 1);
	memset(disk, 0, bytes + 1);
	if ((err = ext2fs_get_block_bitmap_range2(c->used, first, n, ours)) ||
	    (err = ext2fs_get_block_bitmap_range2(fs->block_map, first, n, disk)))
		return err;
	if (n % 8) {
		ours[bytes - 1] &= (unsigned char)((1u << (n % 8)) - 1);
		disk[bytes - 1] &= (unsigned char)((1u << (n % 8)) - 1);
	}
	if (memcmp(ours, disk, bytes)) {
		/* An uninit group's bitmap is implied; a different one must be written. */
		ext2fs_bg_flags_clear(fs, g, EXT2_BG_BLOCK_UNINIT);
		if ((err = ext2fs_set_block_bitmap_range2(fs->block_map, first, n, ours)))
			return err;
	}
	*free_c = n - check_popcount(ours, bytes);
	ext2fs_bg_free_blocks_count_set(fs, g, (uint32_t)*free_c);
	return 0;
}

static errcode_t rebuild_inode_group(struct check_ctx *c, dgrp_t g, unsigned char *ours,
				     unsigned char *disk, uint64_t *free_i)
{
	ext2_filsys fs = c->fs;
	uint32_t ipg = fs->super->s_inodes_per_group, i, dirs = 0, used;
	ext2_ino_t first = g * ipg + 1;
	size_t bytes = (ipg + 7) / 8;
	errcode_t err;

	memset(ours, 0, bytes + 1);
	memset(disk, 0, bytes + 1);
	if ((err = ext2fs_get_inode_bitmap_range2(c->inode_used, first, ipg, ours)) ||
	    (err = ext2fs_get_inode_bitmap_range2(fs->inode_map, first, ipg, disk)))
		return err;
	used = check_popcount(ours, bytes);
	if (memcmp(ours, disk, bytes)) {
		if ((err = ext2fs_set_inode_bitmap_range2(fs->inode_map, first, ipg, ours)))
			return err;
	}
	if (used)
		ext2fs_bg_flags_clear(fs, g, EXT2_BG_INODE_UNINIT);
	for (i = 0; i < ipg && first + i <= c->inodes; i++)
		if (c->kind[first + i] == KIND_DIR &&
		    ext2fs_test_inode_bitmap2(c->inode_used, first + i))
			dirs++;
	*free_i = ipg - used;
	ext2fs_bg_free_inodes_count_set(fs, g, (uint32_t)*free_i);
	ext2fs_bg_used_dirs_count_set(fs, g, dirs);
	return 0;
}

/*
 * With inodes per group not a multiple of 8, libext2fs's writer takes each
 * group's inode bitmap from its own reckoning of where the group starts (a
 * whole number of bytes per group) and reads past the end of the in-memory
 * bitmap for the last groups (AddressSanitizer: a heap over-read, found by
 * fuzz_check); it writes the partial last byte and checksums it, while its
 * reader (and e2fsck's) loads whole bytes only, wants every bit after them
 * set and the checksum over them alone. Such bitmaps are written here
 * instead: each group's whole bytes from its first inode, the rest padding
 * (the partial byte's inodes are never loaded), the checksum over the whole
 * bytes.
 */
static errcode_t write_inode_bitmaps_by_bytes(ext2_filsys fs)
{
	uint32_t ipg = fs->super->s_inodes_per_group;
	size_t whole = ipg / 8;
	unsigned char *buf;
	errcode_t err = 0;
	dgrp_t g;

	if (whole > fs->blocksize)
		return EXT2_ET_CORRUPT_SUPERBLOCK;
	if (!(buf = malloc(fs->blocksize)))
		return ENOMEM;
	for (g = 0; g < fs->group_desc_count && !err; g++) {
		blk64_t blk = ext2fs_inode_bitmap_loc(fs, g);

		/*
		 * as libext2fs: an uninit group's bitmap is implied; and a bitmap
		 * placed outside the filesystem has nowhere to go until the check
		 * moves it (a write there would land past the image's end)
		 */
		if (!blk || check_out_of_fs(fs, blk, 1) ||
		    (ext2fs_has_group_desc_csum(fs) && ext2fs_bg_flags_test(fs, g, EXT2_BG_INODE_UNINIT)))
			continue;
		memset(buf, 0xff, fs->blocksize);
		/* a tree bitmap with nothing set leaves the buffer as it was: not in use, not padding */
		memset(buf, 0, whole);
		if (whole &&
		    (err = ext2fs_get_inode_bitmap_range2(fs->inode_map, (ext2_ino_t)g * ipg + 1,
							  (unsigned)whole * 8, buf)))
			break;
		if ((err = ext2fs_inode_bitmap_csum_set(fs, g, (char *)buf, (int)whole)) ||
		    (err = io_channel_write_blk64(fs->io, blk, 1, buf)))
			break;
		ext2fs_group_desc_csum_set(fs, g);
	}
	free(buf);
	if (!err)
		fs->flags &= ~EXT2_FLAG_IB_DIRTY;
	ext2fs_mark_super_dirty(fs);
	return err;
}

/*
 * Write both bitmaps whole: padding bits, bitmap checksums and descriptor
 * checksums come with them. libext2fs notes, when it loads the bitmaps, a
 * block whose bits past the group's end are not set, and keeps the note on
 * the handle the next round checks; a whole write sets those bits, so the
 * note goes too.
 */
errcode_t repair_write_bitmaps(ext2_filsys fs)
{
	errcode_t err;

	int by_bytes = fs->super->s_inodes_per_group % 8 != 0;

	ext2fs_mark_bb_dirty(fs);
	/* libext2fs writes the block bitmaps; the inode bitmaps too, unless by bytes here */
	if (by_bytes)
		fs->flags &= ~EXT2_FLAG_IB_DIRTY;
	else
		ext2fs_mark_ib_dirty(fs);
	/* the write guard lets bitmap blocks be written now, and only now */
	fs_guard_bitmaps(1);
	err = ext2fs_write_bitmaps(fs);
	if (!err && by_bytes)
		err = write_inode_bitmaps_by_bytes(fs);
	fs_guard_bitmaps(0);
	if (!err)
		fs->flags &= ~(EXT2_FLAG_IBITMAP_TAIL_PROBLEM | EXT2_FLAG_BBITMAP_TAIL_PROBLEM);
	return err;
}

errcode_t repair_summaries(struct check_ctx *c)
{
	ext2_filsys fs = c->fs;
	uint32_t ipg = fs->super->s_inodes_per_group;
	size_t bbytes = EXT2_CLUSTERS_PER_GROUP(fs->super) / 8 + 2;
	size_t ibytes = ipg / 8 + 2;
	size_t bytes = bbytes > ibytes ? bbytes : ibytes;
	unsigned char *ours = malloc(bytes), *disk = malloc(bytes);
	uint64_t free_blocks = 0, free_inodes = 0;
	errcode_t err = 0;
	dgrp_t g;

	if (!ours || !disk) {
		err = ENOMEM;
		goto out;
	}
	/* Reserved inodes are always in use, even when the scan could not read them. */
	for (g = 1; g < (dgrp_t)c->first_ino && g <= c->inodes; g++)
		ext2fs_mark_inode_bitmap2(c->inode_used, g);
	if (!fs->block_map || !fs->inode_map) {
		err = fs_read_bitmaps(fs);
		if (err)
			goto out;
	}
	for (g = 0; g < fs->group_desc_count; g++) {
		uint64_t fb = 0, fi = 0;

		if ((err = rebuild_block_group(c, g, ours, disk, &fb)) ||
		    (err = rebuild_inode_group(c, g, ours, disk, &fi)))
			goto out;
		free_blocks += fb;
		free_inodes += fi;
	}
	/* Setting a short last group copies whole bytes: the bits past the end are set again. */
	ext2fs_set_generic_bmap_padding((ext2fs_generic_bitmap)fs->block_map);
	ext2fs_free_blocks_count_set(fs->super, EXT2FS_C2B(fs, free_blocks));
	fs->super->s_free_inodes_count = (uint32_t)free_inodes;
	/* The unused-inode marks, uninit flags and descriptor checksums follow the inode bitmap. */
	err = ext2fs_set_gdt_csum(fs);
	if (err)
		goto out;
	/* Written now, not at close: the next round checks what is on disk. */
	err = repair_write_bitmaps(fs);
	ext2fs_mark_super_dirty(fs);
out:
	free(ours);
	free(disk);
	return err;
}

/*
 * A group's unused-inode mark above its free inodes: the inode scan would
 * skip inodes in use (a whole tree, the root among them). As e2fsck does
 * before its pass 1, the mark goes (the whole table is scanned), in GROUP
 * and in every other group where it is as wrong: the round that repairs
 * this one ends and the check starts over, so one repair makes them all.
 * The rebuild of the summaries sets the marks again.
 */
errcode_t repair_itable_unused(struct check_ctx *c, uint64_t group)
{
	ext2_filsys fs = c->fs;
	dgrp_t g;

	if (group >= fs->group_desc_count)
		return EINVAL;
	for (g = 0; g < fs->group_desc_count; g++) {
		if (g != group && ext2fs_bg_itable_unused(fs, g) <= ext2fs_bg_free_inodes_count(fs, g))
			continue;
		ext2fs_bg_itable_unused_set(fs, g, 0);
		ext2fs_group_desc_csum_set(fs, g);
	}
	ext2fs_mark_super_dirty(fs);
	return 0;
}
