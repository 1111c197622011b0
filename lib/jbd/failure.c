/* What failed in a transaction of a scanned log: one list for the replay plan, the diagnosis and logdump. */
#include "config.h"

#include "jbd/failure.h"

enum stage {
	STAGE_DESCS = 0,
	STAGE_REVOKES,
	STAGE_BLOCKS,
	STAGE_COMMIT,
	STAGE_DONE,
};

void jbd_failures_init(struct jbd_failure_iter *it, const struct jbd_scan *s, unsigned txn, unsigned what)
{
	it->s = s;
	it->txn = txn;
	it->what = what;
	it->stage = STAGE_DESCS;
	it->i = 0;
	it->sub = 0;
}

static void fill(const struct jbd_failure_iter *it, enum jbd_failure_kind kind, unsigned index,
		 uint32_t jblk, const struct jbd_csum *csum, struct jbd_failure *out)
{
	const struct jbd_scan_txn *t = &it->s->txns[it->txn];

	*out = (struct jbd_failure){ .kind = kind, .txn = it->txn, .index = index,
				     .sequence = t->sequence, .jblk = jblk, .csum = csum };
	if (kind == JBD_FAIL_BLOCK)
		out->fs_block = t->blocks[index].fs_block;
}

int jbd_failures_next(struct jbd_failure_iter *it, struct jbd_failure *out)
{
	const struct jbd_scan_txn *t = &it->s->txns[it->txn];
	int txn_level = !!(it->what & JBD_FAILS_TXN);

	for (;;) {
		switch (it->stage) {
		case STAGE_DESCS:
			while (txn_level && it->i < t->ndescs) {
				const struct jbd_scan_desc *d = &t->descs[it->i++];
				if (jbd_csum_bad(&d->tail)) {
					fill(it, JBD_FAIL_DESC_TAIL, it->i - 1, d->jblk, &d->tail, out);
					return 1;
				}
			}
			break;
		case STAGE_REVOKES:
			while (txn_level && it->i < t->nrevokes) {
				const struct jbd_scan_revoke *r = &t->revokes[it->i];
				unsigned sub = it->sub;

				if (++it->sub == 2) {
					it->sub = 0;
					it->i++;
				}
				if (sub == 0 && jbd_csum_bad(&r->tail)) {
					fill(it, JBD_FAIL_REVOKE_TAIL, (unsigned)(r - t->revokes), r->jblk, &r->tail, out);
					return 1;
				}
				if (sub == 1 && r->count_bad) {
					fill(it, JBD_FAIL_REVOKE_COUNT, (unsigned)(r - t->revokes), r->jblk, NULL, out);
					return 1;
				}
			}
			break;
		case STAGE_BLOCKS:
			while ((it->what & JBD_FAILS_BLOCKS) && it->i < t->nblocks) {
				const struct jbd_scan_block *b = &t->blocks[it->i++];
				if (jbd_csum_bad(&b->csum)) {
					fill(it, JBD_FAIL_BLOCK, it->i - 1, b->jblk, &b->csum, out);
					return 1;
				}
			}
			break;
		case STAGE_COMMIT:
			it->stage = STAGE_DONE;
			if (txn_level && t->committed && jbd_csum_bad(&t->commit_csum)) {
				fill(it, JBD_FAIL_COMMIT, 0, t->commit_jblk, &t->commit_csum, out);
				return 1;
			}
			return 0;
		default:
			return 0;
		}
		it->stage++;
		it->i = 0;
		it->sub = 0;
	}
}

unsigned jbd_txn_failures(const struct jbd_scan *s, unsigned txn, unsigned what)
{
	struct jbd_failure_iter it;
	struct jbd_failure f;
	unsigned n = 0;

	jbd_failures_init(&it, s, txn, what);
	while (jbd_failures_next(&it, &f))
		n++;
	return n;
}
