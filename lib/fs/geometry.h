/*
 * Where each group's superblock and descriptor copies lie, on a filesystem
 * whose superblock may be damaged. libext2fs takes s_first_meta_bg as the
 * number of descriptor blocks that follow each superblock copy, unchecked:
 * a value past the descriptor blocks would have it mark (or a guard watch)
 * blocks as far as the end of the filesystem. It reads the descriptors
 * themselves as if meta_bg began at the last descriptor block at most, so
 * that is where these say they are.
 */
#ifndef E4R_FS_GEOMETRY_H
#define E4R_FS_GEOMETRY_H

#include <ext2fs/ext2fs.h>

/* The descriptor blocks after a superblock copy: the first meta_bg group, at most all of them. */
blk64_t fs_old_desc_blocks(ext2_filsys fs);

/* ext2fs_reserve_super_and_bgd for group G into MAP, with the descriptor blocks as above. */
void fs_reserve_super_and_bgd(ext2_filsys fs, dgrp_t g, ext2fs_block_bitmap map);

#endif
