/*
 * A forward walk over every inode that asks a sparse inode bitmap (the bad
 * and xattr-inode sets: rbtree bitmaps, nearly always empty) about each
 * inode in turn. A test is a tree search in libext2fs; the cursor instead
 * keeps the next set inode at or after the walk's position and moves it
 * only when the walk passes it, so an empty set costs one search in all.
 */
#ifndef E4R_CHECK_BITCURSOR_H
#define E4R_CHECK_BITCURSOR_H

#include <errno.h>
#include <ext2fs/ext2fs.h>
#include <stdint.h>

struct check_bit_cursor {
	ext2fs_inode_bitmap	map;
	ext2_ino_t		end;		/* the walk's last inode */
	uint64_t		next;		/* the next set inode; past END: none left */
	int			direct;		/* the search failed: test each inode */
};

static inline void check_cursor_init(struct check_bit_cursor *k, ext2fs_inode_bitmap map,
				     ext2_ino_t end)
{
	k->map = map;
	k->end = end;
	k->next = 0;
	k->direct = 0;
}

/*
 * Whether INO is set; INO never goes down between calls, and a bit the
 * caller clears behind the walk (at or before INO) does not matter.
 */
static inline int check_cursor_test(struct check_bit_cursor *k, ext2_ino_t ino)
{
	if (k->direct)
		return ext2fs_test_inode_bitmap2(k->map, ino);
	if (ino > k->next) {
		ext2_ino_t found;
		errcode_t err = ino > k->end ? ENOENT :
				ext2fs_find_first_set_inode_bitmap2(k->map, ino, k->end, &found);

		if (err == ENOENT) {
			k->next = (uint64_t)k->end + 1;
		} else if (err) {
			k->direct = 1;
			return ext2fs_test_inode_bitmap2(k->map, ino);
		} else {
			k->next = found;
		}
	}
	return ino == k->next;
}

#endif
