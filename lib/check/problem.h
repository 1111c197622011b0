/* The checker's problem table and its findings: every problem has one code. */
#ifndef E4R_CHECK_PROBLEM_H
#define E4R_CHECK_PROBLEM_H

#include <stddef.h>
#include <stdint.h>
#include <ext2fs/ext2fs.h>

/*
 * Problem codes. The table (check/problem.c) gives each its stable name,
 * its message and what a repair may do with it. Add new codes at the end of
 * their pass's block; the numbers are not part of any contract, the names are.
 */
enum check_problem {
	/* Superblock and group descriptors */
	E4R_PR_JOURNAL_SKIPPED,
	E4R_PR_ERRORS_FLAG,
	E4R_PR_SB_CSUM,
	E4R_PR_SB_INODES_COUNT,
	E4R_PR_SB_FIRST_DATA_BLOCK,
	E4R_PR_SB_FREE_BLOCKS_RANGE,
	E4R_PR_SB_FREE_INODES_RANGE,
	E4R_PR_SB_ORPHAN_HEAD,
	E4R_PR_GD_CSUM,
	E4R_PR_GD_BLOCK_BITMAP,
	E4R_PR_GD_INODE_BITMAP,
	E4R_PR_GD_INODE_TABLE,
	E4R_PR_GD_META_OVERLAP,
	E4R_PR_GD_ITABLE_ORIGIN,
	E4R_PR_GD_ITABLE_CONFLICT,
	E4R_PR_GD_UNUSED_INODES,
	E4R_PR_GD_UNINIT_NO_CSUM,
	E4R_PR_SB_FIRST_META_BG,
	E4R_PR_JOURNAL_BAD,
	E4R_PR_JOURNAL_SB_CSUM,
	E4R_PR_SB_RESIZE_META_BG,
	E4R_PR_JOURNAL_EXTERNAL_MISSING,
	E4R_PR_JOURNAL_ERRNO,
	E4R_PR_SB_FEATURE_UNKNOWN,
	E4R_PR_SB_VALUE,
	E4R_PR_JOURNAL_V2_FIELDS,
	E4R_PR_RESIZE_INODE_STRAY,
	E4R_PR_RESIZE_INODE_INVALID,
	E4R_PR_FS_SIZE_WRONG,
	E4R_PR_SB_BOTH_CSUMS,
	/* Pass 1: inodes, blocks, sizes */
	E4R_PR_INODE_CSUM,
	E4R_PR_INODE_GARBAGE,
	E4R_PR_INODE_BAD_MODE,
	E4R_PR_INODE_DTIME_SET,
	E4R_PR_INODE_ZERO_DTIME,
	E4R_PR_ORPHAN_LIST,
	E4R_PR_ROOT_NOT_DIR,
	E4R_PR_RESERVED_MODE,
	E4R_PR_EXTENTS_NO_FEATURE,
	E4R_PR_EXTENT_HEADER,
	E4R_PR_EXTENT_NODE,
	E4R_PR_EXTENT_CSUM,
	E4R_PR_EXTENT_BAD,
	E4R_PR_EXTENT_ORDER,
	E4R_PR_EXTENT_TOO_DEEP,
	E4R_PR_BLOCK_ILLEGAL,
	E4R_PR_BLOCK_METADATA,
	E4R_PR_BLOCK_DUP,
	E4R_PR_DUP_CLONE_FAILED,
	E4R_PR_TOO_MANY_BAD_BLOCKS,
	E4R_PR_I_BLOCKS,
	E4R_PR_I_SIZE,
	E4R_PR_DIR_NO_BLOCKS,
	E4R_PR_FAST_SYMLINK,
	E4R_PR_SPECIAL_FILE,
	E4R_PR_EA_BLOCK,
	E4R_PR_INLINE_DATA,
	E4R_PR_INODE_SCAN,
	E4R_PR_DIR_TOO_BIG,
	E4R_PR_SYMLINK_TOO_BIG,
	E4R_PR_IMAGIC_FLAG,
	E4R_PR_SPECIAL_FLAGS,
	E4R_PR_SPECIAL_SIZE,
	E4R_PR_DIR_UNINIT_EXTENT,
	E4R_PR_BAD_BLOCK_BITMAP,
	E4R_PR_BAD_BLOCKS_INODE,
	E4R_PR_BB_PRIMARY_SUPER,
	E4R_PR_BB_PRIMARY_DESC,
	E4R_PR_BB_BACKUP_SUPER,
	E4R_PR_BB_BACKUP_DESC,
	E4R_PR_BB_INDIRECT_METADATA,
	E4R_PR_BB_INDIRECT_LISTED,
	E4R_PR_INODE_EXTRA_ISIZE,
	E4R_PR_INODE_EA_BOUNDS,
	E4R_PR_INODE_EA_HASH,
	E4R_PR_INODE_EA_VALUE,
	E4R_PR_EA_VALUE_INODE,
	E4R_PR_EA_INODE_FLAG,
	E4R_PR_INODE_EXTRA_TIME,
	E4R_PR_INODE_FADDR,
	E4R_PR_INODE_FRAG,
	E4R_PR_INODE_FSIZE,
	E4R_PR_INODE_FILE_ACL_HIGH,
	E4R_PR_INLINE_DATA_NO_ATTR,
	E4R_PR_ENCRYPT_NO_ATTR,
	E4R_PR_ENCRYPT_ATTR_BAD,
	E4R_PR_CLUSTER_MISALIGNED,
	E4R_PR_EA_INODE_REFCOUNT,
	E4R_PR_EXTENT_INDEX_START,
	E4R_PR_DIR_SIZE_HIGH,
	E4R_PR_INDEX_NOT_DIR,
	E4R_PR_CASEFOLD_NOT_DIR,
	E4R_PR_CASEFOLD_NO_FEATURE,
	/* Pass 2: directories */
	E4R_PR_DIR_CSUM,
	E4R_PR_DIR_CORRUPT,
	E4R_PR_DIR_READ,
	E4R_PR_NO_DOT,
	E4R_PR_BAD_DOT,
	E4R_PR_NO_DOTDOT,
	E4R_PR_ENTRY_BAD_INODE,
	E4R_PR_ENTRY_UNUSED_INODE,
	E4R_PR_LARGE_FILE_FEATURE,
	E4R_PR_ENTRY_UNINIT_INODE,
	E4R_PR_ENTRY_BAD_TARGET,
	E4R_PR_ENTRY_FILETYPE,
	E4R_PR_ENTRY_NAME,
	E4R_PR_ENTRY_DOT_NAME,
	E4R_PR_ENTRY_ROOT,
	E4R_PR_DIR_HARDLINK,
	E4R_PR_HTREE_ROOT,
	E4R_PR_HTREE_NODE,
	E4R_PR_HTREE_NO_FEATURE,
	E4R_PR_DIR_HOLE,
	E4R_PR_ENTRY_ENCODING,
	E4R_PR_HTREE_HASH,
	E4R_PR_HTREE_HASH_VERSION,
	E4R_PR_HTREE_INCOMPAT,
	E4R_PR_HTREE_LIMIT,
	E4R_PR_HTREE_COUNT,
	E4R_PR_HTREE_BAD_BLOCK,
	E4R_PR_HTREE_HASH_ORDER,
	E4R_PR_HTREE_DEPTH,
	E4R_PR_HTREE_NOT_REF,
	E4R_PR_HTREE_DUP_REF,
	E4R_PR_ENTRY_FILETYPE_UNSET,
	E4R_PR_ENTRY_ENCRYPTED_SHORT,
	E4R_PR_ENTRY_UNENCRYPTED,
	E4R_PR_ENTRY_DUPLICATE,
	E4R_PR_DOT_NOT_TERMINATED,
	E4R_PR_DOTDOT_NOT_TERMINATED,
	E4R_PR_ENTRY_BB_INODE,
	E4R_PR_INLINE_DIR_SIZE,
	/* Pass 3: connectivity */
	E4R_PR_NO_ROOT,
	E4R_PR_UNCONNECTED_DIR,
	E4R_PR_BAD_DOTDOT,
	E4R_PR_NO_LPF,
	E4R_PR_LPF_NO_SPACE,
	E4R_PR_LPF_NOT_DIR,
	E4R_PR_DIR_LOOP,
	/* Pass 4: reference counts */
	E4R_PR_LINK_COUNT,
	E4R_PR_UNATTACHED,
	E4R_PR_UNATTACHED_ZERO,
	E4R_PR_DIR_NLINK_FEATURE,
	/* Pass 5: bitmaps and counts */
	E4R_PR_BLOCK_NOT_MARKED,
	E4R_PR_BLOCK_MARKED_FREE,
	E4R_PR_INODE_NOT_MARKED,
	E4R_PR_INODE_MARKED_FREE,
	E4R_PR_GROUP_FREE_BLOCKS,
	E4R_PR_GROUP_FREE_INODES,
	E4R_PR_GROUP_DIRS,
	E4R_PR_GROUP_UNUSED_INODES,
	E4R_PR_SB_FREE_BLOCKS,
	E4R_PR_SB_FREE_INODES,
	E4R_PR_BLOCK_BITMAP_CSUM,
	E4R_PR_INODE_BITMAP_CSUM,
	E4R_PR_BITMAP_READ,
	E4R_PR_INODE_BITMAP_PADDING,
	E4R_PR_BLOCK_BITMAP_PADDING,
	/* Driver */
	E4R_PR_TOO_MANY,
	/* Quota usage, the orphan file, the orphan list, shared xattr blocks */
	E4R_PR_QUOTA_INODE_INVALID,
	E4R_PR_QUOTA_INODE_NOT_CLEAR,
	E4R_PR_QUOTA_FILE_BAD,
	E4R_PR_QUOTA_SPACE,
	E4R_PR_QUOTA_INODES,
	E4R_PR_QUOTA_MISSING,
	E4R_PR_ORPHAN_CHAIN_RANGE,
	E4R_PR_ORPHAN_CHAIN_LOOP,
	E4R_PR_ORPHAN_FILE_INODE,
	E4R_PR_ORPHAN_FILE_NOT_REG,
	E4R_PR_ORPHAN_FILE_HOLE,
	E4R_PR_ORPHAN_FILE_CSUM,
	E4R_PR_ORPHAN_FILE_ENTRY,
	E4R_PR_ORPHAN_FILE_ENTRY_RANGE,
	E4R_PR_ORPHAN_PRESENT_CLEAN,
	E4R_PR_ORPHAN_PRESENT_NO_FILE,
	E4R_PR_ORPHAN_FILE_NOT_CLEAR,
	E4R_PR_QUOTA_HEADER,
	E4R_PR_EA_REFCOUNT,
	E4R_PR_EA_ENTRY_BOUNDS,
	E4R_PR_EA_ENTRY_NAME,
	E4R_PR_EA_ENTRY_VALUE,
	E4R_PR_EA_ENTRY_HASH,
	/* Pass 0, added later (codes keep their order) */
	E4R_PR_JOURNAL_DEVICE_MISSING,
	/* Pass 0, superblock rules e2fsck applies */
	E4R_PR_SB_FUTURE_MOUNT,
	E4R_PR_SB_FUTURE_WRITE,
	E4R_PR_SB_MIN_EXTRA_ISIZE,
	E4R_PR_SB_WANT_EXTRA_ISIZE,
	E4R_PR_SB_RESERVED_GDT,
	E4R_PR_SB_CSUM_SEED,
	E4R_PR_SB_64BIT_NO_EXTENTS,
	E4R_PR_SB_REV_LEVEL,
	E4R_PR_SB_HURD_FILETYPE,
	E4R_PR_JOURNAL_RECOVER_SET,
	E4R_PR_JOURNAL_FEATURE_CLEAR,
	E4R_PR_JOURNAL_RECOVERY_CLEAR,
	E4R_PR_ORPHAN_FILE_NO_JOURNAL,
	E4R_PR_ORPHAN_FILE_SIZE,
	E4R_PR_GD_BB_UNINIT_LAST,
	E4R_PR_QUOTA_BAD_MODE,
	E4R_PR_MMP_BAD_BLOCK,
	E4R_PR_MMP_MAGIC,
	E4R_PR_MMP_CSUM,
	E4R_PR_JOURNAL_INODE_NOT_CLEAR,
	/* Journal-assisted repair */
	E4R_PR_JOURNAL_COPY,
	/* Pass 1, added later */
	E4R_PR_EA_NO_FEATURE,
	E4R_PR_INLINE_FLAG_EXTENTS,
	/* Pass 1, the map flags and the mode */
	E4R_PR_SPECIAL_MAP_FLAGS,
	E4R_PR_EXTENTS_FLAG_INLINE,
	E4R_PR_MAP_FLAGS_BLOCK_MAP,
	E4R_PR_MAP_FLAGS_JUNK,
	E4R_PR_EXTENTS_FLAG_UNSET,
	E4R_PR_TREAT_AS_DIR,
	E4R_PR_BIGALLOC_BLOCK_MAP,
	E4R_PR_DIR_EXTENT_GAP,
	E4R_PR_QUOTA_VERSION,
	E4R_PR_EXTENT_FEATURE,
	E4R_PR_INLINE_DATA_FEATURE,
	E4R_PR_FAST_SYMLINK_EXTENT_FL,
	E4R_PR_QUOTA_INODE_INVALID_FEATURE,
	E4R_PR_QUOTA_INODE_OTHER_TYPE,
	E4R_PR_COUNT
};

/* How much a problem matters for the verdict (e2fsck -n's exit code). */
enum check_severity {
	E4R_SEV_ERROR = 0,	/* the filesystem is not clean */
	E4R_SEV_WARNING,	/* wrong, but e2fsck -n leaves the filesystem valid (PR_NO_OK) */
	E4R_SEV_INFO,		/* worth saying; not a problem of the filesystem */
};

/* What a repair answers by default, and whether preen (-p) may. */
enum check_answer { E4R_ANS_NONE = 0, E4R_ANS_FIX, E4R_ANS_CLEAR, E4R_ANS_IGNORE, E4R_ANS_CLONE,
		  E4R_ANS_RELOCATE, E4R_ANS_DELETE };
#define E4R_PF_PREEN_OK	0x1	/* safe to fix without asking */
/*
 * Made without asking and left out of the exit code: what e2fsck does on
 * its own, outside its problem codes (it says nothing and exits 0 for it).
 */
#define E4R_PF_UNCOUNTED	0x2
/*
 * Closed: the repair writes only a value the check computed (a count, a
 * bitmap, a checksum, a flag) and nothing else derives from it, or makes a
 * change whose consequences the round settles itself (a file reconnected:
 * its link count and lost+found's quota are compared again at the round's
 * end); so it cannot leave a problem for a new check to find. A round whose
 * repairs are all closed is not followed by another check (repair/ asks for
 * one when a closed repair went an unusual way).
 */
#define E4R_PF_CLOSED	0x4

/*
 * The rest tell the repair round (repair/round.c) what a problem's repair
 * does to the others of its round, so that the round decides from the
 * table, never from a list of codes of its own. tests/unit/test_problem
 * holds each to the routine or the pass it follows from, where one does.
 */
/*
 * The repair gives a bitmap a new block: made before the round's other
 * repairs write anything (the write guard knows only the layout it was
 * armed with), and the summaries are rebuilt after.
 */
#define E4R_PF_MOVES_BITMAP	0x8
/*
 * The repair (made alone) gives an inode table new blocks. A table left
 * where it cannot be, declined or with no room for it, ends the round: an
 * inode the round writes there would land on the metadata beneath it.
 */
#define E4R_PF_MOVES_TABLE	0x10
/*
 * The finding's block is a group's metadata lying over other metadata:
 * when that is one of the group's bitmaps, the write guard leaves the
 * place to the other metadata until the bitmap moves (a repair made
 * alone before then may write an inode there).
 */
#define E4R_PF_OVERLAP	0x20
/*
 * The repair takes blocks from its inode (extents or blocks dropped from
 * the map, its xattr block detached): the counts pass 1 took over them
 * (E4R_PF_COUNTS_MAP, E4R_PF_COUNTS_USAGE) are stale after it.
 */
#define E4R_PF_DROPS_BLOCKS	0x40
/*
 * The repair changes its inode's map (a trim, a clone of the blocks it
 * shares, the inode cleared). A directory's blocks were read through the
 * map as it is, and a block the trim drops may be another file's: the
 * round's findings in that directory wait for the next check.
 */
#define E4R_PF_REMAPS	0x80
/*
 * Compares a count pass 1 took over the blocks its inode maps (i_blocks,
 * the size its last block wants): stale, so left to the next check, once
 * a repair of the round took blocks from that inode.
 */
#define E4R_PF_COUNTS_MAP	0x100
/*
 * Compares usage counted over all inodes (quota): stale, so left to the
 * next check, once any repair of the round took blocks from an inode or
 * changed entries (a reconnection may make a root or a lost+found, each
 * an inode and a block).
 */
#define E4R_PF_COUNTS_USAGE	0x200
/*
 * The finding's entry, when an ordinary one (not '.' or '..'), names no
 * valid inode in use (a bad number, an unused inode, the root): pass 2
 * counted no link for it, so clearing it changes no count nor anything
 * else a check derives (closed, and the link counts need not wait).
 */
#define E4R_PF_NOT_LINK	0x400
/*
 * The repair gives a file (the finding's inode) an entry in lost+found:
 * the round compares its link count again at its end. Not closed when the
 * inode lies past its group's used inodes: pass 2 refuses such an entry
 * (as e2fsck's does) until a new check moves the group's mark.
 */
#define E4R_PF_RECONNECTS	0x800
/*
 * A group descriptor failing its checksum: its uninit flags or unused
 * inode count may have hidden inodes from the round's scan. When they did,
 * it is fixed alone (the flags and the count dropped, as e2fsck -y does
 * before its passes) and the check starts over.
 */
#define E4R_PF_HIDES_INODES	0x1000
/*
 * Asked before the round's other findings, which were made assuming its
 * repair (a directory's extent moved down over a gap: pass 1 sized the
 * directory and pass 2 read it so). Answered no, nothing else of the
 * round is asked or made; the next check judges what stays.
 */
#define E4R_PF_ASK_FIRST	0x2000
/*
 * Left unrepaired, e2fsck cannot go past it: it stops with "Cannot proceed
 * with file system check" and exits 8 with 4 (a journal it cannot load,
 * declined under -n). The check goes on, but its verdict is e2fsck's.
 */
#define E4R_PF_HALTS		0x4000

/*
 * How a problem is repaired: the routine (repair/ maps each E4R_FIX_* to its
 * function; check/ only names it, it never calls repair/) and when in a
 * repair round it runs. A row is fixable exactly when it names a routine.
 */
enum check_fix {
	E4R_FIX_NONE = 0,
	E4R_FIX_SUMMARIES,		/* rebuild bitmaps, counts, descriptor and superblock checksums */
	E4R_FIX_UNINIT_FLAGS,		/* drop a group's uninit flags */
	E4R_FIX_SB_INODES_COUNT,
	E4R_FIX_RELOCATE_BITMAP,	/* give a misplaced bitmap a new block */
	E4R_FIX_UNINIT_ENTRY,		/* count an inode named by an entry as used */
	E4R_FIX_JOURNAL_CLEAR,
	E4R_FIX_RESIZE_INODE_OFF,
	E4R_FIX_ORPHAN_LIST_CLEAR,	/* forget the orphan list (s_last_orphan) */
	E4R_FIX_INODE,			/* one field of one inode */
	E4R_FIX_INODE_CLEAR,
	E4R_FIX_BLOCK_MAP,		/* drop the bad extents or blocks of an inode's map */
	E4R_FIX_EXTENT_CSUM,
	E4R_FIX_DIR_UNINIT,
	E4R_FIX_DIR_NLINK_FEATURE,
	E4R_FIX_LARGE_FILE_FEATURE,
	E4R_FIX_HTREE_FLAG,		/* drop the index: the directory is read linearly */
	E4R_FIX_DIR_BLOCK,
	E4R_FIX_DOT,
	E4R_FIX_DIR_ENTRY,
	E4R_FIX_DOTDOT,
	E4R_FIX_BAD_BLOCKS_INODE,
	E4R_FIX_CLONE,			/* clone multiply-claimed blocks (all findings together) */
	E4R_FIX_ROOT,
	E4R_FIX_DIR_HOLE,
	E4R_FIX_LOST_FOUND,
	E4R_FIX_RECONNECT_DIR,
	E4R_FIX_RECONNECT_FILE,
	E4R_FIX_EA_REFCOUNT,		/* set an xattr block's reference count to the count found */
	E4R_FIX_EA_CLEAR,		/* detach a corrupt xattr block from the inode */
	E4R_FIX_ORPHAN_PRESENT_OFF,
	E4R_FIX_ORPHAN_BLOCK,		/* rewrite an orphan file block as empty */
	E4R_FIX_ORPHAN_FILE_REMOVE,	/* free the orphan file left without its feature */
	E4R_FIX_ORPHAN_FILE_RECREATE,
	E4R_FIX_QUOTA_INODE_OFF,	/* stop tracking a quota type whose inode is invalid */
	E4R_FIX_QUOTA_INODE_HOME,	/* name the type's own reserved quota inode again */
	E4R_FIX_QUOTA_REWRITE,		/* write the quota file again: usage counted, limits kept */
	E4R_FIX_JOURNAL_ERRNO,		/* zero the error the journal superblock records */
	E4R_FIX_JOURNAL_V2_FIELDS,	/* zero the journal superblock past its v1 fields */
	E4R_FIX_JOURNAL_RESET,		/* a new, empty journal superblock over the same journal */
	E4R_FIX_ITABLE_UNUSED,		/* zero a group's unused-inode mark, before the inode scan */
	E4R_FIX_RESIZE_INODE_RECREATE,	/* zero the resize inode, then make it again */
	E4R_FIX_JOURNAL_COPY,		/* write a damaged block's copy from the journal home */
	E4R_FIX_ITABLE_ORIGIN,		/* point a group's descriptor back at its inode table */
	E4R_FIX_ITABLE_NEW,		/* give a group's inode table new blocks (its inodes are lost) */
	E4R_FIX_SB_FIELD,		/* set the superblock field the finding names to its expected value */
	E4R_FIX_MMP_RESET,		/* write the MMP block anew, marked clean */
	E4R_FIX_DIR_EXTENT_GAP,		/* move a directory's extent down over a gap before it */
	E4R_FIX_COUNT
};

/*
 * When in a round the repair runs. The order matters: repairs that allocate
 * trust the bitmaps, so they come after the summaries are rebuilt.
 */
enum check_phase {
	E4R_PHASE_NONE = 0,
	E4R_PHASE_ALONE,	/* repaired alone; the round ends and the check starts over */
	E4R_PHASE_FIRST,	/* before the others of the round, which need it */
	E4R_PHASE_NOW,		/* in the order found */
	E4R_PHASE_NOW_REBUILD,	/* in the order found; the summaries are rebuilt after */
	E4R_PHASE_SUMMARY,	/* by the rebuild of pass 5's summaries (declined: no rebuild) */
	E4R_PHASE_CLONE,	/* all together, after the rebuild */
	E4R_PHASE_LATE,		/* allocates: after the rebuild and the clones */
	E4R_PHASE_RESTORE,	/* before anything else, all together; then the check starts over
				   (the other findings were made on the damaged bytes) */
};

/* A problem the repairs know how to fix (the row names a repair). */
int check_problem_fixable(enum check_problem code);
/* The word of the question for it: "Fix", "Clear"... (English, for N_/gettext). */
const char *check_problem_question(enum check_problem code);

/*
 * One row of the table. MESSAGE is an English template (marked N_ for
 * gettext; translated by the printer) with these fields:
 *   %i inode  %b block  %g group  %d directory inode  %n entry name
 *   %e expected value  %f found value
 *   %o found value in octal (modes)  %x found value as an error code's message
 *   %r blocks %b..%e (one number when they are equal)  %R inodes %i..%e likewise
 *   %q quota id (user, group or project id; the type's name is in %n)
 */
struct check_problem_info {
	enum check_problem	code;
	const char		*name;		/* stable identifier for JSON */
	int			pass;		/* enum check_pass */
	enum check_severity	severity;
	enum check_answer		answer;
	unsigned		flags;		/* E4R_PF_* */
	enum check_fix		fix;		/* the repair (E4R_FIX_NONE: not fixable) */
	enum check_phase		phase;		/* when in a round it runs */
	const char		*message;
};

/* What a damaged block's journal copy is (E4R_PR_JOURNAL_COPY). */
enum check_jcopy_kind { E4R_JCOPY_INODES = 0, E4R_JCOPY_DIR, E4R_JCOPY_EXTENTS, E4R_JCOPY_XATTR };

/*
 * Where a journal copy comes from and what it brings back. The repair
 * writes DATA home: whole for a directory block, an extent node or an xattr
 * block; for an
 * inode table block only the inodes INOS (the others are left as they are).
 */
struct check_jcopy {
	enum check_jcopy_kind	kind;
	uint32_t		sequence;	/* its transaction */
	uint64_t		commit_sec;	/* that transaction's commit time */
	uint32_t		commit_nsec;
	uint32_t		jblk;		/* the journal block holding it */
	int			live;		/* from the live log (preen may use it) */
	unsigned		entries;	/* directory entries it holds (names brought back) */
	unsigned		inodes;		/* inodes it brings back */
	unsigned		extents;	/* extents (or index entries) it holds */
	unsigned char		*data;		/* the block: blocksize bytes */
	uint32_t		*inos;		/* E4R_JCOPY_INODES: the inodes to write back */
};

/* Object ids a finding names; a field that does not apply is E4R_NONE. */
#define E4R_NONE	((uint64_t)-1)

struct check_finding {
	enum check_problem	code;
	uint64_t		group, ino, blk, dir;
	uint64_t		expected, found;
	char			*name;		/* directory entry name, or NULL */
	uint64_t		qid;		/* quota id (user, group, project) */
	uint8_t			fixed;		/* a repair was made (check -y/-p) */
	uint8_t			declined;	/* fixable, but not fixed: -p unsafe, or answered no */
	uint8_t			deferred;	/* left for the next round, which counts it again */
	uint16_t		round;		/* which check found it (0: the first) */
	struct check_jcopy	*jcopy;		/* E4R_PR_JOURNAL_COPY: the copy (owned by the result) */
};

/* The table row for CODE (NULL for a code out of range). */
const struct check_problem_info *check_problem_info(enum check_problem code);

/* Quota types, in the order of the superblock's quota inodes: user, group, project. */
#define E4R_QUOTA_TYPES	3
/* "user", "group", "project": the type's name in findings (their name field) and JSON. */
const char *check_quota_type_name(int type);

/* A finding with every object field E4R_NONE. */
struct check_finding check_finding_init(enum check_problem code);

/*
 * Do A and B report the same problem of the same object (group, inode,
 * block, directory, quota id, name)? The counts they found may differ: a
 * later round that finds the same damage again is asking the same thing.
 */
int check_same_finding(const struct check_finding *a, const struct check_finding *b);

/*
 * Does finding F name a damaged block of a kind a journal copy can restore
 * (a directory block, an extent node, an xattr block)? Then 1, with the
 * kind and the inode it belongs to (unchecked: the caller judges it). The
 * checker's journal-copy pass and diagnose --salvage ask the same question.
 */
int check_jcopy_damaged_block(const struct check_finding *f, enum check_jcopy_kind *kind, uint64_t *owner);

#endif
