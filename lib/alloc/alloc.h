/*
 * ext4's inode and block allocation decisions, reproduced over libext2fs's bitmaps:
 * what the kernel would choose, for the writer's simulated mounts and for any caller
 * with an ext2_filsys (no journal needed). The allocator marks what it takes in
 * libext2fs's in-memory bitmaps and group descriptors; writing them out is the
 * caller's business.
 */
#ifndef E4R_ALLOC_H
#define E4R_ALLOC_H

#include <ext2fs/ext2fs.h>

/*
 * A percpu_counter as one CPU sees it: the global count only moves when the
 * local delta reaches the batch, which is what find_group_orlov reads
 * (percpu_counter_read_positive) for its averages.
 */
struct alloc_pcounter {
	long long	count;
	long long	local;
};

/* A locality group preallocation: its free part, from PSTART on. */
struct alloc_mb_pa {
	blk64_t		pstart;
	unsigned	free;
};

#define E4R_MB_MAX_PA	8

/*
 * An inode preallocation: logical blocks [LSTART, LSTART + LEN) of INO go to the
 * physical ones from PSTART on; FREE of them are not used yet. The range is kept
 * from other allocations (the buddy has all of it in use) until it is discarded.
 */
struct alloc_ipa {
	ext2_ino_t	ino;
	blk64_t		lstart, pstart;
	unsigned	len, free;
};

/*
 * What the allocator cannot see in the bitmaps, from whoever mounted the filesystem.
 * Every member may be NULL (a plain ext2_filsys: nothing pending, no bug injected).
 */
struct alloc_hooks {
	/*
	 * Call FN on every block freed by a transaction that has not reached the disk
	 * yet: jbd2 keeps them from mballoc until their transaction commits, so a
	 * journal writer says which they are.
	 */
	void	(*for_each_pending_free)(void *arg, void (*fn)(blk64_t blk, void *priv), void *priv);
	/*
	 * Bug injection: the inode allocator is about to take bit BIT of inode bitmap
	 * block BLK (libext2fs's bitmap is marked after this returns). The writer's
	 * reproduction of the 3.4 kernels sets it in the journal's buffer first.
	 */
	void	(*leak_bit)(void *arg, blk64_t blk, unsigned bit);
	void	*arg;
	/*
	 * The blocks in use as the allocator is to see them, when not FS's own
	 * bitmap: an fsck's repairs allocate around what its check found in use,
	 * which the bitmap on the disk may not say. Read, never marked.
	 */
	ext2fs_block_bitmap map;
};

struct alloc_ctx {
	ext2_filsys	fs;
	struct alloc_hooks hooks;
	unsigned	flex_size;	/* groups per flex group (1 without flex_bg) */
	unsigned	log_flex;
	long long	batch;
	struct alloc_pcounter free_inodes, free_clusters, dirs;
	/* i_last_alloc_group of the directories this session touched */
	ext2_ino_t	*lag_ino;
	dgrp_t		*lag_group;
	unsigned	nlag, caplag;
	/* mballoc, for this session (one mount) */
	unsigned char	*mb_inited;	/* per group: its buddy is loaded */
	unsigned char	*mb_map;	/* one group's busy bits (scratch) */
	struct alloc_mb_pa lg_pa[E4R_MB_MAX_PA];	/* the (one CPU's) locality group */
	dgrp_t		*mb_last_groups;	/* s_mb_last_groups: stream allocation goals */
	unsigned	mb_nr_goals;
	struct alloc_ipa *ipa;		/* the inode preallocations */
	unsigned	nipa, capipa;
	unsigned	nlg_pa;
};

static inline void alloc_pcounter_add(struct alloc_ctx *a, struct alloc_pcounter *c, long long v)
{
	c->local += v;
	if (c->local >= a->batch || -c->local >= a->batch) {
		c->count += c->local;
		c->local = 0;
	}
}

static inline long long alloc_pcounter_read_positive(const struct alloc_pcounter *c)
{
	return c->count > 0 ? c->count : 0;
}

/*
 * A mount's allocator state over FS (counters summed from the group descriptors,
 * no buddy loaded, no preallocation); HOOKS is copied, NULL for none.
 */
errcode_t alloc_init(struct alloc_ctx *a, ext2_filsys fs, const struct alloc_hooks *hooks);
void alloc_free(struct alloc_ctx *a);

/*
 * __ext4_new_inode: pick the inode the kernel would give a new inode in
 * directory PARENT (Orlov for directories, NAME hashed for top-level ones;
 * find_group_other for the rest), mark it in use (bitmap, group descriptor,
 * itable_unused, uninit flags, checksums) and return it.
 */
errcode_t alloc_inode(struct alloc_ctx *a, ext2_ino_t parent, int is_dir,
		      const char *name, ext2_ino_t *out);
/* Free inode INO (bitmap and counts). */
void alloc_inode_free(struct alloc_ctx *a, ext2_ino_t ino, int is_dir);

/* Allocate one metadata block near GOAL (mballoc, no data hint). */
errcode_t alloc_block(struct alloc_ctx *a, blk64_t goal, blk64_t *out);
/* The block alloc_block would take, without taking it (libext2fs marks it itself). */
errcode_t alloc_block_pick(struct alloc_ctx *a, blk64_t goal, blk64_t *out);
/*
 * ext4_mb_new_blocks: up to LEN blocks for a request with goal GOAL. A DATA request
 * says where it ends in the file (LEND, in blocks) and the file's size in blocks
 * (ISIZE): small files go to the locality group's preallocation, the first part of
 * a file still being written back streams from the last group a file streamed into,
 * others get the best fit from the goal's group on. With MARK, the blocks are marked in use.
 */
struct alloc_mb_req {
	blk64_t		goal;
	unsigned	len;
	int		data;
	int		mark;
	uint64_t	lend, isize;
	ext2_ino_t	ino;		/* the file (stream allocation's goal) */
	/* the mapped blocks either side of the request (ar->lleft/pleft, lright/pright; p 0: none) */
	blk64_t		lleft, pleft, lright, pright;
};

errcode_t alloc_mb(struct alloc_ctx *a, const struct alloc_mb_req *r, blk64_t *start, unsigned *got);

/*
 * Inode preallocations (inode_pa.c). alloc_ipa_use: the blocks the preallocation
 * covering logical block LBLK of INO gives a request of LEN blocks from there
 * (ext4_mb_use_preallocated), 0 when none covers it.
 */
int alloc_ipa_use(struct alloc_ctx *a, ext2_ino_t ino, blk64_t lblk, unsigned len, blk64_t *start,
		  unsigned *got);
/* ext4_mb_normalize_request for an inode preallocation: the logical range to look for. */
void alloc_ipa_normalize(struct alloc_ctx *a, const struct alloc_mb_req *r, blk64_t *gstart, unsigned *glen);
/*
 * ext4_mb_new_inode_pa: FOUND blocks were found at PSTART for the normalised range
 * from GSTART of GLEN blocks; the request's part is *START, *GOT and the rest is
 * preallocated for the inode.
 */
errcode_t alloc_ipa_new(struct alloc_ctx *a, const struct alloc_mb_req *r, blk64_t gstart, unsigned glen,
			blk64_t pstart, unsigned found, blk64_t *start, unsigned *got);
/* ext4_discard_preallocations: INO's preallocated blocks are free again, at once. */
void alloc_ipa_discard(struct alloc_ctx *a, ext2_ino_t ino);
/* Call FN on every block from FIRST on, of COUNT, that an inode preallocation holds. */
void alloc_ipa_for_each(struct alloc_ctx *a, blk64_t first, blk64_t count,
			void (*fn)(blk64_t blk, void *priv), void *priv);

/* Account blocks freed by libext2fs (ext2fs_punch) in the counters. */
void alloc_blocks_freed(struct alloc_ctx *a, blk64_t count);

#endif
