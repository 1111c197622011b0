/*
 * The ask policy. The person answering sees what auto would see: the
 * diagnosis is made first (as for auto), each question carries the finding
 * that explains the failure and, where auto has proven the intended content,
 * offers it. What was answered "correct" is remembered, so that only those
 * blocks get their proven content (auto's content hook would correct every
 * proven block, also one the person chose to replay as it is) and only those
 * corrections are written back into the journal.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "replay/ask.h"
#include "util/e4r_err.h"

/*
 * The finding that explains failure F: the diagnosis names the failing
 * journal block of each object it examines (v1: the commit block, which is
 * F's block for a commit failure too).
 */
static const struct diag_finding *finding_of(const struct diag_report *d, const struct jbd_failure *f)
{
	for (unsigned i = 0; d && i < d->nfindings; i++)
		if (d->findings[i].txn == f->txn && d->findings[i].jblk == f->jblk)
			return &d->findings[i];
	return NULL;
}

static errcode_t remember(struct replay_ask *a, const struct jbd_failure *f, const struct diag_finding *g)
{
	if (a->ncorrected == a->cap) {
		unsigned ncap = a->cap ? a->cap * 2 : 8;
		void *n = realloc(a->corrected, ncap * sizeof(*a->corrected));
		if (!n)
			return EXT2_ET_NO_MEMORY;
		a->corrected = n;
		a->cap = ncap;
	}
	a->corrected[a->ncorrected++] = (struct replay_ask_choice){ f->txn, f->kind, f->index, g };
	return 0;
}

static enum replay_decision ask_decide(void *arg, const struct jbd_failure *f)
{
	struct replay_ask *a = arg;
	enum replay_decision proposed, d = JBD_DECIDE_REFUSE;
	struct replay_ask_offer o;

	/* After an error the plan ends: nothing more is put to the person. */
	if (a->err)
		return JBD_DECIDE_REFUSE;
	proposed = replay_auto_decide(&a->diag, f);
	o.finding = finding_of(a->diag.diag, f);
	o.correctable = proposed == JBD_DECIDE_CORRECTED;
	o.skippable = proposed == JBD_DECIDE_SKIP;
	a->err = a->asker->question(a->asker->arg, f, &o, &d);
	if (!a->err && ((d == JBD_DECIDE_CORRECTED && !o.correctable) || (d == JBD_DECIDE_SKIP && !o.skippable)))
		a->err = E4R_BAD_ARGUMENT;
	if (!a->err && d == JBD_DECIDE_CORRECTED)
		a->err = remember(a, f, o.finding);
	return a->err ? JBD_DECIDE_REFUSE : d;
}

/* Proven content for a block whose own failure, or whose transaction's, was answered "correct". */
static const unsigned char *ask_content(void *arg, unsigned txn, unsigned blk)
{
	struct replay_ask *a = arg;

	for (unsigned i = 0; i < a->ncorrected; i++) {
		const struct replay_ask_choice *c = &a->corrected[i];
		if (c->txn == txn && (c->kind != JBD_FAIL_BLOCK || c->index == blk))
			return diag_block(a->diag.diag, a->diag.s, txn, blk);
	}
	return NULL;
}

static errcode_t ask_error(void *arg)
{
	return ((struct replay_ask *)arg)->err;
}

errcode_t replay_ask_setup(struct jbd_journal *j, const struct jbd_scan *s, const struct replay_asker *asker,
			   struct replay_ask *a)
{
	errcode_t err;

	memset(a, 0, sizeof(*a));
	a->asker = asker;
	err = replay_auto_setup(j, s, &a->diag);
	a->hooks.decide = ask_decide;
	a->hooks.content = ask_content;
	a->hooks.error = ask_error;
	a->hooks.arg = a;
	return err;
}

void replay_ask_free(struct replay_ask *a)
{
	replay_auto_free(&a->diag);
	free(a->corrected);
	a->corrected = NULL;
	a->ncorrected = a->cap = 0;
}

errcode_t replay_ask_repair_journal(const struct replay_ask *a, struct jbd_journal *j)
{
	errcode_t err = 0;

	for (unsigned i = 0; i < a->ncorrected && !err; i++)
		if (a->corrected[i].finding)
			err = replay_auto_repair_finding(a->corrected[i].finding, j);
	return err;
}
