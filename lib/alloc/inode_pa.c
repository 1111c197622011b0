/*
 * mballoc's inode preallocations: a data request of a file that may still grow (its
 * end is not the end of the file, or the file is open for writing) is widened to a
 * size class around the file's size (the normalisation), the whole found extent is
 * taken from the buddy, the request gets its part and the rest waits for the file's
 * later writes at the logical blocks it covers, kept from everyone else, until the
 * file is truncated, closed with nothing left to write back, or deleted.
 */
#include "config.h"

#include "util/array.h"
#include "util/e4r_err.h"
#include "alloc/alloc.h"

#define EXT_MAX_BLOCKS	0xffffffffULL

int alloc_ipa_use(struct alloc_ctx *a, ext2_ino_t ino, blk64_t lblk, unsigned len, blk64_t *start,
		  unsigned *got)
{
	for (unsigned i = 0; i < a->nipa; i++) {
		struct alloc_ipa *p = &a->ipa[i];
		blk64_t end;

		if (p->ino != ino || lblk < p->lstart || lblk >= p->lstart + p->len || !p->free)
			continue;
		*start = p->pstart + (lblk - p->lstart);
		end = *start + len < p->pstart + p->len ? *start + len : p->pstart + p->len;
		*got = (unsigned)(end - *start);
		if (*got > p->free)
			*got = p->free;
		p->free -= *got;
		/* a preallocation with nothing left is dropped when its user lets go (ext4_mb_put_pa) */
		if (!p->free)
			a->ipa[i] = a->ipa[--a->nipa];
		return 1;
	}
	return 0;
}

/*
 * The size classes: the file's size (the request's end or i_size, whichever is
 * larger) rounded up to 16K, 32K, ... 1M; above that a chunk of 2, 4 or 8M aligned
 * on its size; a request larger than that as it is.
 */
static void size_class(const struct alloc_mb_req *r, unsigned bits, blk64_t *start, blk64_t *len)
{
	static const uint64_t classes[] = { 16 << 10, 32 << 10, 64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20 };
	blk64_t olog = r->lend - r->len;
	uint64_t size = (r->lend > r->isize ? r->lend : r->isize) << bits;
	/* NRL_CHECK_SIZE's "max": the classes from 2M on apply whatever the size for small blocks */
	uint64_t max = 2ULL << bits;
	unsigned chunk_bits;

	*start = 0;
	for (unsigned i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (size <= classes[i]) {
			*len = classes[i] >> bits;
			return;
		}
	if (size <= (4ULL << 20) || max <= (2 << 10))
		chunk_bits = 21;
	else if (size <= (8ULL << 20) || max <= (4 << 10))
		chunk_bits = 22;
	else if (r->len <= ((8ULL << 20) >> bits) || max <= (8 << 10))
		chunk_bits = 23;
	else {
		*start = olog;
		*len = r->len;
		return;
	}
	*start = (olog >> (chunk_bits - bits)) << (chunk_bits - bits);
	*len = 1ULL << (chunk_bits - bits);
}

void alloc_ipa_normalize(struct alloc_ctx *a, const struct alloc_mb_req *r, blk64_t *gstart, unsigned *glen)
{
	ext2_filsys fs = a->fs;
	unsigned bits = fs->super->s_log_block_size + 10;
	blk64_t bpg = fs->super->s_blocks_per_group, olog = r->lend - r->len;
	blk64_t start, len, end, floor;

	size_class(r, bits, &start, &len);
	/* the range stays in the request's stretch of one group's size */
	floor = olog / bpg * bpg;
	if (start < floor)
		start = floor;
	if (start + len > EXT_MAX_BLOCKS)
		len = EXT_MAX_BLOCKS - start;
	/* nor covers blocks the file already has on either side */
	if (r->pleft && start <= r->lleft && r->lleft < olog) {
		len -= r->lleft + 1 - start < len ? r->lleft + 1 - start : len;
		start = r->lleft + 1;
	}
	if (r->pright && len && start + len - 1 >= r->lright && r->lright >= r->lend)
		len -= start + len - r->lright;
	if (len > bpg)
		len = bpg;
	end = start + len;
	/* nor the file's other preallocations (ext4_mb_pa_adjust_overlap) */
	for (unsigned i = 0; i < a->nipa; i++) {
		const struct alloc_ipa *p = &a->ipa[i];

		if (p->ino != r->ino)
			continue;
		if (p->lstart + p->len <= olog) {
			if (p->lstart + p->len > start)
				start = p->lstart + p->len;
		} else if (p->lstart > olog && p->lstart < end) {
			end = p->lstart;
		}
	}
	if (start > olog || end < r->lend) {
		/* cannot happen with a consistent map; the request as it is then */
		start = olog;
		end = r->lend;
	}
	*gstart = start;
	*glen = (unsigned)(end - start);
}

errcode_t alloc_ipa_new(struct alloc_ctx *a, const struct alloc_mb_req *r, blk64_t gstart, unsigned glen,
			blk64_t pstart, unsigned found, blk64_t *start, unsigned *got)
{
	blk64_t olog = r->lend - r->len, lstart = gstart, end;
	errcode_t err;

	if (found <= r->len) {
		*start = pstart;
		*got = found;
		return 0;
	}
	/*
	 * Less than the normalised range: the found blocks are placed at its end if that
	 * still covers the request's start, else at its start if that covers the
	 * request's end, else at the request's start.
	 */
	if (found < glen) {
		lstart = gstart + glen - found;
		if (olog < lstart) {
			lstart = gstart;
			if (r->lend > gstart + found)
				lstart = olog;
		}
	}
	*start = pstart + (olog - lstart);
	end = *start + r->len < pstart + found ? *start + r->len : pstart + found;
	*got = (unsigned)(end - *start);
	if (*got == found)
		return 0;
	err = util_grow((void **)&a->ipa, &a->capipa, a->nipa + 1, sizeof(*a->ipa));
	if (err)
		return err;
	a->ipa[a->nipa].ino = r->ino;
	a->ipa[a->nipa].lstart = lstart;
	a->ipa[a->nipa].pstart = pstart;
	a->ipa[a->nipa].len = found;
	a->ipa[a->nipa++].free = found - *got;
	return 0;
}

void alloc_ipa_discard(struct alloc_ctx *a, ext2_ino_t ino)
{
	unsigned j = 0;

	for (unsigned i = 0; i < a->nipa; i++)
		if (a->ipa[i].ino != ino)
			a->ipa[j++] = a->ipa[i];
	a->nipa = j;
}

void alloc_ipa_for_each(struct alloc_ctx *a, blk64_t first, blk64_t count,
			void (*fn)(blk64_t blk, void *priv), void *priv)
{
	for (unsigned i = 0; i < a->nipa; i++) {
		blk64_t s = a->ipa[i].pstart, e = s + a->ipa[i].len;

		for (s = s < first ? first : s; s < e && s < first + count; s++)
			fn(s, priv);
	}
}
