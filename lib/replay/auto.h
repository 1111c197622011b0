/* The auto policy: replay hooks that follow the diagnosis of each checksum failure. */
#ifndef E4R_REPLAY_AUTO_H
#define E4R_REPLAY_AUTO_H

#include "replay/plan.h"
#include "diag/diagnose.h"
#include "replay/supersede.h"

struct replay_auto {
	struct diag_report	*diag;
	const struct jbd_scan	*s;
	struct replay_hooks	hooks;
	/* [s->ntxns]: for each committed live transaction with a transaction-level failure */
	struct replay_supersede	*sup;
};

/*
 * Diagnose the failures of S and fill A->hooks: a transaction-level failure
 * is replayed when the diagnosis proves a correction or a benign leak and
 * else left out when it is wholly superseded by later committed transactions
 * (replay/supersede.c proves it loses nothing), and refused otherwise (the
 * plan then acts as stop); a failing block is replayed
 * with its proven content, as is for a benign leak, and left out otherwise.
 */
errcode_t replay_auto_setup(struct jbd_journal *j, const struct jbd_scan *s, struct replay_auto *a);
void replay_auto_free(struct replay_auto *a);

/*
 * What auto decides for failure F (the hooks' decide): ask offers the same
 * proven correction and supersede verdict to the person it asks.
 */
enum replay_decision replay_auto_decide(const struct replay_auto *a, const struct jbd_failure *f);

/*
 * Write the proven corrections back into the journal itself, so the emptied
 * log holds what the kernel meant to write (the image then equals a replay of
 * the undamaged journal). Flushed by the caller.
 */
errcode_t replay_auto_repair_journal(const struct replay_auto *a, struct jbd_journal *j);
/* The same for one finding (nothing unless it carries a proven corrected block). */
errcode_t replay_auto_repair_finding(const struct diag_finding *f, struct jbd_journal *j);

#endif
