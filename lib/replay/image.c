/* Replaying an image's journal, with the superblock protocol that makes an interrupted replay resumable. */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "replay/image.h"
#include "replay/load.h"
#include "fs/image.h"
#include "fs/open.h"
#include "fs/writeback.h"
#include "util/e4r_err.h"

/*
 * Written into the journal superblock's padding (s_padding[0]) between
 * emptying the journal and clearing needs_recovery: "e4r" + 'F'inishing.
 * Neither the kernel nor e2fsck read the padding.
 */
#define E4R_FINISH_MARK		0x65347246U
#define JSB_MARK_OFFSET		offsetof(struct jbd_superblock, s_padding)

static uint32_t jsb_get(const struct jbd_journal *j, unsigned off)
{
	jbd_be32_t v;

	memcpy(&v, j->raw_sb + off, sizeof(v));
	return jbd_be32(v);
}

static void jsb_set(struct jbd_journal *j, unsigned off, uint32_t val)
{
	jbd_be32_t v = jbd_to_be32(val);

	memcpy(j->raw_sb + off, &v, sizeof(v));
}

#define JSB_SEQUENCE	offsetof(struct jbd_superblock, s_sequence)
#define JSB_START	offsetof(struct jbd_superblock, s_start)
#define JSB_ERRNO	offsetof(struct jbd_superblock, s_errno)

static errcode_t setup_io(const char *image, const struct replay_opts *o, io_manager *io)
{
	struct stat st;
	errcode_t err;

	*io = fs_image_io(image, o->io);
	if (!o->undo_file || o->dry_run || o->policy == JBD_POLICY_NONE)
		return 0;
	if (stat(o->undo_file, &st) == 0)
		return E4R_UNDO_EXISTS;
	if (o->journal_path)
		return E4R_UNDO_EXTERNAL;
	err = set_undo_io_backing_manager(*io);
	if (!err)
		err = set_undo_io_backup_file((char *)o->undo_file);
	if (!err)
		*io = undo_io_manager;
	return err;
}

/* Step 2: the fs state bits e2fsck sets after a failed or corrupt recovery. */
static errcode_t mark_state(ext2_filsys fs, int invalid, int error)
{
	uint16_t state = fs->super->s_state;

	if (invalid)
		state &= ~EXT2_VALID_FS;
	if (error)
		state |= EXT2_ERROR_FS;
	if (state == fs->super->s_state)
		return 0;
	fs->super->s_state = state;
	ext2fs_mark_super_dirty(fs);
	return ext2fs_flush(fs);
}

static errcode_t clear_needs_recovery(ext2_filsys fs)
{
	if (!ext2fs_has_feature_journal_needs_recovery(fs->super))
		return 0;
	ext2fs_clear_feature_journal_needs_recovery(fs->super);
	ext2fs_mark_super_dirty(fs);
	return ext2fs_flush(fs);
}

/* Steps 4-5 (also what a run that finds the mark does). */
static errcode_t finish(ext2_filsys fs, struct jbd_journal *j)
{
	errcode_t err = clear_needs_recovery(fs);

	if (err)
		return err;
	jsb_set(j, JSB_MARK_OFFSET, 0);
	return jbd_journal_write_super(j);
}

/* Steps 2-5, on FS as it is after step 1; closes FS (*FSP is NULL afterwards). */
static errcode_t finish_recovery(ext2_filsys *fsp, const struct replay_opts *o,
				 struct replay_result *r)
{
	ext2_filsys fs = *fsp;
	struct jbd_journal *j = NULL;
	errcode_t err;

	*fsp = NULL;
	fs->flags |= EXT2_FLAG_MASTER_SB_ONLY;
	r->fs_marked_invalid = replay_plan_fs_invalid(r->p) || r->fc_failed;
	r->fs_marked_error = r->p->has_failed_commit || r->j->errno_ != 0;
	err = mark_state(fs, r->fs_marked_invalid, r->fs_marked_error);
	if (!err)
		err = jbd_journal_open(fs, o->journal_path, &j);
	if (!err) {
		jsb_set(j, JSB_START, 0);
		jsb_set(j, JSB_SEQUENCE, r->p->new_sequence);
		/* The error now lives in the fs superblock, as e2fsck moves it. */
		jsb_set(j, JSB_ERRNO, 0);
		jsb_set(j, JSB_MARK_OFFSET, E4R_FINISH_MARK);
		err = jbd_journal_write_super(j);
	}
	if (!err)
		err = finish(fs, j);
	r->sequence_after = r->p->new_sequence;
	jbd_journal_close(j);
	if (err) {
		ext2fs_free(fs);
		return err;
	}
	return ext2fs_close_free(&fs);
}

/* The previous run stopped between steps 3 and 5: do 4 and 5 only. */
static errcode_t resume(ext2_filsys fs, struct replay_result *r)
{
	r->resumed = 1;
	r->sequence_after = r->j->sequence;
	fs->flags |= EXT2_FLAG_MASTER_SB_ONLY;
	return finish(fs, r->j);
}

/* Whether step 1 is followed by a fast-commit replay (or its failure to record). */
static int replay_has_fast_commits(const struct replay_result *r)
{
	return r->fc && (r->fc->ncommitted || r->fc->stop_error);
}

/*
 * Apply the committed fast-commit tags on the filesystem as the full
 * commits left it. A damaged area before its first complete fast commit
 * makes the kernel refuse the mount: we apply nothing and ask for a check.
 */
static errcode_t replay_fast_commits(const char *image, io_manager io, struct replay_result *r)
{
	ext2_filsys fs = NULL;
	errcode_t err;

	if (!replay_has_fast_commits(r))
		return 0;
	if (r->fc->stop_error) {
		r->fc_failed = 1;
		return 0;
	}
	err = fs_image_open(image, E4R_OPEN_RW, io, &fs);
	if (err)
		return err;
	err = replay_fc(fs, r->fc, &r->fc_result);
	if (err) {
		fs->flags &= ~EXT2_FLAG_DIRTY;
		ext2fs_close_free(&fs);
		return err;
	}
	r->fc_replayed = 1;
	r->fc_failed = r->fc_result.failed != 0;
	return ext2fs_close_free(&fs);
}

/* Whether IMAGE's journal is clean, needs_recovery clear, and no finish is pending. */
static errcode_t probe_idle(const char *image, const struct replay_opts *o, int *idle)
{
	ext2_filsys fs = NULL;
	struct jbd_journal *j = NULL;
	errcode_t err = fs_image_open(image, 0, o->io, &fs);

	*idle = 0;
	if (!err)
		err = jbd_journal_open(fs, o->journal_path, &j);
	if (!err)
		*idle = j->start == 0 && !ext2fs_has_feature_journal_needs_recovery(fs->super) &&
			jsb_get(j, JSB_MARK_OFFSET) != E4R_FINISH_MARK;
	jbd_journal_close(j);
	if (fs)
		ext2fs_close_free(&fs);
	return err;
}

/* What a replay loads of the journal: the live log, planned under O's policy, and its fast commits. */
static void load_opts(const struct replay_opts *o, struct replay_load_opts *lo)
{
	memset(lo, 0, sizeof(*lo));
	lo->journal_path = o->journal_path;
	lo->progress = o->progress;
	lo->progress_arg = o->progress_arg;
	lo->policy = o->policy;
	lo->hooks = o->hooks;
	lo->asker = o->asker;
	lo->diagnose = o->diagnose;
	lo->alternatives = 1;
	lo->fc = REPLAY_LOAD_FC_REPLAY;
}

/* R owns what LD loaded from here on (replay_free frees it). */
static void keep(struct replay_result *r, const struct replay_load *ld)
{
	r->j = ld->j;
	r->s = ld->s;
	r->autop = ld->autop;
	r->askp = ld->askp;
	r->diag = ld->diag;
	r->p = ld->plan;
	r->alts = ld->alts;
	r->fc = ld->fc;
}

errcode_t replay_image(const char *image, const struct replay_opts *o, struct replay_result **out)
{
	struct replay_result *r;
	ext2_filsys fs = NULL;
	struct replay_load_opts lo;
	struct replay_load ld;
	io_manager io;
	errcode_t err;
	int writing = !o->dry_run && o->policy != JBD_POLICY_NONE, wb_fd;

	*out = r = calloc(1, sizeof(*r));
	if (!r)
		return EXT2_ET_NO_MEMORY;
	/* Never under a live kernel: checked before anything is opened for writing. */
	if (writing && (err = fs_mount_point(image, NULL, 0)))
		return err;
	/* Nothing to do means nothing opened for writing and no undo file created. */
	if (writing) {
		err = probe_idle(image, o, &r->nothing_to_do);
		if (err || r->nothing_to_do)
			return err;
	}
	err = setup_io(image, o, &io);
	if (err)
		return err;
	err = fs_image_open(image, writing ? E4R_OPEN_RW : 0, io, &fs);
	if (err)
		return err;
	r->needs_recovery = ext2fs_has_feature_journal_needs_recovery(fs->super);
	load_opts(o, &lo);
	err = replay_load_journal(fs, &lo, &ld);
	r->j = ld.j;
	if (err)
		goto out;
	if (writing && jsb_get(r->j, JSB_MARK_OFFSET) == E4R_FINISH_MARK && r->j->start == 0) {
		err = resume(fs, r);
		goto out;
	}
	if (r->j->start == 0 && !r->needs_recovery) {
		r->nothing_to_do = 1;
		goto out;
	}
	err = replay_load_log(&lo, &ld);
	keep(r, &ld);
	/* Whenever there is a plan: the report shows it even when reading the fast commits failed. */
	if (r->p)
		replay_plan_left_out(r->p, &r->left_out_txns, &r->left_out_blocks);
	if (err || !writing)
		goto out;
	if (r->j->sb_csum_ok == 0 && r->p->as_stop) {
		/* e2fsck would reset the journal; we refuse to guess and write nothing. */
		err = E4R_REPLAY_JSB_CSUM;
		goto out;
	}
	/*
	 * Step 1; when recovery fails as a whole the plan writes nothing. Not
	 * with an undo file: its records should not trail the blocks they
	 * guard onto the disk by more than the kernel's own write-back does.
	 */
	wb_fd = o->undo_file ? -1 : fs_writeback_open(image);
	err = replay_write_blocks(r->j, r->p, fs->io, wb_fd, &r->blocks_written);
	fs_writeback_close(wb_fd);
	if (!err && r->autop && !r->p->as_stop) {
		err = replay_auto_repair_journal(r->autop, r->j);
		if (!err)
			err = io_channel_flush(r->j->io);
	}
	if (!err && r->askp && r->askp->ncorrected) {
		err = replay_ask_repair_journal(r->askp, r->j);
		if (!err)
			err = io_channel_flush(r->j->io);
	}
	if (err)
		goto out;
	/*
	 * The blocks written may include the superblock and descriptors: close
	 * without flushing anything of ours (nothing was marked dirty) and read
	 * them anew. When step 1 wrote nothing, keep the handle: closing it
	 * would leave libext2fs's undo manager an undo file with no block in it,
	 * which neither its reopen nor e2undo accepts ("corrupt undo file").
	 */
	if (r->blocks_written || replay_has_fast_commits(r)) {
		err = ext2fs_close_free(&fs);
		if (!err)
			err = replay_fast_commits(image, io, r);
		if (!err)
			err = fs_image_open(image, E4R_OPEN_RW, io, &fs);
	}
	if (!err)
		err = finish_recovery(&fs, o, r);
out:
	if (fs) {
		if (o->dry_run && !err) {
			r->fs = fs;
		} else {
			/* Never let libext2fs flush a handle after an error: close without writing. */
			fs->flags &= ~EXT2_FLAG_DIRTY;
			ext2fs_close_free(&fs);
		}
	}
	return err;
}

void replay_free(struct replay_result *r)
{
	if (!r)
		return;
	replay_alternatives_free(r->alts);
	replay_plan_free(r->p);
	diag_free(r->diag);
	jbd_fc_free(r->fc);
	if (r->autop) {
		replay_auto_free(r->autop);
		free(r->autop);
	}
	if (r->askp) {
		replay_ask_free(r->askp);
		free(r->askp);
	}
	if (r->s)
		jbd_scan_free(r->s);
	if (r->j)
		jbd_journal_close(r->j);
	if (r->fs)
		ext2fs_close_free(&r->fs);
	free(r);
}

const struct diag_report *replay_diagnosis(const struct replay_result *r)
{
	if (r->autop)
		return r->autop->diag;
	if (r->askp)
		return r->askp->diag.diag;
	return r->diag;
}
