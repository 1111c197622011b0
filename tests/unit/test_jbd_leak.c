/* Unit test: the leak detector on synthetic bitmaps and transactions (the 2012 ext4 inode-bitmap bug). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/crc.h"
#include "diag/diagnose.h"
#include "unit.h"

#define BS 4096

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void set_bit(unsigned char *b, unsigned i)
{
	b[i / 8] |= (unsigned char)(1U << (i & 7));
}

/* A used inode bitmap: the first USED inodes taken, then padding ones past ipg. */
static void bitmap(unsigned char *b, unsigned used, unsigned ipg)
{
	memset(b, 0, BS);
	for (unsigned i = 0; i < used; i++)
		set_bit(b, i);
	for (unsigned i = ipg; i < BS * 8; i++)
		set_bit(b, i);
}

/* v3 tag checksum of a block: crc32c(seed, be32(seq)) continued over it. */
static uint32_t tag_csum(uint32_t seed, uint32_t seq, const unsigned char *blk)
{
	uint32_t be = jbd_to_be32(seq);

	return util_crc32c(util_crc32c(seed, &be, 4), blk, BS);
}

static int has(const struct diag_leak *l, uint32_t bit, uint32_t seq)
{
	for (unsigned i = 0; i < l->nbits; i++)
		if (l->bit[i] == bit && l->set_by[i] == seq)
			return 1;
	return 0;
}

/*
 * Transaction 10 allocates inodes 101-103 (bits 100-102); the checksum is
 * computed; then a handle of transaction 11 sets bits 103 and 104 in the
 * live buffer before its get_write_access, and those bytes reach the log.
 * Transaction 11 logs the bitmap with 103, 104 and its own 105.
 */
static void test_v3_leak(void)
{
	static unsigned char before[BS], intended[BS], logged[BS], later[BS];
	const unsigned char *lv[1] = { later };
	uint32_t lseq[1] = { 11 }, seed = 0xC0FFEE, stored;
	struct diag_leak leak;

	bitmap(before, 100, 8192);
	memcpy(intended, before, BS);
	set_bit(intended, 100);
	set_bit(intended, 101);
	set_bit(intended, 102);
	stored = tag_csum(seed, 10, intended);
	memcpy(logged, intended, BS);
	set_bit(logged, 103);
	set_bit(logged, 104);
	memcpy(later, logged, BS);
	set_bit(later, 105);

	CHECK_EQ(diag_leak_find(logged, before, lv, lseq, 1, BS, CRC_ALG_CRC32C,
			       4 + BS, 4, stored ^ tag_csum(seed, 10, logged), 0xFFFFFFFFU, &leak), 1);
	CHECK_EQ(leak.nbits, 2);
	CHECK(has(&leak, 103, 11));
	CHECK(has(&leak, 104, 11));
	CHECK_EQ(leak.later_versions, 1);

	/* Without the earlier content every used bit is a suspect: too many to name. */
	CHECK_EQ(diag_leak_find(logged, NULL, lv, lseq, 1, BS, CRC_ALG_CRC32C,
			       4 + BS, 4, stored ^ tag_csum(seed, 10, logged), 0xFFFFFFFFU, &leak), 0);

	/* v2 keeps 16 bits: the two leaked bits are still the lightest unique answer. */
	CHECK_EQ(diag_leak_find(logged, before, lv, lseq, 1, BS, CRC_ALG_CRC32C,
			       4 + BS, 4, stored ^ tag_csum(seed, 10, logged), 0xFFFFU, &leak), 1);
	CHECK(has(&leak, 103, 11) && has(&leak, 104, 11));
}

/* v1: the bitmap is the third block of a transaction's message; crc32_be over all of it. */
static void test_v1_leak(void)
{
	enum { NB = 5 };
	static unsigned char msg[NB * BS], later[BS], before[BS];
	const unsigned char *lv[1] = { later };
	uint32_t lseq[1] = { 8 }, stored;
	unsigned char *bm = msg + 2 * BS;
	struct diag_leak leak;

	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (unsigned char)rnd();
	bitmap(bm, 37, 8192);
	memcpy(before, bm, BS);
	set_bit(bm, 37);			/* the transaction's own allocation */
	stored = util_crc32_be(~0U, msg, sizeof(msg));
	set_bit(bm, 38);			/* the leak */
	memcpy(later, bm, BS);
	set_bit(later, 39);

	CHECK_EQ(diag_leak_find(bm, before, lv, lseq, 1, BS, CRC_ALG_CRC32_BE, sizeof(msg), 2 * BS,
			       stored ^ util_crc32_be(~0U, msg, sizeof(msg)), 0xFFFFFFFFU, &leak), 1);
	CHECK_EQ(leak.nbits, 1);
	CHECK(has(&leak, 38, 8));
}

/* Not a leak: a flipped bit that no later transaction sets, or no later copy at all. */
static void test_not_leak(void)
{
	static unsigned char before[BS], intended[BS], logged[BS], later[BS];
	const unsigned char *lv[1] = { later };
	uint32_t lseq[1] = { 11 }, seed = 7, stored;
	struct diag_leak leak;

	bitmap(before, 50, 8192);
	memcpy(intended, before, BS);
	set_bit(intended, 50);
	stored = tag_csum(seed, 10, intended);
	memcpy(logged, intended, BS);
	set_bit(logged, 3000);			/* a flip, set nowhere later */
	memcpy(later, intended, BS);
	set_bit(later, 51);

	CHECK_EQ(diag_leak_find(logged, before, lv, lseq, 1, BS, CRC_ALG_CRC32C, 4 + BS, 4,
			       stored ^ tag_csum(seed, 10, logged), 0xFFFFFFFFU, &leak), 0);
	CHECK_EQ(leak.nbits, 0);
	CHECK_EQ(diag_leak_find(logged, before, lv, lseq, 0, BS, CRC_ALG_CRC32C, 4 + BS, 4,
			       stored ^ tag_csum(seed, 10, logged), 0xFFFFFFFFU, &leak), 0);
	/* a matching checksum: nothing to explain */
	CHECK_EQ(diag_leak_find(intended, before, lv, lseq, 1, BS, CRC_ALG_CRC32C, 4 + BS, 4,
			       0, 0xFFFFFFFFU, &leak), 0);
}

/* Many random leaks of 1..6 bits among 1..20 fresh allocations: each found exactly. */
static void test_random(void)
{
	static unsigned char before[BS], intended[BS], logged[BS], later[BS];
	const unsigned char *lv[1] = { later };
	unsigned ok = 0, trials = 200;

	for (unsigned t = 0; t < trials; t++) {
		unsigned used = 20 + (unsigned)(rnd() % 4000), own = 1 + (unsigned)(rnd() % 20);
		unsigned nleak = 1 + (unsigned)(rnd() % 6);
		uint32_t lseq[1] = { 1000 + t }, seed = (uint32_t)rnd(), stored;
		struct diag_leak leak;
		int good = 1;

		bitmap(before, used, 8192);
		memcpy(intended, before, BS);
		for (unsigned i = 0; i < own; i++)
			set_bit(intended, used + i);
		stored = tag_csum(seed, 999 + t, intended);
		memcpy(logged, intended, BS);
		for (unsigned i = 0; i < nleak; i++)
			set_bit(logged, used + own + i);
		memcpy(later, logged, BS);
		if (diag_leak_find(logged, before, lv, lseq, 1, BS, CRC_ALG_CRC32C, 4 + BS, 4,
				  stored ^ tag_csum(seed, 999 + t, logged), 0xFFFFFFFFU, &leak) != 1)
			continue;
		good = leak.nbits == nleak;
		for (unsigned i = 0; i < nleak; i++)
			good &= has(&leak, used + own + i, 1000 + t);
		ok += good;
	}
	CHECK_EQ(ok, trials);
}

int main(void)
{
	test_v3_leak();
	test_v1_leak();
	test_not_leak();
	test_random();
	return unit_done("test_jbd_leak");
}
