/* ext4's block goals and a first-fit allocation from the goal, over libext2fs's block bitmap. */
#include "config.h"

#include "e4r_err.h"
#include "ext4_alloc.h"

#define EXT4_FLEX_SIZE_DIR_ALLOC_SCHEME	4

blk64_t e4r_inode_goal(struct e4r_alloc *a, ext2_ino_t ino, int is_reg)
{
	ext2_filsys fs = a->fs;
	dgrp_t group = (ino - 1) / fs->super->s_inodes_per_group;

	/* Pack directories at the flex group's start; regular files from its second group. */
	if (a->flex_size >= EXT4_FLEX_SIZE_DIR_ALLOC_SCHEME) {
		group &= ~(a->flex_size - 1);
		if (is_reg)
			group++;
		if (group >= fs->group_desc_count)
			group = fs->group_desc_count - 1;
	}
	return ext2fs_group_first_block2(fs, group);
}

static int block_usable(struct e4r_alloc *a, blk64_t b)
{
	return !ext2fs_fast_test_block_bitmap2(a->fs->block_map, b) &&
	       !jw_block_pending_free(a->w, b);
}

/* First usable block in [from, to], or 0. */
static blk64_t first_usable(struct e4r_alloc *a, blk64_t from, blk64_t to)
{
	blk64_t b = from;

	while (b <= to) {
		if (ext2fs_find_first_zero_block_bitmap2(a->fs->block_map, b, to, &b))
			return 0;
		if (block_usable(a, b))
			return b;
		b++;
	}
	return 0;
}

errcode_t e4r_bpick(struct e4r_alloc *a, blk64_t goal, blk64_t *out)
{
	ext2_filsys fs = a->fs;
	blk64_t first = fs->super->s_first_data_block, last = ext2fs_blocks_count(fs->super) - 1, b;

	if (goal < first || goal > last)
		goal = first;
	b = first_usable(a, goal, last);
	if (!b && goal > first)
		b = first_usable(a, first, goal - 1);
	if (!b)
		return E4R_WRITE_NO_SPACE;
	*out = b;
	return 0;
}

errcode_t e4r_balloc(struct e4r_alloc *a, blk64_t goal, blk64_t *out)
{
	errcode_t err = e4r_bpick(a, goal, out);

	if (err)
		return err;
	ext2fs_block_alloc_stats2(a->fs, *out, +1);
	e4r_pcounter_add(a, &a->free_clusters, -1);
	return 0;
}

void e4r_bfreed(struct e4r_alloc *a, blk64_t count)
{
	e4r_pcounter_add(a, &a->free_clusters, (long long)count);
}
