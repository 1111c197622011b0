/* ext4's block goals, and single metadata blocks from mballoc. */
#include "config.h"

#include "util/e4r_err.h"
#include "write/alloc.h"

#define EXT4_FLEX_SIZE_DIR_ALLOC_SCHEME	4

blk64_t write_inode_goal(struct write_alloc *a, ext2_ino_t ino, int is_reg)
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

/* A block for a directory, a slow symlink or an extent tree (no data hint, no preallocation). */
errcode_t write_bpick(struct write_alloc *a, blk64_t goal, blk64_t *out)
{
	struct write_mb_req r = { goal, 1, 0, 0, 0, 0, 0 };
	unsigned got;

	return write_mb_alloc(a, &r, out, &got);
}

errcode_t write_balloc(struct write_alloc *a, blk64_t goal, blk64_t *out)
{
	struct write_mb_req r = { goal, 1, 0, 1, 0, 0, 0 };
	unsigned got;

	return write_mb_alloc(a, &r, out, &got);
}

void write_bfreed(struct write_alloc *a, blk64_t count)
{
	e4r_pcounter_add(a, &a->free_clusters, (long long)count);
}
