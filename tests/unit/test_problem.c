/*
 * Unit test: the problem table and the repairs agree. A row the table marks
 * fixable (an answer to ask) must name a repair the round can make, and a
 * row that names a repair must be fixable; every repair routine is named by
 * some row, and each phase has the kind of routine it runs. The flags the
 * round reads agree with the routine, phase or pass they follow from.
 */
#include "config.h"

#include <stdio.h>

#include "check/problem.h"
#include "repair/repair.h"
#include "unit.h"

/*
 * Row P's flags for the repair round agree with what each follows from:
 * the routine that makes the move or the change, the phase it needs, the
 * pass whose counts it names.
 */
static void check_round_flags(const struct check_problem_info *p)
{
	unsigned fl = p->flags;
	int failures = unit_failures;

	/* the routines that give a bitmap or a table new blocks, and when they run */
	CHECK_EQ(!!(fl & E4R_PF_MOVES_BITMAP), p->fix == E4R_FIX_RELOCATE_BITMAP);
	CHECK_EQ(!!(fl & E4R_PF_MOVES_TABLE), p->fix == E4R_FIX_ITABLE_NEW);
	if (fl & E4R_PF_MOVES_BITMAP)
		CHECK_EQ(p->phase, E4R_PHASE_NOW_REBUILD);
	if (fl & E4R_PF_MOVES_TABLE)
		CHECK_EQ(p->phase, E4R_PHASE_ALONE);
	/* a bitmap over other metadata is one that moves */
	if (fl & E4R_PF_OVERLAP)
		CHECK(fl & E4R_PF_MOVES_BITMAP);
	/*
	 * The routines that take blocks from an inode (a trim of its map, its
	 * xattr block detached), and those that change where its blocks are
	 * (a trim, the clone of shared blocks, the inode cleared, the inline
	 * data flag cleared off an extent tree: i_block read as a map, no
	 * longer as entries).
	 */
	CHECK_EQ(!!(fl & E4R_PF_DROPS_BLOCKS),
		 p->fix == E4R_FIX_BLOCK_MAP || p->fix == E4R_FIX_EA_CLEAR);
	CHECK_EQ(!!(fl & E4R_PF_REMAPS), p->fix == E4R_FIX_BLOCK_MAP || p->fix == E4R_FIX_CLONE ||
		 p->fix == E4R_FIX_INODE_CLEAR || p->code == E4R_PR_INLINE_FLAG_EXTENTS);
	/*
	 * A count over an inode's blocks is pass 1's, mended in the inode; usage
	 * over all inodes is the quota file's, mended by rewriting it. Never both.
	 */
	if (fl & E4R_PF_COUNTS_MAP) {
		CHECK_EQ(p->pass, E4R_PASS_INODES);
		CHECK_EQ(p->fix, E4R_FIX_INODE);
	}
	if (fl & E4R_PF_COUNTS_USAGE)
		CHECK_EQ(p->fix, E4R_FIX_QUOTA_REWRITE);
	CHECK((fl & (E4R_PF_COUNTS_MAP | E4R_PF_COUNTS_USAGE)) !=
	      (E4R_PF_COUNTS_MAP | E4R_PF_COUNTS_USAGE));
	/* an entry that is no link is one pass 2 reports and whose repair clears it */
	if (fl & E4R_PF_NOT_LINK) {
		CHECK_EQ(p->pass, E4R_PASS_DIRS);
		CHECK_EQ(p->fix, E4R_FIX_DIR_ENTRY);
		CHECK_EQ(p->answer, E4R_ANS_CLEAR);
	}
	/* the routine that gives a file an entry in lost+found */
	CHECK_EQ(!!(fl & E4R_PF_RECONNECTS), p->fix == E4R_FIX_RECONNECT_FILE);
	/* a descriptor's checksum: pass 0's, set again by the rebuild of the summaries */
	if (fl & E4R_PF_HIDES_INODES) {
		CHECK_EQ(p->pass, E4R_PASS_SUPER);
		CHECK_EQ(p->fix, E4R_FIX_SUMMARIES);
	}
	/*
	 * Asked first, it is made by its own routine at once, with no rebuild
	 * planned after; not asked, in the order found: a phase of its own
	 * would make it a second time.
	 */
	if (fl & E4R_PF_ASK_FIRST)
		CHECK_EQ(p->phase, E4R_PHASE_NOW);
	if (unit_failures != failures)
		fprintf(stderr, "row %s: its flags disagree with its repair\n", p->name);
}

static void check_rows(int *named)
{
	int i;

	for (i = 0; i < E4R_PR_COUNT; i++) {
		const struct check_problem_info *p = check_problem_info(i);
		int fixable, has_fix;

		CHECK(p != NULL);
		if (!p)
			continue;
		fixable = check_problem_fixable(i);
		has_fix = p->fix != E4R_FIX_NONE;
		if (fixable != has_fix)
			fprintf(stderr, "row %s: fixable %d, repair %d\n", p->name, fixable, p->fix);
		CHECK_EQ(fixable, has_fix);
		CHECK_EQ(has_fix, p->phase != E4R_PHASE_NONE);
		CHECK(p->fix < E4R_FIX_COUNT);
		check_round_flags(p);
		if (!has_fix || p->fix >= E4R_FIX_COUNT)
			continue;
		named[p->fix] = 1;
		CHECK(check_problem_question(i) != NULL);
		if (!repair_fix_known(p->fix))
			fprintf(stderr, "row %s: repair %d has no routine\n", p->name, p->fix);
		CHECK(repair_fix_known(p->fix));
		/* the batch repairs run in their own phase; every other phase calls a routine */
		CHECK_EQ(p->fix == E4R_FIX_CLONE, p->phase == E4R_PHASE_CLONE);
		if (p->fix == E4R_FIX_SUMMARIES)
			CHECK_EQ(p->phase, E4R_PHASE_SUMMARY);
		if (p->phase != E4R_PHASE_SUMMARY && p->phase != E4R_PHASE_CLONE)
			CHECK(repair_fix_fn(p->fix) != NULL);
	}
}

int main(void)
{
	int named[E4R_FIX_COUNT] = { 0 };
	int f;

	check_rows(named);
	/* no routine without a row, and the names outside the range have none */
	for (f = E4R_FIX_NONE + 1; f < E4R_FIX_COUNT; f++) {
		if (!named[f])
			fprintf(stderr, "repair %d is named by no row\n", f);
		CHECK(named[f]);
		CHECK(repair_fix_known(f));
	}
	CHECK(repair_fix_fn(E4R_FIX_NONE) == NULL);
	CHECK(!repair_fix_known(E4R_FIX_NONE));
	CHECK(!repair_fix_known(E4R_FIX_COUNT));
	CHECK(!repair_fix_known((enum check_fix)-1));
	return unit_done("test_problem");
}
