/* Growable arrays. */
#ifndef E4R_UTIL_ARRAY_H
#define E4R_UTIL_ARRAY_H

#include <stddef.h>
#include <ext2fs/ext2fs.h>

/*
 * Make room in *ARR (of *CAP elements of ELEM bytes) for NEED elements:
 * the capacity at least doubles, and the new elements are zeroed.
 * EXT2_ET_NO_MEMORY when the allocation fails or the capacity would pass
 * what *CAP can count; *ARR and *CAP are then as they were.
 */
errcode_t util_grow(void **arr, unsigned *cap, unsigned need, size_t elem);

/*
 * util_grow for counts kept in size_t, the first allocation FIRST elements
 * (doubled until NEED fits): each array starts at what one run usually
 * needs, a few findings of a diagnosis, a thousand directory blocks.
 */
errcode_t util_grow_from(void **arr, size_t *cap, size_t need, size_t elem, size_t first);

#endif
