/* A journal loaded for a command: the steps logdump, diagnose and a replay share, in one order. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "replay/load.h"
#include "util/e4r_err.h"

/* Note which step ERR, if any, comes from. */
static errcode_t at(struct replay_load *ld, enum replay_load_step step, errcode_t err)
{
	if (err)
		ld->failed = step;
	return err;
}

/* Auto's diagnosis, which answers the plan's questions (*HOOKS), or the one O asks for. */
static errcode_t diagnose(const struct replay_load_opts *o, struct replay_load *ld,
			  const struct replay_hooks **hooks)
{
	/* a fault of the log's structure is explained too, where no checksum fails */
	int failures = replay_log_has_failures(ld->s) || jbd_scan_structure_faults(ld->s);
	errcode_t err;

	if (o->policy == JBD_POLICY_AUTO && !o->hooks && (failures || o->diagnose_healthy)) {
		ld->autop = calloc(1, sizeof(*ld->autop));
		if (!ld->autop)
			return EXT2_ET_NO_MEMORY;
		err = replay_auto_setup(ld->j, ld->s, ld->autop);
		if (!err)
			*hooks = &ld->autop->hooks;
		return err;
	}
	if (o->policy == JBD_POLICY_ASK && !o->hooks && o->asker && failures) {
		ld->askp = calloc(1, sizeof(*ld->askp));
		if (!ld->askp)
			return EXT2_ET_NO_MEMORY;
		err = replay_ask_setup(ld->j, ld->s, o->asker, ld->askp);
		if (!err)
			*hooks = &ld->askp->hooks;
		return err;
	}
	if (o->diagnose && failures)
		return diag_journal(ld->j, ld->s, &ld->diag);
	return 0;
}

static errcode_t plan(const struct replay_load_opts *o, struct replay_load *ld,
		      const struct replay_hooks *hooks)
{
	errcode_t err;

	if (o->plan_failures && !replay_log_has_failures(ld->s))
		return 0;
	err = replay_plan_build(ld->j, ld->s, o->policy, ext2fs_blocks_count(ld->j->fs->super), hooks,
				&ld->plan);
	/* Only a report: a filesystem too damaged to compare or name blocks in still gets the rest. */
	if (!err && o->alternatives && replay_plan_fell_back(ld->plan) &&
	    replay_alternatives(ld->j, ld->s, ld->plan, &ld->alts))
		ld->alts = NULL;
	return err;
}

/*
 * The fast-commit area follows the last full commit replayed: its HEAD
 * must carry the next ID (enum replay_load_fc says which replay counts).
 */
static errcode_t scan_fast_commits(const struct replay_load_opts *o, struct replay_load *ld)
{
	const struct replay_plan *p = ld->plan;
	errcode_t err;

	if (o->fc == REPLAY_LOAD_FC_NONE || !(ld->j->incompat & JBD_FEATURE_INCOMPAT_FAST_COMMIT))
		return 0;
	if (o->fc == REPLAY_LOAD_FC_SHOW)
		return jbd_fc_scan(ld->j, ld->s->stop_end, &ld->fc);
	/* Recovery failing as a whole replays nothing, the full commits' part or the area's. */
	if (!p || p->recovery_error || p->policy == JBD_POLICY_NONE)
		return 0;
	err = jbd_fc_scan(ld->j, p->as_stop ? ld->s->stop_end : ld->s->end_sequence, &ld->fc);
	return err == E4R_FC_NOT_ENABLED ? 0 : err;
}

errcode_t replay_load_journal(ext2_filsys fs, const struct replay_load_opts *o, struct replay_load *ld)
{
	errcode_t err;

	memset(ld, 0, sizeof(*ld));
	err = at(ld, REPLAY_LOAD_OPEN, jbd_journal_open(fs, o->journal_path, &ld->j));
	if (err)
		return err;
	ld->j->progress = o->progress;
	ld->j->progress_arg = o->progress_arg;
	return 0;
}

errcode_t replay_load_log(const struct replay_load_opts *o, struct replay_load *ld)
{
	const struct replay_hooks *hooks = o->hooks;
	errcode_t err;

	err = at(ld, REPLAY_LOAD_SCAN, jbd_scan_log(ld->j, o->scan_flags, &ld->s));
	if (!err)
		err = at(ld, REPLAY_LOAD_DIAGNOSE, diagnose(o, ld, &hooks));
	if (!err)
		err = at(ld, REPLAY_LOAD_PLAN, plan(o, ld, hooks));
	if (!err)
		err = at(ld, REPLAY_LOAD_FC, scan_fast_commits(o, ld));
	return err;
}

errcode_t replay_load(ext2_filsys fs, const struct replay_load_opts *o, struct replay_load *ld)
{
	errcode_t err = replay_load_journal(fs, o, ld);

	return err ? err : replay_load_log(o, ld);
}

void replay_load_free(struct replay_load *ld)
{
	jbd_fc_free(ld->fc);
	replay_alternatives_free(ld->alts);
	replay_plan_free(ld->plan);
	diag_free(ld->diag);
	if (ld->autop) {
		replay_auto_free(ld->autop);
		free(ld->autop);
	}
	if (ld->askp) {
		replay_ask_free(ld->askp);
		free(ld->askp);
	}
	if (ld->s)
		jbd_scan_free(ld->s);
	if (ld->j)
		jbd_journal_close(ld->j);
	memset(ld, 0, sizeof(*ld));
}
