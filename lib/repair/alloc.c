/*
 * The block allocator libext2fs calls while a round repairs (a new extent
 * node, a block map grown): it hands out only blocks free on disk that this
 * check found unclaimed and that are no metadata, neither where the check
 * found it nor where the descriptors say it is. The bitmap on disk may lag
 * the damage: a block it calls free can hold a file's data, a bitmap or an
 * inode table the write guard keeps. Where it has no free block at all
 * (garbage read as a bitmap), the check's own count decides.
 */
#include "config.h"

#include <string.h>

#include "check/ctx.h"
#include "fs/bitmaps.h"
#include "fs/guard_io.h"
#include "repair/repair.h"
#include "util/e4r_err.h"

/* Mark in TO every block set in FROM (both maps of FS's blocks), a run at a time. */
static void add_in_use(ext2_filsys fs, ext2fs_block_bitmap to, ext2fs_block_bitmap from)
{
	blk64_t last = ext2fs_blocks_count(fs->super) - 1, s = fs->super->s_first_data_block, e;

	while (s <= last && !ext2fs_find_first_set_block_bitmap2(from, s, last, &s)) {
		if (ext2fs_find_first_zero_block_bitmap2(from, s, last, &e))
			e = last + 1;
		ext2fs_mark_block_bitmap_range2(to, s, (unsigned)(e - s));
		s = e;
	}
}

/* The allocator and its two views of the blocks in use, for the round A serves. */
static errcode_t alloc_ready(struct repair_alloc *a)
{
	struct check_ctx *c = a->c;
	ext2_filsys fs = c->fs;
	errcode_t err;
	dgrp_t g;

	if (a->ready)
		return 0;
	if (!fs->block_map && (err = fs_read_block_bitmap(fs)))
		return err;
	err = ext2fs_copy_bitmap(fs->block_map, &a->taken_disk);
	if (!err)
		err = ext2fs_copy_bitmap(c->used, &a->taken_count);
	if (!err)
		add_in_use(fs, a->taken_disk, c->used);
	if (!err)
		err = alloc_init(&a->kernel, fs, NULL);
	if (err) {
		alloc_free(&a->kernel);
		ext2fs_free_block_bitmap(a->taken_disk);
		ext2fs_free_block_bitmap(a->taken_count);
		a->taken_disk = a->taken_count = NULL;
		return err;
	}
	/* the check read every bitmap: every group's buddy counts as loaded, as after a mount's prefetch */
	for (g = 0; g < fs->group_desc_count; g++)
		a->kernel.mb_inited[g] = 1;
	a->ready = 1;
	return 0;
}

/* The round's allocator when C is inside repair_alloc_begin/end; NULL otherwise. */
static struct repair_alloc *round_alloc(struct check_ctx *c)
{
	struct repair_alloc *a = c->fs->priv_data;

	return a && a->c == c ? a : NULL;
}

/*
 * libext2fs's first free block from GOAL in MAP: outside a round, and on
 * bigalloc filesystems, whose clusters ext4's allocator here does not
 * model.
 */
static errcode_t first_free(struct check_ctx *c, blk64_t goal, ext2fs_block_bitmap map, blk64_t *out)
{
	ext2_filsys fs = c->fs;
	blk64_t count = ext2fs_blocks_count(fs->super), first = fs->super->s_first_data_block;
	blk64_t tries = count, b;
	errcode_t err;

	if (goal < first || goal >= count)
		goal = first;
	while (tries--) {
		if ((err = ext2fs_new_block2(fs, goal, map, &b)))
			return err;
		if (!ext2fs_test_block_bitmap2(c->used, b) && !ext2fs_test_block_bitmap2(c->meta, b) &&
		    !fs_guard_holds(b, 1)) {
			*out = b;
			return 0;
		}
		goal = b + 1 < count ? b + 1 : first;
	}
	return EXT2_ET_BLOCK_ALLOC_FAIL;
}

static void handed_out(struct check_ctx *c, blk64_t b)
{
	struct repair_alloc *a = round_alloc(c);

	if (a && a->watch)
		a->watch(a->watch_arg, b);
}

void repair_alloc_watch(struct check_ctx *c, void (*fn)(void *arg, blk64_t blk), void *arg)
{
	struct repair_alloc *a = round_alloc(c);

	if (a) {
		a->watch = fn;
		a->watch_arg = arg;
	}
}

static errcode_t pick_block(struct check_ctx *c, blk64_t goal, ext2fs_block_bitmap map, blk64_t *out)
{
	ext2_filsys fs = c->fs;
	struct repair_alloc *a = round_alloc(c);
	ext2fs_block_bitmap taken;
	blk64_t b, tries = ext2fs_blocks_count(fs->super);
	errcode_t err;

	if (!map && !fs->block_map && (err = fs_read_block_bitmap(fs)))
		return err;
	/*
	 * Named, not left NULL: with no map libext2fs calls the allocation
	 * callback, which is this function's caller during a repair.
	 */
	if (!map)
		map = fs->block_map;
	if (!a || ext2fs_has_feature_bigalloc(fs->super) || (map != fs->block_map && map != c->used))
		return first_free(c, goal, map, out);
	if ((err = alloc_ready(a)))
		return err;
	taken = map == c->used ? a->taken_count : a->taken_disk;
	a->kernel.hooks.map = taken;
	while (tries--) {
		if ((err = alloc_block_pick(&a->kernel, goal, &b)))
			return err == E4R_WRITE_NO_SPACE ? EXT2_ET_BLOCK_ALLOC_FAIL : err;
		/* taken in both views: neither hands it out again this round */
		ext2fs_mark_block_bitmap2(a->taken_disk, b);
		ext2fs_mark_block_bitmap2(a->taken_count, b);
		/* metadata where the descriptors say it is, though the check found it elsewhere */
		if (!fs_guard_holds(b, 1)) {
			*out = b;
			return 0;
		}
	}
	return EXT2_ET_BLOCK_ALLOC_FAIL;
}

errcode_t repair_new_block(struct check_ctx *c, blk64_t goal, ext2fs_block_bitmap map, blk64_t *out)
{
	errcode_t err = pick_block(c, goal, map, out);

	if (!err)
		handed_out(c, *out);
	return err;
}

errcode_t repair_new_block_next(struct check_ctx *c, blk64_t prev, blk64_t goal, blk64_t *out)
{
	ext2_filsys fs = c->fs;
	struct repair_alloc *a = round_alloc(c);
	blk64_t b = prev + 1;

	/*
	 * ext4's mballoc tries the block after the file's left neighbour
	 * before any other (a request that merges with it gets
	 * EXT4_MB_HINT_TRY_GOAL): a file's copied blocks follow each other as
	 * its own writes would. Its best fit for a lone block would take the
	 * smallest free hole instead, one block here, another there.
	 */
	if (a && !ext2fs_has_feature_bigalloc(fs->super) && prev != E4R_NONE &&
	    b < ext2fs_blocks_count(fs->super) && (fs->block_map || !fs_read_block_bitmap(fs)) &&
	    !alloc_ready(a) && !ext2fs_test_block_bitmap2(a->taken_disk, b) &&
	    !ext2fs_test_block_bitmap2(c->meta, b) && !fs_guard_holds(b, 1)) {
		ext2fs_mark_block_bitmap2(a->taken_disk, b);
		ext2fs_mark_block_bitmap2(a->taken_count, b);
		*out = b;
		handed_out(c, b);
		return 0;
	}
	return repair_new_block_unclaimed(c, goal, out);
}

errcode_t repair_new_block_unclaimed(struct check_ctx *c, blk64_t goal, blk64_t *out)
{
	errcode_t err = repair_new_block(c, goal, NULL, out);

	/*
	 * The bitmap on disk may be what is damaged (moved onto a file's
	 * data, it reads as full), or a damaged map left blocks marked that
	 * no file claims any more: then a block free by this round's own
	 * count, as e2fsck allocates from the map its pass 1 built. Counted
	 * in use at once, or the next allocation would return it again.
	 */
	if (err == EXT2_ET_BLOCK_ALLOC_FAIL && !(err = repair_new_block(c, goal, c->used, out)))
		ext2fs_mark_block_bitmap2(c->used, *out);
	return err;
}

static errcode_t alloc_unclaimed(ext2_filsys fs, blk64_t goal, blk64_t *ret)
{
	struct repair_alloc *a = fs->priv_data;

	return repair_new_block_unclaimed(a->c, goal, ret);
}

void repair_alloc_begin(struct check_ctx *c, struct repair_alloc *a)
{
	memset(a, 0, sizeof(*a));
	a->c = c;
	a->old_priv = c->fs->priv_data;
	c->fs->priv_data = a;
	ext2fs_set_alloc_block_callback(c->fs, alloc_unclaimed, &a->old_alloc);
}

void repair_alloc_end(struct repair_alloc *a)
{
	ext2fs_set_alloc_block_callback(a->c->fs, a->old_alloc, NULL);
	a->c->fs->priv_data = a->old_priv;
	if (a->ready)
		alloc_free(&a->kernel);
	ext2fs_free_block_bitmap(a->taken_disk);
	ext2fs_free_block_bitmap(a->taken_count);
	a->taken_disk = a->taken_count = NULL;
	a->ready = 0;
}
