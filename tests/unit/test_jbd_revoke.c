/*
 * Unit test: the revoke table (lib/jbd/revoke.c) against a direct reading of
 * the records: a block logged in transaction SEQ is revoked when a loaded
 * transaction with an ID >= SEQ (in wrapping order) revokes it, and the
 * revoker given is the newest such ID. Seeded random logs whose IDs wrap past
 * 2^32 (so that IDs 0xffffffff and 0 both occur), with repeated records,
 * revoke blocks with a bad count (they contribute nothing), and unloaded
 * transactions; plus many distinct blocks, so that the hash grows.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "jbd/revoke.h"
#include "unit.h"

static unsigned seed = 20261205;

static unsigned rnd(unsigned n)
{
	seed = seed * 1103515245 + 12345;
	return (seed >> 8) % n;
}

static int use_txn(void *arg, unsigned t)
{
	return ((const unsigned char *)arg)[t];
}

/* The answer read straight from the records. */
static int oracle(const struct jbd_scan *s, const unsigned char *used, uint64_t blk, uint32_t seq,
		  uint32_t *revoker)
{
	int found = 0;
	uint32_t newest = 0;

	for (unsigned t = 0; t < s->nlive; t++) {
		const struct jbd_scan_txn *x = &s->txns[t];
		if (!used[t])
			continue;
		for (unsigned r = 0; r < x->nrevokes; r++) {
			if (x->revokes[r].count_bad)
				continue;
			for (unsigned i = 0; i < x->revokes[r].count; i++)
				if (x->revoked[x->revokes[r].first + i] == blk &&
				    (!found || jbd_tid_lt(newest, x->sequence))) {
					newest = x->sequence;
					found = 1;
				}
		}
	}
	if (!found || jbd_tid_lt(newest, seq))
		return 0;
	*revoker = newest;
	return 1;
}

static uint64_t pick_block(unsigned spread)
{
	/* small numbers, and some past 2^32 (64-bit journals) */
	uint64_t b = 1000 + rnd(spread);
	return rnd(4) ? b : b | (1ull << 40);
}

static void one_log(unsigned ntxns, unsigned spread, unsigned per_block, uint32_t first_seq)
{
	struct jbd_scan s = { 0 };
	struct jbd_revoke_table rt;
	unsigned char *used = calloc(ntxns, 1);
	unsigned mismatches = 0;

	s.txns = calloc(ntxns, sizeof(*s.txns));
	s.ntxns = s.nlive = ntxns;
	for (unsigned t = 0; t < ntxns; t++) {
		struct jbd_scan_txn *x = &s.txns[t];
		unsigned nblocks = 1 + rnd(3);

		x->sequence = first_seq + t;
		x->committed = 1;
		used[t] = rnd(5) != 0;
		x->revokes = calloc(nblocks, sizeof(*x->revokes));
		x->revoked = calloc((size_t)nblocks * per_block, sizeof(*x->revoked));
		x->nrevokes = nblocks;
		for (unsigned r = 0; r < nblocks; r++) {
			struct jbd_scan_revoke *rb = &x->revokes[r];
			rb->first = x->nrevoked;
			rb->count = 1 + rnd(per_block);
			rb->count_bad = rnd(10) == 0;
			for (unsigned i = 0; i < rb->count; i++)
				x->revoked[x->nrevoked++] = pick_block(spread);
		}
	}
	CHECK_EQ(jbd_revoke_build(&s, use_txn, used, &rt), 0);
	for (unsigned q = 0; q < 20000; q++) {
		uint64_t blk = pick_block(spread + 50);
		uint32_t seq = first_seq + rnd(ntxns + 4) - 2, want = 0, got = 0;
		int w = oracle(&s, used, blk, seq, &want);
		int g = jbd_revoke_test(&rt, blk, seq, &got);

		if (w != g || (w && want != got))
			mismatches++;
	}
	CHECK_EQ(mismatches, 0);
	/* one entry per distinct block of the loaded transactions */
	for (size_t i = 1; i < rt.n; i++)
		CHECK(rt.e[i - 1].blk < rt.e[i].blk);
	jbd_revoke_free(&rt);
	for (unsigned t = 0; t < ntxns; t++) {
		free(s.txns[t].revokes);
		free(s.txns[t].revoked);
	}
	free(s.txns);
	free(used);
}

int main(void)
{
	struct jbd_scan empty = { 0 };
	struct jbd_revoke_table rt;

	CHECK_EQ(jbd_revoke_build(&empty, use_txn, NULL, &rt), 0);
	CHECK_EQ(rt.n, 0);
	CHECK_EQ(jbd_revoke_test(&rt, 5, 1, NULL), 0);

	one_log(40, 300, 50, 1);		/* many repeats of few blocks */
	one_log(40, 300, 50, 0xfffffff0u);	/* IDs wrap: 0xffffffff, then 0 */
	one_log(20, 200000, 3000, 7);		/* many distinct blocks: the hash grows */
	return unit_done("test_jbd_revoke");
}
