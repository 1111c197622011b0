/* Checker pass 2, htree directories: the index (root and interior nodes) and the hash range of every leaf. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/ctx.h"

#define DX_ROOT_INFO_OFFSET	24	/* after '.' (12) and the header of '..' (12) */
#define DX_ROOT_INFO_LEN	8
#define DX_NODE_OFFSET		8	/* after the fake empty entry */
#define DX_ENTRY_SIZE		8
#define DX_TAIL_SIZE		8
#define DX_HASH_MAX		EXT2_HASH_SIPHASH
#define DX_BLOCK_MASK		0x0fffffff
#define HASH_MAX		0xffffffffu

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

/* The pass-1 block of logical block LBLK, by binary search (blocks are in logical order). */
static const struct check_dir_block *find_block(const struct check_htree_map *m, uint32_t lblk)
{
	size_t lo = 0, hi = m->nblocks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->blocks[mid].lblk == lblk)
			return &m->blocks[mid];
		if (m->blocks[mid].lblk < lblk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * Index blocks are little-endian on disk: every field below is converted
 * where it is read (struct ext2_dx_* only give the layout).
 *
 * The count/limit header at OFF and its entries: child i holds hashes from
 * its own hash to the next entry's (inclusive: a continued collision may
 * spill over), within the parent's [LO, HI]. Returns 0 when the header is bad.
 */
static int read_entries(struct check_htree_map *m, const char *buf, unsigned off, uint32_t lo,
			uint32_t hi, int node, uint32_t *children, unsigned *nchildren)
{
	struct ext2_dx_countlimit cl;
	unsigned limit = (m->blocksize - off - (m->csum ? DX_TAIL_SIZE : 0)) / DX_ENTRY_SIZE, i;
	unsigned count;

	memcpy(&cl, buf + off, sizeof(cl));
	count = ext2fs_le16_to_cpu(cl.count);
	if (ext2fs_le16_to_cpu(cl.limit) != limit || count == 0 || count > limit)
		return 0;
	*nchildren = 0;
	for (i = 0; i < count; i++) {
		struct ext2_dx_entry e, next;
		uint32_t child, clo, chi;

		memcpy(&e, buf + off + i * DX_ENTRY_SIZE, sizeof(e));
		child = ext2fs_le32_to_cpu(e.block) & DX_BLOCK_MASK;
		clo = i == 0 ? lo : (ext2fs_le32_to_cpu(e.hash) & ~1u);
		chi = hi;
		if (i + 1 < count) {
			memcpy(&next, buf + off + (i + 1) * DX_ENTRY_SIZE, sizeof(next));
			chi = ext2fs_le32_to_cpu(next.hash) & ~1u;
		}
		if (child >= m->nrange)
			continue;	/* points past the directory: the leaf check will miss it */
		m->range[child].lo = clo;
		m->range[child].hi = chi;
		m->range[child].kind = node ? HTREE_NODE : HTREE_LEAF;
		if (node)
			children[(*nchildren)++] = child;
	}
	return 1;
}

static void read_interior(struct check_ctx *c, struct check_htree_map *m, uint32_t lblk, char *buf)
{
	const struct check_dir_block *b = find_block(m, lblk);
	unsigned n = 0;

	if (!b || io_channel_read_blk64(c->fs->io, b->blk, 1, buf) ||
	    !read_entries(m, buf, DX_NODE_OFFSET, m->range[lblk].lo, m->range[lblk].hi, 0, NULL, &n)) {
		htree_problem(c, E4R_PR_HTREE_NODE, m->dir, b ? b->blk : E4R_NONE, E4R_NONE, lblk);
		m->range[lblk].kind = HTREE_BAD;
	}
}

errcode_t check_htree_setup(struct check_ctx *c, ext2_ino_t dir, uint32_t flags,
			    const struct check_dir_block *blocks, size_t n, struct check_htree_map *m)
{
	ext2_filsys fs = c->fs;
	struct ext2_dx_root_info ri;
	uint32_t *children = NULL;
	unsigned nchildren = 0, i;
	char *buf = NULL;
	int max_levels = ext2fs_has_feature_largedir(fs->super) ? 3 : 2;

	memset(m, 0, sizeof(*m));
	m->dir = dir;
	m->blocks = blocks;
	m->nblocks = n;
	m->blocksize = fs->blocksize;
	m->csum = ext2fs_has_feature_metadata_csum(fs->super);
	m->casefold = (flags & EXT4_CASEFOLD_FL) && fs->encoding;
	if (!n || blocks[0].lblk != 0)
		return 0;
	m->nrange = blocks[n - 1].lblk + 1;
	m->range = calloc(m->nrange, sizeof(*m->range));
	buf = malloc(fs->blocksize);
	children = malloc(fs->blocksize / DX_ENTRY_SIZE * sizeof(*children));
	if (!m->range || !buf || !children) {
		free(buf);
		free(children);
		check_htree_free(m);
		return ENOMEM;
	}
	if (io_channel_read_blk64(fs->io, blocks[0].blk, 1, buf))
		goto bad_root;
	memcpy(&ri, buf + DX_ROOT_INFO_OFFSET, sizeof(ri));
	/* the one-byte fields need no conversion */
	if (ext2fs_le32_to_cpu(ri.reserved_zero) || ri.info_length != DX_ROOT_INFO_LEN || ri.hash_version > DX_HASH_MAX ||
	    ri.indirect_levels >= max_levels)
		goto bad_root;
	m->hash_version = ri.hash_version;
	if ((fs->super->s_flags & EXT2_FLAGS_UNSIGNED_HASH) && m->hash_version <= EXT2_HASH_TEA)
		m->hash_version += EXT2_HASH_LEGACY_UNSIGNED;
	m->range[0].kind = HTREE_ROOT;
	if (!read_entries(m, buf, DX_ROOT_INFO_OFFSET + DX_ROOT_INFO_LEN, 0, HASH_MAX,
			  ri.indirect_levels > 0, children, &nchildren))
		goto bad_root;
	/* One level of interior nodes is all e2fsck without largedir allows; deeper ones are read as nodes only. */
	for (i = 0; i < nchildren; i++)
		read_interior(c, m, children[i], buf);
	m->usable = !(flags & EXT4_ENCRYPT_FL);
	free(buf);
	free(children);
	return 0;
bad_root:
	htree_problem(c, E4R_PR_HTREE_ROOT, dir, blocks[0].blk, E4R_NONE, E4R_NONE);
	m->range[0].kind = HTREE_ROOT;
	m->usable = 0;
	free(buf);
	free(children);
	return 0;
}

int check_htree_kind(const struct check_htree_map *m, uint32_t lblk)
{
	return m->range && lblk < m->nrange ? m->range[lblk].kind : HTREE_NONE;
}

int check_htree_hash_ok(struct check_ctx *c, const struct check_htree_map *m, uint32_t lblk,
			const char *name, int len, uint32_t *hash)
{
	ext2_dirhash_t h = 0;

	if (!m->usable || lblk >= m->nrange || m->range[lblk].kind != HTREE_LEAF)
		return 1;
	if (ext2fs_dirhash2(m->hash_version, name, len, m->casefold ? c->fs->encoding : NULL,
			    m->casefold ? EXT4_CASEFOLD_FL : 0, c->fs->super->s_hash_seed, &h, NULL))
		return 1;
	*hash = h & ~1u;
	return *hash >= m->range[lblk].lo && *hash <= m->range[lblk].hi;
}

void check_htree_free(struct check_htree_map *m)
{
	free(m->range);
	m->range = NULL;
	m->nrange = 0;
}
