/*
 * One open of an image for a whole run: the check command's steps (the
 * idle probe, the replay, the superblock choice, the undo file, the check
 * and its rounds) each open the filesystem, and each of those opens reaches
 * the same channel instead of the path: one file descriptor, one cache, one
 * exclusive open of a device.
 *
 * fs_held_open opens the image's base channel (through fs_image_io's
 * manager: the I/O error noter over the files, or the memory manager) and
 * from then on fs_image_io gives out fs_held_io for that name. Its open
 * returns a holder: a pass-through channel over the base, with its own block
 * size (set on the base before each of its reads and writes, since holders
 * that are open together may want different ones) and its own statistics
 * (libext2fs adds a filesystem's written bytes to s_kbytes_written when it
 * closes it: a holder counts what passed since it was opened, as a channel of
 * its own did). Closing a holder never closes the base; a holder opened for
 * writing flushes the base as it closes, so what it wrote is on the disk when
 * its filesystem is closed, as before. Any other name passes to the manager
 * fs_image_io would give without a held image (the undo file, which
 * libext2fs's undo manager opens through its backing manager).
 *
 * One image is held at a time, by the process: io managers have no
 * per-instance state (the write guard and the overlay are the same).
 */
#ifndef E4R_FS_HELD_IO_H
#define E4R_FS_HELD_IO_H

#include <ext2fs/ext2fs.h>

extern io_manager fs_held_io;

/*
 * Open IMAGE's base channel, read-write with RW (and exclusively when it is
 * a block device, as libext2fs opens one for writing), and hold it until
 * fs_held_close. Only a regular file, a block device or an image registered
 * in memory is held: anything else (missing, a directory, a pipe) is left to
 * the steps' own opens, which say what is wrong with it; so is an image
 * whose open fails (the error returned, nothing held).
 */
errcode_t fs_held_open(const char *image, int rw);

/* Close the base channel (the holders still open keep it until they close). */
errcode_t fs_held_close(void);

/* 1 when NAME is the image held open. */
int fs_held_image(const char *name);

/* The base channel under holder CH; any other channel is returned as it is. */
io_channel fs_held_base(io_channel ch);

#endif
