/* Growable arrays: capacity doubles, new room is zeroed. */
#include "config.h"

#include <string.h>

#include "util/array.h"

errcode_t util_grow(void **arr, unsigned *cap, unsigned need, size_t elem)
{
	unsigned ncap;
	errcode_t err;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	while (ncap < need)
		ncap *= 2;
	err = ext2fs_resize_mem(*cap * elem, ncap * elem, arr);
	if (!err) {
		memset((char *)*arr + *cap * elem, 0, (ncap - *cap) * elem);
		*cap = ncap;
	}
	return err;
}
