/* Growable arrays. */
#ifndef E4R_UTIL_ARRAY_H
#define E4R_UTIL_ARRAY_H

#include <stddef.h>
#include <ext2fs/ext2fs.h>

/*
 * Make room in *ARR (of *CAP elements of ELEM bytes) for NEED elements:
 * the capacity at least doubles, and the new elements are zeroed.
 */
errcode_t util_grow(void **arr, unsigned *cap, unsigned need, size_t elem);

#endif
