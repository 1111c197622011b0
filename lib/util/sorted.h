/* Binary search over arrays of records sorted by an unsigned integer key. */
#ifndef E4R_UTIL_SORTED_H
#define E4R_UTIL_SORTED_H

#include <stddef.h>
#include <stdint.h>

/*
 * The records are N elements of STRIDE bytes at BASE, sorted by a key of
 * KEY_SIZE bytes (4 or 8, native byte order) at KEY_OFFSET in each record:
 * pass offsetof() and sizeof() of the key member, so one search serves the
 * block lists, revoke sets and directory tables that each lay out their
 * records differently.
 */
struct util_sorted {
	const void *base;
	size_t n;
	size_t stride;
	size_t key_offset;
	size_t key_size;
};

#define UTIL_SORTED(arr, count, member)                                                  \
	((struct util_sorted){ (arr), (count), sizeof(*(arr)), offsetof(__typeof__(*(arr)), member), \
			       sizeof((arr)->member) })

/* Index of the first record whose key is >= KEY (N when none is). */
size_t util_lower_bound(struct util_sorted s, uint64_t key);

/* Index of the first record whose key is > KEY (N when none is). */
size_t util_upper_bound(struct util_sorted s, uint64_t key);

/* Index of a record whose key equals KEY, or N. */
size_t util_find_key(struct util_sorted s, uint64_t key);

/* qsort and bsearch order for plain arrays of uint64_t (and blk64_t). */
int util_cmp_u64(const void *a, const void *b);

#endif
