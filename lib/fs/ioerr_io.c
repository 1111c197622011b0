/* Notes the first failed read or write of the process (see ioerr_io.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fs/ioerr_io.h"

/* What reaches files and devices; tests put a fault-injecting manager here. */
static io_manager base_io;
static struct fs_ioerr first;
static int noted;

void fs_set_base_io(io_manager io)
{
	base_io = io;
}

io_manager fs_base_io(void)
{
	return base_io ? base_io : unix_io_manager;
}

int fs_ioerr_last(struct fs_ioerr *e)
{
	if (noted && e)
		*e = first;
	return noted;
}

void fs_ioerr_clear(void)
{
	noted = 0;
}

static io_channel inner(io_channel ch)
{
	return ch->private_data;
}

static errcode_t note(io_channel ch, int write, unsigned long long block, int bytes, errcode_t err)
{
	/*
	 * Only the system's errors (EIO, ENOSPC, ...): libext2fs's own codes
	 * are not failures of the device. A short read past the end of a file
	 * is one of them, and normal for an undo file just made.
	 */
	if (err > 0 && err < 4096 && !noted) {
		noted = 1;
		first.err = err;
		first.write = write;
		first.block = block;
		/* write_byte's position is a byte offset; a block call's is in blocks even for a byte count */
		first.block_size = bytes ? 1 : ch->block_size;
		snprintf(first.name, sizeof(first.name), "%s", ch->name ? ch->name : "");
	}
	return err;
}

static errcode_t ioerr_open(const char *name, int flags, io_channel *out)
{
	io_channel ch, in;
	errcode_t err;

	err = fs_base_io()->open(name, flags, &in);
	if (err)
		return err;
	ch = calloc(1, sizeof(*ch));
	if (!ch || !(ch->name = strdup(name))) {
		free(ch);
		io_channel_close(in);
		return EXT2_ET_NO_MEMORY;
	}
	ch->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	ch->manager = fs_ioerr_io_manager;
	ch->block_size = in->block_size;
	ch->refcount = 1;
	ch->flags = in->flags;
	ch->private_data = in;
	*out = ch;
	return 0;
}

static errcode_t ioerr_close(io_channel ch)
{
	errcode_t err;

	if (--ch->refcount > 0)
		return 0;
	/* the close writes what the cache holds: its failure has no block to name */
	err = io_channel_close(inner(ch));
	free(ch->name);
	free(ch);
	return err;
}

static errcode_t ioerr_set_blksize(io_channel ch, int blksize)
{
	errcode_t err = io_channel_set_blksize(inner(ch), blksize);

	if (!err)
		ch->block_size = blksize;
	return err;
}

static errcode_t ioerr_read_blk64(io_channel ch, unsigned long long block, int count, void *data)
{
	return note(ch, 0, block, 0, io_channel_read_blk64(inner(ch), block, count, data));
}

static errcode_t ioerr_read_blk(io_channel ch, unsigned long block, int count, void *data)
{
	return ioerr_read_blk64(ch, block, count, data);
}

static errcode_t ioerr_write_blk64(io_channel ch, unsigned long long block, int count, const void *data)
{
	if (noted)
		return first.err;
	return note(ch, 1, block, 0, io_channel_write_blk64(inner(ch), block, count, data));
}

static errcode_t ioerr_write_blk(io_channel ch, unsigned long block, int count, const void *data)
{
	return ioerr_write_blk64(ch, block, count, data);
}

static errcode_t ioerr_write_byte(io_channel ch, unsigned long offset, int size, const void *data)
{
	if (noted)
		return first.err;
	return note(ch, 1, offset, 1, io_channel_write_byte(inner(ch), offset, size, data));
}

static errcode_t ioerr_flush(io_channel ch)
{
	return io_channel_flush(inner(ch));
}

static errcode_t ioerr_set_option(io_channel ch, const char *option, const char *arg)
{
	io_channel in = inner(ch);

	return in->manager->set_option ? in->manager->set_option(in, option, arg) : EXT2_ET_INVALID_ARGUMENT;
}

static errcode_t ioerr_get_stats(io_channel ch, io_stats *stats)
{
	io_channel in = inner(ch);

	return in->manager->get_stats ? in->manager->get_stats(in, stats) : EXT2_ET_OP_NOT_SUPPORTED;
}

static errcode_t ioerr_discard(io_channel ch, unsigned long long block, unsigned long long count)
{
	io_channel in = inner(ch);

	return in->manager->discard ? in->manager->discard(in, block, count) : EXT2_ET_UNIMPLEMENTED;
}

static errcode_t ioerr_zeroout(io_channel ch, unsigned long long block, unsigned long long count)
{
	io_channel in = inner(ch);

	if (noted)
		return first.err;
	return in->manager->zeroout ? in->manager->zeroout(in, block, count) : EXT2_ET_UNIMPLEMENTED;
}

static struct struct_io_manager ioerr_manager = {
	.magic		= EXT2_ET_MAGIC_IO_MANAGER,
	.name		= "e4recover I/O error noting manager",
	.open		= ioerr_open,
	.close		= ioerr_close,
	.set_blksize	= ioerr_set_blksize,
	.read_blk	= ioerr_read_blk,
	.write_blk	= ioerr_write_blk,
	.flush		= ioerr_flush,
	.write_byte	= ioerr_write_byte,
	.set_option	= ioerr_set_option,
	.get_stats	= ioerr_get_stats,
	.read_blk64	= ioerr_read_blk64,
	.write_blk64	= ioerr_write_blk64,
	.discard	= ioerr_discard,
	.zeroout	= ioerr_zeroout,
};

io_manager fs_ioerr_io_manager = &ioerr_manager;
