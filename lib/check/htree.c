/*
 * Checker pass 2, htree directories: the index (root and interior nodes),
 * which blocks it reaches and how often, the depth of every leaf and the
 * hash range of every leaf and node.
 *
 * The rules are e2fsck's: a block is an interior node when it looks like
 * one (an empty entry over the whole block and the limit a node has), every
 * other block but the root is a leaf; each must be reached exactly once, a
 * leaf at the depth the root gives, holding hashes within the range its
 * parent's entry gives it.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/ctx.h"
#include "fs/dirent.h"
#include "util/dirhash.h"

#define DX_ROOT_INFO_OFFSET	24	/* after '.' (12) and the header of '..' (12) */
#define DX_ROOT_INFO_LEN	8
#define DX_NODE_OFFSET		8	/* after the fake empty entry */
#define DX_ENTRY_SIZE		8
#define DX_TAIL_SIZE		8
#define DX_BLOCK_MASK		0x0fffffff
#define DX_HASH_FLAG_INCOMPAT	0x1
#define HASH_LAST		0xfffffffeu	/* the top of the last child's range */
#define MAX_WALK		64	/* a parent chain longer than this is a loop */
#define DIRENT_HEADER_SIZE	8
#define SPARSE_MAX		(1u << 20)	/* holes an index table is still made for */

/* ref flags of struct check_htree_block */
#define REF_ONCE	0x1
#define REF_TWICE	0x2
#define REF_FIRST	0x4	/* the first child of its parent */
#define REF_LAST	0x8	/* the last child of its parent */

static void htree_problem(struct check_ctx *c, enum check_problem code, ext2_ino_t dir, blk64_t blk,
			  uint64_t expected, uint64_t found)
{
	struct check_finding f = check_finding_init(code);

	f.dir = dir;
	f.blk = blk;
	f.expected = expected;
	f.found = found;
	check_report(c, &f);
}

/* The index entries' limit in a block whose count/limit header is at OFF. */
static unsigned expected_limit(const struct check_htree_map *m, unsigned off)
{
	return (m->blocksize - off - (m->csum ? DX_TAIL_SIZE : 0)) / DX_ENTRY_SIZE;
}

/* The hash versions a root may name: SipHash only where names carry their hash. */
static int hash_version_ok(const struct check_htree_map *m, unsigned v)
{
	if (v == EXT2_HASH_SIPHASH)
		return m->hash_in_dirent;
	return !m->hash_in_dirent &&
	       (v == EXT2_HASH_LEGACY || v == EXT2_HASH_HALF_MD4 || v == EXT2_HASH_TEA);
}

errcode_t check_htree_setup(struct check_ctx *c, ext2_ino_t dir, uint32_t flags,
			    const struct check_dir_block *blocks, size_t n, struct check_htree_map *m)
{
	ext2_filsys fs = c->fs;
	struct ext2_dx_root_info ri;
	char *buf;
	int levels = ext2fs_has_feature_largedir(fs->super) ? 3 : 2;
	int bad = 0;

	memset(m, 0, sizeof(*m));
	m->dir = dir;
	m->blocksize = fs->blocksize;
	m->csum = ext2fs_has_feature_metadata_csum(fs->super);
	m->casefold = !!(flags & EXT4_CASEFOLD_FL);
	m->hash_in_dirent = (flags & EXT4_ENCRYPT_FL) && (flags & EXT4_CASEFOLD_FL);
	if (!n || blocks[0].lblk != 0)
		return 0;	/* no block 0: the hole is pass 2's finding */
	m->nblocks = blocks[n - 1].lblk + 1;
	/* a block far past the others is pass 1's and pass 2's hole findings, not a table that size */
	if (m->nblocks - n > SPARSE_MAX)
		return 0;
	m->b = calloc(m->nblocks, sizeof(*m->b));
	buf = malloc(fs->blocksize);
	if (!m->b || !buf) {
		free(buf);
		check_htree_free(m);
		return ENOMEM;
	}
	if (io_channel_read_blk64(fs->io, blocks[0].blk, 1, buf)) {
		bad = 1;
	} else {
		memcpy(&ri, buf + DX_ROOT_INFO_OFFSET, sizeof(ri));
		/* the one-byte fields need no conversion */
		if (ext2fs_le32_to_cpu(ri.reserved_zero) || ri.info_length < DX_ROOT_INFO_LEN ||
		    ri.indirect_levels >= levels)
			bad = 1;
		else if (!hash_version_ok(m, ri.hash_version))
			htree_problem(c, E4R_PR_HTREE_HASH_VERSION, dir, blocks[0].blk, E4R_NONE,
				      ri.hash_version);
		else if (ri.unused_flags & DX_HASH_FLAG_INCOMPAT)
			htree_problem(c, E4R_PR_HTREE_INCOMPAT, dir, blocks[0].blk, E4R_NONE,
				      ri.unused_flags);
		else
			m->usable = 1;
	}
	free(buf);
	if (bad)
		htree_problem(c, E4R_PR_HTREE_ROOT, dir, blocks[0].blk, E4R_NONE, E4R_NONE);
	if (!m->usable) {
		/* nothing more is read from a root we cannot trust */
		check_htree_free(m);
		return 0;
	}
	m->root_off = DX_ROOT_INFO_OFFSET + ri.info_length;
	m->depth = ri.indirect_levels + 1;
	m->hash_version = ri.hash_version;
	if ((fs->super->s_flags & EXT2_FLAGS_UNSIGNED_HASH) && m->hash_version <= EXT2_HASH_TEA)
		m->hash_version += EXT2_HASH_LEGACY_UNSIGNED;
	return 0;
}

/* A block other than the root that has the shape of an interior node. */
static int looks_like_node(ext2_filsys fs, const struct check_htree_map *m, const char *buf)
{
	const struct ext2_dir_entry *de = (const struct ext2_dir_entry *)buf;
	struct ext2_dx_countlimit cl;
	unsigned rec_len;

	if (fs_dirent_inode(de) || fs_dirent_name_len(de) || fs_dirent_rec_len(fs, de, &rec_len) ||
	    rec_len != fs->blocksize)
		return 0;
	memcpy(&cl, buf + DX_NODE_OFFSET, sizeof(cl));
	return ext2fs_le16_to_cpu(cl.limit) == expected_limit(m, DX_NODE_OFFSET);
}

/* The index entries of the root or of node LBLK (block BLK): every child gets its range. */
static void read_entries(struct check_ctx *c, struct check_htree_map *m, uint32_t lblk,
			 blk64_t blk, const char *buf)
{
	unsigned off = lblk ? DX_NODE_OFFSET : m->root_off;
	unsigned limit = expected_limit(m, off), count, i;
	uint32_t hash = 0, prev_hash, lo = UINT32_MAX, hi = 0;
	struct ext2_dx_countlimit cl;
	int order_reported = 0;

	memcpy(&cl, buf + off, sizeof(cl));
	count = ext2fs_le16_to_cpu(cl.count);
	if (ext2fs_le16_to_cpu(cl.limit) != limit)
		htree_problem(c, E4R_PR_HTREE_LIMIT, m->dir, blk, limit, ext2fs_le16_to_cpu(cl.limit));
	if (count > limit) {
		htree_problem(c, E4R_PR_HTREE_COUNT, m->dir, blk, limit, count);
		count = limit;
	}
	for (i = 0; i < count; i++) {
		struct ext2_dx_entry e;
		struct check_htree_block *child;
		uint32_t cblk;

		memcpy(&e, buf + off + i * DX_ENTRY_SIZE, sizeof(e));
		prev_hash = hash;
		/* the first entry's hash field is the count/limit header: it starts at 0 */
		hash = i ? ext2fs_le32_to_cpu(e.hash) & ~1u : 0;
		cblk = ext2fs_le32_to_cpu(e.block) & DX_BLOCK_MASK;
		if (cblk >= m->nblocks) {
			htree_problem(c, E4R_PR_HTREE_BAD_BLOCK, m->dir, blk, m->nblocks, cblk);
			continue;
		}
		if (hash < prev_hash && !order_reported) {
			htree_problem(c, E4R_PR_HTREE_HASH_ORDER, m->dir, blk, lblk, i);
			order_reported = 1;
		}
		child = &m->b[cblk];
		if (child->ref & REF_ONCE) {
			child->ref |= REF_TWICE;
		} else {
			child->ref |= REF_ONCE;
			child->parent = lblk;
		}
		child->previous = 0;
		if (i) {
			memcpy(&e, buf + off + (i - 1) * DX_ENTRY_SIZE, sizeof(e));
			child->previous = ext2fs_le32_to_cpu(e.block) & DX_BLOCK_MASK;
		}
		if (hash < lo)
			lo = hash;
		if (hash > hi)
			hi = hash;
		child->range_lo = hash;
		if (i + 1 < count) {
			memcpy(&e, buf + off + (i + 1) * DX_ENTRY_SIZE, sizeof(e));
			child->range_hi = ext2fs_le32_to_cpu(e.hash) & ~1u;
		} else {
			child->range_hi = HASH_LAST;
			child->ref |= REF_LAST;
		}
		if (i == 0)
			child->ref |= REF_FIRST;
	}
	m->b[lblk].lo = lo;
	m->b[lblk].hi = hi;
}

int check_htree_block(struct check_ctx *c, struct check_htree_map *m, uint32_t lblk, blk64_t blk,
		      const char *buf)
{
	struct check_htree_block *b;

	if (!m->b || lblk >= m->nblocks)
		return HTREE_NONE;
	b = &m->b[lblk];
	b->blk = blk;
	b->lo = UINT32_MAX;
	b->hi = 0;
	if (lblk == 0)
		b->kind = HTREE_ROOT;
	else if (looks_like_node(c->fs, m, buf))
		b->kind = HTREE_NODE;
	else
		b->kind = HTREE_LEAF;
	if (b->kind != HTREE_LEAF)
		read_entries(c, m, lblk, blk, buf);
	return b->kind;
}

void check_htree_entry(struct check_ctx *c, struct check_htree_map *m, uint32_t lblk,
		       const struct ext2_dir_entry *de, unsigned off, unsigned rec_len)
{
	struct check_htree_block *b;
	const char *name = de->name;
	unsigned len = fs_dirent_name_len(de);
	ext2_dirhash_t h = 0;

	if (!m->b || lblk >= m->nblocks || m->b[lblk].kind != HTREE_LEAF)
		return;
	b = &m->b[lblk];
	if (m->hash_version == EXT2_HASH_SIPHASH) {
		/* the hash is stored after the name, 4-aligned */
		uint32_t stored;

		if (DIRENT_HEADER_SIZE + ((len + 3) & ~3u) + sizeof(stored) > rec_len)
			return;
		memcpy(&stored, name + ((len + 3) & ~3u), sizeof(stored));
		h = ext2fs_le32_to_cpu(stored);
	} else if (m->casefold && c->fs->encoding) {
		/* the name is folded first: the library's */
		if (ext2fs_dirhash2(m->hash_version, name, (int)len, c->fs->encoding,
				    EXT4_CASEFOLD_FL, c->fs->super->s_hash_seed, &h, NULL))
			return;
	} else if (util_dirhash(m->hash_version, name, len, c->fs->super->s_hash_seed, &h, NULL)) {
		return;
	}
	if (h < b->lo) {
		b->lo = h;
		b->lo_off = off;
	}
	if (h > b->hi) {
		b->hi = h;
		b->hi_off = off;
	}
}

/* Report a leaf's hash outside its range by the entry at OFF that holds it. */
static void leaf_hash_problem(struct check_ctx *c, const struct check_htree_map *m, uint32_t lblk,
			      unsigned off, uint32_t hash)
{
	const struct check_htree_block *b = &m->b[lblk];
	struct check_finding f = check_finding_init(E4R_PR_HTREE_HASH);
	char *buf = malloc(m->blocksize);
	char name[EXT2_NAME_LEN + 1] = "";

	if (buf && !io_channel_read_blk64(c->fs->io, b->blk, 1, buf) &&
	    off + DIRENT_HEADER_SIZE <= m->blocksize) {
		const struct ext2_dir_entry *de = (const struct ext2_dir_entry *)(buf + off);
		unsigned len = fs_dirent_name_len(de);

		if (off + DIRENT_HEADER_SIZE + len <= m->blocksize) {
			memcpy(name, de->name, len);
			name[len] = '\0';
			f.ino = fs_dirent_inode(de);
		}
	}
	free(buf);
	f.dir = m->dir;
	f.blk = b->blk;
	f.name = name;
	f.expected = lblk;
	f.found = hash;
	check_report(c, &f);
}

/* The number of parents between block B and the root (MAX_WALK: a loop). */
static int depth_of(const struct check_htree_map *m, uint32_t lblk)
{
	int depth = 0;

	while (m->b[lblk].kind != HTREE_ROOT && depth < MAX_WALK) {
		lblk = m->b[lblk].parent;
		depth++;
	}
	return depth;
}

/*
 * The hashes of each parent of a block of KIND become those of its first
 * and last child; the sibling before the parent may hold no hash above
 * the parent's first.
 */
static void update_parents(struct check_htree_map *m, int kind)
{
	uint32_t i;

	for (i = 0; i < m->nblocks; i++) {
		struct check_htree_block *b = &m->b[i], *parent = &m->b[b->parent];

		if (b->kind != kind)
			continue;
		if (b->ref & REF_FIRST) {
			parent->lo = b->lo;
			if (parent->previous && parent->previous < m->nblocks)
				m->b[parent->previous].range_hi = parent->lo;
		}
		if (b->ref & REF_LAST)
			parent->hi = b->hi;
	}
}

void check_htree_finish(struct check_ctx *c, struct check_htree_map *m)
{
	uint32_t i;

	if (!m->b)
		return;
	/* the root is reached from the inode */
	m->b[0].ref |= m->b[0].ref & REF_ONCE ? REF_TWICE : REF_ONCE;
	/* a node's hashes are those of its first and last children: leaves, then nodes (largedir) */
	update_parents(m, HTREE_LEAF);
	update_parents(m, HTREE_NODE);
	for (i = 0; i < m->nblocks; i++) {
		struct check_htree_block *b = &m->b[i];
		blk64_t blk = b->kind ? b->blk : E4R_NONE;

		if (b->kind == HTREE_NONE)
			continue;	/* a hole: pass 2 reports it */
		if (b->kind == HTREE_LEAF && depth_of(m, i) != m->depth)
			htree_problem(c, E4R_PR_HTREE_DEPTH, m->dir, blk, m->depth, i);
		if (!(b->ref & REF_FIRST) && b->lo < b->range_lo) {
			if (b->kind == HTREE_LEAF)
				leaf_hash_problem(c, m, i, b->lo_off, b->lo);
			else
				htree_problem(c, E4R_PR_HTREE_NODE, m->dir, blk, E4R_NONE, i);
		}
		if (i && b->hi > b->range_hi) {
			if (b->kind == HTREE_LEAF)
				leaf_hash_problem(c, m, i, b->hi_off, b->hi);
			else
				htree_problem(c, E4R_PR_HTREE_NODE, m->dir, blk, E4R_NONE, i);
		}
		if (!(b->ref & REF_ONCE))
			htree_problem(c, E4R_PR_HTREE_NOT_REF, m->dir, blk, E4R_NONE, i);
		else if (b->ref & REF_TWICE)
			htree_problem(c, E4R_PR_HTREE_DUP_REF, m->dir, blk, E4R_NONE, i);
	}
}

void check_htree_free(struct check_htree_map *m)
{
	free(m->b);
	m->b = NULL;
	m->nblocks = 0;
}
