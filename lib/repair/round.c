/* Checker repairs: decide for each finding of a round (-y, -p, ask) and make the repairs in a safe order. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check/ctx.h"
#include "repair/repair.h"

/* What a repair needs to run after the per-finding ones. */
struct repair_plan {
	int		summaries;	/* rebuild bitmaps, counts, descriptor and superblock checksums */
	int		summaries_declined;	/* a bitmap problem was left: allocating is unsafe */
	size_t		*late;		/* findings whose repair allocates (after the summaries) */
	size_t		nlate;
	size_t		*dups;		/* BLOCK_DUP findings, in inode order */
	size_t		ndups;
};

/* Problems whose repair is the rebuild of pass 5's summaries (and the checksums written with them). */
static int is_summary(enum e4r_problem code)
{
	switch (code) {
	case E4R_PR_SB_CSUM: case E4R_PR_SB_FREE_BLOCKS_RANGE: case E4R_PR_SB_FREE_INODES_RANGE:
	case E4R_PR_GD_CSUM: case E4R_PR_GD_UNUSED_INODES: case E4R_PR_GD_UNINIT_NO_CSUM:
	case E4R_PR_BLOCK_NOT_MARKED: case E4R_PR_BLOCK_MARKED_FREE: case E4R_PR_INODE_NOT_MARKED:
	case E4R_PR_INODE_MARKED_FREE: case E4R_PR_GROUP_FREE_BLOCKS: case E4R_PR_GROUP_FREE_INODES:
	case E4R_PR_GROUP_DIRS: case E4R_PR_GROUP_UNUSED_INODES: case E4R_PR_SB_FREE_BLOCKS:
	case E4R_PR_SB_FREE_INODES: case E4R_PR_BLOCK_BITMAP_CSUM: case E4R_PR_INODE_BITMAP_CSUM:
	case E4R_PR_INODE_BITMAP_PADDING: case E4R_PR_BLOCK_BITMAP_PADDING:
	case E4R_PR_BITMAP_READ:
		return 1;
	default:
		return 0;
	}
}

/* Repairs that allocate blocks or inodes: only once the bitmaps are right. */
static int is_late(enum e4r_problem code)
{
	return code == E4R_PR_UNCONNECTED_DIR || code == E4R_PR_DIR_LOOP ||
	       code == E4R_PR_UNATTACHED || code == E4R_PR_NO_LPF || code == E4R_PR_LPF_NOT_DIR ||
	       code == E4R_PR_NO_ROOT || code == E4R_PR_DIR_HOLE;
}

/* -p: every error must be fixable without a person, or nothing is written. */
static int preen_allowed(struct check_ctx *c, size_t first)
{
	struct e4r_check_result *r = c->res;
	int ok = 1;
	size_t i;

	for (i = first; i < r->count; i++) {
		struct e4r_finding *f = &r->findings[i];
		const struct check_problem_info *p = check_problem_info(f->code);

		if (!p || p->severity != E4R_SEV_ERROR)
			continue;
		if (!check_problem_fixable(f->code) || !(p->flags & E4R_PF_PREEN_OK)) {
			f->declined = 1;
			ok = 0;
		}
	}
	if (r->dropped)
		ok = 0;
	return ok;
}

static int decide(struct check_ctx *c, struct e4r_finding *f)
{
	const struct e4r_check_opts *o = c->opts;
	const struct check_problem_info *p = check_problem_info(f->code);
	int yes = 0;

	if (!p || !check_problem_fixable(f->code))
		return 0;
	switch (o->repair) {
	case E4R_REPAIR_YES:
		yes = 1;
		break;
	case E4R_REPAIR_PREEN:
		yes = (p->flags & E4R_PF_PREEN_OK) != 0;
		break;
	case E4R_REPAIR_ASK:
		yes = o->ask ? o->ask(o->ask_arg, f) : 0;
		break;
	default:
		break;
	}
	if (!yes)
		f->declined = 1;
	return yes;
}

/* A group's uninit flags without descriptor checksums mean nothing: drop them. */
static errcode_t fix_uninit_flags(struct check_ctx *c, const struct e4r_finding *f)
{
	if (f->group == E4R_NONE || f->group >= c->fs->group_desc_count)
		return EINVAL;
	ext2fs_bg_flags_clear(c->fs, (dgrp_t)f->group,
			      EXT2_BG_INODE_UNINIT | EXT2_BG_BLOCK_UNINIT);
	return 0;
}

/*
 * An entry names an inode past its group's used-inode mark: e2fsck takes the
 * mark as wrong. Counting the inode as used moves the mark over it when the
 * summaries are rebuilt; the next round reads it and judges it.
 */
static errcode_t fix_uninit_entry(struct check_ctx *c, const struct e4r_finding *f)
{
	dgrp_t g;

	if (f->ino == E4R_NONE || f->ino > c->inodes)
		return EINVAL;
	g = ext2fs_group_of_ino(c->fs, (ext2_ino_t)f->ino);
	ext2fs_bg_flags_clear(c->fs, g, EXT2_BG_INODE_UNINIT);
	ext2fs_mark_inode_bitmap2(c->inode_used, (ext2_ino_t)f->ino);
	return 0;
}

/*
 * A bitmap whose descriptor points outside the filesystem or its group gets
 * a new block, free in the computed usage, in its group (as e2fsck
 * relocates it); the summaries rebuild then writes its content.
 */
static errcode_t relocate_bitmap(struct check_ctx *c, const struct e4r_finding *f)
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
	err = ext2fs_new_block2(fs, ext2fs_group_first_block2(fs, g), c->used, &nb);
	if (err)
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

/* Findings about one inode's map are repaired once: the repair walks the whole map. */
static int seen_before(struct check_ctx *c, size_t first, size_t i)
{
	const struct e4r_finding *f = &c->res->findings[i];
	size_t j;

	for (j = i; j-- > first;) {
		const struct e4r_finding *g = &c->res->findings[j];
		if (g->ino == f->ino && g->fixed &&
		    (g->code == E4R_PR_EXTENT_BAD || g->code == E4R_PR_EXTENT_ORDER ||
		     g->code == E4R_PR_BLOCK_ILLEGAL || g->code == E4R_PR_BLOCK_METADATA))
			return 1;
		if (g->ino != f->ino)
			break;
	}
	return 0;
}

/* The repairs that change one object and allocate nothing. */
static errcode_t fix_one(struct check_ctx *c, size_t first, size_t i, struct repair_plan *plan)
{
	struct e4r_finding *f = &c->res->findings[i];
	struct ext2_super_block *sb = c->fs->super;

	switch (f->code) {
	case E4R_PR_SB_INODES_COUNT:
		sb->s_inodes_count = (uint32_t)f->expected;
		plan->summaries = 1;
		return 0;
	case E4R_PR_JOURNAL_BAD: case E4R_PR_JOURNAL_SB_CSUM:
		return repair_journal_clear(c);
	case E4R_PR_SB_RESIZE_META_BG:
		return repair_resize_inode_off(c);
	case E4R_PR_SB_ORPHAN_HEAD:
		sb->s_last_orphan = 0;
		return 0;
	case E4R_PR_GD_UNINIT_NO_CSUM:
		plan->summaries = 1;
		return fix_uninit_flags(c, f);
	case E4R_PR_GD_BLOCK_BITMAP: case E4R_PR_GD_INODE_BITMAP: case E4R_PR_GD_META_OVERLAP:
	case E4R_PR_BAD_BLOCK_BITMAP:
		plan->summaries = 1;
		return relocate_bitmap(c, f);
	case E4R_PR_INODE_CSUM: case E4R_PR_INODE_DTIME_SET: case E4R_PR_INODE_ZERO_DTIME:
	case E4R_PR_ORPHAN_LIST: case E4R_PR_RESERVED_MODE: case E4R_PR_I_BLOCKS:
	case E4R_PR_I_SIZE: case E4R_PR_LINK_COUNT: case E4R_PR_EA_BLOCK:
	case E4R_PR_IMAGIC_FLAG: case E4R_PR_SPECIAL_FLAGS: case E4R_PR_SPECIAL_SIZE:
		return repair_inode(c, f);
	case E4R_PR_DIR_UNINIT_EXTENT:
		return repair_dir_uninit(c, (ext2_ino_t)f->ino);
	case E4R_PR_DIR_NLINK_FEATURE:
		ext2fs_set_feature_dir_nlink(sb);
		ext2fs_mark_super_dirty(c->fs);
		return 0;
	case E4R_PR_HTREE_NO_FEATURE: case E4R_PR_HTREE_ROOT: case E4R_PR_HTREE_NODE:
	case E4R_PR_HTREE_HASH:
		return repair_htree_flag(c, (ext2_ino_t)f->dir);
	case E4R_PR_INODE_BAD_MODE: case E4R_PR_EXTENTS_NO_FEATURE: case E4R_PR_EXTENT_HEADER:
	case E4R_PR_EXTENT_NODE: case E4R_PR_EXTENT_TOO_DEEP: case E4R_PR_TOO_MANY_BAD_BLOCKS:
	case E4R_PR_DIR_NO_BLOCKS:
	case E4R_PR_FAST_SYMLINK: case E4R_PR_SPECIAL_FILE: case E4R_PR_INLINE_DATA:
	case E4R_PR_DIR_TOO_BIG: case E4R_PR_UNATTACHED_ZERO: case E4R_PR_ROOT_NOT_DIR:
		return repair_inode_clear(c, (ext2_ino_t)f->ino);
	case E4R_PR_EXTENT_BAD: case E4R_PR_EXTENT_ORDER: case E4R_PR_BLOCK_ILLEGAL:
	case E4R_PR_BLOCK_METADATA:
		return seen_before(c, first, i) ? 0 : repair_block_map(c, f);
	case E4R_PR_EXTENT_CSUM:
		return repair_extent_csum(c, f);
	case E4R_PR_DIR_CSUM: case E4R_PR_DIR_CORRUPT:
		return repair_dir_block(c, f);
	case E4R_PR_NO_DOT: case E4R_PR_BAD_DOT: case E4R_PR_NO_DOTDOT:
		return repair_dot(c, f);
	case E4R_PR_ENTRY_BAD_INODE: case E4R_PR_ENTRY_UNUSED_INODE: case E4R_PR_ENTRY_BAD_TARGET:
	case E4R_PR_ENTRY_DOT_NAME: case E4R_PR_ENTRY_ROOT: case E4R_PR_DIR_HARDLINK:
	case E4R_PR_ENTRY_ENCODING: case E4R_PR_ENTRY_FILETYPE: case E4R_PR_ENTRY_NAME:
		return repair_dir_entry(c, f);
	case E4R_PR_ENTRY_UNINIT_INODE:
		plan->summaries = 1;
		return fix_uninit_entry(c, f);
	case E4R_PR_BAD_DOTDOT:
		return repair_dotdot(c, (ext2_ino_t)f->ino, (ext2_ino_t)f->expected);
	default:
		return EXT2_ET_UNIMPLEMENTED;
	}
}

static errcode_t plan_add(size_t **v, size_t *n, size_t i)
{
	size_t *m = realloc(*v, (*n + 1) * sizeof(**v));

	if (!m)
		return ENOMEM;
	m[(*n)++] = i;
	*v = m;
	return 0;
}

static void count_fixed(struct check_ctx *c, struct e4r_finding *f, unsigned *fixed)
{
	const struct check_problem_info *p = check_problem_info(f->code);

	f->fixed = 1;
	(*fixed)++;
	if (p && p->severity == E4R_SEV_ERROR && c->res->left)
		c->res->left--;
}

errcode_t repair_round(struct check_ctx *c, size_t first, unsigned *fixed)
{
	struct e4r_check_result *r = c->res;
	struct repair_plan plan = { 0 };
	errcode_t err = 0;
	size_t i;

	*fixed = 0;
	if (c->opts->repair == E4R_REPAIR_PREEN && !preen_allowed(c, first)) {
		r->preen_halt = 1;
		return 0;
	}
	/* Repairs write inodes and blocks whose checksums are wrong now: read them anyway. */
	c->fs->flags |= EXT2_FLAG_IGNORE_CSUM_ERRORS;
	/*
	 * A bad blocks inode that misled the inode scan makes the rest of this
	 * round's findings unreliable: fix it alone and check again (e2fsck
	 * restarts from the beginning there).
	 */
	for (i = first; i < r->count; i++) {
		struct e4r_finding *f = &r->findings[i];

		if (f->code != E4R_PR_BAD_BLOCKS_INODE)
			continue;
		if (decide(c, f) && repair_bad_blocks_inode(c) == 0) {
			count_fixed(c, f, fixed);
			r->fixed += *fixed;
			r->written = 1;
			ext2fs_mark_super_dirty(c->fs);
			return 0;
		}
	}
	/* A corrupt directory block is cut first: the other repairs in it need a sound block. */
	for (i = first; i < r->count; i++) {
		struct e4r_finding *f = &r->findings[i];

		if (f->code == E4R_PR_DIR_CORRUPT && decide(c, f) && repair_dir_block(c, f) == 0)
			count_fixed(c, f, fixed);
	}
	for (i = first; i < r->count; i++) {
		struct e4r_finding *f = &r->findings[i];
		int summary = is_summary(f->code);

		if (f->code == E4R_PR_BAD_BLOCKS_INODE || f->code == E4R_PR_DIR_CORRUPT)
			continue;	/* answered above */
		if (!decide(c, f)) {
			if (summary && check_problem_fixable(f->code))
				plan.summaries_declined = 1;
			continue;
		}
		if (summary && f->code != E4R_PR_GD_UNINIT_NO_CSUM) {
			plan.summaries = 1;
			continue;	/* counted when the rebuild is done */
		}
		if (is_late(f->code)) {
			if ((err = plan_add(&plan.late, &plan.nlate, i)))
				goto out;
			continue;
		}
		if (f->code == E4R_PR_BLOCK_DUP) {
			if ((err = plan_add(&plan.dups, &plan.ndups, i)))
				goto out;
			continue;
		}
		if (fix_one(c, first, i, &plan) == 0)
			count_fixed(c, f, fixed);
	}
	if (plan.summaries && !plan.summaries_declined) {
		err = repair_summaries(c);
		if (err)
			goto out;
		for (i = first; i < r->count; i++)
			if (is_summary(r->findings[i].code) && !r->findings[i].declined &&
			    !r->findings[i].fixed && check_problem_fixable(r->findings[i].code))
				count_fixed(c, &r->findings[i], fixed);
	}
	/* Allocating repairs trust the bitmaps: not while a known bitmap error is left. */
	if (!plan.summaries_declined) {
		unsigned cloned = 0;

		if (plan.ndups) {
			struct e4r_finding *v = malloc(plan.ndups * sizeof(*v));
			if (!v) {
				err = ENOMEM;
				goto out;
			}
			for (i = 0; i < plan.ndups; i++)
				v[i] = r->findings[plan.dups[i]];
			err = repair_dups(c, v, plan.ndups, &cloned);
			free(v);
			if (err)
				goto out;
			for (i = 0; i < plan.ndups; i++)
				count_fixed(c, &r->findings[plan.dups[i]], fixed);
		}
		for (i = 0; i < plan.nlate; i++) {
			struct e4r_finding *f = &r->findings[plan.late[i]];
			errcode_t e;

			if (f->code == E4R_PR_NO_ROOT)	/* pass 3 reports it first */
				e = repair_root(c);
			else if (f->code == E4R_PR_DIR_HOLE)
				e = repair_dir_hole(c, (ext2_ino_t)f->dir, f->expected);
			else if (f->code == E4R_PR_NO_LPF || f->code == E4R_PR_LPF_NOT_DIR)
				e = repair_reconnect(c, 0, 0);
			else
				e = repair_reconnect(c, (ext2_ino_t)f->ino, f->code != E4R_PR_UNATTACHED);
			if (e == ENOMEM) {
				err = e;
				goto out;
			}
			if (!e)
				count_fixed(c, f, fixed);
		}
	}
	if (*fixed) {
		r->fixed += *fixed;
		r->written = 1;
		ext2fs_mark_super_dirty(c->fs);
		/*
		 * The next round checks what is in memory against the checksums:
		 * bitmaps changed by allocations are written (their checksums go
		 * into the descriptors), and the superblock's checksum follows.
		 */
		if (c->fs->block_map && c->fs->inode_map && !plan.summaries_declined) {
			ext2fs_mark_bb_dirty(c->fs);
			ext2fs_mark_ib_dirty(c->fs);
			err = ext2fs_write_bitmaps(c->fs);
		}
		ext2fs_superblock_csum_set(c->fs, c->fs->super);
	}
out:
	free(plan.late);
	free(plan.dups);
	return err;
}

/* The error-record fields of the superblock (s_error_count .. s_last_error_func). */
#define SB_ERR_START	offsetof(struct ext2_super_block, s_error_count)
#define SB_ERR_END	offsetof(struct ext2_super_block, s_mount_opts)

/*
 * After a complete check with repairs and nothing left, the filesystem is
 * valid: like e2fsck, set the state, forget the error record and the orphan
 * list (its inodes were processed by the passes), and note the check time.
 */
void repair_finish(ext2_filsys fs, struct e4r_check_result *r)
{
	struct ext2_super_block *sb = fs->super;

	if (r->left || !(fs->flags & EXT2_FLAG_RW))
		return;
	if (!(sb->s_state & EXT2_VALID_FS) || (sb->s_state & EXT2_ERROR_FS) || sb->s_last_orphan) {
		r->fixed++;	/* e2fsck counts a filesystem it marks valid as modified */
		r->written = 1;
	}
	if (!r->written)
		return;
	sb->s_state = EXT2_VALID_FS;
	sb->s_last_orphan = 0;
	sb->s_lastcheck = (uint32_t)time(NULL);
	sb->s_mnt_count = 0;
	memset((char *)sb + SB_ERR_START, 0, SB_ERR_END - SB_ERR_START);
	ext2fs_mark_super_dirty(fs);
}
