/* An io manager that captures libext2fs's metadata writes into the running transaction. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "fs/ioerr_io.h"
#include "jbd/writer_int.h"

/*
 * Reads go to the image, then cached (journaled but not yet checkpointed)
 * blocks are laid over them, so libext2fs always sees the newest metadata.
 * Writes change cached blocks through jbd_wbuf_modify() (or, in direct mode,
 * go home through the block layer). Byte ranges of any size are accepted:
 * ext2fs_flush writes the superblock as 1024 bytes with a 1024-byte block size.
 */

struct txn_io {
	io_channel	real;
	struct jbd_writer *w;
};

static struct jbd_writer *io_target;

void jbd_writer_io_set_target(struct jbd_writer *w)
{
	io_target = w;
}

static errcode_t txn_open(const char *name, int flags, io_channel *channel)
{
	io_channel io = NULL;
	struct txn_io *p = NULL;
	errcode_t err;

	if (!io_target)
		return EXT2_ET_BAD_DEVICE_NAME;
	err = ext2fs_get_memzero(sizeof(*io), &io);
	if (!err)
		err = ext2fs_get_memzero(sizeof(*p), &p);
	if (!err)
		err = ext2fs_get_mem(strlen(name) + 1, &io->name);
	if (!err)
		err = fs_ioerr_io_manager->open(name, flags, &p->real);
	if (err) {
		if (io)
			ext2fs_free_mem(&io->name);
		ext2fs_free_mem(&p);
		ext2fs_free_mem(&io);
		return err;
	}
	strcpy(io->name, name);
	p->w = io_target;
	p->w->raw = p->real;
	io->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	io->manager = jbd_writer_io_manager;
	io->block_size = 1024;
	io->refcount = 1;
	io->private_data = p;
	*channel = io;
	return 0;
}

static errcode_t txn_close(io_channel io)
{
	struct txn_io *p = io->private_data;

	if (--io->refcount > 0)
		return 0;
	io_channel_close(p->real);
	p->w->raw = NULL;
	ext2fs_free_mem(&p);
	ext2fs_free_mem(&io->name);
	ext2fs_free_mem(&io);
	return 0;
}

static errcode_t txn_set_blksize(io_channel io, int blksize)
{
	struct txn_io *p = io->private_data;

	io->block_size = blksize;
	/* Once the writer knows the filesystem's block size the backing channel keeps it. */
	if (!p->w->blocksize)
		return io_channel_set_blksize(p->real, blksize);
	return 0;
}

/* The filesystem blocks [*first, *last] that a request touches, and its byte range. */
static void txn_range(io_channel io, unsigned long long block, int count, unsigned bs,
		      uint64_t *off, uint64_t *len, blk64_t *first, blk64_t *last)
{
	*off = block * (uint64_t)io->block_size;
	*len = count < 0 ? (uint64_t)-count : (uint64_t)count * io->block_size;
	*first = *off / bs;
	*last = (*off + *len - 1) / bs;
}

static errcode_t txn_read64(io_channel io, unsigned long long block, int count, void *data)
{
	struct txn_io *p = io->private_data;
	struct jbd_writer *w = p->w;
	unsigned bs = w->blocksize;
	uint64_t off, len;
	blk64_t first, last, b;
	unsigned char *tmp;
	errcode_t err;

	if (!bs)
		return io_channel_read_blk64(p->real, block, count, data);
	if (count == 0)
		return 0;
	txn_range(io, block, count, bs, &off, &len, &first, &last);
	err = ext2fs_get_mem((last - first + 1) * bs, &tmp);
	if (err)
		return err;
	err = io_channel_read_blk64(p->real, first, last - first + 1, tmp);
	for (b = first; !err && b <= last; b++) {
		struct jbd_wbuf *c = jbd_wbuf_lookup(w, b);

		if (c)
			memcpy(tmp + (b - first) * bs, c->data, bs);
	}
	if (!err)
		memcpy(data, tmp + (off - first * bs), len);
	ext2fs_free_mem(&tmp);
	return err;
}

static errcode_t txn_write_block(struct jbd_writer *w, blk64_t b, unsigned off,
				 const unsigned char *src, unsigned len)
{
	struct jbd_wbuf *c;
	errcode_t err = jbd_wbuf_get(w, b, &c);

	if (err)
		return err;
	if (!w->direct)
		return jbd_wbuf_modify(w, c, off, src, len);
	memcpy(c->data + off, src, len);
	return jbd_bdev_write(&w->bdev, b, c->data);
}

static errcode_t txn_write64(io_channel io, unsigned long long block, int count, const void *data)
{
	struct txn_io *p = io->private_data;
	struct jbd_writer *w = p->w;
	unsigned bs = w->blocksize;
	uint64_t off, len, done = 0;
	blk64_t first, last, b;
	errcode_t err = 0;

	if (!bs)
		return EXT2_ET_RO_FILSYS;	/* nothing writes before the writer is set up */
	if (count == 0)
		return 0;
	txn_range(io, block, count, bs, &off, &len, &first, &last);
	for (b = first; !err && b <= last; b++) {
		uint64_t start = b == first ? off - first * bs : 0;
		uint64_t n = bs - start;

		if (n > len - done)
			n = len - done;
		err = txn_write_block(w, b, start, (const unsigned char *)data + done, n);
		done += n;
	}
	return err;
}

static errcode_t txn_read(io_channel io, unsigned long block, int count, void *data)
{
	return txn_read64(io, block, count, data);
}

static errcode_t txn_write(io_channel io, unsigned long block, int count, const void *data)
{
	return txn_write64(io, block, count, data);
}

static errcode_t txn_flush(io_channel io)
{
	(void)io;
	return 0;	/* durability is the block layer's business */
}

static errcode_t txn_set_option(io_channel io, const char *option, const char *arg)
{
	(void)io;
	(void)option;
	(void)arg;
	return EXT2_ET_INVALID_ARGUMENT;
}

static struct struct_io_manager txn_io_manager = {
	.magic		= EXT2_ET_MAGIC_IO_MANAGER,
	.name		= "e4recover journal-capturing I/O manager",
	.open		= txn_open,
	.close		= txn_close,
	.set_blksize	= txn_set_blksize,
	.read_blk	= txn_read,
	.write_blk	= txn_write,
	.flush		= txn_flush,
	.set_option	= txn_set_option,
	.read_blk64	= txn_read64,
	.write_blk64	= txn_write64,
};

io_manager jbd_writer_io_manager = &txn_io_manager;
