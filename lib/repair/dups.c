/*
 * Checker repair of multiply-claimed blocks, as e2fsck's pass 1D: the
 * inodes that share blocks are taken in inode order, and each one that
 * still shares a block gets its own copy of every block it still shares;
 * the last claimant of a block (the highest inode) finds it no longer
 * shared and keeps it. So no file loses data (though all but one may hold
 * data that was never theirs: the output says which inodes shared). A copy
 * that finds no free block asks to delete that file instead.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/ctx.h"
#include "fs/goal.h"
#include "fs/inode.h"
#include "fs/dirwalk.h"
#include "repair/repair.h"
#include "util/array.h"
#include "util/e4r_err.h"
#include "util/nomem.h"

/*
 * How many claims each shared block (each shared cluster, bigalloc) has
 * left, as e2fsck's num_bad: one per reference (per logical cluster), one
 * less per copy made. Sorted by key for the lookups.
 */
struct dup_count {
	blk64_t		key;
	unsigned	n;
};

struct dup_counts {
	struct dup_count	*v;
	size_t			n, cap;
	errcode_t		err;
};

/* What a walk of one inode's blocks does with the shared ones it meets. */
enum dup_walk { DUP_COUNT, DUP_TEST, DUP_CLONE };

struct dup_clone {
	struct check_ctx	*c;
	struct dup_counts	*counts;
	enum dup_walk		walk;
	int			shares;	/* DUP_TEST: a block it claims is still shared */
	int			met;	/* the walk met a block (libext2fs may end one unseen) */
	char			*buf;
	errcode_t		err;
	unsigned		cloned;
	int			extents;	/* the inode walked maps by extents */
	/*
	 * bigalloc: the inode walked keeps or copies whole clusters. Its last
	 * logical cluster that met a shared one: the physical cluster it kept
	 * (kept_pc) or the new one its blocks go to (new_pc), E4R_NONE if
	 * none; counted against the physical cluster count_pc
	 */
	blk64_t			lcluster, kept_pc, new_pc, count_pc;
	/*
	 * Where the kernel would put the file's next block (ext4_ext_find_goal):
	 * after its last data block walked, by the logical distance; before
	 * any, its inode's (flex) group (fs_inode_goal)
	 */
	blk64_t			home, last_pblk;
	e2_blkcnt_t		last_lblk;
	/* the blocks (bigalloc: clusters) the clone of the inode walked took */
	blk64_t			*taken;
	size_t			ntaken, taken_cap;
	errcode_t		taken_err;
	blk64_t			walked;		/* DUP_CLONE: the data blocks the walk met */
	unsigned		nodes;		/* DUP_CLONE: extent nodes copied */
	uint64_t		charged;	/* DUP_CLONE: bytes i_blocks held before (as pass 1 charged quota) */
};

/* The round's allocator handed BLK to the clone walked. */
static void clone_took(void *arg, blk64_t blk)
{
	struct dup_clone *d = arg;

	if (util_grow_from((void **)&d->taken, &d->taken_cap, d->ntaken + 1, sizeof(*d->taken), 64))
		d->taken_err = ENOMEM;
	else
		d->taken[d->ntaken++] = blk;
}

/*
 * A file deleted for want of a block for its copies: the blocks its clone
 * took before (copies, extent nodes libext2fs added) go free again, as
 * e2fsck's delete_file frees them, or the next round finds them marked in
 * use that no file claims: a bitmap difference the first round's pass 5
 * had already mended.
 */
static void clone_release(ext2_filsys fs, struct dup_clone *d)
{
	for (size_t i = 0; i < d->ntaken; i++)
		ext2fs_block_alloc_stats2(fs, d->taken[i], -1);
	d->ntaken = 0;
}

static int count_cmp(const void *a, const void *b)
{
	blk64_t x = ((const struct dup_count *)a)->key, y = ((const struct dup_count *)b)->key;

	return x < y ? -1 : x > y;
}

/* One more claim of KEY (unsorted until counts_sort). */
static void counts_add(struct dup_counts *k, blk64_t key)
{
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 64;
		struct dup_count *v = realloc(k->v, cap * sizeof(*v));

		if (!v) {
			k->err = ENOMEM;
			return;
		}
		k->v = v;
		k->cap = cap;
	}
	k->v[k->n].key = key;
	k->v[k->n++].n = 1;
}

/* Sorted, and the claims of one key summed into one entry. */
static void counts_sort(struct dup_counts *k)
{
	size_t i, j = 0;

	if (!k->n)
		return;		/* no array to sort (qsort and bsearch take none) */
	qsort(k->v, k->n, sizeof(*k->v), count_cmp);
	for (i = 0; i < k->n; i++) {
		if (j && k->v[j - 1].key == k->v[i].key)
			k->v[j - 1].n += k->v[i].n;
		else
			k->v[j++] = k->v[i];
	}
	k->n = j;
}

static struct dup_count *counts_find(struct dup_counts *k, blk64_t key)
{
	struct dup_count want = { .key = key };

	if (!k->n)
		return NULL;
	return bsearch(&want, k->v, k->n, sizeof(*k->v), count_cmp);
}

/* Claims left on KEY (0: not one counted). */
static unsigned counts_left(struct dup_counts *k, blk64_t key)
{
	struct dup_count *e = counts_find(k, key);

	return e ? e->n : 0;
}

/* A copy made: one claim fewer on KEY. */
static void counts_drop(struct dup_counts *k, blk64_t key)
{
	struct dup_count *e = counts_find(k, key);

	if (e && e->n)
		e->n--;
}

/* The goal for the copy of logical block LBLK (negative: a map block). */
static blk64_t clone_goal(const struct dup_clone *d, e2_blkcnt_t lblk)
{
	if (d->last_pblk == E4R_NONE)
		return d->home;
	if (lblk < 0 || lblk <= d->last_lblk)
		return d->last_pblk + 1;
	return d->last_pblk + (blk64_t)(lblk - d->last_lblk);
}

/* LBLK of the file walked is at PBLK now (kept or copied): the next goal follows it. */
static void clone_follow(struct dup_clone *d, e2_blkcnt_t lblk, blk64_t pblk)
{
	if (lblk < 0 || !pblk)
		return;
	d->last_lblk = lblk;
	d->last_pblk = pblk;
}

/*
 * bigalloc: a block of a shared cluster. A cluster holds one logical
 * cluster of one file, each block at its own offset: a logical cluster
 * whose physical one others still claim (or that sits misaligned in it)
 * gets a new cluster, each block at its logical offset in it, as e2fsck's
 * pass 1D clones; the last claimant keeps it.
 */
static int clone_in_cluster(ext2_filsys fs, struct dup_clone *d, blk64_t *blocknr, e2_blkcnt_t blockcnt)
{
	blk64_t blk = *blocknr, mask = EXT2FS_CLUSTER_MASK(fs), nb = 0;
	blk64_t lc = (blk64_t)blockcnt >> fs->cluster_ratio_bits, pc = EXT2FS_B2C(fs, blk);
	int aligned = (blk & mask) == ((blk64_t)blockcnt & mask);

	if (lc != d->lcluster) {
		d->lcluster = lc;
		d->kept_pc = d->new_pc = E4R_NONE;
		if (aligned && counts_left(d->counts, pc) < 2) {
			d->kept_pc = pc;
			clone_follow(d, blockcnt, blk);
			return 0;
		}
	} else if (d->kept_pc == pc && aligned) {
		clone_follow(d, blockcnt, blk);
		return 0;
	}
	if (d->new_pc == E4R_NONE) {
		if ((d->err = ext2fs_new_block2(fs, clone_goal(d, blockcnt), NULL, &nb)))
			return BLOCK_ABORT;
		ext2fs_block_alloc_stats2(fs, nb, +1);
		clone_took(d, nb);
		d->new_pc = EXT2FS_B2C(fs, nb);
		counts_drop(d->counts, pc);
	}
	nb = EXT2FS_C2B(fs, d->new_pc) + ((blk64_t)blockcnt & mask);
	if ((d->err = io_channel_read_blk64(fs->io, blk, 1, d->buf)) ||
	    (d->err = io_channel_write_blk64(fs->io, nb, 1, d->buf)))
		return BLOCK_ABORT;
	clone_follow(d, blockcnt, nb);
	*blocknr = nb;
	d->cloned++;
	return BLOCK_CHANGED;
}

/* DUP_COUNT: one claim per reference, per logical cluster under bigalloc (as e2fsck's pass 1B). */
static void count_claim(ext2_filsys fs, struct dup_clone *d, blk64_t blk, e2_blkcnt_t blockcnt)
{
	blk64_t lc, pc;

	if (EXT2FS_CLUSTER_RATIO(fs) == 1) {
		counts_add(d->counts, blk);
		return;
	}
	lc = blockcnt < 0 ? E4R_NONE : (blk64_t)blockcnt >> fs->cluster_ratio_bits;
	pc = EXT2FS_B2C(fs, blk);
	if (lc == E4R_NONE || lc != d->lcluster || pc != d->count_pc)
		counts_add(d->counts, pc);
	d->lcluster = lc;
	d->count_pc = pc;
}

static int clone_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		    blk64_t ref_blk, int ref_offset, void *priv)
{
	struct dup_clone *d = priv;
	blk64_t blk = *blocknr, nb = 0;

	(void)ref_offset;
	d->met = 1;
	if (d->walk == DUP_CLONE && blockcnt >= 0)
		d->walked++;
	/*
	 * An indirect block outside the filesystem: libext2fs would stop the
	 * whole walk with an error (EXT2_ET_BAD_IND_BLOCK) once this returns.
	 * Zeroed in the walk's copy only, it is passed over; were the map
	 * around it written for a clone, it goes as e2fsck's pass 1 clears it.
	 */
	if (blockcnt < 0 && !d->extents &&
	    (blk >= ext2fs_blocks_count(fs->super) || (blk && blk < fs->super->s_first_data_block))) {
		*blocknr = 0;
		return 0;
	}
	if (!blk || check_out_of_fs(fs, blk, 1) || !ext2fs_test_block_bitmap2(d->c->dup, blk)) {
		clone_follow(d, blockcnt, blk);
		return 0;
	}
	/*
	 * Held by an indirect block in metadata (one on the descriptors): the
	 * new number would be written into it. The block stays shared; the
	 * repair of the metadata claim cuts that indirect block off.
	 */
	if (!d->extents && ref_blk && !check_out_of_fs(fs, ref_blk, 1) &&
	    ext2fs_test_block_bitmap2(d->c->meta, ref_blk))
		return 0;
	/*
	 * A shared extent node is counted and copied like data, as e2fsck's
	 * pass 1B and 1D do: libext2fs meets a node before the extents in it,
	 * and descends into the copy once the index names it. Left shared,
	 * the data copies made through it would be written into the one node
	 * both files read, and both would share the copies. (Bigalloc: its
	 * nodes are left, a cluster each.)
	 */
	if (blockcnt < 0 && d->extents && EXT2FS_CLUSTER_RATIO(fs) > 1)
		return 0;
	if (d->walk == DUP_COUNT) {
		count_claim(fs, d, blk, blockcnt);
		return d->counts->err ? BLOCK_ABORT : 0;
	}
	if (d->walk == DUP_TEST) {
		/* bigalloc: a block out of its offset in its cluster needs a cluster of its own */
		if (counts_left(d->counts, EXT2FS_B2C(fs, blk)) < 2 &&
		    (blockcnt < 0 || (blk & EXT2FS_CLUSTER_MASK(fs)) ==
				     ((blk64_t)blockcnt & EXT2FS_CLUSTER_MASK(fs))))
			return 0;
		d->shares = 1;
		return BLOCK_ABORT;
	}
	if (EXT2FS_CLUSTER_RATIO(fs) > 1 && blockcnt >= 0)
		return clone_in_cluster(fs, d, blocknr, blockcnt);
	/* no longer shared: the copies made for the inodes before left it to this one */
	if (counts_left(d->counts, blk) < 2) {
		clone_follow(d, blockcnt, blk);
		return 0;
	}
	/*
	 * An indirect block is copied like data, before the walk reads it: the
	 * walk goes on below the copy, whose entries (shared too) get copies of
	 * their own, as e2fsck's pass 1D does.
	 */
	/* the logical block after the last one placed: right after it, if free */
	/* none free on disk: a block no file claims, before a file is deleted for want of one */
	d->err = (blockcnt > 0 && d->last_pblk != E4R_NONE && blockcnt == d->last_lblk + 1) ?
		 repair_new_block_next(d->c, d->last_pblk, clone_goal(d, blockcnt), &nb) :
		 repair_new_block_unclaimed(d->c, clone_goal(d, blockcnt), &nb);
	if (d->err)
		return BLOCK_ABORT;
	ext2fs_block_alloc_stats2(fs, nb, +1);
	if ((d->err = io_channel_read_blk64(fs->io, blk, 1, d->buf)) ||
	    (d->err = io_channel_write_blk64(fs->io, nb, 1, d->buf)))
		return BLOCK_ABORT;
	if (blockcnt < 0 && d->extents)
		d->nodes++;
	counts_drop(d->counts, blk);
	clone_follow(d, blockcnt, nb);
	*blocknr = nb;
	d->cloned++;
	return BLOCK_CHANGED;
}

static int count_data(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref_blk,
		      int ref_offset, void *priv)
{
	(void)fs; (void)blocknr; (void)ref_blk; (void)ref_offset;
	if (blockcnt >= 0)
		++*(blk64_t *)priv;
	return 0;
}

/*
 * Did the tree libext2fs rewrote while remapping reach the disk whole? An
 * extent changed by the walk (BLOCK_CHANGED) goes through
 * ext2fs_extent_replace, which drops the error of its inode write (out of
 * memory inside libext2fs): the cache then holds one tree and the disk
 * another, and a split extent can lose its second half, the file its
 * blocks. Read again with the cache emptied, the inode must be the one
 * libext2fs holds and map every block the walk met; else the round ends
 * on the operational error it is, and is dropped.
 */
static errcode_t clone_inode_kept(ext2_filsys fs, ext2_ino_t ino, blk64_t walked)
{
	struct ext2_inode_large cached, disk;
	blk64_t mapped = 0;
	errcode_t err;

	if ((err = ext2fs_read_inode2(fs, ino, (struct ext2_inode *)&cached, sizeof(cached),
				      READ_INODE_NOCSUM)) ||
	    (err = ext2fs_flush_icache(fs)) ||
	    (err = ext2fs_read_inode2(fs, ino, (struct ext2_inode *)&disk, sizeof(disk), READ_INODE_NOCSUM)))
		return err;
	/*
	 * The cache keeps the inode as given, the disk with its checksum set;
	 * and past the first 128 bytes the cache holds what a short write left
	 * there, not the disk's: the map and its counts are in those 128.
	 */
	cached.osd2.linux2.l_i_checksum_lo = disk.osd2.linux2.l_i_checksum_lo = 0;
	if (memcmp(&cached, &disk, EXT2_GOOD_OLD_INODE_SIZE))
		return E4R_INODE_WRITE_LOST;
	if ((err = ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY, NULL, count_data, &mapped)))
		return err;
	return mapped == walked ? 0 : E4R_INODE_WRITE_LOST;
}

/*
 * Walk INO's blocks as WALK says; 1 (in *SKIP) when it has none to walk:
 * unused now (cleared earlier in the round, an invalid symlink say: a copy
 * for it would be a block in use that nothing owns), or inline data.
 */
static errcode_t dup_walk(struct dup_clone *d, ext2_ino_t ino, enum dup_walk walk, int *skip)
{
	struct check_ctx *c = d->c;
	ext2_filsys fs = c->fs;
	struct ext2_inode in;
	errcode_t err;

	*skip = 1;
	if (!ino || ino > c->inodes || !ext2fs_test_inode_bitmap2(c->inode_used, ino))
		return 0;
	if ((err = fs_read_inode(fs, ino, &in)))
		return err;
	/* inline data holds no blocks to clone (libext2fs refuses to walk it) */
	if (in.i_flags & EXT4_INLINE_DATA_FL)
		return 0;
	*skip = 0;
	d->walk = walk;
	d->shares = 0;
	d->met = 0;
	d->err = 0;
	d->extents = !!(in.i_flags & EXT4_EXTENTS_FL);
	d->lcluster = d->kept_pc = d->new_pc = d->count_pc = E4R_NONE;
	d->last_pblk = E4R_NONE;
	d->last_lblk = 0;
	d->home = fs_inode_goal(fs, ino, LINUX_S_ISREG(in.i_mode));
	if (walk != DUP_CLONE) {
		err = ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY, NULL, clone_cb, d);
		/* a walk that could not start reads as a file with no blocks: a sharer's cannot be */
		if (!err && !d->met)
			err = fs_walk_unread_why(fs, ino);
		/* a map that cannot be walked: the clone's walk says so */
		if (err && !util_no_memory(err) && !d->counts->err)
			err = 0;
		return d->counts->err ? d->counts->err : err;
	}
	d->ntaken = 0;
	d->taken_err = 0;
	d->walked = 0;
	d->nodes = 0;
	d->charged = ext2fs_get_stat_i_blocks(fs, &in) * 512;
	/* what the clone takes, to give back if the file is deleted for want of more */
	repair_alloc_watch(c, clone_took, d);
	/*
	 * An extent node in metadata gets a copy of its own first: a clone
	 * under it would be written into it (block maps: see clone_cb)
	 */
	if (d->extents && EXT2FS_CLUSTER_RATIO(fs) == 1 &&
	    !util_no_memory(err = repair_clone_meta_maps(c, ino)))
		err = 0;	/* a map that cannot be walked: the clone's walk says so below */
	if (!err)
		err = ext2fs_block_iterate3(fs, ino, 0, NULL, clone_cb, d);
	repair_alloc_watch(c, NULL, NULL);
	if (!err && !d->err && !d->met)
		err = fs_walk_unread_why(fs, ino);
	/* (only a file this walk changed: every change took a block) */
	if (!err && !d->err && d->extents && d->ntaken)
		err = clone_inode_kept(fs, ino, d->walked);
	/* a copied node still holds the checksum its first owner's number seeds */
	if (!err && !d->err && d->nodes && ext2fs_has_feature_metadata_csum(fs->super))
		err = ext2fs_fix_extents_checksums(fs, ino, NULL);
	return d->taken_err ? d->taken_err : err ? err : d->err;
}

errcode_t repair_dups(struct check_ctx *c, struct check_finding *f, size_t n, unsigned *cloned,
		      repair_dups_delete_fn del, void *arg)
{
	ext2_filsys fs = c->fs;
	struct dup_counts counts = { 0 };
	struct dup_clone d = { .c = c, .counts = &counts };
	errcode_t err = 0;
	size_t i;
	int skip, deleted;

	*cloned = 0;
	d.buf = malloc(fs->blocksize);
	if (!d.buf)
		return ENOMEM;
	/* every claim first, as e2fsck's pass 1B counts them */
	for (i = 0; i < n && !err; i++)
		err = dup_walk(&d, (ext2_ino_t)f[i].ino, DUP_COUNT, &skip);
	if (!err)
		counts_sort(&counts);
	for (i = 0; i < n && !err; i++) {
		ext2_ino_t ino = (ext2_ino_t)f[i].ino;

		/* no block it claims is shared now: the ones before took copies ("dealt with") */
		if ((err = dup_walk(&d, ino, DUP_TEST, &skip)))
			break;
		if (skip || !d.shares) {
			f[i].fixed = 1;
			continue;
		}
		err = dup_walk(&d, ino, DUP_CLONE, &skip);
		if (!err) {
			f[i].fixed = 1;
			continue;
		}
		if (err != EXT2_ET_BLOCK_ALLOC_FAIL)
			break;
		/*
		 * No free block for a copy: e2fsck asks to delete the file. Its
		 * blocks go free with the next round's rebuild, where the next
		 * sharers' copies may find room, as e2fsck's next ones find the
		 * blocks its deletion freed: they wait for that round.
		 */
		f[i].fixed = 1;
		if ((err = del(arg, ino, EXT2_ET_BLOCK_ALLOC_FAIL, &deleted)))
			break;
		if (!deleted) {
			f[i].fixed = 0;
			continue;	/* left shared, as e2fsck leaves it */
		}
		clone_release(fs, &d);
		if ((err = repair_quota_uncharge(c, ino, d.charged)))
			break;
		for (i++; i < n; i++)
			f[i].deferred = 1;
	}
	*cloned = d.cloned;
	free(d.taken);
	free(d.buf);
	free(counts.v);
	return err;
}
