/*
 * Directory walks that tell a directory they could not read from one that
 * holds nothing of what was asked (fs/dirwalk.h).
 *
 * libext2fs 1.47.0 walks a directory's blocks with ext2fs_block_iterate3,
 * which drops the error of the extent handle it opens first: when that
 * allocation fails, ext2fs_dir_iterate returns 0 having read no block. Its
 * lookup, namei and link are built on that walk, so out of memory came back
 * as "no such name" (the writer created a name twice, a repair made a second
 * lost+found) and "no room in the directory" (the writer grew a directory,
 * or made it an index, for nothing). The walk here asks for every entry
 * (DIRENT_FLAG_INCLUDE_EMPTY) and hands on only those the caller asked for:
 * a block that was read shows at least its first entry, so a walk that saw
 * none read no block, and the directory's map says whether it had one.
 */
#include "config.h"

#include <string.h>

#include "fs/dirwalk.h"

struct witness {
	fs_dirent_fn	fn;
	void		*priv;
	int		flags;
	int		seen;
};

static int witness_entry(ext2_ino_t dir, int entry, struct ext2_dir_entry *d, int offset, int blocksize,
			 char *buf, void *priv)
{
	struct witness *w = priv;

	w->seen = 1;
	if (!d->inode && !(w->flags & DIRENT_FLAG_INCLUDE_EMPTY))
		return 0;	/* as libext2fs passes over it for the caller */
	return w->fn(dir, entry, d, offset, blocksize, buf, w->priv);
}

errcode_t fs_walk_unread_why(ext2_filsys fs, ext2_ino_t dir)
{
	struct ext2_inode inode;
	struct ext2fs_extent e;
	ext2_extent_handle_t h;
	errcode_t err = ext2fs_read_inode(fs, dir, &inode);

	if (err)
		return err;
	/* without extents the walk reads i_block itself: nothing to miss */
	if (!(inode.i_flags & EXT4_EXTENTS_FL))
		return 0;
	err = ext2fs_extent_open2(fs, dir, &inode, &h);
	if (err)
		return err;
	err = ext2fs_extent_get(h, EXT2_EXTENT_ROOT, &e);
	ext2fs_extent_free(h);
	if (err == EXT2_ET_EXTENT_NO_NEXT)
		return 0;	/* an empty tree: nothing to read */
	/* the tree opens and maps a block: the first handle's allocation failed */
	return err ? err : EXT2_ET_NO_MEMORY;
}

errcode_t fs_dir_iterate(ext2_filsys fs, ext2_ino_t dir, int flags, fs_dirent_fn fn, void *priv)
{
	struct witness w = { fn, priv, flags, 0 };
	errcode_t err = ext2fs_dir_iterate2(fs, dir, flags | DIRENT_FLAG_INCLUDE_EMPTY, NULL, witness_entry, &w);

	return err || w.seen ? err : fs_walk_unread_why(fs, dir);
}

struct find {
	const char	*name;
	int		len;
	ext2_ino_t	ino;
};

static int find_entry(ext2_ino_t dir, int entry, struct ext2_dir_entry *d, int offset, int blocksize,
		      char *buf, void *priv)
{
	struct find *f = priv;

	(void)dir; (void)entry; (void)offset; (void)blocksize; (void)buf;
	if (ext2fs_dirent_name_len(d) != f->len || memcmp(d->name, f->name, f->len))
		return 0;
	f->ino = d->inode;
	return DIRENT_ABORT;
}

errcode_t fs_lookup(ext2_filsys fs, ext2_ino_t dir, const char *name, ext2_ino_t *ino)
{
	struct find f = { name, (int)strlen(name), 0 };
	errcode_t err = fs_dir_iterate(fs, dir, 0, find_entry, &f);

	*ino = err ? 0 : f.ino;
	return err;
}
