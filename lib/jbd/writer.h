/* The journal writer: jbd2-like running and committing transactions over a block cache. */
#ifndef E4R_JBD_WRITER_H
#define E4R_JBD_WRITER_H

#include <ext2fs/ext2fs.h>
#include "jbd/blockdev.h"
#include "jbd/format.h"
#include "jbd/journal.h"
#include "jbd/logwrite.h"

/*
 * The model. libext2fs is opened through jbd_writer_io_manager, which keeps the
 * newest content of every metadata block libext2fs writes in a block cache
 * (the kernel's buffer cache) and marks it dirty in the running transaction
 * instead of writing it home. A commit freezes the running transaction,
 * computes its tags and checksums, and later writes descriptor, data, revoke
 * and commit blocks to the log through the block layer; checkpointing writes
 * the committed blocks home and moves the log tail. File data never enters
 * the journal (data=ordered): callers write it through jbd_writer_write_data()
 * before the commit that makes it reachable.
 */

struct jbd_wbuf;
struct jbd_wtxn;

/* Options of a writer session. */
struct jbd_writer_options {
	enum jbd_csum_version csum;	/* checksum scheme to put in the journal superblock */
	int		async_commit;	/* ASYNC_COMMIT: the commit block does not wait for the data */
	unsigned long	crash_after;	/* block layer: power cut after this many writes (0: never) */
	unsigned	torn_bytes;	/* block layer: bytes of the first lost write that land */
};

struct jbd_writer {
	ext2_filsys	fs;
	struct jbd_journal *journal;
	struct jbd_blockdev bdev;	/* every write to the image goes through here */
	io_channel	raw;		/* the image itself (our io manager's backing channel) */
	unsigned	blocksize;
	int		direct;		/* 1: writes through the io manager go home, not to the journal */
	struct jbd_writer_options opt;
	void		*owner;		/* the filesystem layer using this writer */

	struct jbd_wbuf	**hash;		/* the block cache */
	unsigned	hash_size;

	struct jbd_wtxn	*running;
	struct jbd_wtxn	*committing;	/* commit started, its log blocks not yet written */
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

/* The io manager libext2fs must be opened with; jbd_writer_open() sets it up. */
extern io_manager jbd_writer_io_manager;

/* Open IMAGE for writing through the journal. Refuses images needing recovery. */
errcode_t jbd_writer_open(const char *image, const struct jbd_writer_options *opt, struct jbd_writer **out);
/* Clean finish: commit, checkpoint everything, mark the journal empty, clear needs_recovery.
 * The writer stays allocated (its statistics): jbd_writer_abandon() frees it. */
errcode_t jbd_writer_close_clean(struct jbd_writer *w);
/* Free everything without writing anything more (after jbd_writer_close_clean, or a simulated crash). */
void jbd_writer_abandon(struct jbd_writer *w);

/*
 * Commit: flush libext2fs's bitmaps, descriptors and superblock into the
 * running transaction, freeze it (tags and checksums are computed now) and
 * start a new running transaction. The log blocks are written by
 * jbd_writer_commit_finish(); until then, ops of the new transaction run "while the
 * commit is in flight", and a block they modify is first frozen (copied) for
 * the committing transaction, as do_get_write_access() does.
 */
errcode_t jbd_writer_commit_start(struct jbd_writer *w);
errcode_t jbd_writer_commit_finish(struct jbd_writer *w);
/* Both, as sync(2) would. */
errcode_t jbd_writer_commit_sync(struct jbd_writer *w);

/* 1 when the running transaction reached jbd2's limit (a quarter of the log) and must commit. */
int jbd_writer_running_full(const struct jbd_writer *w);

/* Checkpoint every committed transaction and move the log tail. */
errcode_t jbd_writer_checkpoint(struct jbd_writer *w);

/*
 * File data (data=ordered: never journaled): write block BLK home, or read it from
 * home through the block layer (the block cache holds metadata only).
 */
errcode_t jbd_writer_write_data(struct jbd_writer *w, blk64_t blk, const void *buf);
errcode_t jbd_writer_read_data(struct jbd_writer *w, blk64_t blk, void *buf);

/* 1 when BLK was freed by a transaction that has not committed (mballoc will not reuse it). */
int jbd_writer_pending_free(struct jbd_writer *w, blk64_t blk);
/* Call FN for every block freed by the running transaction (and, with COMMITTING, the committing one). */
void jbd_writer_for_each_pending_free(struct jbd_writer *w, int committing,
				      void (*fn)(blk64_t blk, void *priv), void *priv);

/*
 * A cached block as the kernel's buffer_head shows it, for a caller that goes
 * round the journal on purpose (the simulator's reproduction of the 3.4 kernels'
 * unprotected bitmap change). jbd_writer_cached: BLK's live content (b_data), NULL
 * when it is not cached; a change made there reaches whatever logs BLK next
 * without write access. jbd_writer_commit_reads_live: 1 when the committing
 * transaction has yet to write BLK to the log and will take the live content (no
 * frozen copy). jbd_writer_get_write_access: do_get_write_access for a cached BLK
 * (the committing transaction's copy frozen, BLK joins the running transaction).
 */
unsigned char *jbd_writer_cached(struct jbd_writer *w, blk64_t blk);
int jbd_writer_commit_reads_live(struct jbd_writer *w, blk64_t blk);
errcode_t jbd_writer_get_write_access(struct jbd_writer *w, blk64_t blk);

#endif
