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
#include "fs/wrap_io.h"

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

static struct struct_io_manager fault_manager;

/* A channel not opened on the target name: forwarded, never counted. */
static int exempt(io_channel ch)
{
	return *(int *)fs_wrap_priv(ch);
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
	int *exempt = malloc(sizeof(*exempt));
	errcode_t err;

	if (!exempt)
		return EXT2_ET_NO_MEMORY;
	*exempt = target_name && strcmp(target_name, name) != 0;
	err = fs_wrap_open(&fault_manager, backing_manager, name, flags, exempt, out);
	if (err)
		free(exempt);
	return err;
}

static errcode_t fault_read_blk64(io_channel ch, unsigned long long block, int count, void *data)
{
	if (!exempt(ch) && eio_now(&read_calls, eio_read_at, block))
		return EIO;
	return fs_wrap_read_blk64(ch, block, count, data);
}

static errcode_t fault_write_blk64(io_channel ch, unsigned long long block, int count, const void *data)
{
	/* A negative count is a byte count: one unit. */
	long units = count < 0 ? 1 : count, ok;
	errcode_t err = 0;

	if (exempt(ch))
		return fs_wrap_write_blk64(ch, block, count, data);
	if (eio_now(&write_calls, eio_write_at, block))
		return EIO;
	if (eio_done)
		writes_after_eio++;
	ok = allowance(units);

	if (ok > 0) {
		err = fs_wrap_write_blk64(ch, block, count < 0 ? count : (int)ok, data);
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

static errcode_t fault_write_byte(io_channel ch, unsigned long offset, int size, const void *data)
{
	if (exempt(ch))
		return fs_wrap_write_byte(ch, offset, size, data);
	if (eio_now(&write_calls, eio_write_at, offset))
		return EIO;
	if (eio_done)
		writes_after_eio++;
	if (allowance(1) < 1) {
		tripped = 1;
		return E4R_INJECTED_FAULT;
	}
	blocks_written++;
	return fs_wrap_write_byte(ch, offset, size, data);
}

static struct struct_io_manager fault_manager =
	FS_WRAP_MANAGER("e4recover fault-injecting I/O manager", fault_open, fault_read_blk64,
			fault_write_blk64, fault_write_byte, NULL);

io_manager e4r_fault_io_manager = &fault_manager;
