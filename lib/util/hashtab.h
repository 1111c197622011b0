/*
 * Open-addressing hash tables that grow: a power of two of slots, linear
 * probing, at most half full, so that a probe always ends on a free slot.
 * The revoke table, the link counts past a nibble, the quota usage, the
 * shared xattr blocks and the overlay's index are such tables.
 *
 * Only the growth is here. Each table probes its own typed slots (pass 1
 * looks up millions of times): from its hash masked by the number of
 * slots, one slot on each time, as util_hashtab_room places the entries
 * when the table doubles.
 */
#ifndef E4R_UTIL_HASHTAB_H
#define E4R_UTIL_HASHTAB_H

#include <stddef.h>
#include <ext2fs/ext2fs.h>

struct util_hashtab_kind {
	size_t	slot_size;
	size_t	used_offset, used_size;	/* a member that is not 0 in a slot in use */
	size_t	first;			/* slots of the first table: a power of two */
	/* the hash of the key of a slot in use (ARG as given to util_hashtab_room) */
	size_t	(*hash)(const void *slot, const void *arg);
};

/* The slot_size, used_offset and used_size of a kind whose slots are TYPE, in use when MEMBER is not 0. */
#define UTIL_HASHTAB_SLOT(type, member) \
	sizeof(type), offsetof(type, member), sizeof(((type *)0)->member)

/*
 * Room in the table *SLOTS of *NSLOTS slots (0 before the first) for NEED
 * entries: when they would fill more than half of it, a table of twice
 * the slots (KIND->first at first), zeroed, takes the entries in the order
 * of their old slots, and the old one is freed. EXT2_ET_NO_MEMORY when it
 * cannot be allocated; the table is then as it was.
 */
errcode_t util_hashtab_room(void **slots, size_t *nslots, size_t need, const struct util_hashtab_kind *kind,
			    const void *arg);

#endif
