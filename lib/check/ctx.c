/*
 * The state the passes share for one check: the maps pass 1 fills (in use,
 * metadata, multiply claimed, xattr blocks and inodes, bad inodes), the
 * file kind of every inode, and the link counts. Made and freed once a
 * round by the driver (fsck/run.c).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "check/ctx.h"
#include "fs/image.h"

errcode_t check_ctx_init(struct check_ctx *c, ext2_filsys fs)
{
	errcode_t err;
	size_t n;
	uint64_t bytes;
	int type;

	c->fs = fs;
	c->inodes = fs->super->s_inodes_count;
	/*
	 * The inode bitmaps hold the groups' inodes (s_inodes_per_group of
	 * each): a damaged s_inodes_count above that (its own finding) must
	 * not send a walk past their memory.
	 */
	if ((uint64_t)fs->super->s_inodes_per_group * fs->group_desc_count < c->inodes)
		c->inodes = fs->super->s_inodes_per_group * fs->group_desc_count;
	/*
	 * such a count stops the check after the superblock (check_super), or
	 * when repairing, holds the passes until it is fixed
	 */
	n = (size_t)c->inodes + 1;
	c->first_ino = EXT2_FIRST_INODE(fs->super);
	c->dir_nlink = ext2fs_has_feature_dir_nlink(fs->super);
	/*
	 * A superblock claiming more blocks than the device holds (a read-only
	 * check goes on over it) may claim billions: bitmaps that grow with what
	 * is set, not with what is claimed
	 */
	if (!fs_image_size(fs->device_name, &bytes) &&
	    ext2fs_blocks_count(fs->super) > bytes / fs->blocksize)
		fs->default_bitmap_type = EXT2FS_BMAP64_RBTREE;
	if ((err = ext2fs_allocate_block_bitmap(fs, "metadata", &c->meta)) ||
	    (err = ext2fs_allocate_block_bitmap(fs, "in use", &c->used)) ||
	    (err = ext2fs_allocate_inode_bitmap(fs, "in use", &c->inode_used)))
		return err;
	/*
	 * Sets that are nearly always empty or small take memory for what
	 * they hold, not a bit for every block or inode (a flat bitmap is
	 * written through when made, so it is resident whether used or not).
	 */
	type = fs->default_bitmap_type;
	fs->default_bitmap_type = EXT2FS_BMAP64_RBTREE;
	if ((err = ext2fs_allocate_block_bitmap(fs, "multiply claimed", &c->dup)) ||
	    (err = ext2fs_allocate_block_bitmap(fs, "xattr", &c->ea)) ||
	    (err = ext2fs_allocate_inode_bitmap(fs, "bad", &c->inode_bad)) ||
	    (err = ext2fs_allocate_inode_bitmap(fs, "xattr inodes", &c->inode_ea))) {
		fs->default_bitmap_type = type;
		return err;
	}
	fs->default_bitmap_type = type;
	c->kind = calloc(n, sizeof(*c->kind));
	if (!c->kind)
		return ENOMEM;
	return check_nlink_init(c, n);
}

void check_ctx_free(struct check_ctx *c)
{
	if (c->meta) ext2fs_free_block_bitmap(c->meta);
	if (c->used) ext2fs_free_block_bitmap(c->used);
	if (c->dup) ext2fs_free_block_bitmap(c->dup);
	if (c->ea) ext2fs_free_block_bitmap(c->ea);
	if (c->inode_used) ext2fs_free_inode_bitmap(c->inode_used);
	if (c->inode_bad) ext2fs_free_inode_bitmap(c->inode_bad);
	if (c->inode_ea) ext2fs_free_inode_bitmap(c->inode_ea);
	free(c->kind);
	check_nlink_free(c);
	free(c->dirs);
	free(c->dblocks);
	check_quota_free(c);
	check_xattr_free(c);
}
