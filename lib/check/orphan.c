/* Orphans the check finds wrong (released before it: fsck/orphans_release.c; mended: repair/orphan.c). */
/*
 * Checker: the two ways ext4 remembers inodes to finish deleting or
 * truncating after a crash.
 *
 * The classic orphan list: s_last_orphan names the first inode, each
 * inode's i_dtime the next. e2fsck -n does not walk it (it only sees, in
 * pass 1, inodes whose dtime is small enough to be a link), so what the walk
 * finds here is a warning: where the list leaves the inode range or loops.
 *
 * The orphan file (feature orphan_file): a hidden regular inode
 * (s_orphan_file_inum) whose blocks hold 32-bit inode numbers and end in a
 * tail (magic, checksum). A clean filesystem has every slot zero, every tail
 * valid and no hole; the orphan_present flag says slots are in use.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/ctx.h"
#include "fs/inode.h"

#define ORPHAN_BLOCK_MAGIC	0x0b10ca04

errcode_t check_orphan_list(struct check_ctx *c)
{
	ext2_filsys fs = c->fs;
	ext2_ino_t ino = fs->super->s_last_orphan, prev = 0;
	ext2fs_inode_bitmap seen = NULL;
	struct ext2_inode in;
	errcode_t err;

	if (!ino || ino < c->first_ino || ino > c->inodes)
		return 0;	/* none, or a bad head (check_super names it) */
	err = ext2fs_allocate_inode_bitmap(fs, "orphan list", &seen);
	if (err)
		return err;
	while (ino) {
		if (ino < c->first_ino || ino > c->inodes) {
			check_report_ino(c, E4R_PR_ORPHAN_CHAIN_RANGE, prev, E4R_NONE, E4R_NONE, ino);
			break;
		}
		if (ext2fs_test_inode_bitmap2(seen, ino)) {
			check_report_ino(c, E4R_PR_ORPHAN_CHAIN_LOOP, prev, E4R_NONE, E4R_NONE, ino);
			break;
		}
		ext2fs_mark_inode_bitmap2(seen, ino);
		if (fs_read_inode(fs, ino, &in))
			break;
		prev = ino;
		ino = in.i_dtime;
	}
	ext2fs_free_inode_bitmap(seen);
	return 0;
}

static void report_block(struct check_ctx *c, enum check_problem code, ext2_ino_t ino, blk64_t blk,
			 uint64_t lblk, uint64_t found)
{
	struct check_finding f = check_finding_init(code);

	f.ino = ino;
	f.blk = blk;
	f.expected = lblk;
	f.found = found;
	check_report(c, &f);
}

/* One block of the orphan file; returns 1 when it is clean (valid tail, every slot zero). */
static int orphan_block_clean(struct check_ctx *c, ext2_ino_t ino, blk64_t blk, uint64_t lblk,
			      char *buf)
{
	ext2_filsys fs = c->fs;
	struct ext4_orphan_block_tail *tail = ext2fs_orphan_block_tail(fs, buf);
	int per = ext2fs_inodes_per_orphan_block(fs), i, clean = 1;
	uint32_t slot;

	if (io_channel_read_blk64(fs->io, blk, 1, buf) ||
	    ext2fs_le32_to_cpu(tail->ob_magic) != ORPHAN_BLOCK_MAGIC ||
	    (ext2fs_has_feature_metadata_csum(fs->super) &&
	     !ext2fs_orphan_file_block_csum_verify(fs, ino, blk, buf))) {
		report_block(c, E4R_PR_ORPHAN_FILE_CSUM, ino, blk, lblk, E4R_NONE);
		return 0;
	}
	for (i = 0; i < per; i++) {
		memcpy(&slot, buf + 4 * i, sizeof(slot));
		slot = ext2fs_le32_to_cpu(slot);
		if (!slot)
			continue;
		clean = 0;
		report_block(c, slot < c->first_ino || slot > c->inodes ? E4R_PR_ORPHAN_FILE_ENTRY_RANGE :
			     E4R_PR_ORPHAN_FILE_ENTRY, ino, blk, lblk, slot);
	}
	return clean;
}

/* The orphan file's blocks, in order; returns 1 when every one is clean. */
static int orphan_file_clean(struct check_ctx *c, ext2_ino_t ino, struct ext2_inode *in)
{
	ext2_filsys fs = c->fs;
	uint64_t nblocks = EXT2_I_SIZE(in) / fs->blocksize, lblk;
	char *buf = malloc(fs->blocksize);
	int clean = 1;

	if (!buf)
		return 1;
	for (lblk = 0; lblk < nblocks; lblk++) {
		blk64_t blk = 0;

		if (ext2fs_bmap2(fs, ino, in, NULL, 0, lblk, NULL, &blk) || !blk ||
		    check_out_of_fs(fs, blk, 1)) {
			/* e2fsck gives up on the file at its first hole */
			report_block(c, E4R_PR_ORPHAN_FILE_HOLE, ino, E4R_NONE, lblk, E4R_NONE);
			clean = 0;
			break;
		}
		if (!orphan_block_clean(c, ino, blk, lblk, buf))
			clean = 0;
	}
	free(buf);
	return clean;
}

/* An inode number e2fsck's pass 1 treats as something else before it asks for the orphan file. */
static int orphan_number_taken(struct check_ctx *c, ext2_ino_t ino)
{
	return ino == EXT2_BAD_INO || ino == EXT2_ROOT_INO || ino == EXT2_JOURNAL_INO ||
	       ino == EXT4_USR_QUOTA_INO || ino == EXT4_GRP_QUOTA_INO ||
	       ino == c->fs->super->s_prj_quota_inum;
}

errcode_t check_orphan_file(struct check_ctx *c)
{
	ext2_filsys fs = c->fs;
	ext2_ino_t ino = fs->super->s_orphan_file_inum;
	int feature = ext2fs_has_feature_orphan_file(fs->super);
	int present = ext2fs_has_feature_orphan_present(fs->super);
	struct ext2_inode in;

	if (!feature) {
		/*
		 * Without the feature the inode must be empty; the flag must be off.
		 * e2fsck judges the number only when it names no inode its pass 1
		 * takes first (the bad-blocks, root, journal and quota inodes), and
		 * an ordinary inode only while linked.
		 */
		if (ino && ino <= c->inodes && !orphan_number_taken(c, ino) &&
		    !fs_read_inode(fs, ino, &in) &&
		    (ino < c->first_ino ? (in.i_links_count || in.i_blocks || in.i_block[0]) :
		     in.i_links_count != 0))
			check_report_ino(c, E4R_PR_ORPHAN_FILE_NOT_CLEAR, ino, E4R_NONE, E4R_NONE,
					 E4R_NONE);
		if (present)
			check_report_ino(c, E4R_PR_ORPHAN_PRESENT_NO_FILE, E4R_NONE, E4R_NONE,
					 E4R_NONE, E4R_NONE);
		return 0;
	}
	/* the orphan file is written through the journal: e2fsck clears the feature */
	if (!ext2fs_has_feature_journal(fs->super)) {
		check_report_ino(c, E4R_PR_ORPHAN_FILE_NO_JOURNAL, ino, E4R_NONE, E4R_NONE, E4R_NONE);
		return 0;
	}
	if (!ino || ino > c->inodes || fs_read_inode(fs, ino, &in)) {
		check_report_ino(c, E4R_PR_ORPHAN_FILE_INODE, ino, E4R_NONE, E4R_NONE, E4R_NONE);
		return 0;
	}
	if (!LINUX_S_ISREG(in.i_mode)) {
		check_report_ino(c, E4R_PR_ORPHAN_FILE_NOT_REG, ino, E4R_NONE, E4R_NONE, in.i_mode);
		return 0;
	}
	/* a partial block cannot hold a slot table and its tail: e2fsck cannot use the file */
	if (EXT2_I_SIZE(&in) % fs->blocksize) {
		check_report_ino(c, E4R_PR_ORPHAN_FILE_SIZE, ino, E4R_NONE, E4R_NONE, EXT2_I_SIZE(&in));
		return 0;
	}
	if (orphan_file_clean(c, ino, &in) && present)
		check_report_ino(c, E4R_PR_ORPHAN_PRESENT_CLEAN, ino, E4R_NONE, E4R_NONE, E4R_NONE);
	return 0;
}
