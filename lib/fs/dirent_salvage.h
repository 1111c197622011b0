/*
 * Salvaging the entries of a directory region (a leaf block without its
 * tail, or one of an inline directory's two areas) around a corrupt entry.
 * The checker applies it to its own copy of a block to go on reading the
 * entries after a corrupt one (as e2fsck's pass 2 does after mending), and
 * the repair applies the same steps to the block it writes, so the entries
 * the checker counted are the ones the repair keeps.
 */
#ifndef E4R_FS_DIRENT_SALVAGE_H
#define E4R_FS_DIRENT_SALVAGE_H

#include <ext2fs/ext2fs.h>

#define FS_SALVAGE_NO_PREV	(~0u)

/*
 * The first offset at or past FIRST from which sound entries (readable,
 * naming no inode past the table) chain exactly to END: where the entries
 * after a corrupt one start again. 0 when there is none (fs/dirent_chain.c).
 */
unsigned fs_dirent_chain_start(ext2_filsys fs, const char *buf, unsigned end, unsigned first);

/*
 * Mend the corrupt entry at OFF of BUF[0..END) in place; PREV is the offset
 * of the good entry before it (FS_SALVAGE_NO_PREV at the start of the
 * region). Returns the offset the walk goes on at: OFF itself when the
 * entry there was mended (read it again), past it when its bytes went to
 * PREV or to an empty entry, END when the rest of the region is given up.
 */
unsigned fs_dirent_salvage(ext2_filsys fs, char *buf, unsigned end, unsigned off, unsigned prev);

/*
 * Salvage every corrupt entry of BUF[0..END), walking from its start.
 * Returns how many were mended (0: the region was sound).
 */
unsigned fs_dirent_salvage_all(ext2_filsys fs, char *buf, unsigned end);

#endif
