/* Single metadata blocks from mballoc. */
#include "config.h"

#include "util/e4r_err.h"
#include "alloc/alloc.h"

/* A block for a directory, a slow symlink or an extent tree (no data hint, no preallocation). */
errcode_t alloc_block_pick(struct alloc_ctx *a, blk64_t goal, blk64_t *out)
{
	struct alloc_mb_req r = { goal, 1, 0, 0, 0, 0, 0 };
	unsigned got;

	return alloc_mb(a, &r, out, &got);
}

errcode_t alloc_block(struct alloc_ctx *a, blk64_t goal, blk64_t *out)
{
	struct alloc_mb_req r = { goal, 1, 0, 1, 0, 0, 0 };
	unsigned got;

	return alloc_mb(a, &r, out, &got);
}

void alloc_blocks_freed(struct alloc_ctx *a, blk64_t count)
{
	alloc_pcounter_add(a, &a->free_clusters, (long long)count);
}
