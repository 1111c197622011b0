/*
 * Delayed allocation: file data written by an operation stays in memory, without blocks,
 * until the next commit (sync) writes the files back, oldest dirtied first, the way
 * ext4's writeback maps each run of dirty blocks with one mballoc request.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fs/goal.h"
#include "util/e4r_err.h"
#include "write/fsops.h"

/* MAX_WRITEPAGES_EXTENT_LEN: writeback maps at most this many blocks in one request. */
#define DA_MAX_EXTENT	2048

unsigned char *write_da_lookup(struct write_fs *f, ext2_ino_t ino, blk64_t lblk)
{
	for (unsigned i = 0; i < f->nda; i++)
		if (f->da[i].ino == ino && f->da[i].lblk == lblk)
			return f->da[i].data;
	return NULL;
}

/*
 * ext4_da_reserve_space: a dirty block needs a free block kept for it; root may use
 * the reserved blocks but not s_resv_clusters (2% of the filesystem, at most 4096).
 */
static int da_space_left(struct write_fs *f)
{
	blk64_t total = ext2fs_blocks_count(f->fs->super), resv = total / 50;

	if (resv > 4096)
		resv = 4096;
	return ext2fs_free_blocks_count(f->fs->super) >= (blk64_t)f->nda + 1 + resv;
}

errcode_t write_da_add(struct write_fs *f, ext2_ino_t ino, blk64_t lblk, const unsigned char *data)
{
	errcode_t err;

	if (!da_space_left(f))
		return E4R_WRITE_NO_SPACE;

	if (f->nda == f->capda) {
		unsigned ncap = f->capda ? f->capda * 2 : 256;

		err = ext2fs_resize_mem(f->capda * sizeof(*f->da), ncap * sizeof(*f->da), &f->da);
		if (err)
			return err;
		f->capda = ncap;
	}
	err = ext2fs_get_mem(f->fs->blocksize, &f->da[f->nda].data);
	if (err)
		return err;
	memcpy(f->da[f->nda].data, data, f->fs->blocksize);
	f->da[f->nda].ino = ino;
	f->da[f->nda].lblk = lblk;
	f->nda++;
	return 0;
}

/* Forget the dirty blocks of INO from logical block FROM on (truncate, unlink); keeps the order. */
void write_da_drop(struct write_fs *f, ext2_ino_t ino, blk64_t from)
{
	unsigned i, j = 0;

	for (i = 0; i < f->nda; i++) {
		if (f->da[i].ino == ino && f->da[i].lblk >= from) {
			ext2fs_free_mem(&f->da[i].data);
			continue;
		}
		f->da[j++] = f->da[i];
	}
	f->nda = j;
}

errcode_t write_da_dirtied(struct write_fs *f, ext2_ino_t ino)
{
	errcode_t err;

	for (unsigned i = 0; i < f->ndirty; i++)
		if (f->dirty_ino[i] == ino)
			return 0;
	if (f->ndirty == f->capdirty) {
		unsigned ncap = f->capdirty ? f->capdirty * 2 : 64;

		err = ext2fs_resize_mem(f->capdirty * sizeof(*f->dirty_ino), ncap * sizeof(*f->dirty_ino),
					&f->dirty_ino);
		if (err)
			return err;
		f->capdirty = ncap;
	}
	f->dirty_ino[f->ndirty++] = ino;
	return 0;
}

void write_da_forget(struct write_fs *f, ext2_ino_t ino)
{
	unsigned j = 0;

	for (unsigned i = 0; i < f->ndirty; i++)
		if (f->dirty_ino[i] != ino)
			f->dirty_ino[j++] = f->dirty_ino[i];
	f->ndirty = j;
}

int write_da_has(struct write_fs *f, ext2_ino_t ino)
{
	for (unsigned i = 0; i < f->nda; i++)
		if (f->da[i].ino == ino)
			return 1;
	return 0;
}

void write_da_free(struct write_fs *f)
{
	ext2fs_free_mem(&f->dirty_ino);
	f->ndirty = f->capdirty = 0;
	for (unsigned i = 0; i < f->nda; i++)
		ext2fs_free_mem(&f->da[i].data);
	ext2fs_free_mem(&f->da);
	f->nda = f->capda = 0;
}

static int by_lblk(const void *x, const void *y)
{
	const struct write_da_block *a = x, *b = y;

	return a->lblk < b->lblk ? -1 : a->lblk > b->lblk;
}

/*
 * ext4_ext_find_goal: the extent the lookup of LBLK ends on (the one holding or before
 * it, else the first) says where LBLK would lie if it went on; a file without
 * extents continues the block before; else the inode's goal. A tree that cannot be
 * opened (out of memory: the writer's own files are sound) is an error, not a file
 * without extents to go by.
 */
static errcode_t run_goal(struct write_fs *f, ext2_ino_t ino, struct ext2_inode *inode, blk64_t lblk,
			  blk64_t *out)
{
	blk64_t prev = 0, goal = 0;
	ext2_extent_handle_t h;
	struct ext2fs_extent e;
	errcode_t err;

	if (inode->i_flags & EXT4_EXTENTS_FL) {
		if ((err = ext2fs_extent_open2(f->fs, ino, inode, &h)))
			return err;
		err = ext2fs_extent_goto2(h, 0, lblk);
		if ((!err || err == EXT2_ET_EXTENT_NOT_FOUND) &&
		    !ext2fs_extent_get(h, EXT2_EXTENT_CURRENT, &e) && e.e_pblk && e.e_len)
			goal = lblk >= e.e_lblk ? e.e_pblk + (lblk - e.e_lblk) : e.e_pblk - (e.e_lblk - lblk);
		ext2fs_extent_free(h);
		*out = goal ? goal : fs_inode_goal(f->fs, ino, 1);
		return 0;
	}
	if (lblk > 0 && (err = ext2fs_bmap2(f->fs, ino, inode, NULL, 0, lblk - 1, NULL, &prev)))
		return err;
	*out = prev ? prev + 1 : fs_inode_goal(f->fs, ino, 1);
	return 0;
}

/*
 * ext4_ext_search_left / _right: the last mapped block before LBLK and the first
 * after it, each as its logical and physical number (physical 0: none), which keep
 * an inode preallocation's range off blocks the file already has.
 */
static errcode_t neighbours(struct write_fs *f, ext2_ino_t ino, struct ext2_inode *inode, struct alloc_mb_req *r)
{
	blk64_t lblk = r->lend - r->len;
	ext2_extent_handle_t h;
	struct ext2fs_extent e;
	int op = EXT2_EXTENT_ROOT;
	errcode_t err;

	r->lleft = r->pleft = r->lright = r->pright = 0;
	if (!(inode->i_flags & EXT4_EXTENTS_FL))
		return 0;
	/* as in run_goal: a tree that does not open is an error, not a file with no neighbours */
	if ((err = ext2fs_extent_open2(f->fs, ino, inode, &h)))
		return err;
	for (; !ext2fs_extent_get(h, op, &e); op = EXT2_EXTENT_NEXT_LEAF) {
		if (!(e.e_flags & EXT2_EXTENT_FLAGS_LEAF) || !e.e_len)
			continue;
		if (e.e_lblk + e.e_len <= lblk) {
			r->lleft = e.e_lblk + e.e_len - 1;
			r->pleft = e.e_pblk + e.e_len - 1;
		} else if (e.e_lblk > lblk) {
			r->lright = e.e_lblk;
			r->pright = e.e_pblk;
			break;
		}
	}
	ext2fs_extent_free(h);
	return 0;
}

/*
 * The goal of an extent tree block the new extent may need: the first one (the tree
 * grows from the inode) starts from the inode's goal (ext4_ext_grow_indepth); a
 * leaf split in a deeper tree from the new extent's (ext4_ext_split); a further level
 * goes next to the tree's first index block, which is not reproduced.
 */
static blk64_t tree_block_goal(struct write_fs *f, ext2_ino_t ino, struct ext2_inode *inode, blk64_t goal)
{
	const struct ext3_extent_header *eh = (const void *)inode->i_block;

	if (!(inode->i_flags & EXT4_EXTENTS_FL))
		return 0;
	return eh->eh_depth ? goal : fs_inode_goal(f->fs, ino, 1);
}

/* ext4_writepages for one inode: its dirty blocks B[0..N), sorted by logical block. */
static errcode_t write_back_inode(struct write_fs *f, ext2_ino_t ino, struct write_da_block *b, unsigned n)
{
	struct ext2_inode inode;
	uint64_t isize;
	errcode_t err = ext2fs_read_inode(f->fs, ino, &inode);
	unsigned i = 0;

	if (err)
		return err;
	isize = (EXT2_I_SIZE(&inode) + f->fs->blocksize - 1) / f->fs->blocksize;
	while (!err && i < n) {
		struct alloc_mb_req r = { 0, 1, 1, 1, 0, isize, ino };
		unsigned got = 0;
		blk64_t start;

		while (i + r.len < n && r.len < DA_MAX_EXTENT && b[i + r.len].lblk == b[i].lblk + r.len)
			r.len++;
		err = run_goal(f, ino, &inode, b[i].lblk, &r.goal);
		r.lend = b[i].lblk + r.len;
		if (!err)
			err = neighbours(f, ino, &inode, &r);
		if (err)
			break;
		err = alloc_mb(&f->alloc, &r, &start, &got);
		f->meta_goal = tree_block_goal(f, ino, &inode, r.goal);
		for (unsigned k = 0; !err && k < got; k++) {
			blk64_t pblk = start + k;

			err = ext2fs_bmap2(f->fs, ino, &inode, NULL, BMAP_SET | BMAP_ALLOC, b[i + k].lblk, NULL, &pblk);
			if (!err)
				err = ext2fs_iblk_add_blocks(f->fs, &inode, 1);
			if (!err)
				err = jbd_writer_write_data(f->w, start + k, b[i + k].data);
		}
		f->meta_goal = 0;
		i += got;
	}
	/* what was mapped stays mapped, even when the space ran out */
	errcode_t werr = ext2fs_write_inode(f->fs, ino, &inode);

	return err ? err : werr;
}

/* Write back the dirty blocks of INO, if it has any. */
static errcode_t flush_inode(struct write_fs *f, ext2_ino_t ino)
{
	struct write_da_block *mine;
	unsigned n = 0, i, j = 0;
	errcode_t err;

	for (i = 0; i < f->nda; i++)
		n += f->da[i].ino == ino;
	if (!n)
		return 0;
	err = ext2fs_get_array(n, sizeof(*mine), &mine);
	if (err)
		return err;
	for (i = 0, n = 0; i < f->nda; i++) {
		if (f->da[i].ino == ino)
			mine[n++] = f->da[i];
		else
			f->da[j++] = f->da[i];
	}
	f->nda = j;
	qsort(mine, n, sizeof(*mine), by_lblk);
	err = write_back_inode(f, ino, mine, n);
	for (i = 0; i < n; i++)
		ext2fs_free_mem(&mine[i].data);
	ext2fs_free_mem(&mine);
	return err;
}

errcode_t write_da_flush(struct write_fs *f)
{
	errcode_t err = 0;

	/* the files in the order they were first written to since the last writeback */
	for (unsigned i = 0; !err && i < f->ndirty; i++)
		err = flush_inode(f, f->dirty_ino[i]);
	f->ndirty = 0;
	/* then any left (the oldest dirtied block first) */
	while (!err && f->nda)
		err = flush_inode(f, f->da[0].ino);
	return err;
}
