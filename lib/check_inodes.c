/* Checker pass 1: every inode through libext2fs's inode scan; block claims, extent trees, sizes. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check_ctx.h"

/* e2fsck gives up on an inode's map after this many illegal blocks. */
#define MAX_ILLEGAL_BLOCKS	12
#define PROGRESS_EVERY		4096
#define XATTR_MAGIC		0xEA020000

/* What one inode's walk over its blocks has seen so far. */
struct inode_walk {
	struct check_ctx	*c;
	ext2_ino_t		ino;
	struct ext2_inode_large	*inode;
	int			kind;
	int			dup_pass;	/* pass 1b: only look for blocks in c->dup */
	uint64_t		nblocks;	/* blocks (clusters with bigalloc) for i_blocks */
	int64_t			last_lblk;	/* highest mapped logical block, -1: none */
	int64_t			last_init_lblk;	/* same, initialized extents only */
	blk64_t			last_cluster;	/* bigalloc: blocks of one cluster count once */
	unsigned		illegal;
	int			bad;		/* broken: stop walking it */
	uint64_t		ndup;
	blk64_t			first_dup;
	uint64_t		nmeta;		/* claims on filesystem metadata */
	blk64_t			first_meta;
};

static int illegal_block(struct inode_walk *w, blk64_t blk, int64_t lblk, enum e4r_problem code)
{
	if (w->illegal < MAX_ILLEGAL_BLOCKS) {
		struct e4r_finding f = e4r_finding_init(code);
		f.ino = w->ino;
		f.blk = blk;
		f.expected = lblk < 0 ? E4R_NONE : (uint64_t)lblk;
		check_report(w->c, &f);
	}
	if (++w->illegal == MAX_ILLEGAL_BLOCKS) {
		check_report_ino(w->c, E4R_PR_TOO_MANY_BAD_BLOCKS, w->ino, E4R_NONE, E4R_NONE, E4R_NONE);
		w->bad = 1;
	}
	ext2fs_mark_inode_bitmap2(w->c->inode_bad, w->ino);
	return w->bad;
}

static int out_of_fs(ext2_filsys fs, blk64_t blk, blk64_t len)
{
	blk64_t first = fs->super->s_first_data_block, end = ext2fs_blocks_count(fs->super);

	return blk < first || blk >= end || len > end - blk;
}

static errcode_t add_dir_block(struct check_ctx *c, ext2_ino_t ino, blk64_t blk, int64_t lblk)
{
	if (c->ndblocks == c->dblocks_cap) {
		size_t cap = c->dblocks_cap ? c->dblocks_cap * 2 : 1024;
		struct check_dir_block *n = realloc(c->dblocks, cap * sizeof(*n));
		if (!n)
			return ENOMEM;
		c->dblocks = n;
		c->dblocks_cap = cap;
	}
	c->dblocks[c->ndblocks].ino = ino;
	c->dblocks[c->ndblocks].blk = blk;
	c->dblocks[c->ndblocks].lblk = (uint32_t)lblk;
	c->ndblocks++;
	return 0;
}

/* Directories stop at 2 GiB (2^21 KiB) unless the filesystem has largedir. */
static int64_t dir_max_blocks(ext2_filsys fs)
{
	if (ext2fs_has_feature_largedir(fs->super))
		return INT64_MAX;
	return (int64_t)1 << (21 - fs->super->s_log_block_size);
}

/* One block claimed by the inode: data (LBLK >= 0) or map metadata (LBLK < 0). */
static int claim_block(struct inode_walk *w, blk64_t blk, int64_t lblk)
{
	struct check_ctx *c = w->c;
	ext2_filsys fs = c->fs;

	if (out_of_fs(fs, blk, 1))
		return w->dup_pass ? 0 : illegal_block(w, blk, lblk, E4R_PR_BLOCK_ILLEGAL);
	if (!w->dup_pass && lblk >= 0) {
		if (w->kind == KIND_DIR && lblk >= dir_max_blocks(fs)) {
			check_report_ino(c, E4R_PR_DIR_TOO_BIG, w->ino, blk, lblk, E4R_NONE);
			ext2fs_mark_inode_bitmap2(c->inode_bad, w->ino);
			return w->bad = 1;
		}
		if (lblk > w->last_lblk)
			w->last_lblk = lblk;
		if (w->kind == KIND_DIR && add_dir_block(c, w->ino, blk, lblk))
			return w->bad = 1;
	}
	if (EXT2FS_CLUSTER_RATIO(fs) > 1) {
		blk64_t cl = EXT2FS_B2C(fs, blk);
		if (cl == w->last_cluster)
			return 0;
		w->last_cluster = cl;
	}
	if (w->dup_pass) {
		if (ext2fs_test_block_bitmap2(c->dup, blk) && w->ndup++ == 0)
			w->first_dup = blk;
		return 0;
	}
	w->nblocks++;
	if (!ext2fs_test_block_bitmap2(c->used, blk)) {
		ext2fs_mark_block_bitmap2(c->used, blk);
	} else if (ext2fs_test_block_bitmap2(c->meta, blk)) {
		if (w->nmeta++ == 0)
			w->first_meta = blk;
		ext2fs_mark_inode_bitmap2(c->inode_bad, w->ino);
	} else if (!ext2fs_has_feature_shared_blocks(fs->super)) {
		ext2fs_mark_block_bitmap2(c->dup, blk);
		c->have_dups = 1;
	}
	return 0;
}

/* A run of data blocks from an extent: whole when nothing in it is claimed yet. */
static int claim_range(struct inode_walk *w, blk64_t pblk, uint64_t lblk, uint64_t len)
{
	struct check_ctx *c = w->c;
	uint64_t i;

	if (!w->dup_pass && w->kind != KIND_DIR && EXT2FS_CLUSTER_RATIO(c->fs) == 1 &&
	    !out_of_fs(c->fs, pblk, len) && ext2fs_test_block_bitmap_range2(c->used, pblk, len)) {
		ext2fs_mark_block_bitmap_range2(c->used, pblk, len);
		w->nblocks += len;
		if ((int64_t)(lblk + len - 1) > w->last_lblk)
			w->last_lblk = lblk + len - 1;
		return 0;
	}
	if (w->dup_pass && !out_of_fs(c->fs, pblk, len) &&
	    ext2fs_test_block_bitmap_range2(c->dup, pblk, len))
		return 0;
	for (i = 0; i < len && !w->bad; i++)
		claim_block(w, pblk + i, lblk + i);
	return w->bad;
}

/* Read an extent tree node and verify its checksum (libext2fs ignores it for us). */
static void check_extent_node_csum(struct inode_walk *w, blk64_t blk, char *buf)
{
	ext2_filsys fs = w->c->fs;

	if (!ext2fs_has_feature_metadata_csum(fs->super) || out_of_fs(fs, blk, 1))
		return;
	if (io_channel_read_blk64(fs->io, blk, 1, buf))
		return;
	if (!ext2fs_extent_block_csum_verify(fs, w->ino, (struct ext3_extent_header *)buf))
		check_report_ino(w->c, E4R_PR_EXTENT_CSUM, w->ino, blk, E4R_NONE, E4R_NONE);
}

static void extent_problem(struct inode_walk *w, enum e4r_problem code, blk64_t blk,
			   uint64_t expected, uint64_t found)
{
	if (!w->dup_pass)
		check_report_ino(w->c, code, w->ino, blk, expected, found);
	ext2fs_mark_inode_bitmap2(w->c->inode_bad, w->ino);
}

static void walk_extents(struct inode_walk *w, char *buf)
{
	ext2_filsys fs = w->c->fs;
	ext2_extent_handle_t h;
	struct ext2fs_extent e;
	uint64_t next_lblk = 0, steps = 0, max_steps = ext2fs_blocks_count(fs->super) + 16;
	blk64_t node = E4R_NONE;
	int op = EXT2_EXTENT_ROOT;
	errcode_t err;

	err = ext2fs_extent_open2(fs, w->ino, (struct ext2_inode *)w->inode, &h);
	if (err) {
		extent_problem(w, E4R_PR_EXTENT_HEADER, E4R_NONE, E4R_NONE, E4R_NONE);
		w->bad = 1;
		return;
	}
	while (!w->bad && steps++ < max_steps) {
		err = ext2fs_extent_get(h, op, &e);
		op = EXT2_EXTENT_NEXT;
		if (err == EXT2_ET_EXTENT_NO_NEXT)
			break;
		if (err) {
			extent_problem(w, node == E4R_NONE ? E4R_PR_EXTENT_HEADER : E4R_PR_EXTENT_NODE,
				       node, E4R_NONE, E4R_NONE);
			w->bad = 1;
			break;
		}
		if (e.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT)
			continue;
		if (!(e.e_flags & EXT2_EXTENT_FLAGS_LEAF)) {
			node = e.e_pblk;
			if (out_of_fs(fs, e.e_pblk, 1)) {
				extent_problem(w, E4R_PR_EXTENT_BAD, e.e_pblk, e.e_lblk, e.e_len);
				w->bad = 1;
				break;
			}
			if (!w->dup_pass)
				check_extent_node_csum(w, e.e_pblk, buf);
			claim_block(w, e.e_pblk, -1);
			continue;
		}
		if (e.e_len == 0 || out_of_fs(fs, e.e_pblk, e.e_len)) {
			extent_problem(w, E4R_PR_EXTENT_BAD, e.e_pblk, e.e_lblk, e.e_len);
			continue;
		}
		if (e.e_lblk < next_lblk)
			extent_problem(w, E4R_PR_EXTENT_ORDER, e.e_pblk, next_lblk, e.e_lblk);
		next_lblk = e.e_lblk + e.e_len;
		claim_range(w, e.e_pblk, e.e_lblk, e.e_len);
		if (!(e.e_flags & EXT2_EXTENT_FLAGS_UNINIT) &&
		    (int64_t)(e.e_lblk + e.e_len - 1) > w->last_init_lblk)
			w->last_init_lblk = e.e_lblk + e.e_len - 1;
	}
	ext2fs_extent_free(h);
}

static int block_map_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
			blk64_t ref_blk, int ref_offset, void *priv)
{
	struct inode_walk *w = priv;

	(void)fs; (void)ref_blk; (void)ref_offset;
	if (claim_block(w, *blocknr, blockcnt))
		return BLOCK_ABORT;
	if (blockcnt >= 0 && blockcnt > w->last_init_lblk)
		w->last_init_lblk = blockcnt;
	return 0;
}

static void walk_block_map(struct inode_walk *w, char *buf)
{
	ext2_filsys fs = w->c->fs;
	struct ext2_inode *in = (struct ext2_inode *)w->inode;

	/* block_iterate3 reads the inode itself; an in-use inode on disk is what we scanned. */
	if (w->ino == EXT2_RESIZE_INO) {
		if (in->i_block[EXT2_DIND_BLOCK])
			claim_block(w, in->i_block[EXT2_DIND_BLOCK], -1);
		return;
	}
	ext2fs_block_iterate3(fs, w->ino, BLOCK_FLAG_READ_ONLY, buf, block_map_cb, w);
}

static void check_xattr_block(struct inode_walk *w, char *buf)
{
	struct check_ctx *c = w->c;
	ext2_filsys fs = c->fs;
	blk64_t blk = ext2fs_file_acl_block(fs, (struct ext2_inode *)w->inode);
	struct ext2_ext_attr_header *h = (struct ext2_ext_attr_header *)buf;

	if (!blk)
		return;
	if (w->dup_pass) {
		claim_block(w, blk, -1);
		return;
	}
	if (out_of_fs(fs, blk, 1)) {
		check_report_ino(c, E4R_PR_EA_BLOCK, w->ino, blk, E4R_NONE, E4R_NONE);
		ext2fs_mark_inode_bitmap2(c->inode_bad, w->ino);
		return;
	}
	if (ext2fs_test_block_bitmap2(c->ea, blk)) {	/* shared with an inode seen before */
		w->nblocks++;
		return;
	}
	if (io_channel_read_blk64(fs->io, blk, 1, buf) || h->h_magic != XATTR_MAGIC ||
	    h->h_blocks != 1 ||
	    (ext2fs_has_feature_metadata_csum(fs->super) &&
	     !ext2fs_ext_attr_block_csum_verify(fs, w->ino, blk, h))) {
		check_report_ino(c, E4R_PR_EA_BLOCK, w->ino, blk, E4R_NONE, E4R_NONE);
		ext2fs_mark_inode_bitmap2(c->inode_bad, w->ino);
		return;
	}
	if (!claim_block(w, blk, -1))
		ext2fs_mark_block_bitmap2(c->ea, blk);
}

/* Walk every block the inode claims: map, extent tree, xattr block. */
static void walk_blocks(struct inode_walk *w, char *buf)
{
	ext2_filsys fs = w->c->fs;
	struct ext2_inode *in = (struct ext2_inode *)w->inode;

	if (w->ino == EXT2_BAD_INO) {
		ext2fs_block_iterate3(fs, w->ino, BLOCK_FLAG_READ_ONLY, buf, block_map_cb, w);
		return;
	}
	if ((in->i_flags & EXT4_INLINE_DATA_FL) || !ext2fs_inode_has_valid_blocks2(fs, in)) {
		check_xattr_block(w, buf);
		return;
	}
	if (in->i_flags & EXT4_EXTENTS_FL)
		walk_extents(w, buf);
	else
		walk_block_map(w, buf);
	if (!w->bad)
		check_xattr_block(w, buf);
	if (w->nmeta) {
		struct e4r_finding f = e4r_finding_init(E4R_PR_BLOCK_METADATA);
		f.ino = w->ino;
		f.blk = w->first_meta;
		f.group = ext2fs_group_of_blk2(fs, w->first_meta);
		f.found = w->nmeta;
		check_report(w->c, &f);
	}
}

static int has_xattrs(ext2_filsys fs, const struct ext2_inode_large *in)
{
	unsigned isize = EXT2_INODE_SIZE(fs->super);
	uint32_t magic;

	if (ext2fs_file_acl_block(fs, (const struct ext2_inode *)in))
		return 1;
	if (isize <= EXT2_GOOD_OLD_INODE_SIZE ||
	    EXT2_GOOD_OLD_INODE_SIZE + in->i_extra_isize + sizeof(magic) > isize)
		return 0;
	memcpy(&magic, (const char *)in + EXT2_GOOD_OLD_INODE_SIZE + in->i_extra_isize, sizeof(magic));
	return magic == XATTR_MAGIC;
}

/* i_blocks as the inode counts it, in the units of its flags. */
static void check_i_blocks(struct inode_walk *w)
{
	ext2_filsys fs = w->c->fs;
	struct ext2_inode *in = (struct ext2_inode *)w->inode;
	uint64_t found = ext2fs_inode_i_blocks(fs, in);
	uint64_t want = w->nblocks * EXT2FS_CLUSTER_RATIO(fs);

	/* An xattr value in an EA inode is charged to its owner's i_blocks: not counted here. */
	if (ext2fs_has_feature_ea_inode(fs->super) && has_xattrs(fs, w->inode))
		return;
	if (!(ext2fs_has_feature_huge_file(fs->super) && (in->i_flags & EXT4_HUGE_FILE_FL)))
		want *= fs->blocksize / 512;
	if (found != want)
		check_report_ino(w->c, E4R_PR_I_BLOCKS, w->ino, E4R_NONE, want, found);
}

static void check_dir_size(struct inode_walk *w)
{
	struct check_ctx *c = w->c;
	ext2_filsys fs = c->fs;
	uint64_t size = EXT2_I_SIZE(w->inode), nblock = size / fs->blocksize;
	uint64_t have = (uint64_t)(w->last_lblk + 1);

	if (w->inode->i_flags & EXT4_INLINE_DATA_FL)
		return;
	if (w->last_lblk < 0) {
		check_report_ino(c, E4R_PR_DIR_NO_BLOCKS, w->ino, E4R_NONE, E4R_NONE, size);
		ext2fs_mark_inode_bitmap2(c->inode_bad, w->ino);
		return;
	}
	if ((size & (fs->blocksize - 1)) || nblock > have ||
	    (nblock < have && have - nblock > fs->super->s_prealloc_dir_blocks))
		check_report_ino(c, E4R_PR_I_SIZE, w->ino, E4R_NONE, have * fs->blocksize, size);
}

static void check_file_size(struct inode_walk *w)
{
	ext2_filsys fs = w->c->fs;
	uint64_t size = EXT2_I_SIZE(w->inode);

	if (w->inode->i_flags & (EXT4_INLINE_DATA_FL | EXT4_VERITY_FL))
		return;
	if (w->last_init_lblk >= 0 && size < (uint64_t)w->last_init_lblk * fs->blocksize)
		check_report_ino(w->c, E4R_PR_I_SIZE, w->ino, E4R_NONE,
				 (uint64_t)(w->last_init_lblk + 1) * fs->blocksize, size);
}

/* A symlink's target must be as long as its size says, fast (in i_block) or in one block. */
static int symlink_ok(struct inode_walk *w, char *buf)
{
	ext2_filsys fs = w->c->fs;
	struct ext2_inode *in = (struct ext2_inode *)w->inode;
	uint64_t size = EXT2_I_SIZE(w->inode);
	blk64_t blk;

	if (in->i_flags & EXT4_INLINE_DATA_FL)
		return 1;
	if (size == 0)
		return 0;
	if (!ext2fs_inode_has_valid_blocks2(fs, in)) {	/* fast symlink */
		if (size >= sizeof(in->i_block) || (in->i_flags & EXT4_EXTENTS_FL))
			return 0;
		return strnlen((const char *)in->i_block, sizeof(in->i_block)) == size;
	}
	if (size >= fs->blocksize || w->last_lblk != 0)
		return 0;
	if (in->i_flags & EXT4_EXTENTS_FL) {
		if (ext2fs_bmap2(fs, w->ino, in, NULL, 0, 0, NULL, &blk) || !blk)
			return 0;
	} else {
		blk = in->i_block[0];
	}
	if (out_of_fs(fs, blk, 1) || io_channel_read_blk64(fs->io, blk, 1, buf))
		return 0;
	return strnlen(buf, fs->blocksize) == size;
}

static errcode_t add_dir(struct check_ctx *c, ext2_ino_t ino)
{
	if (c->ndirs == c->dirs_cap) {
		size_t cap = c->dirs_cap ? c->dirs_cap * 2 : 256;
		struct check_dir *n = realloc(c->dirs, cap * sizeof(*n));
		if (!n)
			return ENOMEM;
		c->dirs = n;
		c->dirs_cap = cap;
	}
	c->dirs[c->ndirs].ino = ino;
	c->dirs[c->ndirs].dotdot = 0;
	c->dirs[c->ndirs].parent = 0;
	c->ndirs++;
	return 0;
}

/* Flags and mode problems that decide whether the inode's blocks can be walked. */
static int check_flags(struct inode_walk *w)
{
	struct check_ctx *c = w->c;
	ext2_filsys fs = c->fs;
	struct ext2_inode *in = (struct ext2_inode *)w->inode;
	int special = w->kind >= KIND_CHR && w->kind <= KIND_SOCK;

	if ((in->i_flags & EXT4_EXTENTS_FL) && !ext2fs_has_feature_extents(fs->super)) {
		check_report_ino(c, E4R_PR_EXTENTS_NO_FEATURE, w->ino, E4R_NONE, E4R_NONE, E4R_NONE);
		return 0;
	}
	if ((in->i_flags & EXT4_INLINE_DATA_FL) && !ext2fs_has_feature_inline_data(fs->super)) {
		check_report_ino(c, E4R_PR_INLINE_DATA, w->ino, E4R_NONE, E4R_NONE, E4R_NONE);
		return 0;
	}
	if (special && (in->i_flags & (EXT2_INDEX_FL | EXT4_EXTENTS_FL))) {
		check_report_ino(c, E4R_PR_SPECIAL_FILE, w->ino, E4R_NONE, E4R_NONE, E4R_NONE);
		return 0;
	}
	if (w->kind == KIND_DIR && (in->i_flags & EXT2_INDEX_FL) &&
	    !ext2fs_has_feature_dir_index(fs->super)) {
		struct e4r_finding f = e4r_finding_init(E4R_PR_HTREE_NO_FEATURE);
		f.dir = w->ino;
		check_report(c, &f);
	}
	return 1;
}

/* Timestamps before this many seconds after 1970 mean the clock was not set (e2fsck's rule). */
static int orphan_dtime_usable(ext2_filsys fs)
{
	struct ext2_super_block *sb = fs->super;

	return !((sb->s_wtime && sb->s_wtime < sb->s_inodes_count) ||
		 (sb->s_mtime && sb->s_mtime < sb->s_inodes_count) ||
		 (sb->s_mkfs_time && sb->s_mkfs_time < sb->s_inodes_count));
}

/* Returns 1 when the inode is in use. */
static int check_use(struct check_ctx *c, ext2_ino_t ino, struct ext2_inode_large *in, int low_dtime)
{
	if (ino < c->first_ino && ino != EXT2_ROOT_INO)
		return 1;	/* reserved inodes are always in use */
	if (in->i_dtime && low_dtime && in->i_dtime < c->inodes)
		check_report_ino(c, E4R_PR_ORPHAN_LIST, ino, E4R_NONE, E4R_NONE, in->i_dtime);
	if (!in->i_links_count) {
		if (ino >= c->first_ino && !in->i_dtime && in->i_mode)
			check_report_ino(c, E4R_PR_INODE_ZERO_DTIME, ino, E4R_NONE, E4R_NONE, E4R_NONE);
		return 0;
	}
	if (in->i_dtime)
		check_report_ino(c, E4R_PR_INODE_DTIME_SET, ino, E4R_NONE, E4R_NONE, in->i_dtime);
	return 1;
}

static int reserved_walks(struct check_ctx *c, ext2_ino_t ino, struct ext2_inode_large *in,
			  int report)
{
	struct ext2_super_block *sb = c->fs->super;

	if (ino == EXT2_BAD_INO || ino == EXT2_RESIZE_INO)
		return 1;
	if (ino == sb->s_journal_inum || ino == EXT2_BOOT_LOADER_INO ||
	    ino == sb->s_usr_quota_inum || ino == sb->s_grp_quota_inum ||
	    ino == sb->s_prj_quota_inum)
		return LINUX_S_ISREG(in->i_mode) || in->i_mode == 0;
	if (in->i_mode != 0) {
		if (report)
			check_report_ino(c, E4R_PR_RESERVED_MODE, ino, E4R_NONE, E4R_NONE, in->i_mode);
		return 0;
	}
	return 1;
}

static void check_one_inode(struct check_ctx *c, ext2_ino_t ino, struct ext2_inode_large *in,
			    char *buf, int low_dtime)
{
	struct inode_walk w = { .c = c, .ino = ino, .inode = in, .last_lblk = -1,
				.last_init_lblk = -1, .last_cluster = E4R_NONE };
	int reserved = ino < c->first_ino && ino != EXT2_ROOT_INO;

	if (ext2fs_has_feature_metadata_csum(c->fs->super) &&
	    !ext2fs_inode_csum_verify(c->fs, ino, in))
		check_report_ino(c, E4R_PR_INODE_CSUM, ino, E4R_NONE, E4R_NONE, E4R_NONE);
	if (ino == EXT2_ROOT_INO && in->i_mode && !LINUX_S_ISDIR(in->i_mode) && in->i_links_count)
		check_report_ino(c, E4R_PR_ROOT_NOT_DIR, ino, E4R_NONE, E4R_NONE, in->i_mode);
	if (!check_use(c, ino, in, low_dtime))
		return;
	ext2fs_mark_inode_bitmap2(c->inode_used, ino);
	c->links_disk[ino] = in->i_links_count;
	if (in->i_flags & EXT4_EA_INODE_FL)
		ext2fs_mark_inode_bitmap2(c->inode_ea, ino);
	if (reserved) {
		c->kind[ino] = KIND_REG;
		if (reserved_walks(c, ino, in, 1))
			walk_blocks(&w, buf);
		return;
	}
	w.kind = check_inode_kind(in->i_mode);
	c->kind[ino] = w.kind;
	if (w.kind == KIND_BAD) {
		check_report_ino(c, E4R_PR_INODE_BAD_MODE, ino, E4R_NONE, E4R_NONE, in->i_mode);
		ext2fs_mark_inode_bitmap2(c->inode_bad, ino);
		return;
	}
	if (w.kind == KIND_DIR && add_dir(c, ino))
		return;
	if (!check_flags(&w)) {
		ext2fs_mark_inode_bitmap2(c->inode_bad, ino);
		return;
	}
	walk_blocks(&w, buf);
	if (w.bad)
		return;
	check_i_blocks(&w);
	if (w.kind == KIND_DIR)
		check_dir_size(&w);
	else if (w.kind == KIND_REG)
		check_file_size(&w);
	else if (w.kind == KIND_LNK && !symlink_ok(&w, buf)) {
		check_report_ino(c, E4R_PR_FAST_SYMLINK, ino, E4R_NONE, E4R_NONE, EXT2_I_SIZE(in));
		ext2fs_mark_inode_bitmap2(c->inode_bad, ino);
	}
}

static void count_kind(struct e4r_check_result *r, int kind)
{
	switch (kind) {
	case KIND_DIR: r->dirs++; break;
	case KIND_REG: r->regular++; break;
	case KIND_LNK: r->symlinks++; break;
	case KIND_NONE: break;
	default: r->other_files++; break;
	}
}

/* Run FN over every inode the scan returns; stops at a scan error. */
static errcode_t scan_inodes(struct check_ctx *c, int pass,
			     void (*fn)(struct check_ctx *, ext2_ino_t, struct ext2_inode_large *,
					char *, int))
{
	ext2_filsys fs = c->fs;
	int isize = EXT2_INODE_SIZE(fs->super), low_dtime = orphan_dtime_usable(fs);
	struct ext2_inode_large *in = NULL;
	ext2_inode_scan scan = NULL;
	ext2_ino_t ino = 0;
	char *buf = NULL;
	errcode_t err;

	in = calloc(1, isize < (int)sizeof(*in) ? sizeof(*in) : (size_t)isize);
	buf = malloc(fs->blocksize * 4);
	if (!in || !buf) {
		err = ENOMEM;
		goto out;
	}
	err = ext2fs_open_inode_scan(fs, 0, &scan);
	if (err)
		goto out;
	for (;;) {
		err = ext2fs_get_next_inode_full(scan, &ino, (struct ext2_inode *)in, isize);
		if (err == EXT2_ET_BAD_BLOCK_IN_INODE_TABLE)
			continue;
		if (err) {
			dgrp_t g = ino ? ext2fs_group_of_ino(fs, ino) : 0;
			check_report_group(c, E4R_PR_INODE_SCAN, g, ext2fs_inode_table_loc(fs, g),
					   E4R_NONE, E4R_NONE);
			break;
		}
		if (!ino)
			break;
		if (ino > c->inodes)
			break;
		fn(c, ino, in, buf, low_dtime);
		if (ino % PROGRESS_EVERY == 0)
			check_progress(c, pass, ino, c->inodes);
	}
out:
	if (scan)
		ext2fs_close_inode_scan(scan);
	free(in);
	free(buf);
	return err;
}

errcode_t check_inodes(struct check_ctx *c)
{
	ext2_filsys fs = c->fs;
	errcode_t err;
	ext2_ino_t ino;

	/* Every block starts claimed by the metadata, then the inodes add theirs. */
	ext2fs_free_block_bitmap(c->used);
	c->used = NULL;
	err = ext2fs_copy_bitmap(c->meta, &c->used);
	if (err)
		return err;
	check_progress(c, E4R_PASS_INODES, 0, c->inodes);
	err = scan_inodes(c, E4R_PASS_INODES, check_one_inode);
	check_progress(c, E4R_PASS_INODES, c->inodes, c->inodes);
	for (ino = 1; ino <= c->inodes; ino++)
		if (ino >= c->first_ino || ino == EXT2_ROOT_INO)
			count_kind(c->res, c->kind[ino]);
	(void)fs;
	return err == ENOMEM ? err : 0;
}

static void find_dups_in_inode(struct check_ctx *c, ext2_ino_t ino, struct ext2_inode_large *in,
			       char *buf, int low_dtime)
{
	struct inode_walk w = { .c = c, .ino = ino, .inode = in, .dup_pass = 1,
				.last_lblk = -1, .last_init_lblk = -1, .last_cluster = E4R_NONE };

	(void)low_dtime;
	if (!ext2fs_test_inode_bitmap2(c->inode_used, ino))
		return;
	if (ino < c->first_ino && ino != EXT2_ROOT_INO && !reserved_walks(c, ino, in, 0))
		return;
	if (c->kind[ino] == KIND_BAD)
		return;
	walk_blocks(&w, buf);
	if (w.ndup)
		check_report_ino(c, E4R_PR_BLOCK_DUP, ino, w.first_dup, E4R_NONE, w.ndup);
}

/* Pass 1b: name every inode that claims a multiply-claimed block (only when there are some). */
errcode_t check_dups(struct check_ctx *c)
{
	if (!c->have_dups)
		return 0;
	return scan_inodes(c, E4R_PASS_INODES, find_dups_in_inode);
}
