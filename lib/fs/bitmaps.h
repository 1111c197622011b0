/*
 * Loading the bitmaps of a damaged filesystem. While it loads the block
 * bitmap, libext2fs marks in it the bitmaps and inode table of every group
 * whose blocks are flagged uninitialised, without checking those
 * locations: for one past the end of the filesystem it skips the mark and
 * prints a warning through com_err, one per block, on the user's terminal.
 * The check reports such a location itself (lib never prints), so the
 * loads here keep those warnings quiet. Hiding the locations instead would
 * change the descriptors, and so their checksums, which decide what
 * libext2fs counts as uninitialised.
 */
#ifndef E4R_FS_BITMAPS_H
#define E4R_FS_BITMAPS_H

#include <ext2fs/ext2fs.h>

/* Is CODE libext2fs's warning of a bitmap mark, unmark or test out of range? */
int fs_bitmap_range_warning(long code);

/* ext2fs_read_bitmaps, without libext2fs's warnings of marks out of range */
errcode_t fs_read_bitmaps(ext2_filsys fs);

/* ext2fs_read_block_bitmap, the same way */
errcode_t fs_read_block_bitmap(ext2_filsys fs);

#endif
