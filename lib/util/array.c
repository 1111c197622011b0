/* Growable arrays: capacity doubles, new room is zeroed. */
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"

/*
 * Room for NEED elements, *CAP doubled (FIRST at first) until they fit, MAX
 * elements at most. A doubling past MAX (or past what size_t can count in
 * bytes) fails before anything is allocated: a wrapped capacity would be a
 * smaller array written past its end.
 */
static errcode_t grow(void **arr, size_t *cap, size_t need, size_t elem, size_t first, size_t max)
{
	size_t ncap = *cap ? *cap : first ? first : 1;
	void *p;

	if (need <= *cap)
		return 0;
	if (elem && max > SIZE_MAX / elem)
		max = SIZE_MAX / elem;
	while (ncap < need || ncap == *cap) {
		if (ncap > max / 2)
			return EXT2_ET_NO_MEMORY;
		ncap *= 2;
	}
	if (ncap > max)
		return EXT2_ET_NO_MEMORY;
	p = realloc(*arr, ncap * elem);
	if (!p)
		return EXT2_ET_NO_MEMORY;
	memset((char *)p + *cap * elem, 0, (ncap - *cap) * elem);
	*arr = p;
	*cap = ncap;
	return 0;
}

errcode_t util_grow(void **arr, unsigned *cap, unsigned need, size_t elem)
{
	size_t c = *cap;
	errcode_t err = grow(arr, &c, need, elem, 64, UINT_MAX);

	if (!err)
		*cap = (unsigned)c;
	return err;
}

errcode_t util_grow_from(void **arr, size_t *cap, size_t need, size_t elem, size_t first)
{
	return grow(arr, cap, need, elem, first, SIZE_MAX);
}
