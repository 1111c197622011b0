/*
 * Unit test: the shared binary search against a linear scan (the oracle) over
 * seeded random sorted tables with runs of equal keys, for 4- and 8-byte keys
 * at a non-zero offset, including empty tables and keys past both ends; and
 * the uint64_t comparator, sorting seeded keys on both sides of 2^63 (where a
 * signed difference would order them wrongly), checked pair by pair.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "util/sorted.h"
#include "unit.h"

struct rec64 {
	uint32_t pad;
	uint64_t key;
};

struct rec32 {
	uint16_t pad;
	uint32_t key;
	uint8_t tail;
};

static unsigned seed = 4242;

static unsigned next(void)
{
	seed = seed * 1103515245 + 12345;
	return seed >> 8;
}

static size_t linear_first(const uint64_t *keys, size_t n, uint64_t key, int strict)
{
	size_t i = 0;

	while (i < n && (keys[i] < key || (strict && keys[i] == key)))
		i++;
	return i;
}

int main(void)
{
	enum { MAX = 64 };
	static struct rec64 r64[MAX];
	static struct rec32 r32[MAX];
	uint64_t keys[MAX];

	for (int round = 0; round < 2000; round++) {
		size_t n = next() % MAX;	/* 0 included */
		uint64_t k = round & 1 ? (uint64_t)1 << 40 : 0;	/* high bits matter for 8-byte keys */

		for (size_t i = 0; i < n; i++) {
			k += next() % 3;	/* equal neighbours on purpose */
			keys[i] = k;
			r64[i].key = k;
			r32[i].key = (uint32_t)k;
		}
		uint64_t first = n && keys[0] >= 2 ? keys[0] - 2 : 0, last = n ? keys[n - 1] + 2 : 3;

		for (uint64_t probe = first; probe <= last; probe++) {
			size_t lo = linear_first(keys, n, probe, 0), up = linear_first(keys, n, probe, 1);
			size_t hit = util_find_key(UTIL_SORTED(r64, n, key), probe);

			CHECK_EQ(util_lower_bound(UTIL_SORTED(r64, n, key), probe), lo);
			CHECK_EQ(util_upper_bound(UTIL_SORTED(r64, n, key), probe), up);
			CHECK(lo < up ? hit < n && r64[hit].key == probe : hit == n);
			if (!(round & 1)) {
				CHECK_EQ(util_lower_bound(UTIL_SORTED(r32, n, key), probe), lo);
				CHECK_EQ(util_upper_bound(UTIL_SORTED(r32, n, key), probe), up);
			}
		}
	}
	for (int round = 0; round < 200; round++) {
		size_t n = next() % MAX;

		for (size_t i = 0; i < n; i++)
			keys[i] = ((uint64_t)next() << 40 ^ next()) | (next() & 1 ? (uint64_t)1 << 63 : 0);
		qsort(keys, n, sizeof(*keys), util_cmp_u64);
		for (size_t i = 1; i < n; i++)
			CHECK(keys[i - 1] <= keys[i]);
		for (size_t i = 0; i < n; i++)
			CHECK(util_cmp_u64(&keys[i], &keys[i]) == 0);
	}
	return unit_done("test_sorted");
}
