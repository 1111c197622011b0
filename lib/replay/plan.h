/* What a replay policy writes: the plan over a scanned log, and writing it home. */
#ifndef E4R_JBD_REPLAY_H
#define E4R_JBD_REPLAY_H

#include "jbd/scan.h"
#include "jbd/failure.h"
#include "jbd/revoke.h"

enum replay_policy {
	JBD_POLICY_STOP = 0,	/* e2fsck and the kernel, bit for bit */
	JBD_POLICY_SKIP_BLOCK,	/* every committed transaction; leave out blocks whose own checksum fails */
	JBD_POLICY_SKIP_TXN,	/* every committed transaction except those with a failed checksum */
	JBD_POLICY_ALL,		/* everything committed, checksums ignored */
	JBD_POLICY_AUTO,	/* the diagnosis decides (see struct replay_hooks); otherwise stop */
	JBD_POLICY_ASK,		/* the caller's hook asks the user at each failure */
	JBD_POLICY_NONE,	/* replay nothing */
};

/* "stop", "skip-block", ...; parse returns -1 for an unknown name. */
const char *replay_policy_name(enum replay_policy p);
int replay_policy_parse(const char *name, enum replay_policy *out);

/* What happens to a transaction. */
enum replay_txn_fate {
	JBD_TXN_REPLAYED = 0,
	JBD_TXN_UNCOMMITTED,	/* no commit block: never replayed */
	JBD_TXN_PAST_END,	/* at or after the point where the policy stops replaying */
	JBD_TXN_SKIPPED,	/* skip-transaction (or a refused failure): left out, replay goes on */
	JBD_TXN_RECOVERY_FAILS,	/* recovery fails as a whole: nothing is replayed */
	JBD_TXN_NOT_REPLAYING,	/* policy none */
	JBD_TXN_OLD,		/* found past the end of the live log */
};

/* What happens to one logged block version. */
enum replay_block_fate {
	JBD_BLK_REPLAYED = 0,
	JBD_BLK_CORRECTED,	/* replayed with content the diagnosis proved */
	JBD_BLK_TXN,		/* its transaction is not replayed */
	JBD_BLK_REVOKED,	/* a transaction at or after its own revokes it */
	JBD_BLK_CSUM,		/* its own checksum fails: left out */
	JBD_BLK_OUT_OF_FS,	/* its home is outside the filesystem: never written */
};

/* 1 for the fates whose block version goes home. */
static inline int jbd_fate_writes(enum replay_block_fate f)
{
	return f == JBD_BLK_REPLAYED || f == JBD_BLK_CORRECTED;
}

const char *replay_txn_fate_name(enum replay_txn_fate f);
const char *replay_block_fate_name(enum replay_block_fate f);

enum replay_decision {
	JBD_DECIDE_REFUSE = 0,	/* transaction-level: stop replaying here; block: leave it out */
	JBD_DECIDE_AS_IS,	/* replay as logged */
	JBD_DECIDE_CORRECTED,	/* replay, with corrected journal blocks from hooks->content */
	JBD_DECIDE_SKIP,	/* transaction-level, auto: leave the transaction out and go on
				   (proven to lose nothing: see replay/supersede.c) */
};

struct replay_hooks {
	/*
	 * Ask and auto: called for each failure of a committed transaction,
	 * in the order jbd_failures_next lists them.
	 */
	enum replay_decision (*decide)(void *arg, const struct jbd_failure *f);
	/*
	 * Auto: the proven content of block BLK of transaction TXN (indexes into
	 * the scan; as logged, i.e. still escaped), or NULL to use the journal's
	 * bytes. Asked for every block the plan replays, so a correction found
	 * through a whole-transaction (v1) checksum reaches its block. The
	 * pointer must stay valid until the plan is freed.
	 */
	const unsigned char *(*content)(void *arg, unsigned txn, unsigned blk);
	/*
	 * Ask: asked after each decide; an error (a cancelled question, a bad
	 * scripted answer) ends the plan with it, before anything is written.
	 * May be NULL.
	 */
	errcode_t (*error)(void *arg);
	void *arg;
};

/* One block to write home: the newest replayed version of it. */
struct replay_write {
	uint64_t		fs_block;
	uint32_t		jblk;
	uint32_t		sequence;	/* the transaction it comes from */
	unsigned		txn, blk;	/* indexes into the scan */
	int			escaped;
	const unsigned char	*content;	/* corrected content, or NULL */
};

/* A decision taken on a failure, for the report. */
struct replay_txn_decision {
	struct jbd_failure	failure;
	enum replay_decision	decision;
};

struct replay_plan {
	enum replay_policy	policy;
	const struct jbd_scan	*s;

	enum replay_txn_fate	*txn_fate;	/* [s->ntxns] */
	unsigned		*blk_base;	/* [s->ntxns]: first index of the txn's blocks below */
	uint8_t			*blk_fate;	/* enum replay_block_fate, per logged block */
	uint32_t		*blk_revoker;	/* the revoking ID, for JBD_BLK_REVOKED */

	struct replay_write	*writes;	/* sorted by fs_block, one per block */
	size_t			nwrites;
	uint64_t		superseded;	/* replayed versions overwritten by a newer one */

	struct replay_txn_decision *decisions;
	unsigned		ndecisions;

	/* What recovery leaves behind (as e2fsck records it). */
	errcode_t		recovery_error;	/* recovery fails as a whole: nothing written */
	int			has_failed_commit;
	uint32_t		failed_commit;	/* "transaction N was corrupt": fs error flag */
	unsigned		csum_skipped;	/* blocks left out for a bad checksum: fs not valid */
	unsigned		out_of_fs;	/* blocks refused for pointing outside the fs */
	uint32_t		new_sequence;	/* the journal's s_sequence afterwards */
	int			checksum_failures; /* any failure seen in a committed live transaction */
	int			csum_mismatches; /* of which a checksum's (not a revoke count's) */
	int			as_stop;	/* the transaction decisions are e2fsck's (stop, or auto falling back) */
};

/*
 * Decide, for POLICY, what every transaction and block of the scanned log
 * becomes. FS_BLOCKS is the filesystem's size (homes at or past it are
 * refused). HOOKS may be NULL (auto then behaves as stop; ask refuses).
 */
errcode_t replay_plan_build(const struct jbd_journal *j, const struct jbd_scan *s,
			  enum replay_policy policy, uint64_t fs_blocks,
			  const struct replay_hooks *hooks, struct replay_plan **out);
void replay_plan_free(struct replay_plan *p);

static inline enum replay_block_fate jbd_plan_block_fate(const struct replay_plan *p,
							unsigned txn, unsigned blk)
{
	return (enum replay_block_fate)p->blk_fate[p->blk_base[txn] + blk];
}

/* 1 when some committed transaction of the live log has a checksum failure. */
int replay_log_has_failures(const struct jbd_scan *s);

/* How many of transaction TXN's logged blocks the plan writes (or supersedes). */
unsigned replay_plan_txn_replayed(const struct replay_plan *p, unsigned txn);

/*
 * What the plan leaves out of the committed live log for a checksum failure
 * or a home outside the filesystem: *TXNS transactions not replayed (stopped
 * before, skipped, or recovery failing as a whole) and *BLOCKS blocks of
 * replayed transactions. Both 0 when the replay is complete (corrections
 * proven by auto count as replayed).
 */
void replay_plan_left_out(const struct replay_plan *p, unsigned *txns, unsigned *blocks);

/* 1 when the plan's result should mark the filesystem not valid (a full check is needed). */
int replay_plan_fs_invalid(const struct replay_plan *p);

/* The bytes write W puts home (corrected, unescaped): one block into BUF. */
errcode_t replay_write_content(struct jbd_journal *j, const struct replay_write *w, unsigned char *buf);

/*
 * Write the plan's blocks home through FS_IO, in runs of consecutive
 * filesystem blocks, unescaping as needed; then flush. WB_FD (from
 * fs_writeback_open, or -1) is told to start writing back each batch.
 * *written counts the blocks written.
 */
errcode_t replay_write_blocks(struct jbd_journal *j, const struct replay_plan *p,
				  io_channel fs_io, int wb_fd, uint64_t *written);

#endif
