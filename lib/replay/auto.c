/* The auto policy: the diagnosis answers the replay plan's questions. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "jbd/failure.h"

#include "replay/auto.h"

enum replay_decision replay_auto_decide(const struct replay_auto *a, const struct jbd_failure *f)
{
	enum diag_action act = diag_txn_action(a->diag, f->txn);

	if (f->kind == JBD_FAIL_BLOCK) {
		if (diag_block(a->diag, a->s, f->txn, f->index))
			return JBD_DECIDE_CORRECTED;
		return act == JBD_AUTO_REPLAY_AS_IS_BENIGN_LEAK ? JBD_DECIDE_AS_IS : JBD_DECIDE_REFUSE;
	}
	switch (act) {
	case JBD_AUTO_REPLAY_CORRECTED:		return JBD_DECIDE_CORRECTED;
	case JBD_AUTO_REPLAY_AS_IS_BENIGN_LEAK:	return JBD_DECIDE_AS_IS;
	/* No finding for a failure the scan saw is not a proof: refuse, unless nothing of it is needed. */
	default:
		if (a->sup && a->sup[f->txn].why == REPLAY_SUPERSEDED)
			return JBD_DECIDE_SKIP;
		return JBD_DECIDE_REFUSE;
	}
}

static enum replay_decision auto_decide(void *arg, const struct jbd_failure *f)
{
	return replay_auto_decide(arg, f);
}

static const unsigned char *auto_content(void *arg, unsigned txn, unsigned blk)
{
	struct replay_auto *a = arg;

	return diag_block(a->diag, a->s, txn, blk);
}

errcode_t replay_auto_setup(struct jbd_journal *j, const struct jbd_scan *s, struct replay_auto *a)
{
	errcode_t err;

	memset(a, 0, sizeof(*a));
	a->s = s;
	a->hooks.decide = auto_decide;
	a->hooks.content = auto_content;
	a->hooks.arg = a;
	err = replay_supersede_all(j, s, &a->sup);
	if (err)
		return err;
	return diag_journal(j, s, &a->diag);
}

void replay_auto_free(struct replay_auto *a)
{
	diag_free(a->diag);
	a->diag = NULL;
	free(a->sup);
	a->sup = NULL;
}

errcode_t replay_auto_repair_finding(const struct diag_finding *f, struct jbd_journal *j)
{
	if (f->action != JBD_AUTO_REPLAY_CORRECTED || !f->corrected || f->corrected_jblk >= j->total_len)
		return 0;
	return io_channel_write_blk64(j->io, j->map[f->corrected_jblk], 1, f->corrected);
}

errcode_t replay_auto_repair_journal(const struct replay_auto *a, struct jbd_journal *j)
{
	errcode_t err = 0;

	for (unsigned i = 0; i < a->diag->nfindings && !err; i++)
		err = replay_auto_repair_finding(&a->diag->findings[i], j);
	return err;
}
