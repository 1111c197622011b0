/* CRC algebra over GF(2): locate the bit errors that explain a checksum mismatch. */
#ifndef E4R_CRC_ALGEBRA_H
#define E4R_CRC_ALGEBRA_H

#include <stdint.h>
#include <ext2fs/ext2fs.h>

/*
 * Both CRCs of lib/util/crc.c are affine: crc(init, m ^ e) = crc(init, m) ^
 * crc(0, e) for messages of the same length. So the syndrome
 * stored ^ computed depends only on the error pattern e and its place in
 * the message, and a flipped bit at distance d from the end of the message
 * has the syndrome x^(d+32) mod P. Everything here works on that syndrome.
 *
 * Values are in "register form": as crc.c returns them (crc32c reflected,
 * crc32_be straight). Message bits are numbered byte * 8 + b, where b is
 * the bit whose value is 1 << b in that byte, whatever order the CRC
 * reads them in.
 */
enum diag_crc_alg {
	CRC_ALG_CRC32C = 0,	/* util_crc32c: v2/v3 tags, tails, commit blocks */
	CRC_ALG_CRC32_BE,	/* util_crc32_be: v1, chained over a transaction */
};

/* The syndrome of one flipped message bit: crc(0, e) for a NBYTES message with only BIT set. */
uint32_t diag_crc_bit_syndrome(enum diag_crc_alg alg, uint64_t nbytes, uint64_t bit);

/* a * b mod P and x^e mod P, in register form (exposed for tests and bench). */
uint32_t diag_crc_mulmod(enum diag_crc_alg alg, uint32_t a, uint32_t b);
uint32_t diag_crc_xpow(enum diag_crc_alg alg, uint64_t e);

#define CRC_PATTERN_MAX_BITS	32	/* a burst of up to 32 bits */
#define CRC_MAX_CANDIDATES	16	/* patterns kept per search (all are counted) */

/* One error pattern that explains a syndrome. */
struct diag_crc_pattern {
	unsigned	nbits;				/* flipped message bits */
	uint64_t	bit[CRC_PATTERN_MAX_BITS];	/* their numbers, ascending */
	uint32_t	stored;		/* flipped bits of the stored checksum (register form) */
	unsigned	weight;		/* nbits + bits in stored */
	unsigned	span;		/* bursts: bits from first to last flip, in CRC order */
};

/*
 * Optional: tables reused between searches of the same shape (algorithm,
 * length, mask), e.g. every tag of a journal. Not thread-safe.
 */
struct diag_crc_cache;
errcode_t diag_crc_cache_new(struct diag_crc_cache **out);
void diag_crc_cache_free(struct diag_crc_cache *c);

/* What to search. */
struct diag_crc_search {
	enum diag_crc_alg	alg;
	uint64_t	nbytes;		/* message length covered by the checksum */
	uint32_t	syndrome;	/* stored ^ computed */
	uint32_t	mask;		/* the stored bits: 0xFFFFFFFF, or 0xFFFF for v2 tags */
	uint64_t	hole_start;	/* bytes counted as zero (a checksum field): */
	uint64_t	hole_len;	/*   no flip can be there; 0 for none */
	uint64_t	max_gap;	/* two bits at most this many bits apart; 0 = anywhere */
	uint64_t	pair_segment;	/* if not 0: both bits in the same PAIR_SEGMENT-byte piece */
	unsigned	max_burst;	/* burst search up to this span (<= 32); 0 = none */
	int		skip_pairs;	/* no weight-2 search (it could not be conclusive) */
	struct diag_crc_cache *cache;	/* NULL, or tables to reuse */
};

/* Searches done (crc_result.searched). */
#define CRC_SEARCHED_1		0x1	/* every single bit */
#define CRC_SEARCHED_2		0x2	/* every pair within max_gap */
#define CRC_SEARCHED_BURST	0x4	/* every burst up to max_burst */

struct diag_crc_result {
	unsigned	weight;		/* weight of the lightest patterns; 0 = none fits */
	int		burst;		/* 1: they are bursts (nothing of weight 1 or 2 fits) */
	uint64_t	count;		/* how many fit at that weight (bursts: at the shortest span) */
	unsigned	ncand;		/* the first ones, in cand[] */
	struct diag_crc_pattern cand[CRC_MAX_CANDIDATES];
	unsigned	searched;	/* CRC_SEARCHED_* */
	/*
	 * Expected number of patterns of the winning class that would fit a
	 * random syndrome (positions searched / 2^stored bits). Small means a
	 * unique fit is evidence; near or above 1 means it may be chance.
	 */
	double		chance;
};

/*
 * Find the lightest error patterns that explain Q->syndrome: weight 1
 * (one message bit, or one stored bit), else weight 2 (two message bits
 * no more than max_gap apart, a message bit and a stored bit, two stored
 * bits), else the shortest bursts up to max_burst (32-bit checksums only).
 * Messages up to 2^20 bits are searched by walking every position (any
 * mask; pairs anywhere). Longer ones (v1 transactions) by discrete
 * logarithms (baby-step giant-step): one for a single bit, one per gap for
 * pairs (crc32_be only: Castagnoli's polynomial has the factor x+1, so
 * 1 + x^k has no inverse; its checksums never cover more than a block).
 * Bursts are walked position by position. A syndrome of 0 gives
 * weight 0 and no candidate. Errors: EXT2_ET_NO_MEMORY, E4R_LIMIT (a message
 * longer than 2^31 bits), E4R_BAD_ARGUMENT.
 */
errcode_t diag_crc_locate(const struct diag_crc_search *q, struct diag_crc_result *r);

/* Flip pattern P's message bits in BUF (NBYTES long; bits beyond it are ignored). */
void diag_crc_pattern_apply(const struct diag_crc_pattern *p, unsigned char *buf, uint64_t nbytes);

#endif
