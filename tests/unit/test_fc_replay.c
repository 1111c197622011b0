/*
 * Unit test: replay_fc on a fresh mke2fs image with an area built here:
 * a new file (INODE, ADD_RANGE, CREAT) among hostile committed tags (blocks
 * past the end, inodes out of range, a dentry already there, an unlink of a
 * missing name). The good tags apply, the bad ones are counted and skipped,
 * and e2fsck -fn (the oracle) finds the result consistent.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BS	4096
#define NBLK	2
#include "fc_build.h"
#include "replay/fc.h"
#include "util/e4r_err.h"
#include "unit.h"

#define NEW_INO		12
#define FILE_MODE	0100644

static void build(struct area *a, blk64_t pblk, blk64_t nblocks)
{
	unsigned char raw[256], del[12];

	memset(a, 0, sizeof(*a));
	head(a, 0, 1);
	raw_inode(raw, sizeof(raw), FILE_MODE, BS, 1);	/* a one-block file */
	inode_raw(a, NEW_INO, raw, sizeof(raw));
	add_range(a, NEW_INO, 0, 1, pblk);
	dentry(a, JBD_FC_TAG_CREAT, 2, NEW_INO, "hello");
	/* Hostile, yet committed: each must be refused without harm. */
	add_range(a, NEW_INO, 5, 4, nblocks - 2);		/* runs past the end */
	dentry(a, JBD_FC_TAG_CREAT, 2, 999999, "ghost");	/* no such inode */
	put32(del, 0); put32(del + 4, 0); put32(del + 8, 1);
	tlv(a, JBD_FC_TAG_DEL_RANGE, 12, del);			/* inode 0 */
	dentry(a, JBD_FC_TAG_LINK, 2, NEW_INO, "hello");	/* already there: nothing to do */
	dentry(a, JBD_FC_TAG_UNLINK, 2, NEW_INO, "missing");	/* not there: nothing to do */
	inode_raw(a, NEW_INO, raw, sizeof(raw));
	tail(a, 1, 0);
}

int main(void)
{
	char dir[] = "/tmp/e4r-unit-XXXXXX", path[256], cmd[512];
	struct replay_fc_result res;
	struct jbd_fc_limits lim;
	struct jbd_fc *fc = NULL;
	struct area *a = calloc(1, sizeof(*a));
	ext2_filsys fs;
	ext2_ino_t ino = 0;
	blk64_t pblk, got = 0;

	initialize_e4r_error_table();
	initialize_ext2_error_table();
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/fs.img", dir);
	snprintf(cmd, sizeof(cmd), "mke2fs -q -F -t ext4 -b 4096 -O metadata_csum %s 16M >/dev/null 2>&1", path);
	CHECK(system(cmd) == 0);
	CHECK_EQ(ext2fs_open(path, EXT2_FLAG_RW | EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &fs), 0);

	pblk = ext2fs_blocks_count(fs->super) - 100;	/* free on a fresh 16M image */
	build(a, pblk, ext2fs_blocks_count(fs->super));
	lim.inode_size = EXT2_INODE_SIZE(fs->super);
	lim.inodes_count = fs->super->s_inodes_count;
	lim.blocks_count = ext2fs_blocks_count(fs->super);
	CHECK_EQ(jbd_fc_parse(a->buf, NBLK, BS, 0, 1, &lim, &fc), 0);
	CHECK_EQ(fc->ncommitted, 11);

	CHECK_EQ(replay_fc(fs, fc, &res), 0);
	CHECK_EQ(res.failed, 3);
	CHECK_EQ(res.applied, 8);
	CHECK_EQ(res.first_error, E4R_FC_BAD_RANGE);
	CHECK_EQ(res.first_error_tag, 4);
	CHECK_EQ(ext2fs_close_free(&fs), 0);

	/* The oracle: e2fsck finds nothing to fix; the file is there, mapped where the log says. */
	snprintf(cmd, sizeof(cmd), "e2fsck -fn %s >%s/e2fsck.out 2>&1", path, dir);
	CHECK(system(cmd) == 0);
	CHECK_EQ(ext2fs_open(path, EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &fs), 0);
	CHECK_EQ(ext2fs_lookup(fs, 2, "hello", 5, NULL, &ino), 0);
	CHECK_EQ(ino, NEW_INO);
	CHECK_EQ(ext2fs_bmap2(fs, NEW_INO, NULL, NULL, 0, 0, NULL, &got), 0);
	CHECK_EQ(got, pblk);
	CHECK(ext2fs_lookup(fs, 2, "ghost", 5, NULL, &ino) != 0);
	ext2fs_close_free(&fs);

	/* Nothing committed, or a stop that fails recovery: nothing is touched. */
	fc->ncommitted = 0;
	CHECK_EQ(ext2fs_open(path, EXT2_FLAG_RW | EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &fs), 0);
	CHECK_EQ(replay_fc(fs, fc, &res), 0);
	CHECK_EQ(res.applied, 0);
	ext2fs_close_free(&fs);

	jbd_fc_free(fc);
	free(a);
	snprintf(cmd, sizeof(cmd), "cat %s/e2fsck.out; rm -rf %s", dir, dir);
	CHECK(system(cmd) == 0);
	return unit_done("test_fc_replay");
}
