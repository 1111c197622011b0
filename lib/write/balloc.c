/* Single metadata blocks from mballoc. */
#include "config.h"

#include "util/e4r_err.h"
#include "write/alloc.h"

/* A block for a directory, a slow symlink or an extent tree (no data hint, no preallocation). */
errcode_t write_bpick(struct write_alloc *a, blk64_t goal, blk64_t *out)
{
	struct write_mb_req r = { goal, 1, 0, 0, 0, 0, 0 };
	unsigned got;

	return write_mb_alloc(a, &r, out, &got);
}

errcode_t write_balloc(struct write_alloc *a, blk64_t goal, blk64_t *out)
{
	struct write_mb_req r = { goal, 1, 0, 1, 0, 0, 0 };
	unsigned got;

	return write_mb_alloc(a, &r, out, &got);
}

void write_bfreed(struct write_alloc *a, blk64_t count)
{
	e4r_pcounter_add(a, &a->free_clusters, (long long)count);
}
