/* The journal writer's internals, shared by journal.c, buffer.c and txn_io.c. */
#ifndef E4R_JBD_WRITER_INT_H
#define E4R_JBD_WRITER_INT_H

#include "write/journal.h"

/* One cached filesystem block: the kernel's buffer_head with its journal_head. */
struct write_buf {
	blk64_t		blk;
	struct write_buf	*next;		/* hash chain */
	unsigned char	*data;		/* the live content */
	uint32_t	dirty_tid;	/* running transaction that has it dirty; 0: none */
	int		in_log;		/* logged by a transaction still in the log */
	unsigned char	*ckpt;		/* committed content not yet written home */
	struct write_tbuf	*inflight;	/* committing transaction's entry that still reads data */
	int		reborn;		/* freed since last logged: the next write is logged even unchanged */
};

/* A block of a transaction. */
struct write_tbuf {
	struct write_buf	*buf;
	unsigned char	*frozen;	/* own copy for the log (escaped, or frozen by a later write) */
	int		escaped;
	int		forgotten;	/* freed in this transaction: not logged */
};

struct write_txn {
	uint32_t	tid;
	struct write_tbuf	*bufs;
	unsigned	n, cap;
	blk64_t		*revokes;
	unsigned	nrev, caprev;
	blk64_t		*freed;
	unsigned	nfreed, capfreed;
	/* the commit plan, made at commit start */
	unsigned char	*descs;		/* ndesc descriptor blocks */
	unsigned	*desc_end;	/* desc i covers logged entries [desc_end[i-1], desc_end[i]) */
	unsigned	ndesc;
	unsigned	*logged;	/* indexes into bufs of the blocks logged, in log order */
	unsigned	nlogged;
	unsigned char	*revblks;
	unsigned	nrevblk;
	uint32_t	v1_crc;
	uint32_t	jstart;		/* first log block */
};

struct write_buf *write_buf_lookup(struct write_journal *w, blk64_t blk);
/* The cached block, read from home when not cached yet. */
errcode_t write_buf_get(struct write_journal *w, blk64_t blk, struct write_buf **out);
void write_buf_drop(struct write_journal *w, blk64_t blk);
void write_buf_free(struct write_buf *b);
/* get_write_access + copy + dirty: the only way a cached block changes. */
errcode_t write_buf_modify(struct write_journal *w, struct write_buf *b, unsigned off,
			const void *src, unsigned len);
/* The io manager's target: set by write_open() before ext2fs_open. */
void write_txn_io_set_target(struct write_journal *w);

#endif
