/* The revoke table: a sorted array of (block, newest revoking transaction). */
#include "config.h"

#include <stdlib.h>

#include "jbd/revoke.h"

static int cmp_entry(const void *a, const void *b)
{
	const struct jbd_revoke_entry *x = a, *y = b;

	return x->blk < y->blk ? -1 : x->blk > y->blk;
}

/* Records of the revoke blocks whose count was sane (a bad count is read as no records). */
static size_t txn_records(const struct jbd_scan_txn *t, int (*fn)(void *, uint64_t), void *arg)
{
	size_t n = 0;

	for (unsigned r = 0; r < t->nrevokes; r++) {
		const struct jbd_scan_revoke *rb = &t->revokes[r];
		if (rb->count_bad)
			continue;
		for (unsigned i = 0; i < rb->count; i++) {
			if (fn)
				fn(arg, t->revoked[rb->first + i]);
			n++;
		}
	}
	return n;
}

struct filler {
	struct jbd_revoke_table	*t;
	uint32_t		seq;
};

static int fill_one(void *arg, uint64_t blk)
{
	struct filler *f = arg;

	f->t->e[f->t->n++] = (struct jbd_revoke_entry){ blk, f->seq };
	return 0;
}

errcode_t jbd_revoke_build(const struct jbd_scan *s, int (*use)(void *arg, unsigned txn), void *arg,
			   struct jbd_revoke_table *out)
{
	size_t total = 0, i, kept;

	out->e = NULL;
	out->n = 0;
	for (unsigned t = 0; t < s->nlive; t++)
		if (use(arg, t))
			total += txn_records(&s->txns[t], NULL, NULL);
	if (!total)
		return 0;
	out->e = calloc(total, sizeof(*out->e));
	if (!out->e)
		return EXT2_ET_NO_MEMORY;
	for (unsigned t = 0; t < s->nlive; t++) {
		struct filler f = { out, s->txns[t].sequence };
		if (use(arg, t))
			txn_records(&s->txns[t], fill_one, &f);
	}
	qsort(out->e, out->n, sizeof(*out->e), cmp_entry);
	/* One entry per block, with the newest revoking ID. */
	for (i = kept = 0; i < out->n; i++) {
		if (kept && out->e[kept - 1].blk == out->e[i].blk) {
			if (jbd_tid_lt(out->e[kept - 1].seq, out->e[i].seq))
				out->e[kept - 1].seq = out->e[i].seq;
		} else {
			out->e[kept++] = out->e[i];
		}
	}
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
