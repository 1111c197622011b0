/*
 * Checker pass 1: what an extended attribute block holds, and how many
 * inodes share it.
 *
 * An xattr block: a 32-byte header (magic, reference count, block count,
 * hash, checksum), then entries growing down from the header (16 bytes plus
 * the name, padded to 4), ended by four zero bytes, and the values growing
 * up from the end of the block, each padded to 4 at the offset its entry
 * gives. No two of these may overlap, nothing may leave the block, every
 * name has a namespace index, and each entry carries a hash of its name and
 * value. Identical attribute sets are shared: h_refcount says by how many
 * inodes, and must equal the inodes that point at the block.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/ctx.h"

#define HEADER_SIZE	32u
#define ENTRY_SIZE	16u	/* before the name */

/* One shared block: what its header says, and who was seen pointing at it. */
struct xattr_ref {
	blk64_t		blk;		/* 0: free slot */
	ext2_ino_t	first_ino;
	uint32_t	refcount;	/* h_refcount */
	uint64_t	refs;		/* inodes pointing at it */
};

struct check_xattr_refs {
	struct xattr_ref	*slot;
	size_t			n, cap;
};

static size_t ref_hash(blk64_t blk, size_t cap)
{
	return (size_t)((blk * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
}

static struct xattr_ref *ref_find(struct check_xattr_refs *t, blk64_t blk)
{
	size_t i;

	if (!t || !t->cap)
		return NULL;
	for (i = ref_hash(blk, t->cap); t->slot[i].blk; i = (i + 1) & (t->cap - 1))
		if (t->slot[i].blk == blk)
			return &t->slot[i];
	return NULL;
}

static errcode_t ref_grow(struct check_xattr_refs *t)
{
	size_t cap = t->cap ? t->cap * 2 : 256, i, j;
	struct xattr_ref *n = calloc(cap, sizeof(*n));

	if (!n)
		return ENOMEM;
	for (j = 0; j < t->cap; j++) {
		if (!t->slot[j].blk)
			continue;
		for (i = ref_hash(t->slot[j].blk, cap); n[i].blk; i = (i + 1) & (cap - 1))
			;
		n[i] = t->slot[j];
	}
	free(t->slot);
	t->slot = n;
	t->cap = cap;
	return 0;
}

errcode_t check_xattr_first_ref(struct check_ctx *c, ext2_ino_t ino, blk64_t blk, uint32_t refcount)
{
	struct check_xattr_refs *t = c->xattr_refs;
	size_t i;

	if (!t) {
		t = c->xattr_refs = calloc(1, sizeof(*t));
		if (!t)
			return ENOMEM;
	}
	if ((t->n + 1) * 2 > t->cap && ref_grow(t))
		return ENOMEM;
	for (i = ref_hash(blk, t->cap); t->slot[i].blk; i = (i + 1) & (t->cap - 1))
		if (t->slot[i].blk == blk)
			return 0;
	t->slot[i].blk = blk;
	t->slot[i].first_ino = ino;
	t->slot[i].refcount = refcount;
	t->slot[i].refs = 1;
	t->n++;
	return 0;
}

void check_xattr_more_ref(struct check_ctx *c, blk64_t blk)
{
	struct xattr_ref *r = ref_find(c->xattr_refs, blk);

	if (r)
		r->refs++;
}

void check_xattr_refcounts(struct check_ctx *c)
{
	struct check_xattr_refs *t = c->xattr_refs;
	size_t i;

	for (i = 0; t && i < t->cap; i++) {
		struct xattr_ref *r = &t->slot[i];

		if (r->blk && r->refs != r->refcount)
			check_report_ino(c, E4R_PR_EA_REFCOUNT, r->first_ino, r->blk, r->refs,
					 r->refcount);
	}
}

void check_xattr_free(struct check_ctx *c)
{
	if (c->xattr_refs)
		free(c->xattr_refs->slot);
	free(c->xattr_refs);
	c->xattr_refs = NULL;
}

/* Claim LEN bytes at OFF of the block in USED; 0 when they leave the block or are taken. */
static int take(uint8_t *used, unsigned size, uint64_t off, uint64_t len)
{
	uint64_t i;

	if (off > size || len > size - off)
		return 0;
	for (i = off; i < off + len; i++)
		if (used[i])
			return 0;
	memset(used + off, 1, len);
	return 1;
}

static void report_entry(struct check_ctx *c, enum check_problem code, ext2_ino_t ino, blk64_t blk,
			 unsigned off)
{
	struct check_finding f = check_finding_init(code);

	f.ino = ino;
	f.blk = blk;
	f.found = off;
	check_report(c, &f);
}

/*
 * The entry's hash as libext2fs computes it (SIGNED: the old kernels'
 * signed-char variant). libext2fs reads the entry in host order with its
 * name right after it, and the value as on disk: E is converted into a
 * copy, name included.
 */
static uint32_t entry_hash(const struct ext2_ext_attr_entry *e, uint32_t value_inum,
			   uint32_t value_size, char *value, int is_signed)
{
	union {
		struct ext2_ext_attr_entry	e;
		char				bytes[ENTRY_SIZE + 256];
	} h;

	memcpy(h.bytes, e, ENTRY_SIZE + e->e_name_len);
	h.e.e_value_offs = ext2fs_le16_to_cpu(e->e_value_offs);
	h.e.e_value_inum = value_inum;
	h.e.e_value_size = value_size;
	h.e.e_hash = ext2fs_le32_to_cpu(e->e_hash);
	return is_signed ? ext2fs_ext_attr_hash_entry_signed(&h.e, value) :
	       ext2fs_ext_attr_hash_entry(&h.e, value);
}

/* BUF: an xattr block as on disk (little-endian). */
void check_xattr_entries(struct check_ctx *c, ext2_ino_t ino, blk64_t blk, char *buf)
{
	unsigned size = c->fs->blocksize, off = HEADER_SIZE;
	uint8_t *used = calloc(size, 1);

	if (!used)
		return;
	take(used, size, 0, HEADER_SIZE);
	while (off + 4 <= size) {
		struct ext2_ext_attr_entry *e = (struct ext2_ext_attr_entry *)(buf + off);
		uint32_t first, value_inum, value_size, value_offs, hash;

		memcpy(&first, buf + off, sizeof(first));
		if (!first)
			break;	/* the end of the list (zero in either byte order) */
		if (off + ENTRY_SIZE > size || !take(used, size, off, EXT2_EXT_ATTR_LEN(e->e_name_len))) {
			report_entry(c, E4R_PR_EA_ENTRY_BOUNDS, ino, blk, off);
			goto out;
		}
		if (e->e_name_index == 0) {
			report_entry(c, E4R_PR_EA_ENTRY_NAME, ino, blk, off);
			goto out;
		}
		value_inum = ext2fs_le32_to_cpu(e->e_value_inum);
		value_size = ext2fs_le32_to_cpu(e->e_value_size);
		value_offs = ext2fs_le16_to_cpu(e->e_value_offs);
		if (value_inum == 0) {
			if ((uint64_t)value_offs + value_size > size) {
				report_entry(c, E4R_PR_EA_ENTRY_VALUE, ino, blk, off);
				goto out;
			}
			if (value_size &&
			    !take(used, size, value_offs, EXT2_EXT_ATTR_SIZE(value_size)))
				report_entry(c, E4R_PR_EA_ENTRY_BOUNDS, ino, blk, off);
			/* Old kernels hashed names with signed chars: either hash is valid. */
			hash = ext2fs_le32_to_cpu(e->e_hash);
			if (hash != entry_hash(e, value_inum, value_size, buf + value_offs, 0) &&
			    hash != entry_hash(e, value_inum, value_size, buf + value_offs, 1))
				report_entry(c, E4R_PR_EA_ENTRY_HASH, ino, blk, off);
		}
		off += EXT2_EXT_ATTR_LEN(e->e_name_len);
	}
	/* The four zero bytes that end the list must not collide with a value. */
	if (off + 4 > size || !take(used, size, off, 4))
		report_entry(c, E4R_PR_EA_ENTRY_BOUNDS, ino, blk, off);
out:
	free(used);
}
