/*
 * The repair round's overlay: an io manager that holds every write in
 * memory instead of passing it on, and lays what it holds over every read,
 * so a round sees its own writes while the disk still has the state before
 * the round. At the round's end its writer (fsck/commit.c) takes the held
 * blocks, journals them and writes them home (fs_overlay_write_home), or,
 * when the round cannot finish, forgets them (fs_overlay_drop): nothing of a
 * dropped round reaches the disk.
 *
 * It sits under the write guard (which judges each write as the round makes
 * it) and over the undo manager and the device, to which its own writes go
 * only through fs_overlay_write_home and fs_overlay_lower.
 *
 * One filesystem at a time (libext2fs io managers are static tables).
 */
#ifndef E4R_FS_OVERLAY_IO_H
#define E4R_FS_OVERLAY_IO_H

#include <ext2fs/ext2fs.h>

/* The overlay over INNER; open the filesystem with it, then fs_overlay_hold. */
io_manager fs_overlay_io(io_manager inner);

/*
 * From now on hold writes in blocks of BLOCKSIZE bytes (the filesystem's);
 * before this call writes pass through. Any size of request is taken (the
 * superblock is written as a 1024-byte record).
 */
errcode_t fs_overlay_hold(unsigned blocksize);

/* How many blocks the overlay holds; their numbers in ascending order (NULL when none). */
unsigned long fs_overlay_count(void);
const blk64_t *fs_overlay_blocks(void);
/* The held content of block BLK; NULL when it is not held. */
const unsigned char *fs_overlay_data(blk64_t blk);

/* Hold LEN bytes of SRC at byte OFF, as a write through the overlay would: the owner's own change. */
errcode_t fs_overlay_put(uint64_t off, unsigned len, const void *src);

/* Write every held block home (in block order), flush, and forget them. */
errcode_t fs_overlay_write_home(void);

/* Forget every held block: the disk keeps what it had before them. */
void fs_overlay_drop(void);

/*
 * When set, the next write through the overlay fails with ERR and so does
 * every later one until it is cleared (0): a cancel the front end asks for
 * from a signal handler ends the round at its next write.
 */
void fs_overlay_refuse(errcode_t err);
/* The error fs_overlay_refuse set; 0 when none. */
errcode_t fs_overlay_refused(void);

/* The channel under the open overlay (NULL when none is open): for writes of the overlay's owner. */
io_channel fs_overlay_lower(void);

/* Stop holding (the filesystem is closed or the overlay's owner is done); held blocks are dropped. */
void fs_overlay_release(void);

#endif
