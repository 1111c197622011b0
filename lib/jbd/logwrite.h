/*
 * Writing JBD2 log blocks: descriptor blocks with their tags, escaped data
 * blocks and the commit block, in the checksum scheme a journal uses. The
 * journal writer's transactions (writer.c, under the simulator) and the
 * checker's journaled repair rounds (jbd_log_commit, below) are both laid out
 * here, so the log either writes is the same format every replayer reads.
 */
#ifndef E4R_JBD_LOGWRITE_H
#define E4R_JBD_LOGWRITE_H

#include <stdint.h>
#include <ext2fs/ext2fs.h>

#include "jbd/format.h"
#include "jbd/journal.h"

/* What a log block's layout depends on. */
struct jbd_logfmt {
	unsigned	blocksize;
	uint32_t	incompat;	/* as written in the journal superblock: tag size, 64BIT */
	enum jbd_csum_version csum;
	uint32_t	seed;		/* crc32c(~0, uuid), for v2/v3 */
	unsigned	tag_bytes;
	const uint8_t	*uuid;		/* 16 bytes */
};

/* The format J's log uses now. */
void jbd_logfmt_of(const struct jbd_journal *j, struct jbd_logfmt *f);

/* One logged block: its place home, its bytes in the log (already escaped when ESCAPED). */
struct jbd_log_entry {
	blk64_t			blk;
	const unsigned char	*data;
	int			escaped;
};

/* A block header (magic, TYPE, TID) at the start of BLK. */
void jbd_log_header(unsigned char *blk, uint32_t type, uint32_t tid);

/* v2/v3: the block tail's checksum of a descriptor or revoke block; nothing otherwise. */
void jbd_log_tail_csum(const struct jbd_logfmt *f, unsigned char *blk);

/* 1 when DATA starts with the journal magic: its log copy must be escaped (magic zeroed). */
int jbd_log_needs_escape(const unsigned char *data);

/*
 * The descriptor blocks for E[0..N) of transaction TID, as jbd2's commit
 * lays them: *DESCS holds *NDESC blocks (free both arrays), descriptor i
 * tags entries [(*DESC_END)[i-1], (*DESC_END)[i]). With a v1 journal,
 * *V1_CRC is the transaction's crc32 over descriptors and data, for the
 * commit block.
 */
errcode_t jbd_log_descriptors(const struct jbd_logfmt *f, uint32_t tid, const struct jbd_log_entry *e,
			      unsigned n, unsigned char **descs, unsigned **desc_end, unsigned *ndesc,
			      uint32_t *v1_crc);

/* The commit block of transaction TID into BLK (the commit time is now). */
void jbd_log_commit_block(const struct jbd_logfmt *f, uint32_t tid, uint32_t v1_crc, unsigned char *blk);

/* Log blocks a transaction of N blocks takes: descriptors, the blocks and the commit block. */
unsigned long jbd_log_blocks_needed(const struct jbd_logfmt *f, unsigned long n);

/*
 * 1 when J's log can take one transaction of N blocks, the largest numbered
 * MAX_BLK: they fit between its first and last block, and every one can be
 * tagged (past 2^32 only with 64BIT). jbd_log_commit refuses the others.
 */
int jbd_log_holds(const struct jbd_journal *j, unsigned long n, blk64_t max_blk);

/*
 * The most blocks one transaction of J's log can take when the largest
 * numbered is MAX_BLK (jbd_log_holds of it is 1, of one more 0); 0 when
 * none can be taken.
 */
unsigned long jbd_log_capacity(const struct jbd_journal *j, blk64_t max_blk);

/*
 * Commit E[0..N) (their data as home is to have it; escaping is done here,
 * their ESCAPED flags are not read) as one transaction into J's log, which must be empty
 * (s_start 0): the descriptors and blocks from the log's first block, a
 * flush, the commit block, a flush, then the journal superblock saying
 * where the log starts. From then any replay (the kernel's, e2fsck's, ours)
 * writes the blocks home; J->io must be the device under any overlay.
 * E4R_WRITE_TXN_TOO_BIG when the log cannot hold them (jbd_log_holds):
 * nothing is written.
 */
errcode_t jbd_log_commit(struct jbd_journal *j, const struct jbd_log_entry *e, unsigned n);

/*
 * After the committed blocks are home: the log is empty again (s_start 0,
 * the next transaction's sequence), as jbd2 marks it after a checkpoint.
 */
errcode_t jbd_log_checkpointed(struct jbd_journal *j);

#endif
