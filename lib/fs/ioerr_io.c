/* Notes the first failed read or write of the process (see ioerr_io.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fs/image.h"
#include "fs/ioerr_io.h"
#include "fs/wrap_io.h"

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

static struct struct_io_manager ioerr_manager;

/* Per channel: the image's size in bytes when it could be learnt (0: unknown). */
static errcode_t ioerr_open(const char *name, int flags, io_channel *out)
{
	uint64_t *bytes = calloc(1, sizeof(*bytes));
	errcode_t err;

	if (!bytes)
		return EXT2_ET_NO_MEMORY;
	if (fs_image_size(name, bytes))
		*bytes = 0;
	err = fs_wrap_open(&ioerr_manager, fs_base_io(), name, flags, bytes, out);
	if (err)
		free(bytes);
	return err;
}

static errcode_t ioerr_read_blk64(io_channel ch, unsigned long long block, int count, void *data)
{
	const uint64_t *bytes = fs_wrap_priv(ch);
	errcode_t err = fs_wrap_read_blk64(ch, block, count, data);

	/*
	 * A read that starts past the image's end follows a damaged block
	 * number (a file's map, the journal's): the filesystem's fault, which
	 * the caller names, not the device's. Far enough out, the kernel
	 * refuses the offset itself (EINVAL), which would look like one.
	 */
	if (err && bytes && *bytes && ch->block_size > 0 && block >= *bytes / (unsigned)ch->block_size)
		return err;
	return note(ch, 0, block, 0, err);
}

static errcode_t ioerr_write_blk64(io_channel ch, unsigned long long block, int count, const void *data)
{
	if (noted)
		return first.err;
	return note(ch, 1, block, 0, fs_wrap_write_blk64(ch, block, count, data));
}

static errcode_t ioerr_write_byte(io_channel ch, unsigned long offset, int size, const void *data)
{
	if (noted)
		return first.err;
	return note(ch, 1, offset, 1, fs_wrap_write_byte(ch, offset, size, data));
}

static errcode_t ioerr_zeroout(io_channel ch, unsigned long long block, unsigned long long count)
{
	if (noted)
		return first.err;
	return fs_wrap_zeroout(ch, block, count);
}

static struct struct_io_manager ioerr_manager =
	FS_WRAP_MANAGER("e4recover I/O error noting manager", ioerr_open, ioerr_read_blk64,
			ioerr_write_blk64, ioerr_write_byte, ioerr_zeroout);

io_manager fs_ioerr_io_manager = &ioerr_manager;
