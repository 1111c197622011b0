/*
 * Reading inodes on a damaged filesystem. libext2fs (1.47) reads an inode
 * into the next slot of its four-entry inode cache before it verifies the
 * checksum, and only relabels the slot when the checksum holds: an inode
 * whose checksum fails overwrites the cached copy of another inode, which
 * keeps its number. The next read of that inode returns the bytes of the
 * damaged one (a directory's generation, so its block checksums, came out
 * wrong). Every read here that meets a failing checksum empties the cache.
 */
#ifndef E4R_FS_INODE_H
#define E4R_FS_INODE_H

#include <ext2fs/ext2fs.h>

/* ext2fs_read_inode_full, with the inode cache emptied after a checksum failure */
errcode_t fs_read_inode_full(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *in, int size);

/* ext2fs_read_inode, the same way */
errcode_t fs_read_inode(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *in);

#endif
