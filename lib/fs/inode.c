/* Inode reads that keep libext2fs's inode cache honest (fs/inode.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fs/inode.h"

/*
 * Did the read of INO (IN, the whole inode, ERR returned) meet a checksum
 * that fails? libext2fs says so unless the filesystem was opened to ignore
 * checksum errors, as the checker opens it.
 */
static int csum_failed(ext2_filsys fs, ext2_ino_t ino, errcode_t err, struct ext2_inode_large *in)
{
	if (err == EXT2_ET_INODE_CSUM_INVALID || err == EXT2_ET_INODE_IS_GARBAGE)
		return 1;
	return !err && ext2fs_has_feature_metadata_csum(fs->super) && !ext2fs_inode_csum_verify(fs, ino, in);
}

/*
 * Read SIZE bytes of INO into IN (the whole inode, or all there is to
 * verify on a filesystem without checksums), the cache emptied after a
 * failing checksum.
 */
static errcode_t read_whole(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode_large *in, int size)
{
	errcode_t err = ext2fs_read_inode_full(fs, ino, (struct ext2_inode *)in, size);

	if (!csum_failed(fs, ino, err, in))
		return err;
	/*
	 * The cache may have served a slot that an unchecked read inside
	 * libext2fs overwrote: read again from the table, then empty the
	 * cache of what this read put there.
	 */
	ext2fs_flush_icache(fs);
	err = ext2fs_read_inode_full(fs, ino, (struct ext2_inode *)in, size);
	ext2fs_flush_icache(fs);
	return err;
}

errcode_t fs_read_inode_full(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *in, int size)
{
	int isize = EXT2_INODE_SIZE(fs->super);
	union {
		struct ext2_inode_large	inode;
		char			bytes[1024];
	} local;
	struct ext2_inode_large *whole = &local.inode;
	errcode_t err;

	/* the checksum covers the whole inode: a shorter read is made whole, once */
	if (size >= isize || !ext2fs_has_feature_metadata_csum(fs->super))
		return read_whole(fs, ino, (struct ext2_inode_large *)in, size);
	if ((size_t)isize > sizeof(local) && !(whole = malloc((size_t)isize)))
		return EXT2_ET_NO_MEMORY;
	err = read_whole(fs, ino, whole, isize);
	memcpy(in, whole, (size_t)size);
	if (whole != &local.inode)
		free(whole);
	return err;
}

errcode_t fs_read_inode(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *in)
{
	return fs_read_inode_full(fs, ino, in, (int)sizeof(*in));
}
