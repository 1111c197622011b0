/* Checker repairs: decide for each finding of a round (-y, -p, ask) and make the repairs in a safe order. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check/ctx.h"
#include "fs/guard_io.h"
#include "repair/repair.h"
#include "util/nomem.h"

/* What the round makes after the per-finding repairs. */
struct repair_plan {
	int		summaries;	/* rebuild bitmaps, counts, descriptor and superblock checksums */
	int		summaries_declined;	/* a bitmap problem was left: allocating is unsafe */
	size_t		*late;		/* E4R_PHASE_LATE findings (they allocate: after the summaries) */
	size_t		nlate;
	size_t		*dups;		/* E4R_PHASE_CLONE findings, in inode order */
	size_t		ndups;
};

/* When in the round the table says FINDING is repaired. */
static enum check_phase phase_of(const struct check_finding *f)
{
	const struct check_problem_info *p = check_problem_info(f->code);

	return p ? p->phase : E4R_PHASE_NONE;
}

/* Does the table set FLAG (E4R_PF_*) on FINDING's problem? */
static int flagged(const struct check_finding *f, unsigned flag)
{
	const struct check_problem_info *p = check_problem_info(f->code);

	return p && (p->flags & flag);
}

/*
 * Make finding I's repair, as the table names it; 0 when made. Most callers
 * read any other return as "not made" and go on: out of memory is kept as
 * the round's fatal error (check_fatal) so that the round is dropped, not
 * committed with the finding left as if it could not be mended.
 */
static errcode_t fix_one(struct check_ctx *c, size_t first, size_t i)
{
	const struct check_problem_info *p = check_problem_info(c->res->findings[i].code);
	repair_fn fn = p ? repair_fix_fn(p->fix) : NULL;
	errcode_t err = fn ? fn(c, first, i) : EXT2_ET_UNIMPLEMENTED;

	if (util_no_memory(err))
		check_fatal(c, err);
	return err;
}

/* -p: every error must be fixable without a person, or nothing is written. */
static int preen_allowed(struct check_ctx *c, size_t first)
{
	struct check_result *r = c->res;
	int ok = 1;
	size_t i;

	for (i = first; i < r->count; i++) {
		struct check_finding *f = &r->findings[i];
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

/*
 * A fix the user declined stays declined for the whole run: a later round
 * finds the same problem again (it is still there) and must neither ask again
 * nor take a later "yes" or "all" as the answer to it.
 */
static int declined_before(const struct check_ctx *c, const struct check_finding *f)
{
	const struct check_result *r = c->res;
	size_t i;

	for (i = 0; i < r->count && r->findings[i].round < f->round; i++)
		if (r->findings[i].declined && check_same_finding(&r->findings[i], f))
			return 1;
	return 0;
}

static int decide(struct check_ctx *c, struct check_finding *f)
{
	const struct check_opts *o = c->opts;
	const struct check_problem_info *p = check_problem_info(f->code);
	int yes = 0;

	if (!p || !check_problem_fixable(f->code))
		return 0;
	if ((p->flags & E4R_PF_UNCOUNTED) && o->repair != E4R_REPAIR_NONE)
		return 1;
	switch (o->repair) {
	case E4R_REPAIR_YES:
		yes = 1;
		break;
	case E4R_REPAIR_PREEN:
		yes = (p->flags & E4R_PF_PREEN_OK) != 0;
		break;
	case E4R_REPAIR_ASK:
		yes = !declined_before(c, f) && o->ask ? o->ask(o->ask_arg, f) : 0;
		break;
	default:
		break;
	}
	if (!yes)
		f->declined = 1;
	return yes;
}

/*
 * An ordinary entry naming no valid inode in use (E4R_PF_NOT_LINK): pass 2
 * never counted it, and clearing it changes no count nor anything else a
 * check derives ('.' and '..' are not ordinary: without them the directory
 * has a new problem).
 */
static int uncounted_entry(const struct check_finding *f)
{
	return flagged(f, E4R_PF_NOT_LINK) && f->name && strcmp(f->name, ".") &&
	       strcmp(f->name, "..");
}

/* Does repairing F add, remove or redirect directory entries that pass 4's counts include? */
static int changes_entries(const struct check_finding *f)
{
	const struct check_problem_info *p = check_problem_info(f->code);

	if (uncounted_entry(f))
		return 0;
	return p && (p->pass == E4R_PASS_DIRS || p->pass == E4R_PASS_CONNECT);
}

/*
 * Can F's repair leave nothing for a new check to find (E4R_PF_CLOSED)?
 * Not a file reconnected (E4R_PF_RECONNECTS) past its group's used inodes:
 * the entry is one pass 2 refuses (as e2fsck's does) until the group's
 * mark moves, which a new check asks for.
 */
static int closes(ext2_filsys fs, const struct check_finding *f)
{
	const struct check_problem_info *p = check_problem_info(f->code);

	if (flagged(f, E4R_PF_RECONNECTS) && f->ino != E4R_NONE &&
	    check_ino_in_unused_area(fs, (ext2_ino_t)f->ino))
		return 0;
	return (p && (p->flags & E4R_PF_CLOSED)) || uncounted_entry(f);
}

/* INO's map was changed by a repair made this round (MAPS[0..N)). */
static int map_changed(const ext2_ino_t *maps, size_t n, uint64_t ino)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (maps[i] == ino)
			return 1;
	return 0;
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

static void count_fixed(struct check_ctx *c, struct check_finding *f, unsigned *fixed)
{
	const struct check_problem_info *p = check_problem_info(f->code);

	f->fixed = 1;
	if (p && (p->flags & E4R_PF_UNCOUNTED)) {
		/* written, but no reason for another round nor for exit 1 */
		c->res->written = 1;
		return;
	}
	(*fixed)++;
	if (!closes(c->fs, f))
		c->recheck = 1;
	if (p && p->severity == E4R_SEV_ERROR && c->res->left)
		c->res->left--;
}

/* The repairs made so far go into the result, and the superblock is written with them. */
static void round_written(struct check_ctx *c, unsigned fixed)
{
	c->res->fixed += fixed;
	c->res->written = 1;
	ext2fs_mark_super_dirty(c->fs);
}

/*
 * Report CODE on INO as a finding of this round made after its repairs, and
 * fix it now: 0 also when declined or left unfixed; the limit on findings
 * reached leaves it to a new check.
 */
static errcode_t settle(struct check_ctx *c, size_t first, enum check_problem code, uint64_t ino,
			uint64_t expected, uint64_t found, unsigned *fixed)
{
	struct check_result *r = c->res;
	size_t n = r->count;
	unsigned errors = r->errors;
	errcode_t err = check_report_ino(c, code, ino, E4R_NONE, expected, found);

	r->left += r->errors - errors;	/* an error found now is left until fixed */
	if (err || r->count == n) {
		c->recheck = 1;
		return err;
	}
	if (decide(c, &r->findings[n])) {
		err = fix_one(c, first, n);
		if (util_no_memory(err))
			return err;
		if (!err)
			count_fixed(c, &r->findings[n], fixed);
	}
	return 0;
}

/*
 * What the round's reconnections and clears changed, compared again now
 * instead of by a new check: the link count of each file reconnected (one
 * entry names it now; it may have had more links), and quota once usage was
 * charged or released after pass 5 compared it.
 */
static errcode_t settle_round(struct check_ctx *c, size_t first, unsigned *fixed)
{
	struct check_result *r = c->res;
	size_t i, end = r->count;
	errcode_t err = 0;

	for (i = first; i < end && !err; i++) {
		const struct check_finding *f = &r->findings[i];
		ext2_ino_t ino = (ext2_ino_t)f->ino;

		if (!flagged(f, E4R_PF_RECONNECTS) || !f->fixed || f->ino == E4R_NONE || ino > c->inodes)
			continue;
		if (check_nlink_found(c, ino) != check_nlink_disk(c, ino))
			err = settle(c, first, E4R_PR_LINK_COUNT, ino, check_nlink_found(c, ino),
				     check_nlink_disk(c, ino), fixed);
	}
	if (!err && c->quota_changed) {
		size_t from = r->count, kept;
		unsigned errors = r->errors;

		c->quota_changed = 0;
		err = check_quota(c);
		r->left += r->errors - errors;
		/* what pass 5 said already and was not mended (declined, a bad header): said once */
		for (i = kept = from; i < r->count; i++) {
			struct check_finding *f = &r->findings[i];
			const struct check_problem_info *p = check_problem_info(f->code);
			size_t j;
			int said = 0;

			for (j = first; j < from && !said; j++)
				said = !r->findings[j].fixed && check_same_finding(&r->findings[j], f);
			if (!said) {
				r->findings[kept++] = *f;
				continue;
			}
			free(f->name);
			if (p && p->severity == E4R_SEV_ERROR) {
				r->errors--;
				r->left--;
			}
		}
		r->count = kept;
		/* one rewrite per quota file mends all of its new findings */
		for (i = from; i < r->count && !err; i++) {
			struct check_finding *f = &r->findings[i];
			const struct check_problem_info *p = check_problem_info(f->code);
			size_t j;
			int done = 0;

			if (!p || p->fix != E4R_FIX_QUOTA_REWRITE) {
				c->recheck = 1;
				continue;
			}
			for (j = from; j < i; j++)
				if (r->findings[j].fixed && r->findings[j].ino == f->ino)
					done = 1;
			if (!decide(c, f))
				continue;
			if (!done) {
				errcode_t e = repair_quota_rewrite(c, f);

				if (util_no_memory(e))
					err = e;
				if (e)
					continue;
			}
			count_fixed(c, f, fixed);
		}
		if (r->dropped)
			c->recheck = 1;
	}
	return err;
}

/*
 * A group descriptor failing its checksum whose uninit flags or unused
 * inode count hid inodes from the round's scan: its other findings were made
 * without them (their blocks free, the root missing). e2fsck -y drops those
 * flags and the count for such a group before its passes; here the check
 * starts over after doing so, nothing else repaired.
 */
static int gd_csum_hides_inodes(struct check_ctx *c, const struct check_finding *f)
{
	dgrp_t g = (dgrp_t)f->group;

	return flagged(f, E4R_PF_HIDES_INODES) && f->group < c->fs->group_desc_count &&
	       (ext2fs_bg_flags_test(c->fs, g, EXT2_BG_INODE_UNINIT | EXT2_BG_BLOCK_UNINIT) ||
		ext2fs_bg_itable_unused(c->fs, g));
}

/* Every such group of the round, its checksum set again. */
static void gd_csum_unhide(struct check_ctx *c, size_t first)
{
	size_t i;

	for (i = first; i < c->res->count; i++) {
		const struct check_finding *f = &c->res->findings[i];
		dgrp_t g = (dgrp_t)f->group;

		if (!gd_csum_hides_inodes(c, f))
			continue;
		ext2fs_bg_flags_clear(c->fs, g, EXT2_BG_INODE_UNINIT | EXT2_BG_BLOCK_UNINIT);
		ext2fs_bg_itable_unused_set(c->fs, g, 0);
		ext2fs_group_desc_csum_set(c->fs, g);
	}
}

/*
 * A directory's extent moved down over a gap (dir_extent_gap) is how pass 1
 * saw the directory when repairing: its size and blocks, and what pass 2
 * read, assume the move. Asking, such repairs (E4R_PF_ASK_FIRST) are asked
 * first (-y makes them, -p stops before them). One answered no: the round's
 * other findings were made on a move that will not happen, so none is asked
 * or made, and the next check, which knows the answer, judges the directory
 * as it stays (e2fsck sizes it so after a "no"). Returns 1 then; the moves
 * answered yes are made.
 */
static int moves_declined(struct check_ctx *c, size_t first, unsigned *fixed)
{
	struct check_result *r = c->res;
	int declined = 0;
	size_t i;

	if (c->opts->repair != E4R_REPAIR_ASK)
		return 0;
	for (i = first; i < r->count; i++) {
		struct check_finding *f = &r->findings[i];

		if (!flagged(f, E4R_PF_ASK_FIRST))
			continue;
		if (!decide(c, f))
			declined = 1;
		else if (fix_one(c, first, i) == 0)
			count_fixed(c, f, fixed);
	}
	if (declined && *fixed)
		round_written(c, *fixed);
	return declined;
}

/*
 * Will the mode answer yes to F, as far as can be told before asking? (An
 * interactive answer is unknown: not declined before counts as yes; a no
 * then only delays what waited on it by a round.)
 */
static int yes_expected(const struct check_ctx *c, const struct check_finding *f)
{
	const struct check_opts *o = c->opts;
	const struct check_problem_info *p = check_problem_info(f->code);

	if (!p || !check_problem_fixable(f->code))
		return 0;
	return o->repair == E4R_REPAIR_YES ||
	       (o->repair == E4R_REPAIR_PREEN && (p->flags & E4R_PF_PREEN_OK)) ||
	       (o->repair == E4R_REPAIR_ASK && !declined_before(c, f));
}

/* A finding of this round to be repaired alone, that the mode will answer yes to. */
static int alone_pending(struct check_ctx *c, size_t first)
{
	for (size_t i = first; i < c->res->count; i++) {
		const struct check_finding *f = &c->res->findings[i];

		if (phase_of(f) == E4R_PHASE_ALONE && yes_expected(c, f))
			return 1;
	}
	return 0;
}

/*
 * The inodes whose maps this round will change (trim, clone of their
 * blocks, clear). A directory's blocks were read through the map as it is:
 * a block the trim drops can be another file's (an extent from block 0
 * over the journal), and a directory fix written there corrupts that file.
 * e2fsck mends the map in pass 1, before pass 2 reads a directory block.
 */
static int pick_map_repair(const struct check_finding *f, const void *arg, uint64_t *ino)
{
	if (!flagged(f, E4R_PF_REMAPS) || !yes_expected(arg, f))
		return 0;
	*ino = f->ino;
	return 1;
}

/*
 * A directory finding whose directory's map this round changes waits a
 * round: pass 2's on the directory holding the entry, pass 3's on the
 * directory whose '..' it writes or which it reconnects. A map whose blocks
 * another inode shares is one: written before the clone, the new '..' would
 * land in both copies (e2fsck clones in pass 1D, before pass 2 reads).
 */
static int waits_for_map(const struct check_keys *to_map, const struct check_finding *f)
{
	enum check_pass pass = check_problem_info(f->code)->pass;

	if (!to_map->n)
		return 0;
	if (pass == E4R_PASS_DIRS)
		return f->dir != E4R_NONE && check_keys_has(to_map, f->dir);
	return pass == E4R_PASS_CONNECT && f->ino != E4R_NONE && check_keys_has(to_map, f->ino);
}

/*
 * The bitmaps this round's findings say lie over other metadata: the
 * guard leaves their places to that metadata (fs_guard_yield_bitmap).
 */
static void yield_misplaced_bitmaps(struct check_ctx *c, size_t first)
{
	size_t i;

	for (i = first; i < c->res->count; i++) {
		const struct check_finding *f = &c->res->findings[i];
		dgrp_t g = (dgrp_t)f->group;

		/* the finding names the group's own bitmap (not its table: that one stays) */
		if (flagged(f, E4R_PF_OVERLAP) && f->group < c->fs->group_desc_count &&
		    (f->blk == ext2fs_block_bitmap_loc(c->fs, g) ||
		     f->blk == ext2fs_inode_bitmap_loc(c->fs, g)))
			fs_guard_yield_bitmap(f->blk);
	}
}

/*
 * What the phases of one round share: its findings (from FIRST on), the
 * count of its repairs, and what a phase learns that a later one needs.
 */
struct round {
	struct check_ctx	*c;
	size_t			first;		/* the round's first finding */
	unsigned		*fixed;		/* the repairs made so far */
	int			over;		/* a phase ended the round: no later phase runs */
	int			entries_change;	/* entries that pass 4 counted change: its counts wait */
	ext2_ino_t		*maps;		/* inodes whose maps this round's repairs changed */
	size_t			nmaps;
	struct check_keys	to_map;		/* inodes whose maps this round will change */
	struct check_finding	*cut;		/* the corrupt directory blocks round_first mended */
	size_t			ncut;
	struct repair_plan	plan;
};

/*
 * Journal copies of damaged blocks first: the round's other findings
 * were made on the damage. But not before a repair made alone: such a
 * finding (a feature the inodes prove, a table's place) changes how
 * the next round reads every inode, and this round's view called
 * sound inodes damaged (a lost extent feature had older copies of
 * the inode tables restored over them). The copies wait a round.
 */
static errcode_t round_restore(struct round *rd)
{
	struct check_ctx *c = rd->c;
	errcode_t err;

	/* the last round's repairs may have moved metadata (a relocated bitmap) */
	if ((err = fs_guard_arm(c->fs)))
		return err;
	if (!alone_pending(c, rd->first) && (err = repair_journal_copies(c, rd->first, rd->fixed)))
		return err;
	if (*rd->fixed) {
		round_written(c, *rd->fixed);
		c->recheck = 1;	/* the other findings were made on the damage */
		rd->over = 1;
	}
	return 0;
}

/*
 * The checks before the round's own repairs, which can stop it before
 * anything is written: -p with an error it may not fix, and a directory's
 * extent move answered no (moves_declined).
 */
static errcode_t round_checks(struct round *rd)
{
	struct check_ctx *c = rd->c;

	if (c->opts->repair == E4R_REPAIR_PREEN && !preen_allowed(c, rd->first)) {
		c->res->preen_halt = 1;
		rd->over = 1;
		return 0;
	}
	/* Repairs write inodes and blocks whose checksums are wrong now: read them anyway. */
	c->fs->flags |= EXT2_FLAG_IGNORE_CSUM_ERRORS;
	if (moves_declined(c, rd->first, rd->fixed)) {
		c->again = 1;
		rd->over = 1;
	}
	return 0;
}

/*
 * A finding that makes the rest of this round's findings unreliable
 * (a bad blocks inode that misled the inode scan, a descriptor whose
 * uninit flags hid inodes from it: gd_csum_hides_inodes) is fixed alone,
 * and the check starts again (e2fsck restarts from the beginning there).
 */
static errcode_t round_alone(struct round *rd)
{
	struct check_ctx *c = rd->c;
	struct check_result *r = c->res;
	errcode_t err;
	size_t i;

	for (i = rd->first; i < r->count; i++) {
		struct check_finding *f = &r->findings[i];

		if (gd_csum_hides_inodes(c, f)) {
			if (!decide(c, f))
				continue;
			gd_csum_unhide(c, rd->first);
			c->alone_fixed = i;
			count_fixed(c, f, rd->fixed);
			round_written(c, *rd->fixed);
			c->recheck = 1;
			rd->over = 1;
			return 0;
		}
		if (phase_of(f) != E4R_PHASE_ALONE)
			continue;
		/*
		 * The inode it writes (the bad blocks inode, say) may lie in a
		 * table block that a misplaced bitmap claims. The bitmaps move
		 * in a later round (allocating on this round's findings is not
		 * safe): till then the guard leaves such a place to the table.
		 */
		if (decide(c, f)) {
			yield_misplaced_bitmaps(c, rd->first);
			if (fix_one(c, rd->first, i) == 0) {
				c->alone_fixed = i;
				count_fixed(c, f, rd->fixed);
				round_written(c, *rd->fixed);
				/* the next round reads the superblock in memory: its checksum as written */
				ext2fs_superblock_csum_set(c->fs, c->fs->super);
				rd->over = 1;
				return 0;
			}
			/* not made: the bitmaps are the guard's again until they move */
			if ((err = fs_guard_arm(c->fs)))
				return err;
		}
		/*
		 * A table that stays where it cannot be (no room for new blocks,
		 * or declined): an inode the round writes there would land on the
		 * metadata beneath it. Nothing more is made; the findings stay.
		 */
		if (flagged(f, E4R_PF_MOVES_TABLE)) {
			rd->over = 1;
			return 0;
		}
	}
	return 0;
}

/*
 * A bitmap over other metadata or outside its group moves before any
 * other repair writes: the write guard knows the layout it was armed
 * with, and an inode written into a table block that a misplaced
 * bitmap still claims would be refused. Armed again after the moves.
 * (A table that cannot stay moves alone: round_alone.)
 */
static errcode_t round_move_bitmaps(struct round *rd)
{
	struct check_ctx *c = rd->c;
	struct check_result *r = c->res;
	size_t i;

	for (i = rd->first; i < r->count; i++) {
		struct check_finding *f = &r->findings[i];

		if (!flagged(f, E4R_PF_MOVES_BITMAP) || !decide(c, f))
			continue;
		rd->plan.summaries = 1;
		if (fix_one(c, rd->first, i) == 0)
			count_fixed(c, f, rd->fixed);
	}
	return rd->plan.summaries ? fs_guard_arm(c->fs) : 0;
}

/*
 * The directories whose maps this round mends (pick_map_repair): their
 * findings wait a round (waits_for_map). Entries that wait for their
 * directory's map were counted by pass 4 as they read now: the link
 * counts wait with them.
 */
static errcode_t round_map_waits(struct round *rd)
{
	struct check_result *r = rd->c->res;
	errcode_t err;
	size_t i;

	if ((err = check_keys_collect(r, rd->first, pick_map_repair, rd->c, &rd->to_map)))
		return err;
	for (i = rd->first; i < r->count && !rd->entries_change; i++)
		rd->entries_change = waits_for_map(&rd->to_map, &r->findings[i]);
	return 0;
}

/* What the others need sound first (a corrupt directory block is cut before its entries). */
static errcode_t round_first(struct round *rd)
{
	struct check_ctx *c = rd->c;
	struct check_result *r = c->res;
	size_t i;

	for (i = rd->first; i < r->count; i++) {
		struct check_finding *f = &r->findings[i];

		if (phase_of(f) != E4R_PHASE_FIRST)
			continue;
		/* a directory whose map this round mends: its blocks are read again after */
		if (waits_for_map(&rd->to_map, f)) {
			f->deferred = 1;
			c->recheck = 1;
			continue;
		}
		if (decide(c, f) && fix_one(c, rd->first, i) == 0) {
			struct check_finding *v;

			rd->entries_change |= changes_entries(f);
			count_fixed(c, f, rd->fixed);
			if (f->code != E4R_PR_DIR_CORRUPT || f->blk == E4R_NONE)
				continue;
			if (!(v = realloc(rd->cut, (rd->ncut + 1) * sizeof(*v))))
				return ENOMEM;
			rd->cut = v;
			rd->cut[rd->ncut++] = *f;
		}
	}
	return 0;
}

/*
 * Was F found on a directory block this round's round_first rewrote? Its
 * other findings there (a checksum, a '..' read as missing through the
 * damage) describe the block before: a '..' written over a mended htree
 * root would make it a leaf. The next round reads the block again.
 */
static int found_on_cut_block(const struct round *rd, const struct check_finding *f)
{
	enum check_pass pass = check_problem_info(f->code)->pass;

	for (size_t k = 0; k < rd->ncut; k++) {
		const struct check_finding *cut = &rd->cut[k];

		if (pass == E4R_PASS_DIRS && f->blk == cut->blk && f->dir == cut->dir)
			return 1;
		/* pass 3 read '..' through the damage too */
		if (pass == E4R_PASS_CONNECT && f->code == E4R_PR_BAD_DOTDOT && f->ino == cut->dir)
			return 1;
	}
	return 0;
}

/* F waits for the next round, which finds it again; RECHECK: that round is needed for it. */
static int defer(struct check_ctx *c, struct check_finding *f, int recheck)
{
	f->deferred = 1;
	if (recheck)
		c->recheck = 1;
	return 1;
}

/*
 * Does F wait for the next round (deferred then)? What it says was found
 * on what this round's earlier repairs have changed.
 */
static int round_defers(struct round *rd, struct check_finding *f)
{
	struct check_ctx *c = rd->c;

	/* the entries of a directory whose map this round mends: as in round_first */
	if (waits_for_map(&rd->to_map, f))
		return defer(c, f, 1);
	if (found_on_cut_block(rd, f))
		return defer(c, f, 1);
	/*
	 * Pass 4 counted the links this round's entries give; a pass 2 or 3
	 * repair that adds, removes or redirects entries makes those counts
	 * stale (a '..' put back is one more link to its parent). The next
	 * round counts again and mends them then, once.
	 */
	if (rd->entries_change && check_problem_info(f->code)->pass == E4R_PASS_LINKS)
		return defer(c, f, 1);
	/*
	 * Quota counted before this round's reconnections: a root or a
	 * lost+found they make takes an inode and a block of its own.
	 */
	if (flagged(f, E4R_PF_COUNTS_USAGE) && rd->entries_change)
		return defer(c, f, 0);
	/*
	 * The same for the counts over an inode's blocks (i_blocks, and
	 * quota over all inodes) once a repair changed what it maps:
	 * corrected from stale counts, they would be corrected back.
	 */
	if (rd->nmaps && (flagged(f, E4R_PF_COUNTS_USAGE) ||
			  (flagged(f, E4R_PF_COUNTS_MAP) && map_changed(rd->maps, rd->nmaps, f->ino))))
		return defer(c, f, 1);
	return 0;
}

/*
 * The rest, in the order found: made now, or planned for the phases after
 * (the summaries' rebuild, the clones, the late repairs that allocate).
 */
static errcode_t round_in_order(struct round *rd)
{
	struct check_ctx *c = rd->c;
	struct check_result *r = c->res;
	errcode_t err;
	size_t i;

	for (i = rd->first; i < r->count; i++) {
		struct check_finding *f = &r->findings[i];
		enum check_phase phase = phase_of(f);

		if (phase == E4R_PHASE_ALONE || phase == E4R_PHASE_FIRST ||
		    flagged(f, E4R_PF_MOVES_BITMAP) ||
		    (flagged(f, E4R_PF_ASK_FIRST) && c->opts->repair == E4R_REPAIR_ASK))
			continue;	/* answered above */
		if (round_defers(rd, f))
			continue;
		if (!decide(c, f)) {
			if (phase == E4R_PHASE_SUMMARY)
				rd->plan.summaries_declined = 1;
			continue;
		}
		/* reconnections (late) are made after this loop: they count when chosen */
		if (phase == E4R_PHASE_LATE)
			rd->entries_change |= changes_entries(f);
		switch (phase) {
		case E4R_PHASE_SUMMARY:
			rd->plan.summaries = 1;
			/* a routine of its own (uninit flags) runs now; the rest is the rebuild */
			if (repair_fix_fn(check_problem_info(f->code)->fix) &&
			    fix_one(c, rd->first, i) == 0)
				count_fixed(c, f, rd->fixed);
			continue;	/* else counted when the rebuild is done */
		case E4R_PHASE_LATE:
			if ((err = plan_add(&rd->plan.late, &rd->plan.nlate, i)))
				return err;
			continue;
		case E4R_PHASE_CLONE:
			if ((err = plan_add(&rd->plan.dups, &rd->plan.ndups, i)))
				return err;
			continue;
		case E4R_PHASE_NOW_REBUILD:
			rd->plan.summaries = 1;
			break;
		default:
			break;
		}
		if (fix_one(c, rd->first, i) == 0) {
			rd->entries_change |= changes_entries(f);
			count_fixed(c, f, rd->fixed);
			if (flagged(f, E4R_PF_DROPS_BLOCKS) && f->ino != E4R_NONE) {
				ext2_ino_t *m = realloc(rd->maps, (rd->nmaps + 1) * sizeof(*rd->maps));

				if (!m)
					return ENOMEM;
				rd->maps = m;
				rd->maps[rd->nmaps++] = (ext2_ino_t)f->ino;
			}
		}
	}
	return 0;
}

/*
 * Pass 5's summaries rebuilt once for all the round's findings that ask
 * for it (and for the repairs that leave them stale), unless one was
 * declined: then none is, and the bitmaps stay as they are.
 */
static errcode_t round_summaries(struct round *rd)
{
	struct check_ctx *c = rd->c;
	struct check_result *r = c->res;
	errcode_t err;
	size_t i;

	/* a declined rebuild leaves this round's clears marked in use: a new check sees them */
	if (rd->plan.summaries && rd->plan.summaries_declined && *rd->fixed)
		c->recheck = 1;
	if (!rd->plan.summaries || rd->plan.summaries_declined)
		return 0;
	if ((err = repair_summaries(c)))
		return err;
	for (i = rd->first; i < r->count; i++)
		if (phase_of(&r->findings[i]) == E4R_PHASE_SUMMARY && !r->findings[i].declined &&
		    !r->findings[i].fixed && check_problem_fixable(r->findings[i].code))
			count_fixed(c, &r->findings[i], rd->fixed);
	return 0;
}

/*
 * A file whose copy of its shared blocks found no free block: reported
 * (E4R_PR_DUP_CLONE_FAILED, e2fsck's "Couldn't clone file") and, answered
 * yes, deleted as e2fsck's pass 1D deletes it (the inode cleared; the
 * entries naming it go in the next round, as in e2fsck's pass 2).
 */
static errcode_t delete_dup_file(void *arg, ext2_ino_t ino, errcode_t why, int *deleted)
{
	struct round *rd = arg;
	struct check_result *r = rd->c->res;
	size_t n = r->count;
	errcode_t err = settle(rd->c, rd->first, E4R_PR_DUP_CLONE_FAILED, ino, E4R_NONE, (uint64_t)why,
			       rd->fixed);

	*deleted = !err && r->count > n && r->findings[n].fixed;
	return err;
}

/*
 * Allocating repairs trust the bitmaps: not while a known bitmap error is
 * left. The clones of multiply-claimed blocks all together, then the late
 * repairs, then what they changed compared again (settle_round).
 */
static errcode_t round_clones_late(struct round *rd)
{
	struct check_ctx *c = rd->c;
	struct check_result *r = c->res;
	struct repair_plan *plan = &rd->plan;
	errcode_t err;
	size_t i;

	if (plan->summaries_declined)
		return 0;
	if (plan->ndups) {
		unsigned cloned = 0;
		struct check_finding *v = malloc(plan->ndups * sizeof(*v));

		if (!v)
			return ENOMEM;
		for (i = 0; i < plan->ndups; i++)
			v[i] = r->findings[plan->dups[i]];
		err = repair_dups(c, v, plan->ndups, &cloned, delete_dup_file, rd);
		for (i = 0; i < plan->ndups && !err; i++) {
			struct check_finding *f = &r->findings[plan->dups[i]];

			if (v[i].deferred)
				defer(c, f, 1);
			else if (v[i].fixed)
				count_fixed(c, f, rd->fixed);
		}
		free(v);
		if (err)
			return err;
	}
	/* in the order found: pass 3 reports a missing root before what hangs from it */
	for (i = 0; i < plan->nlate; i++) {
		errcode_t e = fix_one(c, rd->first, plan->late[i]);

		if (util_no_memory(e))
			return e;
		if (!e)
			count_fixed(c, &r->findings[plan->late[i]], rd->fixed);
	}
	return settle_round(c, rd->first, rd->fixed);
}

/*
 * The round's repairs counted. The next round checks what is in memory
 * against the checksums: bitmaps changed by allocations are written
 * (their checksums go into the descriptors), and the superblock's
 * checksum follows.
 */
static errcode_t round_totals(struct round *rd)
{
	struct check_ctx *c = rd->c;
	errcode_t err = 0;

	if (!*rd->fixed)
		return 0;
	round_written(c, *rd->fixed);
	if (c->fs->block_map && c->fs->inode_map && !rd->plan.summaries_declined)
		err = repair_write_bitmaps(c->fs);
	ext2fs_superblock_csum_set(c->fs, c->fs->super);
	return err;
}

/*
 * One round's repairs, phase by phase (each says why it comes where it
 * does). A phase may end the round (rd.over), and an error ends it.
 */
static errcode_t round_repairs(struct check_ctx *c, size_t first, unsigned *fixed)
{
	static errcode_t (*const phases[])(struct round *) = {
		round_restore,		/* journal copies of damaged blocks */
		round_checks,		/* what stops the round before its own repairs */
		round_alone,		/* a repair made alone ends the round */
		round_move_bitmaps,	/* misplaced bitmaps move before anything writes */
		round_map_waits,	/* what waits for a directory's map to be mended */
		round_first,		/* what the others need sound */
		round_in_order,		/* the rest, made or planned in the order found */
		round_summaries,	/* bitmaps, counts and checksums rebuilt */
		round_clones_late,	/* what allocates: clones, then the late repairs */
		round_totals,		/* counted, and the bitmaps written */
	};
	struct round rd = { .c = c, .first = first, .fixed = fixed };
	errcode_t err = 0;
	size_t i;

	*fixed = 0;
	for (i = 0; i < sizeof(phases) / sizeof(phases[0]) && !err && !rd.over; i++)
		err = phases[i](&rd);
	free(rd.maps);
	free(rd.cut);
	check_keys_free(&rd.to_map);
	free(rd.plan.late);
	free(rd.plan.dups);
	return err;
}

errcode_t repair_round(struct check_ctx *c, size_t first, unsigned *fixed)
{
	struct repair_alloc a;
	errcode_t err;

	repair_alloc_begin(c, &a);
	err = round_repairs(c, first, fixed);
	repair_alloc_end(&a);
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
void repair_finish(ext2_filsys fs, struct check_result *r)
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
