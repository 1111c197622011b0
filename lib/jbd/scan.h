/* Walking the journal log: transactions, their blocks and every checksum. */
#ifndef E4R_JBD_SCAN_H
#define E4R_JBD_SCAN_H

#include "jbd/journal.h"

/* The verdict on one checksum. */
enum jbd_csum_state {
	JBD_CSUM_NA  = -1,	/* the journal does not checksum this object */
	JBD_CSUM_BAD = 0,
	JBD_CSUM_OK  = 1,
};

struct jbd_csum {
	int		state;		/* enum jbd_csum_state */
	uint32_t	stored;		/* as found on disk */
	uint32_t	computed;	/* what the bytes give now */
};

static inline int jbd_csum_bad(const struct jbd_csum *c)
{
	return c->state == JBD_CSUM_BAD;
}

/*
 * One logged filesystem block (one descriptor tag). Where its tag is
 * (desc_jblk, tag_off) is recorded so that nobody walks a descriptor's
 * tags again: this scan is the only reader of the tag layout.
 */
struct jbd_scan_block {
	uint64_t	fs_block;	/* home location in the filesystem */
	uint32_t	jblk;		/* journal block holding the copy */
	uint32_t	desc_jblk;	/* descriptor block that tags it */
	unsigned	desc;		/* that descriptor: index in txn->descs */
	unsigned	tag_off;	/* byte offset of its tag in the descriptor block */
	uint16_t	flags;		/* JBD_FLAG_* from the tag */
	struct jbd_csum	csum;		/* v2/v3 tag checksum (v2: 16 bits) */
};

struct jbd_scan_desc {
	uint32_t	jblk;
	unsigned	ntags;
	struct jbd_csum	tail;		/* v2/v3 descriptor tail */
	int		has_uuid;	/* its first tag is followed by a UUID ... */
	int		no_last_tag;	/* no tag says it is the last: the tags ran to the block's end */
	uint8_t		uuid[JBD_UUID_SIZE];	/* ... this one */
};

struct jbd_scan_revoke {
	uint32_t	jblk;
	uint32_t	r_count;	/* bytes used, as on disk */
	int		count_bad;	/* r_count larger than the block allows */
	struct jbd_csum	tail;		/* v2/v3 revoke tail */
	unsigned	first;		/* its records: txn->revoked[first .. first+count) */
	unsigned	count;
};

/* One transaction, in log order. */
struct jbd_scan_txn {
	uint32_t	sequence;
	uint32_t	first_jblk;	/* its first block in the log */
	int		old;		/* found past the end of the live log (--all) */

	struct jbd_scan_desc	*descs;		unsigned ndescs;
	struct jbd_scan_block	*blocks;	unsigned nblocks;
	struct jbd_scan_revoke	*revokes;	unsigned nrevokes;
	uint64_t		*revoked;	unsigned nrevoked;	/* blocks revoked */

	int		committed;	/* a commit block closes it */
	uint32_t	commit_jblk;
	uint8_t		commit_csum_type, commit_csum_size;
	/*
	 * Its checksum type and size are none the journal's features allow
	 * (v1: crc32 and 4, or 0 and 0; otherwise 0 and 0, as jbd2 writes them)
	 */
	int		commit_header_bad;
	struct jbd_csum	commit_csum;	/* v1: crc32 over the transaction; v2/v3: commit block */
	uint64_t	commit_sec;
	uint32_t	commit_nsec;
};

/* Why the live log ends where it does. */
enum jbd_scan_end {
	JBD_END_CLEAN = 0,	/* s_start is 0: nothing to recover */
	JBD_END_NO_MAGIC,	/* a block without the JBD2 magic */
	JBD_END_SEQUENCE,	/* a block of another transaction ID */
	JBD_END_UNKNOWN_TYPE,	/* a block type the format does not define */
	JBD_END_STALE,		/* a stale transaction (commit time went backwards after a checksum failure) */
	JBD_END_BAD_BLOCK,	/* a descriptor or revoke block that cannot be parsed */
	JBD_END_WRAPPED,	/* the walk came back to s_start (a loop) */
	JBD_END_IO,		/* a journal block could not be read */
	JBD_END_LIMIT,		/* a safety limit (E4R_SCAN_TOO_MANY) */
};

struct jbd_scan {
	struct jbd_scan_txn	*txns;	unsigned ntxns;	/* live ones first, then old ones */
	unsigned		nlive;	/* txns[0 .. nlive) are the live log */

	uint32_t		end_jblk;	/* first block not part of the live log */
	uint32_t		end_sequence;	/* the ID expected there */
	enum jbd_scan_end	end_reason;
	errcode_t		end_error;	/* for END_IO / END_LIMIT / END_BAD_BLOCK */

	/*
	 * What e2fsck 1.47 and the kernel make of this log (the "stop"
	 * policy): transactions with sequence < stop_end are replayed;
	 * failed_commit is the ID e2fsck reports as "corrupt, replay was
	 * aborted" (0 if none); stop_error is set when recovery fails as a
	 * whole (a bad descriptor/revoke tail, a bad revoke count: nothing
	 * is replayed).
	 */
	uint32_t		stop_end;
	uint32_t		failed_commit;
	int			has_failed_commit;
	errcode_t		stop_error;
};

/* jbd_scan_log() flags */
#define JBD_SCAN_OLD	0x1	/* also collect old, checkpointed transactions past the end */

errcode_t jbd_scan_log(struct jbd_journal *j, int flags, struct jbd_scan **out);
void jbd_scan_free(struct jbd_scan *s);

/*
 * Faults of the live log's structure, not of a checksum: revoke record
 * counts past their block, descriptors whose tags run to the block's end
 * without a last tag, commit headers the features do not allow. The
 * diagnosis explains each; e2fsck fails recovery only for the first.
 */
unsigned jbd_scan_structure_faults(const struct jbd_scan *s);

/* A short English name for an end reason, for JSON ("no_magic", ...). */
const char *jbd_scan_end_name(enum jbd_scan_end reason);

#endif
