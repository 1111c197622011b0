/*
 * Unit test: our CRCs against published check values and against libext2fs's
 * own functions (the reference), and the CPU-instruction crc32c against the
 * portable one over every length and alignment up to a few blocks; the
 * slice-by-8 crc32_be against a bitwise reference, and the crc32c's
 * three-stripe path against libext2fs's, on seeded random input.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <ext2fs/ext2fs.h>

#include "util/crc.h"
#include "unit.h"

/* CRC-32 MSB first, one bit at a time: the definition, with no table to get wrong. */
static uint32_t crc32_be_bitwise(uint32_t crc, const unsigned char *p, size_t len)
{
	while (len--) {
		crc ^= (uint32_t)*p++ << 24;
		for (int k = 0; k < 8; k++)
			crc = (crc & 0x80000000U) ? (crc << 1) ^ 0x04C11DB7U : crc << 1;
	}
	return crc;
}

static unsigned next_rand(unsigned *seed)
{
	*seed = *seed * 1103515245 + 12345;
	return *seed >> 16;
}

/*
 * The slice-by-8 crc32_be against the bitwise definition, the byte-wise
 * table and libext2fs's, on seeded random messages: random length (so every
 * tail of 0..7 bytes after the 8-byte steps), alignment, initial value, and
 * a split point for chaining.
 */
static void crc32_be_random(void)
{
	enum { MAXLEN = 20000 };
	unsigned char *msg = malloc(MAXLEN + 8);
	unsigned seed = 0x5eed21d;

	for (int i = 0; i < MAXLEN + 8; i++)
		msg[i] = (unsigned char)next_rand(&seed);
	for (int round = 0; round < 400; round++) {
		size_t len = round < 64 ? (size_t)round : next_rand(&seed) % MAXLEN;
		const unsigned char *p = msg + next_rand(&seed) % 8;
		uint32_t init = (uint32_t)next_rand(&seed) << 16 ^ next_rand(&seed);
		size_t cut = len ? next_rand(&seed) % (len + 1) : 0;
		uint32_t ref = crc32_be_bitwise(init, p, len);

		CHECK_EQ(util_crc32_be(init, p, len), ref);
		CHECK_EQ(util_crc32_be_bytewise(init, p, len), ref);
		CHECK_EQ(ext2fs_crc32_be(init, p, len), ref);
		CHECK_EQ(util_crc32_be(util_crc32_be(init, p, cut), p + cut, len - cut), ref);
		/* crc32c's three-stripe path (4080 bytes and more) on the same messages. */
		uint32_t refc = ext2fs_crc32c_le(init, p, len);
		CHECK_EQ(util_crc32c(init, p, len), refc);
		CHECK_EQ(util_crc32c(util_crc32c(init, p, cut), p + cut, len - cut), refc);
	}
	free(msg);
}

int main(void)
{
	static const unsigned char check[] = "123456789";
	unsigned char *buf = malloc(16384 + 16);
	unsigned seed = 12345;

	/* CRC-32C check value 0xE3069283 (final inversion applied here, as the standard does). */
	CHECK_EQ(util_crc32c(~0U, check, 9) ^ ~0U, 0xE3069283U);
	CHECK_EQ(util_crc32c_sw(~0U, check, 9) ^ ~0U, 0xE3069283U);
	/* CRC-32/MPEG-2 (poly 0x04C11DB7, MSB first, init ~0, no inversion): 0x0376E6E7. */
	CHECK_EQ(util_crc32_be(~0U, check, 9), 0x0376E6E7U);
	CHECK_EQ(crc32_be_bitwise(~0U, check, 9), 0x0376E6E7U);
	CHECK_EQ(util_crc32_be_bytewise(~0U, check, 9), 0x0376E6E7U);
	crc32_be_random();

	for (int i = 0; i < 16384 + 16; i++) {
		seed = seed * 1103515245 + 12345;
		buf[i] = seed >> 16;
	}
	/* Every length to 80 and from 4076 to 4100 (around three crc32c stripes, 4080) at every
	   alignment 0..7, steps of 37 between; and chaining across a split. */
	for (size_t align = 0; align < 8; align++)
		for (size_t len = 0; len <= 4100; len += (len < 80 || len >= 4076 ? 1 : 37)) {
			const unsigned char *p = buf + align;
			uint32_t ref = ext2fs_crc32c_le(0x12345678U, p, len);
			CHECK_EQ(util_crc32c(0x12345678U, p, len), ref);
			CHECK_EQ(util_crc32c(util_crc32c(0x12345678U, p, len / 3), p + len / 3, len - len / 3), ref);
			CHECK_EQ(util_crc32_be(~0U, p, len), ext2fs_crc32_be(~0U, p, len));
		}
	/* A whole 16 KiB block, the largest jbd2 block. */
	CHECK_EQ(util_crc32c(~0U, buf, 16384), ext2fs_crc32c_le(~0U, buf, 16384));
	printf("crc32c uses the CPU instruction: %s\n", util_crc32c_hw_available() ? "yes" : "no");
	free(buf);
	return unit_done("test_crc");
}
