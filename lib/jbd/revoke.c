/*
 * The revoke table: a sorted array of (block, newest revoking transaction),
 * one entry per distinct block. It is gathered in an open-addressing hash
 * keyed by block, so its memory follows the distinct blocks, not the revoke
 * records (a journal may revoke the same blocks millions of times).
 */
#include "config.h"

#include <stdlib.h>

#include "jbd/revoke.h"
#include "util/hashtab.h"

static int cmp_entry(const void *a, const void *b)
{
	const struct jbd_revoke_entry *x = a, *y = b;

	return x->blk < y->blk ? -1 : x->blk > y->blk;
}

/* The hash while the table is gathered. */
struct revoke_slot {
	uint64_t	blk;
	uint32_t	seq;
	uint32_t	used;
};

struct revoke_hash {
	struct revoke_slot	*slot;
	size_t			nslots;	/* a power of two, or 0 */
	size_t			n;
	errcode_t		err;
};

static size_t hash_of(uint64_t blk)
{
	/* Fibonacci hashing: consecutive blocks (the usual revoke) spread over the table */
	return (size_t)((blk * 0x9E3779B97F4A7C15ull) >> 17);
}

static size_t slot_hash(const void *slot, const void *arg)
{
	(void)arg;
	return hash_of(((const struct revoke_slot *)slot)->blk);
}

static const struct util_hashtab_kind revoke_kind = {
	UTIL_HASHTAB_SLOT(struct revoke_slot, used), 1024, slot_hash
};

/* Put BLK (revoked by SEQ) where its slot is, keeping the newest ID for a block already there. */
static void place(struct revoke_hash *h, uint64_t blk, uint32_t seq)
{
	size_t mask = h->nslots - 1, i = hash_of(blk) & mask;

	while (h->slot[i].used && h->slot[i].blk != blk)
		i = (i + 1) & mask;
	if (!h->slot[i].used) {
		h->slot[i] = (struct revoke_slot){ blk, seq, 1 };
		h->n++;
	} else if (jbd_tid_lt(h->slot[i].seq, seq)) {
		h->slot[i].seq = seq;
	}
}

struct filler {
	struct revoke_hash	*h;
	uint32_t		seq;
};

static int fill_one(void *arg, uint64_t blk)
{
	struct filler *f = arg;
	struct revoke_hash *h = f->h;

	if (h->err)
		return 0;
	h->err = util_hashtab_room((void **)&h->slot, &h->nslots, h->n + 1, &revoke_kind, NULL);
	if (h->err)
		return 0;
	place(h, blk, f->seq);
	return 0;
}

/* Records of the revoke blocks whose count was sane (a bad count is read as no records). */
static void txn_records(const struct jbd_scan_txn *t, struct filler *f)
{
	for (unsigned r = 0; r < t->nrevokes; r++) {
		const struct jbd_scan_revoke *rb = &t->revokes[r];
		if (rb->count_bad)
			continue;
		for (unsigned i = 0; i < rb->count; i++)
			fill_one(f, t->revoked[rb->first + i]);
	}
}

errcode_t jbd_revoke_build(const struct jbd_scan *s, int (*use)(void *arg, unsigned txn), void *arg,
			   struct jbd_revoke_table *out)
{
	struct revoke_hash h = { 0 };
	size_t i, kept = 0;

	out->e = NULL;
	out->n = 0;
	for (unsigned t = 0; t < s->nlive && !h.err; t++) {
		struct filler f = { &h, s->txns[t].sequence };
		if (use(arg, t))
			txn_records(&s->txns[t], &f);
	}
	if (h.err || !h.n) {
		free(h.slot);
		return h.err;
	}
	/* the occupied slots, in block order, at their exact size */
	out->e = malloc(h.n * sizeof(*out->e));
	if (!out->e) {
		free(h.slot);
		return EXT2_ET_NO_MEMORY;
	}
	for (i = 0; i < h.nslots; i++)
		if (h.slot[i].used)
			out->e[kept++] = (struct jbd_revoke_entry){ h.slot[i].blk, h.slot[i].seq };
	free(h.slot);
	qsort(out->e, kept, sizeof(*out->e), cmp_entry);
	out->n = kept;
	return 0;
}

void jbd_revoke_free(struct jbd_revoke_table *t)
{
	free(t->e);
	t->e = NULL;
	t->n = 0;
}

int jbd_revoke_test(const struct jbd_revoke_table *t, uint64_t blk, uint32_t seq, uint32_t *revoker)
{
	struct jbd_revoke_entry key = { blk, 0 };
	const struct jbd_revoke_entry *e;

	if (!t->n)
		return 0;
	e = bsearch(&key, t->e, t->n, sizeof(key), cmp_entry);
	if (!e || jbd_tid_lt(e->seq, seq))
		return 0;
	if (revoker)
		*revoker = e->seq;
	return 1;
}
