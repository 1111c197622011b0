/*
 * Unit test: util_dirhash against libext2fs's ext2fs_dirhash2 (the oracle)
 * for every hash version it implements, signed and unsigned, over seeded
 * random names of every length 0..255 (bytes above 127 included, as the
 * signed variants differ only there), random seeds and the all-zero seed.
 */
#include "config.h"

#include <ext2fs/ext2fs.h>
#include <stdint.h>
#include <string.h>

#include "util/dirhash.h"
#include "unit.h"

static uint32_t state = 2121;

static uint32_t next(void)
{
	return unit_xorshift(&state);
}

static void compare(int version, const char *name, unsigned len, const uint32_t seed[4])
{
	ext2_dirhash_t want = 0, want_minor = 0;
	uint32_t got = 1, got_minor = 1;
	errcode_t err = ext2fs_dirhash2(version, name, (int)len, NULL, 0, (const __u32 *)seed, &want,
					&want_minor);

	CHECK_EQ(err, 0);
	CHECK_EQ(util_dirhash(version, name, len, seed, &got, &got_minor), 0);
	if (got != want || got_minor != want_minor)
		fprintf(stderr, "version %d len %u seed %08x: %08x/%08x, libext2fs %08x/%08x\n",
			version, len, seed[0], got, got_minor, want, want_minor);
	CHECK_EQ(got, want);
	CHECK_EQ(got_minor, want_minor);
}

int main(void)
{
	static const int versions[] = {
		UTIL_HASH_LEGACY, UTIL_HASH_HALF_MD4, UTIL_HASH_TEA,
		UTIL_HASH_LEGACY_UNSIGNED, UTIL_HASH_HALF_MD4_UNSIGNED, UTIL_HASH_TEA_UNSIGNED,
	};
	/* the library's numbering, which the on-disk format fixes */
	CHECK_EQ(UTIL_HASH_LEGACY, EXT2_HASH_LEGACY);
	CHECK_EQ(UTIL_HASH_HALF_MD4, EXT2_HASH_HALF_MD4);
	CHECK_EQ(UTIL_HASH_TEA, EXT2_HASH_TEA);
	CHECK_EQ(UTIL_HASH_LEGACY_UNSIGNED, EXT2_HASH_LEGACY_UNSIGNED);
	CHECK_EQ(UTIL_HASH_HALF_MD4_UNSIGNED, EXT2_HASH_HALF_MD4_UNSIGNED);
	CHECK_EQ(UTIL_HASH_TEA_UNSIGNED, EXT2_HASH_TEA_UNSIGNED);

	char name[EXT2_NAME_LEN];
	for (int round = 0; round < 3000; round++) {
		unsigned len = round < 256 ? (unsigned)round : next() % (EXT2_NAME_LEN + 1);
		uint32_t seed[4] = { 0, 0, 0, 0 };

		/* a third of the rounds: the default start; some: a seed with one word set */
		if (round % 3 == 1)
			for (int i = 0; i < 4; i++)
				seed[i] = next();
		else if (round % 3 == 2)
			seed[next() % 4] = next();
		for (unsigned i = 0; i < len; i++) {
			uint32_t r = next();
			/* printable names, and names with high bytes */
			name[i] = (char)(round & 1 ? r : 'a' + r % 26);
		}
		for (size_t v = 0; v < sizeof(versions) / sizeof(versions[0]); v++)
			compare(versions[v], name, len, seed);
	}

	/* a hash that lands on the end-of-directory value is moved below it */
	uint32_t h = 0;
	CHECK_EQ(util_dirhash(UTIL_HASH_HALF_MD4, "x", 1, NULL, &h, NULL), 0);
	CHECK(h != 0xfffffffeu && !(h & 1));
	CHECK_EQ(util_dirhash(6, "x", 1, NULL, &h, NULL), -1);
	CHECK_EQ(util_dirhash(-1, "x", 1, NULL, &h, NULL), -1);
	return unit_done("test_dirhash");
}
