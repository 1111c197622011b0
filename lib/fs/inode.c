/* Inode reads that keep libext2fs's inode cache honest (fs/inode.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fs/inode.h"

/* Did the read of INO (IN, SIZE bytes, ERR returned) meet a checksum that fails? */
static int csum_failed(ext2_filsys fs, ext2_ino_t ino, errcode_t err, struct ext2_inode *in, int size)
{
	int isize = EXT2_INODE_SIZE(fs->super), bad;
	struct ext2_inode_large *full;

	if (err == EXT2_ET_INODE_CSUM_INVALID || err == EXT2_ET_INODE_IS_GARBAGE)
		return 1;
	if (err || !ext2fs_has_feature_metadata_csum(fs->super))
		return 0;
	if (size >= isize)
		return !ext2fs_inode_csum_verify(fs, ino, (struct ext2_inode_large *)in);
	/* a short read: the checksum covers the whole inode, read again whole */
	full = calloc(1, (size_t)isize);
	if (!full)
		return 1;	/* emptying the cache is always safe */
	bad = ext2fs_read_inode_full(fs, ino, (struct ext2_inode *)full, isize) != 0 ||
	      !ext2fs_inode_csum_verify(fs, ino, full);
	free(full);
	return bad;
}

errcode_t fs_read_inode_full(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *in, int size)
{
	errcode_t err = ext2fs_read_inode_full(fs, ino, in, size);

	if (!csum_failed(fs, ino, err, in, size))
		return err;
	/*
	 * The cache may have served a slot that an unchecked read inside
	 * libext2fs overwrote: read again from the table, then empty the
	 * cache of what this read put there.
	 */
	ext2fs_flush_icache(fs);
	err = ext2fs_read_inode_full(fs, ino, in, size);
	ext2fs_flush_icache(fs);
	return err;
}

errcode_t fs_read_inode(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *in)
{
	return fs_read_inode_full(fs, ino, in, (int)sizeof(*in));
}
