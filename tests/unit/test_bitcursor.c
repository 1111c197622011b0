/*
 * Unit test: the forward cursor over a sparse inode bitmap (check/bitcursor.h)
 * answers as ext2fs_test_inode_bitmap2 (the oracle) for every inode of a walk,
 * over seeded random sets (empty, one bit, runs, the last inode), both bitmap
 * kinds, walks starting anywhere, ending before the bitmap does, and bits
 * cleared behind the walk as the xattr-inode pass clears them.
 */
#include "config.h"

#include <ext2fs/ext2fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check/bitcursor.h"
#include "unit.h"

static uint32_t state = 2121;

static uint32_t next(void)
{
	return unit_xorshift(&state);
}

static void walk(ext2_filsys fs, int type)
{
	ext2_ino_t inodes = fs->super->s_inodes_count;
	ext2fs_inode_bitmap map;
	int saved = fs->default_bitmap_type;

	fs->default_bitmap_type = type;
	CHECK_EQ(ext2fs_allocate_inode_bitmap(fs, "cursor", &map), 0);
	fs->default_bitmap_type = saved;
	for (int round = 0; round < 300; round++) {
		unsigned nbits = round % 5 == 0 ? 0 : next() % 40;
		ext2_ino_t start = 1 + (round & 1 ? next() % inodes : 0);
		ext2_ino_t end = round % 3 == 0 ? inodes : start + next() % (inodes - start + 1);
		struct check_bit_cursor k;

		ext2fs_clear_inode_bitmap(map);
		for (unsigned i = 0; i < nbits; i++) {
			ext2_ino_t at = 1 + next() % inodes;
			unsigned run = next() % 4 ? 1 : 1 + next() % 20;

			for (unsigned j = 0; j < run && at + j <= inodes; j++)
				ext2fs_mark_inode_bitmap2(map, at + j);
		}
		if (round % 7 == 0)
			ext2fs_mark_inode_bitmap2(map, inodes);
		check_cursor_init(&k, map, end);
		for (ext2_ino_t ino = start; ino <= end; ino++) {
			int want = !!ext2fs_test_inode_bitmap2(map, ino);	/* any non-zero: set */

			CHECK_EQ(check_cursor_test(&k, ino), want);
			/* the cursor may be asked twice about one inode */
			if (ino % 97 == 0)
				CHECK_EQ(check_cursor_test(&k, ino), want);
			if (want && next() % 2)
				ext2fs_unmark_inode_bitmap2(map, ino);
		}
	}
	ext2fs_free_inode_bitmap(map);
}

int main(void)
{
	char dir[] = "/tmp/e4r-unit-cursor-XXXXXX", img[256], cmd[512];
	ext2_filsys fs = NULL;

	initialize_ext2_error_table();
	CHECK(mkdtemp(dir) != NULL);
	snprintf(img, sizeof(img), "%s/c.img", dir);
	/* 2048 inodes: every one of them walked, 300 times per bitmap kind */
	snprintf(cmd, sizeof(cmd),
		 "PATH=/sbin:/usr/sbin:$PATH mke2fs -q -F -t ext4 -N 2048 %s 8M >/dev/null 2>&1", img);
	if (system(cmd) == 0 && ext2fs_open(img, 0, 0, 0, unix_io_manager, &fs) == 0) {
		walk(fs, EXT2FS_BMAP64_RBTREE);
		walk(fs, EXT2FS_BMAP64_BITARRAY);
		ext2fs_close_free(&fs);
	} else {
		fprintf(stderr, "mke2fs not available: skipped\n");
	}
	unlink(img);
	rmdir(dir);
	return unit_done("test_bitcursor");
}
