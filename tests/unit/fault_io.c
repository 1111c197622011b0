/*
 * A fault-injecting io manager: a simulated power cut after a given number of
 * block writes, or an I/O error (EIO) at the k-th read or write call.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fault_io.h"
#include "util/e4r_err.h"

static io_manager backing_manager;
static long write_limit = -1;
static long blocks_written;
static int tripped;
/* EIO mode: the call numbers (from 1) that fail, the calls so far, what happened since. */
static long eio_read_at, eio_write_at, read_calls, write_calls;
static int eio_done;
static long writes_after_eio;
static unsigned long long eio_block;
/* Only channels opened on this name are cut or failed (NULL: every channel). */
static char *target_name;

void e4r_fault_io_target(const char *name)
{
	free(target_name);
	target_name = name ? strdup(name) : NULL;
}

void e4r_fault_io_setup(io_manager backing, long limit)
{
	backing_manager = backing;
	write_limit = limit;
	blocks_written = 0;
	tripped = 0;
	eio_read_at = eio_write_at = 0;
	read_calls = write_calls = 0;
	eio_done = 0;
	writes_after_eio = 0;
	eio_block = 0;
}

void e4r_fault_io_eio(long read_at, long write_at)
{
	eio_read_at = read_at;
	eio_write_at = write_at;
}

void e4r_fault_io_calls(long *reads, long *writes)
{
	*reads = read_calls;
	*writes = write_calls;
}

int e4r_fault_io_eio_done(unsigned long long *block, long *writes_after)
{
	if (block)
		*block = eio_block;
	if (writes_after)
		*writes_after = writes_after_eio;
	return eio_done;
}

/* Counts a call; nonzero when this is the one that fails. */
static int eio_now(long *calls, long at, unsigned long long block)
{
	if (++*calls != at)
		return 0;
	eio_done = 1;
	eio_block = block;
	return 1;
}

long e4r_fault_io_written(void)
{
	return blocks_written;
}

int e4r_fault_io_tripped(void)
{
	return tripped;
}

struct fault_channel {
	io_channel	in;
	int		exempt;		/* not the target: forwarded, never counted */
};

static io_channel inner(io_channel ch)
{
	return ((struct fault_channel *)ch->private_data)->in;
}

static int exempt(io_channel ch)
{
	return ((struct fault_channel *)ch->private_data)->exempt;
}

/* How many of COUNT units may still be written (0 once the cut has happened). */
static long allowance(long count)
{
	long left;

	if (write_limit < 0)
		return count;
	left = write_limit - blocks_written;
	if (left <= 0)
		return 0;
	return count < left ? count : left;
}

static errcode_t fault_open(const char *name, int flags, io_channel *out)
{
	io_channel ch, in;
	struct fault_channel *fc;
	errcode_t err;

	if (!backing_manager)
		return EXT2_ET_INVALID_ARGUMENT;
	err = backing_manager->open(name, flags, &in);
	if (err)
		return err;
	ch = calloc(1, sizeof(*ch));
	fc = calloc(1, sizeof(*fc));
	if (!ch || !fc) {
		io_channel_close(in);
		free(ch);
		free(fc);
		return EXT2_ET_NO_MEMORY;
	}
	fc->in = in;
	fc->exempt = target_name && strcmp(target_name, name) != 0;
	ch->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	ch->manager = e4r_fault_io_manager;
	ch->name = strdup(name);
	ch->block_size = in->block_size;
	ch->refcount = 1;
	ch->flags = in->flags;
	ch->private_data = fc;
	if (!ch->name) {
		io_channel_close(in);
		free(fc);
		free(ch);
		return EXT2_ET_NO_MEMORY;
	}
	*out = ch;
	return 0;
}

static errcode_t fault_close(io_channel ch)
{
	errcode_t err;

	if (--ch->refcount > 0)
		return 0;
	err = io_channel_close(inner(ch));
	free(ch->private_data);
	free(ch->name);
	free(ch);
	return err;
}

static errcode_t fault_set_blksize(io_channel ch, int blksize)
{
	errcode_t err = io_channel_set_blksize(inner(ch), blksize);

	if (!err)
		ch->block_size = blksize;
	return err;
}

static errcode_t fault_read_blk64(io_channel ch, unsigned long long block, int count, void *data)
{
	if (!exempt(ch) && eio_now(&read_calls, eio_read_at, block))
		return EIO;
	return io_channel_read_blk64(inner(ch), block, count, data);
}

static errcode_t fault_read_blk(io_channel ch, unsigned long block, int count, void *data)
{
	return fault_read_blk64(ch, block, count, data);
}

static errcode_t fault_write_blk64(io_channel ch, unsigned long long block, int count, const void *data)
{
	/* A negative count is a byte count: one unit. */
	long units = count < 0 ? 1 : count, ok;
	errcode_t err = 0;

	if (exempt(ch))
		return io_channel_write_blk64(inner(ch), block, count, data);
	if (eio_now(&write_calls, eio_write_at, block))
		return EIO;
	if (eio_done)
		writes_after_eio++;
	ok = allowance(units);

	if (ok > 0) {
		err = io_channel_write_blk64(inner(ch), block, count < 0 ? count : (int)ok, data);
		if (err)
			return err;
		blocks_written += ok;
	}
	if (ok < units) {
		tripped = 1;
		return E4R_INJECTED_FAULT;
	}
	return 0;
}

static errcode_t fault_write_blk(io_channel ch, unsigned long block, int count, const void *data)
{
	return fault_write_blk64(ch, block, count, data);
}

static errcode_t fault_write_byte(io_channel ch, unsigned long offset, int size, const void *data)
{
	if (exempt(ch))
		return io_channel_write_byte(inner(ch), offset, size, data);
	if (eio_now(&write_calls, eio_write_at, offset))
		return EIO;
	if (eio_done)
		writes_after_eio++;
	if (allowance(1) < 1) {
		tripped = 1;
		return E4R_INJECTED_FAULT;
	}
	blocks_written++;
	return io_channel_write_byte(inner(ch), offset, size, data);
}

static errcode_t fault_flush(io_channel ch)
{
	return io_channel_flush(inner(ch));
}

static errcode_t fault_set_option(io_channel ch, const char *option, const char *arg)
{
	io_channel in = inner(ch);

	return in->manager->set_option ? in->manager->set_option(in, option, arg) : EXT2_ET_INVALID_ARGUMENT;
}

static errcode_t fault_get_stats(io_channel ch, io_stats *stats)
{
	io_channel in = inner(ch);

	return in->manager->get_stats ? in->manager->get_stats(in, stats) : EXT2_ET_OP_NOT_SUPPORTED;
}

static struct struct_io_manager fault_manager = {
	.magic		= EXT2_ET_MAGIC_IO_MANAGER,
	.name		= "e4recover fault-injecting I/O manager",
	.open		= fault_open,
	.close		= fault_close,
	.set_blksize	= fault_set_blksize,
	.read_blk	= fault_read_blk,
	.write_blk	= fault_write_blk,
	.flush		= fault_flush,
	.write_byte	= fault_write_byte,
	.set_option	= fault_set_option,
	.get_stats	= fault_get_stats,
	.read_blk64	= fault_read_blk64,
	.write_blk64	= fault_write_blk64,
};

io_manager e4r_fault_io_manager = &fault_manager;
