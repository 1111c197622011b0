/* Giving a file or directory one more block where the kernel's goal puts it. */
#include "config.h"

#include "fs/goal.h"
#include "write/fsops.h"

errcode_t write_map_new_block(struct write_fs *f, ext2_ino_t ino, struct ext2_inode *inode,
			       blk64_t lblk, int is_reg, blk64_t *pblk)
{
	blk64_t prev = 0, goal;
	errcode_t err;

	/* ext4_ext_find_goal: continue the previous extent, else the inode's group. */
	if (lblk > 0 && !ext2fs_bmap2(f->fs, ino, inode, NULL, 0, lblk - 1, NULL, &prev) && prev)
		goal = prev + 1;
	else
		goal = fs_inode_goal(f->fs, ino, is_reg);
	err = alloc_block(&f->alloc, goal, pblk);
	/*
	 * An extent tree block the new extent needs has the kernel's goal too: next to the
	 * inode's group when the tree grows out of the inode (ext4_ext_grow_indepth), the
	 * new extent's goal when a leaf splits (ext4_ext_split).
	 */
	if (inode->i_flags & EXT4_EXTENTS_FL)
		f->meta_goal = ((const struct ext3_extent_header *)inode->i_block)->eh_depth ?
			       goal : fs_inode_goal(f->fs, ino, is_reg);
	/* BMAP_ALLOC: a block-mapped (ext3) file may need a new indirect block for it. */
	if (!err)
		err = ext2fs_bmap2(f->fs, ino, inode, NULL, BMAP_SET | BMAP_ALLOC, lblk, NULL, pblk);
	f->meta_goal = 0;
	if (!err)
		err = ext2fs_iblk_add_blocks(f->fs, inode, 1);
	return err;
}

errcode_t write_dir_append(struct write_fs *f, ext2_ino_t dir, struct ext2_inode *inode,
			   blk64_t *lblk, blk64_t *pblk)
{
	errcode_t err;

	*lblk = EXT2_I_SIZE(inode) / f->fs->blocksize;
	err = write_map_new_block(f, dir, inode, *lblk, 0, pblk);
	if (!err)
		err = ext2fs_inode_size_set(f->fs, inode, (*lblk + 1) * f->fs->blocksize);
	return err;
}
