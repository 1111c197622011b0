/*
 * The repair routines by name: check/'s problem table says which routine
 * mends each problem (an E4R_FIX_* value, since check/ may not call
 * repair/); this file maps each name to its function.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "check/ctx.h"
#include "fs/guard_io.h"
#include "repair/repair.h"

/* A group's uninit flags without descriptor checksums mean nothing: drop them. */
static errcode_t fix_uninit_flags(struct check_ctx *c, const struct check_finding *f)
{
	if (f->group == E4R_NONE || f->group >= c->fs->group_desc_count)
		return EINVAL;
	/* the last group keeps its inode flag: only its block bitmap must be read (e2fsck -y) */
	ext2fs_bg_flags_clear(c->fs, (dgrp_t)f->group,
			      f->code == E4R_PR_GD_BB_UNINIT_LAST ? EXT2_BG_BLOCK_UNINIT :
			      EXT2_BG_INODE_UNINIT | EXT2_BG_BLOCK_UNINIT);
	return 0;
}

/*
 * An entry names an inode past its group's used-inode mark (or in a group
 * marked uninitialized): e2fsck takes the mark as wrong. Like e2fsck, the
 * group's inodes are all to be read (no uninit flag, no unused inodes), and
 * the check starts again (the finding is fixed alone): the next round reads
 * them and judges them, and its rebuild of the summaries sets the mark anew.
 */
static errcode_t fix_uninit_entry(struct check_ctx *c, const struct check_finding *f)
{
	dgrp_t g;

	if (f->ino == E4R_NONE || f->ino > c->inodes)
		return EINVAL;
	g = ext2fs_group_of_ino(c->fs, (ext2_ino_t)f->ino);
	ext2fs_bg_flags_clear(c->fs, g, EXT2_BG_INODE_UNINIT);
	ext2fs_bg_itable_unused_set(c->fs, g, 0);
	ext2fs_group_desc_csum_set(c->fs, g);
	return 0;
}

/*
 * A bitmap whose descriptor points outside the filesystem or its group gets
 * a new block, free in the computed usage, in its group (as e2fsck
 * relocates it); the summaries rebuild then writes its content.
 */
static errcode_t relocate_bitmap(struct check_ctx *c, const struct check_finding *f)
{
	ext2_filsys fs = c->fs;
	dgrp_t g = (dgrp_t)f->group;
	blk64_t nb = 0;
	errcode_t err;
	int block_bitmap = f->code == E4R_PR_GD_BLOCK_BITMAP;

	if (f->group == E4R_NONE || g >= fs->group_desc_count)
		return EINVAL;
	/* an overlap is mended by moving the bitmap that overlaps; an inode table stays */
	if (f->code == E4R_PR_GD_META_OVERLAP || f->code == E4R_PR_BAD_BLOCK_BITMAP) {
		if (f->blk == ext2fs_block_bitmap_loc(fs, g))
			block_bitmap = 1;
		else if (f->blk != ext2fs_inode_bitmap_loc(fs, g))
			return EXT2_ET_UNIMPLEMENTED;
	}
	if ((err = repair_new_block(c, ext2fs_group_first_block2(fs, g), c->used, &nb)))
		return err;
	ext2fs_mark_block_bitmap2(c->used, nb);
	ext2fs_mark_block_bitmap2(c->meta, nb);
	if (block_bitmap) {
		ext2fs_block_bitmap_loc_set(fs, g, nb);
		ext2fs_bg_flags_clear(fs, g, EXT2_BG_BLOCK_UNINIT);
	} else {
		ext2fs_inode_bitmap_loc_set(fs, g, nb);
		ext2fs_bg_flags_clear(fs, g, EXT2_BG_INODE_UNINIT);
	}
	ext2fs_group_desc_csum_set(fs, g);
	ext2fs_mark_super_dirty(fs);
	return 0;
}

/* Inodes read through a table's old place must not be served again from libext2fs's cache. */
static void table_moved(ext2_filsys fs, dgrp_t g)
{
	ext2fs_group_desc_csum_set(fs, g);
	ext2fs_mark_super_dirty(fs);
	ext2fs_flush_icache(fs);
}

/* The descriptor points back at the blocks that hold the group's inodes (check/itable.c found them). */
static errcode_t itable_origin(struct check_ctx *c, const struct check_finding *f)
{
	ext2_filsys fs = c->fs;
	dgrp_t g = (dgrp_t)f->group;

	if (f->group == E4R_NONE || g >= fs->group_desc_count || f->expected == E4R_NONE ||
	    check_out_of_fs(fs, f->expected, fs->inode_blocks_per_group))
		return EINVAL;
	ext2fs_inode_table_loc_set(fs, g, f->expected);
	table_moved(fs, g);
	return 0;
}

/*
 * LEN free blocks in START..END for a new inode table: free in the computed
 * usage, outside the old table's place OLD and every other place the
 * descriptors name (the guard keeps them: nothing is written there, even
 * where the check found a table or bitmap cannot be), and where it can, also free in the bitmap on disk: with the
 * table unreadable, the computed usage misses every file's blocks.
 */
static errcode_t new_table_place(struct check_ctx *c, blk64_t start, blk64_t end, blk64_t old,
				 blk64_t *out)
{
	ext2_filsys fs = c->fs;
	blk64_t len = fs->inode_blocks_per_group, b;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		ext2fs_block_bitmap disk = pass == 0 ? fs->block_map : NULL;

		if (pass == 0 && !disk)
			continue;
		for (b = start; b <= end && end - b + 1 >= len; b++) {
			if (old && b < old + len && old < b + len) {
				b = old + len - 1;
				continue;
			}
			if (ext2fs_test_block_bitmap_range2(c->used, b, len) && !fs_guard_holds(b, len) &&
			    (!disk || ext2fs_test_block_bitmap_range2(disk, b, len))) {
				*out = b;
				return 0;
			}
		}
	}
	return EXT2_ET_BLOCK_ALLOC_FAIL;
}

/*
 * A table outside the filesystem or its group, or over other metadata, and
 * nowhere to be found: as e2fsck, new blocks (free in the computed usage; in
 * the group, or anywhere with flex_bg) holding what the old place held, or
 * zeros when it was outside the filesystem or block 0 (e2fsck's "missing"
 * table). The next round judges what was copied; the inodes of a zeroed
 * table are lost, and the entries that name them are cleared.
 */
static errcode_t itable_new(struct check_ctx *c, const struct check_finding *f)
{
	ext2_filsys fs = c->fs;
	dgrp_t g = (dgrp_t)f->group;
	blk64_t len = fs->inode_blocks_per_group, start, end, nb = 0, b;
	blk64_t old = ext2fs_inode_table_loc(fs, g);
	int copy = old && !check_out_of_fs(fs, old, len);
	unsigned chunk = 64;
	errcode_t err;
	char *buf;

	if (f->group == E4R_NONE || g >= fs->group_desc_count || !len)
		return EINVAL;
	if (ext2fs_has_feature_flex_bg(fs->super)) {
		start = fs->super->s_first_data_block;
		end = ext2fs_blocks_count(fs->super) - 1;
	} else {
		start = ext2fs_group_first_block2(fs, g);
		end = ext2fs_group_last_block2(fs, g);
	}
	if ((err = new_table_place(c, start, end, copy ? old : 0, &nb)))
		return err;
	if ((err = ext2fs_get_memzero((size_t)fs->blocksize * chunk, &buf)))
		return err;
	for (b = 0; b < len && !err; b += chunk) {
		int n = (int)(len - b < chunk ? len - b : chunk);

		/* unreadable old blocks are given as zeros */
		if (copy && io_channel_read_blk64(fs->io, old + b, n, buf))
			memset(buf, 0, (size_t)fs->blocksize * n);
		err = io_channel_write_blk64(fs->io, nb + b, n, buf);
	}
	ext2fs_free_mem(&buf);
	if (err)
		return err;
	ext2fs_mark_block_bitmap_range2(c->used, nb, len);
	ext2fs_mark_block_bitmap_range2(c->meta, nb, len);
	ext2fs_inode_table_loc_set(fs, g, nb);
	if (!copy)
		ext2fs_bg_flags_set(fs, g, EXT2_BG_INODE_ZEROED);
	table_moved(fs, g);
	return 0;
}

/* Findings about one inode's map are repaired once: the repair walks the whole map. */
static int map_repaired_before(struct check_ctx *c, size_t first, size_t i)
{
	const struct check_finding *f = &c->res->findings[i];
	size_t j;

	for (j = i; j-- > first;) {
		const struct check_finding *g = &c->res->findings[j];
		const struct check_problem_info *p = check_problem_info(g->code);

		if (g->ino == f->ino && g->fixed && p && p->fix == E4R_FIX_BLOCK_MAP)
			return 1;
		if (g->ino != f->ino)
			break;
	}
	return 0;
}

/* Each routine mends finding I of the round that starts at FIRST. */
#define F(i) (&c->res->findings[i])

static errcode_t do_uninit_flags(struct check_ctx *c, size_t first, size_t i)
{
	return fix_uninit_flags(c, F(i));
}

/*
 * libext2fs ends the in-memory inode bitmap at the superblock's count, though
 * it loads every group's bits (up to inodes per group times groups). Left at
 * the old count, every test past it fails, so nothing the repairs do to the
 * inodes the new count adds reaches the bitmap, the unused counts or the
 * summaries. Moving the end keeps the bits already loaded.
 */
static errcode_t do_sb_inodes_count(struct check_ctx *c, size_t first, size_t i)
{
	ext2_filsys fs = c->fs;

	fs->super->s_inodes_count = (uint32_t)F(i)->expected;
	if (fs->inode_map)
		return ext2fs_fudge_inode_bitmap_end(fs->inode_map, fs->super->s_inodes_count, NULL);
	return 0;
}

static errcode_t do_relocate_bitmap(struct check_ctx *c, size_t first, size_t i)
{
	return relocate_bitmap(c, F(i));
}

/* Fixed alone, for every group this round's entries found so: one new check reads them all. */
static errcode_t do_uninit_entry(struct check_ctx *c, size_t first, size_t i)
{
	errcode_t err = fix_uninit_entry(c, F(i));
	size_t j;

	for (j = i + 1; !err && j < c->res->count; j++)
		if (F(j)->code == F(i)->code && F(j)->group != F(i)->group)
			err = fix_uninit_entry(c, F(j));
	return err;
}

static errcode_t do_journal_clear(struct check_ctx *c, size_t first, size_t i)
{
	return repair_journal_clear(c);
}

static errcode_t do_journal_errno(struct check_ctx *c, size_t first, size_t i)
{
	return repair_journal_errno(c);
}

static errcode_t do_journal_v2_fields(struct check_ctx *c, size_t first, size_t i)
{
	return repair_journal_v2_fields(c);
}

static errcode_t do_journal_reset(struct check_ctx *c, size_t first, size_t i)
{
	return repair_journal_reset(c);
}

static errcode_t do_itable_unused(struct check_ctx *c, size_t first, size_t i)
{
	return repair_itable_unused(c, F(i)->group);
}

static errcode_t do_resize_inode_recreate(struct check_ctx *c, size_t first, size_t i)
{
	return repair_resize_inode_recreate(c);
}

static errcode_t do_resize_inode_off(struct check_ctx *c, size_t first, size_t i)
{
	/*
	 * meta_bg went first this round (a first meta_bg group past the
	 * descriptors, found before): no conflict is left, and the resize
	 * inode stays, as e2fsck, which clears meta_bg before it looks
	 */
	if (F(i)->code == E4R_PR_SB_RESIZE_META_BG && !ext2fs_has_feature_meta_bg(c->fs->super))
		return 0;
	return repair_resize_inode_off(c);
}

/*
 * A bad head, or a chain that leaves the inode range or loops: e2fsck gives
 * up the whole list (it never uses the head again) and lets pass 1 judge
 * the inodes that were on it.
 */
static errcode_t do_orphan_list_clear(struct check_ctx *c, size_t first, size_t i)
{
	c->fs->super->s_last_orphan = 0;
	ext2fs_mark_super_dirty(c->fs);
	return 0;
}

static errcode_t do_inode(struct check_ctx *c, size_t first, size_t i)
{
	return repair_inode(c, F(i));
}

static errcode_t do_inode_clear(struct check_ctx *c, size_t first, size_t i)
{
	if (F(i)->code == E4R_PR_UNATTACHED_ZERO)
		return repair_unattached_clear(c, (ext2_ino_t)F(i)->ino);
	return repair_inode_clear(c, (ext2_ino_t)F(i)->ino);
}

/* A finding after I of the same inode says it shares blocks with metadata (-y answers it yes). */
static int metadata_shared_after(struct check_ctx *c, size_t i)
{
	size_t j;

	if (!c->opts || c->opts->repair != E4R_REPAIR_YES)
		return 0;
	for (j = i + 1; j < c->res->count && F(j)->ino == F(i)->ino; j++)
		if (F(j)->code == E4R_PR_BLOCK_METADATA)
			return 1;
	return 0;
}

/*
 * The map is repaired once for all its findings, the copies of what it
 * shares with metadata first: a trim before them would drop data that
 * e2fsck copies, and leave a node in an inode table that no trim may
 * write. Under questions, a yes to the sharing that comes after the map's
 * first repair copies then, and trims again.
 */
static errcode_t do_block_map(struct check_ctx *c, size_t first, size_t i)
{
	int shared = F(i)->code == E4R_PR_BLOCK_METADATA;

	if (map_repaired_before(c, first, i))
		return shared && !(c->opts && c->opts->repair == E4R_REPAIR_YES) ?
		       repair_block_map(c, F(i), 1) : 0;
	return repair_block_map(c, F(i), shared || metadata_shared_after(c, i));
}

static errcode_t do_extent_csum(struct check_ctx *c, size_t first, size_t i)
{
	return repair_extent_csum(c, F(i));
}

static errcode_t do_dir_uninit(struct check_ctx *c, size_t first, size_t i)
{
	return repair_dir_uninit(c, (ext2_ino_t)F(i)->ino);
}

static errcode_t do_dir_extent_gap(struct check_ctx *c, size_t first, size_t i)
{
	return repair_dir_extent_gap(c, F(i));
}

static errcode_t do_dir_nlink_feature(struct check_ctx *c, size_t first, size_t i)
{
	ext2fs_set_feature_dir_nlink(c->fs->super);
	ext2fs_mark_super_dirty(c->fs);
	return 0;
}

static errcode_t do_large_file_feature(struct check_ctx *c, size_t first, size_t i)
{
	ext2fs_set_feature_large_file(c->fs->super);
	ext2fs_mark_super_dirty(c->fs);
	return 0;
}

/*
 * One superblock field set as e2fsck -y sets it: to the value the check
 * computed (a time, an extra inode size), or a feature flag the rule names.
 */
static errcode_t do_sb_field(struct check_ctx *c, size_t first, size_t i)
{
	struct ext2_super_block *sb = c->fs->super;
	const struct check_finding *f = F(i);

	switch (f->code) {
	case E4R_PR_SB_FUTURE_MOUNT:
		sb->s_mtime = (uint32_t)f->expected;
		break;
	case E4R_PR_SB_FUTURE_WRITE:
		sb->s_wtime = (uint32_t)f->expected;
		break;
	case E4R_PR_SB_MIN_EXTRA_ISIZE:
		sb->s_min_extra_isize = (uint16_t)f->expected;
		break;
	case E4R_PR_SB_WANT_EXTRA_ISIZE:
		sb->s_want_extra_isize = (uint16_t)f->expected;
		break;
	case E4R_PR_SB_RESERVED_GDT:
		sb->s_reserved_gdt_blocks = 0;
		break;
	case E4R_PR_SB_FIRST_META_BG:
		ext2fs_clear_feature_meta_bg(sb);
		sb->s_first_meta_bg = 0;
		break;
	case E4R_PR_SB_CSUM_SEED:
		ext2fs_clear_feature_csum_seed(sb);
		sb->s_checksum_seed = 0;
		break;
	case E4R_PR_SB_64BIT_NO_EXTENTS:
	case E4R_PR_EXTENT_FEATURE:
		ext2fs_set_feature_extents(sb);
		break;
	case E4R_PR_INLINE_DATA_FEATURE:
		ext2fs_set_feature_inline_data(sb);
		break;
	case E4R_PR_SB_HURD_FILETYPE:
		ext2fs_clear_feature_filetype(sb);
		break;
	case E4R_PR_JOURNAL_RECOVER_SET:
		ext2fs_clear_feature_journal_needs_recovery(sb);
		break;
	case E4R_PR_SB_BOTH_CSUMS:
		/* the descriptors' checksums are metadata_csum's already: nothing else changes */
		ext2fs_clear_feature_gdt_csum(sb);
		break;
	case E4R_PR_ORPHAN_FILE_NO_JOURNAL:
		ext2fs_clear_feature_orphan_file(sb);
		ext2fs_clear_feature_orphan_present(sb);
		break;
	default:
		return EXT2_ET_UNIMPLEMENTED;
	}
	ext2fs_mark_super_dirty(c->fs);
	return 0;
}

/* A fresh MMP block, marked clean (libext2fs writes it through the filesystem's channel) */
static errcode_t do_mmp_reset(struct check_ctx *c, size_t first, size_t i)
{
	return ext2fs_mmp_clear(c->fs);
}

static errcode_t do_htree_flag(struct check_ctx *c, size_t first, size_t i)
{
	return repair_htree_deindex(c, (ext2_ino_t)F(i)->dir);
}

static errcode_t do_dir_block(struct check_ctx *c, size_t first, size_t i)
{
	return repair_dir_block(c, F(i));
}

static errcode_t do_dot(struct check_ctx *c, size_t first, size_t i)
{
	return repair_dot(c, F(i));
}

static errcode_t do_dir_entry(struct check_ctx *c, size_t first, size_t i)
{
	return repair_dir_entry(c, F(i));
}

static errcode_t do_dotdot(struct check_ctx *c, size_t first, size_t i)
{
	return repair_dotdot(c, (ext2_ino_t)F(i)->ino, (ext2_ino_t)F(i)->expected);
}

static errcode_t do_bad_blocks_inode(struct check_ctx *c, size_t first, size_t i)
{
	return repair_bad_blocks_inode(c);
}

static errcode_t do_root(struct check_ctx *c, size_t first, size_t i)
{
	return repair_root(c);
}

static errcode_t do_dir_hole(struct check_ctx *c, size_t first, size_t i)
{
	return repair_dir_hole(c, (ext2_ino_t)F(i)->dir, F(i)->expected, F(i)->found);
}

static errcode_t do_lost_found(struct check_ctx *c, size_t first, size_t i)
{
	return repair_reconnect(c, 0, 0);
}

static errcode_t do_reconnect_dir(struct check_ctx *c, size_t first, size_t i)
{
	return repair_reconnect(c, (ext2_ino_t)F(i)->ino, 1);
}

static errcode_t do_reconnect_file(struct check_ctx *c, size_t first, size_t i)
{
	return repair_reconnect(c, (ext2_ino_t)F(i)->ino, 0);
}

static errcode_t do_ea_refcount(struct check_ctx *c, size_t first, size_t i)
{
	return repair_ea_refcount(c, F(i));
}

static errcode_t do_ea_clear(struct check_ctx *c, size_t first, size_t i)
{
	return repair_ea_clear(c, F(i));
}

static errcode_t do_orphan_present_off(struct check_ctx *c, size_t first, size_t i)
{
	ext2fs_clear_feature_orphan_present(c->fs->super);
	ext2fs_mark_super_dirty(c->fs);
	return 0;
}

static errcode_t do_orphan_block(struct check_ctx *c, size_t first, size_t i)
{
	return repair_orphan_block(c, F(i));
}

static errcode_t do_orphan_file_remove(struct check_ctx *c, size_t first, size_t i)
{
	return repair_orphan_file_remove(c, F(i));
}

static errcode_t do_orphan_file_recreate(struct check_ctx *c, size_t first, size_t i)
{
	return repair_orphan_file_recreate(c, F(i));
}

static errcode_t do_quota_inode_off(struct check_ctx *c, size_t first, size_t i)
{
	return repair_quota_inode_off(c, F(i));
}

static errcode_t do_quota_inode_home(struct check_ctx *c, size_t first, size_t i)
{
	return repair_quota_inode_home(c, F(i));
}

/* One rewrite per quota file and round mends all of its findings. */
static errcode_t do_quota_rewrite(struct check_ctx *c, size_t first, size_t i)
{
	size_t j;

	for (j = first; j < i; j++) {
		const struct check_problem_info *p = check_problem_info(c->res->findings[j].code);

		if (c->res->findings[j].fixed && p && p->fix == E4R_FIX_QUOTA_REWRITE &&
		    c->res->findings[j].ino == F(i)->ino)
			return 0;
	}
	return repair_quota_rewrite(c, F(i));
}

static errcode_t do_itable_origin(struct check_ctx *c, size_t first, size_t i)
{
	return itable_origin(c, F(i));
}

static errcode_t do_itable_new(struct check_ctx *c, size_t first, size_t i)
{
	return itable_new(c, F(i));
}

static errcode_t do_journal_copy(struct check_ctx *c, size_t first, size_t i)
{
	return repair_journal_copy(c, F(i));
}

/*
 * SUMMARIES and CLONE have no routine per finding: the round makes them
 * once for all their findings (repair_summaries, repair_dups).
 */
static const repair_fn fixes[E4R_FIX_COUNT] = {
	[E4R_FIX_UNINIT_FLAGS]		= do_uninit_flags,
	[E4R_FIX_SB_INODES_COUNT]	= do_sb_inodes_count,
	[E4R_FIX_RELOCATE_BITMAP]	= do_relocate_bitmap,
	[E4R_FIX_UNINIT_ENTRY]		= do_uninit_entry,
	[E4R_FIX_JOURNAL_CLEAR]		= do_journal_clear,
	[E4R_FIX_JOURNAL_COPY]		= do_journal_copy,
	[E4R_FIX_ITABLE_ORIGIN]		= do_itable_origin,
	[E4R_FIX_ITABLE_NEW]		= do_itable_new,
	[E4R_FIX_JOURNAL_ERRNO]		= do_journal_errno,
	[E4R_FIX_JOURNAL_V2_FIELDS]	= do_journal_v2_fields,
	[E4R_FIX_JOURNAL_RESET]		= do_journal_reset,
	[E4R_FIX_ITABLE_UNUSED]		= do_itable_unused,
	[E4R_FIX_RESIZE_INODE_RECREATE]	= do_resize_inode_recreate,
	[E4R_FIX_RESIZE_INODE_OFF]	= do_resize_inode_off,
	[E4R_FIX_ORPHAN_LIST_CLEAR]	= do_orphan_list_clear,
	[E4R_FIX_INODE]			= do_inode,
	[E4R_FIX_INODE_CLEAR]		= do_inode_clear,
	[E4R_FIX_BLOCK_MAP]		= do_block_map,
	[E4R_FIX_EXTENT_CSUM]		= do_extent_csum,
	[E4R_FIX_DIR_UNINIT]		= do_dir_uninit,
	[E4R_FIX_DIR_EXTENT_GAP]	= do_dir_extent_gap,
	[E4R_FIX_DIR_NLINK_FEATURE]	= do_dir_nlink_feature,
	[E4R_FIX_LARGE_FILE_FEATURE]	= do_large_file_feature,
	[E4R_FIX_HTREE_FLAG]		= do_htree_flag,
	[E4R_FIX_DIR_BLOCK]		= do_dir_block,
	[E4R_FIX_DOT]			= do_dot,
	[E4R_FIX_DIR_ENTRY]		= do_dir_entry,
	[E4R_FIX_DOTDOT]		= do_dotdot,
	[E4R_FIX_BAD_BLOCKS_INODE]	= do_bad_blocks_inode,
	[E4R_FIX_ROOT]			= do_root,
	[E4R_FIX_DIR_HOLE]		= do_dir_hole,
	[E4R_FIX_LOST_FOUND]		= do_lost_found,
	[E4R_FIX_RECONNECT_DIR]		= do_reconnect_dir,
	[E4R_FIX_RECONNECT_FILE]	= do_reconnect_file,
	[E4R_FIX_EA_REFCOUNT]		= do_ea_refcount,
	[E4R_FIX_EA_CLEAR]		= do_ea_clear,
	[E4R_FIX_ORPHAN_PRESENT_OFF]	= do_orphan_present_off,
	[E4R_FIX_ORPHAN_BLOCK]		= do_orphan_block,
	[E4R_FIX_ORPHAN_FILE_REMOVE]	= do_orphan_file_remove,
	[E4R_FIX_ORPHAN_FILE_RECREATE]	= do_orphan_file_recreate,
	[E4R_FIX_QUOTA_INODE_OFF]	= do_quota_inode_off,
	[E4R_FIX_QUOTA_INODE_HOME]	= do_quota_inode_home,
	[E4R_FIX_QUOTA_REWRITE]		= do_quota_rewrite,
	[E4R_FIX_SB_FIELD]		= do_sb_field,
	[E4R_FIX_MMP_RESET]		= do_mmp_reset,
};

repair_fn repair_fix_fn(enum check_fix fix)
{
	return (unsigned)fix < E4R_FIX_COUNT ? fixes[fix] : NULL;
}

int repair_fix_known(enum check_fix fix)
{
	return fix == E4R_FIX_SUMMARIES || fix == E4R_FIX_CLONE || repair_fix_fn(fix) != NULL;
}
