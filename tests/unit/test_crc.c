/*
 * Unit test: our CRCs against published check values and against libext2fs's
 * own functions (the reference), and the CPU-instruction crc32c against the
 * portable one over every length and alignment up to a few blocks.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <ext2fs/ext2fs.h>

#include "util/crc.h"
#include "unit.h"

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

	for (int i = 0; i < 16384 + 16; i++) {
		seed = seed * 1103515245 + 12345;
		buf[i] = seed >> 16;
	}
	/* Every length to 4100 at every alignment 0..7, and chaining across a split. */
	for (size_t align = 0; align < 8; align++)
		for (size_t len = 0; len <= 4100; len += (len < 80 ? 1 : 37)) {
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
