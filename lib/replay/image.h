/* Replaying an image's journal: open, plan, write home, and leave the superblocks as e2fsck does. */
#ifndef E4R_REPLAY_IMAGE_H
#define E4R_REPLAY_IMAGE_H

#include "replay/plan.h"
#include "replay/auto.h"
#include "replay/ask.h"
#include "replay/alternatives.h"
#include "jbd/fc.h"
#include "replay/fc.h"

struct replay_opts {
	enum replay_policy		policy;
	int				dry_run;	/* plan only; open read-only, write nothing */
	const char			*undo_file;	/* write an e2undo file (must not exist) */
	const char			*journal_path;	/* external journal device */
	io_manager			io;		/* NULL: unix_io_manager (tests inject faults) */
	const struct replay_hooks	*hooks;		/* ask and auto */
	const struct replay_asker	*asker;		/* ask without hooks: the questions, with auto's proofs */
	int				diagnose;	/* also diagnose every checksum failure, whatever the policy */
	jbd_progress_fn			progress;	/* reading the log, writing home; may be NULL */
	void				*progress_arg;
};

/* What happened; the caller prints it. */
struct replay_result {
	ext2_filsys		fs;		/* dry run: the open filesystem (for decoding); else NULL */
	struct jbd_journal	*j;		/* as found before the replay */
	struct jbd_scan		*s;
	struct replay_plan	*p;
	struct jbd_fc		*fc;		/* the fast-commit area (journals with the feature) */
	struct replay_fc_result fc_result;	/* what applying its committed tags did */
	int			fc_replayed;
	int			fc_failed;	/* a damaged area or refused tags: the fs needs a check */
	struct replay_auto		*autop;		/* auto with failures: the diagnosis behind its decisions */
	struct replay_ask		*askp;		/* ask with an asker and failures: the diagnosis and the
							   corrections chosen */
	struct replay_alts		*alts;		/* auto that left something out: what the other policies
							   would write differently (replay_plan_fell_back) */
	struct diag_report	*diag;		/* opts.diagnose, another policy, and failures: their diagnosis */
	unsigned		left_out_txns;	/* committed transactions not replayed for a checksum failure */
	unsigned		left_out_blocks; /* blocks of replayed transactions left out (checksum, outside the fs) */
	int			nothing_to_do;	/* the journal was clean and needs_recovery clear */
	int			resumed;	/* an interrupted replay's last steps were finished */
	int			needs_recovery;	/* the fs flag as found */
	uint64_t		blocks_written;
	int			fs_marked_invalid;	/* "not clean": a full check is needed */
	int			fs_marked_error;	/* the error flag, from a corrupt transaction */
	uint32_t		sequence_after;
};

/*
 * Replay IMAGE's journal with O's policy. Writes happen only after the plan
 * is complete and only where the policy allows; homes outside the
 * filesystem are never written. The last steps are ordered so that a replay
 * cut short at any write and run again ends in the same image:
 *   1. the planned blocks, flushed; then the committed fast-commit tags, if any;
 *   2. the fs superblock's state (not valid / error flag), if the plan says so;
 *   3. the journal superblock: empty (s_start 0), final sequence, and a mark
 *      in its padding saying "finishing";
 *   4. needs_recovery cleared;
 *   5. the mark removed.
 * A run that finds the mark only finishes steps 4-5. On error *out may
 * still hold what was learnt (for the report); free it in any case.
 */
errcode_t replay_image(const char *image, const struct replay_opts *o, struct replay_result **out);
void replay_free(struct replay_result *r);

/*
 * The diagnosis of R's checksum failures: auto's, or the one opts.diagnose
 * asked for; NULL when there is none (no failure, or not asked).
 */
const struct diag_report *replay_diagnosis(const struct replay_result *r);

#endif
