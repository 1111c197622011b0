/* Diagnosis of journal checksum failures: what each one is, its evidence, and what `auto` does. */
#ifndef E4R_JBD_DIAGNOSE_H
#define E4R_JBD_DIAGNOSE_H

#include "jbd/scan.h"
#include "diag/crc_algebra.h"
#include "fs/decode.h"

/* The object whose checksum fails. */
enum diag_object {
	JBD_OBJ_DATA = 0,	/* a logged block's tag checksum (v2/v3) */
	JBD_OBJ_DESCRIPTOR,	/* a descriptor block's tail (v2/v3) */
	JBD_OBJ_REVOKE,		/* a revoke block's tail (v2/v3) */
	JBD_OBJ_COMMIT,		/* a commit block's own checksum (v2/v3) */
	JBD_OBJ_TRANSACTION,	/* v1: the crc32 over the whole transaction, or its commit header */
};

enum diag_cause {
	JBD_CAUSE_BIT_FLIP = 0,		/* flipped bits, located (candidates in the finding) */
	JBD_CAUSE_STALE,		/* left from an earlier use of the journal */
	JBD_CAUSE_TORN_COMMIT,		/* a commit whose blocks did not all reach the disk */
	JBD_CAUSE_UNJOURNALED,		/* a bitmap changed outside its transaction (the 2012 ext4 bug) */
	JBD_CAUSE_UNEXPLAINED,
	/* The causes below are tested before any flip is offered: each is evidence a flip is not. */
	JBD_CAUSE_FILLED,		/* a stored checksum or a whole block all ones or all zeros: overwritten */
	JBD_CAUSE_MISDIRECTED,		/* the block holds another block's content (a misdirected or stale write) */
	JBD_CAUSE_TORN_WRITE,		/* the intended content up to a sector boundary, other content after it */
	/* Faults of the log's structure (no checksum needs to fail for them). */
	JBD_CAUSE_REVOKE_COUNT,		/* a revoke block's record count is larger than the block */
	JBD_CAUSE_DESCRIPTOR_TAGS,	/* a descriptor's tags run to the block's end: no tag is the last */
	JBD_CAUSE_COMMIT_HEADER,	/* a commit block's checksum type or size the features do not allow */
};

/* What `replay --policy=auto` does with the object (and its transaction). */
enum diag_action {
	JBD_AUTO_REPLAY = 0,			/* nothing wrong: replay as found */
	JBD_AUTO_REPLAY_CORRECTED,		/* replay the proven corrected content */
	JBD_AUTO_REPLAY_AS_IS_BENIGN_LEAK,	/* replay as found: the extra bits are set later anyway */
	JBD_AUTO_STOP,				/* act as the stop policy (e2fsck) does */
};

/* Why auto acts as stop for a finding (action JBD_AUTO_STOP); the code's actual reasons. */
enum diag_stop_reason {
	JBD_STOP_NONE = 0,		/* the action is not stop */
	JBD_STOP_UNEXPLAINED,		/* no cause found: the intended content is unknown */
	JBD_STOP_NOT_PROVEN,		/* flips fit, but not one unique verified fit unlikely by chance */
	JBD_STOP_FLIP_IN_TAGS,		/* a proven flip in a descriptor's tags: the scan parsed the damaged tags */
	JBD_STOP_FLIP_IN_SEQUENCE,	/* a proven flip in the sequence the tag checksums cover */
	JBD_STOP_FLIP_SPANS_BLOCKS,	/* a proven fit with flips in two journal blocks */
	JBD_STOP_STALE,			/* left from an earlier use of the journal: the log ends here */
	JBD_STOP_TORN,			/* a torn commit: the transaction is not known to be complete */
	JBD_STOP_LEAK_UNSOUND,		/* leaked bits, but a transaction that sets them is not replayed */
	JBD_STOP_OVERWRITTEN,		/* filled, misdirected or torn: the intended content is not there */
	JBD_STOP_STRUCTURE,		/* the log's structure is damaged: what the transaction holds is not known */
};

/* Which field of a failing object is filled (cause JBD_CAUSE_FILLED). */
enum diag_fill_field {
	JBD_FILL_NONE = 0,
	JBD_FILL_STORED_CSUM,	/* the stored checksum (a tag's, a tail's, the commit's) */
	JBD_FILL_BLOCK,		/* the whole block */
	JBD_FILL_COMMIT_TIME,	/* a commit block's time (seconds or nanoseconds), all ones */
};

/* What a block that holds another block's content matches (cause JBD_CAUSE_MISDIRECTED). */
enum diag_match_kind {
	JBD_MATCH_NONE = 0,
	JBD_MATCH_LOGGED,	/* a block of the log: a logged copy, a descriptor, a revoke or commit block */
	JBD_MATCH_HOME,		/* the home (filesystem) block of another tag of the transaction */
};

struct diag_match {
	enum diag_match_kind	kind;
	uint32_t		jblk;		/* LOGGED: the journal block matched */
	uint32_t		sequence;	/* LOGGED: its transaction; HOME: the tag's */
	uint64_t		fs_block;	/* LOGGED copy: its home; HOME: the block matched */
	int			is_copy;	/* LOGGED: a logged copy (fs_block is its home), not a log block */
};

/* Where a flipped bit is. */
enum diag_flip_place {
	JBD_FLIP_CONTENT = 0,	/* in the bytes the checksum covers */
	JBD_FLIP_STORED,	/* in the stored checksum (a tag, a tail, the commit block) */
	JBD_FLIP_SEQUENCE,	/* in the sequence a tag checksum covers (the descriptor header) */
};

struct diag_flip {
	uint32_t	jblk;		/* journal block holding the bit */
	uint32_t	byte;		/* byte in that block */
	uint8_t		bit;		/* the bit's value is 1 << bit */
	uint8_t		place;		/* enum diag_flip_place */
};

/* One error pattern that explains the mismatch. */
struct diag_candidate {
	unsigned	nflips;
	struct diag_flip	flip[CRC_PATTERN_MAX_BITS];
	unsigned	weight;
	unsigned	span;		/* bursts only */
	int		verified;	/* the real checksum over the corrected bytes matches */
};

#define JBD_DIAG_MAX_CAND	CRC_MAX_CANDIDATES
#define JBD_LEAK_MAX_BITS	64

/* The unjournaled-modification evidence (cause JBD_CAUSE_UNJOURNALED). */
struct diag_leak {
	unsigned	nbits;
	uint32_t	bit[JBD_LEAK_MAX_BITS];	/* bit numbers in the bitmap block */
	uint32_t	set_by[JBD_LEAK_MAX_BITS];	/* the later transaction whose copy has it */
	uint64_t	object[JBD_LEAK_MAX_BITS];	/* the inode (inode bitmap) or block it stands for */
	int		before_from_home;	/* the earlier content came from the home block */
	unsigned	later_versions;		/* later committed copies compared */
};

struct diag_finding {
	enum diag_object	object;
	unsigned		txn;		/* index in scan->txns */
	uint32_t		sequence;
	int			block;		/* index in txn->blocks of the block at fault (JBD_OBJ_DATA;
						   v1: where the flips or the leak are), else -1 */
	uint32_t		jblk;		/* the failing block (v1: the commit block) */
	uint64_t		fs_block;	/* the home of that block (block >= 0), else 0 */
	struct fs_block_info	info;		/* what fs_block is (kind UNKNOWN if not decoded) */
	struct jbd_csum		csum;		/* stored and computed, as the scan found them */
	unsigned		csum_bits;	/* bits stored: 32, or 16 for v2 tags */

	enum diag_cause		cause;
	enum diag_action	action;
	enum diag_stop_reason	stop_reason;	/* why, when action is JBD_AUTO_STOP */
	int			problem;	/* 0: normal log end (a stale transaction) */

	/* The bit-flip search (always run when the checksum allows it). */
	int			searched;	/* CRC_SEARCHED_* */
	unsigned		weight;		/* of the lightest fits; 0 none */
	int			burst;
	uint64_t		nfits;		/* patterns that fit at that weight */
	double			chance;		/* fits expected by chance (see crc_result) */
	int			proven;		/* exactly one lightest fit, and it verifies */
	int			correction_proven; /* proven, taken as the cause, and unlikely by chance:
						      the fit is the intended content (auto's test) */
	unsigned		ncand;
	struct diag_candidate	cand[JBD_DIAG_MAX_CAND];

	/* Stale evidence. */
	int			uuid_mismatch;	/* a descriptor names another journal UUID */
	int			has_stale_sequence;
	uint32_t		stale_sequence;	/* the tag checksum matches this sequence instead */
	int			time_backwards;	/* commit time earlier than the previous commit's */
	uint64_t		commit_sec, prev_commit_sec;

	/* Torn-commit evidence. */
	int			async_commit;
	int			last_commit;	/* no later commit in the log */
	int			partial_commit;	/* the 60-byte commit header alone checks out */
	unsigned		bad_tags;	/* tags of this transaction that fail */

	struct diag_leak		leak;

	/*
	 * A fault of the log's structure (the REVOKE_COUNT, DESCRIPTOR_TAGS and
	 * COMMIT_HEADER causes): then csum is only what the scan found, and the
	 * evidence is here.
	 */
	int			structure;
	uint32_t		r_count;	/* REVOKE_COUNT: as on disk ... */
	uint32_t		r_count_max;	/* ... and the most the block holds */
	unsigned		ntags;		/* DESCRIPTOR_TAGS: tags read from the descriptor */
	int			claims_log_block; /* ... one of them claims a block of this transaction's log ... */
	uint32_t		claimed_jblk;	/* ... this one (a descriptor, revoke or commit block) */
	uint8_t			header_type, header_size;	/* COMMIT_HEADER: as on disk */

	/* FILLED: which field, and the byte it is filled with (0x00 or 0xff). */
	enum diag_fill_field	fill_field;
	uint8_t			fill_byte;
	/* MISDIRECTED: the block it equals. */
	struct diag_match	match;
	/*
	 * TORN_WRITE: the block equals INTENDED (whose content makes the
	 * checksum match) before sector TORN_SECTOR and differs from it in
	 * every sector from there (TORN_NEW_FIRST), or the other way round.
	 */
	unsigned		torn_sector, sectors;
	int			torn_new_first;
	struct diag_match	torn_intended;

	/* A proven correction: the fixed journal block, as logged (escaped), NULL when none. */
	unsigned char		*corrected;
	uint32_t		corrected_jblk;
};

struct diag_report {
	struct diag_finding	*findings;
	unsigned		nfindings;
	unsigned		problems;	/* findings with problem set */
	unsigned		ntxns;		/* scan->ntxns, for the accessors */
};

/*
 * Diagnose every checksum failure of the live log in S (committed
 * transactions, and the stale one the log may end at): locate bit flips and
 * prove them by recomputing, and test the other causes. Reads journal blocks
 * and, for leaks, home blocks through J. *OUT is always set on success (with
 * no findings for a healthy log). Errors: I/O, EXT2_ET_NO_MEMORY.
 */
errcode_t diag_journal(struct jbd_journal *j, const struct jbd_scan *s, struct diag_report **out);
void diag_free(struct diag_report *d);

/*
 * For the replay engine (`--policy=auto`):
 * diag_txn_action: the action for transaction TXN (index in
 * scan->txns): the strongest of its findings' (STOP wins), REPLAY if none.
 * diag_block: the proven corrected content of block BLOCK of TXN
 * (blocksize bytes, owned by D), or NULL: then replay the journal copy as is
 * (if the transaction's action allows replay at all). The content is the
 * journal copy corrected: still escaped if its tag says ESCAPE.
 */
enum diag_action diag_txn_action(const struct diag_report *d, unsigned txn);
const unsigned char *diag_block(const struct diag_report *d, const struct jbd_scan *s,
					 unsigned txn, unsigned block);

/* Short names for JSON: "bit_flip", "data", "replay_corrected", ... */
const char *diag_cause_name(enum diag_cause c);
const char *diag_object_name(enum diag_object o);
const char *diag_action_name(enum diag_action a);
const char *diag_flip_place_name(enum diag_flip_place p);
const char *diag_stop_reason_name(enum diag_stop_reason r);

/*
 * The leak detector, on its own (pure: no I/O). LOGGED is the failing copy
 * of a bitmap block, BEFORE the content it had before its transaction (the
 * previous logged copy, or the home block; NULL if unknown), LATER[0..NLATER)
 * its later committed copies, oldest first (sequences in LATER_SEQ). The
 * checksum: the block sits at byte BLOCK_OFFSET of a NBYTES message of ALG,
 * and SYNDROME (stored ^ computed, within MASK) is what is to be explained.
 * Finds the bits set in LOGGED, clear in BEFORE and set in the next later
 * copy whose clearing explains the syndrome exactly (one solution of
 * smallest weight). Returns 1 and fills LEAK (bit, set_by) when found, 0
 * when not. The caller proves it by recomputing the real checksum.
 */
int diag_leak_find(const unsigned char *logged, const unsigned char *before,
		  const unsigned char *const *later, const uint32_t *later_seq, unsigned nlater,
		  unsigned blocksize, enum diag_crc_alg alg, uint64_t nbytes, uint64_t block_offset,
		  uint32_t syndrome, uint32_t mask, struct diag_leak *leak);

#endif
