/* Replaying committed fast-commit tags into a filesystem (the kernel's ext4_fc_replay), through libext2fs. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fc_replay.h"
#include "e4r_err.h"

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

static errcode_t touch(struct fc_ctx *c, ext2_ino_t ino)
{
	unsigned i;

	for (i = 0; i < c->ninodes; i++)
		if (c->inodes[i] == ino)
			return 0;
	if (c->ninodes == c->cap) {
		unsigned ncap = c->cap ? c->cap * 2 : 32;
		ext2_ino_t *p = realloc(c->inodes, ncap * sizeof(*p));
		if (!p)
			return EXT2_ET_NO_MEMORY;
		c->inodes = p;
		c->cap = ncap;
	}
	c->inodes[c->ninodes++] = ino;
	return 0;
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
	err = ext2fs_read_inode_full(c->fs, t->ino, (struct ext2_inode *)buf, isize);
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
	err = ext2fs_read_inode(c->fs, t->ino, &inode);
	if (!err)
		err = ext2fs_punch(c->fs, t->ino, &inode, NULL, t->lblk, (blk64_t)t->lblk + t->nblocks - 1);
	return err ? err : touch(c, t->ino);
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

/* CREAT and LINK: add the dentry unless it is there already. */
static errcode_t replay_link(struct fc_ctx *c, const struct jbd_fc_tag *t)
{
	struct ext2_inode inode;
	ext2_ino_t found;
	errcode_t err;
	int ft;

	if (!ext2fs_lookup(c->fs, t->parent, t->name, t->name_len, NULL, &found))
		return found == t->ino ? 0 : EXT2_ET_DIR_EXISTS;
	err = ext2fs_read_inode(c->fs, t->ino, &inode);
	if (err)
		return err;
	if (LINUX_S_ISDIR(inode.i_mode) && t->tag == JBD_FC_TAG_CREAT)
		return E4R_NOT_IMPLEMENTED;	/* a new directory needs its . and .. block: not done yet */
	ft = dirent_type(inode.i_mode);
	err = ext2fs_link(c->fs, t->parent, t->name, t->ino, ft);
	if (err == EXT2_ET_DIR_NO_SPACE) {
		err = ext2fs_expand_dir(c->fs, t->parent);
		if (!err)
			err = ext2fs_link(c->fs, t->parent, t->name, t->ino, ft);
	}
	if (!err)
		err = touch(c, t->parent);
	return err ? err : touch(c, t->ino);
}

/* UNLINK: remove the dentry and one link; an inode left with none is freed (the kernel's orphan cleanup). */
static errcode_t replay_unlink(struct fc_ctx *c, const struct jbd_fc_tag *t)
{
	struct ext2_inode inode;
	errcode_t err;

	err = ext2fs_unlink(c->fs, t->parent, t->name, t->ino, 0);
	if (err == EXT2_ET_DIR_NO_SPACE)	/* libext2fs's "not found" */
		return 0;
	if (!err)
		err = ext2fs_read_inode(c->fs, t->ino, &inode);
	if (err)
		return err;
	if (inode.i_links_count)
		inode.i_links_count--;
	if (!inode.i_links_count && !LINUX_S_ISDIR(inode.i_mode)) {
		if (ext2fs_inode_has_valid_blocks2(c->fs, &inode))
			err = ext2fs_punch(c->fs, t->ino, &inode, NULL, 0, ~0ULL);
		inode.i_dtime = c->fs->now ? c->fs->now : time(NULL);
		if (!err)
			ext2fs_inode_alloc_stats2(c->fs, t->ino, -1, 0);
	}
	if (!err)
		err = ext2fs_write_inode(c->fs, t->ino, &inode);
	if (!err)
		err = touch(c, t->parent);
	return err;
}

static errcode_t replay_tag(struct fc_ctx *c, const struct jbd_fc_tag *t)
{
	if (t->value_error)
		return t->value_error;
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

/* Count one block of an inode (data or tree) and mark it used. */
static int count_block(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref_blk,
		       int ref_offset, void *priv)
{
	blk64_t *n = priv;

	(void)blockcnt; (void)ref_blk; (void)ref_offset;
	if (*blocknr >= ext2fs_blocks_count(fs->super))
		return BLOCK_ABORT;
	ext2fs_mark_block_bitmap2(fs->block_map, *blocknr);
	(*n)++;
	return 0;
}

/* A touched inode: its blocks marked used, i_blocks recounted, the inode bitmap bit set while it has links. */
static errcode_t settle_inode(struct fc_ctx *c, ext2_ino_t ino)
{
	struct ext2_inode inode;
	blk64_t n = 0;
	errcode_t err;

	err = ext2fs_read_inode(c->fs, ino, &inode);
	if (err)
		return err;
	if (!inode.i_links_count)
		return 0;
	ext2fs_mark_inode_bitmap2(c->fs->inode_map, ino);
	if (!ext2fs_inode_has_valid_blocks2(c->fs, &inode))
		return 0;
	err = ext2fs_block_iterate3(c->fs, ino, BLOCK_FLAG_READ_ONLY, NULL, count_block, &n);
	if (err)
		return err;
	err = ext2fs_iblk_set(c->fs, &inode, n);
	return err ? err : ext2fs_write_inode(c->fs, ino, &inode);
}

static void note_error(struct e4r_fc_replay_result *res, errcode_t err, unsigned i)
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

static errcode_t replay_all(struct fc_ctx *c, struct e4r_fc_replay_result *res)
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
	err = ext2fs_calculate_summary_stats(c->fs, 0);
	if (!err)
		err = set_error_flag(c->fs, 0);
	return err;
}

errcode_t e4r_fc_replay(ext2_filsys fs, const struct jbd_fc *fc, struct e4r_fc_replay_result *res)
{
	struct fc_ctx c;
	errcode_t err;

	memset(res, 0, sizeof(*res));
	if (fc->stop_error || !fc->ncommitted)
		return 0;
	if (!(fs->flags & EXT2_FLAG_RW))
		return EXT2_ET_RO_FILSYS;
	err = ext2fs_read_bitmaps(fs);
	if (!err)
		err = set_error_flag(fs, 1);
	if (err)
		return err;
	memset(&c, 0, sizeof(c));
	c.fs = fs;
	c.fc = fc;
	c.old_priv = fs->priv_data;
	fs->priv_data = &c;
	ext2fs_set_alloc_block_callback(fs, alloc_block, &c.old_alloc);
	err = replay_all(&c, res);
	ext2fs_set_alloc_block_callback(fs, c.old_alloc, NULL);
	fs->priv_data = c.old_priv;
	free(c.inodes);
	return err;
}
