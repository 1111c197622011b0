/*
 * Where ext4 starts looking for a file's blocks (ext4_inode_to_goal_block):
 * the writer's workloads and the repairs' clones ask the same question, so
 * a repaired file's new blocks land where the kernel would have put them.
 */
#ifndef E4R_FS_GOAL_H
#define E4R_FS_GOAL_H

#include <ext2fs/ext2fs.h>

/* Groups per flex group: 1 without flex_bg (or with a size no kernel mounts). */
unsigned fs_flex_size(ext2_filsys fs);

/*
 * The first block of inode INO's group; with flex groups of four or more,
 * of its flex group, and of the flex group's second group for a regular
 * file (IS_REG): the first is kept for directories, as the kernel keeps it.
 * No colour: the kernel adds none with delayed allocation, its default.
 */
blk64_t fs_inode_goal(ext2_filsys fs, ext2_ino_t ino, int is_reg);

#endif
