/* Replaying committed fast-commit tags into a filesystem (the kernel's ext4_fc_replay), through libext2fs. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fs/bitmaps.h"
#include "fs/geometry.h"
#include "fs/inode.h"
#include "replay/fc.h"
#include "util/e4r_err.h"

/* Offsets in the on-disk inode: the block map, and where the copied fields resume. */
#define INODE_I_BLOCK_OFF	40
#define INODE_I_BLOCK_SIZE	60
#define INODE_GENERATION_OFF	100
#define EXT4_EXT_MAGIC		0xF30A
#define EXT2_MAX_LBLK		0xFFFFFFFFULL

struct fc_ctx {
	ext2_filsys		fs;
	const struct jbd_fc	*fc;
	ext2_ino_t		*inodes;	/* touched, without duplicates */
	unsigned		ninodes, cap;
	ext2_ino_t		*new_dirs;	/* directories a CREAT made here (their blocks written by us) */
	unsigned		nnew_dirs, new_dirs_cap;
	ext2fs_block_bitmap	meta;		/* the filesystem's own blocks: no range may name them */
	errcode_t		(*old_alloc)(ext2_filsys, blk64_t, blk64_t *);
	void			*old_priv;
};

/* Is BLK inside a committed ADD_RANGE? Those blocks belong to the replay, not to the allocator. */
static int excluded(const struct fc_ctx *c, blk64_t blk)
{
	unsigned i;

	for (i = 0; i < c->fc->ncommitted; i++) {
		const struct jbd_fc_tag *t = &c->fc->tags[i];
		if (t->tag == JBD_FC_TAG_ADD_RANGE && !t->value_error &&
		    blk >= t->pblk && blk < t->pblk + t->nblocks)
			return 1;
	}
	return 0;
}

/* Does [BLK, BLK + N) touch a superblock, descriptor, bitmap, inode table or the journal? */
static int on_metadata(const struct fc_ctx *c, blk64_t blk, blk64_t n)
{
	return !ext2fs_test_block_bitmap_range2(c->meta, blk, n);
}

/* Mark [BLK, BLK + N) as metadata, clipped to the filesystem (libext2fs complains on stderr otherwise). */
static void mark_meta(ext2_filsys fs, ext2fs_block_bitmap meta, blk64_t blk, blk64_t n)
{
	blk64_t end = ext2fs_blocks_count(fs->super);

	if (blk < fs->super->s_first_data_block || blk >= end)
		return;
	ext2fs_mark_block_bitmap_range2(meta, blk, n < end - blk ? n : end - blk);
}

static int mark_meta_block(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref_blk,
			   int ref_offset, void *priv)
{
	(void)blockcnt; (void)ref_blk; (void)ref_offset;
	mark_meta(fs, priv, *blocknr, 1);
	return 0;
}

/*
 * The blocks no fast-commit range may map: each group's superblock and
 * descriptor copies, bitmaps and inode table, and the journal's and the
 * resize inode's blocks. A range there would have a directory written over
 * them, or a file that shares them.
 */
static errcode_t build_metadata_map(struct fc_ctx *c)
{
	ext2_filsys fs = c->fs;
	dgrp_t g;
	errcode_t err;

	err = ext2fs_allocate_block_bitmap(fs, "fast-commit metadata", &c->meta);
	if (err)
		return err;
	for (g = 0; g < fs->group_desc_count; g++) {
		fs_reserve_super_and_bgd(fs, g, c->meta);
		mark_meta(fs, c->meta, ext2fs_block_bitmap_loc(fs, g), 1);
		mark_meta(fs, c->meta, ext2fs_inode_bitmap_loc(fs, g), 1);
		mark_meta(fs, c->meta, ext2fs_inode_table_loc(fs, g), fs->inode_blocks_per_group);
	}
	if (fs->super->s_journal_inum && !fs->super->s_journal_dev)
		ext2fs_block_iterate3(fs, fs->super->s_journal_inum, BLOCK_FLAG_READ_ONLY, NULL,
				      mark_meta_block, c->meta);
	if (ext2fs_has_feature_resize_inode(fs->super))
		ext2fs_block_iterate3(fs, EXT2_RESIZE_INO, BLOCK_FLAG_READ_ONLY, NULL, mark_meta_block, c->meta);
	return 0;
}

/* The reserved inodes (bad blocks, journal, resize, ...) are no tag's business; the root only as a parent or by INODE. */
static int reserved_ino(ext2_filsys fs, ext2_ino_t ino)
{
	return ino != EXT2_ROOT_INO && ino < EXT2_FIRST_INODE(fs->super);
}

/* Tag values the parser cannot judge alone: reserved inodes, ranges over the filesystem's own blocks. */
static errcode_t check_tag(const struct fc_ctx *c, const struct jbd_fc_tag *t)
{
	switch (t->tag) {
	case JBD_FC_TAG_ADD_RANGE:
		if (on_metadata(c, t->pblk, t->nblocks))
			return E4R_FC_BAD_RANGE;
		/* fall through */
	case JBD_FC_TAG_INODE:
	case JBD_FC_TAG_DEL_RANGE:
		return reserved_ino(c->fs, t->ino) ? E4R_FC_BAD_INODE : 0;
	case JBD_FC_TAG_CREAT:
	case JBD_FC_TAG_LINK:
	case JBD_FC_TAG_UNLINK:
		return reserved_ino(c->fs, t->parent) || reserved_ino(c->fs, t->ino) ||
		       t->ino == EXT2_ROOT_INO ? E4R_FC_BAD_INODE : 0;
	default:
		return 0;
	}
}

/* libext2fs's allocator, steered off the excluded blocks (extent tree blocks, directory blocks). */
static errcode_t alloc_block(ext2_filsys fs, blk64_t goal, blk64_t *ret)
{
	struct fc_ctx *c = fs->priv_data;
	blk64_t b, tries;
	errcode_t err;

	for (tries = 0; tries < ext2fs_blocks_count(fs->super); tries++) {
		err = ext2fs_new_block2(fs, goal, fs->block_map, &b);
		if (err)
			return err;
		if (!excluded(c, b)) {
			ext2fs_block_alloc_stats2(fs, b, +1);
			*ret = b;
			return 0;
		}
		goal = b + 1 < ext2fs_blocks_count(fs->super) ? b + 1 : fs->super->s_first_data_block;
	}
	return EXT2_ET_BLOCK_ALLOC_FAIL;
}

/* Add INO to the set *SET (N entries, CAP room) unless it is there. */
static errcode_t set_add(ext2_ino_t **set, unsigned *n, unsigned *cap, ext2_ino_t ino)
{
	unsigned i;

	for (i = 0; i < *n; i++)
		if ((*set)[i] == ino)
			return 0;
	if (*n == *cap) {
		unsigned ncap = *cap ? *cap * 2 : 32;
		ext2_ino_t *p = realloc(*set, ncap * sizeof(*p));
		if (!p)
			return EXT2_ET_NO_MEMORY;
		*set = p;
		*cap = ncap;
	}
	(*set)[(*n)++] = ino;
	return 0;
}

static int set_has(const ext2_ino_t *set, unsigned n, ext2_ino_t ino)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (set[i] == ino)
			return 1;
	return 0;
}

static errcode_t touch(struct fc_ctx *c, ext2_ino_t ino)
{
	return set_add(&c->inodes, &c->ninodes, &c->cap, ino);
}

/* INODE: the logged inode over the disk's, except the block map (unless inline data). */
static errcode_t replay_inode(struct fc_ctx *c, const struct jbd_fc_tag *t)
{
	unsigned isize = EXT2_INODE_SIZE(c->fs->super), n = t->raw_inode_len;
	unsigned char *buf;
	struct ext3_extent_header *eh;
	struct ext2_inode *in;
	errcode_t err;

	if (n > isize || n < INODE_GENERATION_OFF)
		return E4R_FC_BAD_INODE;
	buf = calloc(1, isize);
	if (!buf)
		return EXT2_ET_NO_MEMORY;
	err = fs_read_inode_full(c->fs, t->ino, (struct ext2_inode *)buf, isize);
	if (!err) {
		memcpy(buf, t->raw_inode, INODE_I_BLOCK_OFF);
		memcpy(buf + INODE_GENERATION_OFF, t->raw_inode + INODE_GENERATION_OFF, n - INODE_GENERATION_OFF);
		in = (struct ext2_inode *)buf;
		eh = (struct ext3_extent_header *)in->i_block;
		if (in->i_flags & EXT4_INLINE_DATA_FL)
			memcpy(in->i_block, t->raw_inode + INODE_I_BLOCK_OFF, INODE_I_BLOCK_SIZE);
		else if ((in->i_flags & EXT4_EXTENTS_FL) && eh->eh_magic != EXT4_EXT_MAGIC) {
			memset(in->i_block, 0, INODE_I_BLOCK_SIZE);
			eh->eh_magic = EXT4_EXT_MAGIC;
			eh->eh_max = (INODE_I_BLOCK_SIZE - sizeof(*eh)) / sizeof(struct ext3_extent);
		}
		/* A directory made by this replay has linear blocks, whatever the logged flags say. */
		if (set_has(c->new_dirs, c->nnew_dirs, t->ino))
			in->i_flags &= ~EXT2_INDEX_FL;
		err = ext2fs_write_inode_full(c->fs, t->ino, in, isize);
	}
	free(buf);
	return err ? err : touch(c, t->ino);
}

/* ADD_RANGE: map [lblk, lblk+len) to [pblk, ...), freeing blocks it replaces. */
static errcode_t replay_add_range(struct fc_ctx *c, const struct jbd_fc_tag *t)
{
	ext2_extent_handle_t h = NULL;
	blk64_t old;
	uint32_t i;
	errcode_t err;

	err = ext2fs_extent_open(c->fs, t->ino, &h);
	for (i = 0; !err && i < t->nblocks; i++) {
		old = 0;
		if (ext2fs_bmap2(c->fs, t->ino, NULL, NULL, 0, (blk64_t)t->lblk + i, NULL, &old))
			old = 0;
		if (old == t->pblk + i)
			continue;
		err = ext2fs_extent_set_bmap(h, (blk64_t)t->lblk + i, t->pblk + i,
					     t->unwritten ? EXT2_EXTENT_SET_BMAP_UNINIT : 0);
		if (!err && old && !excluded(c, old))
			ext2fs_unmark_block_bitmap2(c->fs->block_map, old);
	}
	ext2fs_extent_free(h);
	return err ? err : touch(c, t->ino);
}

/* DEL_RANGE: unmap and free [lblk, lblk+len). */
static errcode_t replay_del_range(struct fc_ctx *c, const struct jbd_fc_tag *t)
{
	struct ext2_inode inode;
	errcode_t err;

	if (!t->nblocks)
		return 0;
	err = fs_read_inode(c->fs, t->ino, &inode);
	if (!err)
		err = ext2fs_punch(c->fs, t->ino, &inode, NULL, t->lblk, (blk64_t)t->lblk + t->nblocks - 1);
	return err ? err : touch(c, t->ino);
}

/*
 * An inode the replay left with no link: its blocks and itself freed,
 * once (a set dtime says it was). The root and reserved inodes stay.
 */
static errcode_t free_inode(struct fc_ctx *c, ext2_ino_t ino, struct ext2_inode *inode)
{
	errcode_t err = 0;

	if (ino < EXT2_FIRST_INODE(c->fs->super) || inode->i_dtime)
		return 0;
	if (ext2fs_inode_has_valid_blocks2(c->fs, inode))
		err = ext2fs_punch(c->fs, ino, inode, NULL, 0, ~0ULL);
	if (err)
		return err;
	inode->i_dtime = c->fs->now ? c->fs->now : time(NULL);
	err = ext2fs_write_inode(c->fs, ino, inode);
	if (!err)
		ext2fs_unmark_inode_bitmap2(c->fs->inode_map, ino);
	return err;
}

/* The directory entry's file type for MODE. */
static int dirent_type(uint16_t mode)
{
	if (LINUX_S_ISREG(mode))	return EXT2_FT_REG_FILE;
	if (LINUX_S_ISDIR(mode))	return EXT2_FT_DIR;
	if (LINUX_S_ISCHR(mode))	return EXT2_FT_CHRDEV;
	if (LINUX_S_ISBLK(mode))	return EXT2_FT_BLKDEV;
	if (LINUX_S_ISLNK(mode))	return EXT2_FT_SYMLINK;
	if (LINUX_S_ISFIFO(mode))	return EXT2_FT_FIFO;
	if (LINUX_S_ISSOCK(mode))	return EXT2_FT_SOCK;
	return EXT2_FT_UNKNOWN;
}

/* Write one directory block of DIR: "." and ".." (to PARENT) when FIRST, else one empty entry. */
static errcode_t write_dir_block(ext2_filsys fs, blk64_t blk, ext2_ino_t dir, ext2_ino_t parent, int first)
{
	char *buf = NULL;
	errcode_t err;

	err = ext2fs_new_dir_block(fs, first ? dir : 0, first ? parent : 0, &buf);
	if (!err)
		err = ext2fs_write_dir_block4(fs, blk, buf, 0, dir);
	ext2fs_free_mem(&buf);
	return err;
}

struct dir_init {
	struct fc_ctx	*c;
	ext2_ino_t	dir, parent;
	errcode_t	err;
};

/* Each data block the fast commit mapped into the new directory: "." and ".." first, empty after. */
static int init_dir_block(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref_blk,
			  int ref_offset, void *priv)
{
	struct dir_init *d = priv;

	(void)ref_blk; (void)ref_offset;
	if (blockcnt < 0)
		return 0;		/* extent tree blocks */
	if (*blocknr >= ext2fs_blocks_count(fs->super)) {
		d->err = E4R_FC_BAD_RANGE;
		return BLOCK_ABORT;
	}
	/* Only blocks the log brought are ours to write: anything else already held this directory. */
	if (!excluded(d->c, *blocknr) || on_metadata(d->c, *blocknr, 1))
		return 0;
	d->err = write_dir_block(fs, *blocknr, d->dir, d->parent, blockcnt == 0);
	return d->err ? BLOCK_ABORT : 0;
}

/*
 * A directory a CREAT makes. Fast commits never log directory blocks, so
 * the blocks ADD_RANGE mapped into it hold whatever the disk had: give the
 * first "." and ".." and every other one an empty entry, so that the dentry
 * tags that follow can go in (the kernel's replay makes the first block
 * anew for the same reason). With no block at 0, one is allocated. An
 * inline directory came whole with its INODE tag. The htree flag goes: the
 * blocks are linear now.
 */
static errcode_t init_new_dir(struct fc_ctx *c, ext2_ino_t dir, ext2_ino_t parent)
{
	ext2_filsys fs = c->fs;
	struct ext2_inode inode;
	struct dir_init d = { c, dir, parent, 0 };
	blk64_t blk = 0;
	errcode_t err;

	err = fs_read_inode(fs, dir, &inode);
	if (err || (inode.i_flags & EXT4_INLINE_DATA_FL))
		return err;
	if (ext2fs_bmap2(fs, dir, &inode, NULL, 0, 0, NULL, &blk) || !blk) {
		err = ext2fs_bmap2(fs, dir, &inode, NULL, BMAP_ALLOC, 0, NULL, &blk);
		if (!err)
			err = write_dir_block(fs, blk, dir, parent, 1);
		if (!err)
			err = fs_read_inode(fs, dir, &inode);
		if (err)
			return err;
	}
	err = ext2fs_block_iterate3(fs, dir, BLOCK_FLAG_READ_ONLY, NULL, init_dir_block, &d);
	if (!err)
		err = d.err;
	if (err)
		return err;
	inode.i_flags &= ~EXT2_INDEX_FL;
	if (EXT2_I_SIZE(&inode) < fs->blocksize)
		inode.i_size = fs->blocksize;
	err = ext2fs_write_inode(fs, dir, &inode);
	return err ? err : set_add(&c->new_dirs, &c->nnew_dirs, &c->new_dirs_cap, dir);
}

/*
 * Add DELTA (+1 or -1) to INO's link count. A directory's count past the
 * limit stays 1, as dir_nlink has it; a count never goes below 0.
 */
static errcode_t add_links(ext2_filsys fs, ext2_ino_t ino, int delta)
{
	struct ext2_inode inode;
	errcode_t err;

	err = fs_read_inode(fs, ino, &inode);
	if (err)
		return err;
	if (delta < 0) {
		if (inode.i_links_count > 0 && !(LINUX_S_ISDIR(inode.i_mode) && inode.i_links_count == 1))
			inode.i_links_count--;
	} else if (LINUX_S_ISDIR(inode.i_mode) &&
		   (inode.i_links_count == 1 || inode.i_links_count >= EXT2_LINK_MAX - 1)) {
		inode.i_links_count = 1;
	} else if (inode.i_links_count < EXT2_LINK_MAX) {
		inode.i_links_count++;
	}
	return ext2fs_write_inode(fs, ino, &inode);
}

static errcode_t set_links(ext2_filsys fs, ext2_ino_t ino, unsigned links)
{
	struct ext2_inode inode;
	errcode_t err;

	err = fs_read_inode(fs, ino, &inode);
	if (err)
		return err;
	inode.i_links_count = links;
	return ext2fs_write_inode(fs, ino, &inode);
}

/*
 * CREAT and LINK: add the dentry unless it is there already (a replay run
 * again, or a directory block a full commit wrote). Link counts move as the
 * names do, as in the kernel's replay: a LINK adds one; a CREAT makes a file
 * with one link, a directory with two ("." and its name) and one more for
 * its parent's "..". An INODE tag later in the area sets the count the
 * filesystem had at commit time.
 */
static errcode_t replay_link(struct fc_ctx *c, const struct jbd_fc_tag *t)
{
	struct ext2_inode inode, pinode;
	ext2_ino_t found;
	errcode_t err;
	int ft, new_dir;

	if (!ext2fs_lookup(c->fs, t->parent, t->name, t->name_len, NULL, &found))
		return found == t->ino ? 0 : EXT2_ET_DIR_EXISTS;
	err = fs_read_inode(c->fs, t->ino, &inode);
	if (!err)
		err = fs_read_inode(c->fs, t->parent, &pinode);
	if (err)
		return err;
	if (!LINUX_S_ISDIR(pinode.i_mode))
		return EXT2_ET_NO_DIRECTORY;
	new_dir = LINUX_S_ISDIR(inode.i_mode);
	if (new_dir && t->tag != JBD_FC_TAG_CREAT)
		return EXT2_ET_DIR_CORRUPTED;		/* no hard link to a directory */
	if (new_dir) {
		if (t->ino == t->parent || t->ino == EXT2_ROOT_INO)
			return EXT2_ET_DIR_CORRUPTED;	/* a directory inside itself */
		err = init_new_dir(c, t->ino, t->parent);
		if (err)
			return err;
	}
	ft = dirent_type(inode.i_mode);
	err = ext2fs_link(c->fs, t->parent, t->name, t->ino, ft);
	if (err == EXT2_ET_DIR_NO_SPACE) {
		err = ext2fs_expand_dir(c->fs, t->parent);
		if (!err)
			err = ext2fs_link(c->fs, t->parent, t->name, t->ino, ft);
	}
	if (err)
		return err;
	if (t->tag == JBD_FC_TAG_LINK)
		err = add_links(c->fs, t->ino, +1);
	else
		err = set_links(c->fs, t->ino, new_dir ? 2 : 1);
	if (!err && new_dir)
		err = add_links(c->fs, t->parent, +1);
	if (!err)
		err = touch(c, t->parent);
	return err ? err : touch(c, t->ino);
}

/*
 * UNLINK: remove the dentry and one link (a directory: both of its own and
 * its parent's ".."). An inode left with no link is freed at once, as the
 * kernel's replay does when it drops the inode: the inode number may come
 * back in a later tag as a new file. A rename logs its LINK first, so the
 * inode keeps a link through the UNLINK.
 */
static errcode_t replay_unlink(struct fc_ctx *c, const struct jbd_fc_tag *t)
{
	struct ext2_inode inode;
	errcode_t err;

	err = ext2fs_unlink(c->fs, t->parent, t->name, t->ino, 0);
	if (err == EXT2_ET_DIR_NO_SPACE)	/* libext2fs's "not found" */
		return 0;
	if (!err)
		err = fs_read_inode(c->fs, t->ino, &inode);
	if (err)
		return err;
	if (LINUX_S_ISDIR(inode.i_mode)) {
		err = set_links(c->fs, t->ino, 0);
		if (!err)
			err = add_links(c->fs, t->parent, -1);
	} else {
		err = add_links(c->fs, t->ino, -1);
	}
	if (!err)
		err = fs_read_inode(c->fs, t->ino, &inode);
	if (!err && !inode.i_links_count)
		err = free_inode(c, t->ino, &inode);
	if (!err)
		err = touch(c, t->parent);
	return err ? err : touch(c, t->ino);
}

static errcode_t replay_tag(struct fc_ctx *c, const struct jbd_fc_tag *t)
{
	errcode_t err = t->value_error ? t->value_error : check_tag(c, t);

	if (err)
		return err;
	switch (t->tag) {
	case JBD_FC_TAG_INODE:		return replay_inode(c, t);
	case JBD_FC_TAG_ADD_RANGE:	return replay_add_range(c, t);
	case JBD_FC_TAG_DEL_RANGE:	return replay_del_range(c, t);
	case JBD_FC_TAG_CREAT:
	case JBD_FC_TAG_LINK:		return replay_link(c, t);
	case JBD_FC_TAG_UNLINK:		return replay_unlink(c, t);
	default:			return 0;	/* HEAD, TAIL, PAD */
	}
}

struct block_count {
	blk64_t		n;		/* blocks, data and tree */
	e2_blkcnt_t	last;		/* highest logical block mapped, -1 if none */
};

/* Count one block of an inode (data or tree) and mark it used. */
static int count_block(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref_blk,
		       int ref_offset, void *priv)
{
	struct block_count *bc = priv;

	(void)ref_blk; (void)ref_offset;
	if (*blocknr >= ext2fs_blocks_count(fs->super))
		return BLOCK_ABORT;
	ext2fs_mark_block_bitmap2(fs->block_map, *blocknr);
	bc->n++;
	if (blockcnt > bc->last)
		bc->last = blockcnt;
	return 0;
}

/* One entry of a directory: is it a subdirectory (not "." or "..")? */
static int count_subdir(ext2_ino_t dir, int entry, struct ext2_dir_entry *de, int offset, int blocksize,
			char *buf, void *priv)
{
	unsigned *n = priv;
	int len = ext2fs_dirent_name_len(de);

	(void)dir; (void)entry; (void)offset; (void)blocksize; (void)buf;
	if (de->inode && ext2fs_dirent_file_type(de) == EXT2_FT_DIR &&
	    !(len == 1 && de->name[0] == '.') && !(len == 2 && de->name[0] == '.' && de->name[1] == '.'))
		(*n)++;
	return 0;
}

/*
 * A directory's link count from what it holds: "." and its name, and the
 * ".." of each subdirectory (past the limit, 1, as dir_nlink has it).
 * Done for every directory the replay touched.
 * Counted, not carried along tag by tag, it does not depend on which
 * INODE tags the kernel logged (a 6.x kernel logs none for directories
 * after their CREAT) nor on a replay run a second time.
 */
static errcode_t count_dir_links(ext2_filsys fs, ext2_ino_t dir, struct ext2_inode *inode)
{
	unsigned n = 0;

	/* Without file types in entries, or in a directory too damaged to walk, the count stays. */
	if (!ext2fs_has_feature_filetype(fs->super) ||
	    ext2fs_dir_iterate2(fs, dir, 0, NULL, count_subdir, &n))
		return 0;
	inode->i_links_count = 2 + n < EXT2_LINK_MAX ? 2 + n : 1;
	return 0;
}

/*
 * A touched inode: its blocks marked used, i_blocks recounted, the inode
 * bitmap bit set while it has links. A directory's size covers its blocks
 * (one the replay added to make room for an entry is past the logged size).
 */
static errcode_t settle_inode(struct fc_ctx *c, ext2_ino_t ino)
{
	struct ext2_inode inode;
	struct block_count bc = { 0, -1 };
	errcode_t err;

	err = fs_read_inode(c->fs, ino, &inode);
	if (err)
		return err;
	if (!inode.i_links_count)
		return free_inode(c, ino, &inode);
	ext2fs_mark_inode_bitmap2(c->fs->inode_map, ino);
	if (!ext2fs_inode_has_valid_blocks2(c->fs, &inode))
		return 0;
	err = ext2fs_block_iterate3(c->fs, ino, BLOCK_FLAG_READ_ONLY, NULL, count_block, &bc);
	if (!err && LINUX_S_ISDIR(inode.i_mode))
		err = count_dir_links(c->fs, ino, &inode);
	if (err)
		return err;
	err = ext2fs_iblk_set(c->fs, &inode, bc.n);
	if (!err && LINUX_S_ISDIR(inode.i_mode) && bc.last >= 0 &&
	    EXT2_I_SIZE(&inode) < (uint64_t)(bc.last + 1) * c->fs->blocksize)
		err = ext2fs_inode_size_set(c->fs, &inode, (uint64_t)(bc.last + 1) * c->fs->blocksize);
	return err ? err : ext2fs_write_inode(c->fs, ino, &inode);
}

/*
 * The used-directories count of every group holding a touched inode,
 * counted anew from the inode bitmap and the modes: directories made or
 * dropped by the replay change it, and libext2fs's summary does not count it.
 */
static errcode_t recount_used_dirs(struct fc_ctx *c)
{
	ext2_filsys fs = c->fs;
	uint32_t ipg = fs->super->s_inodes_per_group;
	struct ext2_inode inode;
	unsigned char *todo;
	ext2_ino_t ino, first;
	unsigned i, dirs;
	dgrp_t g;
	errcode_t err = 0;

	todo = calloc(fs->group_desc_count, 1);
	if (!todo)
		return EXT2_ET_NO_MEMORY;
	for (i = 0; i < c->ninodes; i++) {
		g = ext2fs_group_of_ino(fs, c->inodes[i]);
		if (g < fs->group_desc_count)
			todo[g] = 1;
	}
	for (g = 0; !err && g < fs->group_desc_count; g++) {
		if (!todo[g])
			continue;
		first = (ext2_ino_t)g * ipg + 1;
		dirs = 0;
		for (ino = first; !err && ino < first + ipg && ino <= fs->super->s_inodes_count; ino++) {
			if (!ext2fs_test_inode_bitmap2(fs->inode_map, ino))
				continue;
			err = fs_read_inode(fs, ino, &inode);
			if (!err && LINUX_S_ISDIR(inode.i_mode) && inode.i_links_count)
				dirs++;
		}
		ext2fs_bg_used_dirs_count_set(fs, g, dirs);
		ext2fs_group_desc_csum_set(fs, g);
		ext2fs_mark_super_dirty(fs);
	}
	free(todo);
	return err;
}

static void note_error(struct replay_fc_result *res, errcode_t err, unsigned i)
{
	if (!err)
		return;
	if (!res->first_error) {
		res->first_error = err;
		res->first_error_tag = i;
	}
	res->failed++;
}

static errcode_t set_error_flag(ext2_filsys fs, int on)
{
	if (on)
		fs->super->s_state |= EXT2_ERROR_FS;
	else
		fs->super->s_state &= ~EXT2_ERROR_FS;
	ext2fs_mark_super_dirty(fs);
	return ext2fs_flush(fs);
}

static errcode_t replay_all(struct fc_ctx *c, struct replay_fc_result *res)
{
	unsigned i;
	errcode_t err;

	for (i = 0; i < c->fc->ncommitted; i++) {
		err = replay_tag(c, &c->fc->tags[i]);
		note_error(res, err, i);
		if (!err)
			res->applied++;
	}
	for (i = 0; i < c->ninodes; i++)
		note_error(res, settle_inode(c, c->inodes[i]), c->fc->ncommitted);
	res->inodes = c->ninodes;
	/* Bits set directly (not through the alloc_stats calls) must still be written. */
	ext2fs_mark_ib_dirty(c->fs);
	ext2fs_mark_bb_dirty(c->fs);
	err = recount_used_dirs(c);
	if (!err)
		err = ext2fs_calculate_summary_stats(c->fs, 0);
	/* The summary leaves the unused-inode counts and checksums of untouched uninit groups stale. */
	if (!err)
		err = ext2fs_set_gdt_csum(c->fs);
	if (!err)
		err = set_error_flag(c->fs, 0);
	return err;
}

errcode_t replay_fc(ext2_filsys fs, const struct jbd_fc *fc, struct replay_fc_result *res)
{
	struct fc_ctx c;
	errcode_t err;

	memset(res, 0, sizeof(*res));
	if (fc->stop_error || !fc->ncommitted)
		return 0;
	if (!(fs->flags & EXT2_FLAG_RW))
		return EXT2_ET_RO_FILSYS;
	memset(&c, 0, sizeof(c));
	c.fs = fs;
	c.fc = fc;
	err = fs_read_bitmaps(fs);
	if (!err)
		err = build_metadata_map(&c);
	if (!err)
		err = set_error_flag(fs, 1);
	if (err) {
		if (c.meta)
			ext2fs_free_block_bitmap(c.meta);
		return err;
	}
	c.old_priv = fs->priv_data;
	fs->priv_data = &c;
	ext2fs_set_alloc_block_callback(fs, alloc_block, &c.old_alloc);
	err = replay_all(&c, res);
	ext2fs_set_alloc_block_callback(fs, c.old_alloc, NULL);
	fs->priv_data = c.old_priv;
	ext2fs_free_block_bitmap(c.meta);
	free(c.inodes);
	free(c.new_dirs);
	return err;
}
