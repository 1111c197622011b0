/* File operations over libext2fs with ext4's allocation choices; metadata goes to the journal. */
#include "config.h"

#include <string.h>
#include <time.h>

#include "fs/dirwalk.h"
#include "htree/htree.h"
#include "util/e4r_err.h"
#include "write/fsops.h"

#define E4R_MAX_PATH	4096

/* libext2fs's own allocations (extent tree blocks) take our allocator too. */
static errcode_t pick_block_cb(ext2_filsys fs, blk64_t goal, blk64_t *ret)
{
	struct jbd_writer *w = fs->priv_data;
	struct write_fs *f = w->owner;

	/* ext2fs_alloc_block marks the block itself. */
	return alloc_block_pick(&f->alloc, f->meta_goal ? f->meta_goal : goal, ret);
}

/*
 * mballoc does not reuse a block its transaction freed until that transaction is on
 * disk: the running one's frees, and the committing one's unless a sync waited for it.
 */
static void pending_frees(void *arg, void (*fn)(blk64_t blk, void *priv), void *priv)
{
	struct write_fs *f = arg;

	jbd_writer_for_each_pending_free(f->w, !f->sync_committed, fn, priv);
}

/*
 * --reproduce=ialloc-3.4, the unprotected modification of the 3.4 kernels: the
 * inode's bit goes into the bitmap block's live buffer before get_write_access,
 * so a committing transaction that logs the block and has not written it yet
 * carries the change past its checksum (a leak, counted).
 */
static void leak_bit(void *arg, blk64_t blk, unsigned bit)
{
	struct write_fs *f = arg;
	unsigned char *live = f->bug_ialloc34 ? jbd_writer_cached(f->w, blk) : NULL;

	if (!live)
		return;
	if (jbd_writer_commit_reads_live(f->w, blk))
		f->leaks++;
	ext2fs_set_bit(bit, live);		/* test_and_set_bit on b_data, no write access yet */
	(void)jbd_writer_get_write_access(f->w, blk);	/* the late get_write_access at got: */
}

errcode_t write_fs_init(struct write_fs *f, struct jbd_writer *w)
{
	struct alloc_hooks hooks = { pending_frees, leak_bit, f };
	errcode_t err;

	memset(f, 0, sizeof(*f));
	f->w = w;
	f->fs = w->fs;
	w->owner = f;
	err = ext2fs_get_mem(f->fs->blocksize, &f->blockbuf);
	if (!err)
		err = alloc_init(&f->alloc, w->fs, &hooks);
	if (!err)
		ext2fs_set_alloc_block_callback(f->fs, pick_block_cb, NULL);
	return err;
}

void write_fs_free(struct write_fs *f)
{
	write_da_free(f);
	alloc_free(&f->alloc);
	ext2fs_free_mem(&f->blockbuf);
}

/* ---- content ---- */

static uint32_t path_hash(const char *path)
{
	uint32_t h = 2166136261U;

	for (; *path; path++)
		h = (h ^ (unsigned char)*path) * 16777619U;
	return h;
}

unsigned char write_content_byte(const char *path, uint64_t offset)
{
	uint32_t h = path_hash(path);

	return (unsigned char)((h >> (8 * (offset & 3))) ^ (offset >> 2) ^ (offset >> 10));
}

void write_content_fill(const char *path, uint64_t offset, unsigned char *buf, size_t len)
{
	uint32_t h = path_hash(path);

	for (size_t i = 0; i < len; i++) {
		uint64_t o = offset + i;

		buf[i] = (unsigned char)((h >> (8 * (o & 3))) ^ (o >> 2) ^ (o >> 10));
	}
}

/* ---- paths ---- */

/* Split PATH into its parent directory's inode and its last component. */
static errcode_t resolve_parent(struct write_fs *f, const char *path, ext2_ino_t *dir, char *name)
{
	char buf[E4R_MAX_PATH];
	const char *slash = strrchr(path, '/');
	struct ext2_inode inode;
	errcode_t err;

	if (!slash || path[0] != '/' || strlen(path) >= sizeof(buf) || !slash[1] ||
	    strlen(slash + 1) > EXT2_NAME_LEN || !strcmp(slash + 1, ".") || !strcmp(slash + 1, ".."))
		return E4R_WRITE_PATH;
	strcpy(name, slash + 1);
	if (slash == path) {
		*dir = EXT2_ROOT_INO;
		return 0;
	}
	memcpy(buf, path, slash - path);
	buf[slash - path] = 0;
	err = write_namei(f->fs, buf, dir);
	if (err)
		return err == EXT2_ET_FILE_NOT_FOUND ? E4R_WRITE_PATH : err;
	err = ext2fs_read_inode(f->fs, *dir, &inode);
	if (!err && !LINUX_S_ISDIR(inode.i_mode))
		err = E4R_WRITE_PATH;
	return err;
}

static errcode_t lookup(struct write_fs *f, ext2_ino_t dir, const char *name, ext2_ino_t *ino)
{
	return fs_lookup(f->fs, dir, name, ino);
}

/* Parent and name of a path that must not exist yet. */
static errcode_t resolve_new(struct write_fs *f, const char *path, ext2_ino_t *dir, char *name)
{
	ext2_ino_t ino;
	errcode_t err = resolve_parent(f, path, dir, name);

	if (!err)
		err = lookup(f, *dir, name, &ino);
	if (!err && ino)
		err = E4R_WRITE_PATH;
	return err;
}

/* Parent, name and inode of a path that must exist. */
static errcode_t resolve_old(struct write_fs *f, const char *path, ext2_ino_t *dir, char *name,
			     ext2_ino_t *ino, struct ext2_inode *inode)
{
	errcode_t err = resolve_parent(f, path, dir, name);

	if (!err)
		err = lookup(f, *dir, name, ino);
	if (!err && !*ino)
		err = E4R_WRITE_PATH;
	if (!err)
		err = ext2fs_read_inode(f->fs, *ino, inode);
	return err;
}

/* ---- inodes and blocks ---- */

static void new_inode_init(struct write_fs *f, struct ext2_inode *inode, uint16_t mode, int extents)
{
	uint32_t now = (uint32_t)f->fs->now;

	memset(inode, 0, sizeof(*inode));
	inode->i_mode = mode;
	inode->i_atime = inode->i_ctime = inode->i_mtime = now;
	if (extents && ext2fs_has_feature_extents(f->fs->super)) {
		struct ext3_extent_header *eh = (void *)inode->i_block;

		inode->i_flags |= EXT4_EXTENTS_FL;
		eh->eh_magic = ext2fs_cpu_to_le16(EXT3_EXT_MAGIC);
		eh->eh_max = ext2fs_cpu_to_le16((sizeof(inode->i_block) - sizeof(*eh)) /
						sizeof(struct ext3_extent));
	}
}

/*
 * Write the deterministic content of PATH into bytes [from, to) of the file
 * (data=ordered). *end is where the written bytes end, short of TO after an
 * error (ENOSPC): like write(2), the file then keeps what was written.
 */
static errcode_t write_range(struct write_fs *f, ext2_ino_t ino, struct ext2_inode *inode,
			     const char *path, uint64_t from, uint64_t to, uint64_t *end)
{
	unsigned bs = f->fs->blocksize;
	errcode_t err = from < to ? write_da_dirtied(f, ino) : 0;

	*end = from;
	for (uint64_t lblk = from / bs; !err && lblk * bs < to; lblk++) {
		uint64_t start = lblk * bs, lo = from > start ? from : start;
		uint64_t hi = to < start + bs ? to : start + bs;
		blk64_t pblk = 0;

		unsigned char *dirty;

		err = ext2fs_bmap2(f->fs, ino, inode, NULL, 0, lblk, NULL, &pblk);
		if (err)
			break;
		if (pblk) {
			err = jbd_writer_read_data(f->w, pblk, f->blockbuf);
			if (err)
				break;
			write_content_fill(path, lo, f->blockbuf + (lo - start), hi - lo);
			err = jbd_writer_write_data(f->w, pblk, f->blockbuf);
		} else if ((dirty = write_da_lookup(f, ino, lblk))) {
			write_content_fill(path, lo, dirty + (lo - start), hi - lo);
		} else {
			/* delalloc: the block gets its place at writeback */
			memset(f->blockbuf, 0, bs);
			write_content_fill(path, lo, f->blockbuf + (lo - start), hi - lo);
			err = write_da_add(f, ino, lblk, f->blockbuf);
		}
		if (!err)
			*end = hi;
	}
	return err;
}

/* Free every block of INO from logical block START on (ext4_truncate / punch). */
static errcode_t free_blocks_from(struct write_fs *f, ext2_ino_t ino, struct ext2_inode *inode,
				  blk64_t start)
{
	blk64_t before = ext2fs_get_stat_i_blocks(f->fs, inode);
	blk64_t after;
	errcode_t err;

	if (ext2fs_is_fast_symlink(inode))
		return 0;
	write_da_drop(f, ino, start);
	err = ext2fs_punch(f->fs, ino, inode, NULL, start, ~0ULL);
	after = ext2fs_get_stat_i_blocks(f->fs, inode);
	if (before > after)
		alloc_blocks_freed(&f->alloc, (before - after) / (f->fs->blocksize / 512));
	return err;
}

/* The last link is gone: free the blocks and the inode (the orphan cleanup, done at once). */
static errcode_t free_inode(struct write_fs *f, ext2_ino_t ino, struct ext2_inode *inode)
{
	int is_dir = LINUX_S_ISDIR(inode->i_mode);
	errcode_t err;

	alloc_ipa_discard(&f->alloc, ino);	/* ext4_clear_inode */
	err = free_blocks_from(f, ino, inode, 0);

	write_da_forget(f, ino);
	if (err)
		return err;
	inode->i_links_count = 0;
	inode->i_size = 0;
	inode->i_size_high = 0;
	inode->i_dtime = (uint32_t)f->fs->now;
	err = ext2fs_write_inode(f->fs, ino, inode);
	if (!err)
		alloc_inode_free(&f->alloc, ino, is_dir);
	return err;
}

/* ---- directories ---- */

/* ext4_append: one more empty block at the end of directory DIR. */
static errcode_t expand_dir(struct write_fs *f, ext2_ino_t dir)
{
	struct ext2_inode inode;
	char *block = NULL;
	blk64_t pblk, lblk;
	errcode_t err = ext2fs_read_inode(f->fs, dir, &inode);

	if (err)
		return err;
	err = ext2fs_new_dir_block(f->fs, 0, 0, &block);
	if (!err)
		err = write_dir_append(f, dir, &inode, &lblk, &pblk);
	if (!err)
		err = ext2fs_write_dir_block4(f->fs, pblk, block, 0, dir);
	if (!err)
		err = ext2fs_write_inode(f->fs, dir, &inode);
	ext2fs_free_mem(&block);
	return err;
}

/* A hashed directory grows as any other: ext4_append, from the kernel's goal. */
static errcode_t dir_append_cb(void *arg, ext2_ino_t dir, struct ext2_inode *inode,
			       blk64_t *lblk, blk64_t *pblk)
{
	return write_dir_append(arg, dir, inode, lblk, pblk);
}

/*
 * ext4_add_entry: an indexed directory adds by hash; a linear one takes the first
 * room in its blocks, and when it has none, becomes an index if it is one block
 * long (dir_index), else grows by a block.
 */
static errcode_t dir_link(struct write_fs *f, ext2_ino_t dir, const char *name, ext2_ino_t ino, int ftype)
{
	struct htree_hooks hooks = { dir_append_cb, f };
	struct ext2_inode inode;
	errcode_t err = ext2fs_read_inode(f->fs, dir, &inode);

	if (err)
		return err;
	if (inode.i_flags & EXT2_INDEX_FL)
		return htree_add(f->fs, &hooks, dir, name, ino, ftype);
	err = write_link_linear(f->fs, dir, name, ino, ftype);
	if (err == EXT2_ET_DIR_NO_SPACE && ext2fs_has_feature_dir_index(f->fs->super) &&
	    EXT2_I_SIZE(&inode) == f->fs->blocksize)
		return htree_make_indexed(f->fs, &hooks, dir, name, ino, ftype);
	if (err == EXT2_ET_DIR_NO_SPACE) {
		err = expand_dir(f, dir);
		if (!err)
			err = write_link_linear(f->fs, dir, name, ino, ftype);
	}
	return err;
}

/*
 * A new inode's first name: when it cannot go in (a full index, no space), the inode
 * is dropped with what it has, as the kernel's last iput of it frees it.
 */
static errcode_t link_new(struct write_fs *f, ext2_ino_t dir, const char *name, ext2_ino_t ino,
			  struct ext2_inode *inode, int ftype)
{
	errcode_t err = dir_link(f, dir, name, ino, ftype);

	if (err)
		free_inode(f, ino, inode);
	return err;
}

struct dir_remove {
	ext2_filsys	fs;
	const char	*name;
	ext2_ino_t	ino;
	int		prev;		/* offset of the entry before, in this block; -1 at its start */
	int		done;
};

/*
 * ext4_generic_delete_entry: the entry before takes the removed one's room, which is
 * wiped; the first entry of a block is only emptied (inode 0, name wiped).
 */
static int remove_proc(ext2_ino_t dir, int entry, struct ext2_dir_entry *d, int offset,
		       int blocksize, char *buf, void *priv)
{
	struct dir_remove *r = priv;
	int len = ext2fs_dirent_name_len(d), prev = offset ? r->prev : -1;
	unsigned rec_len = 0, prev_len = 0;

	(void)dir; (void)entry;
	r->prev = offset;
	if (!d->inode || d->inode != r->ino || len != (int)strlen(r->name) || memcmp(d->name, r->name, len))
		return 0;
	if (ext2fs_get_rec_len(r->fs, d, &rec_len) || (unsigned)offset + rec_len > (unsigned)blocksize)
		return DIRENT_ABORT;
	if (prev >= 0) {
		struct ext2_dir_entry *p = (struct ext2_dir_entry *)(buf + prev);

		if (ext2fs_get_rec_len(r->fs, p, &prev_len))
			return DIRENT_ABORT;
		ext2fs_set_rec_len(r->fs, prev_len + rec_len, p);
		memset(d, 0, rec_len);
	} else {
		d->inode = 0;
		memset((char *)d + 6, 0, rec_len - 6);
	}
	r->done = 1;
	return DIRENT_CHANGED | DIRENT_ABORT;
}

static errcode_t dir_unlink(struct write_fs *f, ext2_ino_t dir, const char *name, ext2_ino_t ino)
{
	struct dir_remove r = { f->fs, name, ino, -1, 0 };
	errcode_t err = fs_dir_iterate(f->fs, dir, DIRENT_FLAG_INCLUDE_EMPTY, remove_proc, &r);

	return err ? err : r.done ? 0 : EXT2_ET_DIR_NO_SPACE;
}

static errcode_t adjust_links(struct write_fs *f, ext2_ino_t ino, int delta)
{
	struct ext2_inode inode;
	errcode_t err = ext2fs_read_inode(f->fs, ino, &inode);

	if (err)
		return err;
	inode.i_links_count += delta;
	inode.i_ctime = inode.i_mtime = (uint32_t)f->fs->now;
	return ext2fs_write_inode(f->fs, ino, &inode);
}

static int ftype_of(uint16_t mode)
{
	if (LINUX_S_ISDIR(mode))
		return EXT2_FT_DIR;
	if (LINUX_S_ISLNK(mode))
		return EXT2_FT_SYMLINK;
	return EXT2_FT_REG_FILE;
}

struct dir_scan {
	int		entries;	/* live entries besides . and .. */
	ext2_ino_t	new_dotdot;	/* for set_dotdot */
};

static int count_entries(ext2_ino_t dir, int entry, struct ext2_dir_entry *d, int offset, int blocksize,
			 char *buf, void *priv)
{
	struct dir_scan *s = priv;
	int len = ext2fs_dirent_name_len(d);

	(void)dir; (void)entry; (void)offset; (void)blocksize; (void)buf;
	if (d->inode && !(len == 1 && d->name[0] == '.') &&
	    !(len == 2 && d->name[0] == '.' && d->name[1] == '.'))
		s->entries++;
	return 0;
}

static int set_dotdot(ext2_ino_t dir, int entry, struct ext2_dir_entry *d, int offset, int blocksize,
		      char *buf, void *priv)
{
	struct dir_scan *s = priv;

	(void)dir; (void)entry; (void)offset; (void)blocksize; (void)buf;
	if (ext2fs_dirent_name_len(d) == 2 && d->name[0] == '.' && d->name[1] == '.') {
		d->inode = s->new_dotdot;
		return DIRENT_CHANGED | DIRENT_ABORT;
	}
	return 0;
}

static errcode_t dir_is_empty(struct write_fs *f, ext2_ino_t dir)
{
	struct dir_scan s = { 0, 0 };
	errcode_t err = fs_dir_iterate(f->fs, dir, 0, count_entries, &s);

	return err ? err : s.entries ? E4R_WRITE_NOT_EMPTY : 0;
}

/* ---- operations ---- */

errcode_t write_op_mkdir(struct write_fs *f, const char *path, ext2_ino_t *out)
{
	char name[EXT2_NAME_LEN + 1], *block = NULL;
	struct ext2_inode inode;
	ext2_ino_t dir, ino;
	blk64_t pblk;
	errcode_t err = resolve_new(f, path, &dir, name);

	if (!err)
		err = alloc_inode(&f->alloc, dir, 1, name, &ino);
	if (err)
		return err;
	new_inode_init(f, &inode, LINUX_S_IFDIR | 0755, 1);
	inode.i_links_count = 2;
	err = ext2fs_write_new_inode(f->fs, ino, &inode);
	if (!err)
		err = ext2fs_new_dir_block(f->fs, ino, dir, &block);
	if (!err)
		err = write_map_new_block(f, ino, &inode, 0, 0, &pblk);
	if (!err)
		err = ext2fs_write_dir_block4(f->fs, pblk, block, 0, ino);
	ext2fs_free_mem(&block);
	if (!err)
		err = ext2fs_inode_size_set(f->fs, &inode, f->fs->blocksize);
	if (!err)
		err = ext2fs_write_inode(f->fs, ino, &inode);
	if (!err)
		err = link_new(f, dir, name, ino, &inode, EXT2_FT_DIR);
	if (!err)
		err = adjust_links(f, dir, +1);
	if (!err && out)
		*out = ino;
	return err;
}

/*
 * ext4_release_file: the last writer closes the file; with no block of it left
 * waiting for writeback, its preallocations go.
 */
static void release_file(struct write_fs *f, ext2_ino_t ino)
{
	if (!write_da_has(f, ino))
		alloc_ipa_discard(&f->alloc, ino);
}

errcode_t write_op_create(struct write_fs *f, const char *path, uint64_t size, ext2_ino_t *out)
{
	char name[EXT2_NAME_LEN + 1];
	struct ext2_inode inode;
	ext2_ino_t dir, ino;
	uint64_t end;
	errcode_t err2, err = resolve_new(f, path, &dir, name);

	if (!err)
		err = alloc_inode(&f->alloc, dir, 0, name, &ino);
	if (err)
		return err;
	new_inode_init(f, &inode, LINUX_S_IFREG | 0644, 1);
	inode.i_links_count = 1;
	err = ext2fs_write_new_inode(f->fs, ino, &inode);
	if (!err)
		err = link_new(f, dir, name, ino, &inode, EXT2_FT_REG_FILE);
	if (err)
		return err;
	err = write_range(f, ino, &inode, path, 0, size, &end);
	err2 = ext2fs_inode_size_set(f->fs, &inode, end);
	if (!err2)
		err2 = ext2fs_write_inode(f->fs, ino, &inode);
	release_file(f, ino);
	if (!err && out)
		*out = ino;
	return err ? err : err2;
}

static errcode_t open_regular(struct write_fs *f, const char *path, ext2_ino_t *ino, struct ext2_inode *inode)
{
	char name[EXT2_NAME_LEN + 1];
	ext2_ino_t dir;
	errcode_t err = resolve_old(f, path, &dir, name, ino, inode);

	if (!err && !LINUX_S_ISREG(inode->i_mode))
		err = E4R_WRITE_PATH;
	return err;
}

errcode_t write_op_append(struct write_fs *f, const char *path, uint64_t size)
{
	struct ext2_inode inode;
	ext2_ino_t ino;
	uint64_t old, end;
	errcode_t err2, err = open_regular(f, path, &ino, &inode);

	if (err)
		return err;
	old = EXT2_I_SIZE(&inode);
	err = write_range(f, ino, &inode, path, old, old + size, &end);
	err2 = ext2fs_inode_size_set(f->fs, &inode, end);
	inode.i_mtime = inode.i_ctime = (uint32_t)f->fs->now;
	if (!err2)
		err2 = ext2fs_write_inode(f->fs, ino, &inode);
	release_file(f, ino);
	return err ? err : err2;
}

/* ext4_block_truncate_page: zero the rest of the block that now holds EOF. */
static errcode_t zero_tail(struct write_fs *f, ext2_ino_t ino, struct ext2_inode *inode, uint64_t size)
{
	unsigned bs = f->fs->blocksize, off = size % bs;
	blk64_t pblk = 0;
	errcode_t err;

	if (!off)
		return 0;
	err = ext2fs_bmap2(f->fs, ino, inode, NULL, 0, size / bs, NULL, &pblk);
	if (!err && !pblk) {
		unsigned char *dirty = write_da_lookup(f, ino, size / bs);

		if (dirty)
			memset(dirty + off, 0, bs - off);
	}
	if (err || !pblk)
		return err;
	err = jbd_writer_read_data(f->w, pblk, f->blockbuf);
	if (!err) {
		memset(f->blockbuf + off, 0, bs - off);
		err = jbd_writer_write_data(f->w, pblk, f->blockbuf);
	}
	return err;
}

errcode_t write_op_truncate(struct write_fs *f, const char *path, uint64_t size)
{
	struct ext2_inode inode;
	ext2_ino_t ino;
	unsigned bs = f->fs->blocksize;
	errcode_t err = open_regular(f, path, &ino, &inode);

	if (err)
		return err;
	/*
	 * Any truncate drops the file's preallocations, one that grows the file too:
	 * measured on 6.18 (kernel_vs_write.py seed 4, 1k blocks without flex_bg: a
	 * file's blocks go where a grown file's preallocation would have been).
	 */
	alloc_ipa_discard(&f->alloc, ino);
	if (size < EXT2_I_SIZE(&inode)) {
		err = zero_tail(f, ino, &inode, size);
		if (!err)
			err = free_blocks_from(f, ino, &inode, (size + bs - 1) / bs);
	}
	if (!err)
		err = ext2fs_inode_size_set(f->fs, &inode, size);
	inode.i_mtime = inode.i_ctime = (uint32_t)f->fs->now;
	if (!err)
		err = ext2fs_write_inode(f->fs, ino, &inode);
	return err;
}

errcode_t write_op_unlink(struct write_fs *f, const char *path)
{
	char name[EXT2_NAME_LEN + 1];
	struct ext2_inode inode;
	ext2_ino_t dir, ino;
	errcode_t err = resolve_old(f, path, &dir, name, &ino, &inode);

	if (!err && LINUX_S_ISDIR(inode.i_mode))
		err = E4R_WRITE_PATH;
	if (!err)
		err = dir_unlink(f, dir, name, ino);
	if (err)
		return err;
	if (--inode.i_links_count)
		return ext2fs_write_inode(f->fs, ino, &inode);
	return free_inode(f, ino, &inode);
}

errcode_t write_op_rmdir(struct write_fs *f, const char *path)
{
	char name[EXT2_NAME_LEN + 1];
	struct ext2_inode inode;
	ext2_ino_t dir, ino;
	errcode_t err = resolve_old(f, path, &dir, name, &ino, &inode);

	if (!err && !LINUX_S_ISDIR(inode.i_mode))
		err = E4R_WRITE_PATH;
	if (!err)
		err = dir_is_empty(f, ino);
	if (!err)
		err = dir_unlink(f, dir, name, ino);
	if (!err)
		err = adjust_links(f, dir, -1);
	if (!err)
		err = free_inode(f, ino, &inode);
	return err;
}

/* Replace the inode an existing entry NAME of DIR points to (ext4_setent). */
struct setent {
	const char	*name;
	ext2_ino_t	ino;
	int		ftype;
};

static int setent_proc(ext2_ino_t dir, int entry, struct ext2_dir_entry *d, int offset, int blocksize,
		       char *buf, void *priv)
{
	struct setent *s = priv;
	int len = ext2fs_dirent_name_len(d);

	(void)dir; (void)entry; (void)offset; (void)blocksize; (void)buf;
	if (!d->inode || len != (int)strlen(s->name) || memcmp(d->name, s->name, len))
		return 0;
	d->inode = s->ino;
	ext2fs_dirent_set_file_type(d, s->ftype);
	return DIRENT_CHANGED | DIRENT_ABORT;
}

/* The target of a rename exists: it must be of the same kind (and empty, for a directory). */
static errcode_t rename_replace(struct write_fs *f, ext2_ino_t ndir, const char *nname, ext2_ino_t tino,
				ext2_ino_t ino, int ftype, int src_is_dir)
{
	struct ext2_inode tinode;
	struct setent s = { nname, ino, ftype };
	errcode_t err = ext2fs_read_inode(f->fs, tino, &tinode);

	if (err)
		return err;
	if (src_is_dir != LINUX_S_ISDIR(tinode.i_mode))
		return E4R_WRITE_PATH;
	if (src_is_dir && (err = dir_is_empty(f, tino)))
		return err;
	err = fs_dir_iterate(f->fs, ndir, 0, setent_proc, &s);
	if (err)
		return err;
	if (src_is_dir) {
		err = adjust_links(f, ndir, -1);
		return err ? err : free_inode(f, tino, &tinode);
	}
	if (--tinode.i_links_count)
		return ext2fs_write_inode(f->fs, tino, &tinode);
	return free_inode(f, tino, &tinode);
}

errcode_t write_op_rename(struct write_fs *f, const char *from, const char *to)
{
	char oname[EXT2_NAME_LEN + 1], nname[EXT2_NAME_LEN + 1];
	struct ext2_inode inode;
	ext2_ino_t odir, ndir, ino, tino;
	size_t flen = strlen(from);
	int is_dir;
	errcode_t err = resolve_old(f, from, &odir, oname, &ino, &inode);

	if (!err)
		err = resolve_parent(f, to, &ndir, nname);
	if (!err && !strncmp(to, from, flen) && (to[flen] == '/' || !to[flen]))
		err = E4R_WRITE_PATH;	/* into itself, or onto itself */
	if (!err)
		err = lookup(f, ndir, nname, &tino);
	if (err)
		return err;
	is_dir = LINUX_S_ISDIR(inode.i_mode);
	if (tino)
		err = rename_replace(f, ndir, nname, tino, ino, ftype_of(inode.i_mode), is_dir);
	else
		err = dir_link(f, ndir, nname, ino, ftype_of(inode.i_mode));
	if (!err)
		err = dir_unlink(f, odir, oname, ino);
	if (err || !is_dir || odir == ndir)
		return err;
	struct dir_scan s = { 0, ndir };

	err = fs_dir_iterate(f->fs, ino, 0, set_dotdot, &s);
	if (!err)
		err = adjust_links(f, odir, -1);
	if (!err)
		err = adjust_links(f, ndir, +1);
	return err;
}

errcode_t write_op_link(struct write_fs *f, const char *from, const char *to)
{
	char oname[EXT2_NAME_LEN + 1], nname[EXT2_NAME_LEN + 1];
	struct ext2_inode inode;
	ext2_ino_t odir, ndir, ino;
	errcode_t err = resolve_old(f, from, &odir, oname, &ino, &inode);

	if (!err && LINUX_S_ISDIR(inode.i_mode))
		err = E4R_WRITE_PATH;
	if (!err)
		err = resolve_new(f, to, &ndir, nname);
	if (!err)
		err = dir_link(f, ndir, nname, ino, ftype_of(inode.i_mode));
	if (!err)
		err = adjust_links(f, ino, +1);
	return err;
}

errcode_t write_op_symlink(struct write_fs *f, const char *target, const char *path, ext2_ino_t *out)
{
	char name[EXT2_NAME_LEN + 1];
	struct ext2_inode inode;
	size_t len = strlen(target);
	ext2_ino_t dir, ino;
	blk64_t pblk;
	errcode_t err;

	if (!len || len >= f->fs->blocksize)
		return E4R_WRITE_PATH;
	err = resolve_new(f, path, &dir, name);
	if (!err)
		err = alloc_inode(&f->alloc, dir, 0, name, &ino);
	if (err)
		return err;
	/* ext4_symlink: fast when the target and its NUL fit in i_block. */
	new_inode_init(f, &inode, LINUX_S_IFLNK | 0777, len + 1 > sizeof(inode.i_block));
	inode.i_links_count = 1;
	if (len + 1 <= sizeof(inode.i_block))
		memcpy(inode.i_block, target, len);
	err = ext2fs_write_new_inode(f->fs, ino, &inode);
	if (!err && len + 1 > sizeof(inode.i_block)) {
		memset(f->blockbuf, 0, f->fs->blocksize);
		memcpy(f->blockbuf, target, len);
		err = write_map_new_block(f, ino, &inode, 0, 0, &pblk);
		if (!err)
			err = io_channel_write_blk64(f->fs->io, pblk, 1, f->blockbuf);
	}
	if (!err)
		err = ext2fs_inode_size_set(f->fs, &inode, len);
	if (!err)
		err = ext2fs_write_inode(f->fs, ino, &inode);
	if (!err)
		err = link_new(f, dir, name, ino, &inode, EXT2_FT_SYMLINK);
	if (!err && out)
		*out = ino;
	return err;
}
