/* The checker's problem table: one row per problem code, in code order. */
#include "config.h"

#include <string.h>

#include "check/check.h"
#include "check/problem.h"

#define N_(s) s
/*
 * A problem's message: a template with its own placeholders (%i inode, %b
 * block, ... expanded by the front end), not a printf format; po/Makevars
 * marks these no-c-format so msgfmt does not hold them to printf's rules.
 */
#define PM_(s) s

#define ROW(c, n, p, s, a, f, fx, ph, m) [c] = { c, n, p, s, a, f, fx, ph, m }
#define FIX(x)	E4R_FIX_##x
#define PH(x)	E4R_PHASE_##x
#define ERR	E4R_SEV_ERROR
#define WARN	E4R_SEV_WARNING
#define INFO	E4R_SEV_INFO
#define PREEN	E4R_PF_PREEN_OK
#define CLOSED	E4R_PF_CLOSED
#define MOVES_BITMAP	E4R_PF_MOVES_BITMAP
#define MOVES_TABLE	E4R_PF_MOVES_TABLE
#define OVERLAP	E4R_PF_OVERLAP
#define DROPS_BLOCKS	E4R_PF_DROPS_BLOCKS
#define REMAPS	E4R_PF_REMAPS
#define COUNTS_MAP	E4R_PF_COUNTS_MAP
#define COUNTS_USAGE	E4R_PF_COUNTS_USAGE
#define NOT_LINK	E4R_PF_NOT_LINK
#define RECONNECTS	E4R_PF_RECONNECTS
#define HIDES_INODES	E4R_PF_HIDES_INODES
#define ASK_FIRST	E4R_PF_ASK_FIRST
#define HALTS		E4R_PF_HALTS
#define P0	E4R_PASS_SUPER
#define P1	E4R_PASS_INODES
#define P2	E4R_PASS_DIRS
#define P3	E4R_PASS_CONNECT
#define P4	E4R_PASS_LINKS
#define P5	E4R_PASS_BITMAPS

/*
 * Each row: code, name, pass, severity, the question's answer, flags; then
 * how it is repaired (the routine, which repair/fixes.c maps to a function,
 * and when in a round it runs; NONE for both when not fixable, exactly when
 * the answer is NONE: tests/unit/test_problem holds that); then the message.
 */
static const struct check_problem_info table[E4R_PR_COUNT] = {
	ROW(E4R_PR_JOURNAL_SKIPPED, "journal_skipped", P0, INFO, E4R_ANS_NONE, 0,
	    FIX(NONE), PH(NONE),
	    PM_("skipping journal recovery because doing a read-only filesystem check")),
	/*
	 * e2fsck -n without the device cannot proceed either (exit 12), with
	 * needs_recovery or without: the check goes on (nothing is read from the
	 * log) but never calls the filesystem clean, as check -y, which stops
	 * before the replay (lib/fsck/session.c)
	 */
	ROW(E4R_PR_JOURNAL_DEVICE_MISSING, "journal_device_missing", P0, ERR, E4R_ANS_NONE, HALTS,
	    FIX(NONE), PH(NONE),
	    PM_("no device carries the external journal's UUID: the journal is not read (give it with --journal=PATH)")),
	/*
	 * Superblock rules of e2fsck's pass 0. The ones e2fsck -n
	 * names without calling the filesystem damaged are warnings; their -y
	 * sets the one field to the value the check computed.
	 */
	ROW(E4R_PR_SB_FUTURE_MOUNT, "sb_future_mount_time", P0, WARN, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(SB_FIELD), PH(NOW),
	    PM_("superblock last mount time (%f) is in the future (now %e)")),
	ROW(E4R_PR_SB_FUTURE_WRITE, "sb_future_write_time", P0, WARN, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(SB_FIELD), PH(NOW),
	    PM_("superblock last write time (%f) is in the future (now %e)")),
	ROW(E4R_PR_SB_MIN_EXTRA_ISIZE, "sb_min_extra_isize", P0, WARN, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(SB_FIELD), PH(NOW),
	    PM_("bad required extra inode size in the superblock (%f), should be %e")),
	ROW(E4R_PR_SB_WANT_EXTRA_ISIZE, "sb_want_extra_isize", P0, WARN, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(SB_FIELD), PH(NOW),
	    PM_("bad desired extra inode size in the superblock (%f), should be %e")),
	ROW(E4R_PR_SB_RESERVED_GDT, "sb_reserved_gdt_blocks", P0, WARN, E4R_ANS_FIX, CLOSED,
	    FIX(SB_FIELD), PH(NOW),
	    PM_("the filesystem does not have resize_inode enabled, but s_reserved_gdt_blocks is %f; should be zero")),
	ROW(E4R_PR_SB_CSUM_SEED, "sb_csum_seed_without_csum", P0, WARN, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(SB_FIELD), PH(NOW),
	    PM_("the superblock sets metadata_csum_seed, which is not necessary without metadata_csum")),
	/* -y sets extents alone: the inodes' extents_no_feature findings were made without it */
	ROW(E4R_PR_SB_64BIT_NO_EXTENTS, "sb_64bit_without_extents", P0, WARN, E4R_ANS_FIX, PREEN,
	    FIX(SB_FIELD), PH(ALONE),
	    PM_("a 64bit filesystem needs the extents feature to reach the whole disk")),
	/* e2fsck -y raises the revision, which on inodes bigger than 128 bytes loses their extra fields */
	ROW(E4R_PR_SB_REV_LEVEL, "sb_rev_level", P0, WARN, E4R_ANS_NONE, 0,
	    FIX(NONE), PH(NONE),
	    PM_("the filesystem has feature flags set, but is a revision 0 filesystem")),
	/*
	 * e2fsck -n says nothing of it (only its -y clears the feature). Not
	 * closed: without the feature every entry's file type must be zero,
	 * which the next check judges.
	 */
	ROW(E4R_PR_SB_HURD_FILETYPE, "sb_hurd_filetype", P0, INFO, E4R_ANS_CLEAR, 0,
	    FIX(SB_FIELD), PH(ALONE),
	    PM_("the Hurd does not support the filetype feature")),
	ROW(E4R_PR_JOURNAL_RECOVER_SET, "journal_recover_set", P0, ERR, E4R_ANS_CLEAR, PREEN | CLOSED,
	    FIX(SB_FIELD), PH(NOW),
	    PM_("the superblock's needs_recovery flag is set, but no journal is present")),
	/* as e2fsck -y: the journal is cleared (its inode, then its blocks freed) */
	ROW(E4R_PR_JOURNAL_FEATURE_CLEAR, "journal_feature_clear", P0, WARN, E4R_ANS_CLEAR, PREEN,
	    FIX(JOURNAL_CLEAR), PH(NOW),
	    PM_("the superblock's has_journal flag is clear, but a journal (inode %i) is present")),
	/* e2fsck -y then asks to run the journal anyway; not replayed here */
	ROW(E4R_PR_JOURNAL_RECOVERY_CLEAR, "journal_recovery_clear", P0, INFO, E4R_ANS_NONE, 0,
	    FIX(NONE), PH(NONE),
	    PM_("the superblock's needs_recovery flag is clear, but the journal (inode %i) has data")),
	/* -y clears the feature; the orphan file left is then removed as orphan_file_not_clear */
	ROW(E4R_PR_ORPHAN_FILE_NO_JOURNAL, "orphan_file_without_journal", P5, ERR, E4R_ANS_CLEAR, PREEN,
	    FIX(SB_FIELD), PH(NOW),
	    PM_("the superblock has an orphan file (inode %i) without a journal")),
	ROW(E4R_PR_ORPHAN_FILE_SIZE, "orphan_file_size", P5, ERR, E4R_ANS_NONE, 0,
	    FIX(NONE), PH(NONE),
	    PM_("the orphan file (inode %i) size %f is not a multiple of the block size")),
	/*
	 * the last group's bitmap covers its blocks past the end: it must be
	 * read, not made up. e2fsck -n asks and still exits 0: what the flag
	 * hides (blocks in use, padding) is what it counts.
	 */
	ROW(E4R_PR_GD_BB_UNINIT_LAST, "gd_block_uninit_last", P0, WARN, E4R_ANS_FIX, PREEN,
	    FIX(UNINIT_FLAGS), PH(SUMMARY),
	    PM_("the block bitmap of the last group (%g) is marked uninitialized")),
	/* -y makes it a regular file, as e2fsck -y does; the quota pass then judges its contents */
	ROW(E4R_PR_QUOTA_BAD_MODE, "quota_inode_bad_mode", P1, ERR, E4R_ANS_FIX, PREEN,
	    FIX(INODE), PH(NOW),
	    PM_("quota inode %i is not a regular file (mode %o)")),
	/*
	 * The multi-mount protection block (read through the image, never by
	 * libext2fs's own open of the device path). e2fsck -n stops after
	 * any of these (exit 12); its -y on a bad block number zeroes it and
	 * then cannot open the filesystem, so that one is not repaired here.
	 */
	ROW(E4R_PR_MMP_BAD_BLOCK, "mmp_block_invalid", P0, ERR, E4R_ANS_NONE, 0,
	    FIX(NONE), PH(NONE),
	    PM_("the superblock's MMP block %b is outside the filesystem")),
	ROW(E4R_PR_MMP_MAGIC, "mmp_magic_invalid", P0, ERR, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(MMP_RESET), PH(NOW),
	    PM_("the MMP block %b has an invalid magic number (%f)")),
	ROW(E4R_PR_MMP_CSUM, "mmp_csum_invalid", P0, ERR, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(MMP_RESET), PH(NOW),
	    PM_("the MMP block %b checksum does not match (stored %f)")),
	/* e2fsck -y zeroes the inode; the next check frees what it held */
	ROW(E4R_PR_JOURNAL_INODE_NOT_CLEAR, "journal_inode_not_clear", P1, ERR, E4R_ANS_CLEAR, PREEN,
	    FIX(INODE), PH(NOW),
	    PM_("journal inode %i is not in use (the superblock names no journal there), but contains data")),
	ROW(E4R_PR_ERRORS_FLAG, "errors_flag", P0, INFO, E4R_ANS_NONE, 0,
	    FIX(NONE), PH(NONE),
	    PM_("the filesystem is marked as having errors")),
	ROW(E4R_PR_SB_CSUM, "sb_csum", P0, ERR, E4R_ANS_FIX, PREEN,
	    FIX(SUMMARIES), PH(SUMMARY),
	    PM_("superblock checksum does not match (stored %f, computed %e)")),
	/* alone, before anything sized from the count is checked (the passes wait for it) */
	ROW(E4R_PR_SB_INODES_COUNT, "sb_inodes_count", P0, ERR, E4R_ANS_FIX, 0,
	    FIX(SB_INODES_COUNT), PH(ALONE),
	    PM_("superblock inode count is %f, should be %e (inodes per group times groups)")),
	ROW(E4R_PR_SB_FIRST_DATA_BLOCK, "sb_first_data_block", P0, ERR, E4R_ANS_NONE, 0,
	    FIX(NONE), PH(NONE),
	    PM_("superblock first data block is %f, should be %e")),
	ROW(E4R_PR_SB_FREE_BLOCKS_RANGE, "sb_free_blocks_range", P0, WARN, E4R_ANS_FIX, PREEN,
	    FIX(SUMMARIES), PH(SUMMARY),
	    PM_("superblock free blocks count %f is larger than the block count %e")),
	ROW(E4R_PR_SB_FREE_INODES_RANGE, "sb_free_inodes_range", P0, WARN, E4R_ANS_FIX, PREEN,
	    FIX(SUMMARIES), PH(SUMMARY),
	    PM_("superblock free inodes count %f is larger than the inode count %e")),
	ROW(E4R_PR_SB_ORPHAN_HEAD, "sb_orphan_head", P0, WARN, E4R_ANS_CLEAR, PREEN,
	    FIX(ORPHAN_LIST_CLEAR), PH(NOW),
	    PM_("orphan list head inode %i is out of range")),
	ROW(E4R_PR_GD_CSUM, "gd_csum", P0, WARN, E4R_ANS_FIX, PREEN | HIDES_INODES,
	    FIX(SUMMARIES), PH(SUMMARY),
	    PM_("group %g descriptor checksum does not match (stored %f, computed %e)")),
	ROW(E4R_PR_GD_BLOCK_BITMAP, "gd_block_bitmap", P0, ERR, E4R_ANS_FIX, MOVES_BITMAP,
	    FIX(RELOCATE_BITMAP), PH(NOW_REBUILD),
	    PM_("block bitmap of group %g is at block %b, outside the filesystem or its group")),
	ROW(E4R_PR_GD_INODE_BITMAP, "gd_inode_bitmap", P0, ERR, E4R_ANS_FIX, MOVES_BITMAP,
	    FIX(RELOCATE_BITMAP), PH(NOW_REBUILD),
	    PM_("inode bitmap of group %g is at block %b, outside the filesystem or its group")),
	/* as e2fsck: new blocks for the table, the inodes it held lost (when check/itable.c finds none) */
	ROW(E4R_PR_GD_INODE_TABLE, "gd_inode_table", P0, ERR, E4R_ANS_FIX, MOVES_TABLE,
	    FIX(ITABLE_NEW), PH(ALONE),
	    PM_("inode table of group %g at block %b does not fit in the filesystem or its group")),
	ROW(E4R_PR_GD_META_OVERLAP, "gd_meta_overlap", P0, ERR, E4R_ANS_FIX, MOVES_BITMAP | OVERLAP,
	    FIX(RELOCATE_BITMAP), PH(NOW_REBUILD),
	    PM_("metadata of group %g at block %b overlaps other filesystem metadata")),
	/* before pass 1 reads it again: every other finding of the round was made on the wrong blocks */
	ROW(E4R_PR_GD_ITABLE_ORIGIN, "gd_itable_origin", P0, ERR, E4R_ANS_FIX, 0,
	    FIX(ITABLE_ORIGIN), PH(ALONE),
	    PM_("inode table of group %g at block %b cannot be there; its inodes lie at block %e, where the layout or a backup descriptor puts them")),
	/* as e2fsck: new blocks, the old content copied (what of it is inodes pass 1 judges) */
	ROW(E4R_PR_GD_ITABLE_CONFLICT, "gd_itable_conflict", P0, ERR, E4R_ANS_FIX, MOVES_TABLE,
	    FIX(ITABLE_NEW), PH(ALONE),
	    PM_("inode table of group %g at block %b lies over other filesystem metadata, and no inodes were found where it belongs (moved to new blocks)")),
	/* e2fsck zeroes it before pass 1: the inode scan skips what it marks unused */
	ROW(E4R_PR_GD_UNUSED_INODES, "gd_unused_inodes", P0, WARN, E4R_ANS_FIX, PREEN,
	    FIX(ITABLE_UNUSED), PH(ALONE),
	    PM_("group %g unused inodes count %f is larger than its free inodes count %e")),
	ROW(E4R_PR_GD_UNINIT_NO_CSUM, "gd_uninit_no_csum", P0, WARN, E4R_ANS_FIX, PREEN,
	    FIX(UNINIT_FLAGS), PH(SUMMARY),
	    PM_("group %g has uninit flags %f but the filesystem has no group descriptor checksums")),
	/*
	 * An error, as e2fsck's; -y: meta_bg goes, as e2fsck clears it before
	 * pass 1 (every descriptor block is where it is without meta_bg)
	 */
	ROW(E4R_PR_SB_FIRST_META_BG, "sb_first_meta_bg", P0, ERR, E4R_ANS_CLEAR, 0,
	    FIX(SB_FIELD), PH(NOW),
	    PM_("first_meta_bg is too big (%f, max value %e)")),
	/*
	 * declined, e2fsck cannot load the journal and stops (exit 12),
	 * needs_recovery or not; -p clears it unasked (PR_0_JOURNAL_BAD_INODE)
	 */
	ROW(E4R_PR_JOURNAL_BAD, "journal_bad", P0, ERR, E4R_ANS_CLEAR, PREEN | HALTS,
	    FIX(JOURNAL_CLEAR), PH(NOW),
	    PM_("the journal (inode %i) is invalid: %x")),
	/* as e2fsck ("journal superblock is corrupt"): the journal is kept, its superblock made anew */
	ROW(E4R_PR_JOURNAL_SB_CSUM, "journal_sb_csum", P0, ERR, E4R_ANS_FIX, PREEN,
	    FIX(JOURNAL_RESET), PH(NOW),
	    PM_("the journal superblock checksum does not match (stored %f, computed %e)")),
	/* e2fsck -n names it and exits 0; -y drops resize_inode */
	ROW(E4R_PR_SB_RESIZE_META_BG, "sb_resize_meta_bg", P0, WARN, E4R_ANS_FIX, 0,
	    FIX(RESIZE_INODE_OFF), PH(NOW),
	    PM_("the resize_inode and meta_bg features are both set; they do not go together")),
	ROW(E4R_PR_JOURNAL_EXTERNAL_MISSING, "journal_external_missing", P0, ERR, E4R_ANS_NONE, 0,
	    FIX(NONE), PH(NONE),
	    PM_("the superblock names an external journal (a journal UUID) that cannot be found; journal inode %i is ignored")),
	/*
	 * e2fsck takes the error into the superblock's state and zeroes it in the
	 * journal without a question (so its -y exits 0 for it): the full check the
	 * state then asks for is the one running. -n says it and stays clean.
	 */
	ROW(E4R_PR_JOURNAL_ERRNO, "journal_errno", P0, INFO, E4R_ANS_FIX, PREEN | E4R_PF_UNCOUNTED,
	    FIX(JOURNAL_ERRNO), PH(NOW),
	    PM_("the journal (inode %i) records error %f: the filesystem had errors")),
	ROW(E4R_PR_SB_FEATURE_UNKNOWN, "sb_feature_unknown", P0, ERR, E4R_ANS_NONE, 0,
	    FIX(NONE), PH(NONE),
	    PM_("the superblock has unsupported features %f (compatible ones in the high 32 bits, read-only and incompatible ones below)")),
	ROW(E4R_PR_SB_VALUE, "sb_value", P0, ERR, E4R_ANS_NONE, 0,
	    FIX(NONE), PH(NONE),
	    PM_("a superblock value is out of range (%f: 1 reserved blocks, 2 reserved descriptor blocks, 3 descriptor size, 4 first inode, 5 inode size, 6 clusters per group, 7 checksum type, 8 filename encoding, 9 inodes per group)")),
	ROW(E4R_PR_JOURNAL_V2_FIELDS, "journal_v2_fields", P0, ERR, E4R_ANS_FIX, PREEN,
	    FIX(JOURNAL_V2_FIELDS), PH(NOW),
	    PM_("the journal (inode %i) superblock says %f users: its v2 fields are invalid (left from a v1 superblock)")),
	/* e2fsck -n names it and exits 0 (a stray inode 7 harms nothing); -y clears it */
	ROW(E4R_PR_RESIZE_INODE_STRAY, "resize_inode_stray", P0, WARN, E4R_ANS_CLEAR, 0,
	    FIX(INODE), PH(NOW),
	    PM_("the resize inode (inode %i) is not clear, but the filesystem has no resize_inode feature")),
	ROW(E4R_PR_RESIZE_INODE_INVALID, "resize_inode_invalid", P0, WARN, E4R_ANS_FIX, 0,
	    FIX(RESIZE_INODE_RECREATE), PH(LATE),
	    PM_("the resize inode (inode %i) is not valid (made again)")),
	/*
	 * e2fsck asks whether to abort: -n goes on and does not count it as damage
	 * (what lies past the end reads as errors of its own), -y stops (exit 8)
	 */
	ROW(E4R_PR_FS_SIZE_WRONG, "fs_size_wrong", P0, WARN, E4R_ANS_NONE, 0,
	    FIX(NONE), PH(NONE),
	    PM_("the filesystem size (according to the superblock) is %f blocks, but the device holds only %e: either the superblock or the partition table is likely to be corrupt, or the image was cut short")),
	/* e2fsck -n says so and exits 0; its -y (and -p) clears uninit_bg */
	ROW(E4R_PR_SB_BOTH_CSUMS, "sb_both_csums", P0, WARN, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(SB_FIELD), PH(NOW),
	    PM_("the superblock sets both metadata_csum and uninit_bg; metadata_csum supersedes uninit_bg")),

	ROW(E4R_PR_INODE_CSUM, "inode_csum", P1, ERR, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i passes checks, but its checksum does not match")),
	/* e2fsck -p stops on it: not a fix preen makes */
	ROW(E4R_PR_INODE_GARBAGE, "inode_garbage", P1, ERR, E4R_ANS_CLEAR, 0,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i seems to contain garbage: most inodes of its table block fail their checksums or cannot be what they claim")),
	ROW(E4R_PR_INODE_BAD_MODE, "inode_bad_mode", P1, ERR, E4R_ANS_CLEAR, REMAPS,
	    FIX(INODE_CLEAR), PH(NOW),
	    PM_("inode %i has an invalid mode (%o)")),
	ROW(E4R_PR_INODE_DTIME_SET, "inode_dtime_set", P1, ERR, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i is in use, but has its deletion time set (%f)")),
	ROW(E4R_PR_INODE_ZERO_DTIME, "inode_zero_dtime", P1, ERR, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(INODE), PH(NOW),
	    PM_("deleted inode %i has a zero deletion time")),
	ROW(E4R_PR_ORPHAN_LIST, "orphan_list", P1, ERR, E4R_ANS_CLEAR, PREEN,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i was part of the orphaned inode list (next %f)")),
	ROW(E4R_PR_ROOT_NOT_DIR, "root_not_dir", P1, ERR, E4R_ANS_CLEAR, REMAPS,
	    FIX(INODE_CLEAR), PH(NOW),
	    PM_("root inode %i is not a directory (mode %o)")),
	ROW(E4R_PR_RESERVED_MODE, "reserved_mode", P1, ERR, E4R_ANS_CLEAR, PREEN,
	    FIX(INODE), PH(NOW),
	    PM_("reserved inode %i has a bad mode (%o)")),
	ROW(E4R_PR_EXTENTS_NO_FEATURE, "extents_no_feature", P1, ERR, E4R_ANS_CLEAR, REMAPS,
	    FIX(INODE_CLEAR), PH(NOW),
	    PM_("inode %i has the extents flag set on a filesystem without the extent feature")),
	/* e2fsck sets the feature on the first inode that proves it; alone, so the next round sees it */
	ROW(E4R_PR_EXTENT_FEATURE, "extent_feature", P1, ERR, E4R_ANS_FIX, 0,
	    FIX(SB_FIELD), PH(ALONE),
	    PM_("inode %i is in extent format, but the superblock lacks the extent feature (set it)")),
	ROW(E4R_PR_EXTENT_HEADER, "extent_header", P1, ERR, E4R_ANS_CLEAR, REMAPS,
	    FIX(INODE_CLEAR), PH(NOW),
	    PM_("inode %i has a corrupt extent header")),
	ROW(E4R_PR_EXTENT_NODE, "extent_node", P1, ERR, E4R_ANS_CLEAR, DROPS_BLOCKS | REMAPS,
	    FIX(BLOCK_MAP), PH(NOW),
	    PM_("inode %i has a corrupt extent tree node below block %b")),
	ROW(E4R_PR_EXTENT_CSUM, "extent_csum", P1, ERR, E4R_ANS_FIX, PREEN,
	    FIX(EXTENT_CSUM), PH(NOW),
	    PM_("inode %i extent tree block %b checksum does not match")),
	ROW(E4R_PR_EXTENT_BAD, "extent_bad", P1, ERR, E4R_ANS_CLEAR, DROPS_BLOCKS | REMAPS,
	    FIX(BLOCK_MAP), PH(NOW),
	    PM_("inode %i has an invalid extent: logical block %e, physical block %b, length %f")),
	ROW(E4R_PR_EXTENT_ORDER, "extent_order", P1, ERR, E4R_ANS_CLEAR, DROPS_BLOCKS | REMAPS,
	    FIX(BLOCK_MAP), PH(NOW),
	    PM_("inode %i extent tree is out of order or overlaps at logical block %f (expected at least %e)")),
	ROW(E4R_PR_EXTENT_TOO_DEEP, "extent_too_deep", P1, WARN, E4R_ANS_FIX, 0,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i extent tree claims %f levels; no tree of this block size needs more than %e")),
	ROW(E4R_PR_BLOCK_ILLEGAL, "block_illegal", P1, ERR, E4R_ANS_CLEAR, DROPS_BLOCKS | REMAPS,
	    FIX(BLOCK_MAP), PH(NOW),
	    PM_("inode %i claims illegal block %b (outside the filesystem) at logical block %e")),
	ROW(E4R_PR_BLOCK_METADATA, "block_metadata", P1, ERR, E4R_ANS_CLEAR, DROPS_BLOCKS | REMAPS,
	    FIX(BLOCK_MAP), PH(NOW),
	    PM_("inode %i claims %f block(s) of filesystem metadata, the first block %b (group %g)")),
	ROW(E4R_PR_BLOCK_DUP, "block_dup", P1, ERR, E4R_ANS_CLONE, REMAPS,
	    FIX(CLONE), PH(CLONE),
	    PM_("inode %i claims block %b, which another inode also claims (%f multiply-claimed blocks in this inode)")),
	/*
	 * Found by the clone of the blocks above, not by a check: no free block
	 * for a copy. e2fsck's pass 1D asks to delete the file then; its blocks
	 * that others still claim stay theirs.
	 */
	ROW(E4R_PR_DUP_CLONE_FAILED, "dup_clone_failed", P1, ERR, E4R_ANS_DELETE, REMAPS,
	    FIX(INODE_CLEAR), PH(NOW),
	    PM_("inode %i: its multiply-claimed blocks could not be cloned (%x)")),
	ROW(E4R_PR_TOO_MANY_BAD_BLOCKS, "too_many_bad_blocks", P1, ERR, E4R_ANS_CLEAR, REMAPS,
	    FIX(INODE_CLEAR), PH(NOW),
	    PM_("inode %i has too many illegal blocks; the rest of its map was not checked")),
	ROW(E4R_PR_I_BLOCKS, "i_blocks", P1, ERR, E4R_ANS_FIX, PREEN | CLOSED | COUNTS_MAP,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i i_blocks is %f, should be %e")),
	ROW(E4R_PR_I_SIZE, "i_size", P1, ERR, E4R_ANS_FIX, PREEN | COUNTS_MAP,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i i_size is %f, should be %e")),
	ROW(E4R_PR_DIR_NO_BLOCKS, "dir_no_blocks", P1, ERR, E4R_ANS_CLEAR, REMAPS,
	    FIX(INODE_CLEAR), PH(NOW),
	    PM_("directory inode %i has no blocks (size %f)")),
	ROW(E4R_PR_FAST_SYMLINK, "symlink_invalid", P1, ERR, E4R_ANS_CLEAR, REMAPS,
	    FIX(INODE_CLEAR), PH(NOW),
	    PM_("symlink inode %i is invalid (size %f)")),
	/* e2fsck clears the flag and judges the link without it */
	ROW(E4R_PR_FAST_SYMLINK_EXTENT_FL, "fast_symlink_extent_flag", P1, ERR, E4R_ANS_CLEAR, 0,
	    FIX(INODE), PH(NOW),
	    PM_("fast symlink inode %i has the extents flag set")),
	ROW(E4R_PR_SPECIAL_FILE, "special_file", P1, ERR, E4R_ANS_CLEAR, REMAPS,
	    FIX(INODE_CLEAR), PH(NOW),
	    PM_("special (device/socket/fifo) inode %i has a non-zero block map or bad flags")),
	ROW(E4R_PR_EA_BLOCK, "ea_block", P1, ERR, E4R_ANS_CLEAR, 0,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i has a bad extended attribute block %b")),
	ROW(E4R_PR_EA_NO_FEATURE, "ea_block_no_feature", P1, ERR, E4R_ANS_CLEAR, 0,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i names extended attribute block %b, but the filesystem lacks the ext_attr feature")),
	ROW(E4R_PR_INLINE_DATA, "inline_data", P1, ERR, E4R_ANS_CLEAR, REMAPS,
	    FIX(INODE_CLEAR), PH(NOW),
	    PM_("inode %i has inline data, but the filesystem has no inline_data feature")),
	ROW(E4R_PR_INLINE_DATA_FEATURE, "inline_data_feature", P1, ERR, E4R_ANS_FIX, 0,
	    FIX(SB_FIELD), PH(ALONE),
	    PM_("inode %i has inline data and its system.data attribute, but the superblock lacks the inline_data feature (set it)")),
	ROW(E4R_PR_INODE_SCAN, "inode_scan", P1, ERR, E4R_ANS_NONE, 0,
	    FIX(NONE), PH(NONE),
	    PM_("could not read inodes of group %g (the inode table at block %b)")),
	/* like e2fsck: -y drops the block (a block map) or the extent past the limit, keeps the directory */
	ROW(E4R_PR_DIR_TOO_BIG, "dir_too_big", P1, ERR, E4R_ANS_CLEAR, DROPS_BLOCKS | REMAPS,
	    FIX(BLOCK_MAP), PH(NOW),
	    PM_("directory inode %i has logical block %e, past the largest size a directory may have")),
	/* a slow symlink holds its target in one block: -y drops the others and keeps the link */
	ROW(E4R_PR_SYMLINK_TOO_BIG, "symlink_too_big", P1, ERR, E4R_ANS_CLEAR, DROPS_BLOCKS | REMAPS,
	    FIX(BLOCK_MAP), PH(NOW),
	    PM_("symlink inode %i claims block %b at logical block %e; a symlink has one block")),
	ROW(E4R_PR_IMAGIC_FLAG, "imagic_flag", P1, ERR, E4R_ANS_CLEAR, PREEN,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i has the imagic flag set, but the filesystem has no imagic_inodes feature")),
	/* e2fsck -n names it and exits 0; -y and -p clear the flags */
	ROW(E4R_PR_SPECIAL_FLAGS, "special_flags", P1, WARN, E4R_ANS_CLEAR, PREEN,
	    FIX(INODE), PH(NOW),
	    PM_("special (device/socket/fifo/symlink) inode %i has the immutable or append-only flag set")),
	ROW(E4R_PR_SPECIAL_SIZE, "special_size", P1, ERR, E4R_ANS_FIX, PREEN,
	    FIX(INODE), PH(NOW),
	    PM_("special (device/socket/fifo) inode %i has a non-zero size %f")),
	ROW(E4R_PR_DIR_UNINIT_EXTENT, "dir_uninit_extent", P1, ERR, E4R_ANS_FIX, PREEN,
	    FIX(DIR_UNINIT), PH(NOW),
	    PM_("directory inode %i has an extent marked uninitialized at logical block %e (block %b)")),
	ROW(E4R_PR_BAD_BLOCK_BITMAP, "bad_block_bitmap", P1, ERR, E4R_ANS_RELOCATE, MOVES_BITMAP,
	    FIX(RELOCATE_BITMAP), PH(NOW_REBUILD),
	    PM_("the bitmap of group %g at block %b is in the bad blocks list")),
	ROW(E4R_PR_BAD_BLOCKS_INODE, "bad_blocks_inode", P1, ERR, E4R_ANS_CLEAR, 0,
	    FIX(BAD_BLOCKS_INODE), PH(ALONE),
	    PM_("the bad blocks inode %i is invalid (its fields, or its list names the block holding it)")),
	/* as e2fsck: the block is taken off the list (the filesystem cannot do without it) */
	ROW(E4R_PR_BB_PRIMARY_SUPER, "bb_primary_super", P1, ERR, E4R_ANS_CLEAR, DROPS_BLOCKS | REMAPS,
	    FIX(BLOCK_MAP), PH(NOW),
	    PM_("the primary superblock (block %b) is in the bad blocks list")),
	ROW(E4R_PR_BB_PRIMARY_DESC, "bb_primary_desc", P1, ERR, E4R_ANS_CLEAR, DROPS_BLOCKS | REMAPS,
	    FIX(BLOCK_MAP), PH(NOW),
	    PM_("block %b of the primary group descriptors is in the bad blocks list")),
	/* a backup copy may be lost: e2fsck warns and leaves the list as it is */
	ROW(E4R_PR_BB_BACKUP_SUPER, "bb_backup_super", P1, WARN, E4R_ANS_NONE, 0,
	    FIX(NONE), PH(NONE),
	    PM_("the backup superblock of group %g (block %b) is in the bad blocks list")),
	ROW(E4R_PR_BB_BACKUP_DESC, "bb_backup_desc", P1, WARN, E4R_ANS_NONE, 0,
	    FIX(NONE), PH(NONE),
	    PM_("block %b of group %g's backup group descriptors is in the bad blocks list")),
	/* as e2fsck: the indirect block leaves the map, and the blocks it lists with it */
	ROW(E4R_PR_BB_INDIRECT_METADATA, "bb_indirect_metadata", P1, ERR, E4R_ANS_CLEAR, DROPS_BLOCKS | REMAPS,
	    FIX(BLOCK_MAP), PH(NOW),
	    PM_("the bad blocks inode %i has an indirect block %b that is filesystem metadata")),
	ROW(E4R_PR_BB_INDIRECT_LISTED, "bb_indirect_listed", P1, ERR, E4R_ANS_CLEAR, DROPS_BLOCKS | REMAPS,
	    FIX(BLOCK_MAP), PH(NOW),
	    PM_("the bad blocks inode %i uses block %b, itself listed as bad, as an indirect block")),
	ROW(E4R_PR_INODE_EXTRA_ISIZE, "inode_extra_isize", P1, ERR, E4R_ANS_FIX, PREEN,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i i_extra_isize is %f, should be %e")),
	ROW(E4R_PR_INODE_EA_BOUNDS, "inode_ea_bounds", P1, ERR, E4R_ANS_CLEAR, 0,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i: the in-inode extended attribute at offset %f, its name or its value leaves the inode or overlaps another")),
	ROW(E4R_PR_INODE_EA_HASH, "inode_ea_hash", P1, ERR, E4R_ANS_CLEAR, 0,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i: the in-inode extended attribute at offset %f has a wrong hash")),
	ROW(E4R_PR_INODE_EA_VALUE, "inode_ea_value_inode", P1, ERR, E4R_ANS_CLEAR, 0,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i: the in-inode extended attribute at offset %f names an invalid value inode")),
	ROW(E4R_PR_EA_VALUE_INODE, "ea_value_inode", P1, ERR, E4R_ANS_CLEAR, DROPS_BLOCKS,
	    FIX(EA_CLEAR), PH(NOW),
	    PM_("extended attribute block %b (inode %i): the entry at offset %f names an invalid value inode")),
	ROW(E4R_PR_EA_INODE_FLAG, "ea_inode_flag", P1, ERR, E4R_ANS_FIX, 0,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i holds an extended attribute value but lacks the EA inode flag")),
	ROW(E4R_PR_INODE_EXTRA_TIME, "inode_extra_time", P1, WARN, E4R_ANS_FIX, PREEN,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i has timestamps past 2310 that are likely pre-1970 ones in the old encoding")),
	ROW(E4R_PR_INODE_FADDR, "inode_faddr", P1, ERR, E4R_ANS_CLEAR, 0,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i i_faddr is %f, should be zero")),
	ROW(E4R_PR_INODE_FRAG, "inode_frag", P1, ERR, E4R_ANS_CLEAR, 0,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i i_frag is %f, should be zero")),
	ROW(E4R_PR_INODE_FSIZE, "inode_fsize", P1, ERR, E4R_ANS_CLEAR, 0,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i i_fsize is %f, should be zero")),
	ROW(E4R_PR_INODE_FILE_ACL_HIGH, "inode_file_acl_high", P1, ERR, E4R_ANS_CLEAR, 0,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i i_file_acl_high is %f, should be zero (no 64bit feature)")),
	ROW(E4R_PR_INLINE_DATA_NO_ATTR, "inline_data_no_attr", P1, ERR, E4R_ANS_FIX, 0,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i has inline data but no readable system.data extended attribute (truncated to size 0)")),
	ROW(E4R_PR_ENCRYPT_NO_ATTR, "encrypt_no_attr", P1, ERR, E4R_ANS_FIX, 0,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i has the encrypt flag but no encryption extended attribute (the flag is cleared)")),
	ROW(E4R_PR_ENCRYPT_ATTR_BAD, "encrypt_attr_bad", P1, ERR, E4R_ANS_CLEAR, REMAPS,
	    FIX(INODE_CLEAR), PH(NOW),
	    PM_("encrypted inode %i has a corrupt encryption extended attribute (%f bytes)")),
	/* e2fsck's answer too: none here; the block is then multiply-claimed, repaired by the clone */
	ROW(E4R_PR_CLUSTER_MISALIGNED, "cluster_misaligned", P1, ERR, E4R_ANS_NONE, 0,
	    FIX(NONE), PH(NONE),
	    PM_("inode %i logical block %f (physical block %b) breaks the cluster allocation rules")),
	ROW(E4R_PR_EA_INODE_REFCOUNT, "ea_inode_refcount", P1, ERR, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(INODE), PH(NOW),
	    PM_("extended attribute inode %i reference count is %f, should be %e")),
	ROW(E4R_PR_EXTENT_INDEX_START, "extent_index_start", P1, ERR, E4R_ANS_FIX, 0,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i: an index entry starts at logical block %f, its extent node %b at %e")),
	ROW(E4R_PR_DIR_SIZE_HIGH, "dir_size_high", P1, ERR, E4R_ANS_CLEAR, 0,
	    FIX(INODE), PH(NOW),
	    PM_("directory inode %i i_size_high is %f, should be zero (no largedir feature)")),
	ROW(E4R_PR_INDEX_NOT_DIR, "index_not_dir", P1, ERR, E4R_ANS_CLEAR, 0,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i has the htree index flag but is not a directory")),
	ROW(E4R_PR_CASEFOLD_NOT_DIR, "casefold_not_dir", P1, ERR, E4R_ANS_CLEAR, 0,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i has the casefold flag but is not a directory")),
	ROW(E4R_PR_CASEFOLD_NO_FEATURE, "casefold_no_feature", P1, ERR, E4R_ANS_CLEAR, 0,
	    FIX(INODE), PH(NOW),
	    PM_("directory inode %i has the casefold flag, but the filesystem has no casefold feature")),

	ROW(E4R_PR_DIR_CSUM, "dir_csum", P2, ERR, E4R_ANS_FIX, PREEN,
	    FIX(DIR_BLOCK), PH(NOW),
	    PM_("directory inode %d block %b (logical %e) checksum does not match")),
	ROW(E4R_PR_DIR_CORRUPT, "dir_corrupt", P2, ERR, E4R_ANS_FIX, 0,
	    FIX(DIR_BLOCK), PH(FIRST),
	    PM_("directory inode %d block %b has a corrupt entry at offset %f (bad record or name length)")),
	/* as e2fsck: the data cut to i_block or padded to 4 bytes (i_size follows) */
	ROW(E4R_PR_INLINE_DIR_SIZE, "inline_dir_size", P2, ERR, E4R_ANS_FIX, 0,
	    FIX(DIR_BLOCK), PH(NOW),
	    PM_("inline directory inode %d has %f bytes of entries, not a multiple of 4 (or too few past i_block), should be %e")),
	ROW(E4R_PR_DIR_READ, "dir_read", P2, ERR, E4R_ANS_NONE, 0,
	    FIX(NONE), PH(NONE),
	    PM_("could not read directory inode %d block %b")),
	ROW(E4R_PR_NO_DOT, "no_dot", P2, ERR, E4R_ANS_FIX, 0,
	    FIX(DOT), PH(NOW),
	    PM_("missing '.' in directory inode %d")),
	ROW(E4R_PR_BAD_DOT, "bad_dot", P2, ERR, E4R_ANS_FIX, 0,
	    FIX(DOT), PH(NOW),
	    PM_("'.' in directory inode %d points to inode %f, should be %e")),
	ROW(E4R_PR_NO_DOTDOT, "no_dotdot", P2, ERR, E4R_ANS_FIX, 0,
	    FIX(DOT), PH(NOW),
	    PM_("missing '..' in directory inode %d")),
	/* as e2fsck: the padding after the name is written (the entry is kept) */
	ROW(E4R_PR_DOT_NOT_TERMINATED, "dot_not_terminated", P2, ERR, E4R_ANS_FIX, 0,
	    FIX(DOT), PH(NOW),
	    PM_("'.' in directory inode %d is not NUL-terminated (byte %f after its name)")),
	ROW(E4R_PR_DOTDOT_NOT_TERMINATED, "dotdot_not_terminated", P2, ERR, E4R_ANS_FIX, 0,
	    FIX(DOT), PH(NOW),
	    PM_("'..' in directory inode %d is not NUL-terminated (byte %f after its name)")),
	ROW(E4R_PR_ENTRY_BAD_INODE, "entry_bad_inode", P2, ERR, E4R_ANS_CLEAR, NOT_LINK,
	    FIX(DIR_ENTRY), PH(NOW),
	    PM_("entry '%n' in directory inode %d has a bad inode number %i")),
	ROW(E4R_PR_ENTRY_UNUSED_INODE, "entry_unused_inode", P2, ERR, E4R_ANS_CLEAR, NOT_LINK,
	    FIX(DIR_ENTRY), PH(NOW),
	    PM_("entry '%n' in directory inode %d points to deleted or unused inode %i")),
	ROW(E4R_PR_ENTRY_BB_INODE, "entry_bad_block_inode", P2, ERR, E4R_ANS_CLEAR, 0,
	    FIX(DIR_ENTRY), PH(NOW),
	    PM_("entry '%n' in directory inode %d points to inode %i, in an inode table block of the bad blocks list")),
	ROW(E4R_PR_LARGE_FILE_FEATURE, "large_file_feature", P2, ERR, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(LARGE_FILE_FEATURE), PH(NOW),
	    PM_("the filesystem holds files of 2 GiB or more (%f of them), but has no large_file feature")),
	/*
	 * alone: the round's other findings were made without the inodes of
	 * that area (their blocks free, their directories unconnected), as
	 * e2fsck starts again once it has moved the mark
	 */
	ROW(E4R_PR_ENTRY_UNINIT_INODE, "entry_uninit_inode", P2, ERR, E4R_ANS_FIX, 0,
	    FIX(UNINIT_ENTRY), PH(ALONE),
	    PM_("entry '%n' in directory inode %d points to inode %i in the unused area of group %g")),
	ROW(E4R_PR_ENTRY_BAD_TARGET, "entry_bad_target", P2, ERR, E4R_ANS_CLEAR, 0,
	    FIX(DIR_ENTRY), PH(NOW),
	    PM_("entry '%n' in directory inode %d points to inode %i, which pass 1 found broken")),
	ROW(E4R_PR_ENTRY_FILETYPE, "entry_filetype", P2, ERR, E4R_ANS_FIX, PREEN,
	    FIX(DIR_ENTRY), PH(NOW),
	    PM_("entry '%n' in directory inode %d (inode %i) has file type %f, should be %e")),
	ROW(E4R_PR_ENTRY_NAME, "entry_name", P2, ERR, E4R_ANS_FIX, 0,
	    FIX(DIR_ENTRY), PH(NOW),
	    PM_("entry '%n' in directory inode %d (inode %i) has an illegal character or length in its name")),
	ROW(E4R_PR_ENTRY_DOT_NAME, "entry_dot_name", P2, ERR, E4R_ANS_CLEAR, 0,
	    FIX(DIR_ENTRY), PH(NOW),
	    PM_("entry '%n' in directory inode %d is a '.' or '..' entry in the wrong place")),
	ROW(E4R_PR_ENTRY_ROOT, "entry_root", P2, ERR, E4R_ANS_CLEAR, NOT_LINK,
	    FIX(DIR_ENTRY), PH(NOW),
	    PM_("entry '%n' in directory inode %d is a link to the root inode")),
	ROW(E4R_PR_DIR_HARDLINK, "dir_hardlink", P2, ERR, E4R_ANS_CLEAR, 0,
	    FIX(DIR_ENTRY), PH(NOW),
	    PM_("entry '%n' in directory inode %d is a link to directory inode %i, already in directory %e")),
	ROW(E4R_PR_HTREE_ROOT, "htree_root", P2, ERR, E4R_ANS_FIX, 0,
	    FIX(HTREE_FLAG), PH(NOW),
	    PM_("directory inode %d has a bad htree root (block %b)")),
	ROW(E4R_PR_HTREE_NODE, "htree_node", P2, ERR, E4R_ANS_FIX, 0,
	    FIX(HTREE_FLAG), PH(NOW),
	    PM_("directory inode %d has a bad htree interior node at logical block %f (block %b)")),
	ROW(E4R_PR_HTREE_NO_FEATURE, "htree_no_feature", P2, ERR, E4R_ANS_FIX, PREEN,
	    FIX(HTREE_FLAG), PH(NOW),
	    PM_("directory inode %d has the htree flag set but the filesystem has no dir_index feature")),
	ROW(E4R_PR_DIR_HOLE, "dir_hole", P2, ERR, E4R_ANS_FIX, 0,
	    FIX(DIR_HOLE), PH(LATE),
	    PM_("directory inode %d has a hole at logical block %e")),
	ROW(E4R_PR_ENTRY_ENCODING, "entry_encoding", P2, ERR, E4R_ANS_FIX, 0,
	    FIX(DIR_ENTRY), PH(NOW),
	    PM_("entry '%n' in casefolded directory inode %d (inode %i) has illegal UTF-8 characters in its name")),
	ROW(E4R_PR_HTREE_HASH, "htree_hash", P2, ERR, E4R_ANS_FIX, 0,
	    FIX(HTREE_FLAG), PH(NOW),
	    PM_("entry '%n' in htree directory inode %d, logical block %e (block %b), has hash %f outside the range its index gives the block")),
	ROW(E4R_PR_HTREE_HASH_VERSION, "htree_hash_version", P2, ERR, E4R_ANS_FIX, 0,
	    FIX(HTREE_FLAG), PH(NOW),
	    PM_("directory inode %d has an htree root (block %b) with an unsupported hash version (%f)")),
	ROW(E4R_PR_HTREE_INCOMPAT, "htree_incompat", P2, ERR, E4R_ANS_FIX, 0,
	    FIX(HTREE_FLAG), PH(NOW),
	    PM_("directory inode %d has an htree root (block %b) with the incompatible flag set (flags %f)")),
	ROW(E4R_PR_HTREE_LIMIT, "htree_limit", P2, ERR, E4R_ANS_FIX, 0,
	    FIX(HTREE_FLAG), PH(NOW),
	    PM_("directory inode %d: the htree index block %b has limit %f, should be %e")),
	ROW(E4R_PR_HTREE_COUNT, "htree_count", P2, ERR, E4R_ANS_FIX, 0,
	    FIX(HTREE_FLAG), PH(NOW),
	    PM_("directory inode %d: the htree index block %b has count %f, more than its limit %e")),
	ROW(E4R_PR_HTREE_BAD_BLOCK, "htree_bad_block", P2, ERR, E4R_ANS_FIX, 0,
	    FIX(HTREE_FLAG), PH(NOW),
	    PM_("directory inode %d: the htree index block %b points to logical block %f, past the directory's %e blocks")),
	ROW(E4R_PR_HTREE_HASH_ORDER, "htree_hash_order", P2, ERR, E4R_ANS_FIX, 0,
	    FIX(HTREE_FLAG), PH(NOW),
	    PM_("directory inode %d: the hashes of htree index block %b (logical %e) are out of order at entry %f")),
	ROW(E4R_PR_HTREE_DEPTH, "htree_depth", P2, ERR, E4R_ANS_FIX, 0,
	    FIX(HTREE_FLAG), PH(NOW),
	    PM_("directory inode %d: htree leaf at logical block %f (block %b) is not at depth %e")),
	ROW(E4R_PR_HTREE_NOT_REF, "htree_not_referenced", P2, ERR, E4R_ANS_FIX, 0,
	    FIX(HTREE_FLAG), PH(NOW),
	    PM_("directory inode %d: logical block %f (block %b) is not referenced by the htree index")),
	ROW(E4R_PR_HTREE_DUP_REF, "htree_referenced_twice", P2, ERR, E4R_ANS_FIX, 0,
	    FIX(HTREE_FLAG), PH(NOW),
	    PM_("directory inode %d: logical block %f (block %b) is referenced twice by the htree index")),
	/* e2fsck -n leaves an unset file type unmentioned (-y sets it): not an error of the verdict */
	ROW(E4R_PR_ENTRY_FILETYPE_UNSET, "entry_filetype_unset", P2, WARN, E4R_ANS_FIX, PREEN,
	    FIX(DIR_ENTRY), PH(NOW),
	    PM_("entry '%n' in directory inode %d (inode %i) has no file type, should be %e")),
	ROW(E4R_PR_ENTRY_ENCRYPTED_SHORT, "entry_encrypted_short", P2, ERR, E4R_ANS_CLEAR, 0,
	    FIX(DIR_ENTRY), PH(NOW),
	    PM_("entry '%n' in encrypted directory inode %d (inode %i) has a name of %f bytes, shorter than an encrypted name (%e)")),
	ROW(E4R_PR_ENTRY_UNENCRYPTED, "entry_unencrypted", P2, ERR, E4R_ANS_CLEAR, 0,
	    FIX(DIR_ENTRY), PH(NOW),
	    PM_("entry '%n' in encrypted directory inode %d names inode %i, which is not encrypted")),
	/* as e2fsck: the second is renamed (name~0), or dropped when it names the same inode */
	ROW(E4R_PR_ENTRY_DUPLICATE, "entry_duplicate", P2, ERR, E4R_ANS_FIX, 0,
	    FIX(DIR_ENTRY), PH(NOW),
	    PM_("entry '%n' (inode %i) in directory inode %d has the name of an entry before it in its block")),

	ROW(E4R_PR_NO_ROOT, "no_root", P3, ERR, E4R_ANS_FIX, 0,
	    FIX(ROOT), PH(LATE),
	    PM_("root inode is not allocated")),
	ROW(E4R_PR_UNCONNECTED_DIR, "unconnected_dir", P3, ERR, E4R_ANS_FIX, 0,
	    FIX(RECONNECT_DIR), PH(LATE),
	    PM_("directory inode %i is not connected to the root ('..' is %f)")),
	ROW(E4R_PR_BAD_DOTDOT, "bad_dotdot", P3, ERR, E4R_ANS_FIX, 0,
	    FIX(DOTDOT), PH(NOW),
	    PM_("'..' in directory inode %i is %f, should be %e")),
	ROW(E4R_PR_NO_LPF, "no_lost_found", P3, INFO, E4R_ANS_FIX, 0,
	    FIX(LOST_FOUND), PH(LATE),
	    PM_("/lost+found not found")),
	/*
	 * Found by a reconnection, not by a check: no free inode or block for
	 * a new lost+found (e2fsck's "Cannot allocate space for /lost+found").
	 * What is lost goes into the root directory, as e2fsck offers.
	 */
	ROW(E4R_PR_LPF_NO_SPACE, "lost_found_no_space", P3, INFO, E4R_ANS_NONE, 0,
	    FIX(NONE), PH(NONE),
	    PM_("no room to make /lost+found (%x): lost files go into the root directory")),
	ROW(E4R_PR_LPF_NOT_DIR, "lost_found_not_dir", P3, ERR, E4R_ANS_FIX, 0,
	    FIX(LOST_FOUND), PH(LATE),
	    PM_("/lost+found (inode %i) is not a directory")),
	ROW(E4R_PR_DIR_LOOP, "dir_loop", P3, ERR, E4R_ANS_FIX, 0,
	    FIX(RECONNECT_DIR), PH(LATE),
	    PM_("directory inode %i is part of a loop of directories, not reachable from the root")),

	ROW(E4R_PR_LINK_COUNT, "link_count", P4, ERR, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i ref count is %f, should be %e")),
	ROW(E4R_PR_UNATTACHED, "unattached", P4, ERR, E4R_ANS_FIX, CLOSED | RECONNECTS,
	    FIX(RECONNECT_FILE), PH(LATE),
	    PM_("unattached inode %i (no directory entry refers to it)")),
	ROW(E4R_PR_UNATTACHED_ZERO, "unattached_zero", P4, ERR, E4R_ANS_CLEAR, PREEN | CLOSED | REMAPS,
	    FIX(INODE_CLEAR), PH(NOW_REBUILD),
	    PM_("unattached zero-length inode %i")),
	ROW(E4R_PR_DIR_NLINK_FEATURE, "dir_nlink_feature", P4, ERR, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(DIR_NLINK_FEATURE), PH(NOW),
	    PM_("directory inode %i has more than 65000 links, but the filesystem has no dir_nlink feature")),

	ROW(E4R_PR_BLOCK_NOT_MARKED, "block_not_marked", P5, ERR, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(SUMMARIES), PH(SUMMARY),
	    PM_("block bitmap differences: +%r (in use, marked free)")),
	ROW(E4R_PR_BLOCK_MARKED_FREE, "block_marked_unused", P5, ERR, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(SUMMARIES), PH(SUMMARY),
	    PM_("block bitmap differences: -%r (marked in use, not used)")),
	ROW(E4R_PR_INODE_NOT_MARKED, "inode_not_marked", P5, ERR, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(SUMMARIES), PH(SUMMARY),
	    PM_("inode bitmap differences: +%R (in use, marked free)")),
	ROW(E4R_PR_INODE_MARKED_FREE, "inode_marked_unused", P5, ERR, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(SUMMARIES), PH(SUMMARY),
	    PM_("inode bitmap differences: -%R (marked in use, not used)")),
	ROW(E4R_PR_GROUP_FREE_BLOCKS, "group_free_blocks", P5, ERR, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(SUMMARIES), PH(SUMMARY),
	    PM_("free blocks count wrong for group %g (%f, counted=%e in its bitmap)")),
	ROW(E4R_PR_GROUP_FREE_INODES, "group_free_inodes", P5, ERR, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(SUMMARIES), PH(SUMMARY),
	    PM_("free inodes count wrong for group %g (%f, counted=%e in its bitmap)")),
	ROW(E4R_PR_GROUP_DIRS, "group_dirs", P5, ERR, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(SUMMARIES), PH(SUMMARY),
	    PM_("directories count wrong for group %g (%f, counted=%e)")),
	ROW(E4R_PR_GROUP_UNUSED_INODES, "group_unused_inodes", P5, ERR, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(SUMMARIES), PH(SUMMARY),
	    PM_("group %g unused inodes count is %f, but inode %i is in use")),
	ROW(E4R_PR_SB_FREE_BLOCKS, "sb_free_blocks", P5, WARN, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(SUMMARIES), PH(SUMMARY),
	    PM_("free blocks count wrong (%f, counted=%e in the bitmaps)")),
	ROW(E4R_PR_SB_FREE_INODES, "sb_free_inodes", P5, WARN, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(SUMMARIES), PH(SUMMARY),
	    PM_("free inodes count wrong (%f, counted=%e in the bitmaps)")),
	ROW(E4R_PR_BLOCK_BITMAP_CSUM, "block_bitmap_csum", P5, ERR, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(SUMMARIES), PH(SUMMARY),
	    PM_("block bitmap of group %g (block %b) does not match its checksum")),
	ROW(E4R_PR_INODE_BITMAP_CSUM, "inode_bitmap_csum", P5, ERR, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(SUMMARIES), PH(SUMMARY),
	    PM_("inode bitmap of group %g (block %b) does not match its checksum")),
	ROW(E4R_PR_BITMAP_READ, "bitmap_read", P5, ERR, E4R_ANS_FIX, 0,
	    FIX(SUMMARIES), PH(SUMMARY),
	    PM_("could not read the on-disk bitmaps; bitmap differences were not checked")),
	ROW(E4R_PR_INODE_BITMAP_PADDING, "inode_bitmap_padding", P5, ERR, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(SUMMARIES), PH(SUMMARY),
	    PM_("padding at end of an inode bitmap block is not set")),
	ROW(E4R_PR_BLOCK_BITMAP_PADDING, "block_bitmap_padding", P5, ERR, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(SUMMARIES), PH(SUMMARY),
	    PM_("padding at end of a block bitmap block is not set")),

	ROW(E4R_PR_TOO_MANY, "too_many_findings", P0, INFO, E4R_ANS_NONE, 0,
	    FIX(NONE), PH(NONE),
	    PM_("too many problems: %f more were found but not listed")),

	/*
	 * alone: pass 2 took every entry naming that inode (the root's too) as
	 * bad; e2fsck fixes it first, with the quota feature or without it.
	 * Without the feature e2fsck -n names it and exits 0 for it alone (a
	 * warning). With it, the field left as it is (-n) is the quota file
	 * e2fsck opens: the open fails, and it offers to update that type's
	 * quota, which -n declines (exit 4): the same field, an error there.
	 */
	ROW(E4R_PR_QUOTA_INODE_INVALID, "quota_inode_invalid", P0, WARN, E4R_ANS_CLEAR, 0,
	    FIX(QUOTA_INODE_OFF), PH(ALONE),
	    PM_("the %n quota inode %i is invalid (a reserved inode or out of range)")),
	ROW(E4R_PR_QUOTA_INODE_INVALID_FEATURE, "quota_inode_invalid_feature", P0, ERR,
	    E4R_ANS_CLEAR, 0, FIX(QUOTA_INODE_OFF), PH(ALONE),
	    PM_("the %n quota inode %i is invalid (a reserved inode or out of range), so the "
		"quota feature's file for it cannot be read")),
	/*
	 * alone, for the same reason. e2fsck moves the other type's file into
	 * this type's reserved inode (its magic is not this type's, so nothing
	 * is read from it), clears the file already there as unnamed, and
	 * writes that type's usage anew, limits lost. The file already in the
	 * type's own reserved inode is the one the field lost: named again, it
	 * keeps its limits, and the usage compare that follows mends the rest.
	 */
	ROW(E4R_PR_QUOTA_INODE_OTHER_TYPE, "quota_inode_other_type", P0, ERR, E4R_ANS_FIX, 0,
	    FIX(QUOTA_INODE_HOME), PH(ALONE),
	    PM_("the %n quota inode %i is the reserved inode of another quota type, "
		"not the %n quota's own (inode %e)")),
	ROW(E4R_PR_QUOTA_INODE_NOT_CLEAR, "quota_inode_not_clear", P1, ERR, E4R_ANS_CLEAR, 0,
	    FIX(INODE), PH(NOW),
	    PM_("quota inode %i is not in use (no quota file names it), but contains data")),
	ROW(E4R_PR_QUOTA_FILE_BAD, "quota_file_bad", P5, ERR, E4R_ANS_FIX, 0,
	    FIX(QUOTA_REWRITE), PH(LATE),
	    PM_("the %n quota file (inode %i) cannot be read: %x")),
	ROW(E4R_PR_QUOTA_SPACE, "quota_space", P5, ERR, E4R_ANS_FIX, CLOSED | COUNTS_USAGE,
	    FIX(QUOTA_REWRITE), PH(LATE),
	    PM_("%n quota id %q: the quota file (inode %i) records %f bytes in use, counted %e")),
	ROW(E4R_PR_QUOTA_INODES, "quota_inodes", P5, ERR, E4R_ANS_FIX, CLOSED | COUNTS_USAGE,
	    FIX(QUOTA_REWRITE), PH(LATE),
	    PM_("%n quota id %q: the quota file (inode %i) records %f inodes in use, counted %e")),
	ROW(E4R_PR_QUOTA_MISSING, "quota_missing", P5, ERR, E4R_ANS_FIX, CLOSED,
	    FIX(QUOTA_REWRITE), PH(LATE),
	    PM_("%n quota id %q has no record in the quota file (inode %i): %f inodes, %e bytes in use")),
	/* e2fsck -n does not walk the orphan list: what the walk finds leaves the verdict alone. */
	ROW(E4R_PR_ORPHAN_CHAIN_RANGE, "orphan_chain_range", P0, WARN, E4R_ANS_CLEAR, PREEN,
	    FIX(ORPHAN_LIST_CLEAR), PH(NOW),
	    PM_("orphan list: inode %i links to inode %f, which is out of range")),
	ROW(E4R_PR_ORPHAN_CHAIN_LOOP, "orphan_chain_loop", P0, WARN, E4R_ANS_CLEAR, PREEN,
	    FIX(ORPHAN_LIST_CLEAR), PH(NOW),
	    PM_("orphan list: inode %i links back to inode %f, a loop")),
	ROW(E4R_PR_ORPHAN_FILE_INODE, "orphan_file_inode", P5, ERR, E4R_ANS_FIX, 0,
	    FIX(ORPHAN_FILE_RECREATE), PH(LATE),
	    PM_("the orphan file inode %i is out of range or cannot be read")),
	ROW(E4R_PR_ORPHAN_FILE_NOT_REG, "orphan_file_not_regular", P5, ERR, E4R_ANS_FIX, 0,
	    FIX(ORPHAN_FILE_RECREATE), PH(LATE),
	    PM_("the orphan file inode %i is not a regular file (mode %o)")),
	ROW(E4R_PR_ORPHAN_FILE_HOLE, "orphan_file_hole", P5, ERR, E4R_ANS_FIX, 0,
	    FIX(ORPHAN_FILE_RECREATE), PH(LATE),
	    PM_("the orphan file (inode %i) has a hole at block %e")),
	ROW(E4R_PR_ORPHAN_FILE_CSUM, "orphan_file_csum", P5, ERR, E4R_ANS_FIX, 0,
	    FIX(ORPHAN_BLOCK), PH(NOW),
	    PM_("orphan file (inode %i) block %e (block %b) has a bad magic number or checksum")),
	ROW(E4R_PR_ORPHAN_FILE_ENTRY, "orphan_file_entry", P5, ERR, E4R_ANS_CLEAR, 0,
	    FIX(ORPHAN_BLOCK), PH(NOW),
	    PM_("orphan file (inode %i) block %e (block %b) is not clean: it lists inode %f")),
	ROW(E4R_PR_ORPHAN_FILE_ENTRY_RANGE, "orphan_file_entry_range", P5, ERR, E4R_ANS_CLEAR, 0,
	    FIX(ORPHAN_BLOCK), PH(NOW),
	    PM_("orphan file (inode %i) block %e (block %b) lists inode %f, which is out of range")),
	ROW(E4R_PR_ORPHAN_PRESENT_CLEAN, "orphan_present_clean", P5, ERR, E4R_ANS_CLEAR, PREEN,
	    FIX(ORPHAN_PRESENT_OFF), PH(NOW),
	    PM_("the orphan_present feature is set but the orphan file (inode %i) is clean")),
	ROW(E4R_PR_ORPHAN_PRESENT_NO_FILE, "orphan_present_no_file", P5, ERR, E4R_ANS_CLEAR, PREEN,
	    FIX(ORPHAN_PRESENT_OFF), PH(NOW),
	    PM_("the orphan_present feature is set but the orphan_file feature is not")),
	ROW(E4R_PR_ORPHAN_FILE_NOT_CLEAR, "orphan_file_not_clear", P5, ERR, E4R_ANS_CLEAR, 0,
	    FIX(ORPHAN_FILE_REMOVE), PH(NOW),
	    PM_("orphan file inode %i is not in use (no orphan_file feature), but contains data")),
	/*
	 * e2fsck -n skips a quota file whose magic it does not recognize without
	 * a word: not an error of the verdict. e2fsck -y leaves it as it is too
	 * (1.47.0): it may be no quota file of ours. Not fixable. (An unknown
	 * version under the right magic is quota_version's.)
	 */
	ROW(E4R_PR_QUOTA_HEADER, "quota_header", P5, WARN, E4R_ANS_NONE, 0,
	    FIX(NONE), PH(NONE),
	    PM_("the %n quota file (inode %i) has a wrong magic number: its usage was not compared")),
	ROW(E4R_PR_EA_REFCOUNT, "ea_refcount", P1, ERR, E4R_ANS_FIX, PREEN | CLOSED,
	    FIX(EA_REFCOUNT), PH(NOW),
	    PM_("extended attribute block %b has reference count %f, should be %e (first used by inode %i)")),
	ROW(E4R_PR_EA_ENTRY_BOUNDS, "ea_entry_bounds", P1, ERR, E4R_ANS_CLEAR, DROPS_BLOCKS,
	    FIX(EA_CLEAR), PH(NOW),
	    PM_("extended attribute block %b (inode %i): the entry at offset %f or its value leaves the block or overlaps another")),
	ROW(E4R_PR_EA_ENTRY_NAME, "ea_entry_name", P1, ERR, E4R_ANS_CLEAR, DROPS_BLOCKS,
	    FIX(EA_CLEAR), PH(NOW),
	    PM_("extended attribute block %b (inode %i): the entry at offset %f has no name index")),
	ROW(E4R_PR_EA_ENTRY_VALUE, "ea_entry_value", P1, ERR, E4R_ANS_CLEAR, DROPS_BLOCKS,
	    FIX(EA_CLEAR), PH(NOW),
	    PM_("extended attribute block %b (inode %i): the value of the entry at offset %f ends past the block")),
	ROW(E4R_PR_EA_ENTRY_HASH, "ea_entry_hash", P1, ERR, E4R_ANS_CLEAR, DROPS_BLOCKS,
	    FIX(EA_CLEAR), PH(NOW),
	    PM_("extended attribute block %b (inode %i): the entry at offset %f has a wrong hash")),
	ROW(E4R_PR_JOURNAL_COPY, "journal_copy", P2, WARN, E4R_ANS_FIX, 0,
	    FIX(JOURNAL_COPY), PH(RESTORE),
	    PM_("block %b is damaged; the journal holds a copy that passes the checks (transaction %f): restore it")),
	/*
	 * e2fsck's first answer to both flags: an extent header in i_block makes
	 * it an extent file. A directory's entries were read as inline data:
	 * what pass 2 found in them waits for the check through the extent map.
	 */
	ROW(E4R_PR_INLINE_FLAG_EXTENTS, "inline_flag_extents", P1, ERR, E4R_ANS_FIX, REMAPS,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i has the inline data flag, but i_block holds an extent tree (the inline data flag is cleared)")),
	/* e2fsck's answers to map flags a file cannot have, before anything else reads the inode */
	/*
	 * e2fsck marks this one PR_NO_OK, yet -n always ends damaged: the inline
	 * data flag it comes with has no system.data on a device (truncated),
	 * and the extents flag makes the device illegal in pass 2. Preen answers no.
	 */
	ROW(E4R_PR_SPECIAL_MAP_FLAGS, "special_map_flags", P1, ERR, E4R_ANS_CLEAR, 0,
	    FIX(INODE), PH(NOW),
	    PM_("special (device/socket/fifo) inode %i has the extents or inline data flag (the flags are cleared)")),
	ROW(E4R_PR_EXTENTS_FLAG_INLINE, "extents_flag_inline", P1, ERR, E4R_ANS_FIX, 0,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i has the inline data and extents flags and is small enough for inline data (the extents flag is cleared)")),
	ROW(E4R_PR_MAP_FLAGS_BLOCK_MAP, "map_flags_block_map", P1, ERR, E4R_ANS_FIX, 0,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i has the inline data and extents flags, but i_block holds a block map (both flags are cleared)")),
	ROW(E4R_PR_MAP_FLAGS_JUNK, "map_flags_junk", P1, ERR, E4R_ANS_CLEAR, REMAPS,
	    FIX(INODE_CLEAR), PH(NOW),
	    PM_("inode %i has the inline data and extents flags, and i_block holds neither inline data, an extent tree nor a block map")),
	ROW(E4R_PR_EXTENTS_FLAG_UNSET, "extents_flag_unset", P1, ERR, E4R_ANS_FIX, PREEN,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i has no extents flag, but i_block holds an extent tree (the flag is set)")),
	ROW(E4R_PR_TREAT_AS_DIR, "treat_as_dir", P1, ERR, E4R_ANS_FIX, 0,
	    FIX(INODE), PH(NOW),
	    PM_("inode %i has mode %o, but its first block is a directory's (it becomes a directory)")),
	/* the kernel cannot give a block-mapped file clusters: e2fsck rebuilds its map as extents */
	ROW(E4R_PR_BIGALLOC_BLOCK_MAP, "bigalloc_block_map", P1, ERR, E4R_ANS_FIX, 0,
	    FIX(INODE), PH(LATE),
	    PM_("inode %i has a block map on a bigalloc filesystem (its map is rebuilt as extents)")),
	/* found only when repairing: e2fsck -n says nothing of it (pass 2 reports the hole) */
	ROW(E4R_PR_DIR_EXTENT_GAP, "dir_extent_gap", P1, ERR, E4R_ANS_FIX, ASK_FIRST,
	    FIX(DIR_EXTENT_GAP), PH(NOW),
	    PM_("directory inode %i: its block %f should be at block %e (a gap before it)")),
	/*
	 * e2fsck cannot open a quota file whose version it does not know, and
	 * rewrites it from the usage it counted (the limits the file may hold
	 * are not read: a version we do not know, as e2fsck's -y loses them).
	 * e2fsck -p rewrites it too. A wrong magic is quota_header's: e2fsck -n
	 * says nothing of it.
	 */
	ROW(E4R_PR_QUOTA_VERSION, "quota_version", P5, ERR, E4R_ANS_FIX, PREEN,
	    FIX(QUOTA_REWRITE), PH(LATE),
	    PM_("the %n quota file (inode %i) has version %f, which is not known (should be %e): its usage was not compared")),
};

const struct check_problem_info *check_problem_info(enum check_problem code)
{
	if ((unsigned)code >= E4R_PR_COUNT || table[code].name == NULL)
		return NULL;
	return &table[code];
}

struct check_finding check_finding_init(enum check_problem code)
{
	struct check_finding f = {
		.code = code, .group = E4R_NONE, .ino = E4R_NONE, .blk = E4R_NONE,
		.dir = E4R_NONE, .expected = E4R_NONE, .found = E4R_NONE, .name = NULL,
		.qid = E4R_NONE,
	};
	return f;
}

int check_same_finding(const struct check_finding *a, const struct check_finding *b)
{
	return a->code == b->code && a->group == b->group && a->ino == b->ino &&
	       a->blk == b->blk && a->dir == b->dir && a->qid == b->qid &&
	       (a->name == b->name || (a->name && b->name && !strcmp(a->name, b->name)));
}

int check_problem_fixable(enum check_problem code)
{
	const struct check_problem_info *p = check_problem_info(code);

	return p && p->answer != E4R_ANS_NONE && p->answer != E4R_ANS_IGNORE;
}

const char *check_problem_question(enum check_problem code)
{
	const struct check_problem_info *p = check_problem_info(code);

	switch (p ? p->answer : E4R_ANS_NONE) {
	case E4R_ANS_FIX:	return N_("Fix");
	case E4R_ANS_CLEAR:	return N_("Clear");
	case E4R_ANS_IGNORE:	return N_("Ignore");
	case E4R_ANS_CLONE:	return N_("Clone multiply-claimed blocks");
	case E4R_ANS_RELOCATE:	return N_("Relocate");
	case E4R_ANS_DELETE:	return N_("Delete file");
	default:		return NULL;
	}
}
