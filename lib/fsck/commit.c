/* A repair round's writes: journaled, then home; or dropped whole (see commit.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fs/guard_io.h"
#include "fs/overlay_io.h"
#include "fsck/commit.h"
#include "jbd/journal.h"
#include "jbd/logwrite.h"
#include "util/bytes.h"
#include "util/e4r_err.h"
#include "util/nomem.h"

errcode_t fsck_commit_begin(ext2_filsys fs)
{
	return fs_overlay_hold(fs->blocksize);
}

/*
 * Change the primary superblock on the disk under the overlay: SET and
 * CLEAR are masks of the incompat features, STATE of s_state bits to set.
 * The checksum follows. Nothing else of it changes. On the disk before
 * returning when DURABLE; else with the next flush.
 */
static errcode_t home_super(ext2_filsys fs, uint32_t set, uint32_t clear, uint16_t state, int durable)
{
	io_channel lo = fs_overlay_lower();
	struct ext2_super_block sb;
	unsigned saved;
	errcode_t err, err2;

	if (!lo)
		return EXT2_ET_INVALID_ARGUMENT;
	saved = (unsigned)lo->block_size;
	if ((err = io_channel_set_blksize(lo, SUPERBLOCK_OFFSET)))
		return err;
	err = io_channel_read_blk64(lo, 1, 1, &sb);
	if (!err) {
		sb.s_feature_incompat = (sb.s_feature_incompat | set) & ~clear;
		sb.s_state |= state;
		ext2fs_superblock_csum_set(fs, &sb);
		err = io_channel_write_blk64(lo, 1, 1, &sb);
	}
	err2 = io_channel_set_blksize(lo, (int)saved);
	if (!err)
		err = err2;
	if (!err && durable)
		err = io_channel_flush(lo);
	return err;
}

/*
 * Change the held copy of the primary superblock (made from FS's when the
 * round did not write it): SET and CLEAR are masks of the incompat
 * features, STATE of s_state bits to clear. The checksum follows.
 */
static errcode_t held_super(ext2_filsys fs, uint32_t set, uint16_t clear_state)
{
	blk64_t blk = SUPERBLOCK_OFFSET / fs->blocksize;
	unsigned off = SUPERBLOCK_OFFSET % fs->blocksize;
	const unsigned char *held = fs_overlay_data(blk);
	struct ext2_super_block sb;

	if (held)
		memcpy(&sb, held + off, sizeof(sb));
	else
		memcpy(&sb, fs->super, sizeof(sb));
	sb.s_feature_incompat |= set;
	sb.s_state &= ~clear_state;
	ext2fs_superblock_csum_set(fs, &sb);
	return fs_overlay_put((uint64_t)blk * fs->blocksize + off, sizeof(sb), &sb);
}

/* Does the round change the journal inode or any block of the journal? */
static int journal_touched(ext2_filsys fs, const struct jbd_journal *j)
{
	unsigned isz = EXT2_INODE_SIZE(fs->super);
	uint64_t at = (uint64_t)(EXT2_JOURNAL_INO - 1) * isz;
	blk64_t blk = ext2fs_inode_table_loc(fs, 0) + at / fs->blocksize;
	const unsigned char *held = fs_overlay_data(blk);
	uint32_t i;

	if (held) {
		unsigned char *disk = malloc(fs->blocksize);
		io_channel lo = fs_overlay_lower();
		int differs = 1;

		if (disk && !io_channel_read_blk64(lo, blk, 1, disk))
			differs = memcmp(disk + at % fs->blocksize, held + at % fs->blocksize, isz) != 0;
		free(disk);
		if (differs)
			return 1;
	}
	for (i = 0; i < j->total_len; i++)
		if (fs_overlay_data(j->map[i]))
			return 1;
	return 0;
}

/*
 * The journal the round can be written through, or NULL with *WHY: an
 * internal journal that loads as e2fsck would load it, is empty, and is
 * not itself changed by the round.
 */
static struct jbd_journal *usable_journal(ext2_filsys fs, enum check_unjournaled *why, errcode_t *err)
{
	struct jbd_journal *j = NULL;

	*err = 0;
	*why = E4R_UNJOURNALED_NO_JOURNAL;
	if (!ext2fs_has_feature_journal(fs->super) || !fs->super->s_journal_inum ||
	    !util_is_zero(fs->super->s_journal_uuid, sizeof(fs->super->s_journal_uuid)) ||
	    fs->super->s_journal_dev)
		return NULL;
	*why = E4R_UNJOURNALED_JOURNAL_BAD;
	if (fs->super->s_journal_inum != EXT2_JOURNAL_INO)
		return NULL;
	/* out of memory is the run's end, not a journal to go without */
	if ((*err = jbd_journal_open(fs, NULL, &j))) {
		if (!util_no_memory(*err))
			*err = 0;
		return NULL;
	}
	if (j->external || j->start || j->sb_csum_ok == 0 || j->format != 2) {
		jbd_journal_close(j);
		return NULL;
	}
	*why = E4R_UNJOURNALED_JOURNAL_REPAIRED;
	if (journal_touched(fs, j)) {
		jbd_journal_close(j);
		return NULL;
	}
	*why = E4R_UNJOURNALED_NONE;
	/* the log goes to the disk, past the overlay */
	j->io = fs_overlay_lower();
	return j;
}

/*
 * libext2fs's metadata in memory joins the round's writes, as ext2fs_close
 * would write it; until the FINAL writes, the primary superblock and
 * descriptors only: the backups are written once, at the end, as they were
 * before rounds were committed one by one, not once a round.
 */
static errcode_t hold_fs_metadata(ext2_filsys fs, int final)
{
	int master_only = fs->flags & EXT2_FLAG_MASTER_SB_ONLY;
	errcode_t err = 0;

	if (fs->flags & (EXT2_FLAG_IB_DIRTY | EXT2_FLAG_BB_DIRTY)) {
		fs_guard_bitmaps(1);
		err = ext2fs_write_bitmaps(fs);
		fs_guard_bitmaps(0);
	}
	if (!err && (fs->flags & EXT2_FLAG_DIRTY)) {
		if (!final)
			fs->flags |= EXT2_FLAG_MASTER_SB_ONLY;
		err = ext2fs_flush2(fs, EXT2_FLAG_FLUSH_NO_SYNC);
		fs->flags = (fs->flags & ~EXT2_FLAG_MASTER_SB_ONLY) | master_only;
	}
	return err;
}

/* The held blocks as log entries, in block order; free *E. */
static errcode_t held_entries(struct jbd_log_entry **e, unsigned long *n)
{
	const blk64_t *blks = fs_overlay_blocks();
	unsigned long i;
	errcode_t err;

	*n = fs_overlay_count();
	if (!blks)
		return EXT2_ET_NO_MEMORY;
	if ((err = ext2fs_get_array(*n, sizeof(**e), e)))
		return err;
	for (i = 0; i < *n; i++) {
		(*e)[i].blk = blks[i];
		(*e)[i].data = fs_overlay_data(blks[i]);
		(*e)[i].escaped = 0;
	}
	return 0;
}

/* Read or write (WRITE) block BLK of FS past the overlay, whatever block size the channel has now. */
static errcode_t lower_block(ext2_filsys fs, int write, blk64_t blk, void *buf)
{
	io_channel lo = fs_overlay_lower();
	int saved = lo->block_size;
	errcode_t err = 0, err2 = 0;

	if (saved != (int)fs->blocksize && (err = io_channel_set_blksize(lo, (int)fs->blocksize)))
		return err;
	err = write ? io_channel_write_blk64(lo, blk, 1, buf) : io_channel_read_blk64(lo, blk, 1, buf);
	if (saved != (int)fs->blocksize)
		err2 = io_channel_set_blksize(lo, saved);
	return err ? err : err2;
}

/* E[0..N) home, past the overlay, and on the disk before returning. */
static errcode_t entries_home(ext2_filsys fs, const struct jbd_log_entry *e, unsigned long n)
{
	unsigned long i;
	errcode_t err = 0;

	for (i = 0; !err && i < n; i++)
		err = lower_block(fs, 1, e[i].blk, (void *)e[i].data);
	return err ? err : io_channel_flush(fs_overlay_lower());
}

/*
 * Where a block goes in a round split over several transactions: the
 * blocks nothing on the disk points to yet (a clone's copies, a new
 * directory block) and the rest of the files' blocks first, then the
 * inode tables that point to them, then the bitmaps, descriptors and
 * backup superblocks that count them, the primary superblock last. A
 * cut between two transactions then leaves references to blocks already
 * written, never to blocks still waiting.
 */
enum piece_rank { RANK_FILE, RANK_ITABLE, RANK_SUMMARY, RANK_PRIMARY };

struct ranked {
	struct jbd_log_entry	e;
	unsigned char		rank;
};

static int by_rank(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->e.blk < y->e.blk ? -1 : x->e.blk > y->e.blk;
}

/* Rank E[0..N) (in block order) into *OUT, sorted; free *OUT. */
static errcode_t rank_entries(ext2_filsys fs, const struct jbd_log_entry *e, unsigned long n, struct ranked **out)
{
	ext2fs_block_bitmap itable = NULL, summary = NULL;
	blk64_t primary = SUPERBLOCK_OFFSET / fs->blocksize;
	blk64_t nblocks = ext2fs_blocks_count(fs->super);
	struct ranked *r = NULL;
	unsigned long i;
	errcode_t err;
	dgrp_t g;

	err = ext2fs_allocate_block_bitmap(fs, "inode tables", &itable);
	if (!err)
		err = ext2fs_allocate_block_bitmap(fs, "summaries", &summary);
	for (g = 0; !err && g < fs->group_desc_count; g++) {
		blk64_t t = ext2fs_inode_table_loc(fs, g), b = ext2fs_block_bitmap_loc(fs, g);
		blk64_t ib = ext2fs_inode_bitmap_loc(fs, g);

		if (t && t + fs->inode_blocks_per_group <= nblocks)
			ext2fs_mark_block_bitmap_range2(itable, t, fs->inode_blocks_per_group);
		if (b && b < nblocks)
			ext2fs_mark_block_bitmap2(summary, b);
		if (ib && ib < nblocks)
			ext2fs_mark_block_bitmap2(summary, ib);
		ext2fs_reserve_super_and_bgd(fs, g, summary);
	}
	if (!err)
		err = ext2fs_get_array(n ? n : 1, sizeof(*r), &r);
	for (i = 0; !err && i < n; i++) {
		r[i].e = e[i];
		if (e[i].blk == primary)
			r[i].rank = RANK_PRIMARY;
		else if (ext2fs_test_block_bitmap2(summary, e[i].blk))
			r[i].rank = RANK_SUMMARY;
		else if (ext2fs_test_block_bitmap2(itable, e[i].blk))
			r[i].rank = RANK_ITABLE;
		else
			r[i].rank = RANK_FILE;
	}
	if (!err)
		qsort(r, n, sizeof(*r), by_rank);
	ext2fs_free_block_bitmap(itable);
	ext2fs_free_block_bitmap(summary);
	if (err)
		ext2fs_free_mem(&r);
	*out = r;
	return err;
}

/*
 * The disk's block of the primary superblock, saying "not clean", into
 * BUF: the first transaction of a split round carries it, so that a cut
 * before the last one leaves a filesystem the next check checks fully.
 * It keeps needs_recovery (set on the disk before): home, it must not let
 * a mount wipe a log still to be replayed.
 */
static errcode_t unclean_super_block(ext2_filsys fs, unsigned char *buf)
{
	blk64_t blk = SUPERBLOCK_OFFSET / fs->blocksize;
	struct ext2_super_block *sb = (void *)(buf + SUPERBLOCK_OFFSET % fs->blocksize);
	errcode_t err = lower_block(fs, 0, blk, buf);

	if (err)
		return err;
	sb->s_state &= ~EXT2_VALID_FS;
	ext2fs_superblock_csum_set(fs, sb);
	return 0;
}

/*
 * Write the held blocks through J, CAP of them at most a transaction (the
 * round's superblock without the CLEAR_STATE bits): log,
 * commit, home, log empty, as many times as it takes. *IN_LOG is set once
 * the first transaction is committed: a failure after that is not undone
 * (the disk says "not clean" or holds a log to replay). *TXNS counts the
 * transactions committed.
 */
static errcode_t commit_journaled(ext2_filsys fs, struct jbd_journal *j, unsigned long cap, uint16_t clear_state,
				  int *in_log, unsigned *txns)
{
	struct jbd_log_entry *e = NULL, *piece = NULL;
	struct ranked *r = NULL;
	unsigned char *unclean = NULL;
	unsigned long n = 0, at, k;
	errcode_t err;

	*txns = 0;
	/*
	 * The kernel wipes a log the superblock does not say needs recovery:
	 * the home copy says it first, and the logged copy keeps saying it
	 * until the home copies are all written (the log empties after).
	 */
	err = held_super(fs, EXT3_FEATURE_INCOMPAT_RECOVER, clear_state);
	/* on the disk with the log's blocks, by the flush before the commit block */
	if (!err)
		err = home_super(fs, EXT3_FEATURE_INCOMPAT_RECOVER, 0, 0, 0);
	if (!err)
		err = held_entries(&e, &n);
	if (!err && n <= cap) {
		err = jbd_log_commit(j, e, (unsigned)n);
		/* committed: from here a cut is completed by any replay */
		*in_log = !err;
		*txns = !err;
		if (!err)
			err = fs_overlay_write_home();
		if (!err)
			err = jbd_log_checkpointed(j);
		goto done;
	}
	/* larger than the log: pieces of CAP, the first with the "not clean" superblock */
	if (!err && cap < 2)
		err = E4R_WRITE_TXN_TOO_BIG;
	if (!err)
		err = rank_entries(fs, e, n, &r);
	if (!err)
		err = ext2fs_get_array(cap, sizeof(*piece), &piece);
	if (!err)
		err = ext2fs_get_mem(fs->blocksize, &unclean);
	if (!err)
		err = unclean_super_block(fs, unclean);
	for (at = 0; !err && at < n; at += k) {
		unsigned long m = 0;

		if (!at) {
			piece[m].blk = SUPERBLOCK_OFFSET / fs->blocksize;
			piece[m].data = unclean;
			piece[m++].escaped = 0;
		}
		for (k = 0; at + k < n && m < cap; k++)
			piece[m++] = r[at + k].e;
		err = jbd_log_commit(j, piece, (unsigned)m);
		if (!err) {
			*in_log = 1;
			++*txns;
			err = entries_home(fs, piece, m);
		}
		if (!err)
			err = jbd_log_checkpointed(j);
	}
	if (!err)
		fs_overlay_drop();
done:
	/*
	 * Lost, the flag would only make the next replay find an empty log;
	 * the next flush (the next round's, or the close's) takes it along.
	 */
	if (!err)
		err = home_super(fs, 0, EXT3_FEATURE_INCOMPAT_RECOVER, 0, 0);
	ext2fs_free_mem(&unclean);
	ext2fs_free_mem(&piece);
	ext2fs_free_mem(&r);
	ext2fs_free_mem(&e);
	return err;
}

errcode_t fsck_commit_round(ext2_filsys fs, struct check_commits *n, int final)
{
	enum check_unjournaled why;
	struct jbd_journal *j;
	const blk64_t *blks;
	unsigned long cap = 0;
	unsigned txns = 0;
	int in_log = 0;
	errcode_t err;

	if (n)
		n->in_log = 0;
	/* after rounds that said "not clean" on the disk, the last writes say what is true now */
	if (final && n && (n->journaled || n->direct))
		ext2fs_mark_super_dirty(fs);
	err = hold_fs_metadata(fs, final);
	if (err || !fs_overlay_count())
		return err;
	j = usable_journal(fs, &why, &err);
	if (err)
		return err;
	/* asked before anything is written: jbd_log_commit would refuse it only after the home flag */
	if (j && !(blks = fs_overlay_blocks())) {
		jbd_journal_close(j);
		return EXT2_ET_NO_MEMORY;
	}
	if (j && (cap = jbd_log_capacity(j, blks[fs_overlay_count() - 1])) < 2) {
		why = E4R_UNJOURNALED_TOO_BIG;
		jbd_journal_close(j);
		j = NULL;
	}
	/*
	 * Between rounds the filesystem may still hold what the next round
	 * mends: a crash there must not leave it called clean, or the next
	 * preen would pass over the rest. The last writes set the state.
	 */
	if (j) {
		err = commit_journaled(fs, j, cap, final ? 0 : EXT2_VALID_FS, &in_log, &txns);
		jbd_journal_close(j);
		if (in_log && n) {
			n->journaled += txns;
			if (txns > 1) {
				n->split++;
				n->split_txns += txns;
			}
			n->in_log = err != 0;
		}
		return err;
	}
	if (!final)
		err = held_super(fs, 0, EXT2_VALID_FS);
	if (!err)
		err = fs_overlay_write_home();
	if (!err && n) {
		n->direct++;
		n->why = why;
	}
	return err;
}

void fsck_commit_drop_round(ext2_filsys fs, struct check_result *r, unsigned round, errcode_t err)
{
	r->round_dropped = 1;
	r->dropped_round = round;
	r->dropped_err = err;
	/* the error state is the best left: if even it cannot be written, the error above is the one to report */
	(void)fsck_commit_drop(fs);
}

errcode_t fsck_commit_drop(ext2_filsys fs)
{
	fs_overlay_drop();
	if (!fs_overlay_lower())
		return 0;
	return home_super(fs, 0, 0, EXT2_ERROR_FS, 1);
}

void fsck_commit_close_dropped(ext2_filsys *fs)
{
	fs_overlay_drop();
	(*fs)->flags &= ~(EXT2_FLAG_DIRTY | EXT2_FLAG_IB_DIRTY | EXT2_FLAG_BB_DIRTY);
	ext2fs_close_free(fs);
}
