/* The journal writer's block layer: every filesystem write in order, with power cuts and torn writes. */
#ifndef E4R_JBD_BLOCKDEV_H
#define E4R_JBD_BLOCKDEV_H

#include <ext2fs/ext2fs.h>

/*
 * All writes of `e4recover write` go through here, one filesystem block at a
 * time and in the order jbd2 would issue them (a write returns once it is
 * durable: our model has no write cache). crash_after = N lets writes 1..N
 * reach the image and silently drops every later one, as a power cut would;
 * with torn_bytes > 0 the (N+1)-th write reaches the image only in its first
 * torn_bytes bytes (a torn sector).
 */
struct jbd_blockdev {
	io_channel	io;
	unsigned	blocksize;
	unsigned long	writes;		/* block writes issued so far (including dropped ones) */
	unsigned long	crash_after;	/* 0: never crash */
	unsigned	torn_bytes;	/* bytes of write crash_after+1 that still land */
	int		crashed;	/* set once a write has been dropped */
	unsigned long	dropped;	/* writes that did not reach the image */
};

void jbd_bdev_init(struct jbd_blockdev *bd, io_channel io, unsigned blocksize);
errcode_t jbd_bdev_read(struct jbd_blockdev *bd, blk64_t blk, void *buf);
errcode_t jbd_bdev_write(struct jbd_blockdev *bd, blk64_t blk, const void *buf);
/* Write LEN bytes at byte OFFSET inside block BLK (read-modify-write of the block). */
errcode_t jbd_bdev_write_part(struct jbd_blockdev *bd, blk64_t blk, unsigned offset,
			      const void *buf, unsigned len);
errcode_t jbd_bdev_flush(struct jbd_blockdev *bd);

#endif
