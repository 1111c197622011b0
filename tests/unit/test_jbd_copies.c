/*
 * jbd_copies: the index of a journal's copies of filesystem blocks,
 * built from a scan made by hand: its order (by block, newest first, across a
 * sequence wrap), what makes a copy unusable (no commit, a bad tag, descriptor
 * tail or commit checksum, a later revoke), and the lookup.
 */
#include "config.h"

#include <string.h>

#include "jbd/copies.h"
#include "unit.h"

static struct jbd_scan_block blocks[4][3];
static struct jbd_scan_desc descs[4];
static uint64_t revoked[1] = { 500 };

/* Transaction I: sequence SEQ, the blocks BLK[0..n), committed or not. */
static void txn(struct jbd_scan_txn *t, unsigned i, uint32_t seq, const uint64_t *blk, unsigned n,
		int committed, int old)
{
	memset(t, 0, sizeof(*t));
	t->sequence = seq;
	t->old = old;
	t->committed = committed;
	t->commit_sec = 1000 + seq;
	t->commit_csum.state = JBD_CSUM_OK;
	descs[i].tail.state = JBD_CSUM_OK;
	t->descs = &descs[i];
	t->ndescs = 1;
	for (unsigned k = 0; k < n; k++) {
		blocks[i][k] = (struct jbd_scan_block){ .fs_block = blk[k], .jblk = 10 * i + k + 2,
							.desc = 0, .csum = { .state = JBD_CSUM_OK } };
	}
	t->blocks = blocks[i];
	t->nblocks = n;
}

int main(void)
{
	struct jbd_scan_txn t[4];
	struct jbd_scan s = { .txns = t, .ntxns = 4, .nlive = 2 };
	struct jbd_copies *c = NULL;
	size_t first, count;
	/* sequences wrap: 0xfffffffe and 0xffffffff are older than 1 and 2 */
	const uint64_t b0[] = { 100, 500 }, b1[] = { 100, 200 }, b2[] = { 100, 300 }, b3[] = { 100, 200, 400 };

	txn(&t[0], 0, 1, b0, 2, 1, 0);
	txn(&t[1], 1, 2, b1, 2, 0, 0);			/* live, not committed */
	txn(&t[2], 2, 0xfffffffe, b2, 2, 1, 1);
	txn(&t[3], 3, 0xffffffff, b3, 3, 1, 1);
	blocks[3][2].csum.state = JBD_CSUM_BAD;		/* 400: its tag checksum fails */
	descs[2].tail.state = JBD_CSUM_BAD;		/* 300 (and 100 of that transaction): a bad tail */
	/* an older transaction revokes 500: that does not make 1's copy stale ... */
	t[3].revoked = revoked;
	t[3].nrevoked = 1;
	/* ... a later one does */
	t[1].revoked = revoked;
	t[1].nrevoked = 1;
	t[1].committed = 1;
	t[1].commit_csum.state = JBD_CSUM_BAD;		/* 2's commit fails: its blocks and revoke too */

	CHECK_EQ(jbd_copies_build(&s, &c), 0);
	CHECK_EQ(c->n, 9);
	for (size_t i = 1; i < c->n; i++)
		CHECK(c->v[i - 1].fs_block <= c->v[i].fs_block);

	jbd_copies_find(c, 100, &first, &count);
	CHECK_EQ(count, 4);
	CHECK_EQ(c->v[first].sequence, 2);		/* newest first, across the wrap */
	CHECK_EQ(c->v[first + 1].sequence, 1);
	CHECK_EQ(c->v[first + 2].sequence, 0xffffffff);
	CHECK_EQ(c->v[first + 3].sequence, 0xfffffffe);
	CHECK(!c->v[first].csum_ok);			/* a bad commit checksum */
	CHECK(c->v[first].live);
	CHECK(c->v[first + 1].csum_ok && c->v[first + 1].live);
	CHECK_EQ(c->v[first + 1].commit_sec, 1001);
	CHECK(c->v[first + 2].csum_ok && !c->v[first + 2].live);
	CHECK(!c->v[first + 3].csum_ok);		/* a bad descriptor tail */

	jbd_copies_find(c, 400, &first, &count);
	CHECK_EQ(count, 1);
	CHECK(!c->v[first].csum_ok);

	/* 500 of transaction 1: revoked by 2, a later committed transaction (0xffffffff's revoke
	   is older and does not count): the copy is stale */
	jbd_copies_find(c, 500, &first, &count);
	CHECK_EQ(count, 1);
	CHECK(c->v[first].revoked);
	CHECK_EQ(c->v[first].jblk, 3);

	jbd_copies_find(c, 250, &first, &count);
	CHECK_EQ(count, 0);
	CHECK_EQ(c->v[first].fs_block, 300);		/* where it would be: the next block */
	jbd_copies_find(c, 999, &first, &count);
	CHECK_EQ(count, 0);
	CHECK_EQ(first, c->n);

	jbd_copies_free(c);
	return unit_done("test_jbd_copies");
}
