/* What the checker's passes share (private to lib/check/ and the driver that runs them). */
#ifndef E4R_CHECK_CTX_H
#define E4R_CHECK_CTX_H

#include <stdint.h>
#include <ext2fs/ext2fs.h>
#include "check/check.h"

/* Per-inode file kinds, one byte each (0: not in use). */
enum { KIND_NONE = 0, KIND_REG, KIND_DIR, KIND_CHR, KIND_BLK, KIND_FIFO, KIND_SOCK, KIND_LNK,
       KIND_BAD /* in use, but its mode is invalid */ };

/* A directory seen in pass 1; parent is filled by pass 2 (the entry that names it). */
struct check_dir {
	ext2_ino_t	ino;
	ext2_ino_t	dotdot;		/* what its '..' says (0: none found) */
	ext2_ino_t	parent;		/* the directory with an entry naming it (0: none) */
	/*
	 * Its encrypt flag lacks the context and the repair clears it in this
	 * round: pass 2 reads its names as plain ones, as e2fsck -y does after
	 * pass 1 dropped the flag (it reads the inode from disk, flag still set).
	 */
	int		encrypt_dropped;
};

/* One block of a directory, in pass 1's order (inode, then logical block). */
struct check_dir_block {
	ext2_ino_t	ino;
	blk64_t		blk;
	uint32_t	lblk;
};

struct check_ctx {
	ext2_filsys			fs;
	const struct check_opts	*opts;
	struct check_result		*res;
	ext2_ino_t			inodes;		/* s_inodes_count */
	ext2_ino_t			first_ino;

	ext2fs_block_bitmap	meta;		/* superblocks, descriptors, bitmaps, inode tables */
	ext2fs_block_bitmap	used;		/* every block claimed (meta included) */
	ext2fs_block_bitmap	dup;		/* blocks claimed more than once */
	ext2fs_block_bitmap	ea;		/* extended attribute blocks (shared legitimately) */
	ext2fs_inode_bitmap	inode_used;	/* in use per pass 1 */
	ext2fs_inode_bitmap	inode_bad;	/* pass 1 found it broken */
	ext2fs_inode_bitmap	inode_ea;	/* EA inodes: referenced by xattrs, not by entries */

	uint8_t			*kind;		/* [inodes + 1] KIND_* */
	struct check_nlink	*nlink;		/* link counts: on disk and found (check/nlink.c) */

	struct check_dir	*dirs;		/* sorted by ino (pass 1 scans in order) */
	size_t			ndirs, dirs_cap;
	struct check_dir_block	*dblocks;
	size_t			ndblocks, dblocks_cap;
	struct check_xattr_refs	*xattr_refs;	/* xattr blocks: refcount against references (check/xattr.c) */
	struct check_quota	*quota;		/* usage charged per quota id (check/quota.c), or NULL */
	int			have_dups;
	/*
	 * Pass 1: check_inode_csum_ok's answer for the inode being checked,
	 * computed ahead by the inode scan's reader (check/iscan.h), or -1
	 */
	int			scan_csum;
	/* its table block is garbage as libext2fs's scan judges it for e2fsck (check/iscan.h) */
	int			scan_garbage;
	uint64_t		large_files;	/* regular files of 2 GiB or more (pass 1) */
	int			dir_nlink;	/* the feature: a directory may have link count 1 */
	unsigned		round;		/* 0: the first check; more after repairs */
	/*
	 * Set by check_super when repairing: the superblock's inode count is not
	 * the groups', so nothing this round may be sized or bounded by it; the
	 * passes wait for the round after its fix (e2fsck fixes it before pass 1)
	 */
	int			super_only;
	/*
	 * Set by check_super when -y makes the resize inode again: e2fsck
	 * zeroes it before pass 1, so its old map (which may name any block,
	 * a directory's among them) is not walked, charged or mended.
	 */
	int			resize_remade;
	/*
	 * Set by repair/: a repair of this round (or one it deferred) may have
	 * uncovered a problem, so the filesystem is checked again (E4R_PF_CLOSED).
	 */
	int			recheck;
	/*
	 * Set by repair/: the round's findings rest on a fix the user declined
	 * (a directory seen with its extent moved), so none was made and a new
	 * check runs although nothing was fixed.
	 */
	int			again;
	/*
	 * Set by repair/: the round ended after one repair made alone (a
	 * descriptor's inode table, the bad blocks inode), this finding's
	 * index; SIZE_MAX otherwise.
	 */
	size_t			alone_fixed;
	/* repair/ changed the usage charged to quota after pass 5 compared it */
	int			quota_changed;
	/*
	 * repair/'s place in lost+found this round: the directory it links into
	 * and the block that took the last entry (the blocks before it are full),
	 * so each reconnection starts there instead of rescanning the directory.
	 */
	ext2_ino_t		lpf_dir;
	uint32_t		lpf_lblk;
	/*
	 * A lost+found could not be made for want of an inode or a block: the
	 * root takes what is lost for the rest of the run, and the checks say
	 * no more that lost+found is missing (each round would make it again)
	 */
	int			lpf_no_space;
	/* The progress last told: a pass's end may be reached twice, it is told once. */
	int			prog_pass;
	uint64_t		prog_done, prog_total;
};

/* Record a finding; F's name (if any) is copied. Returns 0 or ENOMEM. */
/*
 * Set C up for a check of FS (C's opts, res and round are the caller's):
 * every map and table sized from the superblock as far as the groups hold
 * it. check_ctx_free frees what it made, also after a failure.
 */
errcode_t check_ctx_init(struct check_ctx *c, ext2_filsys fs);
void check_ctx_free(struct check_ctx *c);

errcode_t check_report(struct check_ctx *c, const struct check_finding *f);
/*
 * An operational error (out of memory) met where it cannot be returned: the
 * run ends with it after the pass (fsck_run reads res->fatal), and what the
 * pass found since is not taken for the filesystem's. Returns ERR.
 */
errcode_t check_fatal(struct check_ctx *c, errcode_t err);

/* Shorthands for the common shapes of finding. */
errcode_t check_report_ino(struct check_ctx *c, enum check_problem code, uint64_t ino,
			   uint64_t blk, uint64_t expected, uint64_t found);
errcode_t check_report_group(struct check_ctx *c, enum check_problem code, uint64_t group,
			     uint64_t blk, uint64_t expected, uint64_t found);

/*
 * A sorted set of numbers drawn from findings (the blocks earlier rounds
 * restored, the inodes whose maps a round changes), for questions asked
 * once per block or per finding: a walk of all findings for each made
 * fuzzed images with thousands of findings quadratic.
 */
struct check_keys {
	uint64_t	*v;
	size_t		n;
};

/* Does finding F belong to the set? Then its number goes to *KEY. */
typedef int (*check_key_pick_fn)(const struct check_finding *f, const void *arg, uint64_t *key);

/* The numbers PICK gives for R's findings from FIRST on. ENOMEM leaves OUT empty. */
errcode_t check_keys_collect(const struct check_result *r, size_t first, check_key_pick_fn pick,
			     const void *arg, struct check_keys *out);
int check_keys_has(const struct check_keys *k, uint64_t key);
void check_keys_free(struct check_keys *k);

/* Tell the front end's progress callback (if any) that PASS has done DONE of TOTAL steps. */
void check_progress(struct check_ctx *c, int pass, uint64_t done, uint64_t total);

struct check_dir *check_find_dir(struct check_ctx *c, ext2_ino_t ino);

/*
 * Link counts (check/nlink.c), for inodes 0 to the N - 1 given to init:
 * i_links_count as pass 1 read it, and the entries pass 2 (and repair/'s
 * reconnections) found naming the inode. Setting and adding never fail
 * alone: a table that could not grow is told once by check_nlink_error.
 */
errcode_t check_nlink_init(struct check_ctx *c, size_t n);
void check_nlink_free(struct check_ctx *c);
void check_nlink_set_disk(struct check_ctx *c, ext2_ino_t ino, uint32_t count);
uint32_t check_nlink_disk(const struct check_ctx *c, ext2_ino_t ino);
void check_nlink_add_found(struct check_ctx *c, ext2_ino_t ino);
uint32_t check_nlink_found(const struct check_ctx *c, ext2_ino_t ino);
errcode_t check_nlink_error(const struct check_ctx *c);

/* The passes (each returns an error only when it could not go on). */
errcode_t check_super(struct check_ctx *c);
errcode_t check_clean_skip(struct check_ctx *c);
errcode_t check_inodes(struct check_ctx *c);
errcode_t check_dups(struct check_ctx *c);
errcode_t check_dirs(struct check_ctx *c);
/* INO lies past its group's last used inode as the descriptor marks it (pass 2's entry_uninit_inode). */
int check_ino_in_unused_area(ext2_filsys fs, ext2_ino_t ino);
errcode_t check_connectivity(struct check_ctx *c);
errcode_t check_links(struct check_ctx *c);
errcode_t check_bitmaps(struct check_ctx *c);
/* After pass 2: damaged blocks the journal holds a usable copy of (check/jcopy.c). */
errcode_t check_journal_copies(struct check_ctx *c);

/* Quota (check/quota.c): setup before pass 1, charge each inode in pass 1, compare after pass 5. */
errcode_t check_quota_setup(struct check_ctx *c);
void check_quota_charge(struct check_ctx *c, ext2_ino_t ino, const struct ext2_inode_large *in,
			uint64_t bytes, uint64_t inodes);
errcode_t check_quota(struct check_ctx *c);
void check_quota_free(struct check_ctx *c);
uint32_t *check_quota_inump(struct ext2_super_block *sb, int type);
/* Call FN for each id charged to quota TYPE in pass 1 (EINVAL: the type is not tracked). */
errcode_t check_quota_each(struct check_ctx *c, int type,
			   errcode_t (*fn)(void *arg, uint32_t id, uint64_t space, uint64_t inodes),
			   void *arg);
/* 1 when INO is one of the superblock's quota inodes. */
int check_is_quota_ino(struct check_ctx *c, ext2_ino_t ino);
/* IN as e2fsck leaves an inode of a garbage table block it clears (the repair writes the same) */
void check_garbage_cleared(const struct check_ctx *c, ext2_ino_t ino, struct ext2_inode_large *in);
int check_hidden_ino(struct check_ctx *c, ext2_ino_t ino);

/* What xattr values kept in EA inodes charge their owner (quota and i_blocks). */
struct check_ea_charge {
	uint64_t	clusters;
	uint64_t	inodes;
};

/*
 * Xattr blocks (check/xattr.c): the first valid reference, later ones (each
 * adds the block's EA inode charge to CHARGE), the comparison after pass 1.
 */
errcode_t check_xattr_first_ref(struct check_ctx *c, ext2_ino_t ino, blk64_t blk, uint32_t refcount,
				const struct check_ea_charge *charge);
void check_xattr_more_ref(struct check_ctx *c, blk64_t blk, struct check_ea_charge *charge);
void check_xattr_refcounts(struct check_ctx *c);
void check_xattr_free(struct check_ctx *c);
/*
 * Entries of the xattr block BUF (at BLK, read for inode INO, IN): bounds,
 * overlaps, names, hashes, EA inodes (their charge added to CHARGE).
 */
void check_xattr_entries(struct check_ctx *c, ext2_ino_t ino, const struct ext2_inode_large *in,
			 blk64_t blk, char *buf, struct check_ea_charge *charge);
/* Does the xattr block BLOCK (as on disk) pass the block tests? Reports nothing. */
int check_xattr_block_sound(ext2_filsys fs, const char *block);
struct check_inode_walk;
/* The inode's extra space: i_extra_isize, the in-inode attributes, the extra timestamps. */
void check_xattr_ibody(struct check_inode_walk *w);
/* Attributes an inode's flags require: system.data for inline data, "c" for encryption. */
void check_xattr_needed(struct check_inode_walk *w);
/* Inline data whose system.data attribute is missing or unreadable (inline_data_no_attr's test)? */
int check_xattr_inline_missing(struct check_ctx *c, ext2_ino_t ino);
/* The size of INO's system.data attribute in *SIZE; non-zero when it cannot be read. */
int check_xattr_inline_size(struct check_ctx *c, ext2_ino_t ino, size_t *size);

/* The orphan list (before pass 1) and the orphan file (after pass 5): check/orphan.c. */
errcode_t check_orphan_list(struct check_ctx *c);
errcode_t check_orphan_file(struct check_ctx *c);

/* An htree directory's index as pass 2 reads it (check/htree.c). */
enum { HTREE_NONE = 0, HTREE_ROOT, HTREE_NODE, HTREE_LEAF };

/* One block of an htree directory: what it is, who points at it, its hashes. */
struct check_htree_block {
	blk64_t		blk;
	uint32_t	parent;		/* the first index block pointing at it */
	uint32_t	previous;	/* the block of the entry before its own in the parent */
	uint32_t	range_lo, range_hi;	/* hashes its parent's entry allows (inclusive) */
	uint32_t	lo, hi;		/* hashes it holds (of its first and last leaf for a node) */
	uint16_t	lo_off, hi_off;	/* a leaf: the entries holding lo and hi */
	uint8_t		kind;		/* HTREE_* (NONE: not read, a hole) */
	uint8_t		ref;		/* how often and where the index points at it */
};

struct check_htree_map {
	ext2_ino_t		dir;
	struct check_htree_block	*b;	/* [logical block]; NULL: no index to check */
	uint32_t		nblocks;	/* the directory's blocks, up to its last */
	unsigned		blocksize;
	unsigned		root_off;	/* the root's count/limit header */
	int			csum, casefold, hash_in_dirent;
	int			hash_version;
	int			depth;		/* leaves are this many levels below the root */
	int			usable;		/* the root is sound: the index is checked */
};

/* Read the root of directory DIR (block 0 of BLOCKS): its info; M gets the blocks' table. */
errcode_t check_htree_setup(struct check_ctx *c, ext2_ino_t dir, uint32_t flags,
			    const struct check_dir_block *blocks, size_t n, struct check_htree_map *m);
/* Block LBLK (at BLK, contents BUF) of the directory: its kind (HTREE_*); index blocks are read. */
int check_htree_block(struct check_ctx *c, struct check_htree_map *m, uint32_t lblk, blk64_t blk,
		      const char *buf);
/* An entry in use of leaf LBLK at offset OFF (REC_LEN bytes): its hash widens the leaf's range. */
void check_htree_entry(struct check_ctx *c, struct check_htree_map *m, uint32_t lblk,
		       const struct ext2_dir_entry *de, unsigned off, unsigned rec_len);
/* After every block: references, depths and hash ranges. */
void check_htree_finish(struct check_ctx *c, struct check_htree_map *m);
void check_htree_free(struct check_htree_map *m);

/* What one inode's walk over its blocks has seen so far. */
struct check_inode_walk {
	struct check_ctx	*c;
	ext2_ino_t		ino;
	struct ext2_inode_large	*inode;
	int			kind;
	int			dup_pass;	/* pass 1b: only look for blocks in c->dup */
	uint64_t		nblocks;	/* blocks (clusters with bigalloc) for i_blocks */
	int64_t			last_lblk;	/* highest mapped logical block, -1: none */
	int64_t			last_init_lblk;	/* same, initialized extents only */
	blk64_t			last_cluster;	/* bigalloc: blocks of one cluster count once */
	blk64_t			prev_pblk;	/* bigalloc: the data block before (0: none) */
	int64_t			prev_lblk;
	unsigned		illegal;
	int			bad;		/* broken: stop walking it */
	uint64_t		ndup;
	blk64_t			first_dup;
	unsigned		uninit_reported;	/* a directory's uninit extents: said once */
	struct check_ea_charge	ea;		/* values in EA inodes (in-inode and block) */
	uint64_t		nmeta;		/* claims on filesystem metadata */
	blk64_t			first_meta;
	/* -y clears its encrypt flag (no attribute) before the rest of pass 1 judges it */
	int			encrypt_dropped;
};

/* Walk every block W's inode claims: marks c->used and c->dup (pass 1), or counts dups (pass 1b). */
void check_walk_blocks(struct check_inode_walk *w, char *buf);
int check_out_of_fs(ext2_filsys fs, blk64_t blk, blk64_t len);
/*
 * An extent or index entry starting at BLK (LEN blocks) that e2fsck calls
 * invalid: outside the filesystem, or block 0 even where the filesystem
 * starts there (it holds the superblock then). Such an entry goes, not the
 * inode, where a block in metadata would have the inode cleared.
 */
int check_extent_start_bad(ext2_filsys fs, blk64_t blk, blk64_t len);
/* The blocks a directory may span (e2fsck's too-big rule); UINT64_MAX: no limit. */
uint64_t check_dir_limit(ext2_filsys fs, const struct ext2_inode *in);
/*
 * A block of the bad blocks list on a superblock or descriptor copy: the
 * problem (bb_primary_super, bb_primary_desc, bb_backup_super,
 * bb_backup_desc) with *GROUP its group, or E4R_PR_COUNT for neither.
 */
enum check_problem check_bb_super_copy(ext2_filsys fs, blk64_t blk, dgrp_t *group);
/* The size e2fsck's repair gives inline directory data of SIZE bytes (a bad size: inline_dir_size). */
size_t check_inline_dir_size(size_t size);
/* Whether a directory may keep a hole past its block 0 (e2fsck's pass 2 leaves it under largedir). */
int check_dir_holes_kept(ext2_filsys fs);

/*
 * Where each level of an extent tree must end: the start of the next entry
 * of the parent, or of an ancestor's when the parent is the last of its node
 * (how libext2fs gives index entries a length). The last entries of the
 * root reach to i_size there, and e2fsck cuts what lies past it; here the
 * size is the finding (i_size) and the data stays: no bound at the root.
 */
#define CHECK_EXTENT_LEVELS	8
struct check_extent_bounds {
	uint64_t	end[CHECK_EXTENT_LEVELS];	/* last logical block allowed; UINT64_MAX: none */
	uint64_t	eof;		/* the last block i_size covers (e2fsck's eof_block) */
	int		verity;
};
void check_extent_bounds_init(struct check_extent_bounds *b, ext2_filsys fs, const struct ext2_inode *in);
/*
 * Entry E, where handle H stands: 1 when it is a leaf extent that ends past
 * its level's bound (e2fsck's PR_1_EXTENT_END_OUT_OF_BOUNDS; unwritten or
 * verity extents may pass i_size's end). An index entry sets the bound of
 * the level below it.
 */
int check_extent_bounds_step(struct check_extent_bounds *b, ext2_extent_handle_t h,
			     const struct ext2fs_extent *e);

/* Helpers shared by passes. */
int check_inode_kind(uint16_t mode);
errcode_t check_mark_metadata(struct check_ctx *c);
/* Where group G's inode table lies when its descriptor's place is wrong (check/itable.c); 0: not found. */
blk64_t check_itable_origin(struct check_ctx *c, dgrp_t g);

unsigned check_popcount(const unsigned char *b, size_t n);

#endif
