/* Pass 2's directory blocks read ahead in a second thread (see dirread.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check/ctx.h"
#include "check/dirread.h"
#include "fs/readahead.h"

/* Blocks read ahead at most: 256 KiB of 4 KiB blocks. */
#define SLOTS	64
/*
 * The reader gets its own copy of the list (16 bytes a block): past this
 * many blocks (4 MiB of copy) pass 2 reads through the channel instead of
 * growing the check's memory by that much.
 */
#define MAX_BLOCKS	(256u * 1024)

struct check_dirread {
	struct fs_readahead	*ra;
	int			held;	/* CHUNK is ours */
	struct fs_chunk		chunk;
};

struct check_dirread *check_dirread_start(struct check_ctx *c)
{
	struct check_dirread *r;
	struct fs_run *runs;
	size_t i;

	if ((c->opts && c->opts->slow_scan) || !c->ndblocks || c->ndblocks > MAX_BLOCKS)
		return NULL;
	r = calloc(1, sizeof(*r));
	/* one run per block: chunk I is dblocks[I], whatever their order */
	runs = malloc(c->ndblocks * sizeof(*runs));
	if (!r || !runs) {
		free(runs);
		free(r);
		return NULL;
	}
	for (i = 0; i < c->ndblocks; i++) {
		runs[i].start = c->dblocks[i].blk;
		runs[i].count = 1;
	}
	if (fs_readahead_start(c->fs, runs, c->ndblocks, 1, SLOTS, NULL, &r->ra)) {
		free(r);
		r = NULL;
	}
	free(runs);
	return r;
}

static void give_back(struct check_dirread *r)
{
	if (r->held)
		fs_readahead_give_back(r->ra);
	r->held = 0;
}

errcode_t check_dirread_block(struct check_dirread *r, ext2_filsys fs, size_t i, blk64_t blk,
			      char *buf)
{
	if (r && r->ra) {
		/* the chunks of blocks pass 2 passed by (directories it skipped) go back unused */
		while (!r->held || r->chunk.run < i) {
			give_back(r);
			if (fs_readahead_next(r->ra, &r->chunk)) {
				fs_readahead_stop(r->ra);
				r->ra = NULL;
				break;
			}
			r->held = 1;
		}
		if (r->ra && r->chunk.run == i && r->chunk.blk == blk && !r->chunk.err) {
			memcpy(buf, r->chunk.data, fs->blocksize);
			return 0;
		}
	}
	return io_channel_read_blk64(fs->io, blk, 1, buf);
}

void check_dirread_stop(struct check_dirread *r)
{
	if (!r)
		return;
	fs_readahead_stop(r->ra);
	free(r);
}
