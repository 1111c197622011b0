/* ext4's inode and block allocation decisions, reproduced over libext2fs's bitmaps. */
#ifndef E4R_EXT4_ALLOC_H
#define E4R_EXT4_ALLOC_H

#include <ext2fs/ext2fs.h>
#include "write/journal.h"

/*
 * A percpu_counter as one CPU sees it: the global count only moves when the
 * local delta reaches the batch, which is what find_group_orlov reads
 * (percpu_counter_read_positive) for its averages.
 */
struct write_pcounter {
	long long	count;
	long long	local;
};

/* A locality group preallocation: its free part, from PSTART on. */
struct write_mb_pa {
	blk64_t		pstart;
	unsigned	free;
};

#define E4R_MB_MAX_PA	8

/*
 * An inode preallocation: logical blocks [LSTART, LSTART + LEN) of INO go to the
 * physical ones from PSTART on; FREE of them are not used yet. The range is kept
 * from other allocations (the buddy has all of it in use) until it is discarded.
 */
struct write_ipa {
	ext2_ino_t	ino;
	blk64_t		lstart, pstart;
	unsigned	len, free;
};

struct write_alloc {
	ext2_filsys	fs;
	struct write_journal *w;
	unsigned	flex_size;	/* groups per flex group (1 without flex_bg) */
	unsigned	log_flex;
	long long	batch;
	struct write_pcounter free_inodes, free_clusters, dirs;
	/* i_last_alloc_group of the directories this session touched */
	ext2_ino_t	*lag_ino;
	dgrp_t		*lag_group;
	unsigned	nlag, caplag;
	/* mballoc, for this session (one mount) */
	unsigned char	*mb_inited;	/* per group: its buddy is loaded */
	unsigned char	*mb_map;	/* one group's busy bits (scratch) */
	struct write_mb_pa lg_pa[E4R_MB_MAX_PA];	/* the (one CPU's) locality group */
	dgrp_t		*mb_last_groups;	/* s_mb_last_groups: stream allocation goals */
	unsigned	mb_nr_goals;
	struct write_ipa *ipa;		/* the inode preallocations */
	unsigned	nipa, capipa;
	/*
	 * The committing transaction was started by a sync (the script's commit),
	 * which returns once it is on disk: its freed blocks are back in the buddy.
	 */
	int		sync_committed;
	unsigned	nlg_pa;
	int		bug_ialloc34;	/* 3.4 order: bitmap bit set before journal write access */
	unsigned long	leaks;		/* bits that leaked into a committing transaction */
};

static inline void e4r_pcounter_add(struct write_alloc *a, struct write_pcounter *c, long long v)
{
	c->local += v;
	if (c->local >= a->batch || -c->local >= a->batch) {
		c->count += c->local;
		c->local = 0;
	}
}

static inline long long e4r_pcounter_read_positive(const struct write_pcounter *c)
{
	return c->count > 0 ? c->count : 0;
}

errcode_t write_alloc_init(struct write_alloc *a, struct write_journal *w);
void write_alloc_free(struct write_alloc *a);

/*
 * __ext4_new_inode: pick the inode the kernel would give a new inode in
 * directory PARENT (Orlov for directories, NAME hashed for top-level ones;
 * find_group_other for the rest), mark it in use (bitmap, group descriptor,
 * itable_unused, uninit flags, checksums) and return it.
 */
errcode_t write_ialloc(struct write_alloc *a, ext2_ino_t parent, int is_dir,
		     const char *name, ext2_ino_t *out);
/* Free inode INO (bitmap and counts). */
void write_ifree(struct write_alloc *a, ext2_ino_t ino, int is_dir);

/* Allocate one metadata block near GOAL (mballoc, no data hint). */
errcode_t write_balloc(struct write_alloc *a, blk64_t goal, blk64_t *out);
/* The block write_balloc would take, without taking it (libext2fs marks it itself). */
errcode_t write_bpick(struct write_alloc *a, blk64_t goal, blk64_t *out);
/*
 * ext4_mb_new_blocks: up to LEN blocks for a request with goal GOAL. A DATA request
 * says where it ends in the file (LEND, in blocks) and the file's size in blocks
 * (ISIZE): small files go to the locality group's preallocation, the first part of
 * a file still being written back streams from the last group a file streamed into,
 * others get the best fit from the goal's group on. With MARK, the blocks are marked in use.
 */
struct write_mb_req {
	blk64_t		goal;
	unsigned	len;
	int		data;
	int		mark;
	uint64_t	lend, isize;
	ext2_ino_t	ino;		/* the file (stream allocation's goal) */
	/* the mapped blocks either side of the request (ar->lleft/pleft, lright/pright; p 0: none) */
	blk64_t		lleft, pleft, lright, pright;
};

errcode_t write_mb_alloc(struct write_alloc *a, const struct write_mb_req *r, blk64_t *start, unsigned *got);

/*
 * Inode preallocations (inode_pa.c). write_ipa_use: the blocks the preallocation
 * covering logical block LBLK of INO gives a request of LEN blocks from there
 * (ext4_mb_use_preallocated), 0 when none covers it.
 */
int write_ipa_use(struct write_alloc *a, ext2_ino_t ino, blk64_t lblk, unsigned len, blk64_t *start,
		  unsigned *got);
/* ext4_mb_normalize_request for an inode preallocation: the logical range to look for. */
void write_ipa_normalize(struct write_alloc *a, const struct write_mb_req *r, blk64_t *gstart, unsigned *glen);
/*
 * ext4_mb_new_inode_pa: FOUND blocks were found at PSTART for the normalised range
 * from GSTART of GLEN blocks; the request's part is *START, *GOT and the rest is
 * preallocated for the inode.
 */
errcode_t write_ipa_new(struct write_alloc *a, const struct write_mb_req *r, blk64_t gstart, unsigned glen,
			blk64_t pstart, unsigned found, blk64_t *start, unsigned *got);
/* ext4_discard_preallocations: INO's preallocated blocks are free again, at once. */
void write_ipa_discard(struct write_alloc *a, ext2_ino_t ino);
/* Call FN on every block from FIRST on, of COUNT, that an inode preallocation holds. */
void write_ipa_for_each(struct write_alloc *a, blk64_t first, blk64_t count,
			void (*fn)(blk64_t blk, void *priv), void *priv);

/* Account blocks freed by libext2fs (ext2fs_punch) in the counters. */
void write_bfreed(struct write_alloc *a, blk64_t count);

#endif
