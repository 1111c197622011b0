/* Classifying filesystem blocks: the static layout from the group descriptors, owners from an inode pass. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fs/bitmaps.h"
#include "fs/decode.h"
#include "fs/geometry.h"
#include "util/array.h"
#include "util/e4r_err.h"
#include "util/sorted.h"

/* A damaged image must not turn the inode pass into an endless walk. */
#define DECODE_MAX_STEPS	(1ULL << 26)	/* extents + mapped blocks visited, in total */
#define DECODE_MAX_WANTED	(1U << 24)	/* blocks one decoder will track */

/* A run of layout metadata: superblock, descriptors, bitmaps, an inode table. */
struct layout_run {
	blk64_t			start;
	blk64_t			len;
	enum fs_block_kind	kind;
	dgrp_t			group;
	int			backup, reserved;
};

struct wanted {
	blk64_t			blk;
	int			found;
	struct fs_block_info	info;
};

struct fs_decode {
	ext2_filsys		fs;
	struct layout_run	*layout;
	size_t			nlayout, layout_cap;
	blk64_t			longest_run;
	struct wanted		*want;
	size_t			nwant, want_cap;
	int			resolved;
	int			partial;
	int			have_block_map, have_inode_map;
	uint64_t		steps;		/* toward DECODE_MAX_STEPS */
};

/*
 * Each kind's identifier (JSON) and its words for people (English, marked
 * for gettext; the front end translates them where it prints).
 */
#define N_(s) s
static const struct {
	const char	*name, *text;
} kinds[] = {
	[E4R_KIND_UNKNOWN]	= { "unknown",		N_("unknown block") },
	[E4R_KIND_SUPERBLOCK]	= { "superblock",	N_("superblock") },
	[E4R_KIND_GROUP_DESC]	= { "group_desc",	N_("group descriptors") },
	[E4R_KIND_BLOCK_BITMAP]	= { "block_bitmap",	N_("block bitmap") },
	[E4R_KIND_INODE_BITMAP]	= { "inode_bitmap",	N_("inode bitmap") },
	[E4R_KIND_INODE_TABLE]	= { "inode_table",	N_("inode table") },
	[E4R_KIND_DIRECTORY]	= { "directory",	N_("directory block") },
	[E4R_KIND_EXTENT_TREE]	= { "extent_tree",	N_("extent tree block") },
	[E4R_KIND_INDIRECT]	= { "indirect",		N_("indirect block") },
	[E4R_KIND_XATTR]	= { "xattr",		N_("extended attribute block") },
	[E4R_KIND_DATA]		= { "data",		N_("data block") },
	[E4R_KIND_OUTSIDE]	= { "outside",		N_("outside the filesystem") },
};

static int kind_known(enum fs_block_kind kind)
{
	return (unsigned)kind < sizeof(kinds) / sizeof(kinds[0]) && kinds[kind].name;
}

const char *fs_block_kind_name(enum fs_block_kind kind)
{
	return kind_known(kind) ? kinds[kind].name : "unknown";
}

const char *fs_block_kind_text(enum fs_block_kind kind)
{
	return kinds[kind_known(kind) ? kind : E4R_KIND_UNKNOWN].text;
}

static errcode_t add_run(struct fs_decode *d, blk64_t start, blk64_t len,
			 enum fs_block_kind kind, dgrp_t group, int backup, int reserved)
{
	struct layout_run *r;

	if (!len || start >= ext2fs_blocks_count(d->fs->super))
		return 0;	/* absent, or a descriptor pointing off the end: not layout */
	if (util_grow_from((void **)&d->layout, &d->layout_cap, d->nlayout + 1, sizeof(*d->layout), 256))
		return ENOMEM;
	if (len > d->longest_run)
		d->longest_run = len;
	r = &d->layout[d->nlayout++];
	*r = (struct layout_run){ start, len, kind, group, backup, reserved };
	return 0;
}

/* Superblock and descriptor copies of group G. */
static errcode_t add_group_sb_gdt(struct fs_decode *d, dgrp_t g)
{
	ext2_filsys fs = d->fs;
	blk64_t super = 0, old_desc = 0, new_desc = 0;
	blk_t used = 0;
	int meta_bg = ext2fs_has_feature_meta_bg(fs->super);
	blk64_t ndesc = fs_old_desc_blocks(fs);
	errcode_t err;

	err = ext2fs_super_and_bgd_loc2(fs, g, &super, &old_desc, &new_desc, &used);
	if (err)
		return err;
	if (g == 0 || super)
		err = add_run(d, super ? super : fs->super->s_first_data_block, 1,
			      E4R_KIND_SUPERBLOCK, g, g != 0, 0);
	if (!err && old_desc) {
		err = add_run(d, old_desc, ndesc, E4R_KIND_GROUP_DESC, g, g != 0, 0);
		if (!err && !meta_bg)
			err = add_run(d, old_desc + ndesc, fs->super->s_reserved_gdt_blocks,
				      E4R_KIND_GROUP_DESC, g, g != 0, 1);
	}
	if (!err && new_desc)
		err = add_run(d, new_desc, 1, E4R_KIND_GROUP_DESC, g,
			      g % EXT2_DESC_PER_BLOCK(fs->super) != 0, 0);
	return err;
}

static int cmp_run(const void *a, const void *b)
{
	const struct layout_run *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static errcode_t build_layout(struct fs_decode *d)
{
	ext2_filsys fs = d->fs;
	errcode_t err = 0;
	dgrp_t g;

	for (g = 0; g < fs->group_desc_count && !err; g++) {
		err = add_group_sb_gdt(d, g);
		if (!err)
			err = add_run(d, ext2fs_block_bitmap_loc(fs, g), 1, E4R_KIND_BLOCK_BITMAP, g, 0, 0);
		if (!err)
			err = add_run(d, ext2fs_inode_bitmap_loc(fs, g), 1, E4R_KIND_INODE_BITMAP, g, 0, 0);
		if (!err && ext2fs_inode_table_loc(fs, g))
			err = add_run(d, ext2fs_inode_table_loc(fs, g), fs->inode_blocks_per_group,
				      E4R_KIND_INODE_TABLE, g, 0, 0);
	}
	if (!err)
		qsort(d->layout, d->nlayout, sizeof(*d->layout), cmp_run);
	return err;
}

errcode_t fs_decode_new(ext2_filsys fs, struct fs_decode **out)
{
	struct fs_decode *d = calloc(1, sizeof(*d));
	errcode_t err;

	*out = NULL;
	if (!d)
		return ENOMEM;
	d->fs = fs;
	err = build_layout(d);
	if (err) {
		fs_decode_free(d);
		return err;
	}
	*out = d;
	return 0;
}

void fs_decode_free(struct fs_decode *d)
{
	if (!d)
		return;
	free(d->layout);
	free(d->want);
	free(d);
}

int fs_decode_partial(const struct fs_decode *d)
{
	return d->partial;
}

errcode_t fs_decode_want(struct fs_decode *d, blk64_t blk)
{
	struct wanted *w;

	if (d->resolved)
		return 0;
	if (d->nwant >= DECODE_MAX_WANTED)
		return E4R_DECODE_TOO_MANY;
	if (util_grow_from((void **)&d->want, &d->want_cap, d->nwant + 1, sizeof(*d->want), 256))
		return ENOMEM;
	w = &d->want[d->nwant++];
	memset(w, 0, sizeof(*w));
	w->blk = blk;
	return 0;
}

/* The layout run holding BLK, or NULL. Runs may overlap on damaged images: any match will do. */
static const struct layout_run *find_run(const struct fs_decode *d, blk64_t blk)
{
	/* from the first run starting after blk, backwards */
	size_t lo = util_upper_bound(UTIL_SORTED(d->layout, d->nlayout, start), blk);

	while (lo-- > 0) {
		const struct layout_run *r = &d->layout[lo];
		if (blk - r->start < r->len)
			return r;
		/* an earlier, longer run (an inode table) may still cover blk */
		if (blk - r->start >= d->longest_run)
			break;
	}
	return NULL;
}

static void layout_info(const struct fs_decode *d, const struct layout_run *r, blk64_t blk,
			struct fs_block_info *info)
{
	ext2_filsys fs = d->fs;

	info->kind = r->kind;
	info->group = r->group;
	info->backup = r->backup;
	info->reserved = r->reserved;
	if (r->kind == E4R_KIND_INODE_TABLE) {
		unsigned per_block = fs->blocksize / EXT2_INODE_SIZE(fs->super);
		uint64_t first = (uint64_t)r->group * fs->super->s_inodes_per_group +
				 (blk - r->start) * per_block + 1;
		uint64_t last = first + per_block - 1;
		uint64_t group_last = (uint64_t)(r->group + 1) * fs->super->s_inodes_per_group;

		info->ino_first = first;
		info->ino_last = last < group_last ? last : group_last;
	}
}

static int cmp_wanted(const void *a, const void *b)
{
	const struct wanted *x = a, *y = b;

	return x->blk < y->blk ? -1 : x->blk > y->blk;
}

/* Index of the first wanted block >= BLK. */
static size_t wanted_from(const struct fs_decode *d, blk64_t blk)
{
	return util_lower_bound(UTIL_SORTED(d->want, d->nwant, blk), blk);
}

/* Record INO as the owner of the wanted blocks in [START, START+LEN). */
static void claim(struct fs_decode *d, blk64_t start, blk64_t len, enum fs_block_kind kind,
		  ext2_ino_t ino, blk64_t lblk)
{
	size_t i;

	for (i = wanted_from(d, start); i < d->nwant && d->want[i].blk - start < len; i++) {
		struct wanted *w = &d->want[i];
		if (w->found)
			continue;	/* a block claimed twice (damage): the first owner wins */
		w->found = 1;
		w->info.kind = kind;
		w->info.inode = ino;
		if (kind == E4R_KIND_DATA || kind == E4R_KIND_DIRECTORY)
			w->info.lblk = lblk + (w->blk - start);
	}
}

static int over_budget(struct fs_decode *d)
{
	if (++d->steps <= DECODE_MAX_STEPS)
		return 0;
	d->partial = 1;
	return 1;
}

static void walk_extents(struct fs_decode *d, ext2_ino_t ino, struct ext2_inode *inode,
			 enum fs_block_kind data_kind)
{
	ext2_extent_handle_t h;
	struct ext2fs_extent ext;
	int op = EXT2_EXTENT_ROOT;

	if (ext2fs_extent_open2(d->fs, ino, inode, &h))
		return;		/* a damaged root: nothing to claim */
	while (!ext2fs_extent_get(h, op, &ext) && !over_budget(d)) {
		op = EXT2_EXTENT_NEXT;
		if (ext.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT)
			continue;
		if (!(ext.e_flags & EXT2_EXTENT_FLAGS_LEAF))
			claim(d, ext.e_pblk, 1, E4R_KIND_EXTENT_TREE, ino, 0);
		else if (ext.e_len)
			claim(d, ext.e_pblk, ext.e_len, data_kind, ino, ext.e_lblk);
	}
	ext2fs_extent_free(h);
}

struct map_walk {
	struct fs_decode	*d;
	ext2_ino_t		ino;
	enum fs_block_kind	data_kind;
};

static int map_block(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		     blk64_t ref_blk, int ref_offset, void *priv)
{
	struct map_walk *m = priv;

	(void)fs; (void)ref_blk; (void)ref_offset;
	if (over_budget(m->d))
		return BLOCK_ABORT;
	if (blockcnt < 0)
		claim(m->d, *blocknr, 1, E4R_KIND_INDIRECT, m->ino, 0);
	else
		claim(m->d, *blocknr, 1, m->data_kind, m->ino, blockcnt);
	return 0;
}

static void walk_inode(struct fs_decode *d, ext2_ino_t ino, struct ext2_inode *inode)
{
	enum fs_block_kind data_kind = LINUX_S_ISDIR(inode->i_mode) ? E4R_KIND_DIRECTORY : E4R_KIND_DATA;
	blk64_t acl = ext2fs_file_acl_block(d->fs, inode);

	if (acl)
		claim(d, acl, 1, E4R_KIND_XATTR, ino, 0);
	if (!ext2fs_inode_has_valid_blocks2(d->fs, inode))
		return;		/* inline data, fast symlink, device */
	if (inode->i_flags & EXT4_EXTENTS_FL) {
		walk_extents(d, ino, inode, data_kind);
	} else {
		struct map_walk m = { d, ino, data_kind };
		ext2fs_block_iterate3(d->fs, ino, BLOCK_FLAG_READ_ONLY, NULL, map_block, &m);
	}
}

static int inode_in_use(struct fs_decode *d, ext2_ino_t ino, const struct ext2_inode *inode)
{
	if (!inode->i_mode)
		return 0;
	if (d->have_inode_map)
		return ext2fs_test_inode_bitmap2(d->fs->inode_map, ino);
	return inode->i_links_count && !inode->i_dtime;
}

/* One pass over the inode table; only called when a wanted block is not layout metadata. */
static void inode_pass(struct fs_decode *d)
{
	ext2_inode_scan scan;
	struct ext2_inode *inode;
	ext2_ino_t ino;
	errcode_t err;
	int isize = EXT2_INODE_SIZE(d->fs->super);

	inode = malloc(isize);
	if (!inode || ext2fs_open_inode_scan(d->fs, 0, &scan)) {
		free(inode);
		d->partial = 1;
		return;
	}
	for (;;) {
		err = ext2fs_get_next_inode_full(scan, &ino, inode, isize);
		if (err == EXT2_ET_BAD_BLOCK_IN_INODE_TABLE)
			continue;
		if (err) {
			d->partial = 1;
			break;
		}
		if (!ino || over_budget(d))
			break;
		if (inode_in_use(d, ino, inode))
			walk_inode(d, ino, inode);
	}
	ext2fs_close_inode_scan(scan);
	free(inode);
}

static int needs_inode_pass(const struct fs_decode *d)
{
	size_t i;

	for (i = 0; i < d->nwant; i++)
		if (d->want[i].blk < ext2fs_blocks_count(d->fs->super) && !find_run(d, d->want[i].blk))
			return 1;
	return 0;
}

static void resolve(struct fs_decode *d)
{
	d->resolved = 1;
	qsort(d->want, d->nwant, sizeof(*d->want), cmp_wanted);
	/* Bitmaps that do not load (damage) only cost the "allocated" detail. */
	d->have_block_map = d->fs->block_map || !fs_read_block_bitmap(d->fs);
	if (needs_inode_pass(d)) {
		d->have_inode_map = d->fs->inode_map || !ext2fs_read_inode_bitmap(d->fs);
		inode_pass(d);
	}
}

errcode_t fs_decode_lookup(struct fs_decode *d, blk64_t blk, struct fs_block_info *info)
{
	const struct layout_run *r;
	size_t i;

	if (!d->resolved)
		resolve(d);
	memset(info, 0, sizeof(*info));
	info->allocated = -1;
	if (blk >= ext2fs_blocks_count(d->fs->super)) {
		info->kind = E4R_KIND_OUTSIDE;
		return 0;
	}
	/* the boot block of 1 KiB filesystems is before the bitmap's first block */
	if (d->have_block_map && blk >= d->fs->super->s_first_data_block)
		info->allocated = !!ext2fs_test_block_bitmap2(d->fs->block_map, blk);
	r = find_run(d, blk);
	if (r) {
		layout_info(d, r, blk, info);
		return 0;
	}
	i = wanted_from(d, blk);
	if (i < d->nwant && d->want[i].blk == blk && d->want[i].found) {
		int allocated = info->allocated;
		*info = d->want[i].info;
		info->allocated = allocated;
	}
	return 0;
}
