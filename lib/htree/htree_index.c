/*
 * The index of an htree directory the way ext4 keeps it: the root (block 0, after "."
 * and "..") and, once the root is full, index nodes under it, each a block whose one
 * fake entry spans it, holding (hash, block) entries in hash order. A full index block
 * splits in two by count, the nearest ancestor with room taking an entry for the new
 * half; a full root moves its entries to a new node and the tree grows a level
 * (ext4_dx_add_entry). Without large_dir the kernel stops at two levels of index.
 */
#include "config.h"

#include <string.h>

#include "util/e4r_err.h"
#include "htree/htree_int.h"

#define DX_ENTRY	8	/* sizeof(struct ext2_dx_entry) */

static unsigned max_levels(const struct htree_ctx *c)
{
	return ext2fs_has_feature_largedir(c->fs->super) ? HTREE_MAX_LEVELS : 2;
}

unsigned htree_root_limit(const struct htree_ctx *c, unsigned info_length)
{
	unsigned space = c->bs - 12 - 12 - info_length;

	if (ext2fs_has_feature_metadata_csum(c->fs->super))
		space -= sizeof(struct ext2_dx_tail);
	return space / DX_ENTRY;
}

unsigned htree_node_limit(const struct htree_ctx *c)
{
	unsigned space = c->bs - 8;

	if (ext2fs_has_feature_metadata_csum(c->fs->super))
		space -= sizeof(struct ext2_dx_tail);
	return space / DX_ENTRY;
}

static uint32_t entry_hash(const struct htree_frame *fr, unsigned i)
{
	return ext2fs_le32_to_cpu(htree_entries(fr)[i].hash);
}

static uint32_t entry_block(const struct htree_frame *fr, unsigned i)
{
	return ext2fs_le32_to_cpu(htree_entries(fr)[i].block) & EXT4_DX_BLOCK_MASK;
}

/* The physical block of the directory's logical block LBLK; a hole is corruption. */
static errcode_t dir_block(const struct htree_ctx *c, uint32_t lblk, blk64_t *pblk)
{
	errcode_t err = ext2fs_bmap2(c->fs, c->dir, (struct ext2_inode *)&c->inode, NULL, 0, lblk, NULL, pblk);

	if (!err && !*pblk)
		err = EXT2_ET_DIR_CORRUPTED;
	return err;
}

errcode_t htree_probe(struct htree_ctx *c, uint32_t hash)
{
	const struct ext2_dx_root_info *info = (const struct ext2_dx_root_info *)(c->frame[0].buf + 24);
	unsigned level;
	errcode_t err;

	if (info->info_length < 8 || info->unused_flags & 1 || info->indirect_levels >= max_levels(c))
		return EXT2_ET_DIR_CORRUPTED;
	c->levels = info->indirect_levels + 1;
	c->frame[0].cl = 24 + info->info_length;
	if (htree_limit(&c->frame[0]) != htree_root_limit(c, info->info_length))
		return EXT2_ET_DIR_CORRUPTED;
	for (level = 0;; level++) {
		struct htree_frame *fr = &c->frame[level];
		unsigned count = htree_count(fr), lo = 1, hi = count;
		blk64_t pblk;

		if (!count || count > htree_limit(fr))
			return EXT2_ET_DIR_CORRUPTED;
		/* the last entry whose hash is not above HASH (the first one has none) */
		while (lo < hi) {
			unsigned m = lo + (hi - lo) / 2;

			if (entry_hash(fr, m) > hash)
				hi = m;
			else
				lo = m + 1;
		}
		fr->at = lo - 1;
		err = dir_block(c, entry_block(fr, fr->at), &pblk);
		if (err)
			return err;
		if (level + 1 == c->levels) {
			c->leaf_pblk = pblk;
			return ext2fs_read_dir_block4(c->fs, pblk, c->leaf, 0, c->dir);
		}
		fr = &c->frame[level + 1];
		fr->pblk = pblk;
		fr->cl = 8;
		err = ext2fs_read_dir_block4(c->fs, pblk, fr->buf, 0, c->dir);
		if (err)
			return err;
		if (htree_limit(fr) != htree_node_limit(c))
			return EXT2_ET_DIR_CORRUPTED;
	}
}

void htree_insert(struct htree_frame *fr, uint32_t hash, uint32_t lblk)
{
	struct ext2_dx_entry *e = htree_entries(fr);
	unsigned count = htree_count(fr), at = fr->at;

	memmove(e + at + 2, e + at + 1, (count - at - 1) * sizeof(*e));
	e[at + 1].hash = ext2fs_cpu_to_le32(hash);
	e[at + 1].block = ext2fs_cpu_to_le32(lblk);
	htree_cl(fr)->count = ext2fs_cpu_to_le16(count + 1);
}

errcode_t htree_write_frame(const struct htree_ctx *c, const struct htree_frame *fr)
{
	return ext2fs_write_dir_block4(c->fs, fr->pblk, fr->buf, 0, c->dir);
}

errcode_t htree_grow_index(struct htree_ctx *c)
{
	struct htree_frame node = { c->spare, 0, 8, 0 }, *fr;
	unsigned f = c->levels - 1, icount;
	int add_level = 1;
	blk64_t lblk;
	errcode_t err;

	/* the nearest ancestor of the full block with room for one more entry */
	while (f > 0) {
		if (htree_count(&c->frame[f - 1]) < htree_limit(&c->frame[f - 1])) {
			add_level = 0;
			break;
		}
		f--;
	}
	if (add_level && c->levels == max_levels(c))
		return E4R_WRITE_DIR_INDEX_FULL;
	/* the new index block comes before the leaf the split that follows will take */
	err = htree_dir_append(c, &lblk, &node.pblk);
	if (err)
		return err;
	memset(node.buf, 0, c->bs);
	ext2fs_set_rec_len(c->fs, c->bs, (struct ext2_dir_entry *)node.buf);
	fr = &c->frame[f];
	icount = htree_count(fr);
	if (!add_level) {
		/* the upper half by count moves; the rest stays, stale past the new count */
		unsigned icount1 = icount / 2, icount2 = icount - icount1;
		uint32_t hash2 = entry_hash(fr, icount1);

		memcpy(htree_entries(&node), htree_entries(fr) + icount1, icount2 * DX_ENTRY);
		htree_cl(fr)->count = ext2fs_cpu_to_le16(icount1);
		htree_cl(&node)->count = ext2fs_cpu_to_le16(icount2);
		htree_cl(&node)->limit = ext2fs_cpu_to_le16(htree_node_limit(c));
		htree_insert(&c->frame[f - 1], hash2, (uint32_t)lblk);
		err = htree_write_frame(c, &node);
		if (!err)
			err = htree_write_frame(c, &c->frame[f - 1]);
		if (!err)
			err = htree_write_frame(c, fr);
		return err;
	}
	/* every entry of the root (its count with them) moves down; the root keeps one */
	memcpy(htree_entries(&node), htree_entries(fr), icount * DX_ENTRY);
	htree_cl(&node)->limit = ext2fs_cpu_to_le16(htree_node_limit(c));
	htree_cl(fr)->count = ext2fs_cpu_to_le16(1);
	htree_entries(fr)[0].block = ext2fs_cpu_to_le32((uint32_t)lblk);
	((struct ext2_dx_root_info *)(fr->buf + 24))->indirect_levels++;
	err = htree_write_frame(c, fr);
	if (!err)
		err = htree_write_frame(c, &node);
	return err;
}
