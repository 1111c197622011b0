/* Open-addressing hash tables: doubling and placing the entries anew. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/hashtab.h"

static int slot_used(const unsigned char *slot, const struct util_hashtab_kind *k)
{
	for (size_t i = 0; i < k->used_size; i++)
		if (slot[k->used_offset + i])
			return 1;
	return 0;
}

errcode_t util_hashtab_room(void **slots, size_t *nslots, size_t need, const struct util_hashtab_kind *kind,
			    const void *arg)
{
	const unsigned char *old = *slots;
	size_t n = *nslots ? *nslots : kind->first ? kind->first : 1, mask, i, j;
	unsigned char *t;

	if (need <= *nslots / 2)
		return 0;
	if (*nslots) {
		if (n > SIZE_MAX / 2)
			return EXT2_ET_NO_MEMORY;
		n *= 2;
	}
	while (need > n / 2) {
		if (n > SIZE_MAX / 2)
			return EXT2_ET_NO_MEMORY;
		n *= 2;
	}
	if (!(t = calloc(n, kind->slot_size)))
		return EXT2_ET_NO_MEMORY;
	mask = n - 1;
	for (j = 0; j < *nslots; j++) {
		const unsigned char *s = old + j * kind->slot_size;

		if (!slot_used(s, kind))
			continue;
		for (i = kind->hash(s, arg) & mask; slot_used(t + i * kind->slot_size, kind); i = (i + 1) & mask)
			;
		memcpy(t + i * kind->slot_size, s, kind->slot_size);
	}
	free(*slots);
	*slots = t;
	*nslots = n;
	return 0;
}
