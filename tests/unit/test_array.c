/*
 * Unit test: the growable arrays (util/array.h) and the growth of the hash
 * tables (util/hashtab.h). An array keeps its elements and zeroes its new
 * room, starts at its first capacity and doubles; a table more than half
 * full doubles and every entry is found again by the probe its user makes
 * (linear, from the hash), including round the end of the table. Their
 * failure paths: the allocation failing (this program's realloc and calloc
 * fail on demand) and a capacity that would wrap (refused before any
 * allocation) leave the array or the table as it was, and say
 * EXT2_ET_NO_MEMORY.
 */
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/hashtab.h"
#include "unit.h"

/*
 * Allocation failures on demand, as in repair_cuts.c: a sanitizer brings
 * its own allocator, which these would break, so there they are not
 * injected (and their checks are left out).
 */
static int allocs;		/* realloc and calloc calls while WATCH */
static int watch, fail_next;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CAN_FAIL 0
#else
#define CAN_FAIL 1
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

static int fails(void)
{
	if (!watch)
		return 0;
	allocs++;
	if (!fail_next)
		return 0;
	fail_next = 0;
	return 1;
}

void *realloc(void *p, size_t n)
{
	return fails() ? NULL : __libc_realloc(p, n);
}

void *calloc(size_t n, size_t size)
{
	return fails() ? NULL : __libc_calloc(n, size);
}
#endif

/* The allocations counted since ALLOCS was reset were N (not counted under a sanitizer). */
#define CHECK_ALLOCS(n) do { \
	if (CAN_FAIL) \
		CHECK_EQ(allocs, n); \
} while (0)

/* util_grow_from, counting the allocations it makes. */
static errcode_t grow_from(void **arr, size_t *cap, size_t need, size_t elem, size_t first)
{
	errcode_t err;

	watch = 1;
	err = util_grow_from(arr, cap, need, elem, first);
	watch = 0;
	return err;
}

static void test_grow_from(void)
{
	uint32_t *v = NULL;
	size_t cap = 0, i, n = 0;
	int zeroed = 1, kept = 1;

	/* the first allocation holds FIRST, and nothing more is allocated until they are used */
	allocs = 0;
	CHECK_EQ(grow_from((void **)&v, &cap, 1, sizeof(*v), 8), 0);
	CHECK_EQ(cap, 8);
	CHECK_ALLOCS(1);
	for (; n < 8; n++)
		CHECK_EQ(grow_from((void **)&v, &cap, n + 1, sizeof(*v), 8), 0);
	CHECK_ALLOCS(1);
	for (i = 0; i < 8; i++)
		v[i] = (uint32_t)i * 7 + 1;
	/* then it doubles, keeps what it held and zeroes the new room */
	CHECK_EQ(grow_from((void **)&v, &cap, 9, sizeof(*v), 8), 0);
	CHECK_EQ(cap, 16);
	CHECK_ALLOCS(2);
	for (i = 0; i < 8; i++)
		kept &= v[i] == (uint32_t)i * 7 + 1;
	for (; i < 16; i++)
		zeroed &= v[i] == 0;
	CHECK(kept);
	CHECK(zeroed);
	/* a need far past twice the capacity: doubled until it fits, in one allocation */
	CHECK_EQ(grow_from((void **)&v, &cap, 1000, sizeof(*v), 8), 0);
	CHECK_EQ(cap, 1024);
	CHECK_ALLOCS(3);
	for (i = 0, kept = 1; i < 8; i++)
		kept &= v[i] == (uint32_t)i * 7 + 1;
	for (zeroed = 1; i < 1024; i++)
		zeroed &= v[i] == 0;
	CHECK(kept);
	CHECK(zeroed);
	free(v);

	/* a first need past FIRST */
	v = NULL;
	cap = 0;
	CHECK_EQ(grow_from((void **)&v, &cap, 100, sizeof(*v), 8), 0);
	CHECK_EQ(cap, 128);
	free(v);
}

static void test_grow_fails(void)
{
	uint32_t *v = NULL, *before;
	size_t cap = 0, big;
	int kept = 1;

	CHECK_EQ(grow_from((void **)&v, &cap, 64, sizeof(*v), 64), 0);
	for (unsigned i = 0; i < 64; i++)
		v[i] = i + 1;
	before = v;
	if (CAN_FAIL) {
		/* the allocation fails: the array and its capacity stay, and it can grow later */
		fail_next = 1;
		allocs = 0;
		CHECK_EQ(grow_from((void **)&v, &cap, 65, sizeof(*v), 64), EXT2_ET_NO_MEMORY);
		CHECK_ALLOCS(1);
		CHECK(v == before);
		CHECK_EQ(cap, 64);
		for (unsigned i = 0; i < 64; i++)
			kept &= v[i] == i + 1;
		CHECK(kept);
		CHECK_EQ(grow_from((void **)&v, &cap, 65, sizeof(*v), 64), 0);
		CHECK_EQ(cap, 128);
		CHECK_EQ(v[63], 64);
	}
	/* a capacity whose bytes size_t cannot count: refused before any allocation */
	big = SIZE_MAX / sizeof(*v) + 1;
	before = v;
	allocs = 0;
	CHECK_EQ(grow_from((void **)&v, &cap, big, sizeof(*v), 64), EXT2_ET_NO_MEMORY);
	CHECK_ALLOCS(0);
	CHECK(v == before);
	CHECK_EQ(cap, CAN_FAIL ? 128 : 64);
	/* nor one whose count would wrap */
	CHECK_EQ(grow_from((void **)&v, &cap, SIZE_MAX, 1, 64), EXT2_ET_NO_MEMORY);
	CHECK_ALLOCS(0);
	free(v);
}

static void test_grow_unsigned(void)
{
	uint64_t *v = NULL;
	unsigned cap = 0, ucap;
	void *p;
	errcode_t err;

	watch = 1;
	allocs = 0;
	CHECK_EQ(util_grow((void **)&v, &cap, 1, sizeof(*v)), 0);
	CHECK_EQ(cap, 64);
	CHECK_EQ(util_grow((void **)&v, &cap, 64, sizeof(*v)), 0);
	CHECK_EQ(util_grow((void **)&v, &cap, 65, sizeof(*v)), 0);
	CHECK_EQ(cap, 128);
	CHECK_ALLOCS(2);
	CHECK_EQ(v[127], 0);
	if (CAN_FAIL) {
		fail_next = 1;
		p = v;
		CHECK_EQ(util_grow((void **)&v, &cap, 129, sizeof(*v)), EXT2_ET_NO_MEMORY);
		CHECK(v == p);
		CHECK_EQ(cap, 128);
	}
	/* past what an unsigned capacity counts (2^31 doubled wraps to 0): refused, nothing allocated */
	ucap = 1u << 31;
	p = v;
	allocs = 0;
	err = util_grow((void **)&v, &ucap, ucap + 1, 1);
	CHECK_EQ(err, EXT2_ET_NO_MEMORY);
	CHECK_ALLOCS(0);
	CHECK_EQ(ucap, 1u << 31);
	CHECK(v == p);
	watch = 0;
	free(v);
}

/* A table of keys with a used flag, and one whose key is never 0 (the flag is the key). */
struct flagged {
	uint32_t	key;
	uint8_t		used;
};

struct keyed {
	uint64_t	key;
	uint32_t	value;
};

static size_t flagged_hash(const void *slot, const void *arg)
{
	(void)arg;
	return ((const struct flagged *)slot)->key * 2654435761u;
}

/* Every key on one slot: the probes run long and wrap round the end of the table. */
static size_t keyed_hash(const void *slot, const void *arg)
{
	(void)slot;
	return *(const size_t *)arg;
}

static const struct util_hashtab_kind flagged_kind = {
	UTIL_HASHTAB_SLOT(struct flagged, used), 16, flagged_hash
};

static const struct util_hashtab_kind keyed_kind = {
	UTIL_HASHTAB_SLOT(struct keyed, key), 8, keyed_hash
};

static errcode_t room(void **slots, size_t *nslots, size_t need, const struct util_hashtab_kind *k,
		      const void *arg)
{
	errcode_t err;

	watch = 1;
	err = util_hashtab_room(slots, nslots, need, k, arg);
	watch = 0;
	return err;
}

/* The slot of KEY in T (the probe a table's user makes), or NULL. */
static struct flagged *flagged_find(struct flagged *t, size_t nslots, uint32_t key)
{
	size_t mask = nslots - 1, i;

	if (!nslots)
		return NULL;
	for (i = (key * 2654435761u) & mask; t[i].used; i = (i + 1) & mask)
		if (t[i].key == key)
			return &t[i];
	return NULL;
}

static void test_hashtab(void)
{
	struct flagged *t = NULL, *before;
	size_t nslots = 0, n = 0, grown = 0, prev;
	uint32_t state = 77, keys[3000];
	int all = 1, half = 1;

	for (unsigned k = 0; k < 3000; k++) {
		uint32_t key = unit_xorshift(&state) % 100000;	/* 0 included, repeats too */
		struct flagged *s;

		keys[k] = key;
		if (flagged_find(t, nslots, key))
			continue;
		prev = nslots;
		if (room((void **)&t, &nslots, n + 1, &flagged_kind, NULL)) {
			all = 0;
			break;
		}
		if (nslots != prev) {
			grown++;
			/* the first table, or twice the last, grown only when more than half full */
			all &= prev ? nslots == 2 * prev && (n + 1) * 2 > prev : nslots == 16;
		}
		for (size_t i = (key * 2654435761u) & (nslots - 1); ; i = (i + 1) & (nslots - 1))
			if (!t[i].used) {
				s = &t[i];
				break;
			}
		s->key = key;
		s->used = 1;
		n++;
		half &= n * 2 <= nslots;
		/* every key so far is found after every growth */
		if (nslots != prev)
			for (unsigned j = 0; j <= k; j++)
				all &= flagged_find(t, nslots, keys[j]) != NULL;
	}
	CHECK(all);
	CHECK(half);
	CHECK(grown >= 8);
	/* room already there: nothing allocated */
	allocs = 0;
	CHECK_EQ(room((void **)&t, &nslots, n, &flagged_kind, NULL), 0);
	CHECK_ALLOCS(0);
	if (CAN_FAIL) {
		/* the allocation fails with the table full to half: it stays as it was */
		struct flagged *copy = malloc(nslots * sizeof(*copy));

		while (n * 2 < nslots) {
			uint32_t key = 200000 + (uint32_t)n;
			size_t i = (key * 2654435761u) & (nslots - 1);

			while (t[i].used)
				i = (i + 1) & (nslots - 1);
			t[i] = (struct flagged){ key, 1 };
			n++;
		}
		if (copy)
			memcpy(copy, t, nslots * sizeof(*copy));
		before = t;
		prev = nslots;
		fail_next = 1;
		CHECK_EQ(room((void **)&t, &nslots, n + 1, &flagged_kind, NULL), EXT2_ET_NO_MEMORY);
		CHECK(t == before);
		CHECK_EQ(nslots, prev);
		CHECK(copy && !memcmp(copy, t, nslots * sizeof(*copy)));
		free(copy);
		/* and grows when asked again */
		CHECK_EQ(room((void **)&t, &nslots, n + 1, &flagged_kind, NULL), 0);
		CHECK_EQ(nslots, 2 * prev);
		for (unsigned j = 0; j < 3000; j++)
			all &= flagged_find(t, nslots, keys[j]) != NULL;
		CHECK(all);
	}
	free(t);
}

/* All on one hash: an entry is placed past the last slot's neighbours, round to slot 0. */
static void test_hashtab_wrap(void)
{
	struct keyed *t = NULL;
	size_t nslots = 0, h = 7, n, i, found;

	for (n = 0; n < 4; n++) {
		CHECK_EQ(room((void **)&t, &nslots, n + 1, &keyed_kind, &h), 0);
		for (i = h & (nslots - 1); t[i].key; i = (i + 1) & (nslots - 1))
			;
		t[i] = (struct keyed){ 1000 + n, (uint32_t)n };
	}
	CHECK_EQ(nslots, 8);
	/* slots 7, 0, 1, 2 */
	CHECK_EQ(t[7].key, 1000);
	CHECK_EQ(t[0].key, 1001);
	CHECK_EQ(t[2].key, 1003);
	/* doubled: placed again from slot 7 in the order of their old slots (0, 1, 2, then 7) */
	CHECK_EQ(room((void **)&t, &nslots, 5, &keyed_kind, &h), 0);
	CHECK_EQ(nslots, 16);
	CHECK_EQ(t[7].key, 1001);
	CHECK_EQ(t[8].key, 1002);
	CHECK_EQ(t[9].key, 1003);
	CHECK_EQ(t[10].key, 1000);
	for (i = 0, found = 0; i < nslots; i++)
		found += t[i].key != 0;
	CHECK_EQ(found, 4);
	free(t);

	/* a need far past the first table: one allocation big enough */
	t = NULL;
	nslots = 0;
	allocs = 0;
	CHECK_EQ(room((void **)&t, &nslots, 100, &keyed_kind, &h), 0);
	CHECK_EQ(nslots, 256);
	CHECK_ALLOCS(1);
	free(t);
}

int main(void)
{
	test_grow_from();
	test_grow_fails();
	test_grow_unsigned();
	test_hashtab();
	test_hashtab_wrap();
	return unit_done("test_array");
}
