/* Checker repairs of pass 1 and 4 findings: inode fields, cleared inodes, trimmed block maps and extents. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check/ctx.h"
#include "fs/bitmaps.h"
#include "fs/guard_io.h"
#include "fs/inode.h"
#include "fs/open.h"
#include "repair/repair.h"
#include "util/array.h"
#include "util/crc.h"
#include "util/sorted.h"
#include "util/nomem.h"

struct inode_buf {
	struct ext2_inode_large	*in;
	int			size;
};

static errcode_t inode_read(struct check_ctx *c, ext2_ino_t ino, struct inode_buf *b)
{
	ext2_filsys fs = c->fs;
	int isize = EXT2_INODE_SIZE(fs->super);
	errcode_t err;

	if (!ino || ino > c->inodes)
		return EINVAL;
	b->size = isize;
	b->in = calloc(1, isize < (int)sizeof(*b->in) ? sizeof(*b->in) : (size_t)isize);
	if (!b->in)
		return ENOMEM;
	err = fs_read_inode_full(fs, ino, (struct ext2_inode *)b->in, isize);
	if (err == EXT2_ET_INODE_CSUM_INVALID || err == EXT2_ET_INODE_IS_GARBAGE)
		err = 0;	/* what we repair may be exactly that */
	if (err) {
		free(b->in);
		b->in = NULL;
	}
	return err;
}

/* Write the inode back; libext2fs sets its checksum. */
static errcode_t inode_write(struct check_ctx *c, ext2_ino_t ino, struct inode_buf *b)
{
	errcode_t err = ext2fs_write_inode_full(c->fs, ino, (struct ext2_inode *)b->in, b->size);

	free(b->in);
	b->in = NULL;
	return err;
}

/*
 * A root whose eh_depth claims more levels than a tree can have: e2fsck
 * rebuilds the tree. Its entries are as they were, so the depth is found
 * again: an index entry points at a node with a sound header one level
 * down; leaf entries read as an index point at no such node.
 */
static errcode_t fix_root_depth(struct check_ctx *c, struct ext2_inode *in)
{
	ext2_filsys fs = c->fs;
	struct ext3_extent_header *root = (struct ext3_extent_header *)in->i_block, *child;
	struct ext3_extent_idx *idx = (struct ext3_extent_idx *)(root + 1);
	blk64_t blk = ext2fs_le32_to_cpu(idx->ei_leaf) |
		      ((blk64_t)ext2fs_le16_to_cpu(idx->ei_leaf_hi) << 32);
	unsigned depth = 0;
	char *buf;

	if (ext2fs_le16_to_cpu(root->eh_magic) != EXT3_EXT_MAGIC)
		return EXT2_ET_EXTENT_HEADER_BAD;
	buf = malloc(fs->blocksize);
	if (!buf)
		return ENOMEM;
	if (root->eh_entries && !check_out_of_fs(fs, blk, 1) &&
	    !io_channel_read_blk64(fs->io, blk, 1, buf)) {
		child = (struct ext3_extent_header *)buf;
		if (ext2fs_le16_to_cpu(child->eh_magic) == EXT3_EXT_MAGIC &&
		    ext2fs_le16_to_cpu(child->eh_depth) < 4)
			depth = ext2fs_le16_to_cpu(child->eh_depth) + 1;
	}
	free(buf);
	root->eh_depth = ext2fs_cpu_to_le16(depth);
	return 0;
}

/* Drop epoch bits 3 on a negative time: such times are pre-1970 ones in the old encoding. */
static void repair_extra_times(struct ext2_inode_large *in)
{
	unsigned have = EXT2_GOOD_OLD_INODE_SIZE + in->i_extra_isize;

#define NEG(t, x) (((t) & 0x80000000u) && ((x) & EXT4_EPOCH_MASK) == EXT4_EPOCH_MASK)
	if (inode_includes(have, i_atime_extra) && NEG(in->i_atime, in->i_atime_extra))
		in->i_atime_extra &= ~EXT4_EPOCH_MASK;
	if (inode_includes(have, i_ctime_extra) && NEG(in->i_ctime, in->i_ctime_extra))
		in->i_ctime_extra &= ~EXT4_EPOCH_MASK;
	if (inode_includes(have, i_mtime_extra) && NEG(in->i_mtime, in->i_mtime_extra))
		in->i_mtime_extra &= ~EXT4_EPOCH_MASK;
	if (inode_includes(have, i_crtime_extra) && NEG(in->i_crtime, in->i_crtime_extra))
		in->i_crtime_extra &= ~EXT4_EPOCH_MASK;
#undef NEG
}

/* Extent trees deeper than this are no trees the kernel makes: their index starts are left alone. */
#define INDEX_WALK_DEPTH	5

/* One walk of a tree's index nodes: what it may still read, and the first error. */
struct index_walk {
	struct check_ctx	*c;
	ext2_ino_t		ino;
	uint64_t		reads_left;	/* a crafted tree can name one child from every entry */
	errcode_t		err;
};

/*
 * Sets each index entry's start in the node HDR (ROOM bytes) to its child's
 * first start, as e2fsck does, children first, and writes each child it
 * changed. Returns the first start under HDR, or -1 when it has no entry
 * or a bad header; *CHANGED says whether HDR's own entries changed.
 *
 * The nodes are read here rather than through an extent handle:
 * ext2fs_extent_fix_parents puts the handle back with ext2fs_extent_goto,
 * after which a walk that goes on enters the same child again and again,
 * and the fix never reached the entries after it (found by fuzzing).
 */
static int64_t settle_index_starts(struct index_walk *w, struct ext3_extent_header *hdr, size_t room,
				   unsigned depth_left, int *changed)
{
	ext2_filsys fs = w->c->fs;
	unsigned n = ext2fs_le16_to_cpu(hdr->eh_entries), depth = ext2fs_le16_to_cpu(hdr->eh_depth);
	struct ext3_extent_idx *idx = (struct ext3_extent_idx *)(hdr + 1);
	char *buf;

	*changed = 0;
	if (ext2fs_le16_to_cpu(hdr->eh_magic) != EXT3_EXT_MAGIC || !n ||
	    sizeof(*hdr) + (size_t)n * sizeof(*idx) > room || depth > depth_left)
		return -1;
	if (!depth)
		return ext2fs_le32_to_cpu(((struct ext3_extent *)(hdr + 1))->ee_block);
	buf = malloc(fs->blocksize);
	if (!buf) {
		w->err = ENOMEM;
		return -1;
	}
	for (unsigned i = 0; i < n && !w->err && w->reads_left; i++) {
		blk64_t blk = ext2fs_le32_to_cpu(idx[i].ei_leaf) |
			      ((blk64_t)ext2fs_le16_to_cpu(idx[i].ei_leaf_hi) << 32);
		struct ext3_extent_header *child = (struct ext3_extent_header *)buf;
		int child_changed;
		int64_t start;

		if (check_out_of_fs(fs, blk, 1))
			continue;	/* the block map repair drops the entry */
		w->reads_left--;
		if (io_channel_read_blk64(fs->io, blk, 1, buf) ||
		    ext2fs_le16_to_cpu(child->eh_depth) != depth - 1)
			continue;
		start = settle_index_starts(w, child, fs->blocksize, depth - 1, &child_changed);
		if (w->err)
			break;
		/* a node on metadata is not written: the block map's repair copies or drops it */
		if (child_changed && !fs_guard_holds(blk, 1)) {
			w->err = ext2fs_extent_block_csum_set(fs, w->ino, child);
			if (!w->err)
				w->err = io_channel_write_blk64(fs->io, blk, 1, buf);
		}
		if (start >= 0 && (uint64_t)start != ext2fs_le32_to_cpu(idx[i].ei_block)) {
			idx[i].ei_block = ext2fs_cpu_to_le32((uint32_t)start);
			*changed = 1;
		}
	}
	free(buf);
	return ext2fs_le32_to_cpu(idx[0].ei_block);
}

static errcode_t fix_index_starts(struct check_ctx *c, ext2_ino_t ino)
{
	struct index_walk w = { c, ino, ext2fs_blocks_count(c->fs->super) + 16, 0 };
	struct inode_buf b = { 0 };
	int changed = 0;
	errcode_t err = inode_read(c, ino, &b);

	if (err)
		return err;
	settle_index_starts(&w, (struct ext3_extent_header *)b.in->i_block, sizeof(b.in->i_block),
			    INDEX_WALK_DEPTH, &changed);
	if (!w.err && changed)
		return inode_write(c, ino, &b);
	free(b.in);
	return w.err;
}

/* The one-field repairs: the finding's expected value goes where the found one was. */
errcode_t repair_inode(struct check_ctx *c, const struct check_finding *f)
{
	ext2_ino_t ino = (ext2_ino_t)f->ino;
	struct inode_buf b = { 0 };
	struct ext2_inode *in;
	errcode_t err;

	/* the extent handle reads and writes the inode itself */
	if (f->code == E4R_PR_EXTENT_INDEX_START)
		return ino && ino <= c->inodes ? fix_index_starts(c, ino) : EINVAL;
	if (f->code == E4R_PR_BIGALLOC_BLOCK_MAP)
		return repair_to_extents(c, ino);
	err = inode_read(c, ino, &b);

	if (err)
		return err;
	in = (struct ext2_inode *)b.in;
	switch (f->code) {
	case E4R_PR_INODE_CSUM:
		break;		/* written as it is, with a new checksum */
	case E4R_PR_INODE_GARBAGE:
		check_garbage_cleared(c, ino, b.in);
		if (ino >= c->first_ino || ino == EXT2_ROOT_INO) {
			ext2fs_unmark_inode_bitmap2(c->inode_used, ino);
			c->kind[ino] = KIND_NONE;
		}
		break;
	case E4R_PR_INODE_DTIME_SET:
		in->i_dtime = 0;
		break;
	case E4R_PR_INODE_ZERO_DTIME:
		in->i_dtime = (uint32_t)time(NULL);
		break;
	case E4R_PR_ORPHAN_LIST:
		/* the orphan chain lives in i_dtime: an inode still linked keeps living */
		in->i_dtime = in->i_links_count ? 0 : (uint32_t)time(NULL);
		break;
	case E4R_PR_RESERVED_MODE:
		in->i_mode = 0;
		break;
	case E4R_PR_QUOTA_BAD_MODE:
		in->i_mode = LINUX_S_IFREG;
		break;
	case E4R_PR_JOURNAL_INODE_NOT_CLEAR:
	case E4R_PR_QUOTA_INODE_NOT_CLEAR:
		/* zeroed as e2fsck -y does (clearing refuses reserved inodes); the next check frees its blocks */
		memset(b.in, 0, (size_t)b.size);
		if (b.size > EXT2_GOOD_OLD_INODE_SIZE)
			b.in->i_extra_isize = sizeof(struct ext2_inode_large) - EXT2_GOOD_OLD_INODE_SIZE;
		break;
	case E4R_PR_I_BLOCKS:
		if (f->expected == E4R_NONE)
			goto bad;
		in->i_blocks = (uint32_t)f->expected;
		b.in->osd2.linux2.l_i_blocks_hi = (uint16_t)(f->expected >> 32);
		/*
		 * the count wanted is in the units the flag gives under huge_file
		 * (blocks, not sectors): the flag stays with it, as e2fsck keeps it
		 */
		if (!ext2fs_has_feature_huge_file(c->fs->super))
			in->i_flags &= ~EXT4_HUGE_FILE_FL;
		break;
	case E4R_PR_I_SIZE:
		if (f->expected == E4R_NONE)
			goto bad;
		err = ext2fs_inode_size_set(c->fs, in, f->expected);
		if (err)
			goto bad;
		break;
	case E4R_PR_LINK_COUNT:
		if (f->expected == E4R_NONE)
			goto bad;
		in->i_links_count = (uint16_t)(f->expected > 0xFFFF ? 1 : f->expected);
		break;
	case E4R_PR_EA_BLOCK:
	case E4R_PR_EA_NO_FEATURE:
		ext2fs_file_acl_block_set(c->fs, in, 0);
		break;
	case E4R_PR_IMAGIC_FLAG:
		in->i_flags &= ~EXT2_IMAGIC_FL;
		break;
	case E4R_PR_SPECIAL_FLAGS:
		in->i_flags &= ~(EXT2_IMMUTABLE_FL | EXT2_APPEND_FL);
		break;
	case E4R_PR_SPECIAL_SIZE:
		err = ext2fs_inode_size_set(c->fs, in, 0);
		if (err)
			goto bad;
		break;
	case E4R_PR_EXTENT_TOO_DEEP:
		err = fix_root_depth(c, in);
		if (err)
			goto bad;
		break;
	case E4R_PR_INODE_EXTRA_ISIZE:
		if (f->expected == E4R_NONE || b.size <= EXT2_GOOD_OLD_INODE_SIZE ||
		    f->expected > (uint64_t)b.size - EXT2_GOOD_OLD_INODE_SIZE)
			goto bad;
		b.in->i_extra_isize = (uint16_t)f->expected;
		break;
	case E4R_PR_INODE_EA_BOUNDS:
	case E4R_PR_INODE_EA_HASH:
	case E4R_PR_INODE_EA_VALUE:
		/* like e2fsck: every in-inode attribute goes (the magic that starts them is zeroed) */
		if (b.size <= EXT2_GOOD_OLD_INODE_SIZE ||
		    EXT2_GOOD_OLD_INODE_SIZE + b.in->i_extra_isize + 4u > (unsigned)b.size)
			goto bad;
		memset((char *)b.in + EXT2_GOOD_OLD_INODE_SIZE + b.in->i_extra_isize, 0, 4);
		break;
	case E4R_PR_EA_INODE_REFCOUNT:
		if (f->expected == E4R_NONE)
			goto bad;
		ext2fs_set_ea_inode_ref(in, f->expected);
		break;
	case E4R_PR_EA_INODE_FLAG:
		in->i_flags |= EXT4_EA_INODE_FL;
		break;
	case E4R_PR_INODE_EXTRA_TIME:
		repair_extra_times(b.in);
		break;
	case E4R_PR_INODE_FADDR:
		in->i_faddr = 0;
		break;
	case E4R_PR_INODE_FRAG:
		in->osd2.hurd2.h_i_frag = 0;
		break;
	case E4R_PR_INODE_FSIZE:
		in->osd2.hurd2.h_i_fsize = 0;
		break;
	case E4R_PR_RESIZE_INODE_STRAY:
		memset(b.in, 0, (size_t)b.size);
		if (b.size > EXT2_GOOD_OLD_INODE_SIZE)
			b.in->i_extra_isize = sizeof(struct ext2_inode_large) - EXT2_GOOD_OLD_INODE_SIZE;
		break;
	case E4R_PR_DIR_SIZE_HIGH:
		in->i_size_high = 0;
		break;
	case E4R_PR_INDEX_NOT_DIR:
		in->i_flags &= ~EXT2_INDEX_FL;
		break;
	case E4R_PR_CASEFOLD_NOT_DIR:
	case E4R_PR_CASEFOLD_NO_FEATURE:
		in->i_flags &= ~EXT4_CASEFOLD_FL;
		break;
	case E4R_PR_INODE_FILE_ACL_HIGH:
		b.in->osd2.linux2.l_i_file_acl_high = 0;
		break;
	case E4R_PR_INLINE_DATA_NO_ATTR:
		/* like e2fsck: the data cannot be trusted; an empty file without inline data */
		err = ext2fs_inode_size_set(c->fs, in, 0);
		if (err)
			goto bad;
		in->i_flags &= ~EXT4_INLINE_DATA_FL;
		memset(in->i_block, 0, sizeof(in->i_block));
		break;
	case E4R_PR_ENCRYPT_NO_ATTR:
		in->i_flags &= ~EXT4_ENCRYPT_FL;
		break;
	case E4R_PR_INLINE_FLAG_EXTENTS:
		in->i_flags &= ~EXT4_INLINE_DATA_FL;
		break;
	case E4R_PR_SPECIAL_MAP_FLAGS:
	case E4R_PR_MAP_FLAGS_BLOCK_MAP:
		in->i_flags &= ~(EXT4_INLINE_DATA_FL | EXT4_EXTENTS_FL);
		break;
	case E4R_PR_EXTENTS_FLAG_INLINE:
	case E4R_PR_FAST_SYMLINK_EXTENT_FL:
		in->i_flags &= ~EXT4_EXTENTS_FL;
		break;
	case E4R_PR_EXTENTS_FLAG_UNSET:
		in->i_flags |= EXT4_EXTENTS_FL;
		break;
	case E4R_PR_TREAT_AS_DIR:
		in->i_mode = (in->i_mode & 07777) | LINUX_S_IFDIR;
		break;
	default:
		goto bad;
	}
	return inode_write(c, ino, &b);
bad:
	free(b.in);
	return err ? err : EXT2_ET_UNIMPLEMENTED;
}

/*
 * Clear an inode as e2fsck does: no links, a deletion time. Its blocks are
 * left in i_block: the next round does not count them, and its bitmap
 * rebuild frees them. Entries that name it are removed by that round too.
 */
errcode_t repair_inode_clear(struct check_ctx *c, ext2_ino_t ino)
{
	struct inode_buf b = { 0 };
	errcode_t err;

	if (ino < c->first_ino && ino != EXT2_ROOT_INO)
		return EINVAL;	/* reserved inodes are not the checker's to clear */
	err = inode_read(c, ino, &b);
	if (err)
		return err;
	b.in->i_links_count = 0;
	b.in->i_dtime = (uint32_t)time(NULL);
	ext2fs_unmark_inode_bitmap2(c->inode_used, ino);
	c->kind[ino] = KIND_NONE;
	return inode_write(c, ino, &b);
}

/*
 * Clear an unattached inode that holds nothing (no blocks, no attributes):
 * it releases only itself, so the round settles what it changes. Its quota
 * charge goes (the round compares quota again); its bitmap bit goes with
 * the rebuild of the summaries that follows (E4R_PHASE_NOW_REBUILD).
 */
errcode_t repair_unattached_clear(struct check_ctx *c, ext2_ino_t ino)
{
	struct inode_buf b = { 0 };
	errcode_t err;

	if (ino < c->first_ino || ino > c->inodes)
		return EINVAL;
	err = inode_read(c, ino, &b);
	if (err)
		return err;
	/* pass 1 charged it one inode and the blocks it counted: none, or it would not be here */
	if (ext2fs_get_stat_i_blocks(c->fs, (struct ext2_inode *)b.in))
		c->recheck = 1;
	check_quota_charge(c, ino, b.in, 0, (uint64_t)-1);
	c->quota_changed = 1;
	free(b.in);
	return repair_inode_clear(c, ino);
}

errcode_t repair_quota_uncharge(struct check_ctx *c, ext2_ino_t ino, uint64_t bytes)
{
	struct inode_buf b = { 0 };
	errcode_t err;

	if (!c->quota || !ino || ino > c->inodes)
		return 0;
	if ((err = inode_read(c, ino, &b)))
		return err;
	check_quota_charge(c, ino, b.in, (uint64_t)0 - bytes, (uint64_t)-1);
	c->quota_changed = 1;
	free(b.in);
	return 0;
}

static errcode_t fix_htree_flag_inode(struct check_ctx *c, ext2_ino_t dir)
{
	struct inode_buf b = { 0 };
	errcode_t err = inode_read(c, dir, &b);

	if (err)
		return err;
	if (!(b.in->i_flags & EXT2_INDEX_FL)) {
		free(b.in);
		return 0;
	}
	b.in->i_flags &= ~EXT2_INDEX_FL;
	return inode_write(c, dir, &b);
}

/*
 * A bad htree index: the directory goes on without it (a linear directory
 * reads the same entries; the index root and nodes read as empty entries).
 */
errcode_t repair_htree_flag(struct check_ctx *c, ext2_ino_t dir)
{
	return fix_htree_flag_inode(c, dir);
}

/* What a block a trimmed map may keep: inside the filesystem and not its metadata. */
static int block_ok(struct check_ctx *c, blk64_t blk, blk64_t len)
{
	if (check_out_of_fs(c->fs, blk, len))
		return 0;
	return ext2fs_test_block_bitmap_range2(c->meta, blk, len);
}

struct trim_map {
	struct check_ctx	*c;
	int			symlink;	/* keeps its block 0 alone (symlink_too_big) */
	uint64_t		dir_limit;	/* a directory's blocks past it go (dir_too_big) */
};

static int trim_map_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		       blk64_t ref_blk, int ref_offset, void *priv)
{
	struct trim_map *t = priv;

	(void)fs; (void)ref_blk; (void)ref_offset;
	if (*blocknr && (!block_ok(t->c, *blocknr, 1) || (t->symlink && blockcnt > 0) ||
			 (blockcnt > 0 && (uint64_t)blockcnt > t->dir_limit))) {
		*blocknr = 0;
		return BLOCK_CHANGED;
	}
	return 0;
}

/* Append B to the growing list *V of *N blocks (room for *CAP). */
static errcode_t blk_push(blk64_t **v, unsigned *n, unsigned *cap, blk64_t b)
{
	errcode_t err = util_grow((void **)v, cap, *n + 1, sizeof(**v));

	if (!err)
		(*v)[(*n)++] = b;
	return err;
}

/* The bad blocks list's walk: the blocks listed so far (an indirect block comes after them). */
struct bb_trim {
	struct check_ctx	*c;
	blk64_t			*seen;
	unsigned		n, cap;
};

static int bb_seen(const struct bb_trim *t, blk64_t blk)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->seen[i] == blk)
			return 1;
	return 0;
}

/*
 * The bad blocks list, as e2fsck -y mends it: the primary superblock and
 * descriptors come off it (their copies stay listed), and so does an
 * indirect block that is metadata or a block listed before it, with the
 * blocks it lists.
 */
static int unlist_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		     blk64_t ref_blk, int ref_offset, void *priv)
{
	struct bb_trim *t = priv;
	enum check_problem code;
	dgrp_t g;

	(void)ref_blk; (void)ref_offset;
	if (!*blocknr || check_out_of_fs(fs, *blocknr, 1))
		return 0;
	if (blockcnt < 0) {
		if (!ext2fs_test_block_bitmap2(t->c->meta, *blocknr) && !bb_seen(t, *blocknr))
			return 0;
		*blocknr = 0;
		return BLOCK_CHANGED;
	}
	code = check_bb_super_copy(fs, *blocknr, &g);
	if (code == E4R_PR_BB_PRIMARY_SUPER || code == E4R_PR_BB_PRIMARY_DESC) {
		*blocknr = 0;
		return BLOCK_CHANGED;
	}
	return blk_push(&t->seen, &t->n, &t->cap, *blocknr) ? BLOCK_ABORT : 0;
}

static errcode_t trim_bad_blocks_list(struct check_ctx *c)
{
	struct bb_trim t = { .c = c };
	errcode_t err = ext2fs_block_iterate3(c->fs, EXT2_BAD_INO, 0, NULL, unlist_cb, &t);

	free(t.seen);
	return err;
}

static int trim_resize_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
			  blk64_t ref_blk, int ref_offset, void *priv)
{
	(void)ref_blk; (void)ref_offset; (void)priv;
	/*
	 * A map block on a descriptor, bitmap or table is no map: a trim below
	 * it would rewrite that metadata. It is cut with what it lists (the
	 * reserved descriptor blocks, its own, are no such place).
	 */
	if (*blocknr && (check_out_of_fs(fs, *blocknr, 1) ||
			 (blockcnt < 0 && fs_guard_holds(*blocknr, 1)))) {
		*blocknr = 0;
		return BLOCK_CHANGED;
	}
	return 0;
}

/*
 * An extent tree: remove leaf extents outside the filesystem, over its
 * metadata, of length 0, behind the one before or reaching past what their
 * index entry covers; index entries that point
 * outside the filesystem; and index entries whose node cannot be read as one
 * (a bad header: e2fsck too cuts that subtree and keeps the rest of the file).
 */
static errcode_t trim_extents(struct check_ctx *c, ext2_ino_t ino)
{
	ext2_filsys fs = c->fs;
	ext2_extent_handle_t h;
	struct ext2fs_extent e;
	uint64_t next_lblk = 0, steps = 0, max_steps = 1u << 22;
	int op = EXT2_EXTENT_ROOT, at_index = 0, past, skip_below = -1;
	struct check_extent_bounds bounds;
	struct ext2_inode in;
	errcode_t err = fs_read_inode(fs, ino, &in);

	if (!err)
		err = ext2fs_extent_open(fs, ino, &h);
	if (err)
		return err;
	check_extent_bounds_init(&bounds, fs, &in);
	while (steps++ < max_steps) {
		struct ext2_extent_info info;
		int drop;

		err = ext2fs_extent_get(h, op, &e);
		op = EXT2_EXTENT_NEXT;
		if (err == EXT2_ET_EXTENT_NO_NEXT) {
			err = 0;
			break;
		}
		/*
		 * Under a node that lies on filesystem metadata (an inode table
		 * the index entry points into) nothing is deleted: the delete
		 * would rewrite that metadata. The clone of shared blocks gives
		 * the node a block of its own, and the next round trims there.
		 */
		if (!err && !ext2fs_extent_get_info(h, &info)) {
			if (skip_below >= 0 && info.curr_level <= skip_below)
				skip_below = -1;
			if (skip_below >= 0) {
				if (e.e_flags & EXT2_EXTENT_FLAGS_LEAF)
					next_lblk = e.e_lblk + e.e_len;
				continue;
			}
			if (!(e.e_flags & (EXT2_EXTENT_FLAGS_LEAF | EXT2_EXTENT_FLAGS_SECOND_VISIT)) &&
			    !check_extent_start_bad(fs, e.e_pblk, 1) && fs_guard_holds(e.e_pblk, 1)) {
				skip_below = info.curr_level;
				check_extent_bounds_step(&bounds, h, &e);
				continue;
			}
		}
		/*
		 * Going down from an index entry failed: its node is not one.
		 * libext2fs leaves the handle on that entry, which goes.
		 */
		if (err && at_index && (err == EXT2_ET_EXTENT_HEADER_BAD || err == EXT2_ET_EXTENT_CSUM_INVALID))
			drop = 1;
		else if (err)
			break;
		else if (e.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT) {
			at_index = 0;
			continue;
		} else if (!(e.e_flags & EXT2_EXTENT_FLAGS_LEAF)) {
			check_extent_bounds_step(&bounds, h, &e);
			drop = check_extent_start_bad(fs, e.e_pblk, 1);
		} else {
			/* and one past its parent's end, as check's walk finds it */
			past = check_extent_bounds_step(&bounds, h, &e);
			drop = e.e_len == 0 || !block_ok(c, e.e_pblk, e.e_len) || e.e_lblk < next_lblk ||
			       past || (LINUX_S_ISDIR(in.i_mode) &&
					(uint64_t)e.e_lblk + e.e_len > check_dir_limit(fs, &in));
		}
		at_index = !err && !(e.e_flags & EXT2_EXTENT_FLAGS_LEAF);
		err = 0;
		if (!drop) {
			if (e.e_flags & EXT2_EXTENT_FLAGS_LEAF)
				next_lblk = e.e_lblk + e.e_len;
			continue;
		}
		/* libext2fs also removes a node this leaves empty, and frees its block */
		err = ext2fs_extent_delete(h, 0);
		/* the index above must start where its node now starts */
		if (!err)
			err = ext2fs_extent_fix_parents(h);
		/*
		 * The node went with its last entry; or the handle could not be
		 * put back at the extent after the one deleted, which an index
		 * range that the damage left wrong does not lead to. The index
		 * entries are mended either way, and the walk starts again.
		 */
		if (err == EXT2_ET_NO_CURRENT_NODE || err == EXT2_ET_EXTENT_NOT_FOUND)
			err = 0;
		if (err)
			break;
		/* the handle's place after a delete is awkward to follow: walk again from the root */
		op = EXT2_EXTENT_ROOT;
		check_extent_bounds_init(&bounds, fs, &in);
		next_lblk = 0;
		at_index = 0;
		skip_below = -1;
	}
	ext2fs_extent_free(h);
	return err;
}

/* A data block the inode shares with metadata: a copy of its own, as e2fsck's pass 1D clones. */
struct meta_clone {
	struct check_ctx	*c;
	char			*buf;
	errcode_t		err;
	int			nodes_only;	/* the first walk: map blocks only */
};

static int clone_meta_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
			 blk64_t ref_blk, int ref_offset, void *priv)
{
	struct meta_clone *m = priv;
	blk64_t blk = *blocknr, nb;

	(void)ref_blk; (void)ref_offset;
	/*
	 * A map block (an extent node, an indirect block) in metadata is
	 * copied too (as e2fsck's pass 1D clones it): a copy of a data block
	 * that it maps is written into it, and it must not be written where it
	 * is. The trim then judges what the copy maps.
	 */
	if (m->nodes_only && blockcnt >= 0)
		return 0;
	if (!blk || check_out_of_fs(fs, blk, 1) || !ext2fs_test_block_bitmap2(m->c->meta, blk))
		return 0;
	if ((m->err = repair_new_block(m->c, blk, NULL, &nb)) ||
	    (m->err = io_channel_read_blk64(fs->io, blk, 1, m->buf)) ||
	    (m->err = io_channel_write_blk64(fs->io, nb, 1, m->buf)))
		return BLOCK_ABORT;
	ext2fs_block_alloc_stats2(fs, nb, +1);
	*blocknr = nb;
	return BLOCK_CHANGED;
}

/*
 * The blocks a clone added to this round's count of used blocks (its
 * copies, and tree blocks split off for them): what the trim after it
 * drops again is given back.
 */
struct clone_added {
	struct check_ctx	*c;
	blk64_t			*blk;	/* sorted before the trim's walk */
	char			*mapped;	/* by index into blk: still in the map */
	unsigned		n, cap;
	errcode_t		err;
};

/* List B (the first block of its cluster) as added by the clone. */
static errcode_t added_push(struct clone_added *a, blk64_t b)
{
	return blk_push(&a->blk, &a->n, &a->cap, b);
}

/*
 * Bigalloc: a data block in a cluster that metadata holds. The whole
 * cluster is the unit of ownership, so, as e2fsck's pass 1D does, every
 * block the inode maps in it moves to one new cluster, each at the same
 * offset (a cluster maps one logical cluster, offset for offset).
 */
struct cluster_hit {
	blk64_t		lblk, pblk;
};

struct cluster_scan {
	struct check_ctx	*c;
	struct cluster_hit	*v;
	unsigned		n, cap;
	errcode_t		err;
};

static int cluster_scan_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
			   blk64_t ref_blk, int ref_offset, void *priv)
{
	struct cluster_scan *s = priv;

	(void)ref_blk; (void)ref_offset;
	if (blockcnt < 0 || !*blocknr || check_out_of_fs(fs, *blocknr, 1) ||
	    !ext2fs_test_block_bitmap2(s->c->meta, *blocknr))
		return 0;
	if ((s->err = util_grow((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v))))
		return BLOCK_ABORT;
	s->v[s->n].lblk = (blk64_t)blockcnt;
	s->v[s->n++].pblk = *blocknr;
	return 0;
}

/*
 * A free cluster by this round's count (the bitmap on disk may be what is
 * damaged: a bitmap moved into a file's cluster reads as that file's data),
 * clear of the guard; counted in use at once, so that the next is another.
 */
static errcode_t new_cluster(struct check_ctx *c, blk64_t goal, struct clone_added *a,
			     blk64_t *out)
{
	ext2_filsys fs = c->fs;
	blk64_t ratio = (blk64_t)EXT2FS_CLUSTER_RATIO(fs), nb, tries;
	errcode_t err;

	for (tries = ext2fs_blocks_count(fs->super) / ratio + 1; tries; tries--) {
		if ((err = repair_new_block(c, goal, c->used, &nb)))
			return err;
		nb &= ~(blk64_t)EXT2FS_CLUSTER_MASK(fs);
		if (!check_out_of_fs(fs, nb, ratio) && !fs_guard_holds(nb, ratio)) {
			ext2fs_mark_block_bitmap2(c->used, nb);
			if (!ext2fs_test_block_bitmap2(fs->block_map, nb))
				ext2fs_block_alloc_stats2(fs, nb, +1);
			*out = nb;
			return added_push(a, nb);
		}
		goal = nb + ratio;
	}
	return EXT2_ET_BLOCK_ALLOC_FAIL;
}

static errcode_t clone_meta_clusters(struct check_ctx *c, ext2_ino_t ino, char *buf,
				     struct clone_added *a)
{
	ext2_filsys fs = c->fs;
	blk64_t mask = (blk64_t)EXT2FS_CLUSTER_MASK(fs), old = 0, nb = 0, to;
	struct cluster_scan s = { .c = c };
	errcode_t err;
	size_t i;

	err = ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY, NULL, cluster_scan_cb, &s);
	if (!err)
		err = s.err;
	for (i = 0; !err && i < s.n; i++) {
		if (!i || (s.v[i].pblk & ~mask) != old) {
			old = s.v[i].pblk & ~mask;
			if ((err = new_cluster(c, old, a, &nb)))
				break;
		}
		to = nb + (s.v[i].pblk & mask);
		if ((err = io_channel_read_blk64(fs->io, s.v[i].pblk, 1, buf)) ||
		    (err = io_channel_write_blk64(fs->io, to, 1, buf)))
			break;
		err = ext2fs_bmap2(fs, ino, NULL, NULL, BMAP_SET, s.v[i].lblk, NULL, &to);
	}
	free(s.v);
	return err;
}

/* A block the map holds now, counted in use by the bitmaps' rebuild of this round. */
static int mark_used_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
			blk64_t ref_blk, int ref_offset, void *priv)
{
	struct clone_added *a = priv;
	/* on bigalloc the counts are of clusters: a cluster is listed by its first block */
	blk64_t b = *blocknr & ~(blk64_t)EXT2FS_CLUSTER_MASK(fs);

	(void)blockcnt; (void)ref_blk; (void)ref_offset;
	if (!*blocknr || check_out_of_fs(fs, *blocknr, 1) || ext2fs_test_block_bitmap2(a->c->used, b))
		return 0;
	ext2fs_mark_block_bitmap2(a->c->used, b);
	if ((a->err = added_push(a, b)))
		return BLOCK_ABORT;
	return 0;
}

/* Tick each added block the map still holds. */
static int still_mapped_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
			   blk64_t ref_blk, int ref_offset, void *priv)
{
	struct clone_added *a = priv;
	blk64_t b = *blocknr & ~(blk64_t)EXT2FS_CLUSTER_MASK(fs), *hit;

	(void)blockcnt; (void)ref_blk; (void)ref_offset;
	hit = bsearch(&b, a->blk, a->n, sizeof(*a->blk), util_cmp_u64);
	if (hit)
		a->mapped[hit - a->blk] = 1;
	return 0;
}

/*
 * A copy made for data that the trim then dropped (an extent out of order
 * below a node shared with metadata) is mapped by nothing: without this it
 * stayed counted in use, and the next round found it marked and unused.
 */
static void clone_give_back(struct check_ctx *c, ext2_ino_t ino, struct clone_added *a)
{
	size_t i;

	if (!a->n)
		return;
	/* without the memory to tell, all stays counted: the next round frees it */
	a->mapped = calloc(a->n, 1);
	if (!a->mapped)
		return;
	qsort(a->blk, a->n, sizeof(*a->blk), util_cmp_u64);
	/* (a cleared inode walks without error and maps nothing) */
	if (ext2fs_block_iterate3(c->fs, ino, BLOCK_FLAG_READ_ONLY, NULL, still_mapped_cb, a))
		memset(a->mapped, 1, a->n);
	for (i = 0; i < a->n; i++) {
		if (a->mapped[i])
			continue;
		ext2fs_unmark_block_bitmap2(c->used, a->blk[i]);
		if (ext2fs_test_block_bitmap2(c->fs->block_map, a->blk[i]))
			ext2fs_block_alloc_stats2(c->fs, a->blk[i], -1);
	}
	free(a->mapped);
	a->mapped = NULL;
}

/*
 * Copy the inode's blocks in metadata: its map blocks only, or all of them.
 * ADDED, when given, lists the blocks this made used.
 */
static errcode_t clone_meta_walk(struct check_ctx *c, ext2_ino_t ino, int maps_only,
				 struct clone_added *added)
{
	struct meta_clone m = { .c = c };
	struct clone_added own = { .c = c }, *a = added ? added : &own;
	errcode_t err;

	if (!c->fs->block_map && (err = fs_read_block_bitmap(c->fs)))
		return err;
	m.buf = malloc(c->fs->blocksize);
	if (!m.buf)
		return ENOMEM;
	/*
	 * Map blocks first, in a walk of their own. A data block's copy makes
	 * libext2fs split extents and move its place in the tree, after which
	 * it can go on in the next leaf without visiting the index entry that
	 * leads there: that leaf, if it lay in metadata, was written where it
	 * was (an inode table block, in a fuzzed image).
	 */
	m.nodes_only = 1;
	/* (on bigalloc map blocks in metadata are left to the trim, as dups.c leaves them) */
	err = EXT2FS_CLUSTER_RATIO(c->fs) > 1 ? 0 :
	      ext2fs_block_iterate3(c->fs, ino, 0, NULL, clone_meta_cb, &m);
	if (!err && !m.err && !maps_only) {
		m.nodes_only = 0;
		/* on bigalloc the unit is the cluster */
		if (EXT2FS_CLUSTER_RATIO(c->fs) > 1)
			err = clone_meta_clusters(c, ino, m.buf, a);
		else
			err = ext2fs_block_iterate3(c->fs, ino, 0, NULL, clone_meta_cb, &m);
	}
	free(m.buf);
	if (!err)
		err = m.err;
	/* a copy in the middle of an extent splits it: the new tree blocks are claimed too */
	if (!err)
		err = ext2fs_block_iterate3(c->fs, ino, BLOCK_FLAG_READ_ONLY, NULL, mark_used_cb, a);
	if (!err)
		err = a->err;
	free(own.blk);
	return err;
}

errcode_t repair_clone_meta_maps(struct check_ctx *c, ext2_ino_t ino)
{
	return clone_meta_walk(c, ino, 1, NULL);
}

/*
 * The inode's extended attribute block, lying in metadata (a reserved
 * descriptor count grown over it), moves too, as e2fsck's pass 1D clones it
 * with the file's other blocks. The copy is this inode's alone: each inode
 * that shared the old block gets its own, counted once; the old block stays
 * with the metadata. Its checksum covers its block number: made again.
 * (Bigalloc's clusters are left to the trim, as the map's are.)
 */
static errcode_t clone_meta_xattr(struct check_ctx *c, ext2_ino_t ino)
{
	ext2_filsys fs = c->fs;
	struct inode_buf b = { 0 };
	struct ext2_ext_attr_header *h;
	blk64_t blk, nb;
	char *buf;
	errcode_t err;

	if ((err = inode_read(c, ino, &b)))
		return err;
	blk = ext2fs_file_acl_block(fs, (struct ext2_inode *)b.in);
	if (!blk || EXT2FS_CLUSTER_RATIO(fs) > 1 || check_out_of_fs(fs, blk, 1) ||
	    !ext2fs_test_block_bitmap2(c->meta, blk)) {
		free(b.in);
		return 0;
	}
	buf = malloc(fs->blocksize);
	err = buf ? repair_new_block(c, blk, NULL, &nb) : ENOMEM;
	if (!err)
		err = io_channel_read_blk64(fs->io, blk, 1, buf);
	h = (struct ext2_ext_attr_header *)buf;
	if (!err && ext2fs_le32_to_cpu(h->h_magic) == EXT2_EXT_ATTR_MAGIC) {
		h->h_refcount = ext2fs_cpu_to_le32(1);
		if (ext2fs_has_feature_metadata_csum(fs->super))
			err = ext2fs_ext_attr_block_csum_set(fs, ino, nb, h);
	}
	if (!err && io_channel_write_blk64(fs->io, nb, 1, buf))
		err = EIO;
	free(buf);
	if (err) {
		free(b.in);
		return err;
	}
	ext2fs_block_alloc_stats2(fs, nb, +1);
	ext2fs_mark_block_bitmap2(c->used, nb);
	ext2fs_file_acl_block_set(fs, (struct ext2_inode *)b.in, nb);
	return inode_write(c, ino, &b);
}

errcode_t repair_block_map(struct check_ctx *c, const struct check_finding *f, int clone)
{
	ext2_ino_t ino = (ext2_ino_t)f->ino;
	struct clone_added added = { .c = c };
	struct ext2_inode in;
	errcode_t err;

	if (!ino || ino > c->inodes)
		return EINVAL;
	/*
	 * Data blocks shared with metadata keep their content in new blocks
	 * (whole clusters on bigalloc); what cannot be copied is trimmed below
	 */
	if (clone && ino != EXT2_BAD_INO && ino != EXT2_RESIZE_INO &&
	    (util_no_memory(err = clone_meta_walk(c, ino, 0, &added)) ||
	     util_no_memory(err = clone_meta_xattr(c, ino)))) {
		free(added.blk);
		return err;
	}
	err = fs_read_inode(c->fs, ino, &in);
	if (err) {
		free(added.blk);
		return err;
	}
	if (in.i_flags & EXT4_EXTENTS_FL)
		err = trim_extents(c, ino);
	else if (ino == EXT2_BAD_INO)
		err = trim_bad_blocks_list(c);
	else if (ino == EXT2_RESIZE_INO)
		/* its blocks are the reserved descriptor blocks: metadata, kept */
		err = ext2fs_block_iterate3(c->fs, ino, 0, NULL, trim_resize_cb, c);
	else {
		struct trim_map t = { c, LINUX_S_ISLNK(in.i_mode),
				      LINUX_S_ISDIR(in.i_mode) ? check_dir_limit(c->fs, &in) : UINT64_MAX };

		err = ext2fs_block_iterate3(c->fs, ino, 0, NULL, trim_map_cb, &t);
	}
	/* a map that cannot be walked cannot be trimmed: the inode goes */
	if (err && !util_no_memory(err))
		err = repair_inode_clear(c, ino);
	if (!err)
		clone_give_back(c, ino, &added);
	free(added.blk);
	return err;
}

/* An extent tree block whose checksum is wrong: rewrite it with the right one. */
errcode_t repair_extent_csum(struct check_ctx *c, const struct check_finding *f)
{
	ext2_filsys fs = c->fs;
	char *buf;
	errcode_t err;

	if (f->blk == E4R_NONE || check_out_of_fs(fs, f->blk, 1))
		return EINVAL;
	/*
	 * The node's block is metadata now: a bitmap this round moved into
	 * it, which the node, judged bad, did not keep from the allocator.
	 * The node's own repair (trim) lets it go; a checksum written here
	 * would overwrite the bitmap.
	 */
	if (fs_guard_holds(f->blk, 1))
		return EXT2_ET_BAD_BLOCK_NUM;
	buf = malloc(fs->blocksize);
	if (!buf)
		return ENOMEM;
	err = io_channel_read_blk64(fs->io, f->blk, 1, buf);
	if (!err)
		err = ext2fs_extent_block_csum_set(fs, (ext2_ino_t)f->ino,
						   (struct ext3_extent_header *)buf);
	if (!err)
		err = io_channel_write_blk64(fs->io, f->blk, 1, buf);
	free(buf);
	return err;
}

/*
 * A journal that cannot be used (its inode or its superblock is bad): like
 * e2fsck's answer to "Clear?", the filesystem goes on without one. The
 * journal's own inode (8) is zeroed, whatever s_journal_inum named (e2fsck
 * wants no trace in it once there is no journal); another inode that
 * s_journal_inum named by mistake (the resize inode, a file) is left as it
 * is, as e2fsck leaves it. The blocks are freed by the next round's bitmap
 * rebuild. tune2fs -j adds a new journal.
 */
errcode_t repair_journal_clear(struct check_ctx *c)
{
	ext2_filsys fs = c->fs;
	struct ext2_super_block *sb = fs->super;
	ext2_ino_t ino = EXT2_JOURNAL_INO;
	struct inode_buf b = { 0 };
	errcode_t err;

	/*
	 * An external journal (named by its UUID) is not ours. A journal
	 * inode number of 0 without one is an internal journal that lost its
	 * number: cleared, and made anew, as e2fsck does.
	 */
	if (!sb->s_journal_inum && fs_journal_uuid_set(sb))
		return EXT2_ET_UNIMPLEMENTED;
	if (ino <= c->inodes) {
		err = inode_read(c, ino, &b);
		if (err)
			return err;
		memset(b.in, 0, (size_t)b.size);
		if (b.size > EXT2_GOOD_OLD_INODE_SIZE)
			b.in->i_extra_isize = sizeof(struct ext2_inode_large) -
					      EXT2_GOOD_OLD_INODE_SIZE;
		err = inode_write(c, ino, &b);
		if (err)
			return err;
	}
	if (ext2fs_has_feature_journal(sb))
		c->res->journal_cleared = 1;
	ext2fs_clear_feature_journal(sb);
	ext2fs_clear_feature_journal_needs_recovery(sb);
	sb->s_journal_inum = 0;
	memset(sb->s_jnl_blocks, 0, sizeof(sb->s_jnl_blocks));
	sb->s_jnl_backup_type = 0;
	ext2fs_mark_super_dirty(fs);
	return 0;
}

/* The journal superblock's fields this repair touches (JBD2 is big-endian). */
#define JSB_ERRNO_OFF		0x20
#define JSB_INCOMPAT_OFF	0x28
#define JSB_CSUM_OFF		0xFC
#define JSB_SIZE		1024
#define JSB_V1_SIZE		0x24	/* a v1 superblock ends before s_feature_compat */
#define JSB_CSUM_V2V3		(0x8 | 0x10)

/* Read, change (CHANGE) and write the internal journal's superblock, its checksum made again. */
static errcode_t rewrite_journal_sb(struct check_ctx *c, void (*change)(unsigned char *sb))
{
	ext2_filsys fs = c->fs;
	ext2_ino_t ino = fs->super->s_journal_inum;
	unsigned char *buf;
	uint32_t incompat, csum;
	blk64_t blk = 0;
	errcode_t err;

	if (!ino || ino > c->inodes || fs->blocksize < JSB_SIZE)
		return EXT2_ET_UNIMPLEMENTED;	/* an external journal is not ours */
	err = ext2fs_bmap2(fs, ino, NULL, NULL, 0, 0, NULL, &blk);
	if (err)
		return err;
	/* a first block that is metadata (a bitmap moved there): left, as the reset below leaves it */
	if (!blk || check_out_of_fs(fs, blk, 1) || fs_guard_holds(blk, 1))
		return EXT2_ET_BAD_BLOCK_NUM;
	buf = malloc(fs->blocksize);
	if (!buf)
		return ENOMEM;
	err = io_channel_read_blk64(fs->io, blk, 1, buf);
	if (!err) {
		change(buf);
		memcpy(&incompat, buf + JSB_INCOMPAT_OFF, 4);
		if (ext2fs_be32_to_cpu(incompat) & JSB_CSUM_V2V3) {
			memset(buf + JSB_CSUM_OFF, 0, 4);
			csum = ext2fs_cpu_to_be32(util_crc32c(~0U, buf, JSB_SIZE));
			memcpy(buf + JSB_CSUM_OFF, &csum, 4);
		}
		err = io_channel_write_blk64(fs->io, blk, 1, buf);
	}
	free(buf);
	return err;
}

static void zero_errno(unsigned char *sb)
{
	memset(sb + JSB_ERRNO_OFF, 0, 4);
}

static void zero_v2_fields(unsigned char *sb)
{
	memset(sb + JSB_V1_SIZE, 0, JSB_SIZE - JSB_V1_SIZE);
}

/*
 * The journal recorded an error (s_errno): like e2fsck, the error is taken
 * into the filesystem (this check is the full one it asks for) and the
 * journal superblock forgets it.
 */
errcode_t repair_journal_errno(struct check_ctx *c)
{
	return rewrite_journal_sb(c, zero_errno);
}

/* More than one user of an internal journal: e2fsck clears what follows the v1 superblock. */
errcode_t repair_journal_v2_fields(struct check_ctx *c)
{
	return rewrite_journal_sb(c, zero_v2_fields);
}

#define JSB_HEADER_SIZE		12	/* magic, block type, sequence */
#define JSB_MAGIC		0xC03B3998U
#define JSB_V1			3
#define JSB_V2			4
#define JSB_BLOCKSIZE_OFF	0x0C
#define JSB_MAXLEN_OFF		0x10
#define JSB_FIRST_OFF		0x14
#define JSB_SEQUENCE_OFF	0x18

static void put_be32(unsigned char *p, uint32_t v)
{
	v = ext2fs_cpu_to_be32(v);
	memcpy(p, &v, 4);
}

static uint32_t get_be32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ext2fs_be32_to_cpu(v);
}

/*
 * A journal superblock that fails its checksum (e2fsck: "journal superblock
 * is corrupt", fixed by a new one): the journal stays, its superblock says
 * an empty log over the journal inode's blocks, with no features (so no
 * checksum to fail), and a sequence past the old one so no old block reads
 * as a transaction. A valid v1 signature stays v1, anything else becomes v2.
 */
errcode_t repair_journal_reset(struct check_ctx *c)
{
	ext2_filsys fs = c->fs;
	ext2_ino_t ino = fs->super->s_journal_inum;
	struct ext2_inode in;
	unsigned char *buf;
	blk64_t blk = 0;
	uint32_t seq;
	errcode_t err;

	if (!ino || ino > c->inodes || fs->blocksize < JSB_SIZE)
		return EXT2_ET_UNIMPLEMENTED;	/* an external journal is not ours */
	err = fs_read_inode(fs, ino, &in);
	if (!err)
		err = ext2fs_bmap2(fs, ino, &in, NULL, 0, 0, NULL, &blk);
	if (err)
		return err;
	if (!blk || check_out_of_fs(fs, blk, 1) || EXT2_I_SIZE(&in) / fs->blocksize < 2)
		return EXT2_ET_BAD_BLOCK_NUM;
	/*
	 * A journal whose first block is filesystem metadata (a bitmap moved
	 * there this round, a table the inode claims): the clone of shared
	 * blocks gives the journal a block of its own first, and a later round
	 * resets that one. Writing here would overwrite the metadata.
	 */
	if (fs_guard_holds(blk, 1))
		return EXT2_ET_BAD_BLOCK_NUM;
	buf = malloc(fs->blocksize);
	if (!buf)
		return ENOMEM;
	err = io_channel_read_blk64(fs->io, blk, 1, buf);
	if (!err) {
		if (get_be32(buf) != JSB_MAGIC || get_be32(buf + 4) != JSB_V1) {
			put_be32(buf, JSB_MAGIC);
			put_be32(buf + 4, JSB_V2);
		}
		seq = get_be32(buf + JSB_SEQUENCE_OFF) + 1;
		memset(buf + JSB_HEADER_SIZE, 0, fs->blocksize - JSB_HEADER_SIZE);
		put_be32(buf + JSB_BLOCKSIZE_OFF, fs->blocksize);
		put_be32(buf + JSB_MAXLEN_OFF, (uint32_t)(EXT2_I_SIZE(&in) / fs->blocksize));
		put_be32(buf + JSB_FIRST_OFF, 1);
		put_be32(buf + JSB_SEQUENCE_OFF, seq ? seq : 1);
		err = io_channel_write_blk64(fs->io, blk, 1, buf);
	}
	free(buf);
	/* an empty log has nothing to recover (the replay did not run over the bad superblock) */
	if (!err && ext2fs_has_feature_journal_needs_recovery(fs->super)) {
		ext2fs_clear_feature_journal_needs_recovery(fs->super);
		ext2fs_mark_super_dirty(fs);
	}
	return err;
}

/*
 * The map blocks a new journal of NEED blocks may take at most. Extents:
 * one per free run (a run longer than an extent takes several), four in
 * the inode, a leaf per (blocksize - 12) / 12 beyond, and an index level
 * over more than four leaves. A block map: a margin over its indirect
 * blocks (one per blocksize / 4 blocks).
 */
#define EXTENT_MAX_LEN	32768	/* blocks one initialized extent maps (ext4's EXT_INIT_MAX_LEN) */
static blk64_t journal_tree_blocks(ext2_filsys fs, blk64_t need)
{
	blk64_t end = ext2fs_blocks_count(fs->super) - 1, start = fs->super->s_first_data_block;
	blk64_t runs = 0, zero, set, per = (fs->blocksize - 12) / 12, leaves;

	if (!ext2fs_has_feature_extents(fs->super))
		return need / 64 + 16;
	while (start <= end && !ext2fs_find_first_zero_block_bitmap2(fs->block_map, start, end, &zero)) {
		if (ext2fs_find_first_set_block_bitmap2(fs->block_map, zero, end, &set))
			set = end + 1;
		runs += (set - zero + EXTENT_MAX_LEN - 1) / EXTENT_MAX_LEN;
		start = set;
	}
	if (runs <= 4)
		return 0;
	leaves = (runs + per - 1) / per;
	return leaves + (leaves > 4 ? (leaves + per - 1) / per : 0);
}

/*
 * A journal cleared by this run's repairs, made anew once the filesystem
 * is clean (e2fsck recreates it at the end of its run: features such as
 * orphan_file want one). Its size is mke2fs's default for the filesystem.
 */
errcode_t repair_journal_recreate(ext2_filsys fs)
{
	struct ext2fs_journal_params params;
	blk64_t first = fs->super->s_first_data_block, used = 0, free_blocks, need;
	errcode_t err;

	if (ext2fs_has_feature_journal(fs->super) || !(fs->flags & EXT2_FLAG_RW))
		return 0;
	err = ext2fs_get_journal_params(&params, fs);
	if (!err && !fs->block_map)
		err = fs_read_bitmaps(fs);
	if (!err)
		err = ext2fs_count_used_clusters(fs, first, ext2fs_blocks_count(fs->super) - 1, &used);
	if (err)
		return err;
	/*
	 * Room first: libext2fs stops where the blocks run out and leaves
	 * what it made so far (an inode 8 with blocks, no journal feature),
	 * which the next check finds (e2fsck leaves it so). Its blocks and
	 * the extent tree over them: no more extents than free runs, and no
	 * tree block while they fit in the inode, so that a journal that
	 * fits exactly is made, as e2fsck makes it.
	 */
	free_blocks = EXT2FS_NUM_B2C(fs, ext2fs_blocks_count(fs->super) - first);
	free_blocks = free_blocks > used ? EXT2FS_C2B(fs, free_blocks - used) : 0;
	need = (blk64_t)params.num_journal_blocks + params.num_fc_blocks;
	if (free_blocks < need + journal_tree_blocks(fs, need))
		return EXT2_ET_BLOCK_ALLOC_FAIL;
	/*
	 * NO_MNT_CHECK: the session refused a mounted filesystem before any
	 * repair. libext2fs's own check would look the image's name up among
	 * the machine's mounts and loop devices (a name held in memory too,
	 * on every fuzz run), and for a mounted one write the journal as a
	 * file through the mount point.
	 */
	if (!err)
		err = ext2fs_add_journal_inode3(fs, &params, ~0ULL, EXT2_MKJOURNAL_NO_MNT_CHECK);
	/*
	 * The round that follows checks what is in memory against the
	 * checksums, as after any round's repairs: the bitmaps that took the
	 * journal's blocks are written (their checksums go into the
	 * descriptors), and the superblock's checksum follows its new fields.
	 */
	if (!err)
		err = repair_write_bitmaps(fs);
	if (!err)
		ext2fs_superblock_csum_set(fs, fs->super);
	return err;
}

/*
 * No root directory: a new, empty one at inode 2 (the rest comes back
 * through lost+found). libext2fs counts the inode as newly taken; the
 * round's rebuild of the bitmaps may have marked it in use already (a
 * reserved inode), and counted it then: counted once only, or the next
 * round finds the free inode counts one short.
 */
errcode_t repair_root(struct check_ctx *c)
{
	ext2_filsys fs = c->fs;
	dgrp_t g = ext2fs_group_of_ino(fs, EXT2_ROOT_INO);
	int marked = fs->inode_map && ext2fs_test_inode_bitmap2(fs->inode_map, EXT2_ROOT_INO);
	errcode_t err = ext2fs_mkdir(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, NULL);

	if (!err && marked) {
		ext2fs_bg_free_inodes_count_set(fs, g, ext2fs_bg_free_inodes_count(fs, g) + 1);
		ext2fs_group_desc_csum_set(fs, g);
		fs->super->s_free_inodes_count++;
		ext2fs_mark_super_dirty(fs);
	}
	return err;
}

/* A directory's extents marked uninitialized: the kernel reads its blocks all the same. */
errcode_t repair_dir_uninit(struct check_ctx *c, ext2_ino_t ino)
{
	ext2_extent_handle_t h;
	struct ext2fs_extent e;
	int op = EXT2_EXTENT_ROOT;
	unsigned steps = 0;
	errcode_t err = ext2fs_extent_open(c->fs, ino, &h);

	if (err)
		return err;
	while (steps++ < (1u << 22)) {
		err = ext2fs_extent_get(h, op, &e);
		op = EXT2_EXTENT_NEXT_LEAF;
		if (err == EXT2_ET_EXTENT_NO_NEXT) {
			err = 0;
			break;
		}
		if (err)
			break;
		if (!(e.e_flags & EXT2_EXTENT_FLAGS_LEAF) || !(e.e_flags & EXT2_EXTENT_FLAGS_UNINIT))
			continue;
		e.e_flags &= ~EXT2_EXTENT_FLAGS_UNINIT;
		err = ext2fs_extent_replace(h, 0, &e);
		if (err)
			break;
	}
	ext2fs_extent_free(h);
	return err;
}

/*
 * A gap before one of a directory's extents (E4R_PR_DIR_EXTENT_GAP): the
 * extent starting at logical block F->found (physical F->blk) now starts at
 * F->expected, and the index entries above it follow. Pass 1 computed the
 * directory's size and blocks with the extent moved already.
 */
errcode_t repair_dir_extent_gap(struct check_ctx *c, const struct check_finding *f)
{
	ext2_extent_handle_t h;
	struct ext2fs_extent e;
	errcode_t err;

	if (f->ino == E4R_NONE || f->ino > c->inodes || f->found > UINT32_MAX ||
	    f->expected >= f->found)
		return EINVAL;
	err = ext2fs_extent_open(c->fs, (ext2_ino_t)f->ino, &h);
	if (err)
		return err;
	err = ext2fs_extent_goto(h, f->found);
	if (!err)
		err = ext2fs_extent_get(h, EXT2_EXTENT_CURRENT, &e);
	/* only the extent the check saw: anything else there is left to the next round */
	if (!err && (e.e_lblk != f->found || e.e_pblk != f->blk))
		err = EXT2_ET_EXTENT_NOT_FOUND;
	if (!err) {
		e.e_lblk = f->expected;
		err = ext2fs_extent_replace(h, 0, &e);
	}
	if (!err)
		err = ext2fs_extent_fix_parents(h);
	ext2fs_extent_free(h);
	return err;
}

/*
 * An invalid bad blocks inode is zeroed (an empty list), and the list
 * libext2fs keeps for its inode scan is dropped so that the next round
 * reads every inode table block.
 */
errcode_t repair_bad_blocks_inode(struct check_ctx *c)
{
	ext2_filsys fs = c->fs;
	struct ext2_inode in;
	errcode_t err;

	memset(&in, 0, sizeof(in));
	err = ext2fs_write_inode(fs, EXT2_BAD_INO, &in);
	if (err)
		return err;
	if (fs->badblocks) {
		ext2fs_badblocks_list_free(fs->badblocks);
		fs->badblocks = NULL;
	}
	return 0;
}

/*
 * resize_inode with meta_bg: meta_bg has no reserved descriptor blocks, so
 * the resize inode goes (as e2fsck decides); its blocks are freed by the
 * next round's bitmap rebuild.
 */
/*
 * A resize inode that does not describe the reserved descriptor blocks: like
 * e2fsck, zeroed and made again by libext2fs (its double indirect block is
 * allocated from the bitmaps, which the round has rebuilt by then).
 */
errcode_t repair_resize_inode_recreate(struct check_ctx *c)
{
	ext2_filsys fs = c->fs;
	struct ext2_inode in;
	errcode_t err;

	memset(&in, 0, sizeof(in));
	err = ext2fs_write_inode(fs, EXT2_RESIZE_INO, &in);
	if (!err)
		err = ext2fs_create_resize_inode(fs);
	return err;
}

errcode_t repair_resize_inode_off(struct check_ctx *c)
{
	ext2_filsys fs = c->fs;
	struct ext2_inode in;
	errcode_t err;

	memset(&in, 0, sizeof(in));
	err = ext2fs_write_inode(fs, EXT2_RESIZE_INO, &in);
	if (err)
		return err;
	ext2fs_clear_feature_resize_inode(fs->super);
	fs->super->s_reserved_gdt_blocks = 0;
	ext2fs_mark_super_dirty(fs);
	return 0;
}
