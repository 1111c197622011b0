/*
 * Link counts per inode: what i_links_count says (pass 1) and how many
 * entries name the inode (pass 2), compared in pass 4.
 *
 * Both are kept in one byte per inode, four bits each. Nearly every count is
 * small (a file has one or two names, a directory two plus its
 * subdirectories), and at a few million inodes two full-width arrays would be
 * most of the checker's memory. An inode either of whose counts reaches
 * NLINK_BIG moves to a small hash table keyed by inode number, which then
 * holds both of its counts in full.
 */
#include <errno.h>
#include <stdlib.h>
#include "check/ctx.h"
#include "util/hashtab.h"

#define NLINK_BIG	15u		/* in a half byte: look in the table */
#define NLINK_BOTH_BIG	0xffu

struct nlink_big {
	ext2_ino_t	ino;		/* 0: the slot is free */
	uint32_t	disk, found;
};

struct check_nlink {
	uint8_t			*pair;		/* [inodes + 1]: on disk << 4 | found */
	struct nlink_big	*big;		/* open addressing, a power of two slots */
	size_t			nbig, big_slots;
	errcode_t		err;		/* the first failure to grow the table */
};

errcode_t check_nlink_init(struct check_ctx *c, size_t n)
{
	struct check_nlink *l = calloc(1, sizeof(*l));

	if (!l)
		return ENOMEM;
	l->pair = calloc(n, 1);
	c->nlink = l;
	return l->pair ? 0 : ENOMEM;
}

void check_nlink_free(struct check_ctx *c)
{
	struct check_nlink *l = c->nlink;

	if (!l)
		return;
	free(l->pair);
	free(l->big);
	free(l);
	c->nlink = NULL;
}

static size_t hash_of(ext2_ino_t ino)
{
	/* an odd multiplier: inode numbers that differ in their low bits get other slots */
	return (uint32_t)(ino * 2654435769u);
}

static size_t big_hash(const void *slot, const void *arg)
{
	(void)arg;
	return hash_of(((const struct nlink_big *)slot)->ino);
}

static const struct util_hashtab_kind big_kind = {
	UTIL_HASHTAB_SLOT(struct nlink_big, ino), 64, big_hash
};

static size_t slot_of(const struct check_nlink *l, ext2_ino_t ino)
{
	size_t i = hash_of(ino) & (l->big_slots - 1);

	while (l->big[i].ino && l->big[i].ino != ino)
		i = (i + 1) & (l->big_slots - 1);
	return i;
}

/* The table's entry for INO, made from the byte counts when it has none (NULL: no memory). */
static struct nlink_big *big_entry(struct check_nlink *l, ext2_ino_t ino)
{
	struct nlink_big *e;

	if (l->pair[ino] == NLINK_BOTH_BIG)
		return &l->big[slot_of(l, ino)];
	/* kept at most half full, so a probe always ends on a free slot */
	if (util_hashtab_room((void **)&l->big, &l->big_slots, l->nbig + 1, &big_kind, NULL)) {
		if (!l->err)
			l->err = ENOMEM;
		return NULL;
	}
	e = &l->big[slot_of(l, ino)];
	e->ino = ino;
	e->disk = l->pair[ino] >> 4;
	e->found = l->pair[ino] & NLINK_BIG;
	l->pair[ino] = NLINK_BOTH_BIG;
	l->nbig++;
	return e;
}

void check_nlink_set_disk(struct check_ctx *c, ext2_ino_t ino, uint32_t count)
{
	struct check_nlink *l = c->nlink;
	struct nlink_big *e;

	if (l->pair[ino] != NLINK_BOTH_BIG && count < NLINK_BIG) {
		l->pair[ino] = (uint8_t)(count << 4 | (l->pair[ino] & NLINK_BIG));
		return;
	}
	e = big_entry(l, ino);
	if (e)
		e->disk = count;
}

uint32_t check_nlink_disk(const struct check_ctx *c, ext2_ino_t ino)
{
	const struct check_nlink *l = c->nlink;

	if (l->pair[ino] != NLINK_BOTH_BIG)
		return l->pair[ino] >> 4;
	return l->big[slot_of(l, ino)].disk;
}

void check_nlink_add_found(struct check_ctx *c, ext2_ino_t ino)
{
	struct check_nlink *l = c->nlink;
	struct nlink_big *e;

	if (l->pair[ino] != NLINK_BOTH_BIG && (l->pair[ino] & NLINK_BIG) + 1u < NLINK_BIG) {
		l->pair[ino]++;
		return;
	}
	e = big_entry(l, ino);
	if (e && e->found < UINT32_MAX)
		e->found++;
}

uint32_t check_nlink_found(const struct check_ctx *c, ext2_ino_t ino)
{
	const struct check_nlink *l = c->nlink;

	if (l->pair[ino] != NLINK_BOTH_BIG)
		return l->pair[ino] & NLINK_BIG;
	return l->big[slot_of(l, ino)].found;
}

errcode_t check_nlink_error(const struct check_ctx *c)
{
	return c->nlink ? c->nlink->err : 0;
}
