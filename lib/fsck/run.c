/*
 * The whole check of an open filesystem: sets up the state the passes share,
 * runs the passes in order, then (when repairing) the repair rounds until a
 * round fixes nothing. Sits above check/ and repair/: the passes never call it.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "check/ctx.h"
#include "fs/ioerr_io.h"
#include "fs/overlay_io.h"
#include "fsck/commit.h"
#include "repair/repair.h"
#include "fsck/fsck.h"
#include "util/nomem.h"

#define DEFAULT_MAX_FINDINGS	100000
/* Checks in one run with repairs: each fix may uncover the next (a cleared inode frees blocks). */
#define DEFAULT_MAX_ROUNDS	6
/*
 * Rounds after a repair made alone do not count against the limit while
 * each is a new one (on a zeroed descriptor block every group needs its
 * inode table back, one a round; e2fsck makes them all in one pass). The
 * same repair made again counts, and no more than these go free.
 */
#define MAX_ALONE_ROUNDS	64

/* Was a finding like R's finding I (the same problem, object) fixed in an earlier round? */
static int fixed_before(const struct check_result *r, size_t first, size_t i)
{
	const struct check_finding *f = &r->findings[i];
	size_t j;

	for (j = 0; j < first; j++) {
		const struct check_finding *g = &r->findings[j];

		if (g->fixed && check_same_finding(g, f))
			return 1;
	}
	return 0;
}

/*
 * Set the superblock's free block and inode totals to the sums of the group
 * descriptors' counts; 1 when a total changed. Sums past the filesystem's
 * size are damage for the full check, not counts to copy.
 */
static int sum_counts(ext2_filsys fs)
{
	struct ext2_super_block *sb = fs->super;
	uint64_t blocks = 0, inodes = 0;
	dgrp_t g;

	for (g = 0; g < fs->group_desc_count; g++) {
		blocks += ext2fs_bg_free_blocks_count(fs, g);
		inodes += ext2fs_bg_free_inodes_count(fs, g);
	}
	blocks = EXT2FS_C2B(fs, blocks);
	if (blocks > ext2fs_blocks_count(sb) || inodes > sb->s_inodes_count ||
	    (blocks == ext2fs_free_blocks_count(sb) && inodes == sb->s_free_inodes_count))
		return 0;
	ext2fs_free_blocks_count_set(sb, blocks);
	sb->s_free_inodes_count = (uint32_t)inodes;
	ext2fs_mark_super_dirty(fs);
	return 1;
}

/*
 * The round from FIRST could not finish (ERR): nothing of it reaches the
 * disk, which keeps the state before it, marked with errors. Its findings
 * stay, none of them fixed.
 */
static void drop_round(ext2_filsys fs, struct check_result *r, size_t first, unsigned round, errcode_t err)
{
	size_t i;

	for (i = first; i < r->count; i++) {
		struct check_finding *f = &r->findings[i];
		const struct check_problem_info *p = check_problem_info(f->code);

		if (!f->fixed)
			continue;
		f->fixed = 0;
		if (!(p && (p->flags & E4R_PF_UNCOUNTED)) && r->fixed)
			r->fixed--;
	}
	r->left = r->errors;
	fsck_commit_drop_round(fs, r, round + 1, err);
}

/* The passes after the superblock, in order; each sees what the earlier ones left. */
static errcode_t (*const passes[])(struct check_ctx *) = {
	check_inodes, check_dups, check_dirs, check_journal_copies, check_connectivity, check_links, check_bitmaps,
	check_quota, check_orphan_file,
};

/* One check: the passes in order; C stays set up for the repairs that follow. */
static errcode_t check_round(struct check_ctx *c, const struct check_opts *o)
{
	struct check_result *r = c->res;
	errcode_t err;
	size_t i;

	r->errors = 0;
	r->dirs = r->regular = r->symlinks = r->other_files = 0;
	err = check_super(c);
	/* a superblock that stopped the check: nothing sized from it is walked */
	if (!err && !r->aborted && !c->super_only)
		err = check_quota_setup(c);
	if (!err && !r->aborted && !c->super_only)
		err = check_orphan_list(c);
	if (err || c->super_only)
		return err;
	/* After repairs the filesystem is checked fully, whatever its state says. */
	if (c->round == 0 && !(o && o->force) && check_clean_skip(c) == 0 &&
	    r->reason == E4R_REASON_CLEAN_SKIPPED)
		return 0;
	for (i = 0; i < sizeof(passes) / sizeof(passes[0]) && !r->aborted; i++) {
		err = passes[i](c);
		if (util_no_memory(err))
			return err;
		if (err) {
			r->aborted = 1;
			r->abort_err = err;
		}
	}
	return 0;
}

errcode_t fsck_run(ext2_filsys fs, const struct check_opts *o,
			struct check_result **out)
{
	struct check_result *r = calloc(1, sizeof(*r));
	enum check_repair_mode mode = o ? o->repair : E4R_REPAIR_NONE;
	unsigned max_rounds = o && o->max_rounds ? o->max_rounds : DEFAULT_MAX_ROUNDS;
	errcode_t err = 0;
	struct fs_ioerr ioerr;
	int io_failed_before = fs_ioerr_last(NULL);
	/* no room for lost+found: found by one round's repairs, true for the run's others */
	int lpf_no_space = 0;

	*out = NULL;
	if (!r)
		return ENOMEM;
	r->max_findings = o && o->max_findings ? o->max_findings : DEFAULT_MAX_FINDINGS;
	r->inodes_count = fs->super->s_inodes_count;
	r->blocks_count = ext2fs_blocks_count(fs->super);
	for (;;) {
		struct check_ctx c = { 0 };
		size_t first = r->count;
		unsigned fixed = 0;
		int settled, overflow;

		r->round_first = first;

		c.opts = o;
		c.res = r;
		c.round = r->rounds++;
		c.alone_fixed = SIZE_MAX;
		c.lpf_no_space = lpf_no_space;
		err = check_ctx_init(&c, fs);
		if (!err)
			err = check_round(&c, o);
		/*
		 * A read that failed looks to the passes like damage (a zeroed
		 * block): their findings may be the disk's, not the filesystem's,
		 * and no repair may act on them. The check stops with the error.
		 */
		if (!err && !io_failed_before && fs_ioerr_last(&ioerr))
			err = ioerr.err;
		/* out of memory where a pass could not say so: its findings are not the filesystem's */
		if (!err && r->fatal)
			err = r->fatal;
		/* findings over the limit were not repaired: a new check finds them */
		overflow = r->dropped != 0;
		if (!err && r->dropped) {
			/* The findings over the limit: counted, not listed. */
			struct check_finding f = check_finding_init(E4R_PR_TOO_MANY);
			size_t max = r->max_findings;
			f.found = r->dropped;
			r->max_findings = SIZE_MAX;	/* this one always fits */
			check_report(&c, &f);
			r->max_findings = max;
			r->dropped = 0;
		}
		r->left = r->errors;
		if (!err && o && o->checked)
			o->checked(o->checked_arg, r, first);
		/* Repairs run on a complete check only, and stop when one fixed nothing. */
		if (!err && mode != E4R_REPAIR_NONE && !r->aborted &&
		    r->reason != E4R_REASON_CLEAN_SKIPPED)
			err = repair_round(&c, first, &fixed);
		/* a repair's read or write failed: it may have gone on with what it did not read */
		if (!err && !io_failed_before && fs_ioerr_last(&ioerr))
			err = ioerr.err;
		if (!err && r->fatal)
			err = r->fatal;
		/* a cancel that came while the round wrote nothing more still ends it */
		if (!err && mode != E4R_REPAIR_NONE)
			err = fs_overlay_refused();
		/* the round reaches the disk whole (journaled where it can be), or not at all */
		if (!err && mode != E4R_REPAIR_NONE)
			err = fsck_commit_round(fs, &r->commits, 0);
		/* a cancel is what failed, whatever error the refused write became on its way up */
		if (err && mode != E4R_REPAIR_NONE && fs_overlay_refused())
			err = fs_overlay_refused();
		if (err && mode != E4R_REPAIR_NONE && !r->commits.in_log)
			drop_round(fs, r, first, c.round, err);
		/*
		 * Another check only when a repair may have uncovered more: after
		 * closed repairs alone (counts, bitmaps, checksums, flags set to what
		 * this check computed) the filesystem is what the check said it
		 * should be.
		 */
		settled = !c.again && (!fixed || !(c.recheck || overflow));
		if (!err && c.alone_fixed != SIZE_MAX && r->alone_rounds < MAX_ALONE_ROUNDS &&
		    !fixed_before(r, first, c.alone_fixed))
			r->alone_rounds++;
		lpf_no_space = c.lpf_no_space;
		check_ctx_free(&c);
		if (err) {
			/* what was found is the caller's to report; what was dropped is marked */
			if (mode != E4R_REPAIR_NONE) {
				*out = r;
				return err;
			}
			goto fail;
		}
		/*
		 * Clean again after a repair removed the journal: a new one (as
		 * e2fsck makes at the end of its run), and a round to check it.
		 * Without room for it the filesystem stays without a journal.
		 */
		if (settled && r->journal_cleared && !r->left && !r->preen_halt && !r->aborted &&
		    mode != E4R_REPAIR_NONE && r->rounds - r->alone_rounds < max_rounds) {
			errcode_t jerr;

			r->journal_cleared = 0;
			if ((jerr = repair_journal_recreate(fs)) == 0) {
				r->journal_recreated = 1;
				r->fixed++;
				r->written = 1;
				ext2fs_mark_super_dirty(fs);
				settled = 0;
			} else {
				r->journal_recreate_err = jerr;	/* e2fsck says so too, and goes on */
			}
		}
		if (settled || r->preen_halt)
			break;
		/*
		 * Out of rounds while still repairing: what the last round wrote
		 * was never checked, and a fix that does not hold would come back
		 * every round. The run does not call the filesystem mended.
		 */
		if (r->rounds - r->alone_rounds >= max_rounds) {
			r->unsettled = 1;
			break;
		}
	}
	if (mode != E4R_REPAIR_NONE && !r->preen_halt && !r->aborted &&
	    r->reason != E4R_REASON_CLEAN_SKIPPED)
		repair_finish(fs, r);
	/*
	 * A clean filesystem after a crash: the kernel keeps only the groups'
	 * counts exact. Like e2fsck, the superblock's totals are set from them
	 * before "clean" is said (the full check's pass 5 does it otherwise).
	 */
	if (mode != E4R_REPAIR_NONE && r->reason == E4R_REASON_CLEAN_SKIPPED && !r->errors &&
	    (fs->flags & EXT2_FLAG_RW))
		r->totals_set = sum_counts(fs);
	/* The summary line's numbers, from the superblock like e2fsck's (a repair may have set the inode count). */
	r->inodes_count = fs->super->s_inodes_count;
	r->inodes_used = fs->super->s_inodes_count - fs->super->s_free_inodes_count;
	r->blocks_used = ext2fs_blocks_count(fs->super) - ext2fs_free_blocks_count(fs->super);
	*out = r;
	return 0;
fail:
	check_result_free(r);
	return err;
}
