/*
 * One binary search for every sorted table in the engine. Each table used to
 * carry its own lo/hi loop; an off-by-one in any of them would have hidden
 * a journal block or a directory from its caller, so they share this one,
 * which tests/unit/test_sorted.c checks against a linear scan.
 */
#include "config.h"

#include <string.h>

#include "util/sorted.h"

static uint64_t key_at(const struct util_sorted *s, size_t i)
{
	const unsigned char *p = (const unsigned char *)s->base + i * s->stride + s->key_offset;

	if (s->key_size == sizeof(uint32_t)) {
		uint32_t k;
		memcpy(&k, p, sizeof(k));
		return k;
	}
	uint64_t k;
	memcpy(&k, p, sizeof(k));
	return k;
}

/* First index whose key is >= KEY (STRICT = 0) or > KEY (STRICT = 1). */
static size_t partition_point(const struct util_sorted *s, uint64_t key, int strict)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k = key_at(s, mid);

		if (k < key || (strict && k == key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t util_lower_bound(struct util_sorted s, uint64_t key)
{
	return partition_point(&s, key, 0);
}

size_t util_upper_bound(struct util_sorted s, uint64_t key)
{
	return partition_point(&s, key, 1);
}

size_t util_find_key(struct util_sorted s, uint64_t key)
{
	size_t i = partition_point(&s, key, 0);

	return i < s.n && key_at(&s, i) == key ? i : s.n;
}

int util_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}
