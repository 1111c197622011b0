/* The pass-through channel under the watching io managers (see wrap_io.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fs/wrap_io.h"

struct wrap {
	io_channel	in;
	void		*priv;
};

io_channel fs_wrap_inner(io_channel ch)
{
	return ((struct wrap *)ch->private_data)->in;
}

void *fs_wrap_priv(io_channel ch)
{
	return ((struct wrap *)ch->private_data)->priv;
}

errcode_t fs_wrap_channel(io_manager self, io_channel in, const char *name, void *priv, io_channel *out)
{
	io_channel ch;
	struct wrap *w;

	ch = calloc(1, sizeof(*ch));
	w = calloc(1, sizeof(*w));
	if (!ch || !w || !(ch->name = strdup(name))) {
		free(ch);
		free(w);
		return EXT2_ET_NO_MEMORY;
	}
	w->in = in;
	w->priv = priv;
	ch->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	ch->manager = self;
	ch->block_size = in->block_size;
	ch->refcount = 1;
	ch->flags = in->flags;
	ch->private_data = w;
	*out = ch;
	return 0;
}

errcode_t fs_wrap_open(io_manager self, io_manager inner, const char *name, int flags, void *priv,
		       io_channel *out)
{
	io_channel in;
	errcode_t err;

	if (!inner)
		return EXT2_ET_INVALID_ARGUMENT;
	err = inner->open(name, flags, &in);
	if (err)
		return err;
	err = fs_wrap_channel(self, in, name, priv, out);
	if (err)
		io_channel_close(in);
	return err;
}

errcode_t fs_wrap_close(io_channel ch)
{
	struct wrap *w = ch->private_data;
	errcode_t err;

	if (--ch->refcount > 0)
		return 0;
	err = io_channel_close(w->in);
	free(w->priv);
	free(w);
	free(ch->name);
	free(ch);
	return err;
}

errcode_t fs_wrap_set_blksize(io_channel ch, int blksize)
{
	errcode_t err = io_channel_set_blksize(fs_wrap_inner(ch), blksize);

	if (!err)
		ch->block_size = blksize;
	return err;
}

errcode_t fs_wrap_read_blk64(io_channel ch, unsigned long long block, int count, void *data)
{
	return io_channel_read_blk64(fs_wrap_inner(ch), block, count, data);
}

errcode_t fs_wrap_read_blk(io_channel ch, unsigned long block, int count, void *data)
{
	return ch->manager->read_blk64(ch, block, count, data);
}

errcode_t fs_wrap_write_blk64(io_channel ch, unsigned long long block, int count, const void *data)
{
	return io_channel_write_blk64(fs_wrap_inner(ch), block, count, data);
}

errcode_t fs_wrap_write_blk(io_channel ch, unsigned long block, int count, const void *data)
{
	return ch->manager->write_blk64(ch, block, count, data);
}

errcode_t fs_wrap_write_byte(io_channel ch, unsigned long offset, int size, const void *data)
{
	io_channel in = fs_wrap_inner(ch);

	return in->manager->write_byte ? in->manager->write_byte(in, offset, size, data) : EXT2_ET_UNIMPLEMENTED;
}

errcode_t fs_wrap_flush(io_channel ch)
{
	return io_channel_flush(fs_wrap_inner(ch));
}

errcode_t fs_wrap_set_option(io_channel ch, const char *option, const char *arg)
{
	io_channel in = fs_wrap_inner(ch);

	return in->manager->set_option ? in->manager->set_option(in, option, arg) : EXT2_ET_INVALID_ARGUMENT;
}

errcode_t fs_wrap_get_stats(io_channel ch, io_stats *stats)
{
	io_channel in = fs_wrap_inner(ch);

	return in->manager->get_stats ? in->manager->get_stats(in, stats) : EXT2_ET_OP_NOT_SUPPORTED;
}

errcode_t fs_wrap_zeroout(io_channel ch, unsigned long long block, unsigned long long count)
{
	io_channel in = fs_wrap_inner(ch);

	return in->manager->zeroout ? in->manager->zeroout(in, block, count) : EXT2_ET_UNIMPLEMENTED;
}
