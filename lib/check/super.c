/*
 * Checker pass 0: the superblock and the group descriptors, and the clean/forced decision.
 *
 * Fills in c->meta: where the descriptors put the superblocks, descriptors, bitmaps
 * and inode tables (pass 1 adds what the inodes claim).
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check/ctx.h"
#include "fs/geometry.h"
#include "fs/image.h"
#include "fs/inode.h"
#include "fs/open.h"
#include "util/e4r_err.h"
#include "jbd/journal.h"

#include "util/crc.h"
#include "util/nomem.h"

/* A power of two (zero passes, as in e2fsck's check). */
static int log2_ok(uint64_t v)
{
	return !(v & (v - 1));
}

/*
 * Inodes per group: at least one block of inode table, no more than the
 * group's blocks less four (bitmaps, superblock, descriptor) hold, and
 * one inode table block short of 65,536 (e2fsck's range).
 */
static int ipg_ok(ext2_filsys fs)
{
	struct ext2_super_block *sb = fs->super;
	uint64_t per_block = fs->blocksize / EXT2_INODE_SIZE(sb);
	uint64_t most = per_block * (sb->s_blocks_per_group > 4 ? sb->s_blocks_per_group - 4 : 0);

	if (most > EXT2_MAX_INODES_PER_GROUP(sb))
		most = EXT2_MAX_INODES_PER_GROUP(sb);
	return sb->s_inodes_per_group >= per_block && sb->s_inodes_per_group <= most;
}

/*
 * The ranges e2fsck holds superblock values to before it checks anything
 * (values libext2fs's open lets through); one out of range stops e2fsck.
 * The finding says which value (the numbers of the message).
 */
static void check_sb_values(struct check_ctx *c)
{
	struct ext2_super_block *sb = c->fs->super;
	ext2_filsys fs = c->fs;
	unsigned inode_size = EXT2_INODE_SIZE(sb);
	int isize_bad = inode_size < EXT2_GOOD_OLD_INODE_SIZE || inode_size > fs->blocksize ||
			!log2_ok(inode_size);
	/* judged whichever value is named (the first out of range): it stops the check */
	int ipg_bad = !isize_bad && !ipg_ok(fs);
	int bad = 0;

	if (ext2fs_r_blocks_count(sb) > ext2fs_blocks_count(sb) / 2)
		bad = 1;
	else if (sb->s_reserved_gdt_blocks > fs->blocksize / sizeof(uint32_t))
		bad = 2;
	else if (sb->s_desc_size > EXT2_MAX_DESC_SIZE || !log2_ok(sb->s_desc_size))
		bad = 3;
	/*
	 * Against the count the groups hold, as e2fsck checks it after setting
	 * a wrong inode count from the groups (s_inodes_count of 1: mended)
	 */
	else if (sb->s_rev_level > EXT2_GOOD_OLD_REV &&
		 (sb->s_first_ino < EXT2_GOOD_OLD_FIRST_INO ||
		  sb->s_first_ino > (uint64_t)sb->s_inodes_per_group * fs->group_desc_count))
		bad = 4;
	else if (isize_bad)
		bad = 5;
	else if (sb->s_blocks_per_group != sb->s_clusters_per_group * EXT2FS_CLUSTER_RATIO(fs))
		bad = 6;
	else if (ext2fs_has_feature_metadata_csum(sb) && sb->s_checksum_type != EXT2_CRC32C_CHKSUM)
		bad = 7;
	else if (ext2fs_has_feature_casefold(sb) && sb->s_encoding != EXT4_ENC_UTF8_12_1)
		bad = 8;
	else if (ipg_bad)
		bad = 9;
	if (!bad)
		return;
	check_report_group(c, E4R_PR_SB_VALUE, E4R_NONE, E4R_NONE, E4R_NONE, bad);
	/*
	 * The inode table's size, the inode count and every inode's place come
	 * from inodes per group: the check would walk inodes that are not
	 * there (one group of one inode has no root). e2fsck stops on it too.
	 * A repair stops at any of them, as e2fsck does: the layout its writes
	 * would follow is not the filesystem's (descriptors read 9 bytes apart
	 * for a descriptor size of 9 put bitmaps on inode tables, and clearing
	 * an inode wrote over one: fuzz_check). Read-only, the walk goes on to
	 * say what else it sees.
	 */
	if (ipg_bad || (c->opts && c->opts->repair != E4R_REPAIR_NONE)) {
		c->res->aborted = 1;
		c->res->abort_err = EXT2_ET_CORRUPT_SUPERBLOCK;
	}
}

/* A superblock claiming more blocks than the device holds (a cut image, a forged count). */
static void check_fs_size(struct check_ctx *c)
{
	uint64_t bytes, have;

	if (fs_image_size(c->fs->device_name, &bytes))
		return;
	have = bytes / c->fs->blocksize;
	if (ext2fs_blocks_count(c->fs->super) > have)
		check_report_group(c, E4R_PR_FS_SIZE_WRONG, E4R_NONE, E4R_NONE, have,
				   ext2fs_blocks_count(c->fs->super));
}

/*
 * The incompatible features libext2fs (and e2fsck) take. The public header
 * leaves mmp out unless the includer defines CONFIG_MMP, e2fsprogs' own build
 * switch; the library this links against was built with it.
 */
#define LIB_INCOMPAT_SUPP	(EXT2_LIB_FEATURE_INCOMPAT_SUPP | EXT4_FEATURE_INCOMPAT_MMP)

static void check_sb_fields(struct check_ctx *c)
{
	struct ext2_super_block *sb = c->fs->super;
	ext2_filsys fs = c->fs;
	uint64_t want_inodes = (uint64_t)sb->s_inodes_per_group * fs->group_desc_count;
	blk64_t want_first = (fs->blocksize == 1024 && EXT2FS_CLUSTER_RATIO(fs) == 1) ? 1 : 0;

	if (ext2fs_has_feature_metadata_csum(sb) && !ext2fs_superblock_csum_verify(fs, sb))
		check_report_group(c, E4R_PR_SB_CSUM, E4R_NONE, 0, E4R_NONE, sb->s_checksum);
	if (ext2fs_has_feature_meta_bg(sb) && sb->s_first_meta_bg > fs->desc_blocks)
		check_report_group(c, E4R_PR_SB_FIRST_META_BG, E4R_NONE, E4R_NONE, fs->desc_blocks,
				   sb->s_first_meta_bg);
	if (ext2fs_has_feature_metadata_csum(sb) && ext2fs_has_feature_gdt_csum(sb))
		check_report_group(c, E4R_PR_SB_BOTH_CSUMS, E4R_NONE, E4R_NONE, E4R_NONE, E4R_NONE);
	if (ext2fs_has_feature_resize_inode(sb) && ext2fs_has_feature_meta_bg(sb))
		check_report_group(c, E4R_PR_SB_RESIZE_META_BG, E4R_NONE, E4R_NONE, E4R_NONE, E4R_NONE);
	if (sb->s_inodes_count != want_inodes) {
		check_report_group(c, E4R_PR_SB_INODES_COUNT, E4R_NONE, E4R_NONE, want_inodes,
				   sb->s_inodes_count);
		/*
		 * Unfixed, e2fsck calls the superblock corrupt and stops (exit 12):
		 * nothing sized from its counts (a forged block count: tens of
		 * thousands of groups) is looked at
		 */
		if (!c->opts || c->opts->repair == E4R_REPAIR_NONE) {
			c->res->aborted = 1;
			c->res->abort_err = EXT2_ET_CORRUPT_SUPERBLOCK;
		} else {
			c->super_only = 1;
		}
	}
	if (sb->s_first_data_block != want_first)
		check_report_group(c, E4R_PR_SB_FIRST_DATA_BLOCK, E4R_NONE, E4R_NONE, want_first,
				   sb->s_first_data_block);
	if (ext2fs_free_blocks_count(sb) > ext2fs_blocks_count(sb))
		check_report_group(c, E4R_PR_SB_FREE_BLOCKS_RANGE, E4R_NONE, E4R_NONE,
				   ext2fs_blocks_count(sb), ext2fs_free_blocks_count(sb));
	if (sb->s_free_inodes_count > sb->s_inodes_count)
		check_report_group(c, E4R_PR_SB_FREE_INODES_RANGE, E4R_NONE, E4R_NONE,
				   sb->s_inodes_count, sb->s_free_inodes_count);
	/*
	 * libext2fs refuses unknown incompat features, and ro_compat ones only
	 * when it may write; e2fsck refuses all three kinds.
	 */
	if ((sb->s_feature_compat & ~EXT2_LIB_FEATURE_COMPAT_SUPP) ||
	    (sb->s_feature_ro_compat & ~EXT2_LIB_FEATURE_RO_COMPAT_SUPP) ||
	    (sb->s_feature_incompat & ~LIB_INCOMPAT_SUPP))
		check_report_group(c, E4R_PR_SB_FEATURE_UNKNOWN, E4R_NONE, E4R_NONE, E4R_NONE,
				   ((uint64_t)(sb->s_feature_compat & ~EXT2_LIB_FEATURE_COMPAT_SUPP) << 32) |
				   (sb->s_feature_ro_compat & ~EXT2_LIB_FEATURE_RO_COMPAT_SUPP) |
				   (sb->s_feature_incompat & ~LIB_INCOMPAT_SUPP));
	if (sb->s_last_orphan && (sb->s_last_orphan < c->first_ino ||
				  sb->s_last_orphan > sb->s_inodes_count))
		check_report_ino(c, E4R_PR_SB_ORPHAN_HEAD, sb->s_last_orphan, E4R_NONE, E4R_NONE,
				 E4R_NONE);
}

/*
 * A superblock time ahead of the clock: e2fsck forgives up to a day (a
 * hardware clock set wrong) and names anything later.
 */
#define FUTURE_FUDGE	86400

/* An extra inode size e2fsck rejects: past the inode, short of its first field, or unaligned. */
static int extra_isize_bad(const struct ext2_super_block *sb, unsigned v)
{
	unsigned max = EXT2_INODE_SIZE(sb) - EXT2_GOOD_OLD_INODE_SIZE;

	return v && (v < 4 || v > max || (v & 3));
}

/* The rules between superblock fields e2fsck applies after its range checks. */
static void check_sb_rules(struct check_ctx *c)
{
	struct ext2_super_block *sb = c->fs->super;
	uint64_t now = (uint64_t)time(NULL);
	uint64_t want_isize = sizeof(struct ext2_inode_large) - EXT2_GOOD_OLD_INODE_SIZE;

	if (sb->s_rev_level == EXT2_GOOD_OLD_REV &&
	    (sb->s_feature_compat || sb->s_feature_ro_compat || sb->s_feature_incompat))
		check_report_group(c, E4R_PR_SB_REV_LEVEL, E4R_NONE, E4R_NONE, E4R_NONE, E4R_NONE);
	if (sb->s_creator_os == EXT2_OS_HURD && ext2fs_has_feature_filetype(sb))
		check_report_group(c, E4R_PR_SB_HURD_FILETYPE, E4R_NONE, E4R_NONE, E4R_NONE, E4R_NONE);
	if (!ext2fs_has_feature_resize_inode(sb) && sb->s_reserved_gdt_blocks)
		check_report_group(c, E4R_PR_SB_RESERVED_GDT, E4R_NONE, E4R_NONE, 0,
				   sb->s_reserved_gdt_blocks);
	if (sb->s_mtime > now + FUTURE_FUDGE)
		check_report_group(c, E4R_PR_SB_FUTURE_MOUNT, E4R_NONE, E4R_NONE, now, sb->s_mtime);
	if (sb->s_wtime > now + FUTURE_FUDGE)
		check_report_group(c, E4R_PR_SB_FUTURE_WRITE, E4R_NONE, E4R_NONE, now, sb->s_wtime);
	if (ext2fs_has_feature_64bit(sb) && !ext2fs_has_feature_extents(sb))
		check_report_group(c, E4R_PR_SB_64BIT_NO_EXTENTS, E4R_NONE, E4R_NONE, E4R_NONE,
				   E4R_NONE);
	if (EXT2_INODE_SIZE(sb) > EXT2_GOOD_OLD_INODE_SIZE) {
		if (extra_isize_bad(sb, sb->s_min_extra_isize))
			check_report_group(c, E4R_PR_SB_MIN_EXTRA_ISIZE, E4R_NONE, E4R_NONE,
					   want_isize, sb->s_min_extra_isize);
		if (extra_isize_bad(sb, sb->s_want_extra_isize))
			check_report_group(c, E4R_PR_SB_WANT_EXTRA_ISIZE, E4R_NONE, E4R_NONE,
					   want_isize, sb->s_want_extra_isize);
	}
	if (ext2fs_has_feature_csum_seed(sb) && !ext2fs_has_feature_metadata_csum(sb))
		check_report_group(c, E4R_PR_SB_CSUM_SEED, E4R_NONE, E4R_NONE, E4R_NONE, E4R_NONE);
}

/*
 * The multi-mount protection block, as e2fsck reads it before anything
 * else: its number, its magic, its checksum. Read through the image's
 * channel (libext2fs's reader opens the device path again, O_DIRECT).
 */
static void check_mmp(struct check_ctx *c)
{
	ext2_filsys fs = c->fs;
	struct ext2_super_block *sb = fs->super;
	blk64_t blk = sb->s_mmp_block;
	struct mmp_struct *mmp;

	if (!ext2fs_has_feature_mmp(sb))
		return;
	if (blk <= sb->s_first_data_block || blk >= ext2fs_blocks_count(sb)) {
		check_report_group(c, E4R_PR_MMP_BAD_BLOCK, E4R_NONE, blk, E4R_NONE, E4R_NONE);
		return;
	}
	mmp = malloc(fs->blocksize);
	if (!mmp)
		return;
	if (io_channel_read_blk64(fs->io, blk, 1, mmp) == 0) {
		if (ext2fs_le32_to_cpu(mmp->mmp_magic) != EXT4_MMP_MAGIC)
			check_report_group(c, E4R_PR_MMP_MAGIC, E4R_NONE, blk, EXT4_MMP_MAGIC,
					   ext2fs_le32_to_cpu(mmp->mmp_magic));
		else if (ext2fs_has_feature_metadata_csum(sb) && !ext2fs_mmp_csum_verify(fs, mmp))
			check_report_group(c, E4R_PR_MMP_CSUM, E4R_NONE, blk, E4R_NONE,
					   ext2fs_le32_to_cpu(mmp->mmp_checksum));
	}
	free(mmp);
}

/* The blocks group G's metadata may use: the group itself, or with flex_bg anywhere. */
static int in_group_range(ext2_filsys fs, dgrp_t g, blk64_t b, blk64_t len)
{
	blk64_t first = ext2fs_group_first_block2(fs, g), last = ext2fs_group_last_block2(fs, g);

	if (ext2fs_has_feature_flex_bg(fs->super)) {
		first = fs->super->s_first_data_block;
		last = ext2fs_blocks_count(fs->super) - 1;
	}
	return b >= first && len <= last - first + 1 && b - first <= last - first + 1 - len;
}

/* Mark B..B+LEN-1 as metadata; report an overlap with metadata marked before. */
/*
 * Bigalloc: whether blocks B..B+LEN-1 fall among group G's superblock and
 * descriptor blocks (reserved ones included), which the per-cluster map
 * cannot tell apart from their neighbours in the cluster.
 */
static int in_super_area(ext2_filsys fs, dgrp_t g, blk64_t b, blk64_t len)
{
	blk64_t super = 0, old_desc = 0, new_desc = 0;
	blk_t used = 0;

	if (ext2fs_has_feature_meta_bg(fs->super) || !ext2fs_bg_has_super(fs, g) ||
	    ext2fs_super_and_bgd_loc2(fs, g, &super, &old_desc, &new_desc, &used) || !used)
		return 0;
	if (g == 0 && super == 0 && fs->blocksize == 1024)
		super = 1;
	return b < super + used && super < b + len;
}

static void mark_meta(struct check_ctx *c, dgrp_t g, blk64_t b, blk64_t len)
{
	/* With bigalloc the map is per cluster: neighbours in one cluster are not overlaps. */
	if (EXT2FS_CLUSTER_RATIO(c->fs) == 1 ? !ext2fs_test_block_bitmap_range2(c->meta, b, len) :
	    in_super_area(c->fs, g, b, len))
		check_report_group(c, E4R_PR_GD_META_OVERLAP, g, b, E4R_NONE, E4R_NONE);
	ext2fs_mark_block_bitmap_range2(c->meta, b, len);
}

/*
 * Group G's table at IT cannot be there: outside the filesystem or its group,
 * over a superblock or descriptor copy or an earlier group's metadata, or
 * over its own bitmaps (one of the two is wrong: the inodes will decide).
 */
static int table_misplaced(struct check_ctx *c, dgrp_t g, blk64_t it)
{
	ext2_filsys fs = c->fs;
	blk64_t len = fs->inode_blocks_per_group;
	blk64_t bb = ext2fs_block_bitmap_loc(fs, g), ib = ext2fs_inode_bitmap_loc(fs, g);

	dgrp_t h;

	if (!in_group_range(fs, g, it, len))
		return 1;
	if ((bb >= it && bb - it < len) || (ib >= it && ib - it < len))
		return 1;
	if (EXT2FS_CLUSTER_RATIO(fs) == 1)
		return !ext2fs_test_block_bitmap_range2(c->meta, it, len);
	/* bigalloc: the per-cluster map cannot tell neighbours in a cluster apart */
	for (h = 0; h < fs->group_desc_count; h++)
		if (in_super_area(fs, h, it, len))
			return 1;
	return 0;
}

static void check_group(struct check_ctx *c, dgrp_t g)
{
	ext2_filsys fs = c->fs;
	blk64_t bb = ext2fs_block_bitmap_loc(fs, g), ib = ext2fs_inode_bitmap_loc(fs, g);
	blk64_t it = ext2fs_inode_table_loc(fs, g);
	uint16_t flags = ext2fs_bg_flags(fs, g);
	int conflict = 0, table_sound;

	if (ext2fs_has_group_desc_csum(fs) && !ext2fs_group_desc_csum_verify(fs, g))
		check_report_group(c, E4R_PR_GD_CSUM, g, E4R_NONE, ext2fs_group_desc_csum(fs, g),
				   ext2fs_bg_checksum(fs, g));
	/*
	 * A table the descriptor puts where it cannot be is looked for where it
	 * was (check/itable.c) before anything is marked over it; found, the
	 * group's other metadata is judged against the table's true place.
	 */
	if (table_misplaced(c, g, it)) {
		blk64_t origin = check_itable_origin(c, g);

		if (origin && origin != it) {
			check_report_group(c, E4R_PR_GD_ITABLE_ORIGIN, g, it, origin, it);
			it = origin;
		} else if (!origin && in_group_range(fs, g, it, fs->inode_blocks_per_group) &&
			   EXT2FS_CLUSTER_RATIO(fs) == 1) {
			/* over other metadata, and no inodes where it was: it moves (e2fsck's relocation) */
			check_report_group(c, E4R_PR_GD_ITABLE_CONFLICT, g, it, E4R_NONE, E4R_NONE);
			conflict = 1;
		}
	}
	/*
	 * A bitmap inside the table's settled place is the one that is wrong:
	 * its overlap names the bitmap (the repair moves what the finding names).
	 */
	table_sound = !conflict && in_group_range(fs, g, it, fs->inode_blocks_per_group);
	if (!in_group_range(fs, g, bb, 1))
		check_report_group(c, E4R_PR_GD_BLOCK_BITMAP, g, bb, E4R_NONE, E4R_NONE);
	else if (table_sound && bb >= it && bb - it < fs->inode_blocks_per_group)
		check_report_group(c, E4R_PR_GD_META_OVERLAP, g, bb, E4R_NONE, E4R_NONE);
	else
		mark_meta(c, g, bb, 1);
	if (!in_group_range(fs, g, ib, 1))
		check_report_group(c, E4R_PR_GD_INODE_BITMAP, g, ib, E4R_NONE, E4R_NONE);
	else if (table_sound && ib >= it && ib - it < fs->inode_blocks_per_group)
		check_report_group(c, E4R_PR_GD_META_OVERLAP, g, ib, E4R_NONE, E4R_NONE);
	else
		mark_meta(c, g, ib, 1);
	if (conflict)
		;	/* not marked: the bitmaps are judged without it */
	else if (!in_group_range(fs, g, it, fs->inode_blocks_per_group))
		check_report_group(c, E4R_PR_GD_INODE_TABLE, g, it, E4R_NONE, E4R_NONE);
	else
		mark_meta(c, g, it, fs->inode_blocks_per_group);
	if (ext2fs_has_group_desc_csum(fs)) {
		if (g == fs->group_desc_count - 1 && (flags & EXT2_BG_BLOCK_UNINIT))
			check_report_group(c, E4R_PR_GD_BB_UNINIT_LAST, g, E4R_NONE, E4R_NONE, flags);
		if (ext2fs_bg_itable_unused(fs, g) > ext2fs_bg_free_inodes_count(fs, g))
			check_report_group(c, E4R_PR_GD_UNUSED_INODES, g, E4R_NONE,
					   ext2fs_bg_free_inodes_count(fs, g),
					   ext2fs_bg_itable_unused(fs, g));
	} else if (flags & (EXT2_BG_INODE_UNINIT | EXT2_BG_BLOCK_UNINIT)) {
		check_report_group(c, E4R_PR_GD_UNINIT_NO_CSUM, g, E4R_NONE, E4R_NONE, flags);
	}
}

/*
 * The internal journal's superblock checksum, read directly (for a
 * superblock jbd refuses on a field e2fsck does not judge without a
 * replay): 1 when the journal keeps v2/v3 checksums and this one is wrong.
 * MAXLEN and START get the log's length and where its transactions start.
 */
static int jsb_csum_bad(struct check_ctx *c, uint32_t *stored, uint32_t *computed, uint32_t *maxlen,
			uint32_t *start)
{
	ext2_filsys fs = c->fs;
	const struct jbd_superblock *jsb;
	unsigned char *buf;
	blk64_t blk = 0;
	int bad = 0;

	if (!fs->super->s_journal_inum || fs->blocksize < JBD_SUPERBLOCK_SIZE ||
	    ext2fs_bmap2(fs, fs->super->s_journal_inum, NULL, NULL, 0, 0, NULL, &blk) || !blk ||
	    check_out_of_fs(fs, blk, 1))
		return 0;
	buf = malloc(fs->blocksize);
	if (!buf)
		return 0;
	jsb = (const struct jbd_superblock *)buf;
	*maxlen = UINT32_MAX;
	if (!io_channel_read_blk64(fs->io, blk, 1, buf)) {
		*maxlen = jbd_be32(jsb->s_maxlen);
		*start = jbd_be32(jsb->s_start);
	}
	if (*maxlen != UINT32_MAX &&
	    (jbd_be32(jsb->s_feature_incompat) &
	     (JBD_FEATURE_INCOMPAT_CSUM_V2 | JBD_FEATURE_INCOMPAT_CSUM_V3))) {
		*stored = jbd_be32(jsb->s_checksum);
		memset(buf + offsetof(struct jbd_superblock, s_checksum), 0, sizeof(jsb->s_checksum));
		*computed = util_crc32c(~0U, buf, JBD_SUPERBLOCK_SIZE);
		bad = *stored != *computed;
	}
	free(buf);
	return bad;
}

/* The internal journal's length in blocks, from its inode's size (0 when unreadable). */
static uint64_t journal_inode_blocks(struct check_ctx *c)
{
	struct ext2_inode in;

	if (fs_read_inode(c->fs, c->fs->super->s_journal_inum, &in))
		return 0;
	return EXT2_I_SIZE(&in) / c->fs->blocksize;
}

/* The journal must be loadable even when a read-only check does not replay it. */
/*
 * Without has_journal e2fsck still loads the journal s_journal_inum names,
 * unless the s_jnl_blocks backup stands in for it: an inode that is no linked
 * regular file opening with a journal superblock stops it (it offers to
 * clear the number). A valid journal there it only mentions (exit 0).
 */
static int stray_journal_bad(struct check_ctx *c, ext2_ino_t ino)
{
	ext2_filsys fs = c->fs;
	struct ext2_inode in;
	blk64_t blk = 0;
	uint32_t magic;
	char *buf;
	int bad;

	if (fs->super->s_jnl_backup_type == EXT3_JNL_BACKUP_BLOCKS)
		return 0;
	if (fs_read_inode(fs, ino, &in) || !in.i_links_count || !LINUX_S_ISREG(in.i_mode) ||
	    ext2fs_bmap2(fs, ino, NULL, NULL, 0, 0, NULL, &blk) || !blk ||
	    check_out_of_fs(fs, blk, 1))
		return 1;
	buf = malloc(fs->blocksize);
	if (!buf)
		return 0;
	bad = io_channel_read_blk64(fs->io, blk, 1, buf) != 0;
	if (!bad) {
		memcpy(&magic, buf, sizeof(magic));
		bad = ext2fs_be32_to_cpu(magic) != JBD_MAGIC;
	}
	free(buf);
	return bad;
}

/* A log with transactions (S_START set) that the superblock does not ask to recover. */
static void report_recovery_clear(struct check_ctx *c, uint32_t start)
{
	struct ext2_super_block *sb = c->fs->super;

	if (start && !ext2fs_has_feature_journal_needs_recovery(sb))
		check_report_ino(c, E4R_PR_JOURNAL_RECOVERY_CLEAR, sb->s_journal_inum, E4R_NONE,
				 E4R_NONE, start);
}

/*
 * A journal UUID beside a journal inode number or without the has_journal
 * feature: e2fsck still loads the external journal from its device (given,
 * or found by its UUID), ignoring the inode number, and says at most that
 * the feature is clear. jbd_journal_open takes the feature and an inode
 * number of 0 to mean that device: both are set so in memory for the look
 * only, and put back before anything else reads the superblock.
 */
static int external_journal_loads(struct check_ctx *c)
{
	struct ext2_super_block *sb = c->fs->super;
	struct jbd_journal *j = NULL;
	uint32_t inum = sb->s_journal_inum;
	int feature = ext2fs_has_feature_journal(sb);
	errcode_t err;

	ext2fs_set_feature_journal(sb);
	sb->s_journal_inum = 0;
	err = jbd_journal_open(c->fs, c->opts ? c->opts->journal_path : NULL, &j);
	sb->s_journal_inum = inum;
	if (!feature)
		ext2fs_clear_feature_journal(sb);
	if (util_no_memory(err)) {
		check_fatal(c, err);
		return 0;
	}
	if (err)
		return 0;
	jbd_journal_close(j);
	return 1;
}

static void check_journal(struct check_ctx *c)
{
	struct ext2_super_block *sb = c->fs->super;
	struct jbd_journal *j = NULL;
	errcode_t err;

	/*
	 * e2fsck takes a journal UUID to mean an external journal, whatever
	 * s_journal_inum or the has_journal feature say, and finds no device
	 * for it (an external journal proper is not checked without its device),
	 * unless that device is there: then it says at most that the feature
	 * is clear (an inode number of 8 still makes its pass 1 judge inode 8
	 * as the journal: left to the report below).
	 */
	if (fs_journal_uuid_set(sb) && sb->s_journal_inum != EXT2_JOURNAL_INO &&
	    (sb->s_journal_inum || !ext2fs_has_feature_journal(sb)) &&
	    external_journal_loads(c)) {
		if (!ext2fs_has_feature_journal(sb))
			check_report_ino(c, E4R_PR_JOURNAL_FEATURE_CLEAR, 0, E4R_NONE, E4R_NONE,
					 E4R_NONE);
		return;
	}
	if (fs_journal_uuid_set(sb) &&
	    (sb->s_journal_inum || !ext2fs_has_feature_journal(sb))) {
		check_report_ino(c, E4R_PR_JOURNAL_EXTERNAL_MISSING, sb->s_journal_inum, E4R_NONE,
				 E4R_NONE, E4R_NONE);
		return;
	}
	/* e2fsck looks for the journal s_journal_inum names, with has_journal or not */
	if (sb->s_journal_inum > sb->s_inodes_count) {
		check_report_ino(c, E4R_PR_JOURNAL_BAD, sb->s_journal_inum, E4R_NONE, E4R_NONE,
				 EXT2_ET_BAD_INODE_NUM);
		return;
	}
	if (!ext2fs_has_feature_journal(sb)) {
		if (sb->s_journal_inum && stray_journal_bad(c, sb->s_journal_inum))
			check_report_ino(c, E4R_PR_JOURNAL_BAD, sb->s_journal_inum, E4R_NONE, E4R_NONE,
					 EXT2_ET_NO_JOURNAL);
		else if (sb->s_journal_inum)
			/* a sound journal the feature forgot: e2fsck -y clears it */
			check_report_ino(c, E4R_PR_JOURNAL_FEATURE_CLEAR, sb->s_journal_inum, E4R_NONE,
					 E4R_NONE, E4R_NONE);
		else if (ext2fs_has_feature_journal_needs_recovery(sb))
			check_report_group(c, E4R_PR_JOURNAL_RECOVER_SET, E4R_NONE, E4R_NONE, E4R_NONE,
					   E4R_NONE);
		return;
	}
	err = jbd_journal_open(c->fs, c->opts ? c->opts->journal_path : NULL, &j);
	if (err == E4R_JOURNAL_EXTERNAL_NEEDED) {
		/* not ours to check without its device; said once, in the first round */
		if (c->round == 0)
			check_report_group(c, E4R_PR_JOURNAL_DEVICE_MISSING, E4R_NONE, E4R_NONE, E4R_NONE,
					   E4R_NONE);
		return;
	}
	if (util_no_memory(err)) {
		check_fatal(c, err);
		return;
	}
	/* where the log starts and its tail: read only by a replay, which -n does not make */
	if (err == E4R_JSB_BAD_FIRST || err == E4R_JSB_BAD_START || err == E4R_JSB_BAD_MAXLEN) {
		uint32_t stored = 0, computed = 0, maxlen = UINT32_MAX, start = 0;
		int csum_bad = jsb_csum_bad(c, &stored, &computed, &maxlen, &start);

		/* e2fsck refuses a log longer than its inode, and takes a shorter one as it is */
		if (err != E4R_JSB_BAD_MAXLEN || maxlen <= journal_inode_blocks(c)) {
			if (csum_bad)
				check_report_ino(c, E4R_PR_JOURNAL_SB_CSUM, sb->s_journal_inum,
						 E4R_NONE, computed, stored);
			else if (err == E4R_JSB_BAD_START)
				report_recovery_clear(c, start);
			return;
		}
	}
	if (err) {
		check_report_ino(c, E4R_PR_JOURNAL_BAD, sb->s_journal_inum, E4R_NONE, E4R_NONE, err);
		return;
	}
	/*
	 * Only the superblock's backup of the journal's map (s_jnl_blocks) found
	 * the log: the journal inode itself is no journal (not a linked regular
	 * file, or its map is unusable). e2fsck 1.47 calls an extent-mapped one
	 * invalid and offers to clear it. Left alone, pass 1 counts none of the
	 * log's blocks, and a repair would free them under a superblock that
	 * still names the journal.
	 */
	if (j->from_backup) {
		check_report_ino(c, E4R_PR_JOURNAL_BAD, sb->s_journal_inum, E4R_NONE, E4R_NONE,
				 EXT2_ET_NO_JOURNAL);
		jbd_journal_close(j);
		return;
	}
	/*
	 * An internal journal has one user: more means fields of a v1 superblock
	 * read as v2 ones, which e2fsck clears (everything past the v1 fields).
	 */
	if (j->format == 2 &&
	    jbd_be32(((const struct jbd_superblock *)j->raw_sb)->s_nr_users) > 1)
		check_report_ino(c, E4R_PR_JOURNAL_V2_FIELDS, sb->s_journal_inum, E4R_NONE, 1,
				 jbd_be32(((const struct jbd_superblock *)j->raw_sb)->s_nr_users));
	else if (j->sb_csum_ok == 0)
		check_report_ino(c, E4R_PR_JOURNAL_SB_CSUM, sb->s_journal_inum, E4R_NONE,
				 j->sb_csum_computed, j->sb_csum_stored);
	else if (j->errno_)
		/* the kernel aborted the journal on an error: e2fsck marks the filesystem so */
		check_report_ino(c, E4R_PR_JOURNAL_ERRNO, sb->s_journal_inum, E4R_NONE, 0,
				 (uint32_t)j->errno_);
	else
		report_recovery_clear(c, j->start);
	jbd_journal_close(j);
}

/* The first of the primary reserved descriptor blocks, after the superblock and the descriptors. */
static blk64_t reserved_gdt_first(ext2_filsys fs)
{
	blk64_t first = fs->super->s_first_data_block + 1 + fs->desc_blocks;

	if (fs->blocksize == 1024 && fs->super->s_first_data_block == 0)
		first++;	/* 1 KiB bigalloc: the superblock's block is not the first */
	return first;
}

/*
 * The resize inode (e2fsck's pass 0 rules): without the feature it must be
 * empty; with it, only its double indirect block is set, it is a linked
 * regular file, and the double indirect block names the reserved descriptor
 * blocks, each an indirect block naming its copies in the backup groups.
 */
static int resize_inode_sound(ext2_filsys fs, const struct ext2_inode *in)
{
	uint32_t *dind, *ind;
	blk64_t blk = in->i_block[EXT2_DIND_BLOCK], pblk;
	unsigned per = fs->blocksize / 4, gdt_off = fs->desc_blocks, ind_off, i;
	dgrp_t g;
	int ok = 1;

	for (i = 0; i < EXT2_N_BLOCKS; i++)
		if (i != EXT2_DIND_BLOCK && in->i_block[i])
			return 0;
	if (!blk || !in->i_links_count || !(in->i_mode & LINUX_S_IFREG) || check_out_of_fs(fs, blk, 1))
		return 0;
	dind = malloc(fs->blocksize);
	ind = malloc(fs->blocksize);
	if (!dind || !ind || ext2fs_read_ind_block(fs, blk, dind)) {
		ok = !dind || !ind;	/* no memory is not the inode's fault */
		goto out;
	}
	pblk = reserved_gdt_first(fs);
	for (i = 0; ok && i < fs->super->s_reserved_gdt_blocks; i++, gdt_off++, pblk++) {
		gdt_off %= per;
		if (dind[gdt_off] != pblk || check_out_of_fs(fs, pblk, 1) ||
		    ext2fs_read_ind_block(fs, pblk, ind)) {
			ok = 0;
			break;
		}
		for (g = 1, ind_off = 0; ok && g < fs->group_desc_count; g++) {
			if (!ext2fs_bg_has_super(fs, g))
				continue;
			ok = ind_off < per &&
			     ind[ind_off++] == pblk + EXT2_GROUPS_TO_BLOCKS(fs->super, g);
		}
	}
out:
	free(dind);
	free(ind);
	return ok;
}

/*
 * Does a group's bitmap or inode table lie in the primary reserved
 * descriptor blocks (then gd_meta_overlap names it)?
 */
static int reserved_gdt_taken(ext2_filsys fs)
{
	blk64_t first = reserved_gdt_first(fs), last = first + fs->super->s_reserved_gdt_blocks;
	dgrp_t g;

	for (g = 0; g < fs->group_desc_count; g++) {
		blk64_t t = ext2fs_inode_table_loc(fs, g);

		if ((ext2fs_block_bitmap_loc(fs, g) >= first && ext2fs_block_bitmap_loc(fs, g) < last) ||
		    (ext2fs_inode_bitmap_loc(fs, g) >= first && ext2fs_inode_bitmap_loc(fs, g) < last) ||
		    (t < last && t + fs->inode_blocks_per_group > first))
			return 1;
	}
	return 0;
}

static void check_resize_inode(struct check_ctx *c)
{
	ext2_filsys fs = c->fs;
	struct ext2_inode in;
	int i;

	if (fs_read_inode(fs, EXT2_RESIZE_INO, &in))
		return;
	if (!ext2fs_has_feature_resize_inode(fs->super)) {
		for (i = 0; i < EXT2_N_BLOCKS; i++)
			if (in.i_block[i]) {
				check_report_ino(c, E4R_PR_RESIZE_INODE_STRAY, EXT2_RESIZE_INO, E4R_NONE,
						 E4R_NONE, E4R_NONE);
				break;
			}
		return;
	}
	/*
	 * meta_bg beside resize_inode is reported (and repaired) on its own.
	 * Group metadata over other metadata (the reserved descriptor blocks
	 * among them) is moved first: made again now, the inode's blocks
	 * would be written over a bitmap or table still there. The round
	 * after the move judges it.
	 */
	if (!ext2fs_has_feature_meta_bg(fs->super) && !reserved_gdt_taken(fs) &&
	    !resize_inode_sound(fs, &in)) {
		check_report_ino(c, E4R_PR_RESIZE_INODE_INVALID, EXT2_RESIZE_INO, E4R_NONE, E4R_NONE,
				 E4R_NONE);
		if (c->opts && c->opts->repair == E4R_REPAIR_YES)
			c->resize_remade = 1;
	}
}

errcode_t check_mark_metadata(struct check_ctx *c)
{
	ext2_filsys fs = c->fs;
	dgrp_t g;

	/*
	 * Superblocks, descriptors and reserved descriptor blocks of every
	 * group. A first meta_bg group past the descriptor blocks (a finding
	 * of its own) is taken as what it amounts to: left unbounded, the
	 * marks would run past the descriptors and leave them free for a
	 * repair to allocate (fuzz_check: a guard trip at block 2).
	 */
	for (g = 0; g < fs->group_desc_count; g++)
		fs_reserve_super_and_bgd(fs, g, c->meta);
	for (g = 0; g < fs->group_desc_count; g++)
		check_group(c, g);
	if (ext2fs_has_feature_mmp(fs->super) && fs->super->s_mmp_block > fs->super->s_first_data_block &&
	    fs->super->s_mmp_block < ext2fs_blocks_count(fs->super))
		ext2fs_mark_block_bitmap2(c->meta, fs->super->s_mmp_block);
	return 0;
}

errcode_t check_super(struct check_ctx *c)
{
	struct ext2_super_block *sb = c->fs->super;

	check_progress(c, E4R_PASS_SUPER, 0, 1);
	/*
	 * Only a read-only check skips the replay. A repairing one still
	 * needing recovery here has a journal the replay could not load (a bad
	 * journal superblock, judged below), as e2fsck -y, which says nothing
	 * of a read-only check then.
	 */
	if (ext2fs_has_feature_journal_needs_recovery(sb) &&
	    !(c->opts && c->opts->repair != E4R_REPAIR_NONE)) {
		c->res->journal_skipped = 1;
		check_report_group(c, E4R_PR_JOURNAL_SKIPPED, E4R_NONE, E4R_NONE, E4R_NONE, E4R_NONE);
	}
	if (sb->s_state & EXT2_ERROR_FS)
		check_report_group(c, E4R_PR_ERRORS_FLAG, E4R_NONE, E4R_NONE, E4R_NONE, E4R_NONE);
	check_fs_size(c);
	check_sb_values(c);
	check_sb_fields(c);
	if (c->res->aborted || c->super_only) {
		check_progress(c, E4R_PASS_SUPER, 1, 1);
		return 0;
	}
	check_sb_rules(c);
	check_mmp(c);
	check_journal(c);
	check_resize_inode(c);
	check_mark_metadata(c);
	check_progress(c, E4R_PASS_SUPER, 1, 1);
	return 0;
}

/*
 * Whether this round found what e2fsck takes as errors without calling the
 * filesystem damaged for it: an error the journal recorded, a superblock
 * bigger than the device. Either forces the full check.
 */
static int forces_check(const struct check_result *r)
{
	size_t i;

	for (i = r->round_first; i < r->count; i++)
		if (r->findings[i].code == E4R_PR_JOURNAL_ERRNO ||
		    r->findings[i].code == E4R_PR_FS_SIZE_WRONG)
			return 1;
	return 0;
}

/* Decide like e2fsck whether a filesystem marked clean gets the full check. */
errcode_t check_clean_skip(struct check_ctx *c)
{
	struct ext2_super_block *sb = c->fs->super;
	struct check_result *r = c->res;
	time_t now = time(NULL);

	if (r->errors || forces_check(r))
		r->reason = E4R_REASON_ERRORS;
	else if (sb->s_state & EXT2_ERROR_FS)
		r->reason = E4R_REASON_ERRORS;
	else if (!(sb->s_state & EXT2_VALID_FS))
		r->reason = E4R_REASON_NOT_CLEAN;
	else if (sb->s_max_mnt_count > 0 && sb->s_mnt_count >= (unsigned)sb->s_max_mnt_count)
		r->reason = E4R_REASON_MOUNT_COUNT;
	else if (sb->s_checkinterval && (time_t)sb->s_lastcheck + (time_t)sb->s_checkinterval <= now)
		r->reason = E4R_REASON_INTERVAL;
	else
		r->reason = E4R_REASON_CLEAN_SKIPPED;
	return 0;
}
