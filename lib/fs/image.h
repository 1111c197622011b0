/* Opening a filesystem image with errors that say what is wrong with it. */
#ifndef E4R_IMAGE_H
#define E4R_IMAGE_H

#include <ext2fs/ext2fs.h>

/* Flags for fs_image_open(). */
#define E4R_OPEN_RW		0x1	/* open for writing */
#define E4R_OPEN_NO_SIZE_CHECK	0x2	/* do not reject images shorter than the superblock says */
#define E4R_OPEN_IGNORE_SB_ERRORS 0x4	/* open despite superblock values libext2fs rejects (checker) */

/*
 * Open IMAGE through libext2fs. On failure *fs is NULL and the error is one
 * of: errno values (ENOENT, EACCES, EISDIR...), E4R_IMAGE_NOT_EXT,
 * E4R_IMAGE_TRUNCATED, or a libext2fs error (EXT2_ET_*) for a superblock or
 * group descriptor that libext2fs rejects. needs_recovery is accepted (we are
 * the tool that handles it). io may be NULL (unix_io_manager).
 */
errcode_t fs_image_open(const char *image, int flags, io_manager io, ext2_filsys *fs);

/*
 * What fs_image_open checks of a superblock's claims before libext2fs sizes
 * anything from them, for the superblock at block SUPERBLOCK of BLOCKSIZE
 * bytes (0: the primary): E4R_IMAGE_TRUNCATED, E4R_IMAGE_TOO_MANY_INODES,
 * E4R_IMAGE_BAD_FIRST_DATA_BLOCK, or 0. For opening a backup superblock.
 */
errcode_t fs_image_precheck(const char *image, blk64_t superblock, unsigned blocksize, int flags);

/*
 * The io manager that reaches IMAGE: IO, or (when IO is NULL or
 * unix_io_manager) fs_ioerr_io_manager over the base manager; an image
 * registered in memory (mem_io.h) is reached through that manager, and an
 * image held open for the run (held_io.h) through fs_held_io.
 */
io_manager fs_image_io(const char *image, io_manager io);


/* The size of the file or device at PATH in bytes. */
errcode_t fs_image_size(const char *path, uint64_t *bytes);

/*
 * Measure PATH once and answer fs_image_size from that until the next call
 * (PATH NULL: measure again at every call): for the image a run holds open
 * (held_io.h), whose size its steps ask many times and which does not
 * change while it is held.
 */
errcode_t fs_image_size_keep(const char *path);

#endif
