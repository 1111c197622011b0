/* Repairs of extended attribute blocks: the reference count, and a block whose entries are corrupt. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "check/ctx.h"
#include "fs/inode.h"
#include "repair/repair.h"

/*
 * The header's count of inodes sharing the block becomes the count pass 1
 * found (e2fsck's answer to a wrong reference count); writing the block
 * sets its checksum.
 */
errcode_t repair_ea_refcount(struct check_ctx *c, const struct check_finding *f)
{
	ext2_filsys fs = c->fs;
	struct ext2_ext_attr_header *h;
	char *buf;
	errcode_t err;

	if (f->blk == E4R_NONE || check_out_of_fs(fs, f->blk, 1) || f->expected == E4R_NONE ||
	    !f->expected || f->expected > UINT32_MAX)
		return EINVAL;
	buf = malloc(fs->blocksize);
	if (!buf)
		return ENOMEM;
	err = ext2fs_read_ext_attr3(fs, f->blk, buf, (ext2_ino_t)f->ino);
	if (err == EXT2_ET_EXT_ATTR_CSUM_INVALID)
		err = 0;
	if (!err) {
		h = (struct ext2_ext_attr_header *)buf;
		if (h->h_magic != EXT2_EXT_ATTR_MAGIC)
			err = EXT2_ET_BAD_EA_HEADER;
	}
	if (!err) {
		h->h_refcount = (uint32_t)f->expected;
		err = ext2fs_write_ext_attr3(fs, f->blk, buf, (ext2_ino_t)f->ino);
	}
	free(buf);
	return err;
}

/*
 * An entry that leaves the block, overlaps another, has no name index or a
 * wrong hash: e2fsck trusts nothing in the block and detaches it from the
 * inode. The next round finds the inode's block count too high and the
 * block no longer used (or its reference count one too high when others
 * share it), and mends those.
 */
errcode_t repair_ea_clear(struct check_ctx *c, const struct check_finding *f)
{
	ext2_filsys fs = c->fs;
	int isize = EXT2_INODE_SIZE(fs->super);
	struct ext2_inode *in;
	errcode_t err;

	if (f->ino == E4R_NONE || !f->ino || f->ino > c->inodes)
		return EINVAL;
	in = calloc(1, isize < (int)sizeof(struct ext2_inode_large) ?
		    sizeof(struct ext2_inode_large) : (size_t)isize);
	if (!in)
		return ENOMEM;
	err = fs_read_inode_full(fs, (ext2_ino_t)f->ino, in, isize);
	if (err == EXT2_ET_INODE_CSUM_INVALID)
		err = 0;
	/* a block another round already detached is left alone */
	if (!err && ext2fs_file_acl_block(fs, in) == f->blk) {
		ext2fs_file_acl_block_set(fs, in, 0);
		err = ext2fs_write_inode_full(fs, (ext2_ino_t)f->ino, in, isize);
	}
	free(in);
	return err;
}
