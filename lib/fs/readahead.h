/*
 * Reading runs of blocks ahead of their use, in a second thread: a reader
 * reads the runs in order, in chunks, into a small ring of buffers that it
 * owns until it hands them over; the caller takes the chunks in the same
 * order, works on them in place and gives each back.
 *
 * Only over the plain read-only channel (fs_ioerr_io_manager over the unix
 * manager, the filesystem not open for writing): the reader reads the file
 * itself, beside the channel, so any manager that must see every read (undo,
 * write guard, memory images, fault injection) rules it out, and so does a
 * filesystem open for writing (its changes may sit in the channel's cache).
 * A chunk that fails comes with its error; the caller reads it again through
 * the channel, which notes the failure and gives the errors everyone else
 * sees (the reader stops after it).
 */
#ifndef E4R_FS_READAHEAD_H
#define E4R_FS_READAHEAD_H

#include <ext2fs/ext2fs.h>

struct fs_run {
	blk64_t		start;		/* first block */
	blk64_t		count;		/* blocks (0: an empty run, skipped) */
};

struct fs_chunk {
	size_t		run;		/* index of its run */
	blk64_t		offset;		/* its first block, counted from the run's start */
	blk64_t		blk;		/* its first block */
	unsigned	count;		/* blocks */
	errcode_t	err;		/* 0, or the read failed (DATA holds nothing) */
	char		*data;		/* COUNT blocks; the caller's until fs_readahead_give_back */
	unsigned char	*extra;		/* the work's results for this chunk (see below) */
};

/*
 * Work the reader does on each chunk it read without error, before the
 * caller gets it (in the reader's thread): FN may write CHUNK->extra (EXTRA
 * bytes) and read the chunk, and nothing the caller's thread writes while
 * the reader runs.
 */
struct fs_readahead_work {
	void		(*fn)(void *arg, struct fs_chunk *chunk);
	void		*arg;
	size_t		extra;
};

struct fs_readahead;

/*
 * Start reading RUNS (NRUNS, copied) of FS in chunks of at most CHUNK
 * blocks, at most SLOTS chunks ahead; WORK may be NULL. Errors: EXT2_ET_OP_NOT_SUPPORTED when
 * the channel is not the plain read-only one (the caller reads through the
 * channel instead), or what opening the file, allocating or starting the
 * thread failed with.
 */
errcode_t fs_readahead_start(ext2_filsys fs, const struct fs_run *runs, size_t nruns,
			     unsigned chunk, unsigned slots, const struct fs_readahead_work *work,
			     struct fs_readahead **out);

/*
 * The next chunk, in the order of the runs: waits until it is read.
 * Returns 1 after the last chunk (or after a chunk that failed), 0 with
 * *CHUNK set. At most SLOTS chunks may be held at a time.
 */
int fs_readahead_next(struct fs_readahead *r, struct fs_chunk *chunk);

/* Give the oldest held chunk back to the reader. */
void fs_readahead_give_back(struct fs_readahead *r);

/* Stop the reader (on any path: at the end, on an error, early) and free everything; R may be NULL. */
void fs_readahead_stop(struct fs_readahead *r);

#endif
