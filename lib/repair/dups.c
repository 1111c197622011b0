/*
 * Checker repair of multiply-claimed blocks, as e2fsck's pass 1D: every
 * inode but one gets its own copy of each block it shares. The first
 * claimant in inode order keeps the block; the others get a new block with
 * the same content, so no file loses data (though all but one may hold
 * data that was never theirs: the output says which inodes shared).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/ctx.h"
#include "fs/goal.h"
#include "fs/inode.h"
#include "repair/repair.h"
#include "util/nomem.h"

struct dup_clone {
	struct check_ctx	*c;
	ext2fs_block_bitmap	kept;	/* shared blocks whose keeper is decided */
	char			*buf;
	errcode_t		err;
	unsigned		cloned;
	int			extents;	/* the inode walked maps by extents */
	/*
	 * bigalloc: the inode walked keeps or copies whole clusters. Its last
	 * logical cluster that met a shared one: the physical cluster it kept
	 * (kept_pc) or the new one its blocks go to (new_pc), E4R_NONE if none
	 */
	blk64_t			lcluster, kept_pc, new_pc;
	/*
	 * Where the kernel would put the file's next block (ext4_ext_find_goal):
	 * after its last data block walked, by the logical distance; before
	 * any, its inode's (flex) group (fs_inode_goal)
	 */
	blk64_t			home, last_pblk;
	e2_blkcnt_t		last_lblk;
};

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
 * cluster of one file, each block at its own offset: the first claimant
 * keeps the cluster where its blocks sit at their offsets; any other use
 * (another file's, or the same file's misaligned one) gets a new cluster,
 * each block at its logical offset in it, as e2fsck's pass 1D clones.
 */
static int clone_in_cluster(ext2_filsys fs, struct dup_clone *d, blk64_t *blocknr, e2_blkcnt_t blockcnt)
{
	blk64_t blk = *blocknr, mask = EXT2FS_CLUSTER_MASK(fs), nb = 0;
	blk64_t lc = (blk64_t)blockcnt >> fs->cluster_ratio_bits, pc = EXT2FS_B2C(fs, blk);
	int aligned = (blk & mask) == ((blk64_t)blockcnt & mask);

	if (lc != d->lcluster) {
		d->lcluster = lc;
		d->kept_pc = d->new_pc = E4R_NONE;
		if (aligned && !ext2fs_test_block_bitmap2(d->kept, blk)) {
			ext2fs_mark_block_bitmap2(d->kept, blk);
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
		d->new_pc = EXT2FS_B2C(fs, nb);
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

static int clone_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		    blk64_t ref_blk, int ref_offset, void *priv)
{
	struct dup_clone *d = priv;
	blk64_t blk = *blocknr, nb = 0;

	(void)ref_offset;
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
	if (EXT2FS_CLUSTER_RATIO(fs) > 1 && blockcnt >= 0)
		return clone_in_cluster(fs, d, blocknr, blockcnt);
	if (!ext2fs_test_block_bitmap2(d->kept, blk)) {
		ext2fs_mark_block_bitmap2(d->kept, blk);
		clone_follow(d, blockcnt, blk);
		return 0;
	}
	/*
	 * An indirect block is copied like data, before the walk reads it: the
	 * walk goes on below the copy, whose entries (shared too) get copies of
	 * their own, as e2fsck's pass 1D does. Extent nodes shared are left:
	 * their copy would need the extent handle's own walk.
	 */
	if (blockcnt < 0 && d->extents)
		return 0;
	if ((d->err = repair_new_block(d->c, clone_goal(d, blockcnt), NULL, &nb)) ||
	    (d->err = io_channel_read_blk64(fs->io, blk, 1, d->buf)) ||
	    (d->err = io_channel_write_blk64(fs->io, nb, 1, d->buf)))
		return BLOCK_ABORT;
	ext2fs_block_alloc_stats2(fs, nb, +1);
	clone_follow(d, blockcnt, nb);
	*blocknr = nb;
	d->cloned++;
	return BLOCK_CHANGED;
}

errcode_t repair_dups(struct check_ctx *c, const struct check_finding *f, size_t n, unsigned *cloned)
{
	ext2_filsys fs = c->fs;
	struct dup_clone d = { .c = c };
	struct ext2_inode in;
	errcode_t err;
	size_t i;

	*cloned = 0;
	err = ext2fs_allocate_block_bitmap(fs, "kept shared blocks", &d.kept);
	if (err)
		return err;
	d.buf = malloc(fs->blocksize);
	if (!d.buf) {
		ext2fs_free_block_bitmap(d.kept);
		return ENOMEM;
	}
	for (i = 0; i < n && !err; i++) {
		ext2_ino_t ino = (ext2_ino_t)f[i].ino;

		if (!ino || ino > c->inodes)
			continue;
		/*
		 * Cleared earlier in the round (an invalid symlink, say): a copy
		 * for it would be a block in use that nothing owns, and the
		 * others keep the shared blocks.
		 */
		if (!ext2fs_test_inode_bitmap2(c->inode_used, ino))
			continue;
		d.err = 0;
		d.extents = 0;
		d.lcluster = d.kept_pc = d.new_pc = E4R_NONE;
		d.last_pblk = E4R_NONE;
		d.last_lblk = 0;
		if (!(err = fs_read_inode(fs, ino, &in))) {
			d.extents = !!(in.i_flags & EXT4_EXTENTS_FL);
			d.home = fs_inode_goal(fs, ino, LINUX_S_ISREG(in.i_mode));
		}
		/* inline data holds no blocks to clone (libext2fs refuses to walk it) */
		if (!err && (in.i_flags & EXT4_INLINE_DATA_FL))
			continue;
		/*
		 * An extent node in metadata gets a copy of its own first: a clone
		 * under it would be written into it (block maps: see clone_cb)
		 */
		if (!err && d.extents && EXT2FS_CLUSTER_RATIO(fs) == 1 &&
		    !util_no_memory(err = repair_clone_meta_maps(c, ino)))
			err = 0;	/* a map that cannot be walked: the clone's walk says so below */
		if (!err)
			err = ext2fs_block_iterate3(fs, ino, 0, NULL, clone_cb, &d);
		if (!err)
			err = d.err;
	}
	*cloned = d.cloned;
	free(d.buf);
	ext2fs_free_block_bitmap(d.kept);
	return err;
}
