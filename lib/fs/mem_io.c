/* An io manager over registered memory buffers (see mem_io.h). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fs/mem_io.h"
#include "util/e4r_err.h"

/* A handful of images is all a fuzz target or test needs at once. */
#define MEM_IMAGES	4

struct mem_image {
	char			*name;
	unsigned char		*buf;
	size_t			len;
	struct fs_mem_io_stats	st;
	fs_mem_write_fn		watch;
	void			*watch_arg;
};

static struct mem_image images[MEM_IMAGES];

static struct mem_image *lookup(const char *name)
{
	for (int i = 0; name && i < MEM_IMAGES; i++)
		if (images[i].name && !strcmp(images[i].name, name))
			return &images[i];
	return NULL;
}

errcode_t fs_mem_image_add(const char *name, unsigned char *buf, size_t len)
{
	struct mem_image *m = lookup(name);

	for (int i = 0; !m && i < MEM_IMAGES; i++)
		if (!images[i].name)
			m = &images[i];
	if (!m)
		return EXT2_ET_NO_MEMORY;
	if (!m->name && !(m->name = strdup(name)))
		return EXT2_ET_NO_MEMORY;
	m->buf = buf;
	m->len = len;
	memset(&m->st, 0, sizeof(m->st));
	m->watch = NULL;
	m->watch_arg = NULL;
	return 0;
}

void fs_mem_image_remove(const char *name)
{
	struct mem_image *m = lookup(name);

	if (m) {
		free(m->name);
		memset(m, 0, sizeof(*m));
	}
}

int fs_mem_image_find(const char *name, uint64_t *bytes)
{
	struct mem_image *m = lookup(name);

	if (m && bytes)
		*bytes = m->len;
	return m != NULL;
}

int fs_mem_image_stats(const char *name, struct fs_mem_io_stats *st)
{
	struct mem_image *m = lookup(name);

	if (!m)
		return 0;
	*st = m->st;
	return 1;
}

int fs_mem_image_watch(const char *name, fs_mem_write_fn fn, void *arg)
{
	struct mem_image *m = lookup(name);

	if (!m)
		return 0;
	m->watch = fn;
	m->watch_arg = arg;
	return 1;
}

static struct mem_image *image_of(io_channel ch)
{
	return ch->private_data;
}

static errcode_t mem_open(const char *name, int flags, io_channel *out)
{
	struct mem_image *m = lookup(name);
	io_channel ch;

	if (!m)
		return ENOENT;
	ch = calloc(1, sizeof(*ch));
	if (!ch || !(ch->name = strdup(name))) {
		free(ch);
		return EXT2_ET_NO_MEMORY;
	}
	ch->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	ch->manager = fs_mem_io_manager;
	ch->block_size = 1024;
	ch->refcount = 1;
	ch->flags = flags;
	ch->private_data = m;
	*out = ch;
	return 0;
}

static errcode_t mem_close(io_channel ch)
{
	if (--ch->refcount > 0)
		return 0;
	free(ch->name);
	free(ch);
	return 0;
}

static errcode_t mem_set_blksize(io_channel ch, int blksize)
{
	if (blksize <= 0)
		return EXT2_ET_INVALID_ARGUMENT;
	ch->block_size = blksize;
	return 0;
}

/* The byte range of COUNT units at BLOCK (a negative COUNT is a byte count), or 0 if it overflows. */
static int byte_range(io_channel ch, unsigned long long block, int count, uint64_t *off, uint64_t *len)
{
	uint64_t bs = (uint64_t)ch->block_size;

	*len = count < 0 ? (uint64_t)-(int64_t)count : (uint64_t)count * bs;
	if (block > UINT64_MAX / bs)
		return 0;
	*off = block * bs;
	return *off <= UINT64_MAX - *len;
}

static errcode_t mem_read_blk64(io_channel ch, unsigned long long block, int count, void *data)
{
	struct mem_image *m = image_of(ch);
	uint64_t off, len, have;

	if (!byte_range(ch, block, count, &off, &len))
		return EXT2_ET_LLSEEK_FAILED;
	have = off >= m->len ? 0 : m->len - off;
	if (have > len)
		have = len;
	if (have)
		memcpy(data, m->buf + off, have);
	if (have < len) {
		/* Like the unix manager: the missing part reads as zeros and the read fails. */
		memset((unsigned char *)data + have, 0, len - have);
		return EXT2_ET_SHORT_READ;
	}
	return 0;
}

static errcode_t mem_read_blk(io_channel ch, unsigned long block, int count, void *data)
{
	return mem_read_blk64(ch, block, count, data);
}

/* Write LEN bytes of DATA (zeros when DATA is NULL) at OFF. */
static errcode_t mem_write_at(io_channel ch, uint64_t off, uint64_t len, const void *data)
{
	struct mem_image *m = image_of(ch);

	if (!(ch->flags & IO_FLAG_RW))
		return EXT2_ET_RO_FILSYS;
	if (off > m->len || len > m->len - off) {
		m->st.refused++;
		return E4R_MEM_IO_BOUNDS;
	}
	if (data)
		memcpy(m->buf + off, data, len);
	else
		memset(m->buf + off, 0, len);
	m->st.writes++;
	if (m->watch)
		m->watch(m->watch_arg, off, len);
	return 0;
}

static errcode_t mem_write_blk64(io_channel ch, unsigned long long block, int count, const void *data)
{
	uint64_t off, len;

	if (!byte_range(ch, block, count, &off, &len))
		return E4R_MEM_IO_BOUNDS;
	return mem_write_at(ch, off, len, data);
}

static errcode_t mem_write_blk(io_channel ch, unsigned long block, int count, const void *data)
{
	return mem_write_blk64(ch, block, count, data);
}

static errcode_t mem_write_byte(io_channel ch, unsigned long offset, int size, const void *data)
{
	if (size < 0)
		return EXT2_ET_INVALID_ARGUMENT;
	return mem_write_at(ch, offset, (uint64_t)size, data);
}

/*
 * Zeroing in place: without it libext2fs zeroes a new journal by writing a
 * zeroed buffer of up to 4 MiB, allocated and cleared again in every run of
 * a fuzz target. Counted as one write, like any other.
 */
static errcode_t mem_zeroout(io_channel ch, unsigned long long block, unsigned long long count)
{
	uint64_t bs = (uint64_t)ch->block_size;

	if (block > UINT64_MAX / bs || count > (UINT64_MAX - block * bs) / bs) {
		image_of(ch)->st.refused++;
		return E4R_MEM_IO_BOUNDS;
	}
	return mem_write_at(ch, block * bs, count * bs, NULL);
}

static errcode_t mem_flush(io_channel ch)
{
	(void)ch;
	return 0;
}

static errcode_t mem_set_option(io_channel ch, const char *option, const char *arg)
{
	(void)ch, (void)option, (void)arg;
	return EXT2_ET_INVALID_ARGUMENT;
}

static errcode_t mem_discard(io_channel ch, unsigned long long block, unsigned long long count)
{
	(void)ch, (void)block, (void)count;
	return EXT2_ET_UNIMPLEMENTED;
}

static struct struct_io_manager mem_manager = {
	.magic		= EXT2_ET_MAGIC_IO_MANAGER,
	.name		= "e4recover in-memory I/O manager",
	.open		= mem_open,
	.close		= mem_close,
	.set_blksize	= mem_set_blksize,
	.read_blk	= mem_read_blk,
	.write_blk	= mem_write_blk,
	.flush		= mem_flush,
	.write_byte	= mem_write_byte,
	.set_option	= mem_set_option,
	.read_blk64	= mem_read_blk64,
	.write_blk64	= mem_write_blk64,
	.discard	= mem_discard,
	.zeroout	= mem_zeroout,
};

io_manager fs_mem_io_manager = &mem_manager;
