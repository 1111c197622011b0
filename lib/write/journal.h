/* The journal writer: jbd2-like running and committing transactions over a block cache. */
#ifndef E4R_JBD_WRITER_H
#define E4R_JBD_WRITER_H

#include <ext2fs/ext2fs.h>
#include "write/blockdev.h"
#include "jbd/format.h"
#include "jbd/journal.h"
#include "jbd/logwrite.h"

/*
 * The model. libext2fs is opened through write_txn_io_manager, which keeps the
 * newest content of every metadata block libext2fs writes in a block cache
 * (the kernel's buffer cache) and marks it dirty in the running transaction
 * instead of writing it home. A commit freezes the running transaction,
 * computes its tags and checksums, and later writes descriptor, data, revoke
 * and commit blocks to the log through the block layer; checkpointing writes
 * the committed blocks home and moves the log tail. File data never enters
 * the journal (data=ordered): callers write it through write_data_block() before
 * the commit that makes it reachable.
 */

struct write_buf;
struct write_txn;

/* Options of a writer session. */
struct write_options {
	enum jbd_csum_version csum;	/* checksum scheme to put in the journal superblock */
	int		async_commit;	/* ASYNC_COMMIT: the commit block does not wait for the data */
	unsigned long	crash_after;	/* block layer: power cut after this many writes (0: never) */
	unsigned	torn_bytes;	/* block layer: bytes of the first lost write that land */
};

struct write_journal {
	ext2_filsys	fs;
	struct jbd_journal *journal;
	struct write_blockdev bdev;	/* every write to the image goes through here */
	io_channel	raw;		/* the image itself (our io manager's backing channel) */
	unsigned	blocksize;
	int		direct;		/* 1: writes through the io manager go home, not to the journal */
	struct write_options opt;
	void		*owner;		/* the filesystem layer using this writer */

	struct write_buf	**hash;		/* the block cache */
	unsigned	hash_size;

	struct write_txn	*running;
	struct write_txn	*committing;	/* commit started, its log blocks not yet written */
	uint32_t	next_tid;
	uint32_t	head;		/* next free log block */
	uint32_t	tail;		/* first log block of the oldest un-checkpointed transaction */
	uint32_t	tail_tid;
	int		log_live;	/* the journal superblock has s_start != 0 */
	uint32_t	incompat, compat;	/* journal features as written */
	uint32_t	csum_seed;
	unsigned	tag_bytes;
	struct jbd_logfmt fmt;		/* the log's layout, for jbd/logwrite.c */

	/* statistics */
	unsigned long	commits, checkpoints, journal_blocks_written;
};

/* The io manager libext2fs must be opened with; write_open() sets it up. */
extern io_manager write_txn_io_manager;

/* Open IMAGE for writing through the journal. Refuses images needing recovery. */
errcode_t write_open(const char *image, const struct write_options *opt, struct write_journal **out);
/* Clean finish: commit, checkpoint everything, mark the journal empty, clear needs_recovery.
 * The writer stays allocated (its statistics): write_abandon() frees it. */
errcode_t write_close_clean(struct write_journal *w);
/* Free everything without writing anything more (after write_close_clean, or a simulated crash). */
void write_abandon(struct write_journal *w);

/*
 * Commit: flush libext2fs's bitmaps, descriptors and superblock into the
 * running transaction, freeze it (tags and checksums are computed now) and
 * start a new running transaction. The log blocks are written by
 * write_commit_finish(); until then, ops of the new transaction run "while the
 * commit is in flight", and a block they modify is first frozen (copied) for
 * the committing transaction, as do_get_write_access() does.
 */
errcode_t write_commit_start(struct write_journal *w);
errcode_t write_commit_finish(struct write_journal *w);
/* Both, as sync(2) would. */
errcode_t write_commit_sync(struct write_journal *w);

/* 1 when the running transaction reached jbd2's limit (a quarter of the log) and must commit. */
int write_running_full(const struct write_journal *w);

/* Checkpoint every committed transaction and move the log tail. */
errcode_t write_checkpoint(struct write_journal *w);

/* Write a file data block home (data=ordered: not journaled). */
errcode_t write_data_block(struct write_journal *w, blk64_t blk, const void *buf);
errcode_t write_read_block(struct write_journal *w, blk64_t blk, void *buf);

/* 1 when BLK was freed by a transaction that has not committed (mballoc will not reuse it). */
int write_block_pending_free(struct write_journal *w, blk64_t blk);
/* Call FN for every block freed by the running transaction (and, with COMMITTING, the committing one). */
void write_for_each_pending_free(struct write_journal *w, int committing, void (*fn)(blk64_t blk, void *priv),
			      void *priv);

/*
 * The unprotected modification of the 3.4 kernels: set bit BIT of block BLK's
 * live buffer without get_write_access, so a committing transaction that
 * logs BLK and has not written it yet carries the change past its checksum.
 * Returns 1 when the block was in flight in the committing transaction.
 */
int write_leak_bit_unjournaled(struct write_journal *w, blk64_t blk, unsigned bit);

#endif
