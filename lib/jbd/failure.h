/* What failed in a transaction of a scanned log: one list, in the order e2fsck meets the failures. */
#ifndef E4R_JBD_FAILURE_H
#define E4R_JBD_FAILURE_H

#include "jbd/scan.h"

enum jbd_failure_kind {
	JBD_FAIL_COMMIT,	/* the commit checksum (v1: the whole transaction) */
	JBD_FAIL_DESC_TAIL,	/* a descriptor block's tail */
	JBD_FAIL_REVOKE_TAIL,	/* a revoke block's tail */
	JBD_FAIL_REVOKE_COUNT,	/* a revoke block's record count is larger than the block */
	JBD_FAIL_BLOCK,		/* one logged block's tag checksum */
};

struct jbd_failure {
	enum jbd_failure_kind	kind;
	unsigned		txn;	/* index into scan->txns */
	unsigned		index;	/* the descriptor, revoke block or block within the transaction */
	uint32_t		sequence;	/* the transaction's ID */
	uint32_t		jblk;		/* the failing journal block (the commit block for COMMIT) */
	uint64_t		fs_block;	/* JBD_FAIL_BLOCK: the block's home */
	const struct jbd_csum	*csum;		/* the failing checksum; NULL for REVOKE_COUNT */
};

/* Which failures to list (jbd_failures_init's WHAT). */
#define JBD_FAILS_TXN		0x1	/* descriptor tails, revoke blocks, the commit */
#define JBD_FAILS_BLOCKS	0x2	/* the logged blocks' tag checksums */
#define JBD_FAILS_ALL		(JBD_FAILS_TXN | JBD_FAILS_BLOCKS)

struct jbd_failure_iter {
	const struct jbd_scan	*s;
	unsigned		txn;
	unsigned		what;
	unsigned		stage;	/* descriptors, revokes, blocks, commit, done */
	unsigned		i;	/* within the stage */
	unsigned		sub;	/* revokes: 0 the tail, 1 the count */
};

/*
 * List the failures of transaction TXN of S, in this order: descriptor
 * tails, revoke blocks (each one's tail, then its count), the logged
 * blocks' tags, the commit. The commit counts only for a committed
 * transaction: the commit of the stale transaction a log may end at is
 * where the log ends, not a failure of it.
 *
 * A revoke block with a bad count is listed for its count, and for its
 * tail as well when that fails too: e2fsck checks them in different
 * passes (the tail while scanning, where it only asks for the commit time
 * check; the count when reading the records, where it fails the whole
 * recovery), so each is a failure of its own for replay, the tail first.
 */
void jbd_failures_init(struct jbd_failure_iter *it, const struct jbd_scan *s, unsigned txn, unsigned what);
/* The next failure into *OUT: 1, or 0 when there is none left. */
int jbd_failures_next(struct jbd_failure_iter *it, struct jbd_failure *out);

/* How many failures of transaction TXN jbd_failures_next lists for WHAT. */
unsigned jbd_txn_failures(const struct jbd_scan *s, unsigned txn, unsigned what);

#endif
