/* Salvaging directory entries around a corrupt one: what comes after it is kept whenever it can be found. */
#include "config.h"

#include <string.h>

#include "fs/dirent.h"
#include "fs/dirent_salvage.h"

static unsigned rec_len_at(ext2_filsys fs, const char *buf, unsigned off)
{
	unsigned len = 0;

	if (fs_dirent_rec_len(fs, (const struct ext2_dir_entry *)(buf + off), &len))
		return 0;
	return len;
}

/* The bytes [OFF, NEXT) leave the walk: the entry before takes them, or they become one empty entry. */
static unsigned give_up_span(ext2_filsys fs, char *buf, unsigned end, unsigned off, unsigned prev,
			     unsigned next)
{
	struct ext2_dir_entry *de = (struct ext2_dir_entry *)(buf + off);

	if (prev != FS_SALVAGE_NO_PREV) {
		struct ext2_dir_entry *p = (struct ext2_dir_entry *)(buf + prev);

		fs_dirent_set_rec_len(fs, rec_len_at(fs, buf, prev) + (next - off), p);
		return next;
	}
	if (next - off < FS_DIRENT_MIN)
		return end;	/* no room for an entry and none before it: nothing to mend with */
	memset(de, 0, FS_DIRENT_HEADER);
	fs_dirent_set_rec_len(fs, next - off, de);
	return next;
}

/* The corrupt entry itself can stay, in SPAN bytes: its name fits, holds no NUL, its inode exists. */
static int entry_keepable(ext2_filsys fs, const char *buf, unsigned off, unsigned span)
{
	const struct ext2_dir_entry *de = (const struct ext2_dir_entry *)(buf + off);
	unsigned nl = fs_dirent_name_len(de);

	return span >= FS_DIRENT_MIN && nl + FS_DIRENT_HEADER <= span &&
	       fs_dirent_inode(de) <= fs->super->s_inodes_count && strnlen(de->name, nl) == nl;
}

unsigned fs_dirent_salvage(ext2_filsys fs, char *buf, unsigned end, unsigned off, unsigned prev)
{
	unsigned left = end - off, rec_len, next;
	char *cp = buf + off;

	if (left < FS_DIRENT_HEADER)
		return give_up_span(fs, buf, end, off, prev, end);
	/*
	 * A record that fits, with a name longer than it: the record is
	 * believed and dropped (e2fsck's way), the entries after it stay.
	 */
	if (fs_dirent_rec_len_ok(fs, (const struct ext2_dir_entry *)cp, left, &rec_len))
		return give_up_span(fs, buf, end, off, prev, off + rec_len);
	/*
	 * A bad record length: the entries after it are found again where a
	 * sound chain of entries starts that reaches the end. e2fsck drops
	 * them (they come back through lost+found, without their names).
	 */
	next = fs_dirent_chain_start(fs, buf, end, off + (prev == FS_SALVAGE_NO_PREV ? FS_DIRENT_MIN : 4));
	if (next) {
		if (entry_keepable(fs, buf, off, next - off)) {
			fs_dirent_set_rec_len(fs, next - off, (struct ext2_dir_entry *)cp);
			return off;
		}
		return give_up_span(fs, buf, end, off, prev, next);
	}
	/* nothing sound after it: e2fsck's rules */
	if (rec_len == FS_DIRENT_HEADER && left - FS_DIRENT_HEADER >= FS_DIRENT_MIN) {
		/* an 8-byte hole: what follows moves up over it */
		memmove(cp, cp + FS_DIRENT_HEADER, left - FS_DIRENT_HEADER);
		memset(cp + left - FS_DIRENT_HEADER, 0, FS_DIRENT_HEADER);
		return off;
	}
	if (rec_len > left && entry_keepable(fs, buf, off, left)) {
		/* running past the end, the entry ends there */
		fs_dirent_set_rec_len(fs, left, (struct ext2_dir_entry *)cp);
		return off;
	}
	return give_up_span(fs, buf, end, off, prev, end);
}

unsigned fs_dirent_salvage_all(ext2_filsys fs, char *buf, unsigned end)
{
	unsigned off = 0, prev = FS_SALVAGE_NO_PREV, mended = 0;
	/* each salvage moves on or makes the entry readable: the bound only guards against a loop */
	unsigned budget = end / 4 + 2;

	while (off < end) {
		if (fs_dirent_corrupt(fs, buf, end, off)) {
			if (!budget--)
				break;
			off = fs_dirent_salvage(fs, buf, end, off, prev);
			mended++;
			continue;
		}
		prev = off;
		off += rec_len_at(fs, buf, off);
	}
	return mended;
}
