/* What logdump shows of a journal: the fate of each transaction and logged block under the stop policy, and the log's problems. */
#ifndef E4R_REPLAY_VIEW_H
#define E4R_REPLAY_VIEW_H

#include "replay/plan.h"

/* What becomes of one logged block version under the stop policy (e2fsck), in logdump's terms. */
enum replay_view_fate {
	REPLAY_VIEW_REPLAYED = 0,
	REPLAY_VIEW_OLD,		/* from a transaction past the end of the log */
	REPLAY_VIEW_RECOVERY_FAILS,	/* the whole recovery fails: nothing is written */
	REPLAY_VIEW_PAST_END,		/* its transaction is at or after the replay end */
	REPLAY_VIEW_REVOKED,
	REPLAY_VIEW_CSUM,		/* its own checksum fails: e2fsck skips it */
	REPLAY_VIEW_OUT_OF_FS,		/* its home is outside the filesystem: e4recover refuses it */
};

struct replay_view_block {
	enum replay_view_fate	fate;
	uint32_t		revoker;	/* REPLAY_VIEW_REVOKED: the revoking transaction */
};

struct replay_view_txn {
	int		replayed;	/* e2fsck replays it (whatever becomes of its blocks) */
	unsigned	problems;	/* its failures (jbd_failures_next, all of them) */
	unsigned	first_block;	/* its blocks are view->blocks[first_block ..] */
};

struct replay_view {
	const struct jbd_scan		*s;
	const struct replay_plan	*plan;
	struct replay_view_txn		*txns;		/* [s->ntxns] */
	struct replay_view_block	*blocks;	/* every logged block of every transaction */

	/* The end of the log and what e2fsck makes of it. */
	int		replays_any;	/* e2fsck replays transactions replay_first .. replay_last */
	uint32_t	replay_first, replay_last;
	unsigned	log_problems;	/* 1 when recovery fails as a whole or the scan could not go on */
	int		fc_replays;	/* recovery goes on to the fast-commit area */
	unsigned	sb_problems;	/* 1 when the journal superblock's checksum fails */
};

/*
 * The view of scan S under PLAN, which must be the stop policy's (e2fsck's
 * replay is what logdump explains). J is the journal S was read from.
 */
errcode_t replay_view_build(const struct jbd_journal *j, const struct jbd_scan *s,
			    const struct replay_plan *plan, struct replay_view **out);
void replay_view_free(struct replay_view *v);

static inline const struct replay_view_block *replay_view_block(const struct replay_view *v,
								 unsigned txn, unsigned blk)
{
	return &v->blocks[v->txns[txn].first_block + blk];
}

/*
 * The version of FS_BLOCK the stop policy leaves on disk: the last replayed
 * one in log order. Returns 1 and sets *TXN / *BLK (indexes in the scan),
 * or 0 when no version is replayed.
 */
int replay_view_final(const struct replay_view *v, uint64_t fs_block, unsigned *txn, unsigned *blk);

/* A short name for JSON: "replayed", "old", "past_replay_end", ... */
const char *replay_view_fate_name(enum replay_view_fate f);

#endif
