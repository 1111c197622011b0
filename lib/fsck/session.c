/*
 * The check command's decisions, in e2fsck's order: refuse a mounted
 * filesystem, replay the journal, pick the superblock, open, check and
 * repair, write out, and the exit code. The front-end only parses options,
 * asks and prints.
 */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "fs/image.h"
#include "fs/guard_io.h"
#include "fs/held_io.h"
#include "fs/ioerr_io.h"
#include "fs/open.h"
#include "fs/overlay_io.h"
#include "fsck/commit.h"
#include "fsck/fsck.h"
#include "fsck/session.h"
#include "replay/image.h"
#include "util/e4r_err.h"
#include "util/nomem.h"

static int stop(struct fsck_session *s, enum fsck_stage stage, errcode_t err)
{
	s->stopped = stage;
	/* a cancel is what stopped it, whatever error the refused write became on its way up */
	s->err = fs_overlay_refused() == E4R_CANCELLED ? E4R_CANCELLED : err;
	s->exit_code = fsck_exit_code(s);
	return s->exit_code;
}

static void tell(const struct fsck_session_opts *o, enum fsck_event what, const struct fsck_session *s)
{
	if (o->event)
		o->event(o->event_arg, what, s);
}

/*
 * Replay the journal before the check, as e2fsck does. Returns where the
 * session stops (S->err set), or FSCK_STAGE_NONE to go on: also when there
 * is no journal, nothing to replay, or a journal the replay cannot load
 * (the check opens the image itself and reports a bad journal superblock).
 */
static enum fsck_stage replay_journal(const struct fsck_session_opts *o, struct fsck_session *s)
{
	struct replay_opts ro = { .policy = o->policy, .undo_file = o->undo_file,
				  .journal_path = o->journal_path, .diagnose = 1 };
	struct replay_result *r = NULL;
	errcode_t err = replay_image(o->image, &ro, &r);
	enum fsck_stage stage = FSCK_STAGE_NONE;

	if (err == E4R_NO_JOURNAL || (!err && r && (r->nothing_to_do || r->resumed))) {
		err = 0;
	} else if (err == E4R_REPLAY_JSB_CSUM) {
		/*
		 * A journal superblock that fails its checksum, which the stop
		 * policy will not replay under: e2fsck loads no such journal,
		 * replays nothing, calls the superblock corrupt and makes a new,
		 * empty one. The check does the same (journal_sb_csum) and goes on.
		 */
		err = 0;
	} else if (err == E4R_JOURNAL_EXTERNAL_NEEDED) {
		/*
		 * Like e2fsck, which cannot proceed without the journal device:
		 * neither replaying nor checking a filesystem whose journal may
		 * hold its latest metadata, and never calling it clean.
		 */
		s->journal.device_missing = 1;
		stage = FSCK_STAGE_REPLAY;
	} else if (err && (!r || !r->p)) {
		if (err == E4R_UNDO_EXISTS)
			stage = FSCK_STAGE_UNDO;
		else if (util_no_memory(err))
			/* no memory to find out whether the log needs a replay: checking unreplayed could find damage */
			stage = FSCK_STAGE_REPLAY;
		else
			err = 0;
	} else {
		s->journal.replayed = 1;
		s->journal.failed_commit = r->p->has_failed_commit;
		s->journal.failed_seq = r->p->failed_commit;
		s->journal.log_fault = r->p->recovery_error != E4R_SCAN_BAD_CSUM ?
				       r->p->recovery_error : 0;
		s->journal.csum_error = r->p->recovery_error == E4R_SCAN_BAD_CSUM || r->p->csum_skipped ||
					r->p->csum_mismatches;
		s->journal.left_out_txns = r->left_out_txns;
		s->journal.left_out_blocks = r->left_out_blocks;
		s->replay = r;
		r = NULL;
		tell(o, FSCK_EVENT_JOURNAL_REPLAYED, s);
		if (err)
			stage = FSCK_STAGE_REPLAY;
	}
	replay_free(r);
	s->err = err;
	return stage;
}

/*
 * A read-only check replays nothing, but a journal that needs recovery is
 * read and diagnosed as the replay would be (a dry run, under O's policy),
 * so its faults are named and counted as errors left. A journal that
 * cannot be read is left to the check, which judges its superblock.
 */
static void diagnose_journal(const struct fsck_session_opts *o, struct fsck_session *s)
{
	struct replay_opts ro = { .policy = o->policy, .dry_run = 1, .journal_path = o->journal_path,
				  .diagnose = 1 };
	struct replay_result *r = NULL;
	const struct diag_report *d;

	/* a log the superblock does not claim is no recovery: the check notes it, nothing replays it */
	if (replay_image(o->image, &ro, &r) || !r || !r->p || r->nothing_to_do || r->resumed ||
	    !r->needs_recovery) {
		replay_free(r);
		return;
	}
	d = replay_diagnosis(r);
	s->journal.diagnosed = 1;
	s->journal.failed_commit = r->p->has_failed_commit;
	s->journal.failed_seq = r->p->failed_commit;
	s->journal.log_fault = r->p->recovery_error != E4R_SCAN_BAD_CSUM ? r->p->recovery_error : 0;
	s->journal.faults = d ? d->problems : 0;
	if (!s->journal.faults && (r->p->recovery_error || r->p->has_failed_commit))
		s->journal.faults = 1;
	s->replay = r;
	tell(o, FSCK_EVENT_JOURNAL_DIAGNOSED, s);
}

/* Where the write guard stopped the repair, for the front end to name. */
static void guard_report(struct fsck_session *s)
{
	blk64_t blk;
	const char *what;

	/*
	 * after an I/O error the repair went on with zeros for what it did not
	 * read; after a cancel, libext2fs's cache holds writes the overlay
	 * refused, and the next write of the same block differs in more than
	 * the guard allows: neither is a bug of ours
	 */
	if (fs_ioerr_last(NULL) || fs_overlay_refused())
		return;
	if (fs_guard_tripped(&blk, &what)) {
		s->guard_tripped = 1;
		s->guard_blk = blk;
		s->guard_what = what;
	}
}

/*
 * What e2fsck does between the replay and its decision to check: the error
 * state when the replay left anything out, then the orphans. FS is open
 * read-write.
 */
static errcode_t after_replay(const struct fsck_session_opts *o, struct fsck_session *s, ext2_filsys fs)
{
	struct ext2_super_block *sb = fs->super;
	errcode_t err;

	/*
	 * Anything the log did not vouch for calls for the full check: a block
	 * left out, and also one replayed although its checksum failed (auto's
	 * judgement of the cause may be wrong: a zeroed block once passed for a
	 * harmless leak), as e2fsck marks the filesystem after a checksum error.
	 */
	if (s->journal.replayed &&
	    (s->journal.left_out_txns || s->journal.left_out_blocks || s->journal.csum_error) &&
	    !(sb->s_state & EXT2_ERROR_FS)) {
		sb->s_state |= EXT2_ERROR_FS;
		ext2fs_mark_super_dirty(fs);
		s->journal.marked_error = 1;
		/* On disk (and its checksum with it) before the check reads the superblock. */
		if ((err = ext2fs_flush(fs)))
			return err;
		tell(o, FSCK_EVENT_MARKED_ERROR, s);
	}
	s->journal.error_state = !!(sb->s_state & EXT2_ERROR_FS);
	err = fsck_orphans_release(fs, &s->orphans);
	if (!err && (s->orphans.n || s->orphans.failed || s->orphans.dropped))
		tell(o, FSCK_EVENT_ORPHANS, s);
	return err;
}

static int run(const struct fsck_session_opts *o, struct fsck_session *s)
{
	int repair = o->check.repair != E4R_REPAIR_NONE;
	io_manager io;
	ext2_filsys fs = NULL;
	unsigned backup_bs = 0;
	/*
	 * A read-only check goes on over an image shorter than its superblock says,
	 * as e2fsck -n does (the checker reports the sizes); repairs refuse it, as
	 * e2fsck -y aborts
	 */
	int undo_made = 0, flags = repair ? E4R_OPEN_RW : E4R_OPEN_NO_SIZE_CHECK;
	enum fsck_stage stage;
	errcode_t err;

	memset(s, 0, sizeof(*s));
	fs_ioerr_clear();
	fs_overlay_refuse(0);
	if (repair) {
		/* Refused before anything is written, the journal's replay included. */
		if (o->undo_file && access(o->undo_file, F_OK) == 0)
			return stop(s, FSCK_STAGE_UNDO, E4R_UNDO_EXISTS);
		if ((err = fs_not_mounted(o->image)))
			return stop(s, FSCK_STAGE_MOUNTED, err);
	}
	/*
	 * One open of the image for every step below, read-write when they may
	 * write (fs/held_io.h): each step's open of the path reaches it. One
	 * that fails holds nothing, and the steps' own opens say why.
	 */
	(void)fs_held_open(o->image, repair);
	io = fs_image_io(o->image, NULL);
	if (!repair)
		diagnose_journal(o, s);
	if (repair) {
		if ((stage = replay_journal(o, s)) != FSCK_STAGE_NONE)
			return stop(s, stage, s->err);
		/* the replay's undo file holds the journal's blocks: the repairs add theirs to it */
		undo_made = o->undo_file && access(o->undo_file, F_OK) == 0;
		if ((err = fs_undo_io(o->image, o->undo_file, undo_made, &io)))
			return stop(s, FSCK_STAGE_UNDO, err);
		/*
		 * every repair write passes the guard (fs/guard_io.h), which judges it as
		 * it is made; the overlay under it holds it until its round is complete
		 * (fsck/commit.h)
		 */
		io = fs_guard_io(fs_overlay_io(io));
		if ((err = fs_pick_super(o->image, &s->backup_sb, &backup_bs)))
			return stop(s, FSCK_STAGE_OPEN, err);
	} else if ((err = fs_image_open(o->image, flags, io, &fs)) == 0 && !fs_super_csum_bad(fs)) {
		ext2fs_close_free(&fs);
	} else if (util_no_memory(err)) {
		/* a primary that could not be read for lack of memory is no reason to read a backup */
		return stop(s, FSCK_STAGE_OPEN, err);
	} else {
		/*
		 * like e2fsck -n: a primary superblock libext2fs refuses, or whose
		 * checksum fails, is read from a sound backup
		 */
		if (fs)
			ext2fs_close_free(&fs);
		if ((err = fs_pick_super(o->image, &s->backup_sb, &backup_bs)))
			return stop(s, FSCK_STAGE_OPEN, err);
		s->backup_ro = s->backup_sb != 0;
	}
	if (s->backup_sb) {
		/* like e2fsck: bad primary descriptors are replaced by a sound backup's */
		tell(o, FSCK_EVENT_BACKUP_SUPER, s);
		err = fs_open_backup(o->image, s->backup_sb, backup_bs, io, repair, &fs);
	} else {
		err = fs_image_open(o->image, flags, io, &fs);
	}
	/*
	 * Like e2fsck: a superblock libext2fs rejects may still be checkable; the
	 * passes report it. A descriptor size it rejects too (e2fsck reads the
	 * descriptors with it and goes on); an inode count past what the blocks
	 * hold (read-only the check stops at it, repairing it sets it from the
	 * groups first, as e2fsck does)
	 */
	if (err == EXT2_ET_CORRUPT_SUPERBLOCK || err == EXT2_ET_BAD_DESC_SIZE ||
	    err == E4R_IMAGE_TOO_MANY_INODES)
		err = fs_image_open(o->image, flags | E4R_OPEN_IGNORE_SB_ERRORS, io, &fs);
	if (err)
		return stop(s, FSCK_STAGE_OPEN, err);
	if (repair && ((err = fs_guard_arm(fs)) || (err = fsck_commit_begin(fs)))) {
		ext2fs_close_free(&fs);
		fs_guard_disarm();
		return stop(s, FSCK_STAGE_OPEN, err);
	}
	/* the orphans' release is a transaction of its own, before the check reads the result */
	if (repair && ((err = after_replay(o, s, fs)) || (err = fsck_commit_round(fs, &s->orphans_commit, 0)))) {
		fsck_commit_drop(fs);
		fsck_commit_close_dropped(&fs);
		/* the guard outlives a filesystem unless disarmed: the next session in this process would trip it */
		fs_guard_disarm();
		return stop(s, FSCK_STAGE_CHECK, err);
	}
	err = fsck_run(fs, &o->check, &s->result);
	if (err) {
		guard_report(s);
		/*
		 * The round under way was dropped (fsck_run): what earlier rounds
		 * committed stays, nothing more is written.
		 */
		if (repair)
			fsck_commit_close_dropped(&fs);
		else
			ext2fs_close_free(&fs);
		fs_guard_disarm();
		return stop(s, FSCK_STAGE_CHECK, s->guard_tripped ? E4R_WRITE_GUARD : err);
	}
	s->result->commits.journaled += s->orphans_commit.journaled;
	s->result->commits.direct += s->orphans_commit.direct;
	s->result->commits.split += s->orphans_commit.split;
	s->result->commits.split_txns += s->orphans_commit.split_txns;
	if (s->orphans_commit.direct && !s->result->commits.why)
		s->result->commits.why = s->orphans_commit.why;
	/*
	 * Releasing orphans is routine: e2fsck's exit code does not count it.
	 * After a full check it still says the filesystem was modified.
	 */
	if (s->orphans.changed && s->result->reason != E4R_REASON_CLEAN_SKIPPED)
		s->result->written = 1;
	/*
	 * The last writes (the clean state, the totals) are the last
	 * transaction; a failure to commit them drops them like a round's.
	 */
	if (repair && (err = fsck_commit_round(fs, &s->result->commits, 1))) {
		guard_report(s);
		if (!s->result->commits.in_log)
			fsck_commit_drop_round(fs, s->result, 0, err);
		fsck_commit_close_dropped(&fs);
		fs_guard_disarm();
		return stop(s, FSCK_STAGE_CLOSE, s->guard_tripped ? E4R_WRITE_GUARD : err);
	}
	err = ext2fs_close_free(&fs);
	guard_report(s);
	fs_guard_disarm();
	if (s->guard_tripped)
		err = E4R_WRITE_GUARD;	/* libext2fs reports a refused write as its own failure */
	if (err)
		return stop(s, FSCK_STAGE_CLOSE, err);
	s->exit_code = fsck_exit_code(s);
	return s->exit_code;
}

int fsck_session_run(const struct fsck_session_opts *o, struct fsck_session *s)
{
	int rc = run(o, s);

	/* every holder that wrote flushed the image as it closed: nothing is left to write here */
	(void)fs_held_close();
	return rc;
}

void fsck_session_free(struct fsck_session *s)
{
	check_result_free(s->result);
	s->result = NULL;
	replay_free(s->replay);
	s->replay = NULL;
	fsck_orphans_free(&s->orphans);
}

void fsck_session_cancel(void)
{
	fs_overlay_refuse(E4R_CANCELLED);
}

int fsck_exit_code(const struct fsck_session *s)
{
	const struct check_result *r = s->result;
	int rc;

	/* e2fsck's FSCK_CANCELED */
	if (s->stopped != FSCK_STAGE_NONE && s->err == E4R_CANCELLED)
		return FSCK_EXIT_CANCELED;
	/* e2fsck without its journal device: "Cannot proceed", errors left (12). */
	if (s->journal.device_missing)
		return FSCK_EXIT_OPERATIONAL | FSCK_EXIT_UNCORRECTED;
	if (s->stopped != FSCK_STAGE_NONE || !r)
		return s->err == E4R_UNDO_EXISTS ? FSCK_EXIT_USAGE : FSCK_EXIT_OPERATIONAL;
	rc = r->fixed || (s->backup_sb && !s->backup_ro) ? FSCK_EXIT_FIXED : FSCK_EXIT_OK;
	/* a read-only check leaves the journal's faults as it found them */
	if (r->left || r->unsettled || r->preen_halt || s->backup_ro || s->journal.faults)
		rc = FSCK_EXIT_UNCORRECTED;
	if (r->aborted)
		rc = (rc & FSCK_EXIT_UNCORRECTED) | FSCK_EXIT_OPERATIONAL;
	/* where e2fsck stops: "Cannot proceed with file system check" */
	if (check_result_halted(r))
		rc = FSCK_EXIT_OPERATIONAL | FSCK_EXIT_UNCORRECTED;
	return rc;
}
