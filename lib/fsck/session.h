/* The check command as a whole: from an image's name to e2fsck's exit code. */
#ifndef E4R_FSCK_SESSION_H
#define E4R_FSCK_SESSION_H

#include <stdint.h>
#include <ext2fs/ext2fs.h>

#include "check/check.h"
#include "fsck/orphans_release.h"
#include "replay/image.h"

/*
 * e2fsck's exit codes. They are bits, but not every sum occurs: errors left
 * (4) replace "fixed" (1), so a run ends in 0, 1, 4, 8, 12 (cut short with
 * errors left) or 16.
 */
#define FSCK_EXIT_OK		0
#define FSCK_EXIT_FIXED		1	/* errors were fixed (or a backup superblock used) */
#define FSCK_EXIT_UNCORRECTED	4	/* errors are left */
#define FSCK_EXIT_OPERATIONAL	8	/* the check could not run or finish */
#define FSCK_EXIT_USAGE		16	/* the caller asked for something refused (an existing undo file) */
#define FSCK_EXIT_CANCELED	32	/* cancelled (fsck_session_cancel): the round under way was dropped */

/* Where a session stopped early; the front-end names it in its error message. */
enum fsck_stage {
	FSCK_STAGE_NONE = 0,	/* it did not: the check ran and the filesystem was closed */
	FSCK_STAGE_UNDO,	/* the undo file (exists already, or cannot be set up) */
	FSCK_STAGE_MOUNTED,	/* the filesystem is mounted: repairs refused */
	FSCK_STAGE_REPLAY,	/* the journal replay failed */
	FSCK_STAGE_OPEN,	/* the filesystem does not open */
	FSCK_STAGE_CHECK,	/* the check could not run (out of memory) */
	FSCK_STAGE_CLOSE,	/* writing the repairs out failed */
};

/* What happened to the journal before the check; worth telling when replayed is set. */
struct fsck_journal_note {
	int		replayed;	/* a journal that needed recovery was (or was tried to be) replayed */
	int		failed_commit;	/* a corrupt transaction stopped the replay ... */
	uint32_t	failed_seq;	/* ... this one */
	int		csum_error;	/* a checksum failed in the log (or blocks were left out for it) */
	/*
	 * Recovery failed as a whole on a fault of the log's structure, not of
	 * a checksum (a revoke block's record count past the block, a tag
	 * outside the filesystem): why; 0 otherwise
	 */
	errcode_t	log_fault;
	unsigned	left_out_txns;	/* committed transactions not replayed (replay_plan_left_out) */
	unsigned	left_out_blocks; /* blocks of replayed transactions left out */
	/*
	 * The check set the error state itself: the replay left something out
	 * that e2fsck's bookkeeping does not mark (an async commit that fails
	 * its checksum ends the log silently), and the full check must run.
	 */
	int		marked_error;
	int		error_state;	/* the filesystem carries EXT2_ERROR_FS after the replay */
	int		device_missing;	/* an external journal whose device was not found */
	/*
	 * A read-only check of a journal that needs recovery: the journal was
	 * read and diagnosed as the replay would (replay holds the dry run),
	 * nothing of it replayed; FAULTS counts what is wrong in it (the
	 * diagnosis's problems, or the fault recovery fails on), each an
	 * error left uncorrected
	 */
	int		diagnosed;
	unsigned	faults;
};

/* What a session learnt; see fsck_session_run. */
struct fsck_session {
	enum fsck_stage		stopped;
	errcode_t		err;		/* why it stopped; 0 with FSCK_STAGE_NONE */
	struct fsck_journal_note journal;
	blk64_t			backup_sb;	/* the backup superblock read instead of the primary; 0: the primary */
	int			backup_ro;	/* read from it without repairs: the primary is left broken */
	struct check_result	*result;	/* the findings; NULL unless the check ran */
	struct replay_result	*replay;	/* the replay's plan, scan and diagnosis (its journal
						   handle is closed: not to be read through) */
	struct fsck_orphans	orphans;	/* released before the check (repairs only) */
	struct check_commits	orphans_commit;	/* how the release reached the disk (result->commits
						   counts it too) */
	int			exit_code;	/* fsck_exit_code of all the above */
	/* The write guard refused a repair's write (err is E4R_WRITE_GUARD): where. */
	int			guard_tripped;
	blk64_t			guard_blk;
	const char		*guard_what;	/* "a superblock", "an inode table block", ... */
};

/* The moments a front-end tells the user about as they happen (before any finding). */
enum fsck_event {
	FSCK_EVENT_JOURNAL_REPLAYED,	/* s->journal is filled in */
	FSCK_EVENT_BACKUP_SUPER,	/* s->backup_sb is the superblock about to be used */
	FSCK_EVENT_ORPHANS,		/* s->orphans holds the orphans just released */
	FSCK_EVENT_MARKED_ERROR,	/* s->journal.marked_error: the check set the error state */
	FSCK_EVENT_JOURNAL_DIAGNOSED,	/* read-only: s->journal.diagnosed, s->replay the dry run */
};

typedef void (*fsck_event_fn)(void *arg, enum fsck_event what, const struct fsck_session *s);

struct fsck_session_opts {
	const char		*image;
	/* check.repair NONE (-n): open read-only, replay nothing, write nothing. */
	struct check_opts	check;
	enum replay_policy	policy;		/* for the journal replay before the check */
	const char		*undo_file;	/* NULL: none; never over an existing file */
	const char		*journal_path;	/* the external journal device; NULL: found by UUID */
	fsck_event_fn		event;		/* may be NULL */
	void			*event_arg;
};

/*
 * Check O->image like e2fsck: with repairs, refuse a mounted filesystem,
 * replay the journal first (with O's policy and undo file), read a sound
 * backup superblock when the primary's descriptors are bad, repair, and
 * write the repairs out; with check.repair NONE, only read. Fills *S (free
 * it with fsck_session_free) and returns S->exit_code.
 */
int fsck_session_run(const struct fsck_session_opts *o, struct fsck_session *s);
void fsck_session_free(struct fsck_session *s);

/*
 * Ask the running session to stop: the repair round under way fails at its
 * next write or at its end and is dropped whole (nothing of it is written;
 * the filesystem is marked with errors), and the exit code is 32. Safe to
 * call from a signal handler.
 */
void fsck_session_cancel(void);

/*
 * e2fsck's exit code for what S holds: 8 (16 for a refused undo file, 12
 * for an external journal whose device is not found) when it stopped early; else 1 when anything was fixed (a backup superblock
 * counts: its descriptors are written over the primary's), 4 instead when
 * errors are left (or -p stopped for a person, or a read-only check found
 * faults in a journal that needs recovery), and 8 added to the 4 (the 1
 * dropped) when a pass was cut short. A journal replay alone counts as no
 * fix, as in e2fsck.
 */
int fsck_exit_code(const struct fsck_session *s);

#endif
