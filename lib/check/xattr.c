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
 *
 * Fills in c->xattr_refs (each block's references against its count) and
 * c->inode_ea (the EA inodes values are stored in).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/bitcursor.h"
#include "check/ctx.h"
#include "fs/inode.h"
#include "util/bytes.h"
#include "util/hashtab.h"
#include "util/nomem.h"

#define HEADER_SIZE	32u
#define ENTRY_SIZE	16u	/* before the name */
#define XATTR_MAGIC	0xEA020000

/* One shared block: what its header says, and who was seen pointing at it. */
struct xattr_ref {
	blk64_t		blk;		/* 0: free slot */
	ext2_ino_t	first_ino;
	uint32_t	refcount;	/* h_refcount */
	uint64_t	refs;		/* inodes pointing at it */
	struct check_ea_charge	charge;	/* its values in EA inodes: charged to every inode using it */
};

struct check_xattr_refs {
	struct xattr_ref	*slot;
	size_t			n, cap;
	uint32_t		*ea_refs;	/* [inodes + 1] xattr entries naming each EA inode */
};

static struct check_xattr_refs *refs_table(struct check_ctx *c)
{
	if (!c->xattr_refs)
		c->xattr_refs = calloc(1, sizeof(*c->xattr_refs));
	return c->xattr_refs;
}

/* One more entry whose value lives in inode INUM (an in-inode entry, or a block's, once). */
static void ea_inode_ref(struct check_ctx *c, uint32_t inum)
{
	struct check_xattr_refs *t = refs_table(c);

	if (!t || !inum || inum > c->inodes)
		return;
	if (!t->ea_refs)
		t->ea_refs = calloc((size_t)c->inodes + 1, sizeof(*t->ea_refs));
	if (t->ea_refs && t->ea_refs[inum] < UINT32_MAX)
		t->ea_refs[inum]++;
}

static size_t ref_hash(blk64_t blk)
{
	return (size_t)((blk * 0x9E3779B97F4A7C15ull) >> 20);
}

static size_t ref_slot_hash(const void *slot, const void *arg)
{
	(void)arg;
	return ref_hash(((const struct xattr_ref *)slot)->blk);
}

static const struct util_hashtab_kind ref_kind = {
	UTIL_HASHTAB_SLOT(struct xattr_ref, blk), 256, ref_slot_hash
};

static struct xattr_ref *ref_find(struct check_xattr_refs *t, blk64_t blk)
{
	size_t i;

	if (!t || !t->cap)
		return NULL;
	for (i = ref_hash(blk) & (t->cap - 1); t->slot[i].blk; i = (i + 1) & (t->cap - 1))
		if (t->slot[i].blk == blk)
			return &t->slot[i];
	return NULL;
}

errcode_t check_xattr_first_ref(struct check_ctx *c, ext2_ino_t ino, blk64_t blk, uint32_t refcount,
				const struct check_ea_charge *charge)
{
	struct check_xattr_refs *t = refs_table(c);
	size_t i;

	if (!t)
		return ENOMEM;
	if (util_hashtab_room((void **)&t->slot, &t->cap, t->n + 1, &ref_kind, NULL))
		return ENOMEM;
	for (i = ref_hash(blk) & (t->cap - 1); t->slot[i].blk; i = (i + 1) & (t->cap - 1))
		if (t->slot[i].blk == blk)
			return 0;
	t->slot[i].blk = blk;
	t->slot[i].first_ino = ino;
	t->slot[i].refcount = refcount;
	t->slot[i].refs = 1;
	t->slot[i].charge = *charge;
	t->n++;
	return 0;
}

void check_xattr_more_ref(struct check_ctx *c, blk64_t blk, struct check_ea_charge *charge)
{
	struct xattr_ref *r = ref_find(c->xattr_refs, blk);

	if (r) {
		r->refs++;
		charge->clusters += r->charge.clusters;
		charge->inodes += r->charge.inodes;
	}
}

/*
 * EA inodes against the entries naming them (e2fsck's pass 4 rule): one
 * named by none is an inode like any other (its directory entries count);
 * one named keeps the
 * count of its references (in i_ctime and i_version) and one link. Lustre's
 * older EA inodes keep no count (their ctime equals their atime).
 */
static void check_ea_inodes(struct check_ctx *c)
{
	struct check_xattr_refs *t = c->xattr_refs;
	struct ext2_inode in;
	ext2_ino_t ino;
	errcode_t err;
	struct check_bit_cursor ea, bad;

	check_cursor_init(&ea, c->inode_ea, c->inodes);
	check_cursor_init(&bad, c->inode_bad, c->inodes);
	for (ino = c->first_ino; ino <= c->inodes; ino++) {
		uint64_t refs, stored;

		if (!check_cursor_test(&ea, ino) || check_cursor_test(&bad, ino))
			continue;
		refs = t && t->ea_refs ? t->ea_refs[ino] : 0;
		if (!refs) {
			/* named by no attribute: counted like any inode by the entries naming it (pass 4) */
			ext2fs_unmark_inode_bitmap2(c->inode_ea, ino);
			continue;
		}
		err = fs_read_inode(c->fs, ino, &in);
		if (err && err != EXT2_ET_INODE_CSUM_INVALID)	/* a bad checksum is pass 1's finding */
			continue;
		stored = ext2fs_get_ea_inode_ref(&in);
		if (stored != refs && in.i_ctime != in.i_atime)
			check_report_ino(c, E4R_PR_EA_INODE_REFCOUNT, ino, E4R_NONE, refs, stored);
		if (in.i_links_count != 1)
			check_report_ino(c, E4R_PR_LINK_COUNT, ino, E4R_NONE, 1, in.i_links_count);
	}
}

void check_xattr_refcounts(struct check_ctx *c)
{
	struct check_xattr_refs *t = c->xattr_refs;
	size_t i;

	check_ea_inodes(c);

	for (i = 0; t && i < t->cap; i++) {
		struct xattr_ref *r = &t->slot[i];

		if (r->blk && r->refs != r->refcount)
			check_report_ino(c, E4R_PR_EA_REFCOUNT, r->first_ino, r->blk, r->refs,
					 r->refcount);
	}
}

void check_xattr_free(struct check_ctx *c)
{
	if (c->xattr_refs) {
		free(c->xattr_refs->slot);
		free(c->xattr_refs->ea_refs);
	}
	free(c->xattr_refs);
	c->xattr_refs = NULL;
}

/* Claim LEN bytes at OFF of the block in USED; 0 when they leave the block or are taken. */
static int take(uint8_t *used, unsigned size, uint64_t off, uint64_t len)
{
	if (off > size || len > size - off || !util_is_zero(used + off, len))
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
union host_entry {
	struct ext2_ext_attr_entry	e;
	char				bytes[ENTRY_SIZE + 256];
};

static void host_entry(union host_entry *h, const struct ext2_ext_attr_entry *e)
{
	memcpy(h->bytes, e, ENTRY_SIZE + e->e_name_len);
	h->e.e_value_offs = ext2fs_le16_to_cpu(e->e_value_offs);
	h->e.e_value_inum = ext2fs_le32_to_cpu(e->e_value_inum);
	h->e.e_value_size = ext2fs_le32_to_cpu(e->e_value_size);
	h->e.e_hash = ext2fs_le32_to_cpu(e->e_hash);
}

static uint32_t entry_hash(const struct ext2_ext_attr_entry *e, char *value, int is_signed)
{
	union host_entry h;

	host_entry(&h, e);
	return is_signed ? ext2fs_ext_attr_hash_entry_signed(&h.e, value) :
	       ext2fs_ext_attr_hash_entry(&h.e, value);
}

/* Either hash (old kernels hashed names with signed chars) matches HASH. */
static int value_hash_ok(const struct ext2_ext_attr_entry *e, char *value, uint32_t hash)
{
	return hash == entry_hash(e, value, 0) || hash == entry_hash(e, value, 1);
}

/*
 * An entry whose value lives in an EA inode (ea_inode): the inode must be
 * one a value can live in, carry the EA inode flag, and the entry's hash
 * covers its name and the value's hash (kept in the EA inode). The name
 * part may be in either form e2fsck accepts (ext2fs_ext_attr_hash_entry3):
 * unsigned bytes, or the signed chars older kernels hashed a name with; an
 * entry hashed the old way is sound, and clearing it loses the value. The owner
 * is charged the value's size in clusters and one inode (e2fsck's quota
 * and i_blocks rule). An entry left by Lustre's older scheme (the EA
 * inode's mtime and generation naming its owner) is charged nothing.
 * Returns 0 or the problem; *BAD_INO: the inode the problem is about.
 */
static enum check_problem value_inode(struct check_ctx *c, ext2_ino_t owner,
				      const struct ext2_inode_large *owner_in,
				      const struct ext2_ext_attr_entry *e, struct check_ea_charge *charge,
				      ext2_ino_t *bad_ino)
{
	ext2_filsys fs = c->fs;
	union host_entry h;
	struct ext2_inode vin;
	uint32_t hash = 0, signed_hash = 0;
	errcode_t err;

	host_entry(&h, e);
	*bad_ino = owner;
	if (h.e.e_value_inum < c->first_ino || h.e.e_value_inum > c->inodes)
		return E4R_PR_EA_VALUE_INODE;
	err = fs_read_inode(fs, h.e.e_value_inum, &vin);
	if (err && err != EXT2_ET_INODE_CSUM_INVALID)
		return E4R_PR_EA_VALUE_INODE;
	if (ext2fs_ext_attr_hash_entry3(fs, &h.e, NULL, &hash, &signed_hash))
		return E4R_PR_EA_VALUE_INODE;
	if (hash == h.e.e_hash || signed_hash == h.e.e_hash) {
		uint64_t csize = EXT2_CLUSTER_SIZE(fs->super);

		charge->clusters += (h.e.e_value_size + csize - 1) / csize;
	} else if (vin.i_mtime != owner || vin.i_generation != owner_in->i_generation) {
		return (vin.i_flags & EXT4_EA_INODE_FL) ? E4R_PR_EA_ENTRY_HASH : E4R_PR_EA_VALUE_INODE;
	}
	if (!(vin.i_flags & EXT4_EA_INODE_FL)) {
		*bad_ino = h.e.e_value_inum;
		return E4R_PR_EA_INODE_FLAG;
	}
	charge->inodes++;
	return 0;
}

/* BUF: an xattr block as on disk (little-endian). */
void check_xattr_entries(struct check_ctx *c, ext2_ino_t ino, const struct ext2_inode_large *in,
			 blk64_t blk, char *buf, struct check_ea_charge *charge)
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
			hash = ext2fs_le32_to_cpu(e->e_hash);
			if (!value_hash_ok(e, buf + value_offs, hash))
				report_entry(c, E4R_PR_EA_ENTRY_HASH, ino, blk, off);
		} else {
			ext2_ino_t bad_ino;
			enum check_problem p = value_inode(c, ino, in, e, charge, &bad_ino);

			ea_inode_ref(c, value_inum);
			if (p == E4R_PR_EA_INODE_FLAG)
				check_report_ino(c, p, bad_ino, E4R_NONE, E4R_NONE, E4R_NONE);
			else if (p)
				report_entry(c, p, ino, blk, off);
		}
		off += EXT2_EXT_ATTR_LEN(e->e_name_len);
	}
	/* The four zero bytes that end the list must not collide with a value. */
	if (off + 4 > size || !take(used, size, off, 4))
		report_entry(c, E4R_PR_EA_ENTRY_BOUNDS, ino, blk, off);
out:
	free(used);
}

/*
 * Does BUF (an xattr block as on disk) pass the block tests without
 * reporting anything: magic, one block, entries inside the block and
 * apart, a name index, values in range and with their hash. A journal
 * copy (check/jcopy.c) must pass this before it is offered. An entry whose
 * value lives in an EA inode only needs the feature and an inode number
 * in range here: pass 1 judges that inode once the copy is home.
 */
int check_xattr_block_sound(ext2_filsys fs, const char *block)
{
	unsigned size = fs->blocksize, off = HEADER_SIZE;
	const struct ext2_ext_attr_header *h = (const void *)block;
	char *buf;
	uint8_t *used;
	int ok = 0;

	if (ext2fs_le32_to_cpu(h->h_magic) != XATTR_MAGIC || ext2fs_le32_to_cpu(h->h_blocks) != 1)
		return 0;
	buf = malloc(size);
	used = calloc(size, 1);
	if (!buf || !used)
		goto out;
	memcpy(buf, block, size);
	take(used, size, 0, HEADER_SIZE);
	while (off + 4 <= size) {
		struct ext2_ext_attr_entry *e = (struct ext2_ext_attr_entry *)(buf + off);
		uint32_t first, value_inum, value_size, value_offs;

		memcpy(&first, buf + off, sizeof(first));
		if (!first)
			break;
		if (off + ENTRY_SIZE > size || !take(used, size, off, EXT2_EXT_ATTR_LEN(e->e_name_len)) ||
		    e->e_name_index == 0)
			goto out;
		value_inum = ext2fs_le32_to_cpu(e->e_value_inum);
		value_size = ext2fs_le32_to_cpu(e->e_value_size);
		value_offs = ext2fs_le16_to_cpu(e->e_value_offs);
		if (value_inum) {
			if (!ext2fs_has_feature_ea_inode(fs->super) || value_inum > fs->super->s_inodes_count)
				goto out;
		} else if ((uint64_t)value_offs + value_size > size ||
			   (value_size && !take(used, size, value_offs, EXT2_EXT_ATTR_SIZE(value_size))) ||
			   !value_hash_ok(e, buf + value_offs, ext2fs_le32_to_cpu(e->e_hash))) {
			goto out;
		}
		off += EXT2_EXT_ATTR_LEN(e->e_name_len);
	}
	ok = off + 4 <= size && take(used, size, off, 4);
out:
	free(buf);
	free(used);
	return ok;
}

/* Epoch bits 3 with a negative seconds field: a pre-1970 time in the old, wrong encoding. */
static int negative_epoch(uint32_t xtime, uint32_t extra)
{
	return (xtime & 0x80000000u) && (extra & EXT4_EPOCH_MASK) == EXT4_EPOCH_MASK;
}

static int bad_extra_times(const struct ext2_inode_large *in)
{
	unsigned have = EXT2_GOOD_OLD_INODE_SIZE + in->i_extra_isize;

	return (inode_includes(have, i_atime_extra) && negative_epoch(in->i_atime, in->i_atime_extra)) ||
	       (inode_includes(have, i_ctime_extra) && negative_epoch(in->i_ctime, in->i_ctime_extra)) ||
	       (inode_includes(have, i_mtime_extra) && negative_epoch(in->i_mtime, in->i_mtime_extra)) ||
	       (inode_includes(have, i_crtime_extra) &&
		negative_epoch(in->i_crtime, in->i_crtime_extra));
}

/*
 * The in-inode attributes: after the 4-byte magic, entries growing up
 * (16 bytes plus the name, padded to 4) ended by four zero bytes, and the
 * values at offsets counted from the first entry. Like e2fsck: walk while
 * an entry's header still fits in what the earlier entries and values
 * left, nothing may leave the space or overlap, and an entry's hash, when
 * not zero (older kernels left it so), must match.
 */
static void check_ibody_entries(struct check_inode_walk *w, char *header, unsigned storage)
{
	struct check_ctx *c = w->c;
	struct check_ea_charge charge = { 0, 0 };
	enum check_problem problem = 0;
	ext2_ino_t bad_ino = w->ino;
	unsigned off = 4, remain = storage - 4;
	/* a map of the bytes taken; inodes of up to 1 KiB (mke2fs's range) need no allocation */
	uint8_t on_stack[1024];
	uint8_t *used = storage <= sizeof(on_stack) ? memset(on_stack, 0, storage) : calloc(storage, 1);

	if (!used)
		return;
	take(used, storage, 0, 4);
	while (remain >= ENTRY_SIZE) {
		struct ext2_ext_attr_entry *e = (struct ext2_ext_attr_entry *)(header + off);
		uint32_t first, value_size, value_offs, hash;

		memcpy(&first, e, sizeof(first));
		if (!first)
			break;
		if (!take(used, storage, off, EXT2_EXT_ATTR_LEN(e->e_name_len))) {
			problem = E4R_PR_INODE_EA_BOUNDS;
			break;
		}
		remain -= ENTRY_SIZE;
		if (EXT2_EXT_ATTR_SIZE(e->e_name_len) > remain) {
			problem = E4R_PR_INODE_EA_BOUNDS;
			break;
		}
		remain -= EXT2_EXT_ATTR_SIZE(e->e_name_len);
		value_size = ext2fs_le32_to_cpu(e->e_value_size);
		value_offs = ext2fs_le16_to_cpu(e->e_value_offs);
		if (!e->e_value_inum) {
			if (value_size > remain ||
			    (value_size && !take(used, storage, 4 + value_offs,
						 EXT2_EXT_ATTR_SIZE(value_size)))) {
				problem = E4R_PR_INODE_EA_BOUNDS;
				break;
			}
			hash = ext2fs_le32_to_cpu(e->e_hash);
			if (hash && !value_hash_ok(e, header + 4 + value_offs, hash)) {
				problem = E4R_PR_INODE_EA_HASH;
				break;
			}
			remain -= value_size;
		} else {
			ea_inode_ref(c, ext2fs_le32_to_cpu(e->e_value_inum));
			problem = value_inode(c, w->ino, w->inode, e, &charge, &bad_ino);
			if (problem == E4R_PR_EA_ENTRY_HASH)
				problem = E4R_PR_INODE_EA_HASH;
			else if (problem == E4R_PR_EA_VALUE_INODE)
				problem = E4R_PR_INODE_EA_VALUE;
			if (problem)
				break;
		}
		off += EXT2_EXT_ATTR_LEN(e->e_name_len);
	}
	if (!problem && !take(used, storage, off, 4))
		problem = E4R_PR_INODE_EA_BOUNDS;
	if (used != on_stack)
		free(used);
	if (problem == E4R_PR_EA_INODE_FLAG)
		check_report_ino(c, problem, bad_ino, E4R_NONE, E4R_NONE, E4R_NONE);
	else if (problem)
		check_report_ino(c, problem, w->ino, E4R_NONE, E4R_NONE, off);
	w->ea.clusters += charge.clusters;
	w->ea.inodes += charge.inodes;
}

void check_xattr_ibody(struct check_inode_walk *w)
{
	struct ext2_inode_large *in = w->inode;
	ext2_filsys fs = w->c->fs;
	unsigned max = EXT2_INODE_SIZE(fs->super) - EXT2_GOOD_OLD_INODE_SIZE;
	unsigned extra = in->i_extra_isize;
	uint32_t magic;

	if (EXT2_INODE_SIZE(fs->super) <= EXT2_GOOD_OLD_INODE_SIZE)
		return;
	/* it must at least hold itself and i_checksum_hi; 0 is tolerated (old inodes) */
	if (extra && (extra < 4 || extra > max || (extra & 3))) {
		uint64_t want = (extra < 4 || extra > max) ? fs->super->s_want_extra_isize
							    : (extra + 3) & ~3u;

		check_report_ino(w->c, E4R_PR_INODE_EXTRA_ISIZE, w->ino, E4R_NONE, want, extra);
		return;
	}
	if (extra + 4 < max) {
		/* host order: libext2fs's inode reads convert the in-inode xattr magic with the inode */
		memcpy(&magic, (char *)in + EXT2_GOOD_OLD_INODE_SIZE + extra, sizeof(magic));
		if (magic == XATTR_MAGIC)
			check_ibody_entries(w, (char *)in + EXT2_GOOD_OLD_INODE_SIZE + extra,
					    max - extra);
	}
	if (bad_extra_times(in))
		check_report_ino(w->c, E4R_PR_INODE_EXTRA_TIME, w->ino, E4R_NONE, E4R_NONE, E4R_NONE);
}

/* Xattr KEY of inode INO as libext2fs names it, read from disk: 0, or libext2fs's error. */
static errcode_t xattr_lookup(ext2_filsys fs, ext2_ino_t ino, const char *key, size_t *size,
			      uint8_t *first)
{
	struct ext2_xattr_handle *h = NULL;
	int flags = fs->flags;
	void *v = NULL;
	errcode_t err;

	/* a checksum failure is pass 1's finding already; the attributes are still read */
	fs->flags |= EXT2_FLAG_IGNORE_CSUM_ERRORS;
	err = ext2fs_xattrs_open(fs, ino, &h);
	if (!err)
		err = ext2fs_xattrs_read(h);
	if (!err)
		err = ext2fs_xattr_get(h, key, &v, size);
	if (!err) {
		*first = *size ? *(uint8_t *)v : 0;
		ext2fs_free_mem(&v);
	}
	if (h)
		ext2fs_xattrs_close(&h);
	fs->flags = (fs->flags & ~EXT2_FLAG_IGNORE_CSUM_ERRORS) |
		    (flags & EXT2_FLAG_IGNORE_CSUM_ERRORS);
	return err;
}

/* What libext2fs says of an inline data inode whose attributes are broken or lack system.data. */
static int inline_attr_missing(errcode_t err)
{
	switch (err) {
	case EXT2_ET_BAD_EA_BLOCK_NUM:
	case EXT2_ET_BAD_EA_HASH:
	case EXT2_ET_BAD_EA_HEADER:
	case EXT2_ET_EA_BAD_NAME_LEN:
	case EXT2_ET_EA_BAD_VALUE_SIZE:
	case EXT2_ET_EA_KEY_NOT_FOUND:
	case EXT2_ET_EA_NO_SPACE:
	case EXT2_ET_MISSING_EA_FEATURE:
	case EXT2_ET_INLINE_DATA_CANT_ITERATE:
	case EXT2_ET_INLINE_DATA_NO_BLOCK:
	case EXT2_ET_INLINE_DATA_NO_SPACE:
	case EXT2_ET_NO_INLINE_DATA:
	case EXT2_ET_EXT_ATTR_CSUM_INVALID:
	case EXT2_ET_EA_BAD_VALUE_OFFSET:
	case EXT2_ET_EA_INODE_CORRUPTED:
		return 1;
	default:
		return 0;
	}
}

int check_xattr_inline_size(struct check_ctx *c, ext2_ino_t ino, size_t *size)
{
	uint8_t first = 0;

	*size = 0;
	return xattr_lookup(c->fs, ino, "system.data", size, &first) != 0;
}

int check_xattr_inline_missing(struct check_ctx *c, ext2_ino_t ino)
{
	size_t size = 0;
	uint8_t first = 0;

	return inline_attr_missing(xattr_lookup(c->fs, ino, "system.data", &size, &first));
}

/* fscrypt contexts: version 0 is none, 1 is 28 bytes, 2 is 40; later versions are not judged. */
#define FSCRYPT_CONTEXT_V1_SIZE	28
#define FSCRYPT_CONTEXT_V2_SIZE	40

/*
 * An encrypted inode keeps its encryption context in attribute "c" (index 9).
 * The root is held to the missing context only: e2fsck would clear a root
 * whose context is malformed, which this check does not follow.
 */
static void check_encrypt_context(struct check_inode_walk *w)
{
	struct check_ctx *c = w->c;
	size_t size = 0;
	uint8_t version = 0;
	errcode_t err;

	/* attributes that cannot be read count as no context, as for e2fsck */
	err = xattr_lookup(c->fs, w->ino, "c", &size, &version);
	if (err && !util_no_memory(err)) {
		check_report_ino(c, E4R_PR_ENCRYPT_NO_ATTR, w->ino, E4R_NONE, E4R_NONE, E4R_NONE);
		/*
		 * -y clears the flag at once, as e2fsck: the symlink's target is
		 * judged as plain text, and pass 2 sees no policy
		 */
		if (c->opts && c->opts->repair == E4R_REPAIR_YES)
			w->encrypt_dropped = 1;
		if (w->kind == KIND_DIR && c->opts && c->opts->repair == E4R_REPAIR_YES) {
			struct check_dir *dir = check_find_dir(c, w->ino);

			if (dir)
				dir->encrypt_dropped = 1;
		}
	} else if (!err && w->ino != EXT2_ROOT_INO &&
		   (!size || version == 0 ||
		    (version == 1 && size != FSCRYPT_CONTEXT_V1_SIZE) ||
		    (version == 2 && size != FSCRYPT_CONTEXT_V2_SIZE))) {
		check_report_ino(c, E4R_PR_ENCRYPT_ATTR_BAD, w->ino, E4R_NONE, E4R_NONE, size);
	}
}

void check_xattr_needed(struct check_inode_walk *w)
{
	struct check_ctx *c = w->c;
	ext2_filsys fs = c->fs;
	uint32_t flags = w->inode->i_flags;
	size_t size = 0;
	uint8_t version = 0;
	errcode_t err;

	/* e2fsck judges the root's encrypt flag like any inode's (its other reserved inodes: none) */
	if (w->ino == EXT2_ROOT_INO && (flags & EXT4_ENCRYPT_FL))
		check_encrypt_context(w);
	if (w->ino < c->first_ino)
		return;
	/* inline data lives in i_block and the system.data attribute: the attribute must be there */
	if ((flags & EXT4_INLINE_DATA_FL) && ext2fs_has_feature_inline_data(fs->super)) {
		err = xattr_lookup(fs, w->ino, "system.data", &size, &version);
		if (inline_attr_missing(err))
			check_report_ino(c, E4R_PR_INLINE_DATA_NO_ATTR, w->ino, E4R_NONE, E4R_NONE,
					 E4R_NONE);
	}
	if (flags & EXT4_ENCRYPT_FL)
		check_encrypt_context(w);
}
