/*
 * Unit test: directories made by fast commit. On a fresh mke2fs image, an
 * area built here creates /newdir (its block brought by ADD_RANGE and full
 * of garbage on disk, as fast commits never log directory blocks), a file in
 * it, and /newdir/sub (no block logged: the replay allocates one), among
 * hostile committed tags (a file as a parent, a hard link to a directory,
 * the root as a child, reserved inodes, a range over the inode table, a
 * directory inside itself). The oracles: e2fsck -fn finds the result clean
 * (link counts, used-dirs counts, bitmaps, checksums) and debugfs lists the
 * directories and their entries. A second replay of the same area changes
 * nothing (a replay cut short is run again).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BS	4096
#define NBLK	2
#include "fc_build.h"
#include "replay/fc.h"
#include "util/e4r_err.h"
#include "unit.h"

#define DIR_INO		12
#define FILE_INO	13
#define SUB_INO		14
#define SPARE_INO	15
#define HOSTILE_TAGS	8

static void build(struct area *a, blk64_t dir_blk, blk64_t itable)
{
	unsigned char raw[256], del[12];

	memset(a, 0, sizeof(*a));
	head(a, 0, 1);
	/* mkdir /newdir, as the kernel logs it: INODE, ADD_RANGE, CREAT */
	raw_inode(raw, sizeof(raw), 040755, BS, 2);
	inode_raw(a, DIR_INO, raw, sizeof(raw));
	add_range(a, DIR_INO, 0, 1, dir_blk);
	dentry(a, JBD_FC_TAG_CREAT, EXT2_ROOT_INO, DIR_INO, "newdir");
	/* /newdir/inner, a one-block file */
	raw_inode(raw, sizeof(raw), 0100644, 10, 1);
	inode_raw(a, FILE_INO, raw, sizeof(raw));
	add_range(a, FILE_INO, 0, 1, dir_blk + 1);
	dentry(a, JBD_FC_TAG_CREAT, DIR_INO, FILE_INO, "inner");
	/* /newdir/sub: no block logged (a 6.x kernel logs none for directories) */
	raw_inode(raw, sizeof(raw), 040700, BS, 2);
	inode_raw(a, SUB_INO, raw, sizeof(raw));
	dentry(a, JBD_FC_TAG_CREAT, DIR_INO, SUB_INO, "sub");
	/* Hostile, yet committed: each refused without harm. */
	dentry(a, JBD_FC_TAG_CREAT, FILE_INO, SPARE_INO, "x");		/* a file as the parent */
	dentry(a, JBD_FC_TAG_LINK, EXT2_ROOT_INO, DIR_INO, "dirlink");	/* a hard link to a directory */
	dentry(a, JBD_FC_TAG_CREAT, DIR_INO, EXT2_ROOT_INO, "root");	/* the root as a child */
	dentry(a, JBD_FC_TAG_CREAT, DIR_INO, DIR_INO, "self");		/* a directory inside itself */
	inode_tag(a, EXT2_JOURNAL_INO);					/* a reserved inode */
	add_range(a, FILE_INO, 5, 2, itable);				/* over the inode table */
	put32(del, EXT2_RESIZE_INO); put32(del + 4, 0); put32(del + 8, 1);
	tlv(a, JBD_FC_TAG_DEL_RANGE, 12, del);				/* a reserved inode */
	dentry(a, JBD_FC_TAG_UNLINK, 1, FILE_INO, "inner");		/* the bad-blocks inode as a parent */
	tail(a, 1, 0);
}

static int sh(const char *fmt, const char *dir, const char *path)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), fmt, path, dir);
	return system(cmd);
}

/* debugfs's view: the entries of /newdir and the link counts. */
static void check_debugfs(const char *dir, const char *path)
{
	CHECK(sh("debugfs -R 'ls -l /newdir' %s 2>/dev/null > %s/ls.out", dir, path) == 0);
	CHECK(sh("grep -Eq ' 12 +40755 .* \\.$' %2$s/ls.out #%1$s", dir, path) == 0);
	CHECK(sh("grep -Eq ' 2 +40755 .* \\.\\.$' %2$s/ls.out #%1$s", dir, path) == 0);
	CHECK(sh("grep -Eq ' 13 +100644 .* inner$' %2$s/ls.out #%1$s", dir, path) == 0);
	CHECK(sh("grep -Eq ' 14 +40700 .* sub$' %2$s/ls.out #%1$s", dir, path) == 0);
	CHECK(sh("grep -Eq ' (x|self|root)$' %2$s/ls.out #%1$s", dir, path) != 0);
	CHECK(sh("debugfs -R 'ls -l /newdir/sub' %s 2>/dev/null | grep -Eq ' 12 +40755 .* \\.\\.$' #%s", dir, path) == 0);
	CHECK(sh("debugfs -R 'stat /newdir' %s 2>/dev/null | grep -q 'Links: 3 ' #%s", dir, path) == 0);
	CHECK(sh("debugfs -R 'stat /newdir/sub' %s 2>/dev/null | grep -q 'Links: 2 ' #%s", dir, path) == 0);
	CHECK(sh("debugfs -R 'stat /' %s 2>/dev/null | grep -q 'Links: 4 ' #%s", dir, path) == 0);
	CHECK(sh("debugfs -R 'ls /' %s 2>/dev/null | grep -q dirlink #%s", dir, path) != 0);
}

static void replay_once(const char *path, const struct jbd_fc *fc, unsigned expect_applied)
{
	struct replay_fc_result res;
	ext2_filsys fs;

	CHECK_EQ(ext2fs_open(path, EXT2_FLAG_RW | EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &fs), 0);
	CHECK_EQ(replay_fc(fs, fc, &res), 0);
	CHECK_EQ(res.failed, HOSTILE_TAGS);
	CHECK_EQ(res.applied, expect_applied);
	CHECK_EQ(ext2fs_bg_used_dirs_count(fs, 0), 4);	/* root, lost+found, newdir, sub */
	CHECK_EQ(ext2fs_close_free(&fs), 0);
}

int main(void)
{
	char dir[] = "/tmp/e4r-unit-XXXXXX", path[256], cmd[512];
	struct jbd_fc_limits lim;
	struct jbd_fc *fc = NULL;
	struct area *a = calloc(1, sizeof(*a));
	unsigned char *garbage = malloc(BS);
	ext2_filsys fs;
	blk64_t dir_blk, itable;

	initialize_e4r_error_table();
	initialize_ext2_error_table();
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/fs.img", dir);
	snprintf(cmd, sizeof(cmd), "mke2fs -q -F -t ext4 -b 4096 -O metadata_csum %s 16M >/dev/null 2>&1", path);
	CHECK(system(cmd) == 0);
	CHECK_EQ(ext2fs_open(path, EXT2_FLAG_RW | EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &fs), 0);
	dir_blk = ext2fs_blocks_count(fs->super) - 100;		/* free on a fresh 16M image */
	itable = ext2fs_inode_table_loc(fs, 0);
	/* What a crash leaves in a directory block the fast commit did not log. */
	memset(garbage, 0xEE, BS);
	CHECK_EQ(io_channel_write_blk64(fs->io, dir_blk, 1, garbage), 0);
	lim.inode_size = EXT2_INODE_SIZE(fs->super);
	lim.inodes_count = fs->super->s_inodes_count;
	lim.blocks_count = ext2fs_blocks_count(fs->super);
	CHECK_EQ(ext2fs_close_free(&fs), 0);

	build(a, dir_blk, itable);
	CHECK_EQ(jbd_fc_parse(a->buf, NBLK, BS, 0, 1, &lim, &fc), 0);
	CHECK_EQ(fc->stop_error, 0);
	CHECK_EQ(fc->ncommitted, 10 + HOSTILE_TAGS);

	replay_once(path, fc, 10);
	CHECK(sh("e2fsck -fn %s >%s/e2fsck.out 2>&1", dir, path) == 0);
	check_debugfs(dir, path);

	/* Again on the result: the names are there, nothing moves. */
	replay_once(path, fc, 10);
	CHECK(sh("e2fsck -fn %s >%s/e2fsck2.out 2>&1", dir, path) == 0);
	check_debugfs(dir, path);

	jbd_fc_free(fc);
	free(a);
	free(garbage);
	snprintf(cmd, sizeof(cmd), "cat %s/e2fsck.out %s/e2fsck2.out %s/ls.out; rm -rf %s", dir, dir, dir, dir);
	CHECK(system(cmd) == 0);
	return unit_done("test_fc_replay_dir");
}
