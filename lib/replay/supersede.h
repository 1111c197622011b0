/* Proving that a failed transaction is wholly superseded by later ones, so leaving it out loses nothing. */
#ifndef E4R_REPLAY_SUPERSEDE_H
#define E4R_REPLAY_SUPERSEDE_H

#include "jbd/scan.h"

/* The verdict, or the first thing that keeps it from being proven. */
enum replay_supersede_why {
	REPLAY_SUP_UNCHECKED = 0,	/* no verdict (zeroed memory): the transaction was not asked about */
	REPLAY_SUPERSEDED,		/* proven: replaying past it writes what an intact copy would */
	REPLAY_SUP_V1_TAGS,		/* v1: its checksum covers the descriptors too: the tags are unverified */
	REPLAY_SUP_TAGS,		/* a descriptor of it fails its own checksum: the tags are unverified */
	REPLAY_SUP_REVOKE_RECORDS,	/* a revoke block of it fails its checksum or count */
	REPLAY_SUP_BLOCK,		/* a block it logs is not logged again by a later replayed transaction */
	REPLAY_SUP_REVOKE,		/* a block it revokes would come back from an earlier transaction */
	REPLAY_SUP_NO_CHECKSUMS,	/* the journal has no checksums: nothing failed */
};

struct replay_supersede {
	enum replay_supersede_why	why;
	uint64_t		fs_block;	/* SUP_BLOCK / SUP_REVOKE: the block at fault */
	uint32_t		last_sequence;	/* superseded: the newest transaction it relies on */
	uint32_t		limit_sequence;	/* the first later transaction with a failure of its own
						   (relogs from it on do not count); 0 when none */
	int			has_limit;
};

/*
 * Is committed live transaction TXN of S (one with a failed checksum) wholly
 * superseded? Later transactions count only up to the next one that has a
 * transaction-level failure of its own (a policy may stop there), and a
 * later copy counts only when its own checksum holds. FS_BLOCKS is the
 * filesystem's size: a home outside it is never written by anyone. Pure;
 * errors: EXT2_ET_NO_MEMORY (then the verdict is REPLAY_SUP_UNCHECKED).
 */
errcode_t replay_supersede_check(const struct jbd_journal *j, const struct jbd_scan *s, unsigned txn,
				 uint64_t fs_blocks, struct replay_supersede *out);

/*
 * The verdict on every committed live transaction of S with a
 * transaction-level failure: *OUT is an array of s->ntxns (never empty),
 * the others left REPLAY_SUP_UNCHECKED; free it with free(). Auto decides
 * by it, and diagnose and logdump --diagnose show it: one computation, so
 * that what they show is what auto decided by. Errors: EXT2_ET_NO_MEMORY
 * (*OUT is then NULL).
 */
errcode_t replay_supersede_all(const struct jbd_journal *j, const struct jbd_scan *s,
			       struct replay_supersede **out);

/* A short name for JSON: "superseded", "block_not_relogged", ... */
const char *replay_supersede_name(enum replay_supersede_why w);

#endif
