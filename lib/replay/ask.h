/* The ask policy: a person (or a file of their answers) decides each failure, offered what auto has proven. */
#ifndef E4R_REPLAY_ASK_H
#define E4R_REPLAY_ASK_H

#include "replay/auto.h"

/* What one question offers beside "as it is" and "no". */
struct replay_ask_offer {
	const struct diag_finding	*finding;	/* the diagnosis of this failure, or NULL */
	int				correctable;	/* auto would replay it corrected (proven) */
	int				skippable;	/* auto would leave the transaction out (wholly superseded) */
};

/*
 * The caller's question: fill *D for failure F (JBD_DECIDE_CORRECTED only
 * when O->correctable, JBD_DECIDE_SKIP only when O->skippable), or return an
 * error that ends the plan before anything is written (E4R_CANCELLED, a bad
 * scripted answer).
 */
struct replay_asker {
	errcode_t	(*question)(void *arg, const struct jbd_failure *f, const struct replay_ask_offer *o,
				    enum replay_decision *d);
	void		*arg;
};

/* A failure answered "correct", and the finding whose proven content that replays. */
struct replay_ask_choice {
	unsigned			txn;
	enum jbd_failure_kind		kind;
	unsigned			index;
	const struct diag_finding	*finding;
};

struct replay_ask {
	struct replay_auto		diag;		/* auto's diagnosis and supersede verdicts */
	const struct replay_asker	*asker;
	struct replay_hooks		hooks;		/* for the plan */
	struct replay_ask_choice	*corrected;	/* the failures answered "correct" */
	unsigned			ncorrected, cap;
	errcode_t			err;		/* the question's error: ends the plan */
};

/*
 * Diagnose S as auto does and fill A->hooks, which put each failure to
 * ASKER with what auto has proven about it. A block is replayed with its
 * proven content only when its failure (or, v1, its transaction's) was
 * answered "correct"; "as it is" writes the logged bytes.
 */
errcode_t replay_ask_setup(struct jbd_journal *j, const struct jbd_scan *s, const struct replay_asker *asker,
			   struct replay_ask *a);
void replay_ask_free(struct replay_ask *a);

/*
 * Write the corrections answered "correct" back into the journal, as
 * auto writes its own (replay_auto_repair_journal). Flushed by the caller.
 */
errcode_t replay_ask_repair_journal(const struct replay_ask *a, struct jbd_journal *j);

#endif
