/*
 * Directory walks that tell a directory they could not read from one that
 * holds nothing of what was asked (fs/dirwalk.c).
 */
#ifndef E4R_FS_DIRWALK_H
#define E4R_FS_DIRWALK_H

#include <ext2fs/ext2fs.h>

typedef int (*fs_dirent_fn)(ext2_ino_t dir, int entry, struct ext2_dir_entry *d, int offset, int blocksize,
			    char *buf, void *priv);

/*
 * ext2fs_dir_iterate2 (FLAGS, FN, PRIV as there), but a walk that read no
 * block of a directory that maps one returns an error: the extent handle's
 * when it does not open, else EXT2_ET_NO_MEMORY.
 */
errcode_t fs_dir_iterate(ext2_filsys fs, ext2_ino_t dir, int flags, fs_dirent_fn fn, void *priv);

/*
 * A block walk of INO (ext2fs_block_iterate3, or a directory walk on it)
 * returned 0 having met no block: 0 when INO maps none, else why the walk
 * could not start (the extent handle's error when it does not open again,
 * else EXT2_ET_NO_MEMORY: libext2fs 1.47.0 drops that error).
 */
errcode_t fs_walk_unread_why(ext2_filsys fs, ext2_ino_t ino);

/* NAME's inode in DIR through fs_dir_iterate; *INO 0 (and 0 returned) when there is no such name. */
errcode_t fs_lookup(ext2_filsys fs, ext2_ino_t dir, const char *name, ext2_ino_t *ino);

#endif
