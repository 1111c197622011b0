/* The repairs: check/ finds, repair/ mends (each function mends one kind of finding). */
#ifndef E4R_REPAIR_H
#define E4R_REPAIR_H

#include "alloc/alloc.h"
#include "check/ctx.h"

/*
 * The repairs. repair_round decides
 * for the findings from index FIRST on (this round's) and makes the repairs,
 * counting them in *FIXED; repair_finish marks a repaired filesystem
 * valid as e2fsck does at its end.
 */
errcode_t repair_round(struct check_ctx *c, size_t first, unsigned *fixed);
void repair_finish(ext2_filsys fs, struct check_result *r);

/*
 * Between begin and end, libext2fs's own allocations (ext2fs_alloc_block)
 * take only blocks that are free on disk, unclaimed in C's usage and no
 * metadata the write guard keeps (repair/alloc.c). Uses fs->priv_data.
 * Every block a round takes is chosen by ext4's allocator (alloc/), as
 * the kernel would choose it for the same goal.
 */
struct repair_alloc {
	struct check_ctx	*c;
	void			*old_priv;
	errcode_t		(*old_alloc)(ext2_filsys, blk64_t, blk64_t *);
	/* made at the round's first allocation (most rounds make none) */
	int			ready;
	struct alloc_ctx	kernel;
	/*
	 * What the allocator sees in use: the disk's bitmap and the check's
	 * claims (taken_disk), or the claims alone (taken_count, when the
	 * bitmap on disk is what is damaged), and in both every block this
	 * round took. A block the round frees stays taken until the round
	 * is committed, as the kernel keeps it until its transaction is.
	 */
	ext2fs_block_bitmap	taken_disk, taken_count;
	/* told of every block handed out while set (repair_alloc_watch) */
	void			(*watch)(void *arg, blk64_t blk);
	void			*watch_arg;
};
void repair_alloc_begin(struct check_ctx *c, struct repair_alloc *a);
/*
 * Have FN told of every block the round's allocator hands out from now on,
 * its own repairs' and libext2fs's (a new extent node), until called with
 * NULL: a repair that gives up can give back what it took.
 */
void repair_alloc_watch(struct check_ctx *c, void (*fn)(void *arg, blk64_t blk), void *arg);
/*
 * A block free in MAP (NULL: the bitmap on disk, which may lag the damage;
 * or C's usage), unclaimed in C's usage and outside the guard's map, where
 * ext4's allocator would put one for GOAL: what every repair that picks a
 * new block takes.
 */
errcode_t repair_new_block(struct check_ctx *c, blk64_t goal, ext2fs_block_bitmap map, blk64_t *out);
/*
 * A block for a file whose previous block (in logical order) is PREV: the
 * one right after PREV when it is free, as ext4 allocates a write that
 * merges with its left neighbour; else repair_new_block_unclaimed from GOAL.
 */
errcode_t repair_new_block_next(struct check_ctx *c, blk64_t prev, blk64_t goal, blk64_t *out);
/*
 * repair_new_block from GOAL, else (none free on disk) a block no file
 * claims, counted in use: as e2fsck allocates from its pass 1 map.
 */
errcode_t repair_new_block_unclaimed(struct check_ctx *c, blk64_t goal, blk64_t *out);
void repair_alloc_end(struct repair_alloc *a);

/* One repair each; 0 when done, else why not (the finding stays unfixed). */
errcode_t repair_inode(struct check_ctx *c, const struct check_finding *f);
errcode_t repair_inode_clear(struct check_ctx *c, ext2_ino_t ino);
errcode_t repair_unattached_clear(struct check_ctx *c, ext2_ino_t ino);
/*
 * CLONE: copy the blocks the inode shares with metadata (its data, and
 * the map blocks that lie there) to blocks of their own first, as the
 * answer to E4R_PR_BLOCK_METADATA; the trim then drops what is left bad.
 */
errcode_t repair_block_map(struct check_ctx *c, const struct check_finding *f, int clone);
/*
 * Copy only the inode's map blocks (extent nodes, indirect blocks) that lie
 * in metadata, so that a repair that changes its map (the clone of shared
 * blocks) writes the copies, not the metadata.
 */
errcode_t repair_clone_meta_maps(struct check_ctx *c, ext2_ino_t ino);
/* A block-mapped file or directory made an extent file (its data blocks kept where they are). */
errcode_t repair_to_extents(struct check_ctx *c, ext2_ino_t ino);
errcode_t repair_extent_csum(struct check_ctx *c, const struct check_finding *f);
errcode_t repair_dir_entry(struct check_ctx *c, const struct check_finding *f);
errcode_t repair_dir_block(struct check_ctx *c, const struct check_finding *f);
errcode_t repair_dot(struct check_ctx *c, const struct check_finding *f);
errcode_t repair_dotdot(struct check_ctx *c, ext2_ino_t dir, ext2_ino_t parent);
errcode_t repair_reconnect(struct check_ctx *c, ext2_ino_t ino, int is_dir);
errcode_t repair_dir_hole(struct check_ctx *c, ext2_ino_t dir, uint64_t lblk, uint64_t end);
errcode_t repair_htree_flag(struct check_ctx *c, ext2_ino_t dir);
/* Drop a bad htree index: the flag, and under metadata_csum the index blocks become leaves. */
errcode_t repair_htree_deindex(struct check_ctx *c, ext2_ino_t dir);
errcode_t repair_journal_clear(struct check_ctx *c);
errcode_t repair_journal_errno(struct check_ctx *c);
errcode_t repair_journal_v2_fields(struct check_ctx *c);
errcode_t repair_journal_reset(struct check_ctx *c);
errcode_t repair_journal_recreate(ext2_filsys fs);
errcode_t repair_resize_inode_recreate(struct check_ctx *c);
errcode_t repair_root(struct check_ctx *c);
errcode_t repair_dir_uninit(struct check_ctx *c, ext2_ino_t ino);
errcode_t repair_dir_extent_gap(struct check_ctx *c, const struct check_finding *f);
errcode_t repair_bad_blocks_inode(struct check_ctx *c);
errcode_t repair_resize_inode_off(struct check_ctx *c);
/* Both bitmaps written whole (the next round reads them from disk). */
errcode_t repair_write_bitmaps(ext2_filsys fs);
errcode_t repair_summaries(struct check_ctx *c);
errcode_t repair_itable_unused(struct check_ctx *c, uint64_t group);
/*
 * The clones of multiply-claimed blocks, for the round's E4R_PR_BLOCK_DUP
 * findings F (in inode order), each marked in F as it ends: fixed (its
 * copies made, or nothing of it shared any more), neither (left shared),
 * or deferred (to the next round, after a file deleted). When a copy finds
 * no free block, DEL is asked to delete that file (it reports why, decides
 * and clears the inode), *DELETED set when it did; its error (memory) ends
 * the clones.
 */
typedef errcode_t (*repair_dups_delete_fn)(void *arg, ext2_ino_t ino, errcode_t why, int *deleted);
errcode_t repair_dups(struct check_ctx *c, struct check_finding *f, size_t n, unsigned *cloned,
		      repair_dups_delete_fn del, void *arg);
errcode_t repair_ea_refcount(struct check_ctx *c, const struct check_finding *f);
errcode_t repair_ea_clear(struct check_ctx *c, const struct check_finding *f);
errcode_t repair_orphan_block(struct check_ctx *c, const struct check_finding *f);
errcode_t repair_orphan_file_remove(struct check_ctx *c, const struct check_finding *f);
errcode_t repair_orphan_file_recreate(struct check_ctx *c, const struct check_finding *f);
/*
 * A file deleted late in a round, after pass 5 compared quota (a clone that
 * found no block): the BYTES and the inode pass 1 charged for it go, and
 * the round compares quota again.
 */
errcode_t repair_quota_uncharge(struct check_ctx *c, ext2_ino_t ino, uint64_t bytes);
errcode_t repair_quota_inode_off(struct check_ctx *c, const struct check_finding *f);
errcode_t repair_quota_inode_home(struct check_ctx *c, const struct check_finding *f);
errcode_t repair_quota_rewrite(struct check_ctx *c, const struct check_finding *f);
/* Write finding F's journal copy home (E4R_PR_JOURNAL_COPY). */
errcode_t repair_journal_copy(struct check_ctx *c, const struct check_finding *f);
/*
 * Before the round's other repairs: restore the journal copies -y, -p (live
 * log only) or the person chooses, counting them in *FIXED; the round ends
 * when one was restored (repair/jcopy.c).
 */
errcode_t repair_journal_copies(struct check_ctx *c, size_t first, unsigned *fixed);

/*
 * The routine for each E4R_FIX_* the problem table names: it mends finding
 * I of the round whose findings start at FIRST. NULL for E4R_FIX_NONE and
 * for the two made once per round for all their findings (SUMMARIES, CLONE);
 * repair_fix_known says whether the round can make a FIX at all.
 */
typedef errcode_t (*repair_fn)(struct check_ctx *c, size_t first, size_t i);
repair_fn repair_fix_fn(enum check_fix fix);
int repair_fix_known(enum check_fix fix);

#endif
