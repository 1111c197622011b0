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

/*
 * Write the held blocks through J: log, commit, home, log empty. *IN_LOG
 * is set once the transaction is committed: a failure after that leaves
 * it to the next replay, not undone.
 */
static errcode_t commit_journaled(ext2_filsys fs, struct jbd_journal *j, int *in_log)
{
	unsigned long n, i;
	const blk64_t *blks;
	struct jbd_log_entry *e = NULL;
	errcode_t err;

	/*
	 * The kernel wipes a log the superblock does not say needs recovery:
	 * the home copy says it first, and the logged copy keeps saying it
	 * until the home copies are all written (the log empties after).
	 */
	err = held_super(fs, EXT3_FEATURE_INCOMPAT_RECOVER, 0);
	n = fs_overlay_count();
	/* on the disk with the log's blocks, by the flush before the commit block */
	if (!err)
		err = home_super(fs, EXT3_FEATURE_INCOMPAT_RECOVER, 0, 0, 0);
	blks = fs_overlay_blocks();
	if (!err && !blks)
		err = EXT2_ET_NO_MEMORY;
	if (!err)
		err = ext2fs_get_array(n, sizeof(*e), &e);
	for (i = 0; !err && i < n; i++) {
		e[i].blk = blks[i];
		e[i].data = fs_overlay_data(blks[i]);
		e[i].escaped = 0;
	}
	if (!err)
		err = jbd_log_commit(j, e, (unsigned)n);
	ext2fs_free_mem(&e);
	/* committed: from here a cut is completed by any replay */
	*in_log = !err;
	if (!err)
		err = fs_overlay_write_home();
	if (!err)
		err = jbd_log_checkpointed(j);
	/*
	 * Lost, the flag would only make the next replay find an empty log;
	 * the next flush (the next round's, or the close's) takes it along.
	 */
	if (!err)
		err = home_super(fs, 0, EXT3_FEATURE_INCOMPAT_RECOVER, 0, 0);
	return err;
}

errcode_t fsck_commit_round(ext2_filsys fs, struct check_commits *n, int final)
{
	enum check_unjournaled why;
	struct jbd_journal *j;
	const blk64_t *blks;
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
	/*
	 * Between rounds the filesystem may still hold what the next round
	 * mends: a crash there must not leave it called clean, or the next
	 * preen would pass over the rest. The last writes set the state.
	 */
	if (!final && (err = held_super(fs, 0, EXT2_VALID_FS)))
		return err;
	j = usable_journal(fs, &why, &err);
	if (err)
		return err;
	/* asked before anything is written: jbd_log_commit would refuse it only after the home flag */
	if (j && !(blks = fs_overlay_blocks())) {
		jbd_journal_close(j);
		return EXT2_ET_NO_MEMORY;
	}
	if (j && !jbd_log_holds(j, fs_overlay_count(), blks[fs_overlay_count() - 1])) {
		why = E4R_UNJOURNALED_TOO_BIG;
		jbd_journal_close(j);
		j = NULL;
	}
	if (j) {
		err = commit_journaled(fs, j, &in_log);
		jbd_journal_close(j);
		if (in_log && n) {
			n->journaled++;
			n->in_log = err != 0;
		}
		return err;
	}
	err = fs_overlay_write_home();
	if (!err && n) {
		n->direct++;
		n->why = why;
	}
	return err;
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
