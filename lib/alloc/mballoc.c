/*
 * mballoc's regular allocator (ext4_mb_new_blocks) over libext2fs's block bitmap: the
 * criteria passes, the buddy's power-of-two chunks, best fit among the first free
 * extents, the per-CPU locality group preallocation small files are packed into, and
 * the groups whose buddy is not loaded yet in this mount.
 */
#include "config.h"

#include <string.h>

#include "util/e4r_err.h"
#include "alloc/alloc.h"

#define MB_GROUP_PREALLOC	512	/* s_mb_group_prealloc */
#define MB_STREAM_REQUEST	16	/* s_mb_stream_request */
#define MB_MIN_TO_SCAN		10	/* s_mb_min_to_scan */
#define MB_MAX_TO_SCAN		200	/* s_mb_max_to_scan */
#define MB_ORDER2_REQS		2	/* s_mb_order2_reqs */
#define MB_PREFETCH_NOFLEX	32
#define MB_PREFETCH_IOS		8
#define FLEX_DIR_ALLOC_SCHEME	4
#define MB_LINEAR_SCAN_THRESHOLD 16	/* mb_optimize_scan is on from this many groups */
#define MB_MAX_LINEAR_GROUPS	4	/* s_mb_max_linear_groups: tried in order after the goal's */

/* The criteria passes; CR_BEST_AVAIL_LEN (6.5+) is not reproduced. */
enum mb_cr { CR_POWER2_ALIGNED, CR_GOAL_LEN_FAST, CR_GOAL_LEN_SLOW, CR_ANY_FREE, CR_END };

struct mb_ctx {
	struct alloc_ctx *a;
	unsigned	len;		/* ac_g_ex.fe_len, normalised */
	unsigned	order2;		/* ac_2order, 0 for none */
	int		data;		/* EXT4_MB_HINT_DATA */
	unsigned	maxorder;	/* the buddy's highest order */
	/* the group being looked at, as its buddy sees it (1 = busy) */
	dgrp_t		g;
	blk64_t		first;
	unsigned	n, free, frags;
	unsigned char	*map;
	/* ac_b_ex and ac_status */
	dgrp_t		bgroup;
	unsigned	bstart, blen, nfound;
	int		found;
};

static void mark_busy(blk64_t b, void *priv)
{
	struct mb_ctx *c = priv;

	if (b >= c->first && b < c->first + c->n)
		ext2fs_set_bit(b - c->first, c->map);
}

/* The first position >= I whose bit is WANT, or N. */
static unsigned next_bit(const unsigned char *m, unsigned i, unsigned n, int want)
{
	while (i < n) {
		if (!(i & 7) && i + 8 <= n && m[i >> 3] == (want ? 0x00 : 0xff)) {
			i += 8;
			continue;
		}
		if (!!ext2fs_test_bit(i, m) == want)
			return i;
		i++;
	}
	return n;
}

/*
 * The group as its buddy sees it: in use are the bitmap's blocks, blocks freed by a
 * transaction not yet committed (released to the buddy only at commit), the free
 * part of the locality group preallocations and the inode preallocations.
 */
static void load_group(struct mb_ctx *c, dgrp_t g)
{
	struct alloc_ctx *a = c->a;
	ext2_filsys fs = a->fs;
	unsigned i, prev = 1;

	c->g = g;
	c->first = ext2fs_group_first_block2(fs, g);
	c->n = ext2fs_group_blocks_count(fs, g);
	/* a tree bitmap with nothing set leaves the buffer as it was */
	memset(c->map, 0, (c->n + 7) / 8);
	if (ext2fs_get_block_bitmap_range2(a->hooks.map ? a->hooks.map : fs->block_map, c->first, c->n, c->map))
		memset(c->map, 0xff, (c->n + 7) / 8);
	if (a->hooks.for_each_pending_free)
		a->hooks.for_each_pending_free(a->hooks.arg, mark_busy, c);
	for (i = 0; i < a->nlg_pa; i++)
		for (unsigned k = 0; k < a->lg_pa[i].free; k++)
			mark_busy(a->lg_pa[i].pstart + k, c);
	alloc_ipa_for_each(a, c->first, c->n, mark_busy, c);
	c->free = c->frags = 0;
	for (i = 0; i < c->n; i++) {
		int busy;

		if (!(i & 7) && i + 8 <= c->n && (c->map[i >> 3] == 0xff || !c->map[i >> 3])) {
			if (!c->map[i >> 3]) {
				c->free += 8;
				c->frags += prev;
			}
			prev = c->map[i >> 3] == 0xff;
			i += 7;
			continue;
		}
		busy = !!ext2fs_test_bit(i, c->map);

		if (!busy) {
			c->free++;
			c->frags += prev;
		}
		prev = busy;
	}
}

/* The order of the buddy chunk starting at P in a free extent ending at E (mb_mark_free_simple). */
static unsigned chunk_order(const struct mb_ctx *c, unsigned p, unsigned e)
{
	unsigned o = 0;

	while (o < c->maxorder && !(p & (1U << o)) && p + (2U << o) <= e)
		o++;
	return o;
}

static unsigned largest_order(const struct mb_ctx *c)
{
	unsigned best = 0, s = 0, e;

	while ((s = next_bit(c->map, s, c->n, 0)) < c->n) {
		e = next_bit(c->map, s, c->n, 1);
		for (unsigned p = s; p < e; p += 1U << chunk_order(c, p, e))
			if (chunk_order(c, p, e) > best)
				best = chunk_order(c, p, e);
		s = e;
	}
	return best;
}

static int group_needs_init(const struct mb_ctx *c, dgrp_t g, enum mb_cr cr)
{
	struct alloc_ctx *a = c->a;

	if (a->mb_inited[g])
		return 0;
	/*
	 * A group whose buddy is not loaded is skipped at the cheap passes, unless it
	 * is the first of its flex group or its block bitmap is still uninitialised.
	 */
	if (cr < CR_GOAL_LEN_SLOW && (a->flex_size == 1 || (g & (a->flex_size - 1))) &&
	    !(ext2fs_has_group_desc_csum(a->fs) && ext2fs_bg_flags_test(a->fs, g, EXT2_BG_BLOCK_UNINIT)))
		return 1;
	a->mb_inited[g] = 1;
	return 0;
}

/* ext4_mb_good_group_nolock */
static int good_group(struct mb_ctx *c, dgrp_t g, enum mb_cr cr)
{
	struct alloc_ctx *a = c->a;

	load_group(c, g);
	if (!c->free || (cr < CR_ANY_FREE && c->free < c->len))
		return 0;
	if (group_needs_init(c, g, cr))
		return 0;
	switch (cr) {
	case CR_POWER2_ALIGNED:
		/* data files stay out of the first group of a flex group */
		if (c->data && a->flex_size >= FLEX_DIR_ALLOC_SCHEME && !(g & (a->flex_size - 1)))
			return 0;
		return largest_order(c) >= c->order2;
	case CR_GOAL_LEN_FAST:
		return c->free / c->frags >= c->len;
	case CR_GOAL_LEN_SLOW:
		return c->free >= c->len;
	default:
		return 1;
	}
}

static void use_best(struct mb_ctx *c)
{
	c->found = 1;
	if (c->blen > c->len)
		c->blen = c->len;
}

/* ext4_mb_simple_scan_group: the lowest free chunk of the requested order, else of a higher one. */
static void simple_scan(struct mb_ctx *c)
{
	for (unsigned o = c->order2; o <= c->maxorder; o++) {
		unsigned s = 0, e;

		while ((s = next_bit(c->map, s, c->n, 0)) < c->n) {
			e = next_bit(c->map, s, c->n, 1);
			for (unsigned p = s; p < e; p += 1U << chunk_order(c, p, e))
				if (chunk_order(c, p, e) == o) {
					c->bgroup = c->g;
					c->bstart = p;
					c->blen = c->len;
					c->found = 1;
					return;
				}
			s = e;
		}
	}
}

static void check_limits(struct mb_ctx *c, int finish_group)
{
	if (c->found)
		return;
	if (c->nfound > MB_MAX_TO_SCAN) {
		if (c->blen)
			use_best(c);
		return;
	}
	if (c->blen < c->len)
		return;
	if (finish_group || c->nfound > MB_MIN_TO_SCAN)
		use_best(c);
}

/* ext4_mb_measure_extent: an exact fit at once, else the smallest that fits among the first found. */
static void measure(struct mb_ctx *c, unsigned start, unsigned len)
{
	int take = 0;

	c->nfound++;
	if (len == c->len) {
		c->bgroup = c->g;
		c->bstart = start;
		c->blen = len;
		use_best(c);
		return;
	}
	if (!c->blen)
		take = 1;
	else if (c->blen < c->len)
		take = len > c->blen;
	else if (len > c->len)
		take = len < c->blen;
	if (take) {
		c->bgroup = c->g;
		c->bstart = start;
		c->blen = len;
	}
	check_limits(c, 0);
}

/* ext4_mb_complex_scan_group: walk the free chunks (mb_find_extent) from the group's start. */
static void complex_scan(struct mb_ctx *c, enum mb_cr cr)
{
	unsigned i = 0, free = c->free, e, len;

	while (free && !c->found) {
		i = next_bit(c->map, i, c->n, 0);
		if (i >= c->n)
			break;
		e = next_bit(c->map, i, c->n, 1);
		if (cr < CR_GOAL_LEN_SLOW && e - i < c->len) {
			free -= e - i;
			i = e;
			continue;
		}
		len = 1U << chunk_order(c, i, e);
		while (c->len > len && i + len < e)
			len += 1U << chunk_order(c, i + len, e);
		measure(c, i, len);
		i += len;
		free -= len;
	}
	check_limits(c, 1);
}

static void prefetch_fini(struct mb_ctx *c, dgrp_t next, unsigned nr)
{
	struct alloc_ctx *a = c->a;
	dgrp_t ngroups = a->fs->group_desc_count;

	while (nr--) {
		next = next ? next - 1 : ngroups - 1;
		if (ext2fs_bg_free_blocks_count(a->fs, next))
			a->mb_inited[next] = 1;
	}
}

/* mb_avg_fragment_size_order: the list a group of that average free extent length is on. */
static unsigned avg_fragment_order(const struct mb_ctx *c, unsigned len)
{
	unsigned o = 0;

	while (o < 32 && (len >> o) > 1)
		o++;
	/* fls(len) - 2, at least 0, at most the highest order */
	o = o ? o - 1 : 0;
	return o > c->maxorder ? c->maxorder : o;
}

struct mb_scan {
	dgrp_t		prefetch_grp;
	unsigned	nr, prefetch_max;
};

/* One group of a pass (ext4_mb_scan_group): read-ahead, the checks, the scan. */
static void scan_group(struct mb_ctx *c, struct mb_scan *sc, dgrp_t g, enum mb_cr cr)
{
	struct alloc_ctx *a = c->a;

	/* bitmaps are read ahead; the buddies of the last batch are loaded at the end */
	if (g == sc->prefetch_grp) {
		sc->nr = sc->prefetch_max;
		if (a->flex_size > 1) {
			unsigned rest = a->flex_size - (g & (a->flex_size - 1));

			sc->nr = rest < sc->nr ? rest : sc->nr;
		}
		sc->prefetch_grp = (g + sc->nr) % a->fs->group_desc_count;
	}
	if (!good_group(c, g, cr))
		return;
	if (cr == CR_POWER2_ALIGNED)
		simple_scan(c);
	else
		complex_scan(c, cr);
}

/*
 * mb_optimize_scan: after a few groups from the goal's, the cheap passes take the
 * groups whose buddy is loaded from per-order lists (largest free chunk for the
 * power-of-two pass, average free extent for the next), each list from the goal on.
 */
static void optimized_pass(struct mb_ctx *c, struct mb_scan *sc, dgrp_t start, enum mb_cr cr)
{
	struct alloc_ctx *a = c->a;
	dgrp_t ngroups = a->fs->group_desc_count;
	unsigned o = cr == CR_POWER2_ALIGNED ? c->order2 : avg_fragment_order(c, c->len);

	for (; o <= c->maxorder && !c->found; o++)
		for (dgrp_t i = 0, g = start; i < ngroups && !c->found; i++, g = (g + 1) % ngroups) {
			unsigned go;

			if (!a->mb_inited[g])
				continue;
			load_group(c, g);
			if (!c->free)
				continue;
			go = cr == CR_POWER2_ALIGNED ? largest_order(c) : avg_fragment_order(c, c->free / c->frags);
			if (go == o)
				scan_group(c, sc, g, cr);
		}
}

/* ext4_mb_regular_allocator: the passes, each over the groups from the goal's. */
static void regular_allocator(struct mb_ctx *c, dgrp_t goal_group)
{
	struct alloc_ctx *a = c->a;
	dgrp_t ngroups = a->fs->group_desc_count;
	int optimize = ngroups >= MB_LINEAR_SCAN_THRESHOLD;
	struct mb_scan sc = { goal_group, 0, 0 };

	sc.prefetch_max = a->flex_size > 1 ? a->flex_size * MB_PREFETCH_IOS : MB_PREFETCH_NOFLEX;
	if (sc.prefetch_max > ngroups)
		sc.prefetch_max = ngroups;
	for (int cr = c->order2 ? CR_POWER2_ALIGNED : CR_GOAL_LEN_FAST; cr < CR_END && !c->found; cr++) {
		dgrp_t g = goal_group, linear = ngroups;

		sc.prefetch_grp = goal_group;
		sc.nr = 0;
		if (optimize && cr < CR_GOAL_LEN_SLOW)
			linear = MB_MAX_LINEAR_GROUPS + 1 < ngroups ? MB_MAX_LINEAR_GROUPS + 1 : ngroups;
		for (dgrp_t i = 0; i < linear && !c->found; i++, g = (g + 1) % ngroups)
			scan_group(c, &sc, g, cr);
		if (!c->found && linear < ngroups)
			optimized_pass(c, &sc, g, cr);
	}
	if (!c->found && c->blen)
		use_best(c);
	if (sc.nr)
		prefetch_fini(c, sc.prefetch_grp, sc.nr);
}

/* The locality group preallocation closest to GOAL with LEN free blocks (ext4_mb_check_group_pa). */
static int lg_pa_pick(struct alloc_ctx *a, blk64_t goal, unsigned len)
{
	int best = -1;
	blk64_t bdist = 0;

	for (unsigned i = 0; i < a->nlg_pa; i++) {
		blk64_t p = a->lg_pa[i].pstart, d = p > goal ? p - goal : goal - p;

		if (a->lg_pa[i].free < len)
			continue;
		if (best < 0 || d < bdist) {
			best = (int)i;
			bdist = d;
		}
	}
	return best;
}

static void lg_pa_take(struct alloc_ctx *a, int i, unsigned len, blk64_t *start)
{
	*start = a->lg_pa[i].pstart;
	a->lg_pa[i].pstart += len;
	a->lg_pa[i].free -= len;
	if (!a->lg_pa[i].free)
		a->lg_pa[i] = a->lg_pa[--a->nlg_pa];
}

errcode_t alloc_mb(struct alloc_ctx *a, const struct alloc_mb_req *r, blk64_t *start, unsigned *got)
{
	ext2_filsys fs = a->fs;
	struct mb_ctx c;
	blk64_t goal = r->goal;
	dgrp_t ngroups = fs->group_desc_count, gg;
	int group_pa = 0, stream = 0, pa;
	blk64_t gstart = 0;
	errcode_t err;

	if (!r->len)
		return E4R_WRITE_NO_SPACE;
	if (goal < fs->super->s_first_data_block || goal >= ext2fs_blocks_count(fs->super))
		goal = fs->super->s_first_data_block;
	memset(&c, 0, sizeof(c));
	c.a = a;
	c.map = a->mb_map;
	c.len = r->len;
	c.data = r->data;
	c.maxorder = fs->super->s_log_block_size + 10 + 1;
	/* ext4_mb_use_preallocated: the file's own preallocation covering the request's start comes first */
	if (r->data && r->mark && alloc_ipa_use(a, r->ino, r->lend - r->len, r->len, start, got))
		goto mark;
	/* ext4_mb_group_or_file: small closed files share the locality group's preallocation */
	if (r->data) {
		uint64_t size = r->lend > r->isize ? r->lend : r->isize;

		group_pa = size <= MB_STREAM_REQUEST;
		/*
		 * A request that does not reach the end of the file may preallocate for
		 * the inode: a large one streams, its length normalised to the file's
		 * size class; a closed file's last request does neither.
		 */
		stream = !group_pa && r->lend != r->isize && r->mark;
	}
	if (stream)
		alloc_ipa_normalize(a, r, &gstart, &c.len);
	if (group_pa) {
		while ((pa = lg_pa_pick(a, goal, r->len)) >= 0) {
			/* the bitmap does not know the preallocation: drop one something else took */
			if (!ext2fs_test_block_bitmap_range2(fs->block_map, a->lg_pa[pa].pstart, r->len)) {
				a->lg_pa[pa] = a->lg_pa[--a->nlg_pa];
				continue;
			}
			lg_pa_take(a, pa, r->len, start);
			*got = r->len;
			goto mark;
		}
		c.len = MB_GROUP_PREALLOC;
	}
	if (c.len > fs->super->s_clusters_per_group)
		c.len = fs->super->s_clusters_per_group;
	/* ac_2order: a power of two of at least s_mb_order2_reqs goes to the buddy first */
	if (!(c.len & (c.len - 1)) && c.len >= MB_ORDER2_REQS) {
		unsigned o = 0;

		while ((1U << o) < c.len)
			o++;
		if (o <= c.maxorder)
			c.order2 = o;
	}
	gg = ext2fs_group_of_blk2(fs, goal);
	if (stream)
		gg = a->mb_last_groups[r->ino % a->mb_nr_goals];
	if (gg >= ngroups)
		gg = 0;
	regular_allocator(&c, gg);
	if (!c.found || !c.blen)
		return E4R_WRITE_NO_SPACE;
	if (stream)
		a->mb_last_groups[r->ino % a->mb_nr_goals] = c.bgroup;
	*start = ext2fs_group_first_block2(fs, c.bgroup) + c.bstart;
	a->mb_inited[c.bgroup] = 1;
	if (stream) {
		err = alloc_ipa_new(a, r, gstart, c.len, *start, c.blen, start, got);
		if (err)
			return err;
	} else if (group_pa) {
		/* the whole found extent becomes the preallocation; the request takes its head */
		unsigned take = r->len < c.blen ? r->len : c.blen;

		if (c.blen > take && a->nlg_pa < E4R_MB_MAX_PA) {
			a->lg_pa[a->nlg_pa].pstart = *start + take;
			a->lg_pa[a->nlg_pa++].free = c.blen - take;
		}
		*got = take;
	} else {
		*got = c.blen < r->len ? c.blen : r->len;
	}
mark:
	if (r->mark) {
		ext2fs_block_alloc_stats_range(fs, *start, *got, +1);
		alloc_pcounter_add(a, &a->free_clusters, -(long long)*got);
	}
	return 0;
}
