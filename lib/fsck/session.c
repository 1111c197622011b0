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
#include "fs/open.h"
#include "fsck/fsck.h"
#include "fsck/session.h"
#include "replay/image.h"
#include "util/e4r_err.h"

static int stop(struct fsck_session *s, enum fsck_stage stage, errcode_t err)
{
	s->stopped = stage;
	s->err = err;
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
	struct replay_opts ro = { .policy = o->policy, .undo_file = o->undo_file };
	struct replay_result *r = NULL;
	errcode_t err = replay_image(o->image, &ro, &r);
	enum fsck_stage stage = FSCK_STAGE_NONE;

	if (err == E4R_NO_JOURNAL || (!err && r && (r->nothing_to_do || r->resumed))) {
		err = 0;
	} else if (err && (!r || !r->p)) {
		if (err == E4R_UNDO_EXISTS)
			stage = FSCK_STAGE_UNDO;
		else
			err = 0;
	} else {
		s->journal.replayed = 1;
		s->journal.failed_commit = r->p->has_failed_commit;
		s->journal.failed_seq = r->p->failed_commit;
		s->journal.csum_error = r->p->recovery_error || r->p->csum_skipped;
		tell(o, FSCK_EVENT_JOURNAL_REPLAYED, s);
		if (err)
			stage = FSCK_STAGE_REPLAY;
	}
	replay_free(r);
	s->err = err;
	return stage;
}

int fsck_session_run(const struct fsck_session_opts *o, struct fsck_session *s)
{
	int repair = o->check.repair != E4R_REPAIR_NONE;
	io_manager io = unix_io_manager;
	ext2_filsys fs = NULL;
	unsigned backup_bs = 0;
	int undo_made = 0, flags = repair ? E4R_OPEN_RW : 0;
	enum fsck_stage stage;
	errcode_t err;

	memset(s, 0, sizeof(*s));
	if (repair) {
		/* Refused before anything is written, the journal's replay included. */
		if (o->undo_file && access(o->undo_file, F_OK) == 0)
			return stop(s, FSCK_STAGE_UNDO, E4R_UNDO_EXISTS);
		if ((err = fs_not_mounted(o->image)))
			return stop(s, FSCK_STAGE_MOUNTED, err);
		if ((stage = replay_journal(o, s)) != FSCK_STAGE_NONE)
			return stop(s, stage, s->err);
		/* the replay's undo file holds the journal's blocks: the repairs add theirs to it */
		undo_made = o->undo_file && access(o->undo_file, F_OK) == 0;
		if ((err = fs_undo_io(o->undo_file, undo_made, &io)))
			return stop(s, FSCK_STAGE_UNDO, err);
		fs_pick_super(o->image, &s->backup_sb, &backup_bs);
	} else if (fs_image_open(o->image, flags, io, &fs) == 0) {
		ext2fs_close_free(&fs);
	} else {
		/* like e2fsck -n: a primary superblock libext2fs refuses is read from a sound backup */
		fs_pick_super(o->image, &s->backup_sb, &backup_bs);
		s->backup_ro = s->backup_sb != 0;
	}
	if (s->backup_sb) {
		/* like e2fsck: bad primary descriptors are replaced by a sound backup's */
		tell(o, FSCK_EVENT_BACKUP_SUPER, s);
		err = fs_open_backup(o->image, s->backup_sb, backup_bs, io, repair, &fs);
	} else {
		err = fs_image_open(o->image, flags, io, &fs);
	}
	/* Like e2fsck: a superblock libext2fs rejects may still be checkable; the passes report it. */
	if (err == EXT2_ET_CORRUPT_SUPERBLOCK)
		err = fs_image_open(o->image, flags | E4R_OPEN_IGNORE_SB_ERRORS, io, &fs);
	if (err)
		return stop(s, FSCK_STAGE_OPEN, err);
	err = fsck_run(fs, &o->check, &s->result);
	if (err) {
		ext2fs_close_free(&fs);
		return stop(s, FSCK_STAGE_CHECK, err);
	}
	/* The repairs are in memory and in the io cache: writing them is part of the check. */
	if ((err = ext2fs_close_free(&fs)))
		return stop(s, FSCK_STAGE_CLOSE, err);
	s->exit_code = fsck_exit_code(s);
	return s->exit_code;
}

void fsck_session_free(struct fsck_session *s)
{
	check_result_free(s->result);
	s->result = NULL;
}

int fsck_exit_code(const struct fsck_session *s)
{
	const struct check_result *r = s->result;
	int rc;

	if (s->stopped != FSCK_STAGE_NONE || !r)
		return s->err == E4R_UNDO_EXISTS ? FSCK_EXIT_USAGE : FSCK_EXIT_OPERATIONAL;
	rc = r->fixed || (s->backup_sb && !s->backup_ro) ? FSCK_EXIT_FIXED : FSCK_EXIT_OK;
	if (r->left || r->preen_halt || s->backup_ro)
		rc = FSCK_EXIT_UNCORRECTED;
	if (r->aborted)
		rc = (rc & FSCK_EXIT_UNCORRECTED) | FSCK_EXIT_OPERATIONAL;
	return rc;
}
