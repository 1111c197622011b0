/* The journal writer's block layer: ordered block writes with simulated power cuts and torn writes. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "jbd/blockdev.h"

void jbd_bdev_init(struct jbd_blockdev *bd, io_channel io, unsigned blocksize)
{
	memset(bd, 0, sizeof(*bd));
	bd->io = io;
	bd->blocksize = blocksize;
}

errcode_t jbd_bdev_read(struct jbd_blockdev *bd, blk64_t blk, void *buf)
{
	return io_channel_read_blk64(bd->io, blk, 1, buf);
}

/* The write that the power cut tears: only its first torn_bytes reach the image. */
static errcode_t write_torn(struct jbd_blockdev *bd, blk64_t blk, const void *buf)
{
	unsigned char *old = malloc(bd->blocksize);
	errcode_t err;

	if (!old)
		return ENOMEM;
	err = jbd_bdev_read(bd, blk, old);
	if (!err) {
		memcpy(old, buf, bd->torn_bytes < bd->blocksize ? bd->torn_bytes : bd->blocksize);
		err = io_channel_write_blk64(bd->io, blk, 1, old);
	}
	free(old);
	return err;
}

errcode_t jbd_bdev_write(struct jbd_blockdev *bd, blk64_t blk, const void *buf)
{
	bd->writes++;
	if (bd->crash_after && bd->writes > bd->crash_after) {
		int first_lost = !bd->crashed;

		bd->crashed = 1;
		bd->dropped++;
		if (first_lost && bd->torn_bytes)
			return write_torn(bd, blk, buf);
		return 0;
	}
	return io_channel_write_blk64(bd->io, blk, 1, buf);
}

errcode_t jbd_bdev_write_part(struct jbd_blockdev *bd, blk64_t blk, unsigned offset,
			      const void *buf, unsigned len)
{
	unsigned char *b;
	errcode_t err;

	if (offset + len > bd->blocksize)
		return EINVAL;
	b = malloc(bd->blocksize);
	if (!b)
		return ENOMEM;
	err = jbd_bdev_read(bd, blk, b);
	if (!err) {
		memcpy(b + offset, buf, len);
		err = jbd_bdev_write(bd, blk, b);
	}
	free(b);
	return err;
}

errcode_t jbd_bdev_flush(struct jbd_blockdev *bd)
{
	return io_channel_flush(bd->io);
}
