/* Proving that a failed transaction is wholly superseded by later committed ones. */
#include "config.h"

#include <stdlib.h>

#include "replay/supersede.h"
#include "jbd/failure.h"
#include "jbd/revoke.h"
#include "util/sorted.h"

/*
 * Why leaving a superseded transaction T out writes exactly what replaying
 * an intact T would.
 *
 * A replay writes, for every home block, the newest logged version that no
 * revoke record of an equal or newer transaction covers; nothing else of a
 * transaction reaches the filesystem. So T's part in the result is (a) the
 * versions it logs and (b) its revoke records. Take the transactions after T
 * up to, not including, the next one with a failure of its own at the
 * transaction level (a policy may stop there; these are all replayed when T
 * is skipped, and none of them depends on T's checksum).
 *
 * (a) If one of them logs home block B again, with a copy whose own
 * checksum holds, that copy is newer than T's and wins over it whether T is
 * replayed or not; if a revoke in one of them covers B, it covers T's older
 * copy too. Either way T's copy of B never reaches the disk.
 *
 * (b) A revoke record of T for block Y only ever hides versions of Y from T
 * and earlier transactions. Leaving it out changes the result only when an
 * earlier transaction logs Y and nothing later logs Y again or revokes it:
 * then that earlier copy would come back. We require that not to happen.
 *
 * Ordering. JBD2 makes no promise about blocks outside the journal beyond
 * this: with data=ordered, a transaction's file data reaches its home
 * before the transaction commits, and only metadata is logged; with
 * data=journal the data is logged like metadata; with data=writeback there
 * is no order at all. The data T's metadata points to is therefore already
 * home (ordered) or logged (journal) whether we replay T or not, and the
 * later copies of T's metadata blocks are whole blocks: each one holds T's
 * changes to that block plus whatever came after (a transaction logs the
 * block as it is at its commit, never a delta). Metadata blocks T does not
 * log are not touched by T's replay at all. The one ordering JBD2 does
 * carry in the log is the revoke: a metadata block freed in T and reused
 * for file data (written in place, unlogged, under ordered mode) must not
 * get an older logged copy back over that data; that is exactly (b). So no
 * block's final content depends on T's replay once (a) and (b) hold: there
 * is no ordering left to satisfy.
 *
 * Which blocks T logs and revokes comes from its descriptor and revoke
 * blocks, so those must be trustworthy: in v2/v3 each carries its own
 * checksum, which must hold. A v1 checksum covers the descriptors and the
 * data together, and a failure does not say which one is damaged: the home
 * block numbers are then unverified and nothing can be proven.
 */

static int txn_level_failure(const struct jbd_scan *s, unsigned t)
{
	return jbd_txn_failures(s, t, JBD_FAILS_TXN) != 0;
}

/* The first committed live transaction after T with a transaction-level failure, or nlive. */
static unsigned counted_limit(const struct jbd_scan *s, unsigned t)
{
	for (unsigned u = t + 1; u < s->nlive; u++)
		if (s->txns[u].committed && txn_level_failure(s, u))
			return u;
	return s->nlive;
}

/*
 * A sorted set of home blocks, each with the newest transaction that
 * contributes it: built once per question, so that a journal of many
 * blocks and revoke records costs n log n, not n squared.
 */
struct blkset {
	struct blkseq { uint64_t blk; uint32_t seq; } *e;
	size_t n;
};

static int cmp_blkseq(const void *a, const void *b)
{
	const struct blkseq *x = a, *y = b;

	return x->blk < y->blk ? -1 : x->blk > y->blk;
}

static errcode_t set_add(struct blkset *set, size_t *cap, uint64_t blk, uint32_t seq)
{
	if (set->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		void *p = realloc(set->e, ncap * sizeof(*set->e));
		if (!p)
			return EXT2_ET_NO_MEMORY;
		set->e = p;
		*cap = ncap;
	}
	set->e[set->n++] = (struct blkseq){ blk, seq };
	return 0;
}

/* What committed transactions FIRST .. LIMIT-1 contribute: logged blocks (good copies only, if
 * GOOD), or revoked blocks (REVOKES). */
enum { SET_LOGGED, SET_LOGGED_GOOD, SET_REVOKED };

static errcode_t set_build(const struct jbd_scan *s, unsigned first, unsigned limit, int what,
			   struct blkset *set)
{
	size_t cap = 0;
	errcode_t err = 0;

	set->e = NULL;
	set->n = 0;
	for (unsigned u = first; u < limit && !err; u++) {
		const struct jbd_scan_txn *x = &s->txns[u];
		if (!x->committed)
			continue;
		if (what != SET_REVOKED) {
			for (unsigned b = 0; b < x->nblocks && !err; b++)
				if (what == SET_LOGGED || !jbd_csum_bad(&x->blocks[b].csum))
					err = set_add(set, &cap, x->blocks[b].fs_block, x->sequence);
			continue;
		}
		for (unsigned r = 0; r < x->nrevokes && !err; r++) {
			const struct jbd_scan_revoke *rv = &x->revokes[r];
			if (rv->count_bad)
				continue;	/* contributes nothing to a replay either */
			for (unsigned i = rv->first; i < rv->first + rv->count && i < x->nrevoked && !err; i++)
				err = set_add(set, &cap, x->revoked[i], x->sequence);
		}
	}
	if (!err && set->n)
		qsort(set->e, set->n, sizeof(*set->e), cmp_blkseq);
	return err;
}

/* 1 when BLK is in SET; *SEQ gets the newest transaction contributing it. */
static int set_find(const struct blkset *set, uint64_t blk, uint32_t *seq)
{
	size_t lo = util_lower_bound(UTIL_SORTED(set->e, set->n, blk), blk);
	int found = 0;

	for (; lo < set->n && set->e[lo].blk == blk; lo++) {
		if (!found || jbd_tid_lt(*seq, set->e[lo].seq))
			*seq = set->e[lo].seq;
		found = 1;
	}
	return found;
}

static void note_seq(struct replay_supersede *out, uint32_t seq)
{
	if (!out->last_sequence || jbd_tid_lt(out->last_sequence, seq))
		out->last_sequence = seq;
}

static int records_trusted(const struct jbd_scan_txn *x, struct replay_supersede *out)
{
	for (unsigned d = 0; d < x->ndescs; d++)
		if (x->descs[d].tail.state != JBD_CSUM_OK) {
			out->why = REPLAY_SUP_TAGS;
			return 0;
		}
	for (unsigned r = 0; r < x->nrevokes; r++)
		if (x->revokes[r].tail.state != JBD_CSUM_OK || x->revokes[r].count_bad) {
			out->why = REPLAY_SUP_REVOKE_RECORDS;
			return 0;
		}
	return 1;
}

/*
 * (a): every block of X that a replay could write is logged again (RELOGGED)
 * or revoked by X itself or a later one (REVOKED_FROM_X).
 */
static int blocks_superseded(const struct jbd_scan_txn *x, uint64_t fs_blocks, const struct blkset *relogged,
			     const struct blkset *revoked_from_x, struct replay_supersede *out)
{
	uint32_t seq;

	for (unsigned b = 0; b < x->nblocks; b++) {
		uint64_t blk = x->blocks[b].fs_block;
		if (blk >= fs_blocks)
			continue;	/* never written by any replay */
		if (set_find(relogged, blk, &seq) || set_find(revoked_from_x, blk, &seq)) {
			note_seq(out, seq);
			continue;
		}
		out->why = REPLAY_SUP_BLOCK;
		out->fs_block = blk;
		return 0;
	}
	return 1;
}

/* (b): no revoke record of X hides an earlier copy that nothing later replaces or revokes. */
static int revokes_kept(const struct jbd_scan_txn *x, const struct blkset *before, const struct blkset *relogged,
			const struct blkset *revoked_later, struct replay_supersede *out)
{
	uint32_t seq;

	for (unsigned i = 0; i < x->nrevoked; i++) {
		uint64_t blk = x->revoked[i];
		if (!set_find(before, blk, &seq))
			continue;	/* the record hides nothing */
		if (set_find(relogged, blk, &seq) || set_find(revoked_later, blk, &seq)) {
			note_seq(out, seq);
			continue;
		}
		out->why = REPLAY_SUP_REVOKE;
		out->fs_block = blk;
		return 0;
	}
	return 1;
}

errcode_t replay_supersede_check(const struct jbd_journal *j, const struct jbd_scan *s, unsigned txn,
				 uint64_t fs_blocks, struct replay_supersede *out)
{
	const struct jbd_scan_txn *x = &s->txns[txn];
	struct blkset relogged = { 0 }, revoked_from_x = { 0 }, revoked_later = { 0 }, before = { 0 };
	unsigned limit;
	errcode_t err;

	*out = (struct replay_supersede){ .why = REPLAY_SUPERSEDED };
	if (j->csum == JBD_CSUM_NONE) {
		out->why = REPLAY_SUP_NO_CHECKSUMS;
		return 0;
	}
	if (j->csum == JBD_CSUM_V1) {
		out->why = REPLAY_SUP_V1_TAGS;
		return 0;
	}
	if (!records_trusted(x, out))
		return 0;
	limit = counted_limit(s, txn);
	if (limit < s->nlive) {
		out->has_limit = 1;
		out->limit_sequence = s->txns[limit].sequence;
	}
	err = set_build(s, txn + 1, limit, SET_LOGGED_GOOD, &relogged);
	if (!err)
		err = set_build(s, txn, limit, SET_REVOKED, &revoked_from_x);
	if (!err)
		err = set_build(s, txn + 1, limit, SET_REVOKED, &revoked_later);
	if (!err && x->nrevoked)
		err = set_build(s, 0, txn, SET_LOGGED, &before);
	if (!err && blocks_superseded(x, fs_blocks, &relogged, &revoked_from_x, out))
		revokes_kept(x, &before, &relogged, &revoked_later, out);
	free(relogged.e);
	free(revoked_from_x.e);
	free(revoked_later.e);
	free(before.e);
	if (err)
		out->why = REPLAY_SUP_UNCHECKED;
	return err;
}

errcode_t replay_supersede_all(const struct jbd_journal *j, const struct jbd_scan *s,
			       struct replay_supersede **out)
{
	uint64_t fs_blocks = ext2fs_blocks_count(j->fs->super);
	struct replay_supersede *sup;
	errcode_t err = 0;

	*out = NULL;
	sup = calloc(s->ntxns ? s->ntxns : 1, sizeof(*sup));
	if (!sup)
		return EXT2_ET_NO_MEMORY;
	for (unsigned t = 0; t < s->nlive && !err; t++)
		if (s->txns[t].committed && txn_level_failure(s, t))
			err = replay_supersede_check(j, s, t, fs_blocks, &sup[t]);
	if (err) {
		free(sup);
		return err;
	}
	*out = sup;
	return 0;
}

const char *replay_supersede_name(enum replay_supersede_why w)
{
	switch (w) {
	case REPLAY_SUP_UNCHECKED:	return "unchecked";
	case REPLAY_SUPERSEDED:		return "superseded";
	case REPLAY_SUP_V1_TAGS:	return "v1_tags_unverified";
	case REPLAY_SUP_TAGS:		return "descriptor_checksum_bad";
	case REPLAY_SUP_REVOKE_RECORDS:	return "revoke_block_bad";
	case REPLAY_SUP_BLOCK:		return "block_not_relogged";
	case REPLAY_SUP_REVOKE:		return "revoke_would_be_lost";
	case REPLAY_SUP_NO_CHECKSUMS:	return "no_checksums";
	}
	return "?";
}
