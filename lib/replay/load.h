/* A journal loaded for a command: opened, its log scanned, diagnosed and planned, its fast commits read. */
#ifndef E4R_REPLAY_LOAD_H
#define E4R_REPLAY_LOAD_H

#include "replay/plan.h"
#include "replay/auto.h"
#include "replay/ask.h"
#include "replay/alternatives.h"
#include "jbd/fc.h"

/* The step an error comes from, so that the caller can say what it could not do. */
enum replay_load_step {
	REPLAY_LOAD_OPEN = 0,	/* loading the journal (E4R_NO_JOURNAL: the filesystem has none) */
	REPLAY_LOAD_SCAN,	/* scanning its log */
	REPLAY_LOAD_DIAGNOSE,	/* diagnosing its checksum failures */
	REPLAY_LOAD_PLAN,	/* planning the replay */
	REPLAY_LOAD_FC,		/* scanning the fast-commit area */
};

/* Which fast-commit area is read. */
enum replay_load_fc {
	REPLAY_LOAD_FC_NONE = 0,
	/*
	 * To show it: whenever the journal has the feature, after the last
	 * commit the stop policy replays, whatever the plan; a journal with the
	 * feature and no area is an error (E4R_FC_NOT_ENABLED).
	 */
	REPLAY_LOAD_FC_SHOW,
	/*
	 * To replay it: after the last full commit the plan replays; nothing is
	 * read when the plan replays nothing, nor from a feature without an area.
	 */
	REPLAY_LOAD_FC_REPLAY,
};

/* What a command needs of the journal; zeroed: the live log, planned under the stop policy. */
struct replay_load_opts {
	const char			*journal_path;	/* external journal device, or NULL */
	int				scan_flags;	/* jbd_scan_log's (JBD_SCAN_OLD) */
	jbd_progress_fn			progress;	/* set on the journal as it opens; may be NULL */
	void				*progress_arg;
	enum replay_policy		policy;
	const struct replay_hooks	*hooks;		/* ask's; auto without them answers by its diagnosis */
	const struct replay_asker	*asker;		/* ask without hooks: the person, offered auto's proofs */
	/*
	 * Auto's diagnosis is made only of a log with failures (nothing else
	 * needs deciding); DIAGNOSE_HEALTHY makes it of any log, for a report
	 * (the stale transaction the log ends at has findings too).
	 */
	int				diagnose_healthy;
	int				diagnose;	/* diagnose a log with failures under any policy (diag) */
	int				plan_failures;	/* plan only a log with failures (a report of them) */
	int				alternatives;	/* auto fell back: plan the other policies to compare */
	enum replay_load_fc		fc;
};

struct replay_load {
	struct jbd_journal	*j;
	struct jbd_scan		*s;
	struct replay_auto	*autop;		/* auto without hooks, a log it diagnoses: its diagnosis
						   and hooks; else NULL */
	struct replay_ask	*askp;		/* ask with an asker, a log with failures: its diagnosis and
						   answers; else NULL */
	struct diag_report	*diag;		/* opts.diagnose: the diagnosis when auto made none; else NULL */
	struct replay_plan	*plan;		/* NULL with plan_failures and a healthy log */
	struct replay_alts	*alts;		/* opts.alternatives and auto fell back; NULL if they failed */
	struct jbd_fc		*fc;
	enum replay_load_step	failed;		/* on error: the step it comes from */
};

/*
 * Load FS's journal for O: open it, scan its log, diagnose and plan it
 * under O's policy, read its fast-commit area. On error LD->failed names
 * the step and LD holds what the steps before it loaded. Free LD in any
 * case (replay_load_free), or take its parts over.
 */
errcode_t replay_load(ext2_filsys fs, const struct replay_load_opts *o, struct replay_load *ld);

/*
 * The same in two halves, for a caller that looks at the journal before
 * its log is read (a replay that finds nothing to do, or one to finish):
 * the first opens the journal, the second does every other step.
 */
errcode_t replay_load_journal(ext2_filsys fs, const struct replay_load_opts *o, struct replay_load *ld);
errcode_t replay_load_log(const struct replay_load_opts *o, struct replay_load *ld);

void replay_load_free(struct replay_load *ld);

#endif
