/* Unit test: the CRC algebra against the real CRC functions: flip bits in random buffers, locate them. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/crc.h"
#include "diag/crc_algebra.h"
#include "util/e4r_err.h"
#include "unit.h"

static uint64_t rng = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void fill(unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char)rnd();
}

static uint32_t crc(enum diag_crc_alg alg, uint32_t init, const unsigned char *b, size_t n)
{
	return alg == CRC_ALG_CRC32C ? util_crc32c(init, b, n) : util_crc32_be(init, b, n);
}

static void flip(unsigned char *b, uint64_t bit)
{
	b[bit / 8] ^= (unsigned char)(1U << (bit & 7));
}

/* Message bit read at position O by the CRC (crc32_be reads each byte's bit 7 first). */
static uint64_t order_bit(enum diag_crc_alg alg, uint64_t o)
{
	return alg == CRC_ALG_CRC32C ? o : (o & ~7ULL) | (7 - (o & 7));
}

static int has_bits(const struct diag_crc_result *r, const uint64_t *bits, unsigned n)
{
	for (unsigned i = 0; i < r->ncand; i++) {
		if (r->cand[i].nbits != n || r->cand[i].stored)
			continue;
		if (!memcmp(r->cand[i].bit, bits, n * sizeof(*bits)))
			return 1;
	}
	return 0;
}

/* The syndrome of one bit is crc(0, that bit alone), and the CRC is affine. */
static void test_syndromes(enum diag_crc_alg alg)
{
	unsigned char a[300], e[300];

	for (int t = 0; t < 300; t++) {
		size_t n = 1 + rnd() % sizeof(a);
		uint64_t bit = rnd() % (n * 8);
		uint32_t init = (uint32_t)rnd();

		fill(a, n);
		memset(e, 0, n);
		flip(e, bit);
		CHECK_EQ(diag_crc_bit_syndrome(alg, n, bit), crc(alg, 0, e, n));
		uint32_t before = crc(alg, init, a, n);
		flip(a, bit);
		CHECK_EQ(before ^ crc(alg, init, a, n), diag_crc_bit_syndrome(alg, n, bit));
	}
	CHECK_EQ(diag_crc_mulmod(alg, diag_crc_xpow(alg, 5), diag_crc_xpow(alg, 7)), diag_crc_xpow(alg, 12));
}

/* Every bit of a short message, one after the other: each is found, alone. */
static void test_exhaustive(enum diag_crc_alg alg)
{
	unsigned char a[72];
	uint32_t init = 0xFFFFFFFFU, good;
	unsigned ok = 0;

	fill(a, sizeof(a));
	good = crc(alg, init, a, sizeof(a));
	for (uint64_t bit = 0; bit < sizeof(a) * 8; bit++) {
		struct diag_crc_search q = { .alg = alg, .nbytes = sizeof(a), .mask = 0xFFFFFFFFU, .max_burst = 32 };
		struct diag_crc_result r;

		flip(a, bit);
		q.syndrome = good ^ crc(alg, init, a, sizeof(a));
		flip(a, bit);
		if (diag_crc_locate(&q, &r) == 0 && r.weight == 1 && r.count == 1 &&
		    r.cand[0].nbits == 1 && r.cand[0].bit[0] == bit)
			ok++;
	}
	CHECK_EQ(ok, sizeof(a) * 8);
}

/* Random flips of 1 and 2 bits and bursts in a 4 KiB block with a tag-like prefix. */
static void test_block(enum diag_crc_alg alg)
{
	enum { N = 4100 };
	static unsigned char a[N];
	unsigned pairs_unique = 0, bursts_found = 0;

	for (int t = 0; t < 40; t++) {
		struct diag_crc_search q = { .alg = alg, .nbytes = N, .mask = 0xFFFFFFFFU, .max_burst = 32 };
		struct diag_crc_result r;
		uint64_t bits[2];
		uint32_t good;

		fill(a, N);
		good = crc(alg, 0x12345678U, a, N);
		bits[0] = rnd() % (N * 8);
		flip(a, bits[0]);
		q.syndrome = good ^ crc(alg, 0x12345678U, a, N);
		CHECK_EQ(diag_crc_locate(&q, &r), 0);
		CHECK_EQ(r.weight, 1);
		CHECK_EQ(r.count, 1);
		CHECK(has_bits(&r, bits, 1));
		CHECK(r.chance < 1e-4);

		/* the corrected bytes check out */
		diag_crc_pattern_apply(&r.cand[0], a, N);
		CHECK_EQ(crc(alg, 0x12345678U, a, N), good);

		/* two bits anywhere in the block */
		do {
			bits[0] = rnd() % (N * 8);
			bits[1] = rnd() % (N * 8);
		} while (bits[0] == bits[1]);
		if (bits[0] > bits[1]) {
			uint64_t x = bits[0]; bits[0] = bits[1]; bits[1] = x;
		}
		flip(a, bits[0]);
		flip(a, bits[1]);
		q.syndrome = good ^ crc(alg, 0x12345678U, a, N);
		CHECK_EQ(diag_crc_locate(&q, &r), 0);
		CHECK_EQ(r.weight, 2);
		CHECK(has_bits(&r, bits, 2));
		pairs_unique += r.count == 1;
		for (unsigned i = 0; i < r.ncand; i++) {
			unsigned char *tmp = malloc(N);
			memcpy(tmp, a, N);
			diag_crc_pattern_apply(&r.cand[i], tmp, N);
			CHECK_EQ(crc(alg, 0x12345678U, tmp, N), good);
			free(tmp);
		}
		flip(a, bits[0]);
		flip(a, bits[1]);

		/*
		 * A burst of 5..10 bits (in the CRC's reading order) with both ends
		 * flipped: the shortest fit is it (another one of that span fits
		 * by chance with odds ~ N*8 * 2^(span-2) / 2^32, under 0.2%).
		 */
		unsigned span = 5 + (unsigned)(rnd() % 6);
		uint64_t start = rnd() % (N / 2);
		unsigned char orig[4];
		memcpy(orig, a + start, 4);
		uint32_t pat = (uint32_t)rnd() | 1U | (1U << (span - 1));
		pat &= span == 32 ? 0xFFFFFFFFU : (1U << span) - 1;
		for (unsigned i = 0; i < span; i++)
			if (pat & (1U << i))
				flip(a, order_bit(alg, start * 8 + i));
		q.syndrome = good ^ crc(alg, 0x12345678U, a, N);
		CHECK_EQ(diag_crc_locate(&q, &r), 0);
		/*
		 * Some pair of bits fits any syndrome with odds ~ (N*8)^2/2 / 2^32,
		 * about 1 in 4 here: then the lighter pair wins, as it should.
		 */
		if (__builtin_popcount(pat) > 2 && r.burst) {
			int found = 0;
			bursts_found++;
			for (unsigned i = 0; i < r.ncand; i++) {
				unsigned char tmp[N];
				memcpy(tmp, a, N);
				diag_crc_pattern_apply(&r.cand[i], tmp, N);
				if (!memcmp(tmp + start, orig, 4))
					found = 1;
				CHECK_EQ(crc(alg, 0x12345678U, tmp, N), good);
			}
			CHECK(found);
		}
		memcpy(a + start, orig, 4);
	}
	/*
	 * Two bits in 4100 bytes: another pair shares the syndrome with odds
	 * ~ (N*8)^2/2 / 2^31 (crc32c) or / 2^32: most are unique, not all.
	 */
	CHECK(pairs_unique >= 25);
	CHECK(bursts_found >= 20);
}

/* A flip in the stored value itself, and flips inside the hole (the checksum field). */
static void test_stored_and_hole(void)
{
	enum { N = 4096 };
	static unsigned char a[N];
	struct diag_crc_search q = { .alg = CRC_ALG_CRC32C, .nbytes = N, .syndrome = 1U << 13, .mask = 0xFFFFFFFFU,
				.hole_start = N - 4, .hole_len = 4, .max_burst = 32 };
	struct diag_crc_result r;

	CHECK_EQ(diag_crc_locate(&q, &r), 0);
	CHECK_EQ(r.weight, 1);
	CHECK_EQ(r.count, 1);
	CHECK_EQ(r.cand[0].nbits, 0);
	CHECK_EQ(r.cand[0].stored, 1U << 13);

	/* the syndrome of a bit in the hole: no message bit may explain it */
	fill(a, N);
	q.syndrome = diag_crc_bit_syndrome(CRC_ALG_CRC32C, N, (N - 2) * 8 + 3);
	CHECK_EQ(diag_crc_locate(&q, &r), 0);
	for (unsigned i = 0; i < r.ncand; i++)
		for (unsigned k = 0; k < r.cand[i].nbits; k++)
			CHECK(r.cand[i].bit[k] / 8 < N - 4);
	CHECK(r.weight != 1);

	/* no error, no pattern */
	q.syndrome = 0;
	CHECK_EQ(diag_crc_locate(&q, &r), 0);
	CHECK_EQ(r.weight, 0);
	q.nbytes = 0;
	CHECK_EQ(diag_crc_locate(&q, &r), E4R_BAD_ARGUMENT);
}

/* v2 keeps 16 bits: the true bit is among the candidates; the chance says how weak that is. */
static void test_truncated(void)
{
	enum { N = 4100 };
	static unsigned char a[N];
	unsigned found = 0, trials = 50;

	for (unsigned t = 0; t < trials; t++) {
		struct diag_crc_search q = { .alg = CRC_ALG_CRC32C, .nbytes = N, .mask = 0xFFFF };
		struct diag_crc_result r;
		uint64_t bit = rnd() % (N * 8);
		uint32_t good;

		fill(a, N);
		good = util_crc32c(7, a, N);
		flip(a, bit);
		q.syndrome = good ^ util_crc32c(7, a, N);
		CHECK_EQ(diag_crc_locate(&q, &r), 0);
		CHECK_EQ(r.weight, 1);
		CHECK(r.count >= 1);
		CHECK(r.chance > 0.4 && r.chance < 0.6);
		if (r.count <= CRC_MAX_CANDIDATES && has_bits(&r, &bit, 1))
			found++;
	}
	CHECK_EQ(found, trials);
}

/* A long v1-like message (16 Mbit): discrete logarithms find one and two flipped bits. */
static void test_long(void)
{
	size_t n = 2u << 20;
	unsigned char *a = malloc(n);
	uint32_t good;

	CHECK(a != NULL);
	if (!a)
		return;
	fill(a, n);
	good = util_crc32_be(~0U, a, n);
	for (int t = 0; t < 5; t++) {
		struct diag_crc_search q = { .alg = CRC_ALG_CRC32_BE, .nbytes = n, .mask = 0xFFFFFFFFU,
					.max_gap = 64 };
		struct diag_crc_result r;
		uint64_t bits[2];

		bits[0] = rnd() % (n * 8);
		flip(a, bits[0]);
		q.syndrome = good ^ util_crc32_be(~0U, a, n);
		CHECK_EQ(diag_crc_locate(&q, &r), 0);
		CHECK_EQ(r.weight, 1);
		CHECK_EQ(r.count, 1);
		CHECK(has_bits(&r, bits, 1));
		flip(a, bits[0]);

		/* close together: pairs up to 64 bits apart fit by chance ~ n*64/2^32 */
		bits[0] = rnd() % (n * 8 - 64);
		bits[1] = bits[0] + 1 + rnd() % 63;
		flip(a, bits[0]);
		flip(a, bits[1]);
		q.syndrome = good ^ util_crc32_be(~0U, a, n);
		CHECK_EQ(diag_crc_locate(&q, &r), 0);
		CHECK_EQ(r.weight, 2);
		CHECK(has_bits(&r, bits, 2));
		CHECK(r.searched & CRC_SEARCHED_2);
		flip(a, bits[0]);
		flip(a, bits[1]);
	}
	free(a);
}

int main(void)
{
	initialize_e4r_error_table();
	test_syndromes(CRC_ALG_CRC32C);
	test_syndromes(CRC_ALG_CRC32_BE);
	test_exhaustive(CRC_ALG_CRC32C);
	test_exhaustive(CRC_ALG_CRC32_BE);
	test_block(CRC_ALG_CRC32C);
	test_block(CRC_ALG_CRC32_BE);
	test_stored_and_hole();
	test_truncated();
	test_long();
	return unit_done("test_crc_algebra");
}
