/* CRC algebra: syndromes of bit errors, and the search for the patterns that explain a mismatch. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "diag/crc_algebra.h"
#include "util/e4r_err.h"
#include "util/sorted.h"

/* P without its x^32 term, in register form. */
#define CRC32C_REG_POLY		0x82F63B78U	/* Castagnoli, reflected */
#define CRC32_BE_REG_POLY	0x04C11DB7U

/*
 * Messages up to this many bits are searched by walking every position
 * (any mask); longer ones by discrete logarithms (full 32-bit masks).
 */
#define LINEAR_MAX_BITS		(1ULL << 20)
/*
 * x has order 2^32-1 modulo the CRC-32 polynomial (primitive) and 2^31-1
 * modulo Castagnoli's, which is (x+1) times an irreducible of degree 31.
 * Below this length every single-bit syndrome is distinct.
 */
#define MAX_MESSAGE_BITS	((1ULL << 31) - 64)
#define DLOG_PAIR_MAX_GAP	(1ULL << 18)

static uint32_t reg_poly(enum diag_crc_alg alg)
{
	return alg == CRC_ALG_CRC32C ? CRC32C_REG_POLY : CRC32_BE_REG_POLY;
}

/* The register value of the polynomial 1. */
static uint32_t reg_one(enum diag_crc_alg alg)
{
	return alg == CRC_ALG_CRC32C ? 0x80000000U : 1U;
}

static uint32_t bitrev32(uint32_t v)
{
	v = ((v >> 1) & 0x55555555U) | ((v & 0x55555555U) << 1);
	v = ((v >> 2) & 0x33333333U) | ((v & 0x33333333U) << 2);
	v = ((v >> 4) & 0x0F0F0F0FU) | ((v & 0x0F0F0F0FU) << 4);
	v = ((v >> 8) & 0x00FF00FFU) | ((v & 0x00FF00FFU) << 8);
	return (v >> 16) | (v << 16);
}

/* Register form <-> polynomial form (bit i = coefficient of x^i). */
static uint32_t to_poly(enum diag_crc_alg alg, uint32_t r)
{
	return alg == CRC_ALG_CRC32C ? bitrev32(r) : r;
}

static uint32_t from_poly(enum diag_crc_alg alg, uint32_t p)
{
	return alg == CRC_ALG_CRC32C ? bitrev32(p) : p;
}

/* Multiply by x: one step of the CRC over a zero bit. */
static inline uint32_t mulx(enum diag_crc_alg alg, uint32_t r)
{
	if (alg == CRC_ALG_CRC32C)
		return (r >> 1) ^ ((r & 1) ? CRC32C_REG_POLY : 0);
	return (r << 1) ^ ((r >> 31) ? CRC32_BE_REG_POLY : 0);
}

/* Divide by x (x is invertible: P has a constant term). */
static inline uint32_t divx(enum diag_crc_alg alg, uint32_t r)
{
	if (alg == CRC_ALG_CRC32C)
		return (r >> 31) ? ((r ^ CRC32C_REG_POLY) << 1) | 1 : r << 1;
	return (r & 1) ? ((r ^ CRC32_BE_REG_POLY) >> 1) | 0x80000000U : r >> 1;
}

static uint32_t mulmod_poly(uint32_t a, uint32_t b, uint32_t plow)
{
	uint32_t r = 0;

	while (b) {
		if (b & 1)
			r ^= a;
		b >>= 1;
		a = (a << 1) ^ ((a >> 31) ? plow : 0);
	}
	return r;
}

uint32_t diag_crc_mulmod(enum diag_crc_alg alg, uint32_t a, uint32_t b)
{
	uint32_t plow = to_poly(alg, reg_poly(alg));

	return from_poly(alg, mulmod_poly(to_poly(alg, a), to_poly(alg, b), plow));
}

static uint32_t powmod(enum diag_crc_alg alg, uint32_t base, uint64_t e)
{
	uint32_t r = reg_one(alg);

	while (e) {
		if (e & 1)
			r = diag_crc_mulmod(alg, r, base);
		base = diag_crc_mulmod(alg, base, base);
		e >>= 1;
	}
	return r;
}

uint32_t diag_crc_xpow(enum diag_crc_alg alg, uint64_t e)
{
	return powmod(alg, mulx(alg, reg_one(alg)), e);
}

/* Where message bit BIT comes in the CRC's reading order, and back. */
static uint64_t bit_to_order(enum diag_crc_alg alg, uint64_t bit)
{
	return alg == CRC_ALG_CRC32C ? bit : (bit & ~7ULL) | (7 - (bit & 7));
}

static uint64_t order_to_bit(enum diag_crc_alg alg, uint64_t o)
{
	return bit_to_order(alg, o);	/* the mapping is its own inverse */
}

uint32_t diag_crc_bit_syndrome(enum diag_crc_alg alg, uint64_t nbytes, uint64_t bit)
{
	uint64_t d = nbytes * 8 - 1 - bit_to_order(alg, bit);

	return diag_crc_xpow(alg, d + 32);
}

/* ---- multiplication by a constant: a linear map, four table lookups ---- */

struct cmul {
	uint32_t t[4][256];
};

static void cmul_init(struct cmul *m, enum diag_crc_alg alg, uint32_t c)
{
	for (unsigned i = 0; i < 4; i++)
		for (unsigned v = 0; v < 256; v++)
			m->t[i][v] = diag_crc_mulmod(alg, c, (uint32_t)v << (8 * i));
}

static inline uint32_t cmul_apply(const struct cmul *m, uint32_t a)
{
	return m->t[0][a & 0xFF] ^ m->t[1][(a >> 8) & 0xFF] ^
	       m->t[2][(a >> 16) & 0xFF] ^ m->t[3][a >> 24];
}

/* ---- discrete logarithm of x by baby-step giant-step ---- */

struct bsgs {
	enum diag_crc_alg	alg;
	uint64_t	m;		/* baby steps: x^0 .. x^(m-1) */
	uint32_t	*key;		/* open addressing; val == UINT32_MAX marks empty */
	uint32_t	*val;
	uint32_t	mask;
	struct cmul	giant;		/* multiply by x^-m */
};

static inline uint32_t hash32(uint32_t k)
{
	return (k * 0x9E3779B1U) ^ (k >> 15);
}

static errcode_t bsgs_init(struct bsgs *b, enum diag_crc_alg alg, uint64_t m)
{
	uint64_t size = 1;
	uint32_t v = reg_one(alg);

	while (size < 2 * m)
		size <<= 1;
	b->alg = alg;
	b->m = m;
	b->mask = (uint32_t)(size - 1);
	b->key = malloc(size * sizeof(uint32_t));
	b->val = malloc(size * sizeof(uint32_t));
	if (!b->key || !b->val) {
		free(b->key);
		free(b->val);
		return EXT2_ET_NO_MEMORY;
	}
	memset(b->val, 0xFF, size * sizeof(uint32_t));
	for (uint64_t j = 0; j < m; j++) {
		uint32_t h = hash32(v) & b->mask;
		while (b->val[h] != UINT32_MAX)
			h = (h + 1) & b->mask;
		b->key[h] = v;
		b->val[h] = (uint32_t)j;
		v = mulx(alg, v);
	}
	/* x^-m = (x^-1)^m */
	cmul_init(&b->giant, alg, powmod(alg, divx(alg, reg_one(alg)), m));
	return 0;
}

static void bsgs_free(struct bsgs *b)
{
	free(b->key);
	free(b->val);
}

/* The d in [0, n) with x^d = T, or -1. Unique: n is below the order of x. */
static int64_t bsgs_log(const struct bsgs *b, uint32_t t, uint64_t n)
{
	for (uint64_t i = 0; i * b->m < n; i++) {
		uint32_t h = hash32(t) & b->mask;
		while (b->val[h] != UINT32_MAX) {
			if (b->key[h] == t) {
				uint64_t d = i * b->m + b->val[h];
				return d < n ? (int64_t)d : -1;
			}
			h = (h + 1) & b->mask;
		}
		t = cmul_apply(&b->giant, t);
	}
	return -1;
}

/* ---- collecting candidates ---- */

struct search {
	const struct diag_crc_search *q;
	struct diag_crc_result	*r;
	uint64_t		n;	/* message bits */
	uint32_t		s;	/* masked syndrome */
};

static int in_hole(const struct diag_crc_search *q, uint64_t bit)
{
	return q->hole_len && bit / 8 >= q->hole_start && bit / 8 < q->hole_start + q->hole_len;
}

/* Record a pattern given by distances from the message end (CRC order). */
static void add_pattern(struct search *se, const uint64_t *dist, unsigned nd, uint32_t stored, unsigned span)
{
	struct diag_crc_pattern p = { 0 };

	for (unsigned i = 0; i < nd; i++) {
		if (dist[i] >= se->n)
			return;
		p.bit[i] = order_to_bit(se->q->alg, se->n - 1 - dist[i]);
		if (in_hole(se->q, p.bit[i]))
			return;
	}
	if (nd == 2 && !span && se->q->pair_segment &&
	    p.bit[0] / 8 / se->q->pair_segment != p.bit[1] / 8 / se->q->pair_segment)
		return;
	p.nbits = nd;
	qsort(p.bit, nd, sizeof(p.bit[0]), util_cmp_u64);
	p.stored = stored;
	p.weight = nd + (unsigned)__builtin_popcount(stored);
	p.span = span;
	se->r->count++;
	if (se->r->ncand < CRC_MAX_CANDIDATES)
		se->r->cand[se->r->ncand++] = p;
}

/* ---- weight 1 and 2 by walking every position (short messages, any mask) ---- */

/*
 * The syndromes of every position, grouped for O(1) lookups: by the top 16
 * bits of a scrambled key (an odd multiplier is a bijection, so equal keys
 * mean equal syndromes), in order of distance within a group (a counting
 * sort: no comparisons, linear in the positions). It depends only on the
 * message's shape, so a crc_cache keeps it from one search to the next.
 */
#define KEY_MULT	0x9E3779B1U
#define NBUCKETS	65536

struct pos_syn {
	uint32_t key;	/* masked syndrome * KEY_MULT */
	uint32_t d;	/* distance from the end */
};

struct crc_table {
	enum diag_crc_alg	alg;
	uint64_t	n;
	uint32_t	mask;
	struct pos_syn	*t;
	uint32_t	*bucket;	/* NBUCKETS + 1 start indexes */
};

/* A journal's messages come in a few shapes (data block, descriptor, commit...): a table for each. */
#define CACHE_TABLES	4

struct diag_crc_cache {
	struct crc_table tab[CACHE_TABLES];
	unsigned	used[CACHE_TABLES];	/* when each was last used, for replacing the oldest */
	unsigned	clock;
};

static inline uint32_t key_of(uint32_t syn)
{
	return syn * KEY_MULT;
}

static void table_free(struct crc_table *tab)
{
	free(tab->t);
	free(tab->bucket);
	memset(tab, 0, sizeof(*tab));
}

static errcode_t table_build(struct crc_table *tab, enum diag_crc_alg alg, uint64_t n, uint32_t mask)
{
	uint32_t v = reg_poly(alg);	/* x^32: the last bit */
	struct pos_syn *by_d = malloc(n * sizeof(*by_d));

	tab->t = malloc(n * sizeof(*tab->t));
	tab->bucket = calloc(NBUCKETS + 1, sizeof(*tab->bucket));
	if (!by_d || !tab->t || !tab->bucket) {
		free(by_d);
		table_free(tab);
		return EXT2_ET_NO_MEMORY;
	}
	for (uint64_t d = 0; d < n; d++) {
		by_d[d].key = key_of(v & mask);
		by_d[d].d = (uint32_t)d;
		tab->bucket[(by_d[d].key >> 16) + 1]++;
		v = mulx(alg, v);
	}
	for (uint32_t b = 0; b < NBUCKETS; b++)
		tab->bucket[b + 1] += tab->bucket[b];
	/* bucket[b] is where group b starts; filling in order of d keeps each group in that order */
	for (uint64_t d = 0; d < n; d++)
		tab->t[tab->bucket[by_d[d].key >> 16]++] = by_d[d];
	/* each bucket[b] now is where group b ends, that is where b + 1 starts */
	memmove(tab->bucket + 1, tab->bucket, NBUCKETS * sizeof(*tab->bucket));
	tab->bucket[0] = 0;
	free(by_d);
	tab->alg = alg;
	tab->n = n;
	tab->mask = mask;
	return 0;
}

/*
 * The tables of the last cache freed, handed to the next cache: a process
 * that diagnoses many journals (the fuzzer, the tests, check after replay)
 * builds each shape's table once, not once a journal.
 */
static struct diag_crc_cache kept;

errcode_t diag_crc_cache_new(struct diag_crc_cache **out)
{
	*out = malloc(sizeof(**out));
	if (!*out)
		return EXT2_ET_NO_MEMORY;
	**out = kept;
	memset(&kept, 0, sizeof(kept));
	return 0;
}

void diag_crc_cache_free(struct diag_crc_cache *c)
{
	if (!c)
		return;
	for (unsigned i = 0; i < CACHE_TABLES; i++)
		table_free(&kept.tab[i]);
	kept = *c;
	free(c);
}

/* The table for this search: a cached one if one has the same shape, else a new one in place of the oldest. */
static errcode_t get_table(struct search *se, struct crc_table *own, const struct crc_table **out)
{
	struct diag_crc_cache *c = se->q->cache;
	struct crc_table *tab = own;
	unsigned oldest = 0;
	uint64_t n;
	errcode_t err;

	if (c) {
		for (unsigned i = 0; i < CACHE_TABLES; i++) {
			struct crc_table *t = &c->tab[i];

			/* A longer message's table holds a shorter one's positions: the lookups skip the rest. */
			if (t->t && t->alg == se->q->alg && t->n >= se->n && t->mask == se->q->mask) {
				c->used[i] = ++c->clock;
				*out = t;
				return 0;
			}
			if (c->used[i] < c->used[oldest])
				oldest = i;
		}
		tab = &c->tab[oldest];
		c->used[oldest] = ++c->clock;
	}
	table_free(tab);
	/* Cached: room for longer messages too (transactions grow), up to twice the positions. */
	n = se->n;
	if (c)
		for (n = 1024; n < se->n; n *= 2)
			;
	err = table_build(tab, se->q->alg, n, se->q->mask);
	if (err)
		return err;
	*out = tab;
	return 0;
}

/* Loops with I over the table entries whose masked syndrome is TARGET, at distances below N. */
#define FOR_EACH_WITH(tab, target, n, i) \
	for (uint32_t _k = key_of(target), i = (tab)->bucket[_k >> 16]; \
	     i < (tab)->bucket[(_k >> 16) + 1]; i++) \
		if ((tab)->t[i].key == _k && (tab)->t[i].d < (n))

/* Every single bit whose syndrome is TARGET (masked); STORED is carried along. */
static void linear_single(struct search *se, const struct crc_table *tab, uint32_t target, uint32_t stored)
{
	FOR_EACH_WITH(tab, target, se->n, i) {
		uint64_t d = tab->t[i].d;
		add_pattern(se, &d, 1, stored, 0);
	}
}

static void linear_pairs(struct search *se, const struct crc_table *tab)
{
	uint64_t gap = se->q->max_gap ? se->q->max_gap : se->n;
	enum diag_crc_alg alg = se->q->alg;
	uint32_t v = reg_poly(alg);

	/* Walk the positions in order, recomputing each syndrome: the table holds only keys. */
	for (uint64_t d0 = 0; d0 < se->n; d0++, v = mulx(alg, v)) {
		uint32_t target = (v & se->q->mask) ^ se->s;
		FOR_EACH_WITH(tab, target, se->n, k) {
			uint64_t d[2] = { d0, tab->t[k].d };
			if (d[1] > d[0] && d[1] - d[0] <= gap)
				add_pattern(se, d, 2, 0, 0);
		}
	}
}

/* ---- weight 1 and 2 by discrete logarithms (long messages, 32-bit mask) ---- */

/* s * x^-32: the syndrome of a bit at distance d is x^(d+32). */
static uint32_t unshift32(enum diag_crc_alg alg, uint32_t s)
{
	for (int i = 0; i < 32; i++)
		s = divx(alg, s);
	return s;
}

static void dlog_single(struct search *se, const struct bsgs *b, uint32_t s, uint32_t stored)
{
	int64_t d = bsgs_log(b, unshift32(se->q->alg, s), se->n);

	if (d >= 0) {
		uint64_t ud = (uint64_t)d;
		add_pattern(se, &ud, 1, stored, 0);
	}
}

/*
 * Two bits k apart, the later at distance d: s = x^(d+32) (1 + x^k). The
 * CRC-32 polynomial is irreducible, so 1 + x^k is invertible and d is one
 * logarithm per gap. The inverses come from one exponentiation (batch
 * inversion: prefix products, then back again).
 */
static errcode_t dlog_pairs(struct search *se, const struct bsgs *b, uint64_t gap)
{
	enum diag_crc_alg alg = se->q->alg;
	uint32_t one = reg_one(alg), xk = one, t0 = unshift32(alg, se->s), inv;
	uint32_t *u, *pre;

	if (gap >= se->n)
		gap = se->n - 1;
	if (!gap)
		return 0;
	u = malloc((gap + 1) * sizeof(*u));
	pre = malloc((gap + 1) * sizeof(*pre));
	if (!u || !pre) {
		free(u);
		free(pre);
		return EXT2_ET_NO_MEMORY;
	}
	pre[0] = one;
	for (uint64_t k = 1; k <= gap; k++) {
		xk = mulx(alg, xk);
		u[k] = xk ^ one;
		pre[k] = diag_crc_mulmod(alg, pre[k - 1], u[k]);
	}
	inv = powmod(alg, pre[gap], 0xFFFFFFFEULL);	/* (u1 ... u_gap)^-1 */
	for (uint64_t k = gap; k >= 1; k--) {
		uint32_t inv_k = diag_crc_mulmod(alg, inv, pre[k - 1]);
		int64_t d;

		inv = diag_crc_mulmod(alg, inv, u[k]);
		d = bsgs_log(b, diag_crc_mulmod(alg, t0, inv_k), se->n - k);
		if (d >= 0) {
			uint64_t dd[2] = { (uint64_t)d, (uint64_t)d + k };
			add_pattern(se, dd, 2, 0, 0);
		}
	}
	free(u);
	free(pre);
	return 0;
}

/* ---- bursts ---- */

/*
 * A burst b(x) whose last bit is at distance q has the syndrome
 * b(x) x^(q+32); so b = s x^-(q+32), one division by x per position. Every
 * position gives some b of degree < 32: only the short ones are evidence.
 */
static void bursts(struct search *se)
{
	enum diag_crc_alg alg = se->q->alg;
	uint32_t b = unshift32(alg, se->s);
	unsigned best = se->q->max_burst + 1;

	for (uint64_t q = 0; q < se->n; q++, b = divx(alg, b)) {
		uint32_t p;
		unsigned span, nd = 0;
		uint64_t dist[CRC_PATTERN_MAX_BITS];

		if (!(alg == CRC_ALG_CRC32C ? (b & 0x80000000U) : (b & 1)))
			continue;	/* the last bit of a burst is a flip */
		p = to_poly(alg, b);
		span = 32 - (unsigned)__builtin_clz(p);
		if (span > best || q + span > se->n)
			continue;
		if (span < best) {
			best = span;
			se->r->count = 0;
			se->r->ncand = 0;
		}
		for (unsigned i = 0; i < span; i++)
			if (p & (1U << i))
				dist[nd++] = q + i;
		add_pattern(se, dist, nd, 0, span);
	}
}

/* ---- the search ---- */

static unsigned mask_bits(uint32_t mask)
{
	return (unsigned)__builtin_popcount(mask);
}

/* 2^e as a double, for 0 <= e < 64 (no libm). */
static double pow2(unsigned e)
{
	return (double)(1ULL << e);
}

static uint64_t isqrt(uint64_t v)
{
	uint64_t r = 0;

	for (uint64_t bit = 1ULL << 62; bit; bit >>= 2) {
		if (v >= r + bit) {
			v -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
	}
	return r;
}

static void stored_only(struct search *se, unsigned weight)
{
	if ((unsigned)__builtin_popcount(se->s) == weight)
		add_pattern(se, NULL, 0, se->s, 0);
}

static void finish_weight(struct search *se, unsigned weight, double positions)
{
	se->r->weight = se->r->count ? weight : 0;
	se->r->chance = positions / pow2(mask_bits(se->q->mask));
}

static errcode_t search_linear(struct search *se)
{
	const struct diag_crc_search *q = se->q;
	struct crc_table own = { 0 };
	const struct crc_table *t;
	double n = (double)se->n, gap = q->max_gap ? (double)q->max_gap : n;
	errcode_t err = get_table(se, &own, &t);

	if (err)
		return err;
	stored_only(se, 1);
	linear_single(se, t, se->s, 0);
	se->r->searched = CRC_SEARCHED_1;
	finish_weight(se, 1, n + mask_bits(q->mask));
	if (se->r->count)
		goto out;
	if (q->skip_pairs)
		goto out;
	stored_only(se, 2);
	for (unsigned j = 0; j < 32; j++)
		if (q->mask & (1U << j))
			linear_single(se, t, se->s ^ (1U << j), 1U << j);
	linear_pairs(se, t);
	se->r->searched |= CRC_SEARCHED_2;
	finish_weight(se, 2, n * (gap < n ? gap : n / 2) + n * 32 + 496);
out:
	table_free(&own);
	return 0;
}

static errcode_t search_dlog(struct search *se)
{
	const struct diag_crc_search *q = se->q;
	uint64_t gap = q->max_gap ? q->max_gap : DLOG_PAIR_MAX_GAP;
	struct bsgs b;
	uint64_t m;
	errcode_t err;

	if (q->mask != 0xFFFFFFFFU)
		return E4R_LIMIT;	/* truncated checksums only ever cover a block */
	if (gap > DLOG_PAIR_MAX_GAP)
		gap = DLOG_PAIR_MAX_GAP;
	/*
	 * Balance the table against the giant steps: one logarithm, or ~gap
	 * of them when pairs will be searched.
	 */
	if (q->skip_pairs || q->alg != CRC_ALG_CRC32_BE)
		m = isqrt(se->n * 33) + 1;
	else
		m = isqrt(se->n * (gap + 33));
	if (m > (1U << 20))
		m = 1U << 20;
	if (m > se->n)
		m = se->n;
	err = bsgs_init(&b, q->alg, m);
	if (err)
		return err;
	stored_only(se, 1);
	dlog_single(se, &b, se->s, 0);
	se->r->searched = CRC_SEARCHED_1;
	finish_weight(se, 1, (double)se->n + 32);
	if (se->r->count || q->skip_pairs)
		goto out;
	stored_only(se, 2);
	for (unsigned j = 0; j < 32; j++)
		dlog_single(se, &b, se->s ^ (1U << j), 1U << j);
	if (q->alg == CRC_ALG_CRC32_BE) {
		err = dlog_pairs(se, &b, gap);
		if (err)
			goto out;
		if (!q->max_gap || q->max_gap <= DLOG_PAIR_MAX_GAP)
			se->r->searched |= CRC_SEARCHED_2;
	}
	finish_weight(se, 2, (double)se->n * (double)gap + (double)se->n * 32 + 496);
out:
	bsgs_free(&b);
	return err;
}

errcode_t diag_crc_locate(const struct diag_crc_search *q, struct diag_crc_result *r)
{
	struct search se = { q, r, 0, 0 };
	errcode_t err;

	memset(r, 0, sizeof(*r));
	if ((q->alg != CRC_ALG_CRC32C && q->alg != CRC_ALG_CRC32_BE) || !q->nbytes || !q->mask ||
	    q->max_burst > CRC_PATTERN_MAX_BITS)
		return E4R_BAD_ARGUMENT;
	if (q->nbytes > MAX_MESSAGE_BITS / 8)
		return E4R_LIMIT;
	se.n = q->nbytes * 8;
	se.s = q->syndrome & q->mask;
	if (!se.s)
		return 0;
	err = se.n <= LINEAR_MAX_BITS ? search_linear(&se) : search_dlog(&se);
	if (err || r->count || !q->max_burst || q->mask != 0xFFFFFFFFU)
		return err;
	r->ncand = 0;
	bursts(&se);
	r->searched |= CRC_SEARCHED_BURST;
	if (r->count) {
		unsigned span = r->cand[0].span;
		r->burst = 1;
		r->weight = r->cand[0].weight;
		for (unsigned i = 1; i < r->ncand; i++)
			if (r->cand[i].weight < r->weight)
				r->weight = r->cand[i].weight;
		r->chance = (double)se.n * pow2(span >= 2 ? span - 2 : 0) / pow2(32);
	}
	return 0;
}

void diag_crc_pattern_apply(const struct diag_crc_pattern *p, unsigned char *buf, uint64_t nbytes)
{
	for (unsigned i = 0; i < p->nbits; i++)
		if (p->bit[i] / 8 < nbytes)
			buf[p->bit[i] / 8] ^= (unsigned char)(1U << (p->bit[i] & 7));
}
