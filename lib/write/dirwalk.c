/*
 * ext2fs_namei and ext2fs_link (a linear directory) on fs/dirwalk.h's walk,
 * which says when libext2fs's read no block of the directory (its extent
 * handle's allocation failed): "no such name" and "no room" then were out
 * of memory, and the writer went on to create or to grow the directory.
 */
#include "config.h"

#include <string.h>

#include "fs/dirwalk.h"
#include "write/fsops.h"

errcode_t write_namei(ext2_filsys fs, const char *path, ext2_ino_t *ino)
{
	char name[EXT2_NAME_LEN + 1];
	ext2_ino_t cur = EXT2_ROOT_INO, next;
	const char *p = path, *end;
	errcode_t err;

	while (*p) {
		struct ext2_inode inode;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		end = strchr(p, '/');
		if (!end)
			end = p + strlen(p);
		if (end - p > EXT2_NAME_LEN)
			return EXT2_ET_FILE_NOT_FOUND;
		memcpy(name, p, end - p);
		name[end - p] = 0;
		err = fs_lookup(fs, cur, name, &next);
		if (err)
			return err;
		if (!next)
			return EXT2_ET_FILE_NOT_FOUND;
		p = end;
		if (!p[strspn(p, "/")]) {
			*ino = next;	/* the last name is not followed, as in ext2fs_namei */
			return 0;
		}
		err = ext2fs_read_inode(fs, next, &inode);
		if (err)
			return err;
		/* a symbolic link on the way: libext2fs's walk follows it (its targets are no concern here) */
		if (LINUX_S_ISLNK(inode.i_mode))
			return ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, path, ino);
		cur = next;
	}
	*ino = cur;
	return 0;
}

/*
 * ext2fs_link's placement in a linear directory, entry by entry: an empty
 * entry that follows joins the one before it; a former index block gets the
 * checksum tail back; a live entry with room for both splits, its rest an
 * empty entry that the next call fills; an empty entry that is large enough
 * takes the name.
 */
struct place {
	ext2_filsys	fs;
	const char	*name;
	unsigned	len;
	ext2_ino_t	ino;
	int		ftype;
	int		done;
	errcode_t	err;
};

static int place_entry(ext2_ino_t dir, int entry, struct ext2_dir_entry *d, int offset, int blocksize,
		       char *buf, void *priv)
{
	struct place *pl = priv;
	unsigned need = EXT2_DIR_REC_LEN(pl->len), have, next_len, keep;
	int tail = ext2fs_has_feature_metadata_csum(pl->fs->super) ? (int)sizeof(struct ext2_dir_entry_tail) : 0;
	int ret = 0;
	struct ext2_dir_entry *next;

	(void)dir; (void)entry;
	if (pl->done)
		return DIRENT_ABORT;
	if ((pl->err = ext2fs_get_rec_len(pl->fs, d, &have)))
		return DIRENT_ABORT;
	if (offset + (int)have < blocksize - (8 + tail)) {
		next = (struct ext2_dir_entry *)(buf + offset + have);
		if (!next->inode && !ext2fs_get_rec_len(pl->fs, next, &next_len) &&
		    offset + have + next_len <= (unsigned)blocksize) {
			have += next_len;
			if ((pl->err = ext2fs_set_rec_len(pl->fs, have, d)))
				return DIRENT_ABORT;
			ret = DIRENT_CHANGED;
		}
	}
	if (tail && ((have == (unsigned)blocksize && !d->inode) ||
		     (have == (unsigned)blocksize - EXT2_DIR_REC_LEN(1) && offset == EXT2_DIR_REC_LEN(1) &&
		      d->name[0] == '.' && d->name[1] == '.'))) {
		have -= tail;
		if ((pl->err = ext2fs_set_rec_len(pl->fs, have, d)))
			return DIRENT_ABORT;
		ext2fs_initialize_dirent_tail(pl->fs, EXT2_DIRENT_TAIL(buf, blocksize));
		ret = DIRENT_CHANGED;
	}
	if (d->inode) {
		keep = EXT2_DIR_REC_LEN(ext2fs_dirent_name_len(d));
		if (have < keep + need)
			return ret;
		if ((pl->err = ext2fs_set_rec_len(pl->fs, keep, d)))
			return DIRENT_ABORT;
		next = (struct ext2_dir_entry *)(buf + offset + keep);
		next->inode = 0;
		ext2fs_dirent_set_name_len(next, 0);
		ext2fs_dirent_set_file_type(next, 0);
		if ((pl->err = ext2fs_set_rec_len(pl->fs, have - keep, next)))
			return DIRENT_ABORT;
		return DIRENT_CHANGED;
	}
	if (have < need)
		return ret;
	d->inode = pl->ino;
	ext2fs_dirent_set_name_len(d, pl->len);
	memcpy(d->name, pl->name, pl->len);
	if (ext2fs_has_feature_filetype(pl->fs->super))
		ext2fs_dirent_set_file_type(d, pl->ftype & 7);
	pl->done = 1;
	return DIRENT_ABORT | DIRENT_CHANGED;
}

errcode_t write_link_linear(ext2_filsys fs, ext2_ino_t dir, const char *name, ext2_ino_t ino, int ftype)
{
	struct place pl = { fs, name, (unsigned)strlen(name), ino, ftype, 0, 0 };
	errcode_t err = fs_dir_iterate(fs, dir, DIRENT_FLAG_INCLUDE_EMPTY, place_entry, &pl);

	if (err)
		return err;
	if (pl.err)
		return pl.err;
	return pl.done ? 0 : EXT2_ET_DIR_NO_SPACE;
}
