/* Where a read or write failed: an io manager that notes the first failure, for messages naming the block. */
#ifndef E4R_FS_IOERR_IO_H
#define E4R_FS_IOERR_IO_H

#include <ext2fs/ext2fs.h>

/*
 * libext2fs returns a bare errno (EIO) from a failed read or write; which
 * block of which file it was is lost on the way up. This manager sits over
 * fs_base_io() (fs_image_io gives it out for every file the process opens)
 * and notes the first call that failed with a system error (an errno value:
 * EIO, ENOSPC; not a short read) since fs_ioerr_clear.
 *
 * After a failure it refuses every write (with the failure's error): what a
 * command writes after a read it did not get may rest on zeros it took for
 * the disk's contents, and a write after a failed write may land out of the
 * order a rerun relies on. Nothing reaches the disk after the first error.
 */
extern io_manager fs_ioerr_io_manager;

struct fs_ioerr {
	errcode_t		err;
	int			write;		/* 0: a read failed */
	unsigned long long	block;		/* in units of ... */
	int			block_size;	/* ... bytes (the channel's at the time) */
	char			name[256];	/* the file or device, cut to fit */
};

/*
 * The manager under it, and so under every file and device this process
 * opens: unix_io_manager unless a test set another (a fault-injecting one,
 * which forwards to unix). NULL sets unix_io_manager back.
 */
void fs_set_base_io(io_manager io);
io_manager fs_base_io(void);

/* The first failure since the last clear; 0 when there was none. */
int fs_ioerr_last(struct fs_ioerr *e);
void fs_ioerr_clear(void);

#endif
