/* ext4's first goal for a file's blocks (see goal.h). */
#include "config.h"

#include "fs/goal.h"

#define EXT4_FLEX_SIZE_DIR_ALLOC_SCHEME	4

unsigned fs_flex_size(ext2_filsys fs)
{
	if (ext2fs_has_feature_flex_bg(fs->super) && fs->super->s_log_groups_per_flex < 31)
		return 1U << fs->super->s_log_groups_per_flex;
	return 1;
}

blk64_t fs_inode_goal(ext2_filsys fs, ext2_ino_t ino, int is_reg)
{
	unsigned flex = fs_flex_size(fs);
	dgrp_t group = ino ? (ino - 1) / fs->super->s_inodes_per_group : 0;

	if (group >= fs->group_desc_count)
		group = fs->group_desc_count - 1;
	if (flex >= EXT4_FLEX_SIZE_DIR_ALLOC_SCHEME) {
		group &= ~(flex - 1);
		if (is_reg)
			group++;
		if (group >= fs->group_desc_count)
			group = fs->group_desc_count - 1;
	}
	return ext2fs_group_first_block2(fs, group);
}
