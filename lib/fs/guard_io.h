/* The repairs' write guard: an io manager that refuses writes a repair must never make. */
#ifndef E4R_FS_GUARD_IO_H
#define E4R_FS_GUARD_IO_H

#include <ext2fs/ext2fs.h>

/*
 * A repair writes directory and data blocks whose numbers come from the
 * inodes it is mending; a number that points into the filesystem's own
 * metadata would let one fix destroy the superblock, a descriptor block, a
 * bitmap or an inode table. The guard sits between libext2fs and the io
 * manager that writes (unix, or the undo manager over it) and knows where
 * that metadata is. It lets through only the writes metadata really gets:
 *
 *   superblocks       the superblock copy itself (libext2fs writes it as a
 *                     1024-byte record), never a whole block;
 *   descriptor blocks exactly the descriptor table libext2fs holds;
 *   bitmap blocks     only while the bitmaps are being written
 *                     (fs_guard_bitmaps);
 *   inode tables      a block that differs from what is there in one inode
 *                     at most (ext2fs_write_inode's read-modify-write).
 *
 * Any other write there is an internal error: it is refused, and so is every
 * write after it, so the repair stops before anything else is written;
 * E4R_WRITE_GUARD is returned and fs_guard_tripped says where.
 *
 * One filesystem at a time (libext2fs io managers are static tables).
 */

/* The guard over INNER; open the filesystem with it, then fs_guard_arm. */
io_manager fs_guard_io(io_manager inner);

/* Learn FS's metadata from its superblock and descriptors; unarmed, writes pass. */
errcode_t fs_guard_arm(ext2_filsys fs);

/* Bitmap blocks may be written while OPEN is set (around ext2fs_write_bitmaps). */
void fs_guard_bitmaps(int open);

/* 1 once a write was refused: BLK is its block, *WHAT the metadata it would have hit. */
int fs_guard_tripped(blk64_t *blk, const char **what);

/*
 * 1 when a block of START..START+LEN-1 lies in the armed map (the layout the
 * descriptors gave when last armed), whatever kind: a repair that picks new
 * blocks for its own writes (a table, a bitmap, a copy) keeps out of them.
 * 0 when unarmed.
 */
int fs_guard_holds(blk64_t start, blk64_t len);

/*
 * The bitmap range at BLK is dropped from the armed map where another
 * range (an inode table, say) holds BLK too: the check found that bitmap
 * misplaced over the other metadata and moves it, and a repair made before
 * the move writes to the other (an inode into its table). The other's rule
 * judges such writes. Armed again, the map has the bitmap back.
 */
void fs_guard_yield_bitmap(blk64_t blk);

/* Forget the filesystem (after it is closed). */
void fs_guard_disarm(void);

/* Writes refused in this process, every session together (disarming keeps it): for the fuzz targets. */
unsigned long fs_guard_trips(void);

#endif
