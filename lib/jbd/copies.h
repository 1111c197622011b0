/*
 * Every copy of every filesystem block the journal holds: the
 * live log's and the old, checkpointed transactions' (JBD_SCAN_OLD), built
 * from one scan, so a damaged block can be brought back from the newest copy.
 */
#ifndef E4R_JBD_COPIES_H
#define E4R_JBD_COPIES_H

#include "jbd/scan.h"

/* One copy: where it is in the journal and what its transaction says of it. */
struct jbd_copy {
	uint64_t	fs_block;	/* its home in the filesystem */
	uint32_t	jblk;		/* the journal block holding it */
	uint32_t	sequence;	/* its transaction */
	uint64_t	commit_sec;	/* the transaction's commit time (0: no commit block) */
	uint32_t	commit_nsec;
	unsigned	txn;		/* index in the scan's txns */
	uint8_t		live;		/* from the live log (not yet checkpointed) */
	uint8_t		committed;	/* a commit block closes its transaction */
	uint8_t		csum_ok;	/* committed, and every checksum that covers it verifies
					   (tag, descriptor tail, commit block; those the journal has) */
	uint8_t		revoked;	/* a later transaction revokes the block: the copy is stale */
	uint8_t		escaped;	/* its first 4 bytes were the JBD2 magic (read puts them back) */
};

/* The copies, sorted by fs_block, then newest first. */
struct jbd_copies {
	struct jbd_copy	*v;
	size_t		n;
};

/* Index every block of S's transactions (live and old). */
errcode_t jbd_copies_build(const struct jbd_scan *s, struct jbd_copies **out);
void jbd_copies_free(struct jbd_copies *c);

/* The copies of FS_BLOCK: *FIRST is the newest, *COUNT how many (0: none). */
void jbd_copies_find(const struct jbd_copies *c, uint64_t fs_block, size_t *first, size_t *count);

/* Read copy C's bytes (one journal block) into BUF, unescaped. */
errcode_t jbd_copies_read(struct jbd_journal *j, const struct jbd_copy *c, void *buf);

#endif
