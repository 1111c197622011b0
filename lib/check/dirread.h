/*
 * Pass 2's directory blocks read ahead: a reader thread (fs/readahead.h)
 * reads pass 1's list of directory blocks in its order while pass 2 parses
 * them, so the main thread pays no system call per block. A block the
 * reader did not get (a failed read, a list changed since, no reader: any
 * channel but the plain read-only one) is read through the channel as
 * before, with the same result and the same error.
 */
#ifndef E4R_CHECK_DIRREAD_H
#define E4R_CHECK_DIRREAD_H

#include <ext2fs/ext2fs.h>

struct check_ctx;
struct check_dirread;

/* Start reading C->dblocks ahead; NULL (read everything through the channel) when that cannot be done. */
struct check_dirread *check_dirread_start(struct check_ctx *c);

/*
 * Block BLK, C->dblocks[I] (I never decreasing from call to call), into
 * BUF: as io_channel_read_blk64(fs->io, BLK, 1, BUF). R may be NULL.
 */
errcode_t check_dirread_block(struct check_dirread *r, ext2_filsys fs, size_t i, blk64_t blk,
			      char *buf);

void check_dirread_stop(struct check_dirread *r);

#endif
