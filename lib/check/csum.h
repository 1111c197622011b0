/*
 * The metadata checksums the checker verifies most (one per inode, per
 * directory block, per extent node), computed with lib/util's crc32c (the
 * CPU instruction when there is one). libext2fs's verify functions give the
 * same answers with a table-driven crc32c, several times slower; they still
 * answer every case these do not take (htree nodes, a leaf without its tail
 * where the format puts it, a node whose tail lies outside the block).
 */
#ifndef E4R_CHECK_CSUM_H
#define E4R_CHECK_CSUM_H

#include <ext2fs/ext2fs.h>

/* 1 when inode INO (as on disk, EXT2_INODE_SIZE bytes) has a valid checksum, as ext2fs_inode_csum_verify. */
int check_inode_csum_ok(ext2_filsys fs, ext2_ino_t ino, const struct ext2_inode_large *in);
/*
 * 1 when the directory block BUF of INO has a valid checksum, as
 * ext2fs_dir_block_csum_verify. IN: the inode as read (its generation
 * seeds the checksum), or NULL to read it through libext2fs.
 */
int check_dir_block_csum_ok(ext2_filsys fs, ext2_ino_t ino, const struct ext2_inode *in,
			    const char *buf);
/*
 * Set the checksum in the tail of the directory leaf BUF of INO, as
 * ext2fs_dir_block_csum_set does for a leaf. Returns 0, or -1 (nothing
 * written) when BUF is not a leaf ending in a tail or INO cannot be read.
 */
int check_dir_leaf_csum_set(ext2_filsys fs, ext2_ino_t ino, char *buf);
/* 1 when the extent tree node BUF of INO has a valid checksum, as ext2fs_extent_block_csum_verify; IN as above. */
int check_extent_block_csum_ok(ext2_filsys fs, ext2_ino_t ino, const struct ext2_inode *in,
			       const char *buf);

#endif
