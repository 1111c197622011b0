/*
 * A structure-aware mutator for the sparse images (sparse_image.h).
 *
 * libFuzzer's byte mutations mostly land in data, names and timestamps, and
 * with metadata_csum nearly every one they make in metadata is caught by a
 * checksum before the checker's deeper passes look at the value. This
 * mutator knows where the ext4 and JBD2 structures sit: it sets one field of
 * the superblock, a group descriptor, an inode, an extent node, a directory
 * entry, an htree node, an xattr header or entry, a bitmap or a journal
 * block to a boundary or random value, and then mostly recomputes the
 * checksums that cover it, so that the value is believed and acted on.
 * Byte mutations stay (a third of the time), sometimes followed by
 * recomputing every checksum it knows.
 *
 * It edits the block records of the input in place (the last record of a
 * block is the one the decoder keeps), so the input's size never changes.
 * Everything it reads is bounds-checked: the input is anything at all.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>
#include <ext2fs/ext2fs.h>

#include "sparse_image.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

#define MAX_BLOCKS	(SPARSE_MAX_BYTES / 1024)
#define MAX_INODES	4096	/* inodes looked at for ownership; seeds have about a hundred */

/* What a block is, as far as the walk found out. */
enum role {
	R_NONE = 0, R_SB, R_GDT, R_BITMAP_B, R_BITMAP_I, R_ITABLE, R_EXTENT, R_DIR, R_XATTR, R_JOURNAL,
};

struct view {
	uint8_t		*data;
	size_t		size;
	unsigned	bs;
	uint32_t	blocks;
	int32_t		rec[MAX_BLOCKS];	/* offset of the block's data in the input, or -1 */
	uint8_t		role[MAX_BLOCKS];
	uint32_t	owner[MAX_BLOCKS];	/* the inode an extent or directory block belongs to */
	uint32_t	lblk[MAX_BLOCKS];	/* its logical block in that inode */
	/* from the superblock */
	uint8_t		*sb;
	int		csum;		/* metadata_csum */
	int		gdt_csum;	/* uninit_bg: crc16 descriptors */
	uint32_t	seed;		/* metadata checksum seed */
	uint32_t	ipg, bpg, first_data, groups, inodes;
	unsigned	isz, dsz;
	/* the journal superblock, if one is in the input */
	uint8_t		*jsb;
	int		jcsum;		/* JBD2 checksum v2 or v3 */
	uint32_t	jseed;
};

static uint64_t rng_state;

static uint32_t rnd(void)
{
	/* xorshift64*: the seed libFuzzer gives makes the mutation replay. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545F4914F6CDD1DULL) >> 32);
}

static unsigned below(unsigned n)
{
	return n ? rnd() % n : 0;
}

static uint32_t le16(const uint8_t *p) { return p[0] | p[1] << 8; }
static uint32_t le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]; }
static void put_le16(uint8_t *p, uint32_t v) { p[0] = v, p[1] = v >> 8; }
static void put_le32(uint8_t *p, uint32_t v) { p[0] = v, p[1] = v >> 8, p[2] = v >> 16, p[3] = v >> 24; }
static void put_be32(uint8_t *p, uint32_t v) { p[0] = v >> 24, p[1] = v >> 16, p[2] = v >> 8, p[3] = v; }

static uint32_t crc32c(uint32_t crc, const void *p, size_t n)
{
	return ext2fs_crc32c_le(crc, p, n);
}

/* CRC-16 (polynomial 0x8005, reflected), as uninit_bg's descriptor checksums use; libext2fs does not export its own. */
static uint16_t crc16(uint16_t crc, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--) {
		crc ^= *b++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (crc & 1 ? 0xA001 : 0);
	}
	return crc;
}

/* The block's data in the input when a whole block of it is there, else NULL (zeros or a short record). */
static uint8_t *block(struct view *v, uint64_t b)
{
	if (b >= v->blocks || v->rec[b] < 0 || (size_t)v->rec[b] + v->bs > v->size)
		return NULL;
	return v->data + v->rec[b];
}

static int index_records(struct view *v, uint8_t *data, size_t size)
{
	uint32_t n;

	if (size < SPARSE_HEADER || memcmp(data, SPARSE_MAGIC, 4))
		return -1;
	v->data = data;
	v->size = size;
	v->bs = 1024u << (data[4] % 3);
	n = le32(data + 8);
	if (n > SPARSE_MAX_BYTES / v->bs)
		n = SPARSE_MAX_BYTES / v->bs;
	if (n < SPARSE_MIN_BLOCKS)
		n = SPARSE_MIN_BLOCKS;
	v->blocks = n;
	memset(v->rec, 0xff, sizeof(v->rec[0]) * n);
	memset(v->role, 0, n);
	for (size_t pos = SPARSE_HEADER; pos + 4 < size; pos += 4 + v->bs)
		v->rec[le32(data + pos) % n] = (int32_t)(pos + 4);
	return 0;
}

static void set_role(struct view *v, uint64_t b, enum role r, uint32_t owner, uint32_t lblk)
{
	if (b < v->blocks && !v->role[b]) {
		v->role[b] = r;
		v->owner[b] = owner;
		v->lblk[b] = lblk;
	}
}

static uint8_t *group_desc(struct view *v, uint32_t g, uint64_t *blk)
{
	uint32_t per = v->bs / v->dsz;
	uint8_t *b;

	*blk = v->first_data + 1 + g / per;
	b = block(v, *blk);
	return b ? b + (g % per) * v->dsz : NULL;
}

static uint64_t gd_field(struct view *v, const uint8_t *gd, unsigned lo, unsigned hi)
{
	return le32(gd + lo) | (v->dsz >= 64 ? (uint64_t)le32(gd + hi) << 32 : 0);
}

static uint8_t *inode_at(struct view *v, uint32_t ino, uint64_t *blk)
{
	uint32_t g, i;
	uint64_t gdb, itable;
	uint8_t *gd, *b;

	if (!ino || ino > v->inodes)
		return NULL;
	g = (ino - 1) / v->ipg;
	i = (ino - 1) % v->ipg;
	if (!(gd = group_desc(v, g, &gdb)))
		return NULL;
	itable = gd_field(v, gd, 0x08, 0x28);
	*blk = itable + (uint64_t)i * v->isz / v->bs;
	b = block(v, *blk);
	return b ? b + (i * v->isz) % v->bs : NULL;
}

/* Walk an extent node (in an inode or a block) and note the blocks it maps for INO. */
static void walk_extents(struct view *v, const uint8_t *node, unsigned room, uint32_t ino, int dir, int depth_left)
{
	unsigned n, depth;

	if (room < 12 || le16(node) != 0xF30A || depth_left < 0)
		return;
	n = le16(node + 2);
	depth = le16(node + 6);
	if (12 + n * 12 > room)
		n = (room - 12) / 12;
	for (unsigned k = 0; k < n; k++) {
		const uint8_t *e = node + 12 + 12 * k;

		if (depth) {
			uint64_t child = le32(e + 4) | (uint64_t)le16(e + 8) << 32;
			uint8_t *cb = block(v, child);

			if (child < v->blocks && !v->role[child]) {
				set_role(v, child, R_EXTENT, ino, 0);
				if (cb)
					walk_extents(v, cb, v->bs, ino, dir, depth_left - 1);
			}
		} else if (dir) {
			uint32_t lblk = le32(e), len = le16(e + 4);
			uint64_t start = le32(e + 8) | (uint64_t)le16(e + 6) << 32;

			if (len > 32768)
				len -= 32768;
			for (uint32_t j = 0; j < len && j < 64; j++)
				set_role(v, start + j, R_DIR, ino, lblk + j);
		}
	}
}

/* Find the superblock and the structures it leads to. Returns -1 when there is no superblock to go by. */
static int walk(struct view *v)
{
	uint64_t sbblk = v->bs == 1024 ? 1 : 0;
	uint8_t *b = block(v, sbblk);
	uint32_t count, incompat, ro;

	v->sb = NULL;
	v->jsb = NULL;
	for (uint32_t i = 0; i < v->blocks; i++) {
		uint8_t *jb = block(v, i);

		if (jb && be32(jb) == 0xC03B3998) {
			uint32_t type = be32(jb + 4);

			set_role(v, i, R_JOURNAL, 0, 0);
			if ((type == 3 || type == 4) && !v->jsb)
				v->jsb = jb;
		}
	}
	if (v->jsb) {
		uint32_t jin = be32(v->jsb + 0x28);

		v->jcsum = be32(v->jsb + 4) == 4 && (jin & 0x18);
		v->jseed = crc32c(~0u, v->jsb + 0x30, 16);
	}
	if (!b)
		return -1;
	v->sb = b + (v->bs == 1024 ? 0 : 1024);
	if (le16(v->sb + 0x38) != 0xEF53)
		return -1;
	set_role(v, sbblk, R_SB, 0, 0);
	incompat = le32(v->sb + 0x60);
	ro = le32(v->sb + 0x64);
	v->csum = !!(ro & 0x400);
	v->gdt_csum = !v->csum && (ro & 0x10);
	v->seed = (incompat & 0x2000) ? le32(v->sb + 0x270) : crc32c(~0u, v->sb + 0x68, 16);
	v->ipg = le32(v->sb + 0x28);
	v->bpg = le32(v->sb + 0x20);
	v->first_data = le32(v->sb + 0x14);
	v->isz = le32(v->sb + 0x4C) ? le16(v->sb + 0x58) : 128;
	v->dsz = (incompat & 0x80) ? le16(v->sb + 0xFE) : 32;
	if (v->dsz < 32 || v->dsz > 1024 || (v->dsz & (v->dsz - 1)))
		v->dsz = 32;
	if (!v->ipg || !v->bpg || v->isz < 128 || v->isz > v->bs || (v->isz & (v->isz - 1)))
		return -1;
	count = le32(v->sb + 0x04);
	if (count <= v->first_data)
		return -1;
	v->groups = (uint32_t)(((uint64_t)count - v->first_data + v->bpg - 1) / v->bpg);
	if (v->groups > v->blocks)
		v->groups = v->blocks;
	if (!v->groups)
		return -1;
	v->inodes = v->ipg * v->groups;
	if (v->inodes / v->groups != v->ipg || v->inodes > MAX_INODES)
		v->inodes = MAX_INODES;

	for (uint32_t g = 0; g < v->groups; g++) {
		uint64_t gdb, itable;
		uint8_t *gd = group_desc(v, g, &gdb);

		if (!gd)
			break;
		set_role(v, gdb, R_GDT, 0, 0);
		set_role(v, gd_field(v, gd, 0x00, 0x20), R_BITMAP_B, g, 0);
		set_role(v, gd_field(v, gd, 0x04, 0x24), R_BITMAP_I, g, 0);
		itable = gd_field(v, gd, 0x08, 0x28);
		for (uint64_t k = 0; k < (uint64_t)v->ipg * v->isz / v->bs && k < v->blocks; k++)
			set_role(v, itable + k, R_ITABLE, g, 0);
	}
	for (uint32_t ino = 1; ino <= v->inodes; ino++) {
		uint64_t ib;
		uint8_t *in = inode_at(v, ino, &ib);
		uint32_t mode, flags;
		uint64_t acl;

		if (!in || !le16(in + 0x1A))
			continue;
		mode = le16(in);
		flags = le32(in + 0x20);
		acl = le32(in + 0x68) | (uint64_t)le16(in + 0x76) << 32;
		if (acl)
			set_role(v, acl, R_XATTR, ino, 0);
		if (flags & 0x80000)
			walk_extents(v, in + 0x28, 60, ino, (mode & 0xF000) == 0x4000, 5);
	}
	return 0;
}

/* ---- checksums: what the kernel and e2fsck compute, from the ext4 and JBD2 formats ---- */

static void fix_sb(struct view *v)
{
	if (v->csum)
		put_le32(v->sb + 0x3FC, crc32c(~0u, v->sb, 0x3FC));
}

static void fix_gd(struct view *v, uint32_t g)
{
	uint64_t gdb;
	uint8_t *gd = group_desc(v, g, &gdb), le[4];

	if (!gd)
		return;
	put_le32(le, g);
	if (v->csum) {
		/* crc32c over the whole descriptor with its checksum field zero */
		put_le16(gd + 0x1E, 0);
		put_le16(gd + 0x1E, crc32c(crc32c(v->seed, le, 4), gd, v->dsz) & 0xFFFF);
	} else if (v->gdt_csum) {
		uint16_t c = crc16(~0, v->sb + 0x68, 16);

		c = crc16(c, le, 4);
		c = crc16(c, gd, 0x1E);
		if (v->dsz > 0x20)
			c = crc16(c, gd + 0x20, v->dsz - 0x20);
		put_le16(gd + 0x1E, c);
	}
}

static uint32_t inode_seed(struct view *v, uint32_t ino, uint32_t gen)
{
	uint8_t le[4];
	uint32_t c;

	put_le32(le, ino);
	c = crc32c(v->seed, le, 4);
	put_le32(le, gen);
	return crc32c(c, le, 4);
}

static void fix_inode(struct view *v, uint32_t ino)
{
	uint64_t ib;
	uint8_t *in = inode_at(v, ino, &ib), copy[1024];
	int hi;
	uint32_t c;

	if (!in || !v->csum)
		return;
	memcpy(copy, in, v->isz);
	hi = v->isz > 128 && le16(in + 0x80) >= 4;
	put_le16(copy + 0x7C, 0);
	if (hi)
		put_le16(copy + 0x82, 0);
	c = crc32c(inode_seed(v, ino, le32(in + 0x64)), copy, v->isz);
	put_le16(in + 0x7C, c & 0xFFFF);
	if (hi)
		put_le16(in + 0x82, c >> 16);
}

static uint32_t owner_seed(struct view *v, uint32_t ino)
{
	uint64_t ib;
	uint8_t *in = inode_at(v, ino, &ib);

	return inode_seed(v, ino, in ? le32(in + 0x64) : 0);
}

static void fix_extent_block(struct view *v, uint64_t b)
{
	uint8_t *p = block(v, b);
	unsigned max;

	if (!p || !v->csum || le16(p) != 0xF30A)
		return;
	max = le16(p + 4);
	if (12 + max * 12 + 4 > v->bs)
		return;
	put_le32(p + 12 + max * 12, crc32c(owner_seed(v, v->owner[b]), p, 12 + max * 12));
}

/* An htree node's count/limit: after the fake dirents of the root or of an interior node. 0 when none. */
static unsigned dx_count_offset(struct view *v, uint64_t b)
{
	uint8_t *p = block(v, b);

	if (!p)
		return 0;
	if (v->lblk[b] == 0 && le16(p + 4) == 12 && p[0x18 + 5] == 8 && le16(p + 12 + 4) == v->bs - 12)
		return 0x20;	/* the root: ".", then ".." covering the block, then dx_root_info */
	if (v->lblk[b] && le32(p) == 0 && le16(p + 4) == v->bs)
		return 8;
	return 0;
}

static void fix_dir_block(struct view *v, uint64_t b)
{
	uint8_t *p = block(v, b), tail[8];
	uint32_t seed;
	unsigned co;

	if (!p || !v->csum)
		return;
	seed = owner_seed(v, v->owner[b]);
	if ((co = dx_count_offset(v, b))) {
		unsigned limit = le16(p + co), count = le16(p + co + 2);

		if (count > limit || co + limit * 8 + 8 > v->bs)
			return;
		memcpy(tail, p + co + limit * 8, 8);
		put_le32(tail + 4, 0);
		put_le32(p + co + limit * 8 + 4, crc32c(crc32c(seed, p, co + count * 8), tail, 8));
		return;
	}
	/* A leaf: its tail is a dirent of inode 0, rec_len 12, name_len 0, type 0xDE. */
	if (le32(p + v->bs - 12) == 0 && le16(p + v->bs - 8) == 12 && p[v->bs - 5] == 0xDE)
		put_le32(p + v->bs - 4, crc32c(seed, p, v->bs - 12));
}

static void fix_xattr_block(struct view *v, uint64_t b)
{
	uint8_t *p = block(v, b), le[8];

	if (!p || !v->csum)
		return;
	put_le32(le, (uint32_t)b);
	put_le32(le + 4, (uint32_t)(b >> 32));
	put_le32(p + 0x10, 0);
	put_le32(p + 0x10, crc32c(crc32c(v->seed, le, 8), p, v->bs));
}

static void fix_bitmap(struct view *v, uint64_t b)
{
	uint64_t gdb;
	uint8_t *p = block(v, b), *gd = group_desc(v, v->owner[b], &gdb);
	uint32_t c;

	if (!p || !gd || !v->csum)
		return;
	if (v->role[b] == R_BITMAP_B) {
		c = crc32c(v->seed, p, (v->bpg / 8) <= v->bs ? v->bpg / 8 : v->bs);
		put_le16(gd + 0x18, c & 0xFFFF);
		if (v->dsz >= 64)
			put_le16(gd + 0x38, c >> 16);
	} else {
		c = crc32c(v->seed, p, (v->ipg / 8) <= v->bs ? v->ipg / 8 : v->bs);
		put_le16(gd + 0x1A, c & 0xFFFF);
		if (v->dsz >= 64)
			put_le16(gd + 0x3A, c >> 16);
	}
	fix_gd(v, v->owner[b]);
}

static void fix_journal_block(struct view *v, uint8_t *p)
{
	uint32_t type = be32(p + 4);

	if (!v->jsb || !v->jcsum)
		return;
	if (type == 4 && p == v->jsb) {
		put_be32(p + 0xFC, 0);
		put_be32(p + 0xFC, crc32c(~0u, p, 1024));
	} else if (type == 1 || type == 5) {
		put_be32(p + v->bs - 4, 0);
		put_be32(p + v->bs - 4, crc32c(v->jseed, p, v->bs));
	} else if (type == 2 && !p[0xC] && !p[0xD]) {
		put_be32(p + 0x10, 0);
		put_be32(p + 0x10, crc32c(v->jseed, p, v->bs));
	}
}

/* Every checksum this file knows, over the whole input: after byte mutations. */
static void fix_all(struct view *v)
{
	for (uint32_t b = 0; b < v->blocks; b++) {
		uint8_t *p = block(v, b);

		if (!p)
			continue;
		switch (v->role[b]) {
		case R_EXTENT: fix_extent_block(v, b); break;
		case R_DIR: fix_dir_block(v, b); break;
		case R_XATTR: fix_xattr_block(v, b); break;
		case R_BITMAP_B: case R_BITMAP_I: fix_bitmap(v, b); break;
		case R_JOURNAL: fix_journal_block(v, p); break;
		default: break;
		}
	}
	for (uint32_t ino = 1; ino <= v->inodes; ino++)
		fix_inode(v, ino);
	for (uint32_t g = 0; g < v->groups; g++)
		fix_gd(v, g);
	fix_sb(v);
}

/* ---- values ---- */

/* A new value for a field of WIDTH bytes that holds OLD: boundaries, neighbours, bits, the image's own sizes. */
static uint64_t new_value(struct view *v, uint64_t old, unsigned width)
{
	uint64_t max = width >= 8 ? ~0ULL : (1ULL << (8 * width)) - 1;
	uint64_t x;

	switch (below(14)) {
	case 0: x = 0; break;
	case 1: x = 1; break;
	case 2: x = max; break;
	case 3: x = max - 1; break;
	case 4: x = max >> 1; break;
	case 5: x = (max >> 1) + 1; break;
	case 6: x = old + 1; break;
	case 7: x = old - 1; break;
	case 8: x = old ^ (1ULL << below(8 * width)); break;
	case 9: x = (uint64_t)rnd() << 32 | rnd(); break;
	case 10: x = v->blocks + below(3) - 1; break;		/* just inside or past the end */
	case 11: x = v->inodes + below(3) - 1; break;
	case 12: x = old + v->bs / 2 * (below(2) ? 1 : -1); break;
	default: x = below(v->blocks); break;			/* some other block */
	}
	return x & max;
}

static void mutate_field(struct view *v, uint8_t *p, unsigned width, int big_endian)
{
	uint64_t old = 0, x;

	for (unsigned i = 0; i < width; i++)
		old |= (uint64_t)p[big_endian ? width - 1 - i : i] << (8 * i);
	x = new_value(v, old, width);
	for (unsigned i = 0; i < width; i++)
		p[big_endian ? width - 1 - i : i] = x >> (8 * i);
}

/* A field table: offset and width. */
struct field {
	uint16_t	off;
	uint8_t		width;
};

static const struct field sb_fields[] = {
	{ 0x00, 4 }, { 0x04, 4 }, { 0x08, 4 }, { 0x0C, 4 }, { 0x10, 4 }, { 0x14, 4 }, { 0x18, 4 },
	{ 0x1C, 4 }, { 0x20, 4 }, { 0x24, 4 }, { 0x28, 4 }, { 0x34, 2 }, { 0x3A, 2 }, { 0x3C, 2 },
	{ 0x4C, 4 }, { 0x54, 4 }, { 0x58, 2 }, { 0x5A, 2 }, { 0x5C, 4 }, { 0x60, 4 }, { 0x64, 4 },
	{ 0xCE, 2 }, { 0xE0, 4 }, { 0xE4, 4 }, { 0xE8, 4 }, { 0xFC, 1 }, { 0xFD, 1 }, { 0xFE, 2 },
	{ 0x104, 4 }, { 0x10C, 4 }, { 0x148, 4 }, { 0x14C, 4 }, { 0x150, 4 }, { 0x158, 4 },
	{ 0x15C, 2 }, { 0x15E, 2 }, { 0x160, 4 }, { 0x166, 2 }, { 0x168, 4 }, { 0x174, 1 },
	{ 0x175, 1 }, { 0x194, 4 }, { 0x240, 4 }, { 0x244, 4 }, { 0x248, 4 }, { 0x24C, 4 },
	{ 0x250, 4 }, { 0x268, 4 }, { 0x26C, 4 }, { 0x270, 4 }, { 0x27C, 2 }, { 0x280, 4 },
};

static const struct field gd_fields[] = {
	{ 0x00, 4 }, { 0x04, 4 }, { 0x08, 4 }, { 0x0C, 2 }, { 0x0E, 2 }, { 0x10, 2 }, { 0x12, 2 },
	{ 0x18, 2 }, { 0x1A, 2 }, { 0x1C, 2 }, { 0x1E, 2 },
	{ 0x20, 4 }, { 0x24, 4 }, { 0x28, 4 }, { 0x2C, 2 }, { 0x2E, 2 }, { 0x30, 2 }, { 0x32, 2 },
};

static const struct field inode_fields[] = {
	{ 0x00, 2 }, { 0x04, 4 }, { 0x14, 4 }, { 0x1A, 2 }, { 0x1C, 4 }, { 0x20, 4 },
	{ 0x64, 4 }, { 0x68, 4 }, { 0x6C, 4 }, { 0x74, 2 }, { 0x76, 2 }, { 0x80, 2 },
	/* i_block: the extent header and entries in the inode, or block numbers, or symlink text */
	{ 0x28, 2 }, { 0x2A, 2 }, { 0x2C, 2 }, { 0x2E, 2 }, { 0x34, 4 }, { 0x38, 2 }, { 0x3A, 2 },
	{ 0x3C, 4 }, { 0x40, 4 }, { 0x44, 2 }, { 0x48, 4 }, { 0x4C, 4 }, { 0x58, 4 }, { 0x60, 4 },
};

static const struct field jsb_fields[] = {
	{ 0x04, 4 }, { 0x0C, 4 }, { 0x10, 4 }, { 0x14, 4 }, { 0x18, 4 }, { 0x1C, 4 }, { 0x20, 4 },
	{ 0x24, 4 }, { 0x28, 4 }, { 0x2C, 4 }, { 0x40, 4 }, { 0x50, 1 }, { 0x54, 4 }, { 0x58, 4 },
};

static const struct field commit_fields[] = {
	{ 0x04, 4 }, { 0x08, 4 }, { 0x0C, 1 }, { 0x0D, 1 }, { 0x10, 4 }, { 0x30, 4 }, { 0x38, 4 },
};

static const struct field *pick(const struct field *t, unsigned n)
{
	return &t[below(n)];
}

#define PICK(t)	pick(t, sizeof(t) / sizeof(t[0]))

/* Blocks of a role, picked at random; -1 when there is none. */
static int64_t any_block(struct view *v, enum role r)
{
	uint32_t n = 0, k;

	for (uint32_t b = 0; b < v->blocks; b++)
		n += v->role[b] == r && block(v, b);
	if (!n)
		return -1;
	k = below(n);
	for (uint32_t b = 0; b < v->blocks; b++)
		if (v->role[b] == r && block(v, b) && !k--)
			return b;
	return -1;
}

/* An inode in use, picked at random; 0 when none is in the input. */
static uint32_t any_inode(struct view *v)
{
	for (unsigned tries = 0; tries < 64; tries++) {
		uint32_t ino = 1 + below(v->inodes);
		uint64_t ib;
		uint8_t *in = inode_at(v, ino, &ib);

		if (in && (le16(in + 0x1A) || tries > 48))
			return ino;
	}
	return 0;
}

static void mutate_sb(struct view *v)
{
	const struct field *f = PICK(sb_fields);

	mutate_field(v, v->sb + f->off, f->width, 0);
}

static void mutate_gd(struct view *v)
{
	uint32_t g = below(v->groups);
	uint64_t gdb;
	uint8_t *gd = group_desc(v, g, &gdb);
	const struct field *f = PICK(gd_fields);

	if (!gd || f->off + f->width > v->dsz)
		return;
	mutate_field(v, gd + f->off, f->width, 0);
	if (f->off != 0x1E)
		fix_gd(v, g);
}

/* A field of an inode: its own, an extent in i_block, or an in-inode xattr. */
static void mutate_inode(struct view *v, int fix)
{
	uint32_t ino = any_inode(v);
	uint64_t ib;
	uint8_t *in = ino ? inode_at(v, ino, &ib) : NULL;

	if (!in)
		return;
	if (v->isz > 128 && below(4) == 0) {
		unsigned extra = le16(in + 0x80), at = 0x80 + extra;

		/* the ibody xattr area: magic, then entries (name_len, index, value offset and size) */
		if (at + 4 + 16 <= v->isz && le32(in + at) == 0xEA020000) {
			unsigned off = at + 4 + below(4) * 4;

			mutate_field(v, in + off, below(2) ? 4 : 2, 0);
		} else {
			mutate_field(v, in + 0x80, 2, 0);
		}
	} else {
		const struct field *f = PICK(inode_fields);

		mutate_field(v, in + f->off, f->width, 0);
	}
	if (fix)
		fix_inode(v, ino);
}

static void mutate_extent_block(struct view *v, int fix)
{
	int64_t b = any_block(v, R_EXTENT);
	uint8_t *p;
	unsigned n;

	if (b < 0 || !(p = block(v, b)))
		return;
	n = le16(p + 2);
	if (below(3) == 0 || !n) {
		static const uint8_t hdr[] = { 0, 2, 4, 6, 8 };

		mutate_field(v, p + hdr[below(5)], 2, 0);
	} else {
		unsigned k = below(n < (v->bs - 12) / 12 ? n : (v->bs - 12) / 12);
		static const struct field ent[] = { { 0, 4 }, { 4, 2 }, { 6, 2 }, { 8, 4 } };
		const struct field *f = PICK(ent);

		mutate_field(v, p + 12 + 12 * k + f->off, f->width, 0);
	}
	if (fix)
		fix_extent_block(v, b);
}

static void mutate_dir_block(struct view *v, int fix)
{
	int64_t b = any_block(v, R_DIR);
	uint8_t *p;
	unsigned co, pos = 0, k, n = 0;

	if (b < 0 || !(p = block(v, b)))
		return;
	if ((co = dx_count_offset(v, b)) && below(2)) {
		/* htree: root info (hash version, levels), limit, count, or an entry's hash or block */
		unsigned count = le16(p + co + 2), choice = below(4);

		if (choice == 0 && co == 0x20)
			mutate_field(v, p + 0x18 + 4 + below(4), 1, 0);
		else if (choice == 1)
			mutate_field(v, p + co + 2 * below(2), 2, 0);
		else if (count && co + count * 8 <= v->bs)
			mutate_field(v, p + co + 8 * below(count) + 4 * below(2), 4, 0);
	} else {
		/* a dirent: inode, rec_len, name_len or file type */
		while (pos + 8 <= v->bs && n < 512) {
			unsigned rl = le16(p + pos + 4);

			n++;
			if (rl < 8)
				break;
			pos += rl;
		}
		k = below(n);
		for (pos = 0; k-- && pos + 8 <= v->bs;)
			pos += le16(p + pos + 4) >= 8 ? le16(p + pos + 4) : v->bs;
		if (pos + 8 > v->bs)
			pos = 0;
		switch (below(4)) {
		case 0: mutate_field(v, p + pos, 4, 0); break;
		case 1: mutate_field(v, p + pos + 4, 2, 0); break;
		case 2: mutate_field(v, p + pos + 6, 1, 0); break;
		default: mutate_field(v, p + pos + 7, 1, 0); break;
		}
	}
	if (fix)
		fix_dir_block(v, b);
}

static void mutate_xattr_block(struct view *v, int fix)
{
	int64_t b = any_block(v, R_XATTR);
	uint8_t *p;

	if (b < 0 || !(p = block(v, b)))
		return;
	if (below(3) == 0) {
		static const uint8_t hdr[] = { 0, 4, 8, 0xC };

		mutate_field(v, p + hdr[below(4)], 4, 0);
	} else {
		/* the first entries: name_len, name_index, value offset, value inode, value size, hash */
		static const struct field ent[] = { { 0, 1 }, { 1, 1 }, { 2, 2 }, { 4, 4 }, { 8, 4 }, { 12, 4 } };
		const struct field *f = PICK(ent);
		unsigned at = 0x20, k = below(3);

		while (k-- && at + 16 < v->bs && p[at])
			at = (at + 16 + p[at] + 3) & ~3u;
		if (at + 16 <= v->bs)
			mutate_field(v, p + at + f->off, f->width, 0);
	}
	if (fix)
		fix_xattr_block(v, b);
}

static void mutate_bitmap(struct view *v, int fix)
{
	int64_t b = any_block(v, below(2) ? R_BITMAP_B : R_BITMAP_I);
	uint8_t *p;
	unsigned bits;

	if (b < 0 || !(p = block(v, b)))
		return;
	bits = v->role[b] == R_BITMAP_B ? v->bpg : v->ipg;
	if (!bits || bits > 8 * v->bs)
		bits = 8 * v->bs;
	for (unsigned k = 1 + below(3); k--;) {
		unsigned bit = below(bits);

		p[bit / 8] ^= 1u << (bit % 8);
	}
	if (fix)
		fix_bitmap(v, b);
}

static void mutate_journal(struct view *v, int fix)
{
	int64_t b = any_block(v, R_JOURNAL);
	uint8_t *p;

	if (b < 0 || !(p = block(v, b)))
		return;
	switch (be32(p + 4)) {
	case 3: case 4: {
		const struct field *f = PICK(jsb_fields);

		mutate_field(v, p + f->off, f->width, 1);
		break;
	}
	case 2: {
		const struct field *f = PICK(commit_fields);

		mutate_field(v, p + f->off, f->width, 1);
		break;
	}
	default:
		/* descriptor tags and revoke records: big-endian words at 4-byte steps */
		mutate_field(v, p + 4 + 4 * below((v->bs - 8) / 4), below(4) ? 4 : 2, 1);
		break;
	}
	if (fix)
		fix_journal_block(v, p);
}

static struct view view;

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	struct view *v = &view;
	unsigned what;
	int fix;

	rng_state = (uint64_t)seed * 0x9E3779B97F4A7C15ULL + 1;
	what = below(12);
	if (what < 4 || index_records(v, data, size) || walk(v)) {
		size = LLVMFuzzerMutate(data, size, max_size);
		/* A quarter of the byte mutations get their checksums made right. */
		if (what == 0 && !index_records(v, data, size) && !walk(v))
			fix_all(v);
		return size;
	}
	fix = below(4) != 0;	/* a quarter left with stale checksums: the checksum paths stay fuzzed */
	switch (what) {
	case 4: mutate_sb(v); break;
	case 5: mutate_gd(v); break;
	case 6: case 7: mutate_inode(v, fix); break;
	case 8: mutate_extent_block(v, fix); break;
	case 9: mutate_dir_block(v, fix); break;
	case 10: below(2) ? mutate_xattr_block(v, fix) : mutate_bitmap(v, fix); break;
	default: mutate_journal(v, fix); break;
	}
	/* The superblock's own checksum; the descriptors' after a superblock change that moves them is left stale. */
	if (fix)
		fix_sb(v);
	return size;
}
