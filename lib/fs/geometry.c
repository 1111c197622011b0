/* Where the superblock and descriptor copies lie, whatever s_first_meta_bg says: see geometry.h. */
#include "config.h"

#include "fs/geometry.h"

blk64_t fs_old_desc_blocks(ext2_filsys fs)
{
	if (ext2fs_has_feature_meta_bg(fs->super) && fs->super->s_first_meta_bg < fs->desc_blocks)
		return fs->super->s_first_meta_bg;
	return fs->desc_blocks;
}

void fs_reserve_super_and_bgd(ext2_filsys fs, dgrp_t g, ext2fs_block_bitmap map)
{
	__u32 first_meta_bg = fs->super->s_first_meta_bg;

	/*
	 * libext2fs reads s_first_meta_bg here and nowhere else we can pass
	 * a value: lend it the bounded one for the call, and put the
	 * filesystem's own back, which a check reports and a repair mends.
	 */
	if (ext2fs_has_feature_meta_bg(fs->super) && first_meta_bg > fs->desc_blocks)
		fs->super->s_first_meta_bg = (__u32)fs->desc_blocks;
	ext2fs_reserve_super_and_bgd(fs, g, map);
	fs->super->s_first_meta_bg = first_meta_bg;
}
