/* The repairs' write guard (see guard_io.h for the rules and why). */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "fs/geometry.h"
#include "fs/guard_io.h"
#include "util/array.h"
#include "util/e4r_err.h"
#include "util/sorted.h"
#include "fs/wrap_io.h"

enum guard_kind { GUARD_SB, GUARD_GDT, GUARD_BITMAP, GUARD_ITABLE };

static const char *const kind_names[] = {
	[GUARD_SB] = "a superblock",
	[GUARD_GDT] = "a group descriptor block",
	[GUARD_BITMAP] = "a bitmap block",
	[GUARD_ITABLE] = "an inode table block",
};

/* A run of metadata blocks; for descriptor blocks, the table block its first one holds. */
struct guard_range {
	blk64_t		start;
	blk64_t		len;
	enum guard_kind	kind;
	blk64_t		desc_index;
};

static struct struct_io_manager guard_manager;

static struct {
	io_manager		inner;
	ext2_filsys		fs;		/* armed: the filesystem whose metadata is mapped */
	struct guard_range	*ranges;	/* sorted by start */
	size_t			count, cap;
	blk64_t			longest;	/* the longest range's length */
	int			bitmaps_open;
	int			tripped;
	blk64_t			trip_blk;
	enum guard_kind		trip_kind;
	unsigned long		trips;		/* never reset */
} guard;

static errcode_t add_range(blk64_t start, blk64_t len, enum guard_kind kind, blk64_t index)
{
	errcode_t err;

	if (!len)
		return 0;
	err = util_grow_from((void **)&guard.ranges, &guard.cap, guard.count + 1, sizeof(*guard.ranges), 256);
	if (err)
		return err;
	guard.ranges[guard.count++] = (struct guard_range){ start, len, kind, index };
	if (len > guard.longest)
		guard.longest = len;
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct guard_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

errcode_t fs_guard_arm(ext2_filsys fs)
{
	unsigned per_block = fs->blocksize / EXT2_DESC_SIZE(fs->super);
	unsigned itable_blocks = fs->inode_blocks_per_group;
	blk64_t first_meta = fs_old_desc_blocks(fs);
	errcode_t err = 0;
	dgrp_t g;

	if (fs->io->manager != &guard_manager)
		return 0;	/* not opened through the guard: nothing to watch */
	guard.count = 0;
	guard.longest = 0;
	guard.fs = fs;
	for (g = 0; g < fs->group_desc_count && !err; g++) {
		blk64_t super = 0, old_desc = 0, new_desc = 0;

		ext2fs_super_and_bgd_loc2(fs, g, &super, &old_desc, &new_desc, NULL);
		if (g == 0 || super)
			/* group 0's superblock is at byte 1024, in block 0 or 1 */
			err = add_range(g == 0 ? 1024 / fs->blocksize : super, 1, GUARD_SB, 0);
		if (!err && old_desc)
			err = add_range(old_desc, first_meta, GUARD_GDT, 0);
		if (!err && new_desc)
			err = add_range(new_desc, 1, GUARD_GDT, g / per_block);
		if (!err)
			err = add_range(ext2fs_block_bitmap_loc(fs, g), 1, GUARD_BITMAP, 0);
		if (!err)
			err = add_range(ext2fs_inode_bitmap_loc(fs, g), 1, GUARD_BITMAP, 0);
		if (!err)
			err = add_range(ext2fs_inode_table_loc(fs, g), itable_blocks, GUARD_ITABLE, 0);
	}
	if (err) {
		guard.fs = NULL;
		return err;
	}
	qsort(guard.ranges, guard.count, sizeof(*guard.ranges), by_start);
	return 0;
}

void fs_guard_disarm(void)
{
	guard.fs = NULL;
	guard.count = 0;
	guard.bitmaps_open = 0;
	guard.tripped = 0;
}

void fs_guard_bitmaps(int open)
{
	guard.bitmaps_open = open;
}

unsigned long fs_guard_trips(void)
{
	return guard.trips;
}

int fs_guard_tripped(blk64_t *blk, const char **what)
{
	if (guard.tripped) {
		*blk = guard.trip_blk;
		*what = kind_names[guard.trip_kind];
	}
	return guard.tripped;
}

/*
 * The metadata range holding BLK, or NULL. Where a damaged layout puts two
 * there (a bitmap on a descriptor block), the one whose place the
 * superblock fixes wins over one a descriptor names: superblock, then
 * descriptors, then bitmaps, then tables (the order of enum guard_kind).
 * The one a descriptor names is the wrong one, and the check moves it.
 */
static const struct guard_range *range_of(blk64_t blk)
{
	const struct guard_range *best = NULL;
	size_t i = util_upper_bound(UTIL_SORTED(guard.ranges, guard.count, start), blk);

	/* the ranges starting at or before BLK, back to where none could reach it */
	while (i-- > 0) {
		const struct guard_range *r = &guard.ranges[i];

		if (blk - r->start < r->len && (!best || r->kind < best->kind))
			best = r;
		if (blk - r->start >= guard.longest)
			break;
	}
	return best;
}

void fs_guard_yield_bitmap(blk64_t blk)
{
	size_t i, j, other = 0;

	if (!guard.fs)
		return;
	for (i = 0; i < guard.count; i++)
		other += blk - guard.ranges[i].start < guard.ranges[i].len &&
			 guard.ranges[i].kind != GUARD_BITMAP;
	if (!other)
		return;
	for (i = j = 0; i < guard.count; i++)
		if (guard.ranges[i].kind != GUARD_BITMAP || guard.ranges[i].start != blk)
			guard.ranges[j++] = guard.ranges[i];
	guard.count = j;
}

int fs_guard_holds(blk64_t start, blk64_t len)
{
	size_t i;

	if (!guard.fs || !len || start + len < start)
		return 0;
	/*
	 * The ranges starting before the end, back to where none could reach
	 * START (ranges may nest or overlap in a damaged layout)
	 */
	i = util_upper_bound(UTIL_SORTED(guard.ranges, guard.count, start), start + len - 1);
	while (i-- > 0) {
		const struct guard_range *r = &guard.ranges[i];

		if (r->start > start || start - r->start < r->len)
			return 1;
		if (start - r->start >= guard.longest)
			break;
	}
	return 0;
}

/* Does DATA, written over inode table block BLK, change at most one inode there? */
static int one_inode_changed(io_channel inner, blk64_t blk, const char *data)
{
	ext2_filsys fs = guard.fs;
	unsigned isize = EXT2_INODE_SIZE(fs->super), off, changed = 0;
	char *now = malloc(fs->blocksize);
	int ok = 0;

	if (now && inner->block_size > 0 && fs->blocksize % inner->block_size == 0 &&
	    !io_channel_read_blk64(inner, blk * (fs->blocksize / inner->block_size),
				   fs->blocksize / inner->block_size, now)) {
		for (off = 0; off + isize <= fs->blocksize; off += isize)
			changed += memcmp(now + off, data + off, isize) != 0;
		ok = changed <= 1;
	}
	free(now);
	return ok;
}

/* May a write of COUNT blocks (or -COUNT bytes) at channel block BLOCK go through? */
static int write_allowed(io_channel ch, unsigned long long block, int count, const char *data)
{
	ext2_filsys fs = guard.fs;
	unsigned long long off, end, b;

	if (!fs)
		return 1;
	off = block * (unsigned long long)ch->block_size;
	end = off + (count < 0 ? (unsigned long long)-count : (unsigned long long)count * ch->block_size);
	for (b = off / fs->blocksize; b * fs->blocksize < end; b++) {
		const struct guard_range *r = range_of(b);
		const char *at = data + (b * fs->blocksize > off ? b * fs->blocksize - off : 0);
		int whole = count > 0 && b * fs->blocksize >= off &&
			    (b + 1) * (unsigned long long)fs->blocksize <= end;
		int ok = 1;

		if (!r)
			continue;
		switch (r->kind) {
		case GUARD_SB:
			ok = count < 0;		/* the superblock record, never a block */
			break;
		case GUARD_GDT:
			ok = whole && !memcmp(at, (char *)fs->group_desc +
					      (r->desc_index + (b - r->start)) * fs->blocksize,
					      fs->blocksize);
			break;
		case GUARD_BITMAP:
			ok = guard.bitmaps_open;
			break;
		case GUARD_ITABLE:
			ok = whole && one_inode_changed(fs_wrap_inner(ch), b, at);
			break;
		}
		if (!ok) {
			guard.tripped = 1;
			guard.trips++;
			guard.trip_blk = b;
			guard.trip_kind = r->kind;
			return 0;
		}
	}
	return 1;
}

/* ---- the io manager: everything but writes goes straight to the inner channel ---- */

static errcode_t guard_open(const char *name, int flags, io_channel *out)
{
	return fs_wrap_open(&guard_manager, guard.inner, name, flags, NULL, out);
}

static errcode_t guard_write_blk64(io_channel ch, unsigned long long block, int count,
				   const void *data)
{
	if (guard.tripped || !write_allowed(ch, block, count, data))
		return E4R_WRITE_GUARD;
	return fs_wrap_write_blk64(ch, block, count, data);
}

static errcode_t guard_write_byte(io_channel ch, unsigned long offset, int size, const void *data)
{
	/* bytes: the superblock record (libext2fs's only user); refused once tripped */
	if (guard.tripped)
		return E4R_WRITE_GUARD;
	return fs_wrap_write_byte(ch, offset, size, data);
}

/*
 * Zeroing goes to the inner channel only over blocks no guarded range holds
 * (a new journal's); over any other it is refused as unimplemented, and
 * libext2fs then zeroes with plain writes, which the guard judges.
 */
static errcode_t guard_zeroout(io_channel ch, unsigned long long block, unsigned long long count)
{
	ext2_filsys fs = guard.fs;
	unsigned long long bs = (unsigned long long)ch->block_size, off, end, b;

	if (guard.tripped)
		return E4R_WRITE_GUARD;
	if (fs) {
		if (block > ULLONG_MAX / bs || count > (ULLONG_MAX - block * bs) / bs)
			return EXT2_ET_UNIMPLEMENTED;
		off = block * bs;
		end = off + count * bs;
		for (b = off / fs->blocksize; b * fs->blocksize < end; b++)
			if (range_of(b))
				return EXT2_ET_UNIMPLEMENTED;
	}
	return fs_wrap_zeroout(ch, block, count);
}

static struct struct_io_manager guard_manager =
	FS_WRAP_MANAGER("e4recover write guard", guard_open, fs_wrap_read_blk64, guard_write_blk64,
			guard_write_byte, guard_zeroout);

io_manager fs_guard_io(io_manager in)
{
	if (in && in != &guard_manager)
		guard.inner = in;
	return &guard_manager;
}
