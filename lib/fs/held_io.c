/* One open of an image for a whole run, shared by every step's open of it (see held_io.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fs/held_io.h"
#include "fs/image.h"
#include "fs/ioerr_io.h"
#include "fs/mem_io.h"
#include "fs/wrap_io.h"
#include "util/e4r_err.h"

/* The block size a channel starts at, the unix manager's and mem_io's alike. */
#define FRESH_BLOCK_SIZE	1024

static struct {
	char		*name;
	io_channel	base;
	int		rw;
} held;

/* A holder's own: whether it may write, and its statistics counted from its open. */
struct holder {
	int			rw;
	unsigned long long	read0, written0;
	struct struct_io_stats	stats;
};

static struct struct_io_manager held_manager;

/*
 * What fs_image_io gives for NAME when nothing is held (image.c asks us
 * first, so we do not call it): the memory manager for an image registered
 * there, the I/O error noter over the files
 */
static io_manager reach(const char *name)
{
	return fs_mem_image_find(name, NULL) ? fs_mem_io_manager : fs_ioerr_io_manager;
}

int fs_held_image(const char *name)
{
	return held.base && name && strcmp(name, held.name) == 0;
}

io_channel fs_held_base(io_channel ch)
{
	return ch && ch->manager == &held_manager ? fs_wrap_inner(ch) : ch;
}

errcode_t fs_held_open(const char *image, int rw)
{
	io_manager io;
	struct stat st;
	int flags = rw ? IO_FLAG_RW : 0;
	errcode_t err;

	if ((err = fs_held_close()))
		return err;
	io = reach(image);
	if (!fs_mem_image_find(image, NULL)) {
		if (stat(image, &st) < 0)
			return errno;
		/* opening a pipe or a tty would wait, or read what is not an image */
		if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
			return E4R_IMAGE_NOT_EXT;
		/* writing to a device: O_EXCL, so the kernel refuses while it has it mounted (fs_image_open) */
		if (rw && S_ISBLK(st.st_mode))
			flags |= IO_FLAG_EXCLUSIVE;
	}
	if (!(held.name = strdup(image)))
		return EXT2_ET_NO_MEMORY;
	/* measured before the open, which asks it too (the I/O error noter) */
	if ((err = fs_image_size_keep(image)) || (err = io->open(image, flags, &held.base))) {
		fs_image_size_keep(NULL);
		held.base = NULL;
		free(held.name);
		held.name = NULL;
		return err;
	}
	held.rw = rw;
	return 0;
}

errcode_t fs_held_close(void)
{
	io_channel base = held.base;

	if (!base)
		return 0;
	held.base = NULL;
	free(held.name);
	held.name = NULL;
	fs_image_size_keep(NULL);
	return io_channel_close(base);
}

/* The base at the block size holder CH reads and writes in (another holder may have set another). */
static errcode_t base_at(io_channel ch)
{
	io_channel base = fs_wrap_inner(ch);

	if (base->block_size == ch->block_size)
		return 0;
	return io_channel_set_blksize(base, ch->block_size);
}

static errcode_t held_open(const char *name, int flags, io_channel *out)
{
	struct holder *h;
	io_stats st = NULL;
	errcode_t err;

	/* anything but the image (libext2fs's undo manager opens its undo file through us) */
	if (!fs_held_image(name))
		return reach(name)->open(name, flags, out);
	if ((flags & IO_FLAG_RW) && !held.rw)
		return EXT2_ET_RO_FILSYS;
	if (!(h = calloc(1, sizeof(*h))))
		return EXT2_ET_NO_MEMORY;
	h->rw = !!(flags & IO_FLAG_RW);
	if (held.base->manager->get_stats && !held.base->manager->get_stats(held.base, &st) && st) {
		h->read0 = st->bytes_read;
		h->written0 = st->bytes_written;
	}
	h->stats.num_fields = 2;
	held.base->refcount++;
	err = fs_wrap_channel(&held_manager, held.base, name, h, out);
	if (err) {
		held.base->refcount--;
		free(h);
		return err;
	}
	/* as a channel of its own would start, whatever block size the last holder left */
	(*out)->block_size = FRESH_BLOCK_SIZE;
	return 0;
}

static errcode_t held_close(io_channel ch)
{
	struct holder *h = fs_wrap_priv(ch);
	errcode_t err = 0, cerr;

	/*
	 * Its own channel's last close wrote what its cache held: on the disk
	 * before the step that wrote it goes on, as before
	 */
	if (ch->refcount == 1 && h->rw)
		err = io_channel_flush(fs_wrap_inner(ch));
	cerr = fs_wrap_close(ch);
	return err ? err : cerr;
}

static errcode_t held_read_blk64(io_channel ch, unsigned long long block, int count, void *data)
{
	errcode_t err = base_at(ch);

	return err ? err : fs_wrap_read_blk64(ch, block, count, data);
}

static errcode_t held_write_blk64(io_channel ch, unsigned long long block, int count, const void *data)
{
	errcode_t err = base_at(ch);

	return err ? err : fs_wrap_write_blk64(ch, block, count, data);
}

static errcode_t held_zeroout(io_channel ch, unsigned long long block, unsigned long long count)
{
	errcode_t err = base_at(ch);

	return err ? err : fs_wrap_zeroout(ch, block, count);
}

/* What passed through the base since this holder opened it. */
static errcode_t held_get_stats(io_channel ch, io_stats *stats)
{
	struct holder *h = fs_wrap_priv(ch);
	io_stats st = NULL;
	errcode_t err = fs_wrap_get_stats(ch, &st);

	if (err || !st)
		return err ? err : EXT2_ET_OP_NOT_SUPPORTED;
	h->stats.bytes_read = st->bytes_read - h->read0;
	h->stats.bytes_written = st->bytes_written - h->written0;
	if (stats)
		*stats = &h->stats;
	return 0;
}

static struct struct_io_manager held_manager = {
	.magic		= EXT2_ET_MAGIC_IO_MANAGER,
	.name		= "e4recover held image",
	.open		= held_open,
	.close		= held_close,
	.set_blksize	= fs_wrap_set_blksize,
	.read_blk	= fs_wrap_read_blk,
	.write_blk	= fs_wrap_write_blk,
	.flush		= fs_wrap_flush,
	.write_byte	= fs_wrap_write_byte,
	.set_option	= fs_wrap_set_option,
	.get_stats	= held_get_stats,
	.read_blk64	= held_read_blk64,
	.write_blk64	= held_write_blk64,
	.discard	= NULL,		/* e4recover never discards */
	.zeroout	= held_zeroout,
};

io_manager fs_held_io = &held_manager;
