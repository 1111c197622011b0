/* The checker's problem table: one row per problem code, in code order. */
#include "config.h"

#include "check/check.h"
#include "check/problem.h"

#define N_(s) s

#define ROW(c, n, p, s, a, f, fx, ph, m) [c] = { c, n, p, s, a, f, fx, ph, m }
#define FIX(x)	E4R_FIX_##x
#define PH(x)	E4R_PHASE_##x
#define ERR	E4R_SEV_ERROR
#define WARN	E4R_SEV_WARNING
#define INFO	E4R_SEV_INFO
#define PREEN	E4R_PF_PREEN_OK
#define P0	E4R_PASS_SUPER
#define P1	E4R_PASS_INODES
#define P2	E4R_PASS_DIRS
#define P3	E4R_PASS_CONNECT
#define P4	E4R_PASS_LINKS
#define P5	E4R_PASS_BITMAPS

static const struct check_problem_info table[E4R_PR_COUNT] = {
	ROW(E4R_PR_JOURNAL_SKIPPED, "journal_skipped", P0, INFO, E4R_ANS_NONE, 0, FIX(NONE), PH(NONE),
	    N_("skipping journal recovery because doing a read-only filesystem check")),
	ROW(E4R_PR_ERRORS_FLAG, "errors_flag", P0, INFO, E4R_ANS_NONE, 0, FIX(NONE), PH(NONE),
	    N_("the filesystem is marked as having errors")),
	ROW(E4R_PR_SB_CSUM, "sb_csum", P0, ERR, E4R_ANS_FIX, PREEN, FIX(SUMMARIES), PH(SUMMARY),
	    N_("superblock checksum does not match (stored %f, computed %e)")),
	ROW(E4R_PR_SB_INODES_COUNT, "sb_inodes_count", P0, ERR, E4R_ANS_FIX, 0, FIX(SB_INODES_COUNT), PH(NOW_REBUILD),
	    N_("superblock inode count is %f, should be %e (inodes per group times groups)")),
	ROW(E4R_PR_SB_FIRST_DATA_BLOCK, "sb_first_data_block", P0, ERR, E4R_ANS_NONE, 0, FIX(NONE), PH(NONE),
	    N_("superblock first data block is %f, should be %e")),
	ROW(E4R_PR_SB_FREE_BLOCKS_RANGE, "sb_free_blocks_range", P0, ERR, E4R_ANS_FIX, PREEN, FIX(SUMMARIES), PH(SUMMARY),
	    N_("superblock free blocks count %f is larger than the block count %e")),
	ROW(E4R_PR_SB_FREE_INODES_RANGE, "sb_free_inodes_range", P0, ERR, E4R_ANS_FIX, PREEN, FIX(SUMMARIES), PH(SUMMARY),
	    N_("superblock free inodes count %f is larger than the inode count %e")),
	ROW(E4R_PR_SB_ORPHAN_HEAD, "sb_orphan_head", P0, WARN, E4R_ANS_CLEAR, PREEN, FIX(ORPHAN_LIST_CLEAR), PH(NOW),
	    N_("orphan list head inode %i is out of range")),
	ROW(E4R_PR_GD_CSUM, "gd_csum", P0, WARN, E4R_ANS_FIX, PREEN, FIX(SUMMARIES), PH(SUMMARY),
	    N_("group %g descriptor checksum does not match (stored %f, computed %e)")),
	ROW(E4R_PR_GD_BLOCK_BITMAP, "gd_block_bitmap", P0, ERR, E4R_ANS_FIX, 0, FIX(RELOCATE_BITMAP), PH(NOW_REBUILD),
	    N_("block bitmap of group %g is at block %b, outside the filesystem or its group")),
	ROW(E4R_PR_GD_INODE_BITMAP, "gd_inode_bitmap", P0, ERR, E4R_ANS_FIX, 0, FIX(RELOCATE_BITMAP), PH(NOW_REBUILD),
	    N_("inode bitmap of group %g is at block %b, outside the filesystem or its group")),
	ROW(E4R_PR_GD_INODE_TABLE, "gd_inode_table", P0, ERR, E4R_ANS_NONE, 0, FIX(NONE), PH(NONE),
	    N_("inode table of group %g at block %b does not fit in the filesystem or its group")),
	ROW(E4R_PR_GD_META_OVERLAP, "gd_meta_overlap", P0, ERR, E4R_ANS_FIX, 0, FIX(RELOCATE_BITMAP), PH(NOW_REBUILD),
	    N_("metadata of group %g at block %b overlaps other filesystem metadata")),
	ROW(E4R_PR_GD_UNUSED_INODES, "gd_unused_inodes", P0, ERR, E4R_ANS_FIX, PREEN, FIX(SUMMARIES), PH(SUMMARY),
	    N_("group %g unused inodes count %f is larger than its free inodes count %e")),
	ROW(E4R_PR_GD_UNINIT_NO_CSUM, "gd_uninit_no_csum", P0, ERR, E4R_ANS_FIX, PREEN, FIX(UNINIT_FLAGS), PH(SUMMARY),
	    N_("group %g has uninit flags %f but the filesystem has no group descriptor checksums")),
	ROW(E4R_PR_SB_FIRST_META_BG, "sb_first_meta_bg", P0, WARN, E4R_ANS_NONE, 0, FIX(NONE), PH(NONE),
	    N_("first_meta_bg is too big (%f, max value %e)")),
	ROW(E4R_PR_JOURNAL_BAD, "journal_bad", P0, ERR, E4R_ANS_CLEAR, 0, FIX(JOURNAL_CLEAR), PH(NOW),
	    N_("the journal (inode %i) is invalid: %x")),
	ROW(E4R_PR_JOURNAL_SB_CSUM, "journal_sb_csum", P0, ERR, E4R_ANS_CLEAR, 0, FIX(JOURNAL_CLEAR), PH(NOW),
	    N_("the journal superblock checksum does not match (stored %f, computed %e)")),
	ROW(E4R_PR_SB_RESIZE_META_BG, "sb_resize_meta_bg", P0, ERR, E4R_ANS_FIX, 0, FIX(RESIZE_INODE_OFF), PH(NOW),
	    N_("the resize_inode and meta_bg features are both set; they do not go together")),

	ROW(E4R_PR_INODE_CSUM, "inode_csum", P1, ERR, E4R_ANS_FIX, PREEN, FIX(INODE), PH(NOW),
	    N_("inode %i passes checks, but its checksum does not match")),
	ROW(E4R_PR_INODE_BAD_MODE, "inode_bad_mode", P1, ERR, E4R_ANS_CLEAR, 0, FIX(INODE_CLEAR), PH(NOW),
	    N_("inode %i has an invalid mode (%o)")),
	ROW(E4R_PR_INODE_DTIME_SET, "inode_dtime_set", P1, ERR, E4R_ANS_FIX, PREEN, FIX(INODE), PH(NOW),
	    N_("inode %i is in use, but has its deletion time set (%f)")),
	ROW(E4R_PR_INODE_ZERO_DTIME, "inode_zero_dtime", P1, ERR, E4R_ANS_FIX, PREEN, FIX(INODE), PH(NOW),
	    N_("deleted inode %i has a zero deletion time")),
	ROW(E4R_PR_ORPHAN_LIST, "orphan_list", P1, ERR, E4R_ANS_CLEAR, PREEN, FIX(INODE), PH(NOW),
	    N_("inode %i was part of the orphaned inode list (next %f)")),
	ROW(E4R_PR_ROOT_NOT_DIR, "root_not_dir", P1, ERR, E4R_ANS_CLEAR, 0, FIX(INODE_CLEAR), PH(NOW),
	    N_("root inode %i is not a directory (mode %o)")),
	ROW(E4R_PR_RESERVED_MODE, "reserved_mode", P1, ERR, E4R_ANS_CLEAR, PREEN, FIX(INODE), PH(NOW),
	    N_("reserved inode %i has a bad mode (%o)")),
	ROW(E4R_PR_EXTENTS_NO_FEATURE, "extents_no_feature", P1, ERR, E4R_ANS_CLEAR, 0, FIX(INODE_CLEAR), PH(NOW),
	    N_("inode %i has the extents flag set on a filesystem without the extent feature")),
	ROW(E4R_PR_EXTENT_HEADER, "extent_header", P1, ERR, E4R_ANS_CLEAR, 0, FIX(INODE_CLEAR), PH(NOW),
	    N_("inode %i has a corrupt extent header")),
	ROW(E4R_PR_EXTENT_NODE, "extent_node", P1, ERR, E4R_ANS_CLEAR, 0, FIX(INODE_CLEAR), PH(NOW),
	    N_("inode %i has a corrupt extent tree node below block %b")),
	ROW(E4R_PR_EXTENT_CSUM, "extent_csum", P1, ERR, E4R_ANS_FIX, PREEN, FIX(EXTENT_CSUM), PH(NOW),
	    N_("inode %i extent tree block %b checksum does not match")),
	ROW(E4R_PR_EXTENT_BAD, "extent_bad", P1, ERR, E4R_ANS_CLEAR, 0, FIX(BLOCK_MAP), PH(NOW),
	    N_("inode %i has an invalid extent: logical block %e, physical block %b, length %f")),
	ROW(E4R_PR_EXTENT_ORDER, "extent_order", P1, ERR, E4R_ANS_CLEAR, 0, FIX(BLOCK_MAP), PH(NOW),
	    N_("inode %i extent tree is out of order or overlaps at logical block %f (expected at least %e)")),
	ROW(E4R_PR_EXTENT_TOO_DEEP, "extent_too_deep", P1, ERR, E4R_ANS_CLEAR, 0, FIX(INODE_CLEAR), PH(NOW),
	    N_("inode %i extent tree claims %f levels; no tree of this block size needs more than %e")),
	ROW(E4R_PR_BLOCK_ILLEGAL, "block_illegal", P1, ERR, E4R_ANS_CLEAR, 0, FIX(BLOCK_MAP), PH(NOW),
	    N_("inode %i claims illegal block %b (outside the filesystem) at logical block %e")),
	ROW(E4R_PR_BLOCK_METADATA, "block_metadata", P1, ERR, E4R_ANS_CLEAR, 0, FIX(BLOCK_MAP), PH(NOW),
	    N_("inode %i claims %f block(s) of filesystem metadata, the first block %b (group %g)")),
	ROW(E4R_PR_BLOCK_DUP, "block_dup", P1, ERR, E4R_ANS_CLONE, 0, FIX(CLONE), PH(CLONE),
	    N_("inode %i claims block %b, which another inode also claims (%f multiply-claimed blocks in this inode)")),
	ROW(E4R_PR_TOO_MANY_BAD_BLOCKS, "too_many_bad_blocks", P1, ERR, E4R_ANS_CLEAR, 0, FIX(INODE_CLEAR), PH(NOW),
	    N_("inode %i has too many illegal blocks; the rest of its map was not checked")),
	ROW(E4R_PR_I_BLOCKS, "i_blocks", P1, ERR, E4R_ANS_FIX, PREEN, FIX(INODE), PH(NOW),
	    N_("inode %i i_blocks is %f, should be %e")),
	ROW(E4R_PR_I_SIZE, "i_size", P1, ERR, E4R_ANS_FIX, PREEN, FIX(INODE), PH(NOW),
	    N_("inode %i i_size is %f, should be %e")),
	ROW(E4R_PR_DIR_NO_BLOCKS, "dir_no_blocks", P1, ERR, E4R_ANS_CLEAR, 0, FIX(INODE_CLEAR), PH(NOW),
	    N_("directory inode %i has no blocks (size %f)")),
	ROW(E4R_PR_FAST_SYMLINK, "symlink_invalid", P1, ERR, E4R_ANS_CLEAR, 0, FIX(INODE_CLEAR), PH(NOW),
	    N_("symlink inode %i is invalid (size %f)")),
	ROW(E4R_PR_SPECIAL_FILE, "special_file", P1, ERR, E4R_ANS_CLEAR, 0, FIX(INODE_CLEAR), PH(NOW),
	    N_("special (device/socket/fifo) inode %i has a non-zero block map or bad flags")),
	ROW(E4R_PR_EA_BLOCK, "ea_block", P1, ERR, E4R_ANS_CLEAR, 0, FIX(INODE), PH(NOW),
	    N_("inode %i has a bad extended attribute block %b")),
	ROW(E4R_PR_INLINE_DATA, "inline_data", P1, ERR, E4R_ANS_CLEAR, 0, FIX(INODE_CLEAR), PH(NOW),
	    N_("inode %i has inline data, but the filesystem has no inline_data feature")),
	ROW(E4R_PR_INODE_SCAN, "inode_scan", P1, ERR, E4R_ANS_NONE, 0, FIX(NONE), PH(NONE),
	    N_("could not read inodes of group %g (the inode table at block %b)")),
	ROW(E4R_PR_DIR_TOO_BIG, "dir_too_big", P1, ERR, E4R_ANS_CLEAR, 0, FIX(INODE_CLEAR), PH(NOW),
	    N_("directory inode %i has logical block %e, past the largest size a directory may have")),
	ROW(E4R_PR_IMAGIC_FLAG, "imagic_flag", P1, ERR, E4R_ANS_CLEAR, PREEN, FIX(INODE), PH(NOW),
	    N_("inode %i has the imagic flag set, but the filesystem has no imagic_inodes feature")),
	ROW(E4R_PR_SPECIAL_FLAGS, "special_flags", P1, ERR, E4R_ANS_CLEAR, PREEN, FIX(INODE), PH(NOW),
	    N_("special (device/socket/fifo/symlink) inode %i has the immutable or append-only flag set")),
	ROW(E4R_PR_SPECIAL_SIZE, "special_size", P1, ERR, E4R_ANS_FIX, PREEN, FIX(INODE), PH(NOW),
	    N_("special (device/socket/fifo) inode %i has a non-zero size %f")),
	ROW(E4R_PR_DIR_UNINIT_EXTENT, "dir_uninit_extent", P1, ERR, E4R_ANS_FIX, PREEN, FIX(DIR_UNINIT), PH(NOW),
	    N_("directory inode %i has an extent marked uninitialized at logical block %e (block %b)")),
	ROW(E4R_PR_BAD_BLOCK_BITMAP, "bad_block_bitmap", P1, ERR, E4R_ANS_RELOCATE, 0, FIX(RELOCATE_BITMAP), PH(NOW_REBUILD),
	    N_("the bitmap of group %g at block %b is in the bad blocks list")),
	ROW(E4R_PR_BAD_BLOCKS_INODE, "bad_blocks_inode", P1, ERR, E4R_ANS_CLEAR, 0, FIX(BAD_BLOCKS_INODE), PH(ALONE),
	    N_("the bad blocks inode %i is invalid (its fields, or its list names the block holding it)")),

	ROW(E4R_PR_DIR_CSUM, "dir_csum", P2, ERR, E4R_ANS_FIX, PREEN, FIX(DIR_BLOCK), PH(NOW),
	    N_("directory inode %d block %b (logical %e) checksum does not match")),
	ROW(E4R_PR_DIR_CORRUPT, "dir_corrupt", P2, ERR, E4R_ANS_FIX, 0, FIX(DIR_BLOCK), PH(FIRST),
	    N_("directory inode %d block %b has a corrupt entry at offset %f (bad record or name length)")),
	ROW(E4R_PR_DIR_READ, "dir_read", P2, ERR, E4R_ANS_NONE, 0, FIX(NONE), PH(NONE),
	    N_("could not read directory inode %d block %b")),
	ROW(E4R_PR_NO_DOT, "no_dot", P2, ERR, E4R_ANS_FIX, 0, FIX(DOT), PH(NOW),
	    N_("missing '.' in directory inode %d")),
	ROW(E4R_PR_BAD_DOT, "bad_dot", P2, ERR, E4R_ANS_FIX, 0, FIX(DOT), PH(NOW),
	    N_("'.' in directory inode %d points to inode %f, should be %e")),
	ROW(E4R_PR_NO_DOTDOT, "no_dotdot", P2, ERR, E4R_ANS_FIX, 0, FIX(DOT), PH(NOW),
	    N_("missing '..' in directory inode %d")),
	ROW(E4R_PR_ENTRY_BAD_INODE, "entry_bad_inode", P2, ERR, E4R_ANS_CLEAR, 0, FIX(DIR_ENTRY), PH(NOW),
	    N_("entry '%n' in directory inode %d has a bad inode number %i")),
	ROW(E4R_PR_ENTRY_UNUSED_INODE, "entry_unused_inode", P2, ERR, E4R_ANS_CLEAR, 0, FIX(DIR_ENTRY), PH(NOW),
	    N_("entry '%n' in directory inode %d points to deleted or unused inode %i")),
	ROW(E4R_PR_ENTRY_UNINIT_INODE, "entry_uninit_inode", P2, ERR, E4R_ANS_FIX, 0, FIX(UNINIT_ENTRY), PH(NOW_REBUILD),
	    N_("entry '%n' in directory inode %d points to inode %i in the unused area of group %g")),
	ROW(E4R_PR_ENTRY_BAD_TARGET, "entry_bad_target", P2, ERR, E4R_ANS_CLEAR, 0, FIX(DIR_ENTRY), PH(NOW),
	    N_("entry '%n' in directory inode %d points to inode %i, which pass 1 found broken")),
	ROW(E4R_PR_ENTRY_FILETYPE, "entry_filetype", P2, ERR, E4R_ANS_FIX, PREEN, FIX(DIR_ENTRY), PH(NOW),
	    N_("entry '%n' in directory inode %d (inode %i) has file type %f, should be %e")),
	ROW(E4R_PR_ENTRY_NAME, "entry_name", P2, ERR, E4R_ANS_FIX, 0, FIX(DIR_ENTRY), PH(NOW),
	    N_("entry '%n' in directory inode %d (inode %i) has an illegal character or length in its name")),
	ROW(E4R_PR_ENTRY_DOT_NAME, "entry_dot_name", P2, ERR, E4R_ANS_CLEAR, 0, FIX(DIR_ENTRY), PH(NOW),
	    N_("entry '%n' in directory inode %d is a '.' or '..' entry in the wrong place")),
	ROW(E4R_PR_ENTRY_ROOT, "entry_root", P2, ERR, E4R_ANS_CLEAR, 0, FIX(DIR_ENTRY), PH(NOW),
	    N_("entry '%n' in directory inode %d is a link to the root inode")),
	ROW(E4R_PR_DIR_HARDLINK, "dir_hardlink", P2, ERR, E4R_ANS_CLEAR, 0, FIX(DIR_ENTRY), PH(NOW),
	    N_("entry '%n' in directory inode %d is a link to directory inode %i, already in directory %e")),
	ROW(E4R_PR_HTREE_ROOT, "htree_root", P2, ERR, E4R_ANS_FIX, 0, FIX(HTREE_FLAG), PH(NOW),
	    N_("directory inode %d has a bad htree root (block %b)")),
	ROW(E4R_PR_HTREE_NODE, "htree_node", P2, ERR, E4R_ANS_FIX, 0, FIX(HTREE_FLAG), PH(NOW),
	    N_("directory inode %d has a bad htree interior node at logical block %f (block %b)")),
	ROW(E4R_PR_HTREE_NO_FEATURE, "htree_no_feature", P2, ERR, E4R_ANS_FIX, PREEN, FIX(HTREE_FLAG), PH(NOW),
	    N_("directory inode %d has the htree flag set but the filesystem has no dir_index feature")),
	ROW(E4R_PR_DIR_HOLE, "dir_hole", P2, ERR, E4R_ANS_FIX, 0, FIX(DIR_HOLE), PH(LATE),
	    N_("directory inode %d has a hole at logical block %e")),
	ROW(E4R_PR_ENTRY_ENCODING, "entry_encoding", P2, ERR, E4R_ANS_FIX, 0, FIX(DIR_ENTRY), PH(NOW),
	    N_("entry '%n' in casefolded directory inode %d (inode %i) has illegal UTF-8 characters in its name")),
	ROW(E4R_PR_HTREE_HASH, "htree_hash", P2, ERR, E4R_ANS_FIX, 0, FIX(HTREE_FLAG), PH(NOW),
	    N_("entry '%n' in htree directory inode %d, logical block %e (block %b), has hash %f outside the range its index gives the block")),

	ROW(E4R_PR_NO_ROOT, "no_root", P3, ERR, E4R_ANS_FIX, 0, FIX(ROOT), PH(LATE),
	    N_("root inode is not allocated")),
	ROW(E4R_PR_UNCONNECTED_DIR, "unconnected_dir", P3, ERR, E4R_ANS_FIX, 0, FIX(RECONNECT_DIR), PH(LATE),
	    N_("directory inode %i is not connected to the root ('..' is %f)")),
	ROW(E4R_PR_BAD_DOTDOT, "bad_dotdot", P3, ERR, E4R_ANS_FIX, 0, FIX(DOTDOT), PH(NOW),
	    N_("'..' in directory inode %i is %f, should be %e")),
	ROW(E4R_PR_NO_LPF, "no_lost_found", P3, INFO, E4R_ANS_FIX, 0, FIX(LOST_FOUND), PH(LATE),
	    N_("/lost+found not found")),
	ROW(E4R_PR_LPF_NOT_DIR, "lost_found_not_dir", P3, ERR, E4R_ANS_FIX, 0, FIX(LOST_FOUND), PH(LATE),
	    N_("/lost+found (inode %i) is not a directory")),
	ROW(E4R_PR_DIR_LOOP, "dir_loop", P3, ERR, E4R_ANS_FIX, 0, FIX(RECONNECT_DIR), PH(LATE),
	    N_("directory inode %i is part of a loop of directories, not reachable from the root")),

	ROW(E4R_PR_LINK_COUNT, "link_count", P4, ERR, E4R_ANS_FIX, PREEN, FIX(INODE), PH(NOW),
	    N_("inode %i ref count is %f, should be %e")),
	ROW(E4R_PR_UNATTACHED, "unattached", P4, ERR, E4R_ANS_FIX, 0, FIX(RECONNECT_FILE), PH(LATE),
	    N_("unattached inode %i (no directory entry refers to it)")),
	ROW(E4R_PR_UNATTACHED_ZERO, "unattached_zero", P4, ERR, E4R_ANS_CLEAR, PREEN, FIX(INODE_CLEAR), PH(NOW),
	    N_("unattached zero-length inode %i")),
	ROW(E4R_PR_DIR_NLINK_FEATURE, "dir_nlink_feature", P4, ERR, E4R_ANS_FIX, PREEN, FIX(DIR_NLINK_FEATURE), PH(NOW),
	    N_("directory inode %i has more than 65000 links, but the filesystem has no dir_nlink feature")),

	ROW(E4R_PR_BLOCK_NOT_MARKED, "block_not_marked", P5, ERR, E4R_ANS_FIX, PREEN, FIX(SUMMARIES), PH(SUMMARY),
	    N_("block bitmap differences: +%r (in use, marked free)")),
	ROW(E4R_PR_BLOCK_MARKED_FREE, "block_marked_unused", P5, ERR, E4R_ANS_FIX, PREEN, FIX(SUMMARIES), PH(SUMMARY),
	    N_("block bitmap differences: -%r (marked in use, not used)")),
	ROW(E4R_PR_INODE_NOT_MARKED, "inode_not_marked", P5, ERR, E4R_ANS_FIX, PREEN, FIX(SUMMARIES), PH(SUMMARY),
	    N_("inode bitmap differences: +%R (in use, marked free)")),
	ROW(E4R_PR_INODE_MARKED_FREE, "inode_marked_unused", P5, ERR, E4R_ANS_FIX, PREEN, FIX(SUMMARIES), PH(SUMMARY),
	    N_("inode bitmap differences: -%R (marked in use, not used)")),
	ROW(E4R_PR_GROUP_FREE_BLOCKS, "group_free_blocks", P5, ERR, E4R_ANS_FIX, PREEN, FIX(SUMMARIES), PH(SUMMARY),
	    N_("free blocks count wrong for group %g (%f, counted=%e in its bitmap)")),
	ROW(E4R_PR_GROUP_FREE_INODES, "group_free_inodes", P5, ERR, E4R_ANS_FIX, PREEN, FIX(SUMMARIES), PH(SUMMARY),
	    N_("free inodes count wrong for group %g (%f, counted=%e in its bitmap)")),
	ROW(E4R_PR_GROUP_DIRS, "group_dirs", P5, ERR, E4R_ANS_FIX, PREEN, FIX(SUMMARIES), PH(SUMMARY),
	    N_("directories count wrong for group %g (%f, counted=%e)")),
	ROW(E4R_PR_GROUP_UNUSED_INODES, "group_unused_inodes", P5, ERR, E4R_ANS_FIX, PREEN, FIX(SUMMARIES), PH(SUMMARY),
	    N_("group %g unused inodes count is %f, but inode %i is in use")),
	ROW(E4R_PR_SB_FREE_BLOCKS, "sb_free_blocks", P5, WARN, E4R_ANS_FIX, PREEN, FIX(SUMMARIES), PH(SUMMARY),
	    N_("free blocks count wrong (%f, counted=%e in the bitmaps)")),
	ROW(E4R_PR_SB_FREE_INODES, "sb_free_inodes", P5, WARN, E4R_ANS_FIX, PREEN, FIX(SUMMARIES), PH(SUMMARY),
	    N_("free inodes count wrong (%f, counted=%e in the bitmaps)")),
	ROW(E4R_PR_BLOCK_BITMAP_CSUM, "block_bitmap_csum", P5, ERR, E4R_ANS_FIX, PREEN, FIX(SUMMARIES), PH(SUMMARY),
	    N_("block bitmap of group %g (block %b) does not match its checksum")),
	ROW(E4R_PR_INODE_BITMAP_CSUM, "inode_bitmap_csum", P5, ERR, E4R_ANS_FIX, PREEN, FIX(SUMMARIES), PH(SUMMARY),
	    N_("inode bitmap of group %g (block %b) does not match its checksum")),
	ROW(E4R_PR_BITMAP_READ, "bitmap_read", P5, ERR, E4R_ANS_FIX, 0, FIX(SUMMARIES), PH(SUMMARY),
	    N_("could not read the on-disk bitmaps; bitmap differences were not checked")),
	ROW(E4R_PR_INODE_BITMAP_PADDING, "inode_bitmap_padding", P5, ERR, E4R_ANS_FIX, PREEN, FIX(SUMMARIES), PH(SUMMARY),
	    N_("padding at end of an inode bitmap block is not set")),
	ROW(E4R_PR_BLOCK_BITMAP_PADDING, "block_bitmap_padding", P5, ERR, E4R_ANS_FIX, PREEN, FIX(SUMMARIES), PH(SUMMARY),
	    N_("padding at end of a block bitmap block is not set")),

	ROW(E4R_PR_TOO_MANY, "too_many_findings", P0, INFO, E4R_ANS_NONE, 0, FIX(NONE), PH(NONE),
	    N_("too many problems: %f more were found but not listed")),

	ROW(E4R_PR_QUOTA_INODE_INVALID, "quota_inode_invalid", P0, ERR, E4R_ANS_CLEAR, 0, FIX(QUOTA_INODE_OFF), PH(NOW),
	    N_("the %n quota inode %i is invalid (a reserved inode or out of range)")),
	ROW(E4R_PR_QUOTA_FILE_BAD, "quota_file_bad", P5, ERR, E4R_ANS_FIX, 0, FIX(QUOTA_REWRITE), PH(LATE),
	    N_("the %n quota file (inode %i) cannot be read: %x")),
	ROW(E4R_PR_QUOTA_SPACE, "quota_space", P5, ERR, E4R_ANS_FIX, 0, FIX(QUOTA_REWRITE), PH(LATE),
	    N_("%n quota id %q: the quota file (inode %i) records %f bytes in use, counted %e")),
	ROW(E4R_PR_QUOTA_INODES, "quota_inodes", P5, ERR, E4R_ANS_FIX, 0, FIX(QUOTA_REWRITE), PH(LATE),
	    N_("%n quota id %q: the quota file (inode %i) records %f inodes in use, counted %e")),
	ROW(E4R_PR_QUOTA_MISSING, "quota_missing", P5, ERR, E4R_ANS_FIX, 0, FIX(QUOTA_REWRITE), PH(LATE),
	    N_("%n quota id %q has no record in the quota file (inode %i): %f inodes, %e bytes in use")),
	/* e2fsck -n does not walk the orphan list: what the walk finds leaves the verdict alone. */
	ROW(E4R_PR_ORPHAN_CHAIN_RANGE, "orphan_chain_range", P0, WARN, E4R_ANS_CLEAR, PREEN, FIX(ORPHAN_LIST_CLEAR), PH(NOW),
	    N_("orphan list: inode %i links to inode %f, which is out of range")),
	ROW(E4R_PR_ORPHAN_CHAIN_LOOP, "orphan_chain_loop", P0, WARN, E4R_ANS_CLEAR, PREEN, FIX(ORPHAN_LIST_CLEAR), PH(NOW),
	    N_("orphan list: inode %i links back to inode %f, a loop")),
	ROW(E4R_PR_ORPHAN_FILE_INODE, "orphan_file_inode", P5, ERR, E4R_ANS_FIX, 0, FIX(ORPHAN_FILE_RECREATE), PH(LATE),
	    N_("the orphan file inode %i is out of range or cannot be read")),
	ROW(E4R_PR_ORPHAN_FILE_NOT_REG, "orphan_file_not_regular", P5, ERR, E4R_ANS_FIX, 0, FIX(ORPHAN_FILE_RECREATE), PH(LATE),
	    N_("the orphan file inode %i is not a regular file (mode %o)")),
	ROW(E4R_PR_ORPHAN_FILE_HOLE, "orphan_file_hole", P5, ERR, E4R_ANS_FIX, 0, FIX(ORPHAN_FILE_RECREATE), PH(LATE),
	    N_("the orphan file (inode %i) has a hole at block %e")),
	ROW(E4R_PR_ORPHAN_FILE_CSUM, "orphan_file_csum", P5, ERR, E4R_ANS_FIX, 0, FIX(ORPHAN_BLOCK), PH(NOW),
	    N_("orphan file (inode %i) block %e (block %b) has a bad magic number or checksum")),
	ROW(E4R_PR_ORPHAN_FILE_ENTRY, "orphan_file_entry", P5, ERR, E4R_ANS_CLEAR, 0, FIX(ORPHAN_BLOCK), PH(NOW),
	    N_("orphan file (inode %i) block %e (block %b) is not clean: it lists inode %f")),
	ROW(E4R_PR_ORPHAN_FILE_ENTRY_RANGE, "orphan_file_entry_range", P5, ERR, E4R_ANS_CLEAR, 0, FIX(ORPHAN_BLOCK), PH(NOW),
	    N_("orphan file (inode %i) block %e (block %b) lists inode %f, which is out of range")),
	ROW(E4R_PR_ORPHAN_PRESENT_CLEAN, "orphan_present_clean", P5, ERR, E4R_ANS_CLEAR, PREEN, FIX(ORPHAN_PRESENT_OFF), PH(NOW),
	    N_("the orphan_present feature is set but the orphan file (inode %i) is clean")),
	ROW(E4R_PR_ORPHAN_PRESENT_NO_FILE, "orphan_present_no_file", P5, ERR, E4R_ANS_CLEAR, PREEN, FIX(ORPHAN_PRESENT_OFF), PH(NOW),
	    N_("the orphan_present feature is set but the orphan_file feature is not")),
	ROW(E4R_PR_ORPHAN_FILE_NOT_CLEAR, "orphan_file_not_clear", P5, ERR, E4R_ANS_CLEAR, 0, FIX(ORPHAN_FILE_REMOVE), PH(NOW),
	    N_("orphan file inode %i is not in use (no orphan_file feature), but contains data")),
	/* e2fsck -n skips a quota file it does not recognize without a word: not an error of the verdict. */
	ROW(E4R_PR_QUOTA_HEADER, "quota_header", P5, WARN, E4R_ANS_FIX, 0, FIX(QUOTA_REWRITE), PH(LATE),
	    N_("the %n quota file (inode %i) has a wrong magic number or an unknown version: its usage was not compared")),
	ROW(E4R_PR_EA_REFCOUNT, "ea_refcount", P1, ERR, E4R_ANS_FIX, PREEN, FIX(EA_REFCOUNT), PH(NOW),
	    N_("extended attribute block %b has reference count %f, should be %e (first used by inode %i)")),
	ROW(E4R_PR_EA_ENTRY_BOUNDS, "ea_entry_bounds", P1, ERR, E4R_ANS_CLEAR, 0, FIX(EA_CLEAR), PH(NOW),
	    N_("extended attribute block %b (inode %i): the entry at offset %f or its value leaves the block or overlaps another")),
	ROW(E4R_PR_EA_ENTRY_NAME, "ea_entry_name", P1, ERR, E4R_ANS_CLEAR, 0, FIX(EA_CLEAR), PH(NOW),
	    N_("extended attribute block %b (inode %i): the entry at offset %f has no name index")),
	ROW(E4R_PR_EA_ENTRY_VALUE, "ea_entry_value", P1, ERR, E4R_ANS_CLEAR, 0, FIX(EA_CLEAR), PH(NOW),
	    N_("extended attribute block %b (inode %i): the value of the entry at offset %f ends past the block")),
	ROW(E4R_PR_EA_ENTRY_HASH, "ea_entry_hash", P1, ERR, E4R_ANS_CLEAR, 0, FIX(EA_CLEAR), PH(NOW),
	    N_("extended attribute block %b (inode %i): the entry at offset %f has a wrong hash")),
};

const struct check_problem_info *check_problem_info(enum e4r_problem code)
{
	if ((unsigned)code >= E4R_PR_COUNT || table[code].name == NULL)
		return NULL;
	return &table[code];
}

struct e4r_finding check_finding_init(enum e4r_problem code)
{
	struct e4r_finding f = {
		.code = code, .group = E4R_NONE, .ino = E4R_NONE, .blk = E4R_NONE,
		.dir = E4R_NONE, .expected = E4R_NONE, .found = E4R_NONE, .name = NULL,
		.qid = E4R_NONE,
	};
	return f;
}

int check_problem_fixable(enum e4r_problem code)
{
	const struct check_problem_info *p = check_problem_info(code);

	return p && p->answer != E4R_ANS_NONE && p->answer != E4R_ANS_IGNORE;
}

const char *check_problem_question(enum e4r_problem code)
{
	const struct check_problem_info *p = check_problem_info(code);

	switch (p ? p->answer : E4R_ANS_NONE) {
	case E4R_ANS_FIX:	return N_("Fix");
	case E4R_ANS_CLEAR:	return N_("Clear");
	case E4R_ANS_IGNORE:	return N_("Ignore");
	case E4R_ANS_CLONE:	return N_("Clone multiply-claimed blocks");
	case E4R_ANS_RELOCATE:	return N_("Relocate");
	default:		return NULL;
	}
}
