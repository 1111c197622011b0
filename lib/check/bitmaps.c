/*
 * Checker pass 5: computed block and inode usage against the on-disk bitmaps and counts.
 *
 * Fills in nothing for later passes: reads c->used, c->inode_used and c->kind.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/ctx.h"
#include "fs/bitmaps.h"
#include "util/nomem.h"

/* A run of differing bits being gathered, reported as one range. */
struct diff_run {
	struct check_ctx	*c;
	enum check_problem	code;
	uint64_t		start, end;	/* inclusive; start == E4R_NONE: no run */
	int			is_inode;
};

static void run_flush(struct diff_run *r)
{
	struct check_finding f;

	if (r->start == E4R_NONE)
		return;
	f = check_finding_init(r->code);
	if (r->is_inode) {
		f.ino = r->start;
		f.group = ext2fs_group_of_ino(r->c->fs, (ext2_ino_t)r->start);
	} else {
		f.blk = r->start;
		f.group = ext2fs_group_of_blk2(r->c->fs, r->start);
	}
	f.expected = r->end;
	check_report(r->c, &f);
	r->start = E4R_NONE;
}

static void run_add(struct diff_run *r, uint64_t first, uint64_t last)
{
	if (r->start != E4R_NONE && first == r->end + 1) {
		r->end = last;
		return;
	}
	run_flush(r);
	r->start = first;
	r->end = last;
}

/* Set bits in N bytes of a bitmap (the repairs count the rebuilt ones too). */
unsigned check_popcount(const unsigned char *b, size_t n)
{
	unsigned count = 0;
	size_t i;

	for (i = 0; i < n; i++)
		count += (unsigned)__builtin_popcount(b[i]);
	return count;
}

static int bit(const unsigned char *b, uint64_t i) { return (b[i / 8] >> (i % 8)) & 1; }

/*
 * Compare one group's clusters (computed vs on disk); returns the clusters the
 * on-disk bitmap marks in use. Like e2fsck -n, the descriptor's free count is
 * checked against the bitmap on disk: a wrong bitmap bit is one problem (a
 * difference), a count that disagrees with its own bitmap another.
 */
static uint64_t compare_block_group(struct check_ctx *c, dgrp_t g, unsigned char *ours,
				    unsigned char *disk, struct diff_run *plus, struct diff_run *minus)
{
	ext2_filsys fs = c->fs;
	uint64_t first = EXT2FS_B2C(fs, ext2fs_group_first_block2(fs, g));
	uint64_t n = EXT2FS_B2C(fs, ext2fs_group_last_block2(fs, g)) - first + 1, i;
	size_t bytes = (n + 7) / 8;

	memset(ours, 0, bytes);
	memset(disk, 0, bytes);
	if (ext2fs_get_block_bitmap_range2(c->used, first, n, ours) ||
	    ext2fs_get_block_bitmap_range2(fs->block_map, first, n, disk))
		return 0;
	if (n % 8) {	/* the range calls may fill the rest of the last byte */
		ours[bytes - 1] &= (unsigned char)((1u << (n % 8)) - 1);
		disk[bytes - 1] &= (unsigned char)((1u << (n % 8)) - 1);
	}
	if (memcmp(ours, disk, bytes)) {
		for (i = 0; i < n; i++) {
			int a = bit(ours, i), b = bit(disk, i);
			uint64_t blk = EXT2FS_C2B(fs, first + i);
			if (a && !b)
				run_add(plus, blk, blk + EXT2FS_CLUSTER_RATIO(fs) - 1);
			else if (!a && b)
				run_add(minus, blk, blk + EXT2FS_CLUSTER_RATIO(fs) - 1);
		}
	}
	return check_popcount(disk, bytes);
}

static void check_block_bitmap_csum(struct check_ctx *c, dgrp_t g, unsigned char *disk)
{
	ext2_filsys fs = c->fs;
	uint64_t first = EXT2FS_B2C(fs, ext2fs_group_first_block2(fs, g));
	int nbytes = EXT2_CLUSTERS_PER_GROUP(fs->super) / 8;

	if (!ext2fs_has_feature_metadata_csum(fs->super) ||
	    ext2fs_bg_flags_test(fs, g, EXT2_BG_BLOCK_UNINIT))
		return;
	/* libext2fs's tree bitmaps leave the buffer untouched when nothing at all is set */
	memset(disk, 0, nbytes);
	if (ext2fs_get_block_bitmap_range2(fs->block_map, first, nbytes * 8, disk))
		return;
	if (!ext2fs_block_bitmap_csum_verify(fs, g, (char *)disk, nbytes))
		check_report_group(c, E4R_PR_BLOCK_BITMAP_CSUM, g, ext2fs_block_bitmap_loc(fs, g),
				   E4R_NONE, E4R_NONE);
}

static void check_blocks(struct check_ctx *c)
{
	ext2_filsys fs = c->fs;
	size_t bytes = EXT2_CLUSTERS_PER_GROUP(fs->super) / 8 + 1;
	unsigned char *ours = malloc(bytes), *disk = malloc(bytes);
	struct diff_run plus = { c, E4R_PR_BLOCK_NOT_MARKED, E4R_NONE, 0, 0 };
	struct diff_run minus = { c, E4R_PR_BLOCK_MARKED_FREE, E4R_NONE, 0, 0 };
	uint64_t total_free = 0;
	dgrp_t g;

	if (!ours || !disk) {
		check_fatal(c, ENOMEM);
		goto out;
	}
	for (g = 0; g < fs->group_desc_count; g++) {
		uint64_t n = EXT2FS_B2C(fs, ext2fs_group_last_block2(fs, g)) -
			     EXT2FS_B2C(fs, ext2fs_group_first_block2(fs, g)) + 1;
		uint64_t used = compare_block_group(c, g, ours, disk, &plus, &minus);
		uint64_t free_c = n - used;

		total_free += free_c;
		if (free_c != ext2fs_bg_free_blocks_count(fs, g))
			check_report_group(c, E4R_PR_GROUP_FREE_BLOCKS, g, E4R_NONE, free_c,
					   ext2fs_bg_free_blocks_count(fs, g));
		check_block_bitmap_csum(c, g, disk);
		check_progress(c, E4R_PASS_BITMAPS, g + 1ULL, fs->group_desc_count * 2ULL);
	}
	run_flush(&plus);
	run_flush(&minus);
	total_free = EXT2FS_C2B(fs, total_free);
	if (total_free != ext2fs_free_blocks_count(fs->super))
		check_report_group(c, E4R_PR_SB_FREE_BLOCKS, E4R_NONE, E4R_NONE, total_free,
				   ext2fs_free_blocks_count(fs->super));
out:
	free(ours);
	free(disk);
}

/* Inodes the on-disk bitmap marks in use past the group's unused-inode watermark. */
static void check_watermark(struct check_ctx *c, dgrp_t g, const unsigned char *disk)
{
	ext2_filsys fs = c->fs;
	uint32_t ipg = fs->super->s_inodes_per_group, unused = ext2fs_bg_itable_unused(fs, g), i;

	if (!ext2fs_has_group_desc_csum(fs) || unused > ipg ||
	    ext2fs_bg_flags_test(fs, g, EXT2_BG_INODE_UNINIT))
		return;
	for (i = ipg - unused; i < ipg; i++)
		if (bit(disk, i)) {
			struct check_finding f = check_finding_init(E4R_PR_GROUP_UNUSED_INODES);
			f.group = g;
			f.ino = (uint64_t)g * ipg + i + 1;
			f.found = unused;
			check_report(c, &f);
			return;
		}
}

static void check_inode_group(struct check_ctx *c, dgrp_t g, unsigned char *ours,
			      unsigned char *disk, struct diff_run *plus, struct diff_run *minus,
			      uint64_t *total_free)
{
	ext2_filsys fs = c->fs;
	uint32_t ipg = fs->super->s_inodes_per_group, i, used, dirs = 0;
	ext2_ino_t first = g * ipg + 1;
	size_t bytes = (ipg + 7) / 8;

	memset(ours, 0, bytes);
	memset(disk, 0, bytes);
	if (ext2fs_get_inode_bitmap_range2(c->inode_used, first, ipg, ours) ||
	    ext2fs_get_inode_bitmap_range2(fs->inode_map, first, ipg, disk))
		return;
	if (memcmp(ours, disk, bytes))
		for (i = 0; i < ipg; i++) {
			int a = bit(ours, i), b = bit(disk, i);
			if (a != b)
				run_add(a ? plus : minus, first + i, first + i);
		}
	for (i = 0; i < ipg && first + i <= c->inodes; i++)
		if (c->kind[first + i] == KIND_DIR)
			dirs++;
	used = check_popcount(disk, bytes);
	*total_free += ipg - used;
	if (ipg - used != ext2fs_bg_free_inodes_count(fs, g))
		check_report_group(c, E4R_PR_GROUP_FREE_INODES, g, E4R_NONE, ipg - used,
				   ext2fs_bg_free_inodes_count(fs, g));
	if (dirs != ext2fs_bg_used_dirs_count(fs, g))
		check_report_group(c, E4R_PR_GROUP_DIRS, g, E4R_NONE, dirs, ext2fs_bg_used_dirs_count(fs, g));
	check_watermark(c, g, disk);
	if (ext2fs_has_feature_metadata_csum(fs->super) &&
	    !ext2fs_bg_flags_test(fs, g, EXT2_BG_INODE_UNINIT) &&
	    !ext2fs_inode_bitmap_csum_verify(fs, g, (char *)disk, ipg / 8))
		check_report_group(c, E4R_PR_INODE_BITMAP_CSUM, g, ext2fs_inode_bitmap_loc(fs, g),
				   E4R_NONE, E4R_NONE);
}

static void check_inodes_bitmap(struct check_ctx *c)
{
	ext2_filsys fs = c->fs;
	uint32_t ipg = fs->super->s_inodes_per_group;
	unsigned char *ours = malloc(ipg / 8 + 1), *disk = malloc(ipg / 8 + 1);
	struct diff_run plus = { c, E4R_PR_INODE_NOT_MARKED, E4R_NONE, 0, 1 };
	struct diff_run minus = { c, E4R_PR_INODE_MARKED_FREE, E4R_NONE, 0, 1 };
	uint64_t total_free = 0;
	dgrp_t g;

	if (!ours || !disk) {
		check_fatal(c, ENOMEM);
		goto out;
	}
	/*
	 * The reserved inodes are in use whatever the scan could read of
	 * them (e2fsck's pass 1 marks them; the rebuild of the summaries
	 * does): an unreadable inode table must not free them every round.
	 */
	for (g = 1; g < (dgrp_t)c->first_ino && g <= c->inodes; g++)
		ext2fs_mark_inode_bitmap2(c->inode_used, g);
	for (g = 0; g < fs->group_desc_count; g++) {
		check_inode_group(c, g, ours, disk, &plus, &minus, &total_free);
		check_progress(c, E4R_PASS_BITMAPS, fs->group_desc_count + (uint64_t)g + 1,
			       fs->group_desc_count * 2ULL);
	}
	run_flush(&plus);
	run_flush(&minus);
	if (total_free != fs->super->s_free_inodes_count)
		check_report_group(c, E4R_PR_SB_FREE_INODES, E4R_NONE, E4R_NONE, total_free,
				   fs->super->s_free_inodes_count);
out:
	free(ours);
	free(disk);
}

/*
 * The last group's bitmap covers a whole group even when the filesystem ends
 * inside it: the bits past the last block must be set (e2fsck checks them in
 * pass 5). libext2fs loads them but only notes bits past the group's end.
 */
static int block_end_padding_ok(ext2_filsys fs)
{
	ext2fs_block_bitmap map = fs->block_map;
	blk64_t real_end = ext2fs_get_block_bitmap_start2(map) +
			   (blk64_t)EXT2_CLUSTERS_PER_GROUP(fs->super) * fs->group_desc_count - 1;
	blk64_t end, i;
	int ok = 1;

	/* the bitmap's end is the last block: widen it to the group's end while testing */
	if (ext2fs_fudge_block_bitmap_end2(map, real_end, &end))
		return 1;
	for (i = end + 1; i <= real_end && i > end && ok; i++)
		ok = ext2fs_test_block_bitmap2(map, EXT2FS_C2B(fs, i));
	ext2fs_fudge_block_bitmap_end2(map, end, NULL);
	return ok;
}

errcode_t check_bitmaps(struct check_ctx *c)
{
	ext2_filsys fs = c->fs;
	errcode_t err;

	check_progress(c, E4R_PASS_BITMAPS, 0, fs->group_desc_count * 2ULL);
	err = fs_read_bitmaps(fs);
	if (util_no_memory(err))
		return err;
	if (err) {
		check_report_group(c, E4R_PR_BITMAP_READ, E4R_NONE, E4R_NONE, E4R_NONE, E4R_NONE);
		return 0;
	}
	/* Bits past the group's end in a bitmap block must be set; libext2fs notes it while loading. */
	if ((fs->flags & EXT2_FLAG_BBITMAP_TAIL_PROBLEM) || !block_end_padding_ok(fs))
		check_report_group(c, E4R_PR_BLOCK_BITMAP_PADDING, E4R_NONE, E4R_NONE, E4R_NONE, E4R_NONE);
	if (fs->flags & EXT2_FLAG_IBITMAP_TAIL_PROBLEM)
		check_report_group(c, E4R_PR_INODE_BITMAP_PADDING, E4R_NONE, E4R_NONE, E4R_NONE, E4R_NONE);
	check_blocks(c);
	check_inodes_bitmap(c);
	check_progress(c, E4R_PASS_BITMAPS, fs->group_desc_count * 2ULL, fs->group_desc_count * 2ULL);
	return 0;
}
