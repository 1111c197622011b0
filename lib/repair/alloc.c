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

#include "check/ctx.h"
#include "fs/bitmaps.h"
#include "fs/guard_io.h"
#include "repair/repair.h"

errcode_t repair_new_block(struct check_ctx *c, blk64_t goal, ext2fs_block_bitmap map, blk64_t *out)
{
	ext2_filsys fs = c->fs;
	blk64_t count = ext2fs_blocks_count(fs->super), first = fs->super->s_first_data_block;
	blk64_t tries = count, b;
	errcode_t err;

	if (!map && !fs->block_map && (err = fs_read_block_bitmap(fs)))
		return err;
	/*
	 * Named, not left NULL: with no map libext2fs calls the allocation
	 * callback, which is this function's caller during a repair.
	 */
	if (!map)
		map = fs->block_map;
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

static errcode_t alloc_unclaimed(ext2_filsys fs, blk64_t goal, blk64_t *ret)
{
	struct repair_alloc *a = fs->priv_data;
	errcode_t err = repair_new_block(a->c, goal, NULL, ret);

	/*
	 * The bitmap on disk may be what is damaged (moved onto a file's
	 * data, it reads as full): then a block free by this round's own
	 * count, as e2fsck allocates from the map its pass 1 built. Counted
	 * in use at once, or the next allocation would return it again.
	 */
	if (err == EXT2_ET_BLOCK_ALLOC_FAIL && !(err = repair_new_block(a->c, goal, a->c->used, ret)))
		ext2fs_mark_block_bitmap2(a->c->used, *ret);
	return err;
}

void repair_alloc_begin(struct check_ctx *c, struct repair_alloc *a)
{
	a->c = c;
	a->old_priv = c->fs->priv_data;
	c->fs->priv_data = a;
	ext2fs_set_alloc_block_callback(c->fs, alloc_unclaimed, &a->old_alloc);
}

void repair_alloc_end(struct repair_alloc *a)
{
	ext2fs_set_alloc_block_callback(a->c->fs, a->old_alloc, NULL);
	a->c->fs->priv_data = a->old_priv;
}
