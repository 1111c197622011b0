/*
 * Where a group's inode table was, when its descriptor names a place the
 * table cannot be (outside the filesystem or its group, or over other
 * metadata). e2fsck gives such a table new blocks and loses every inode in
 * it; the table itself is usually intact where mke2fs put it, and only the
 * descriptor's number is wrong. The places tried are the ones mke2fs's
 * layout gives (after the group's bitmaps, or with flex_bg packed with the
 * other tables of the flex group) and each backup descriptor's; one is taken
 * only when nothing else claims its blocks and they hold inodes (valid
 * checksums, or sane modes), so a guess never replaces inodes with garbage.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check/ctx.h"
#include "util/bytes.h"

#define MAX_CANDIDATES	64
/* Tables are read this many blocks at a time (a table can be megabytes). */
#define READ_CHUNK	64

struct candidates {
	blk64_t	at[MAX_CANDIDATES];
	int	n;
};

static void add(struct candidates *k, blk64_t at)
{
	int i;

	if (!at || k->n == MAX_CANDIDATES)
		return;
	for (i = 0; i < k->n; i++)
		if (k->at[i] == at)
			return;
	k->at[k->n++] = at;
}

/* BASE + STEPS * LEN, or 0 when it falls before block 0. */
static blk64_t offset(blk64_t base, int64_t steps, blk64_t len)
{
	if (steps < 0 && (blk64_t)-steps * len > base)
		return 0;
	return base + steps * (int64_t)len;
}

/* Without flex_bg mke2fs puts the block bitmap, the inode bitmap, then the table after the group's superblock copy and descriptors. */
static void plain_layout(ext2_filsys fs, dgrp_t g, struct candidates *k)
{
	blk64_t super = 0, old_desc = 0, new_desc = 0;
	blk_t used = 0;

	if (!ext2fs_super_and_bgd_loc2(fs, g, &super, &old_desc, &new_desc, &used))
		add(k, ext2fs_group_first_block2(fs, g) + used + 2);
	add(k, ext2fs_inode_bitmap_loc(fs, g) + 1);
	add(k, ext2fs_block_bitmap_loc(fs, g) + 2);
}

/*
 * With flex_bg the tables of a flex group lie end to end, after the block
 * bitmaps and the inode bitmaps of its groups (as many slots each as the
 * bitmaps are apart): from a sibling's table, or from the bitmaps.
 */
static void flex_layout(ext2_filsys fs, dgrp_t g, struct candidates *k)
{
	unsigned log = fs->super->s_log_groups_per_flex;
	dgrp_t size, first, last, h;
	blk64_t len = fs->inode_blocks_per_group, bb0, ib0;
	blk64_t super = 0, old_desc = 0, new_desc = 0;
	blk_t used = 0;

	if (log >= 31)
		return;
	size = (dgrp_t)1 << log;
	first = g - g % size;
	last = first + size - 1 < first || first + size - 1 >= fs->group_desc_count ?
	       fs->group_desc_count - 1 : first + size - 1;
	for (h = first; h <= last; h++)
		if (h != g)
			add(k, offset(ext2fs_inode_table_loc(fs, h), (int64_t)g - (int64_t)h, len));
	/*
	 * From nothing but the geometry (a zeroed descriptor block): mke2fs
	 * starts the flex group's block bitmaps after the first group's
	 * superblock and descriptors, and spaces the three areas by the flex
	 * size, or in the last flex group by its number of groups.
	 */
	if (!ext2fs_super_and_bgd_loc2(fs, first, &super, &old_desc, &new_desc, &used)) {
		blk64_t spacing = last == fs->group_desc_count - 1 && (last & (size - 1)) ?
				  (last & (size - 1)) + 1 : size;

		add(k, ext2fs_group_first_block2(fs, first) + used + 2 * spacing + (g - first) * len);
	}
	bb0 = ext2fs_block_bitmap_loc(fs, first);
	ib0 = ext2fs_inode_bitmap_loc(fs, first);
	if (ib0 > bb0)
		add(k, ib0 + (ib0 - bb0) + (g - first) * len);
	add(k, ext2fs_inode_bitmap_loc(fs, last) + 1 + (g - first) * len);
}

/* The groups holding a copy of group G's descriptor (besides the primary). */
static void backup_groups(ext2_filsys fs, dgrp_t g, dgrp_t *out, int *n)
{
	dgrp_t per = EXT2_DESC_PER_BLOCK(fs->super), meta, h;

	*n = 0;
	if (ext2fs_has_feature_meta_bg(fs->super) && g / per >= fs->super->s_first_meta_bg) {
		meta = g / per * per;
		if (meta + 1 < fs->group_desc_count)
			out[(*n)++] = meta + 1;
		h = meta + per - 1;
		if (h < fs->group_desc_count && h != meta + 1)
			out[(*n)++] = h;
		return;
	}
	for (h = 1; h < fs->group_desc_count && *n < 16; h++)
		if (ext2fs_bg_has_super(fs, h))
			out[(*n)++] = h;
}

/* What backup copies of group G's descriptor give for its table. */
static void backup_descriptors(ext2_filsys fs, dgrp_t g, struct candidates *k)
{
	dgrp_t groups[16], per = EXT2_DESC_PER_BLOCK(fs->super);
	unsigned dsize = EXT2_DESC_SIZE(fs->super);
	unsigned char *buf;
	int n, i;

	buf = malloc(fs->blocksize);
	if (!buf)
		return;
	backup_groups(fs, g, groups, &n);
	for (i = 0; i < n; i++) {
		blk64_t super = 0, old_desc = 0, new_desc = 0, blk;
		blk_t used = 0;
		struct ext4_group_desc d;
		blk64_t at;

		if (ext2fs_super_and_bgd_loc2(fs, groups[i], &super, &old_desc, &new_desc, &used))
			continue;
		if (new_desc)
			blk = new_desc;
		else if (old_desc)
			blk = old_desc + g / per;
		else
			continue;
		if (check_out_of_fs(fs, blk, 1) || io_channel_read_blk64(fs->io, blk, 1, buf))
			continue;
		/*
		 * Copied out: a damaged descriptor size (any value, when the
		 * superblock's errors are let through) puts the entry at any
		 * byte, and may make it shorter than the fields read.
		 */
		memset(&d, 0, sizeof(d));
		memcpy(&d, buf + (g % per) * dsize, dsize < sizeof(d) ? dsize : sizeof(d));
		at = ext2fs_le32_to_cpu(d.bg_inode_table);
		if (dsize >= EXT2_MIN_DESC_SIZE_64BIT && ext2fs_has_feature_64bit(fs->super))
			at |= (blk64_t)ext2fs_le32_to_cpu(d.bg_inode_table_hi) << 32;
		add(k, at);
	}
	free(buf);
}

/* Nothing else claims AT..AT+LEN-1: no superblock or descriptor copy, no other group's bitmaps or table. */
static int unclaimed(struct check_ctx *c, dgrp_t g, blk64_t at)
{
	ext2_filsys fs = c->fs;
	blk64_t len = fs->inode_blocks_per_group, first, last;
	dgrp_t h;

	if (check_out_of_fs(fs, at, len))
		return 0;
	if (!ext2fs_has_feature_flex_bg(fs->super)) {
		first = ext2fs_group_first_block2(fs, g);
		last = ext2fs_group_last_block2(fs, g);
		if (at < first || at + len - 1 > last)
			return 0;
	}
	for (h = 0; h < fs->group_desc_count; h++) {
		blk64_t bb = ext2fs_block_bitmap_loc(fs, h), ib = ext2fs_inode_bitmap_loc(fs, h);
		blk64_t it = ext2fs_inode_table_loc(fs, h), super = 0, old_desc = 0, new_desc = 0;
		blk64_t start = ext2fs_group_first_block2(fs, h);
		blk_t used = 0;

		/* a group's superblock and descriptor copies open it */
		if (!ext2fs_super_and_bgd_loc2(fs, h, &super, &old_desc, &new_desc, &used) && used &&
		    at < start + used && start < at + len)
			return 0;
		if (h == g)
			continue;	/* its own bitmaps may be what is wrong; the inodes decide */
		if ((bb >= at && bb - at < len) || (ib >= at && ib - at < len) ||
		    (it < at + len && at < it + len))
			return 0;
	}
	/* and whatever else is marked by now (bigalloc's per-cluster map would refuse neighbours) */
	return EXT2FS_CLUSTER_RATIO(fs) != 1 || ext2fs_test_block_bitmap_range2(c->meta, at, len);
}

static int valid_type(uint16_t mode)
{
	switch (mode & 0xF000) {
	case 0x1000: case 0x2000: case 0x4000: case 0x6000:
	case 0x8000: case 0xA000: case 0xC000:
		return 1;
	}
	return 0;
}

struct tally {
	unsigned long	nonzero, good, live;
	int		root_dir;
};

/* Judge the raw inode RAW (number INO) as it lies on disk. */
static void judge(ext2_filsys fs, ext2_ino_t ino, const unsigned char *raw, struct tally *t)
{
	const struct ext2_inode *in = (const struct ext2_inode *)raw;
	uint16_t mode = ext2fs_le16_to_cpu(in->i_mode), links = ext2fs_le16_to_cpu(in->i_links_count);
	int sane;

	if (util_is_zero(raw, EXT2_INODE_SIZE(fs->super)))
		return;
	t->nonzero++;
	sane = valid_type(mode) || (!mode && !links);
	if (ext2fs_has_feature_metadata_csum(fs->super))
		sane = ext2fs_inode_csum_verify(fs, ino, (struct ext2_inode_large *)raw);
	if (sane)
		t->good++;
	if (sane && valid_type(mode) && links && !in->i_dtime)
		t->live++;
	if (ino == EXT2_ROOT_INO)
		t->root_dir = sane && LINUX_S_ISDIR(mode) && links >= 2;
}

/* Blocks AT.. hold group G's inodes: nearly all sane, some in use, and group 0's root a directory. */
static int holds_inodes(struct check_ctx *c, dgrp_t g, blk64_t at)
{
	ext2_filsys fs = c->fs;
	unsigned isize = EXT2_INODE_SIZE(fs->super), per_block = fs->blocksize / isize;
	blk64_t len = fs->inode_blocks_per_group, b;
	ext2_ino_t ino = g * fs->super->s_inodes_per_group + 1;
	ext2_ino_t end = ino + fs->super->s_inodes_per_group;
	struct tally t = { 0, 0, 0, 0 };
	unsigned char *buf;
	unsigned i;

	buf = malloc((size_t)fs->blocksize * READ_CHUNK);
	if (!buf)
		return 0;
	for (b = 0; b < len && ino < end; b += READ_CHUNK) {
		blk64_t n = len - b < READ_CHUNK ? len - b : READ_CHUNK;

		if (io_channel_read_blk64(fs->io, at + b, (int)n, buf))
			break;
		for (i = 0; i < n * per_block && ino < end; i++, ino++) {
			judge(fs, ino, buf + (size_t)i * isize, &t);
			/*
			 * Settled once even every inode still unread being
			 * sane could not bring the sane back to nine in ten:
			 * a wrong guess (data, another table's garbage) is
			 * given up after a few inodes, not a whole table.
			 */
			if ((t.nonzero - t.good) * 10 > t.nonzero + (end - ino - 1))
				goto out;
		}
	}
out:
	free(buf);
	if (g == 0 && !t.root_dir)
		return 0;
	return t.live && t.good * 10 >= t.nonzero * 9;
}

blk64_t check_itable_origin(struct check_ctx *c, dgrp_t g)
{
	ext2_filsys fs = c->fs;
	struct candidates k = { { 0 }, 0 };
	int i;

	if (!fs->inode_blocks_per_group)
		return 0;
	backup_descriptors(fs, g, &k);
	if (ext2fs_has_feature_flex_bg(fs->super))
		flex_layout(fs, g, &k);
	plain_layout(fs, g, &k);
	for (i = 0; i < k.n; i++)
		if (unclaimed(c, g, k.at[i]) && holds_inodes(c, g, k.at[i]))
			return k.at[i];
	return 0;
}
