/* The index of every filesystem block the journal holds a copy of, from one scan. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "jbd/copies.h"

/*
 * Sequence numbers wrap: the newer of two is the one the other is behind by
 * less than half the space (as the journal itself compares them).
 */
static int seq_newer(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

static int by_block_newest(const void *pa, const void *pb)
{
	const struct jbd_copy *a = pa, *b = pb;

	if (a->fs_block != b->fs_block)
		return a->fs_block < b->fs_block ? -1 : 1;
	if (a->sequence != b->sequence)
		return seq_newer(a->sequence, b->sequence) ? -1 : 1;
	/* one block logged twice in a transaction: the later tag wins */
	if (a->jblk != b->jblk)
		return a->txn == b->txn && a->jblk > b->jblk ? -1 : 1;
	return 0;
}

/* Every checksum the journal keeps over block B of T verifies, and T was committed. */
static int copy_verifies(const struct jbd_scan_txn *t, const struct jbd_scan_block *b)
{
	if (!t->committed || jbd_csum_bad(&t->commit_csum) || jbd_csum_bad(&b->csum))
		return 0;
	return b->desc >= t->ndescs || !jbd_csum_bad(&t->descs[b->desc].tail);
}

/* Does a transaction newer than SEQ revoke BLOCK? Then the copy may not be written home. */
static int revoked_later(const struct jbd_scan *s, uint64_t block, uint32_t seq)
{
	for (unsigned i = 0; i < s->ntxns; i++) {
		const struct jbd_scan_txn *t = &s->txns[i];

		if (!seq_newer(t->sequence, seq) || !t->committed)
			continue;
		for (unsigned k = 0; k < t->nrevoked; k++)
			if (t->revoked[k] == block)
				return 1;
	}
	return 0;
}

errcode_t jbd_copies_build(const struct jbd_scan *s, struct jbd_copies **out)
{
	struct jbd_copies *c = calloc(1, sizeof(*c));
	size_t n = 0, k = 0;
	int any_revoke = 0;

	*out = NULL;
	if (!c)
		return EXT2_ET_NO_MEMORY;
	for (unsigned i = 0; i < s->ntxns; i++) {
		n += s->txns[i].nblocks;
		any_revoke |= s->txns[i].nrevoked != 0;
	}
	if (n) {
		c->v = calloc(n, sizeof(*c->v));
		if (!c->v) {
			free(c);
			return EXT2_ET_NO_MEMORY;
		}
	}
	for (unsigned i = 0; i < s->ntxns; i++) {
		const struct jbd_scan_txn *t = &s->txns[i];

		for (unsigned b = 0; b < t->nblocks; b++) {
			struct jbd_copy *x = &c->v[k++];

			x->fs_block = t->blocks[b].fs_block;
			x->jblk = t->blocks[b].jblk;
			x->sequence = t->sequence;
			x->commit_sec = t->committed ? t->commit_sec : 0;
			x->commit_nsec = t->committed ? t->commit_nsec : 0;
			x->txn = i;
			x->live = !t->old;
			x->committed = t->committed != 0;
			x->csum_ok = copy_verifies(t, &t->blocks[b]);
			x->escaped = (t->blocks[b].flags & JBD_FLAG_ESCAPE) != 0;
			x->revoked = any_revoke && revoked_later(s, x->fs_block, t->sequence);
		}
	}
	c->n = k;
	if (k > 1)
		qsort(c->v, k, sizeof(*c->v), by_block_newest);
	*out = c;
	return 0;
}

void jbd_copies_free(struct jbd_copies *c)
{
	if (!c)
		return;
	free(c->v);
	free(c);
}

void jbd_copies_find(const struct jbd_copies *c, uint64_t fs_block, size_t *first, size_t *count)
{
	size_t lo = 0, hi = c->n, end;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->v[mid].fs_block < fs_block)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < c->n && c->v[end].fs_block == fs_block; end++)
		;
	*first = lo;
	*count = end - lo;
}

errcode_t jbd_copies_read(struct jbd_journal *j, const struct jbd_copy *c, void *buf)
{
	errcode_t err = jbd_journal_read(j, c->jblk, 1, buf);
	jbd_be32_t magic = jbd_to_be32(JBD_MAGIC);

	if (!err && c->escaped)
		memcpy(buf, &magic, sizeof(magic));
	return err;
}
