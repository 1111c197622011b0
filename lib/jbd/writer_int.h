/* The journal writer's internals, shared by writer.c, writer_buf.c and writer_io.c. */
#ifndef E4R_JBD_WRITER_INT_H
#define E4R_JBD_WRITER_INT_H

#include "jbd/writer.h"

/* One cached filesystem block: the kernel's buffer_head with its journal_head. */
struct jbd_wbuf {
	blk64_t		blk;
	struct jbd_wbuf	*next;		/* hash chain */
	unsigned char	*data;		/* the live content */
	uint32_t	dirty_tid;	/* running transaction that has it dirty; 0: none */
	int		in_log;		/* logged by a transaction still in the log */
	unsigned char	*ckpt;		/* committed content not yet written home */
	struct jbd_wtbuf	*inflight;	/* committing transaction's entry that still reads data */
	int		reborn;		/* freed since last logged: the next write is logged even unchanged */
};

/* A block of a transaction. */
struct jbd_wtbuf {
	struct jbd_wbuf	*buf;
	unsigned char	*frozen;	/* own copy for the log (escaped, or frozen by a later write) */
	int		escaped;
	int		forgotten;	/* freed in this transaction: not logged */
};

struct jbd_wtxn {
	uint32_t	tid;
	struct jbd_wtbuf	*bufs;
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

struct jbd_wbuf *jbd_wbuf_lookup(struct jbd_writer *w, blk64_t blk);
/* The cached block, read from home when not cached yet. */
errcode_t jbd_wbuf_get(struct jbd_writer *w, blk64_t blk, struct jbd_wbuf **out);
void jbd_wbuf_drop(struct jbd_writer *w, blk64_t blk);
void jbd_wbuf_free(struct jbd_wbuf *b);
/* get_write_access + copy + dirty: the only way a cached block changes. */
errcode_t jbd_wbuf_modify(struct jbd_writer *w, struct jbd_wbuf *b, unsigned off,
			const void *src, unsigned len);
/* The io manager's target: set by jbd_writer_open() before ext2fs_open. */
void jbd_writer_io_set_target(struct jbd_writer *w);

#endif
