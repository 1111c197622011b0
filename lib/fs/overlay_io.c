/* The repair round's overlay: writes held in memory until the round ends (see overlay_io.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fs/overlay_io.h"
#include "fs/wrap_io.h"
#include "util/array.h"
#include "util/hashtab.h"

struct held {
	blk64_t		blk;
	unsigned char	*data;
};

static struct {
	io_manager	inner;
	io_channel	ch;		/* the open overlay channel */
	unsigned	bs;		/* block size of what is held; 0: writes pass through */
	struct held	*v;		/* the held blocks, in the order first written */
	unsigned	n, cap;
	unsigned	*slot;		/* open-addressed index into v: slot i holds index + 1, 0 empty */
	size_t		nslot;		/* a power of two, at least twice n */
	blk64_t		*sorted;	/* the held numbers in order, made on demand */
	int		sorted_ok;
	volatile errcode_t refuse;
} ov;

static unsigned hash_of(blk64_t blk)
{
	uint64_t h = blk * 0x9E3779B97F4A7C15ULL;

	return (unsigned)(h >> 32);
}

static struct held *find(blk64_t blk)
{
	size_t i;

	if (!ov.nslot)
		return NULL;
	for (i = hash_of(blk) & (ov.nslot - 1); ov.slot[i]; i = (i + 1) & (ov.nslot - 1))
		if (ov.v[ov.slot[i] - 1].blk == blk)
			return &ov.v[ov.slot[i] - 1];
	return NULL;
}

static void index_put(unsigned idx)
{
	size_t i;

	for (i = hash_of(ov.v[idx].blk) & (ov.nslot - 1); ov.slot[i]; i = (i + 1) & (ov.nslot - 1))
		;
	ov.slot[i] = idx + 1;
}

static size_t slot_hash(const void *slot, const void *arg)
{
	(void)arg;
	return hash_of(ov.v[*(const unsigned *)slot - 1].blk);
}

/* A slot is the whole of it, an index into v plus one: in use when not 0. */
static const struct util_hashtab_kind index_kind = {
	sizeof(unsigned), 0, sizeof(unsigned), 1024, slot_hash
};

/*
 * Read or write LEN bytes at byte OFF of the channel under the overlay,
 * whatever block size it has now (libext2fs sets 1024 for a moment to
 * write the superblock record).
 */
static errcode_t lower_io(int write, uint64_t off, unsigned len, void *buf)
{
	io_channel lo = fs_wrap_inner(ov.ch);
	unsigned l = (unsigned)lo->block_size, saved = l;
	errcode_t err, err2;
	int count;

	if (off % l) {
		l = ov.bs;
		if ((err = io_channel_set_blksize(lo, (int)l)))
			return err;
	}
	/*
	 * whole blocks as a block count: unix_io writes a byte count past its
	 * cache, which then still gives the old content to the next read
	 */
	count = len % l ? -(int)len : (int)(len / l);
	err = write ? io_channel_write_blk64(lo, off / l, count, buf) :
		      io_channel_read_blk64(lo, off / l, count, buf);
	if (l != saved && (err2 = io_channel_set_blksize(lo, (int)saved)) && !err)
		err = err2;
	return err;
}

/* The held block BLK, made from the disk's content when not held yet (not read when WHOLE). */
static errcode_t get(blk64_t blk, int whole, struct held **out)
{
	struct held *h = find(blk);
	unsigned char *data;
	errcode_t err;

	if (h) {
		*out = h;
		return 0;
	}
	if ((err = util_hashtab_room((void **)&ov.slot, &ov.nslot, ov.n + 1, &index_kind, NULL)))
		return err;
	if ((err = util_grow((void **)&ov.v, &ov.cap, ov.n + 1, sizeof(*ov.v))))
		return err;
	if (!(data = malloc(ov.bs)))
		return EXT2_ET_NO_MEMORY;
	if (!whole && (err = lower_io(0, blk * ov.bs, ov.bs, data))) {
		free(data);
		return err;
	}
	ov.v[ov.n].blk = blk;
	ov.v[ov.n].data = data;
	index_put(ov.n);
	ov.n++;
	ov.sorted_ok = 0;
	*out = &ov.v[ov.n - 1];
	return 0;
}

/* Hold LEN bytes at byte OFF. */
static errcode_t hold(uint64_t off, uint64_t len, const unsigned char *src)
{
	errcode_t err;

	while (len) {
		blk64_t blk = off / ov.bs;
		unsigned at = (unsigned)(off % ov.bs);
		unsigned n = ov.bs - at < len ? ov.bs - at : (unsigned)len;
		struct held *h;

		if ((err = get(blk, n == ov.bs, &h)))
			return err;
		memcpy(h->data + at, src, n);
		off += n;
		src += n;
		len -= n;
	}
	return 0;
}

static uint64_t byte_len(io_channel ch, int count)
{
	return count < 0 ? (uint64_t)-(int64_t)count : (uint64_t)count * (unsigned)ch->block_size;
}

static errcode_t overlay_read_blk64(io_channel ch, unsigned long long block, int count, void *data)
{
	uint64_t off = block * (unsigned)ch->block_size, len = byte_len(ch, count), b, end;
	errcode_t err = fs_wrap_read_blk64(ch, block, count, data);

	if (err || !ov.bs || !ov.n || !len)
		return err;
	end = off + len;
	/* a long read (read-ahead of an inode table) over few held blocks: look each up once */
	for (b = off / ov.bs; b * ov.bs < end; b++) {
		struct held *h = find(b);
		uint64_t from, to;

		if (!h)
			continue;
		from = b * ov.bs > off ? b * ov.bs : off;
		to = (b + 1) * ov.bs < end ? (b + 1) * ov.bs : end;
		memcpy((unsigned char *)data + (from - off), h->data + (from - b * ov.bs), to - from);
	}
	return 0;
}

static errcode_t overlay_write_blk64(io_channel ch, unsigned long long block, int count, const void *data)
{
	if (!ov.bs)
		return fs_wrap_write_blk64(ch, block, count, data);
	if (ov.refuse)
		return ov.refuse;
	return hold(block * (unsigned)ch->block_size, byte_len(ch, count), data);
}

static errcode_t overlay_open(const char *name, int flags, io_channel *out);

/*
 * Zeroing becomes plain writes (a NULL zeroout), which the overlay holds.
 * No write_byte: libext2fs then writes the whole superblock each time, not
 * the fields it changed since its last write, so a round's superblock never
 * depends on what an earlier round's held copy said.
 */
static struct struct_io_manager overlay_manager =
	FS_WRAP_MANAGER("e4recover repair round overlay", overlay_open, overlay_read_blk64,
			overlay_write_blk64, NULL, NULL);

static errcode_t overlay_close(io_channel ch)
{
	if (ch->refcount == 1 && ch == ov.ch) {
		fs_overlay_release();
		ov.ch = NULL;
	}
	return fs_wrap_close(ch);
}

static errcode_t overlay_open(const char *name, int flags, io_channel *out)
{
	errcode_t err = fs_wrap_open(&overlay_manager, ov.inner, name, flags, NULL, out);

	if (!err)
		ov.ch = *out;
	return err;
}

io_manager fs_overlay_io(io_manager inner)
{
	if (inner && inner != &overlay_manager)
		ov.inner = inner;
	overlay_manager.close = overlay_close;
	/*
	 * No statistics: ext2fs_close would count the bytes written into
	 * s_kbytes_written and write the superblock once more, after the last
	 * round's commit, into an overlay about to close (and so drop it).
	 */
	overlay_manager.get_stats = NULL;
	return &overlay_manager;
}

errcode_t fs_overlay_hold(unsigned blocksize)
{
	if (!ov.ch || blocksize < 1024 || (blocksize & (blocksize - 1)))
		return EXT2_ET_INVALID_ARGUMENT;
	if (ov.n && blocksize != ov.bs)
		return EXT2_ET_INVALID_ARGUMENT;
	ov.bs = blocksize;
	return 0;
}

unsigned long fs_overlay_count(void)
{
	return ov.n;
}

static int cmp_blk(const void *a, const void *b)
{
	blk64_t x = *(const blk64_t *)a, y = *(const blk64_t *)b;

	return x < y ? -1 : x > y;
}

const blk64_t *fs_overlay_blocks(void)
{
	unsigned i;

	if (!ov.n)
		return NULL;
	if (!ov.sorted_ok) {
		blk64_t *s = realloc(ov.sorted, ov.n * sizeof(*s));

		if (!s)
			return NULL;
		ov.sorted = s;
		for (i = 0; i < ov.n; i++)
			s[i] = ov.v[i].blk;
		qsort(s, ov.n, sizeof(*s), cmp_blk);
		ov.sorted_ok = 1;
	}
	return ov.sorted;
}

const unsigned char *fs_overlay_data(blk64_t blk)
{
	struct held *h = find(blk);

	return h ? h->data : NULL;
}

errcode_t fs_overlay_put(uint64_t off, unsigned len, const void *src)
{
	if (!ov.ch || !ov.bs)
		return EXT2_ET_INVALID_ARGUMENT;
	return hold(off, len, src);
}

errcode_t fs_overlay_write_home(void)
{
	const blk64_t *s = fs_overlay_blocks();
	errcode_t err = 0;
	unsigned long i;

	if (!ov.n)
		return 0;
	if (!s)
		return EXT2_ET_NO_MEMORY;
	for (i = 0; !err && i < ov.n; i++)
		err = lower_io(1, s[i] * ov.bs, ov.bs, find(s[i])->data);
	if (!err)
		err = io_channel_flush(fs_wrap_inner(ov.ch));
	if (!err)
		fs_overlay_drop();
	return err;
}

void fs_overlay_drop(void)
{
	unsigned i;

	for (i = 0; i < ov.n; i++)
		free(ov.v[i].data);
	ov.n = 0;
	ov.sorted_ok = 0;
	if (ov.nslot)
		memset(ov.slot, 0, ov.nslot * sizeof(*ov.slot));
}

void fs_overlay_refuse(errcode_t err)
{
	ov.refuse = err;
}

errcode_t fs_overlay_refused(void)
{
	return ov.refuse;
}

io_channel fs_overlay_lower(void)
{
	return ov.ch ? fs_wrap_inner(ov.ch) : NULL;
}

void fs_overlay_release(void)
{
	fs_overlay_drop();
	free(ov.v);
	free(ov.slot);
	free(ov.sorted);
	ov.v = NULL;
	ov.slot = NULL;
	ov.sorted = NULL;
	ov.cap = ov.nslot = 0;
	ov.bs = 0;
}
