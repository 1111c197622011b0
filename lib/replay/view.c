/* What logdump shows of a journal, computed from the scan and the stop policy's plan. */
#include "config.h"

#include <stdlib.h>

#include "replay/view.h"
#include "util/e4r_err.h"

static enum replay_view_fate block_fate(const struct replay_plan *p, unsigned t, unsigned b, uint32_t *revoker)
{
	switch (p->txn_fate[t]) {
	case JBD_TXN_OLD:		return REPLAY_VIEW_OLD;
	case JBD_TXN_RECOVERY_FAILS:	return REPLAY_VIEW_RECOVERY_FAILS;
	case JBD_TXN_REPLAYED:		break;
	/* Uncommitted, or at or after the point where e2fsck stops. */
	default:			return REPLAY_VIEW_PAST_END;
	}
	switch (jbd_plan_block_fate(p, t, b)) {
	case JBD_BLK_REVOKED:
		*revoker = p->blk_revoker[p->blk_base[t] + b];
		return REPLAY_VIEW_REVOKED;
	case JBD_BLK_CSUM:		return REPLAY_VIEW_CSUM;
	case JBD_BLK_OUT_OF_FS:		return REPLAY_VIEW_OUT_OF_FS;
	/* The stop policy never corrects a block: what it writes is replayed as logged. */
	default:			return REPLAY_VIEW_REPLAYED;
	}
}

/* The scan could not read the log to its end, or e2fsck's recovery fails as a whole. */
static unsigned log_problems(const struct jbd_scan *s)
{
	return s->stop_error || s->end_reason == JBD_END_IO || s->end_reason == JBD_END_LIMIT ||
	       s->end_reason == JBD_END_BAD_BLOCK;
}

errcode_t replay_view_build(const struct jbd_journal *j, const struct jbd_scan *s,
			    const struct replay_plan *plan, struct replay_view **out)
{
	struct replay_view *v;
	size_t nblocks = 0;

	*out = NULL;
	v = calloc(1, sizeof(*v));
	if (!v)
		return EXT2_ET_NO_MEMORY;
	v->s = s;
	v->plan = plan;
	for (unsigned t = 0; t < s->ntxns; t++)
		nblocks += s->txns[t].nblocks;
	v->txns = calloc(s->ntxns ? s->ntxns : 1, sizeof(*v->txns));
	v->blocks = calloc(nblocks ? nblocks : 1, sizeof(*v->blocks));
	if (!v->txns || !v->blocks) {
		replay_view_free(v);
		return EXT2_ET_NO_MEMORY;
	}
	nblocks = 0;
	for (unsigned t = 0; t < s->ntxns; t++) {
		const struct jbd_scan_txn *x = &s->txns[t];
		struct replay_view_txn *vt = &v->txns[t];

		vt->first_block = nblocks;
		vt->replayed = !x->old && !s->stop_error && jbd_tid_lt(x->sequence, s->stop_end);
		vt->problems = jbd_txn_failures(s, t, JBD_FAILS_ALL);
		for (unsigned b = 0; b < x->nblocks; b++, nblocks++)
			v->blocks[nblocks].fate = block_fate(plan, t, b, &v->blocks[nblocks].revoker);
	}
	if (!s->stop_error && s->nlive && jbd_tid_lt(s->txns[0].sequence, s->stop_end)) {
		v->replays_any = 1;
		v->replay_first = s->txns[0].sequence;
		v->replay_last = s->stop_end - 1;
	}
	v->log_problems = log_problems(s);
	/* Recovery reaches the fast commits only when the log needs recovery and its own replay does not fail. */
	v->fc_replays = s->end_reason != JBD_END_CLEAN && !s->stop_error;
	v->sb_problems = j->sb_csum_ok == 0;
	*out = v;
	return 0;
}

void replay_view_free(struct replay_view *v)
{
	if (!v)
		return;
	free(v->txns);
	free(v->blocks);
	free(v);
}

int replay_view_final(const struct replay_view *v, uint64_t fs_block, unsigned *txn, unsigned *blk)
{
	const struct jbd_scan *s = v->s;
	int found = 0;

	for (unsigned t = 0; t < s->nlive; t++)
		for (unsigned b = 0; b < s->txns[t].nblocks; b++)
			if (s->txns[t].blocks[b].fs_block == fs_block &&
			    replay_view_block(v, t, b)->fate == REPLAY_VIEW_REPLAYED) {
				*txn = t;
				*blk = b;
				found = 1;
			}
	return found;
}

const char *replay_view_fate_name(enum replay_view_fate f)
{
	switch (f) {
	case REPLAY_VIEW_REPLAYED:		return "replayed";
	case REPLAY_VIEW_OLD:			return "old";
	case REPLAY_VIEW_RECOVERY_FAILS:	return "recovery_fails";
	case REPLAY_VIEW_PAST_END:		return "past_replay_end";
	case REPLAY_VIEW_REVOKED:		return "revoked";
	case REPLAY_VIEW_CSUM:			return "checksum_bad";
	case REPLAY_VIEW_OUT_OF_FS:		return "outside_filesystem";
	}
	return "unknown";
}
