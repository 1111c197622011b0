/*
 * jbd_failures_next over hand-made scans: every failing object is listed
 * once, in the order e2fsck meets them (descriptor tails, then each revoke
 * block's tail then its count, the tags, the commit), a revoke block with a
 * bad tail and a bad count counts twice, and the commit of a transaction
 * that is not committed (the stale one a log ends at) is not listed.
 */
#include "config.h"

#include <string.h>

#include "jbd/failure.h"
#include "unit.h"

static const struct jbd_csum ok = { JBD_CSUM_OK, 1, 1 }, bad = { JBD_CSUM_BAD, 1, 2 }, na = { JBD_CSUM_NA, 0, 0 };

struct fixture {
	struct jbd_scan_desc	descs[2];
	struct jbd_scan_revoke	revokes[3];
	struct jbd_scan_block	blocks[3];
	struct jbd_scan_txn	txn;
	struct jbd_scan		s;
};

/* Descriptor 1 and block 2 fail; revoke 0 has both a bad tail and a bad count, revoke 2 only a bad count. */
static void build(struct fixture *f, int committed, struct jbd_csum commit)
{
	memset(f, 0, sizeof(*f));
	f->descs[0] = (struct jbd_scan_desc){ .jblk = 10, .ntags = 3, .tail = ok };
	f->descs[1] = (struct jbd_scan_desc){ .jblk = 14, .ntags = 0, .tail = bad };
	f->revokes[0] = (struct jbd_scan_revoke){ .jblk = 15, .count_bad = 1, .tail = bad };
	f->revokes[1] = (struct jbd_scan_revoke){ .jblk = 16, .tail = ok };
	f->revokes[2] = (struct jbd_scan_revoke){ .jblk = 17, .count_bad = 1, .tail = na };
	for (unsigned i = 0; i < 3; i++)
		f->blocks[i] = (struct jbd_scan_block){ .fs_block = 100 + i, .jblk = 11 + i, .desc_jblk = 10,
							.csum = i == 2 ? bad : ok };
	f->txn = (struct jbd_scan_txn){ .sequence = 7, .first_jblk = 10,
					.descs = f->descs, .ndescs = 2, .blocks = f->blocks, .nblocks = 3,
					.revokes = f->revokes, .nrevokes = 3,
					.committed = committed, .commit_jblk = 18, .commit_csum = commit };
	f->s.txns = &f->txn;
	f->s.ntxns = f->s.nlive = 1;
}

struct want {
	enum jbd_failure_kind	kind;
	unsigned		index;
	uint32_t		jblk;
};

static void expect(const struct jbd_scan *s, unsigned what, const struct want *w, unsigned n)
{
	struct jbd_failure_iter it;
	struct jbd_failure f;
	unsigned i = 0;

	jbd_failures_init(&it, s, 0, what);
	while (jbd_failures_next(&it, &f)) {
		if (i < n) {
			CHECK_EQ(f.kind, w[i].kind);
			CHECK_EQ(f.index, w[i].index);
			CHECK_EQ(f.jblk, w[i].jblk);
			CHECK_EQ(f.sequence, 7);
			CHECK_EQ(f.txn, 0);
			CHECK(f.kind == JBD_FAIL_REVOKE_COUNT ? f.csum == NULL : f.csum && jbd_csum_bad(f.csum));
			if (f.kind == JBD_FAIL_BLOCK)
				CHECK_EQ(f.fs_block, 100 + f.index);
		}
		i++;
	}
	CHECK_EQ(i, n);
	/* Done stays done. */
	CHECK(!jbd_failures_next(&it, &f));
	CHECK_EQ(jbd_txn_failures(s, 0, what), n);
}

int main(void)
{
	static const struct want all[] = {
		{ JBD_FAIL_DESC_TAIL, 1, 14 },
		{ JBD_FAIL_REVOKE_TAIL, 0, 15 },
		{ JBD_FAIL_REVOKE_COUNT, 0, 15 },
		{ JBD_FAIL_REVOKE_COUNT, 2, 17 },
		{ JBD_FAIL_BLOCK, 2, 13 },
		{ JBD_FAIL_COMMIT, 0, 18 },
	};
	static const struct want txn_level[] = {
		{ JBD_FAIL_DESC_TAIL, 1, 14 },
		{ JBD_FAIL_REVOKE_TAIL, 0, 15 },
		{ JBD_FAIL_REVOKE_COUNT, 0, 15 },
		{ JBD_FAIL_REVOKE_COUNT, 2, 17 },
		{ JBD_FAIL_COMMIT, 0, 18 },
	};
	static const struct want blocks[] = { { JBD_FAIL_BLOCK, 2, 13 } };
	struct fixture f;

	build(&f, 1, bad);
	expect(&f.s, JBD_FAILS_ALL, all, 6);
	expect(&f.s, JBD_FAILS_TXN, txn_level, 5);
	expect(&f.s, JBD_FAILS_BLOCKS, blocks, 1);

	/* The stale transaction: its commit was read and fails, but it closes nothing. */
	build(&f, 0, bad);
	expect(&f.s, JBD_FAILS_ALL, all, 5);

	/* A good commit is no failure. */
	build(&f, 1, ok);
	expect(&f.s, JBD_FAILS_TXN, txn_level, 4);

	/* Nothing fails: nothing listed. */
	build(&f, 1, ok);
	f.descs[1].tail = ok;
	f.revokes[0].tail = ok;
	f.revokes[0].count_bad = 0;
	f.revokes[2].count_bad = 0;
	f.blocks[2].csum = na;
	expect(&f.s, JBD_FAILS_ALL, NULL, 0);
	return unit_done("test_jbd_failure");
}
