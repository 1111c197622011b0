/*
 * Checker pass 1: the blocks an inode claims, against the filesystem's bounds, its metadata and other claims.
 *
 * Fills in c->used, c->dup and c->have_dups, c->ea, c->dblocks (every directory
 * block, for pass 2), and marks c->inode_bad.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/ctx.h"
#include "check/csum.h"
#include "util/array.h"
#include "util/nomem.h"

/* e2fsck gives up on an inode's map after this many illegal blocks. */
#define MAX_ILLEGAL_BLOCKS	12
#define XATTR_MAGIC		0xEA020000

static int illegal_block(struct check_inode_walk *w, blk64_t blk, int64_t lblk, enum check_problem code)
{
	if (w->illegal < MAX_ILLEGAL_BLOCKS) {
		struct check_finding f = check_finding_init(code);
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

int check_out_of_fs(ext2_filsys fs, blk64_t blk, blk64_t len)
{
	blk64_t first = fs->super->s_first_data_block, end = ext2fs_blocks_count(fs->super);

	return blk < first || blk >= end || len > end - blk;
}

int check_extent_start_bad(ext2_filsys fs, blk64_t blk, blk64_t len)
{
	return blk == 0 || check_out_of_fs(fs, blk, len);
}

static errcode_t add_dir_block(struct check_ctx *c, ext2_ino_t ino, blk64_t blk, int64_t lblk)
{
	if (util_grow_from((void **)&c->dblocks, &c->dblocks_cap, c->ndblocks + 1, sizeof(*c->dblocks), 1024))
		return ENOMEM;
	c->dblocks[c->ndblocks].ino = ino;
	c->dblocks[c->ndblocks].blk = blk;
	c->dblocks[c->ndblocks].lblk = (uint32_t)lblk;
	c->ndblocks++;
	return 0;
}

/*
 * Directories stop at 2 GiB (2^21 KiB) unless the filesystem has largedir;
 * e2fsck leaves one whose size has high bits to its size checks. Its
 * counts differ by map: an extent may end at the limit, a block map may
 * hold the block at it (blockcnt > limit is too big).
 */
uint64_t check_dir_limit(ext2_filsys fs, const struct ext2_inode *in)
{
	if (ext2fs_has_feature_largedir(fs->super) || in->i_size_high)
		return UINT64_MAX;
	return (uint64_t)1 << (21 - fs->super->s_log_block_size);
}

/*
 * Bigalloc maps a logical cluster onto one physical cluster, offsets kept:
 * a block at another offset of its cluster than its logical block, or in
 * another physical cluster than the block before it of the same logical
 * cluster, breaks that (e2fsck's cluster allocation rules).
 */
static int misaligned(struct check_inode_walk *w, blk64_t pblk, int64_t lblk)
{
	ext2_filsys fs = w->c->fs;
	blk64_t mask = EXT2FS_CLUSTER_MASK(fs);
	int bad = ((blk64_t)lblk & mask) != (pblk & mask);

	if (!bad && w->prev_pblk && ((blk64_t)lblk & mask) &&
	    EXT2FS_B2C(fs, (blk64_t)lblk) == EXT2FS_B2C(fs, (blk64_t)w->prev_lblk) &&
	    EXT2FS_B2C(fs, pblk) != EXT2FS_B2C(fs, w->prev_pblk))
		bad = 1;
	w->prev_pblk = pblk;
	w->prev_lblk = lblk;
	return bad;
}

/* One block claimed by the inode: data (LBLK >= 0) or map metadata (LBLK < 0). */
static int claim_block(struct check_inode_walk *w, blk64_t blk, int64_t lblk)
{
	struct check_ctx *c = w->c;
	ext2_filsys fs = c->fs;

	if (check_out_of_fs(fs, blk, 1))
		return w->dup_pass ? 0 : illegal_block(w, blk, lblk, E4R_PR_BLOCK_ILLEGAL);
	/*
	 * The bad blocks list's own indirect blocks come before the blocks they
	 * list: one that is metadata, or a block the list names before it, is
	 * what e2fsck takes out of the map (with what it lists).
	 */
	if (w->ino == EXT2_BAD_INO && lblk < 0 && !w->dup_pass) {
		enum check_problem code = ext2fs_test_block_bitmap2(c->meta, blk) ? E4R_PR_BB_INDIRECT_METADATA :
					  ext2fs_test_block_bitmap2(c->used, blk) ? E4R_PR_BB_INDIRECT_LISTED :
					  E4R_PR_COUNT;
		if (code != E4R_PR_COUNT) {
			check_report_ino(c, code, w->ino, blk, E4R_NONE, E4R_NONE);
			return 0;
		}
	}
	/*
	 * A block-mapped symlink's target is its block 0: e2fsck drops any
	 * other data block (too big) without counting it, and judges the link
	 * on what is left. Its indirect blocks stay, and condemn it.
	 */
	if (w->kind == KIND_LNK && lblk > 0 && !w->dup_pass &&
	    !(((struct ext2_inode *)w->inode)->i_flags & EXT4_EXTENTS_FL))
		return illegal_block(w, blk, lblk, E4R_PR_SYMLINK_TOO_BIG);
	if (!w->dup_pass && lblk >= 0) {
		/*
		 * Block maps only: an extent past the limit is dropped whole
		 * before its blocks come here. e2fsck drops the block and keeps
		 * the directory (counted as an illegal block).
		 */
		if (w->kind == KIND_DIR &&
		    (uint64_t)lblk > check_dir_limit(fs, (const struct ext2_inode *)w->inode))
			return illegal_block(w, blk, lblk, E4R_PR_DIR_TOO_BIG);
		if (lblk > w->last_lblk)
			w->last_lblk = lblk;
		/*
		 * A directory block that is filesystem metadata is not read as
		 * entries: its repair takes it out of the map (block_metadata),
		 * and mending entries there would write over the metadata.
		 */
		if (w->kind == KIND_DIR && !ext2fs_test_block_bitmap2(c->meta, blk) &&
		    add_dir_block(c, w->ino, blk, lblk)) {
			/* the walk stops for lack of memory: the run ends, the inode is not bad */
			check_fatal(c, ENOMEM);
			return w->bad = 1;
		}
	}
	if (EXT2FS_CLUSTER_RATIO(fs) > 1 && lblk >= 0 && !w->dup_pass && misaligned(w, blk, lblk)) {
		/* like e2fsck: reported, then claimed twice so that pass 1b deals with it */
		check_report_ino(c, E4R_PR_CLUSTER_MISALIGNED, w->ino, blk, E4R_NONE, lblk);
		ext2fs_mark_block_bitmap2(c->used, blk);
		ext2fs_mark_block_bitmap2(c->dup, blk);
		c->have_dups = 1;
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
static int claim_range(struct check_inode_walk *w, blk64_t pblk, uint64_t lblk, uint64_t len)
{
	struct check_ctx *c = w->c;
	uint64_t i;

	if (!w->dup_pass && w->kind != KIND_DIR && EXT2FS_CLUSTER_RATIO(c->fs) == 1 &&
	    !check_out_of_fs(c->fs, pblk, len) && ext2fs_test_block_bitmap_range2(c->used, pblk, len)) {
		ext2fs_mark_block_bitmap_range2(c->used, pblk, len);
		w->nblocks += len;
		if ((int64_t)(lblk + len - 1) > w->last_lblk)
			w->last_lblk = lblk + len - 1;
		return 0;
	}
	if (w->dup_pass && !check_out_of_fs(c->fs, pblk, len) &&
	    ext2fs_test_block_bitmap_range2(c->dup, pblk, len))
		return 0;
	for (i = 0; i < len && !w->bad; i++)
		claim_block(w, pblk + i, lblk + i);
	return w->bad;
}

/* Read an extent tree node and verify its checksum (libext2fs ignores it for us). */
static void check_extent_node_csum(struct check_inode_walk *w, blk64_t blk, char *buf)
{
	ext2_filsys fs = w->c->fs;
	struct ext3_extent_header *eh;

	if (!ext2fs_has_feature_metadata_csum(fs->super) || check_out_of_fs(fs, blk, 1))
		return;
	if (io_channel_read_blk64(fs->io, blk, 1, buf))
		return;
	/*
	 * libext2fs finds the checksum after eh_max entries without bounding
	 * it: a garbage eh_max reads past the block. Such a node fails as a
	 * header (the walk reports it); only a sound header has a checksum.
	 */
	eh = (struct ext3_extent_header *)buf;
	if (ext2fs_le16_to_cpu(eh->eh_magic) != EXT3_EXT_MAGIC ||
	    ext2fs_le16_to_cpu(eh->eh_max) > (fs->blocksize - sizeof(*eh)) / sizeof(struct ext3_extent))
		return;
	if (!check_extent_block_csum_ok(fs, w->ino, (const struct ext2_inode *)w->inode, buf))
		check_report_ino(w->c, E4R_PR_EXTENT_CSUM, w->ino, blk, E4R_NONE, E4R_NONE);
}

static void extent_problem(struct check_inode_walk *w, enum check_problem code, blk64_t blk,
			   uint64_t expected, uint64_t found)
{
	if (!w->dup_pass)
		check_report_ino(w->c, code, w->ino, blk, expected, found);
	ext2fs_mark_inode_bitmap2(w->c->inode_bad, w->ino);
}

/*
 * Take back the claim on an unreadable extent node (claimed when its index
 * entry was read): the prune frees it. A block claimed twice keeps its
 * duplicate mark; a cluster (bigalloc) may hold other blocks: kept.
 */
static void unclaim_node(struct check_inode_walk *w, blk64_t blk)
{
	struct check_ctx *c = w->c;

	if (w->dup_pass || EXT2FS_CLUSTER_RATIO(c->fs) > 1 || check_out_of_fs(c->fs, blk, 1) ||
	    ext2fs_test_block_bitmap2(c->dup, blk) || ext2fs_test_block_bitmap2(c->meta, blk))
		return;
	ext2fs_unmark_block_bitmap2(c->used, blk);
	if (w->nblocks)
		w->nblocks--;
}

void check_extent_bounds_init(struct check_extent_bounds *b, ext2_filsys fs, const struct ext2_inode *in)
{
	int i;

	for (i = 0; i < CHECK_EXTENT_LEVELS; i++)
		b->end[i] = UINT64_MAX;
	/* as e2fsck computes it: a size of 0 gives the largest block number */
	b->eof = ((EXT2_I_SIZE(in) + fs->blocksize - 1) >> EXT2_BLOCK_SIZE_BITS(fs->super)) - 1;
	b->verity = !!(in->i_flags & EXT4_VERITY_FL);
}

int check_extent_bounds_step(struct check_extent_bounds *b, ext2_extent_handle_t h,
			     const struct ext2fs_extent *e)
{
	struct ext2_extent_info info;
	uint64_t last = e->e_lblk + (uint64_t)e->e_len - 1;
	int level;

	if (ext2fs_extent_get_info(h, &info) || info.curr_level < 0 ||
	    info.curr_level + 1 >= CHECK_EXTENT_LEVELS)
		return 0;
	level = info.curr_level;
	if (!(e->e_flags & EXT2_EXTENT_FLAGS_LEAF)) {
		b->end[level + 1] = info.curr_entry < info.num_entries ? last : b->end[level];
		return 0;
	}
	if (!e->e_len || b->end[level] == UINT64_MAX || last <= b->end[level])
		return 0;
	return !(last > b->eof && ((e->e_flags & EXT2_EXTENT_FLAGS_UNINIT) || b->verity));
}

static int repairing(const struct check_ctx *c)
{
	return c->opts && c->opts->repair != E4R_REPAIR_NONE;
}

/*
 * A gap in an extent-mapped directory's logical blocks (the extent E starts
 * past NEXT, where the one before it ended): when repairing, the extent
 * moves down to close it, as e2fsck -y does in its pass 1, rather than each
 * missing block being filled with an empty one (thousands after a flipped
 * high bit). A read-only check says nothing here (e2fsck -n neither): pass 2
 * reports the hole. Under bigalloc the new start keeps the extent's offset
 * in its cluster. The rest of the walk sees the extent where it will be.
 */
/*
 * The same move offered in an earlier round and declined (asking): the
 * directory is judged as it stays, as e2fsck goes on after a "no".
 */
static int gap_declined(const struct check_ctx *c, ext2_ino_t ino, const struct ext2fs_extent *e)
{
	const struct check_result *r = c->res;
	size_t i;

	for (i = 0; i < r->round_first; i++) {
		const struct check_finding *f = &r->findings[i];

		if (f->code == E4R_PR_DIR_EXTENT_GAP && f->declined && f->ino == ino &&
		    f->blk == e->e_pblk && f->found == e->e_lblk)
			return 1;
	}
	return 0;
}

static uint32_t collapse_gap(struct check_inode_walk *w, const struct ext2fs_extent *e,
			     uint64_t next)
{
	ext2_filsys fs = w->c->fs;
	uint64_t to = next;

	if (gap_declined(w->c, w->ino, e))
		return e->e_lblk;

	if (EXT2FS_CLUSTER_RATIO(fs) > 1)
		to = ((to + EXT2FS_CLUSTER_RATIO(fs) - 1) & ~(uint64_t)EXT2FS_CLUSTER_MASK(fs)) |
		     (e->e_pblk & EXT2FS_CLUSTER_MASK(fs));
	if (to >= e->e_lblk)
		return e->e_lblk;
	if (!w->dup_pass)
		check_report_ino(w->c, E4R_PR_DIR_EXTENT_GAP, w->ino, e->e_pblk, to, e->e_lblk);
	return (uint32_t)to;
}

/*
 * The root in i_block holds no entry, and libext2fs would take its header
 * (ext2fs_extent_header_verify's bounds for the 60 bytes of i_block, depth
 * 0): the tree maps nothing, and walking it would find nothing. Every
 * empty file has this root; opening a libext2fs handle for each (two
 * allocations) was a large part of pass 1 on a filesystem of many.
 */
static int empty_extent_root(const struct ext2_inode *in)
{
	const struct ext3_extent_header *eh = (const struct ext3_extent_header *)in->i_block;
	unsigned max = ext2fs_le16_to_cpu(eh->eh_max), room;

	room = (sizeof(in->i_block) - sizeof(*eh)) / sizeof(struct ext3_extent);
	return ext2fs_le16_to_cpu(eh->eh_magic) == EXT3_EXT_MAGIC && eh->eh_entries == 0 &&
	       eh->eh_depth == 0 && max <= room && max + 2 >= room;
}

static void walk_extents(struct check_inode_walk *w, char *buf)
{
	ext2_filsys fs = w->c->fs;
	ext2_extent_handle_t h;
	struct ext2fs_extent e;
	struct ext2_extent_info info;
	uint64_t next_lblk = 0, steps = 0, max_steps = ext2fs_blocks_count(fs->super) + 16;
	blk64_t node = E4R_NONE, down_to = E4R_NONE;	/* DOWN_TO: the child the next step enters */
	int64_t want_first = -1;	/* after an index entry: the start its child must begin at */
	int op = EXT2_EXTENT_ROOT, past;
	struct check_extent_bounds bounds;
	errcode_t err;

	if (empty_extent_root((struct ext2_inode *)w->inode))
		return;
	/*
	 * ext2fs_extent_open2 takes an i_block of zeros for a new empty
	 * tree and writes a header into its copy: a zeroed root would read
	 * as an empty file. e2fsck verifies the header itself first (and
	 * offers to clear the inode), so the header is judged here as it is.
	 */
	if (ext2fs_extent_header_verify(w->inode->i_block, sizeof(w->inode->i_block))) {
		extent_problem(w, E4R_PR_EXTENT_HEADER, E4R_NONE, E4R_NONE, E4R_NONE);
		w->bad = 1;
		return;
	}
	check_extent_bounds_init(&bounds, fs, (struct ext2_inode *)w->inode);
	err = ext2fs_extent_open2(fs, w->ino, (struct ext2_inode *)w->inode, &h);
	/* libext2fs's handle and its node buffers are allocations: their failure is no bad tree */
	if (util_no_memory(err)) {
		check_fatal(w->c, err);
		w->bad = 1;
		return;
	}
	if (err) {
		extent_problem(w, E4R_PR_EXTENT_HEADER, E4R_NONE, E4R_NONE, E4R_NONE);
		w->bad = 1;
		return;
	}
	/*
	 * A root that claims more levels than any tree of this block size can
	 * need (the kernel stops at 5): e2fsck offers to rebuild the tree, a
	 * warning under -n, and reads it all the same.
	 */
	if (!ext2fs_extent_get_info(h, &info) && info.max_depth > ext2fs_max_extent_depth(h) &&
	    !w->dup_pass)
		check_report_ino(w->c, E4R_PR_EXTENT_TOO_DEEP, w->ino, E4R_NONE,
				 ext2fs_max_extent_depth(h), info.max_depth);
	while (!w->bad && steps++ < max_steps) {
		err = ext2fs_extent_get(h, op, &e);
		op = EXT2_EXTENT_NEXT;
		if (err == EXT2_ET_EXTENT_NO_NEXT)
			break;
		if (util_no_memory(err)) {
			check_fatal(w->c, err);
			w->bad = 1;
			break;
		}
		if (err && node != E4R_NONE && node == down_to) {
			/*
			 * A child node that cannot be read: the repair prunes that
			 * subtree alone (as e2fsck removes the index entry), so the
			 * walk goes on with the node's siblings, whose blocks stay
			 * claimed. The node itself goes with the prune.
			 */
			extent_problem(w, E4R_PR_EXTENT_NODE, node, E4R_NONE, E4R_NONE);
			unclaim_node(w, node);
			down_to = E4R_NONE;
			continue;
		}
		if (err) {
			extent_problem(w, node == E4R_NONE ? E4R_PR_EXTENT_HEADER : E4R_PR_EXTENT_NODE,
				       node, E4R_NONE, E4R_NONE);
			w->bad = 1;
			break;
		}
		down_to = E4R_NONE;
		if (e.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT)
			continue;
		/* an index entry's start is its child's first start (e2fsck's rule) */
		if (want_first >= 0 && (int64_t)e.e_lblk != want_first && !w->dup_pass)
			check_report_ino(w->c, E4R_PR_EXTENT_INDEX_START, w->ino, node, e.e_lblk,
					 (uint64_t)want_first);
		want_first = -1;
		past = check_extent_bounds_step(&bounds, h, &e);
		if (!(e.e_flags & EXT2_EXTENT_FLAGS_LEAF)) {
			want_first = e.e_lblk;
			node = e.e_pblk;
			if (check_extent_start_bad(fs, e.e_pblk, 1)) {
				extent_problem(w, E4R_PR_EXTENT_BAD, e.e_pblk, e.e_lblk, e.e_len);
				w->bad = 1;
				break;
			}
			if (!w->dup_pass)
				check_extent_node_csum(w, e.e_pblk, buf);
			claim_block(w, e.e_pblk, -1);
			down_to = e.e_pblk;
			continue;
		}
		/* e2fsck drops it without counting it as the one before the next (nor its blocks) */
		if (e.e_len == 0 || check_extent_start_bad(fs, e.e_pblk, e.e_len)) {
			extent_problem(w, E4R_PR_EXTENT_BAD, e.e_pblk, e.e_lblk, e.e_len);
			continue;
		}
		/* past its parent's end (and in order): e2fsck drops it; here not claimed */
		if (past && e.e_lblk >= next_lblk) {
			extent_problem(w, E4R_PR_EXTENT_BAD, e.e_pblk, e.e_lblk, e.e_len);
			continue;
		}
		/*
		 * A directory's extent ending past the limit: e2fsck deletes the
		 * extent (before it would close a gap) and keeps the directory.
		 */
		if (w->kind == KIND_DIR && e.e_lblk >= next_lblk && !w->dup_pass &&
		    (uint64_t)e.e_lblk + e.e_len > check_dir_limit(fs, (const struct ext2_inode *)w->inode)) {
			check_report_ino(w->c, E4R_PR_DIR_TOO_BIG, w->ino, e.e_pblk, e.e_lblk, E4R_NONE);
			ext2fs_mark_inode_bitmap2(w->c->inode_bad, w->ino);
			continue;
		}
		if (e.e_lblk < next_lblk)
			extent_problem(w, E4R_PR_EXTENT_ORDER, e.e_pblk, next_lblk, e.e_lblk);
		else if (w->kind == KIND_DIR && e.e_lblk > next_lblk && repairing(w->c))
			e.e_lblk = collapse_gap(w, &e, next_lblk);
		/* a directory's blocks are always read: none may be uninitialized */
		if (w->kind == KIND_DIR && (e.e_flags & EXT2_EXTENT_FLAGS_UNINIT) && !w->dup_pass &&
		    !w->uninit_reported++)
			check_report_ino(w->c, E4R_PR_DIR_UNINIT_EXTENT, w->ino, e.e_pblk, e.e_lblk,
					 E4R_NONE);
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
	struct check_inode_walk *w = priv;

	(void)fs; (void)ref_blk; (void)ref_offset;
	if (claim_block(w, *blocknr, blockcnt))
		return BLOCK_ABORT;
	if (blockcnt >= 0 && blockcnt > w->last_init_lblk)
		w->last_init_lblk = blockcnt;
	return 0;
}

/* Below the resize inode's double indirect block: only a block outside the filesystem is wrong. */
static int resize_map_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
			 blk64_t ref_blk, int ref_offset, void *priv)
{
	struct check_inode_walk *w = priv;

	(void)ref_offset;
	/* the direct and top blocks were judged from the inode itself */
	if (!ref_blk || !check_out_of_fs(fs, *blocknr, 1))
		return 0;
	return claim_block(w, *blocknr, blockcnt < 0 ? -1 : blockcnt) ? BLOCK_ABORT : 0;
}

/* The inode a walk reads, put where libext2fs's inode reads look first (fs->read_inode). */
struct walk_stash {
	struct check_inode_walk	*w;
	void			*old_priv;
};

static errcode_t stashed_read_inode(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *inode)
{
	struct walk_stash *s = fs->priv_data;

	if (ino != s->w->ino)
		return EXT2_ET_CALLBACK_NOTHANDLED;
	memcpy(inode, s->w->inode, sizeof(*inode));
	return 0;
}

/*
 * Iterate the block map of W's inode as pass 1 judges it: block_iterate3
 * reads the inode itself, and pass 1's copy may differ from the disk (the
 * map flags it answered), so the read is served from the copy.
 */
static void iterate_copy(struct check_inode_walk *w, char *buf,
			 int (*fn)(ext2_filsys, blk64_t *, e2_blkcnt_t, blk64_t, int, void *))
{
	ext2_filsys fs = w->c->fs;
	struct walk_stash s = { w, fs->priv_data };
	errcode_t (*old_read)(ext2_filsys, ext2_ino_t, struct ext2_inode *) = fs->read_inode;

	fs->priv_data = &s;
	fs->read_inode = stashed_read_inode;
	ext2fs_block_iterate3(fs, w->ino, BLOCK_FLAG_READ_ONLY, buf, fn, w);
	fs->read_inode = old_read;
	fs->priv_data = s.old_priv;
}

static void walk_block_map(struct check_inode_walk *w, char *buf)
{
	ext2_filsys fs = w->c->fs;
	struct ext2_inode *in = (struct ext2_inode *)w->inode;

	/* block_iterate3 reads the inode itself; an in-use inode on disk is what we scanned. */
	if (w->ino == EXT2_RESIZE_INO) {
		int i;

		if (in->i_block[EXT2_DIND_BLOCK])
			claim_block(w, in->i_block[EXT2_DIND_BLOCK], -1);
		/*
		 * e2fsck walks the whole map and judges the range of every block
		 * before it counts the resize inode's: one out of the filesystem is
		 * illegal, the Hurd's translator block (osd1) included. Pass 0
		 * judged only the entries naming backup groups' copies: on a
		 * filesystem without backups nothing else looked into the
		 * indirect blocks.
		 */
		for (i = 0; i < EXT2_N_BLOCKS; i++)
			if (i != EXT2_DIND_BLOCK && in->i_block[i] &&
			    check_out_of_fs(fs, in->i_block[i], 1))
				claim_block(w, in->i_block[i], -1);
		if (in->i_block[EXT2_DIND_BLOCK] && !check_out_of_fs(fs, in->i_block[EXT2_DIND_BLOCK], 1))
			ext2fs_block_iterate3(fs, w->ino, BLOCK_FLAG_READ_ONLY, buf, resize_map_cb, w);
		if (fs->super->s_creator_os == EXT2_OS_HURD && in->osd1.hurd1.h_i_translator &&
		    check_out_of_fs(fs, in->osd1.hurd1.h_i_translator, 1))
			claim_block(w, in->osd1.hurd1.h_i_translator, -1);
		return;
	}
	iterate_copy(w, buf, block_map_cb);
}

static void check_xattr_block(struct check_inode_walk *w, char *buf)
{
	struct check_ctx *c = w->c;
	ext2_filsys fs = c->fs;
	blk64_t blk = ext2fs_file_acl_block(fs, (struct ext2_inode *)w->inode);
	struct ext2_ext_attr_header *h = (struct ext2_ext_attr_header *)buf;
	struct check_ea_charge charge = { 0, 0 };

	if (!blk)
		return;
	if (w->dup_pass) {
		claim_block(w, blk, -1);
		return;
	}
	/*
	 * Without ext_attr the block is no xattr block: not counted in the
	 * inode's blocks nor marked in use, and the reference is to go.
	 */
	if (!ext2fs_has_feature_xattr(fs->super)) {
		if (!check_hidden_ino(c, w->ino)) {
			check_report_ino(c, E4R_PR_EA_NO_FEATURE, w->ino, blk, E4R_NONE, E4R_NONE);
			ext2fs_mark_inode_bitmap2(c->inode_bad, w->ino);
		}
		return;
	}
	if (check_out_of_fs(fs, blk, 1)) {
		/*
		 * e2fsck reports a block out of range only through a directory
		 * entry naming the inode (pass 2): never on a hidden inode.
		 */
		if (check_hidden_ino(c, w->ino))
			return;
		check_report_ino(c, E4R_PR_EA_BLOCK, w->ino, blk, E4R_NONE, E4R_NONE);
		ext2fs_mark_inode_bitmap2(c->inode_bad, w->ino);
		return;
	}
	if (ext2fs_test_block_bitmap2(c->ea, blk)) {	/* shared with an inode seen before */
		w->nblocks++;
		check_xattr_more_ref(c, blk, &w->ea);
		return;
	}
	/* the block as on disk: header fields little-endian; the checksum is computed over it so */
	if (io_channel_read_blk64(fs->io, blk, 1, buf) || ext2fs_le32_to_cpu(h->h_magic) != XATTR_MAGIC ||
	    ext2fs_le32_to_cpu(h->h_blocks) != 1 ||
	    (ext2fs_has_feature_metadata_csum(fs->super) &&
	     !ext2fs_ext_attr_block_csum_verify(fs, w->ino, blk, h))) {
		check_report_ino(c, E4R_PR_EA_BLOCK, w->ino, blk, E4R_NONE, E4R_NONE);
		ext2fs_mark_inode_bitmap2(c->inode_bad, w->ino);
		return;
	}
	check_xattr_entries(c, w->ino, w->inode, blk, buf, &charge);
	w->ea.clusters += charge.clusters;
	w->ea.inodes += charge.inodes;
	if (!claim_block(w, blk, -1)) {
		ext2fs_mark_block_bitmap2(c->ea, blk);
		check_xattr_first_ref(c, w->ino, blk, ext2fs_le32_to_cpu(h->h_refcount), &charge);
	}
}

/*
 * The bad blocks list names filesystem metadata. A bitmap there can move
 * (e2fsck relocates it); other metadata is the claim pass 1 reports.
 */
static void bad_block_in_bitmap(struct check_inode_walk *w)
{
	ext2_filsys fs = w->c->fs;
	dgrp_t g;

	for (g = 0; g < fs->group_desc_count; g++)
		if (ext2fs_block_bitmap_loc(fs, g) == w->first_meta ||
		    ext2fs_inode_bitmap_loc(fs, g) == w->first_meta) {
			check_report_group(w->c, E4R_PR_BAD_BLOCK_BITMAP, g, w->first_meta,
					   E4R_NONE, E4R_NONE);
			return;
		}
}

/*
 * e2fsck's arithmetic, not the descriptors' places: in a group that carries
 * a copy, its first block is the superblock and the descriptor blocks
 * follow it (the reserved ones are not counted; a meta_bg filesystem's are
 * judged the same way, as e2fsck does).
 */
enum check_problem check_bb_super_copy(ext2_filsys fs, blk64_t blk, dgrp_t *group)
{
	blk64_t first = fs->super->s_first_data_block;
	dgrp_t g;

	if (blk < first || check_out_of_fs(fs, blk, 1))
		return E4R_PR_COUNT;
	g = (dgrp_t)((blk - first) / fs->super->s_blocks_per_group);
	if (g >= fs->group_desc_count || !ext2fs_bg_has_super(fs, g))
		return E4R_PR_COUNT;
	first += (blk64_t)g * fs->super->s_blocks_per_group;
	*group = g;
	if (blk == first)
		return g ? E4R_PR_BB_BACKUP_SUPER : E4R_PR_BB_PRIMARY_SUPER;
	if (blk <= first + fs->desc_blocks)
		return g ? E4R_PR_BB_BACKUP_DESC : E4R_PR_BB_PRIMARY_DESC;
	return E4R_PR_COUNT;
}

/* A listed bad block (not the list's own indirect blocks) on a superblock or descriptor copy. */
static int bb_super_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref_blk,
		       int ref_offset, void *priv)
{
	struct check_ctx *c = priv;
	enum check_problem code;
	dgrp_t g;

	(void)ref_blk; (void)ref_offset;
	if (blockcnt < 0)
		return 0;
	code = check_bb_super_copy(fs, *blocknr, &g);
	if (code != E4R_PR_COUNT) {
		struct check_finding f = check_finding_init(code);

		f.ino = EXT2_BAD_INO;	/* the repair edits its map */
		f.group = g;
		f.blk = *blocknr;
		check_report(c, &f);
	}
	return 0;
}

/*
 * Does IN map blocks? libext2fs guesses a symlink without an xattr block
 * has none when i_blocks is 0. One too long for i_block keeps its target
 * in block i_block[0] all the same, where e2fsck's pass 2 reads it
 * (e2fsck keeps the link and frees that block under it); a block map of
 * that shape is walked here, and i_blocks is what is wrong. An extent
 * tree is not: e2fsck takes the extents flag away there first.
 */
static int map_has_blocks(ext2_filsys fs, const struct ext2_inode *in)
{
	int i;

	if (ext2fs_inode_has_valid_blocks2(fs, (struct ext2_inode *)in))
		return 1;
	if (!LINUX_S_ISLNK(in->i_mode) || (in->i_flags & (EXT4_INLINE_DATA_FL | EXT4_EXTENTS_FL)) ||
	    EXT2_I_SIZE(in) < sizeof(in->i_block) || !in->i_block[0] || ext2fs_file_acl_block(fs, in))
		return 0;
	for (i = 1; i < EXT2_N_BLOCKS; i++)
		if (in->i_block[i])
			return 0;
	return 1;
}

/* Walk every block the inode claims: map, extent tree, xattr block. */
void check_walk_blocks(struct check_inode_walk *w, char *buf)
{
	ext2_filsys fs = w->c->fs;
	struct ext2_inode *in = (struct ext2_inode *)w->inode;

	if (w->ino == EXT2_BAD_INO) {
		ext2fs_block_iterate3(fs, w->ino, BLOCK_FLAG_READ_ONLY, buf, block_map_cb, w);
		if (w->nmeta && !w->dup_pass) {
			bad_block_in_bitmap(w);
			ext2fs_block_iterate3(fs, w->ino, BLOCK_FLAG_READ_ONLY, buf, bb_super_cb, w->c);
		}
		return;
	}
	if ((in->i_flags & EXT4_INLINE_DATA_FL) || !map_has_blocks(fs, in)) {
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
		struct check_finding f = check_finding_init(E4R_PR_BLOCK_METADATA);
		f.ino = w->ino;
		f.blk = w->first_meta;
		f.group = ext2fs_group_of_blk2(fs, w->first_meta);
		f.found = w->nmeta;
		check_report(w->c, &f);
	}
}
