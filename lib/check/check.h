/* The read-only consistency checker: run the passes, collect the findings. */
#ifndef E4R_CHECK_H
#define E4R_CHECK_H

#include <stdint.h>
#include <ext2fs/ext2fs.h>
#include "check/problem.h"

/* The passes, in the order they run (numbered like e2fsck's). */
enum check_pass {
	E4R_PASS_SUPER = 0,	/* superblock and group descriptors */
	E4R_PASS_INODES,	/* 1: inodes, blocks, sizes */
	E4R_PASS_DIRS,		/* 2: directory structure */
	E4R_PASS_CONNECT,	/* 3: directory connectivity */
	E4R_PASS_LINKS,		/* 4: reference counts */
	E4R_PASS_BITMAPS,	/* 5: bitmaps and group summaries */
	E4R_PASS_COUNT
};

/*
 * Called as a pass goes: DONE of TOTAL steps, counted as e2fsck's -C counts
 * them (pass 1 and 4: groups; 2: directory blocks; 3: directories; 5: the
 * groups' block bitmaps, then their inode bitmaps); first 0, last TOTAL.
 * Pass 0 (the superblock) is 0 of 1, then 1 of 1.
 */
typedef void (*check_progress_fn)(void *arg, int pass, uint64_t done, uint64_t total);

struct check_result;	/* what a check found (below) */

/* What the checker does with what it finds. */
enum check_repair_mode {
	E4R_REPAIR_NONE = 0,	/* -n: report only; the filesystem may be open read-only */
	E4R_REPAIR_YES,		/* -y: fix everything that can be fixed */
	E4R_REPAIR_PREEN,	/* -p: fix only what is safe without a person; else change nothing */
	E4R_REPAIR_ASK,		/* ask the callback for each fixable problem */
};

/* E4R_REPAIR_ASK: return 1 to fix finding F, 0 to leave it. */
typedef int (*check_ask_fn)(void *arg, const struct check_finding *f);

struct check_opts {
	int			force;		/* check even a filesystem marked clean */
	size_t			max_findings;	/* 0: the default limit */
	check_progress_fn	progress;	/* may be NULL */
	void			*progress_arg;
	enum check_repair_mode	repair;		/* anything but NONE needs FS open read-write */
	check_ask_fn	ask;		/* E4R_REPAIR_ASK */
	void			*ask_arg;
	unsigned		max_rounds;	/* checks after repairs; 0: the default */
	const char		*journal_path;	/* the external journal device; NULL: found by its UUID */
	/*
	 * Pass 1 reads the inode tables through libext2fs's scan alone and
	 * pass 2 each directory block through the channel, never ahead in a
	 * second thread (check/iscan.h, check/dirread.h): for tests that
	 * compare both
	 */
	int			slow_scan;
	/*
	 * Called when a check's passes are done, before its repairs (and their
	 * questions): R's findings from FIRST on are this check's. May be NULL.
	 */
	void			(*checked)(void *arg, const struct check_result *r, size_t first);
	void			*checked_arg;
};

/* Why the full check ran or was skipped. */
enum check_reason {
	E4R_REASON_FORCED = 0,		/* -f */
	E4R_REASON_CLEAN_SKIPPED,	/* marked clean, not forced: only the superblock was checked */
	E4R_REASON_NOT_CLEAN,		/* not cleanly unmounted */
	E4R_REASON_ERRORS,		/* marked as having errors */
	E4R_REASON_MOUNT_COUNT,		/* mounted too many times without a check */
	E4R_REASON_INTERVAL,		/* the check interval has passed */
};

/* Why a repair round's writes went home without the journal. */
enum check_unjournaled {
	E4R_UNJOURNALED_NONE = 0,
	E4R_UNJOURNALED_NO_JOURNAL,	/* ext2, or a journal on another device */
	E4R_UNJOURNALED_JOURNAL_BAD,	/* the journal does not load, or is not empty */
	E4R_UNJOURNALED_JOURNAL_REPAIRED, /* the round changes the journal itself */
	E4R_UNJOURNALED_TOO_BIG,	/* the log takes no transaction of the round's blocks */
};

/* How many transactions the repairs made, journaled or not. */
struct check_commits {
	unsigned		journaled;
	unsigned		direct;
	unsigned		split;		/* rounds larger than the log, journaled ... */
	unsigned		split_txns;	/* ... as this many transactions */
	enum check_unjournaled	why;		/* the last direct one's reason */
	int			in_log;		/* the last one failed after its commit: the
						   journal holds it, a replay completes it */
};

struct check_result {
	struct check_finding	*findings;
	size_t			count, cap;
	size_t			dropped;	/* findings over the limit, not kept */
	size_t			max_findings;	/* in one round */
	size_t			round_first;	/* index of the running round's first finding */
	unsigned		errors;		/* findings that leave the filesystem not clean */
	enum check_reason	reason;
	int			journal_skipped; /* needs_recovery, read-only: the unreplayed filesystem was checked */
	int			aborted;	/* a pass could not go on; the check is incomplete */
	errcode_t		fatal;		/* an operational error no caller could return (check_fatal):
						   the run ends with it */
	errcode_t		abort_err;
	/* Totals for the summary line, like e2fsck's "N/M files, B/C blocks". */
	uint64_t		inodes_used, inodes_count;
	uint64_t		blocks_used, blocks_count;
	uint64_t		dirs, regular, symlinks, other_files;
	uint64_t		noncontig;
	/* Repairs: findings of every round are kept in order; f->round says which. */
	unsigned		rounds;		/* checks run (1 without repairs) */
	unsigned		alone_rounds;	/* of them, after a new repair made alone (not limited) */
	unsigned		fixed;		/* findings repaired, all rounds */
	unsigned		left;		/* errors of the last round not repaired */
	int			unsettled;	/* the last round allowed still repaired: unchecked since */
	int			preen_halt;	/* -p met a problem a person must decide: nothing written */
	int			written;	/* the filesystem was changed (flush it) */
	int			journal_cleared;	/* a repair removed the journal (made anew once clean) */
	int			journal_recreated;	/* ... and it was made anew */
	errcode_t		journal_recreate_err;	/* ... or not, for this error (no room) */
	int			totals_set;	/* clean, with repairs: the superblock's free totals were
						   set from the groups' counts (as e2fsck does) */
	/*
	 * How the repairs reached the disk (fsck/commit.c): each round's writes
	 * as one transaction of the filesystem's journal, or, where no journal
	 * could be used (why: unjournaled_why), straight home; either way only
	 * once the round was complete.
	 */
	struct check_commits	commits;
	int			round_dropped;	/* a round that could not finish was dropped whole ... */
	unsigned		dropped_round;	/* ... this one (0: the orphans' or the final writes) */
	errcode_t		dropped_err;	/* ... for this error */
};


void check_result_free(struct check_result *r);
/*
 * A finding e2fsck cannot go past left unrepaired (E4R_PF_HALTS): the first
 * such, or NULL. e2fsck stops there, so the verdict is its exit 8 with 4.
 */
const struct check_finding *check_result_halted(const struct check_result *r);





/* A stable name of a pass for JSON and progress ("inodes", "dirs"...). */
const char *check_pass_name(int pass);

#endif
