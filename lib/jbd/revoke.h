/* The revoke table: which logged block versions a later (or the same) transaction revokes. */
#ifndef E4R_JBD_REVOKE_H
#define E4R_JBD_REVOKE_H

#include <stdint.h>
#include <ext2fs/ext2fs.h>
#include "jbd/scan.h"

/* Transaction IDs wrap at 2^32: compare them as jbd2 does. */
static inline int jbd_tid_lt(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

struct jbd_revoke_entry {
	uint64_t	blk;
	uint32_t	seq;	/* the newest transaction that revokes blk */
};

struct jbd_revoke_table {
	struct jbd_revoke_entry	*e;
	size_t			n;
};

/*
 * Build the table from the live transactions for which USE(arg, index)
 * returns 1 (the kernel loads the revokes of every transaction before its
 * replay end). A revoke block whose record count is bad contributes nothing.
 * Each block keeps the newest revoking ID, as jbd2's revoke hash does.
 */
errcode_t jbd_revoke_build(const struct jbd_scan *s, int (*use)(void *arg, unsigned txn), void *arg,
			   struct jbd_revoke_table *out);
void jbd_revoke_free(struct jbd_revoke_table *t);

/*
 * 1 when the version of BLK logged in transaction SEQ must not be replayed:
 * some loaded transaction with an ID >= SEQ revokes it. *revoker gets that ID.
 */
int jbd_revoke_test(const struct jbd_revoke_table *t, uint64_t blk, uint32_t seq, uint32_t *revoker);

#endif
