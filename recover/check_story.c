/*
 * What check tells of the journal it replayed and of the orphans it
 * released before checking: each failed checksum with its cause (the
 * diagnosis) and what the policy did with it, what the replay left out, and
 * the state the filesystem was left in for the check.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "check_story.h"
#include "diag_print.h"
#include "i18n.h"

/* What the plan did with the object of finding F: its block's fate, or its transaction's. */
static const char *outcome_name(const struct fsck_session *s, const struct replay_plan *p,
				const struct diag_finding *f)
{
	if (s->journal.diagnosed)
		return "not_replayed_read_only";
	if (f->txn >= p->s->ntxns)
		return "?";
	if (p->txn_fate[f->txn] == JBD_TXN_REPLAYED && f->block >= 0 &&
	    (unsigned)f->block < p->s->txns[f->txn].nblocks)
		return replay_block_fate_name(jbd_plan_block_fate(p, f->txn, (unsigned)f->block));
	return replay_txn_fate_name(p->txn_fate[f->txn]);
}

static const char *outcome_text(const struct replay_plan *p, const struct diag_finding *f)
{
	if (f->txn >= p->s->ntxns)
		return "?";
	if (p->txn_fate[f->txn] == JBD_TXN_REPLAYED && f->block >= 0 &&
	    (unsigned)f->block < p->s->txns[f->txn].nblocks) {
		switch (jbd_plan_block_fate(p, f->txn, (unsigned)f->block)) {
		case JBD_BLK_REPLAYED:	return _("the block was replayed as logged");
		case JBD_BLK_CORRECTED:	return _("the block was replayed corrected");
		case JBD_BLK_REVOKED:	return _("the block was revoked by a later transaction");
		case JBD_BLK_OUT_OF_FS:	return _("the block was left out: its home is outside the filesystem");
		default:		return _("the block was left out");
		}
	}
	switch (p->txn_fate[f->txn]) {
	case JBD_TXN_REPLAYED:		return _("the transaction was replayed");
	case JBD_TXN_PAST_END:		return _("the replay stopped before this transaction");
	case JBD_TXN_SKIPPED:		return _("the transaction was skipped");
	case JBD_TXN_RECOVERY_FAILS:	return _("recovery failed as a whole: nothing was replayed");
	case JBD_TXN_UNCOMMITTED:	return _("the transaction never committed: not replayed");
	default:			return _("not replayed");
	}
}

/* Each committed live transaction the plan did not replay, as "N, M, ..." on OUT. */
static void text_left_txns(FILE *out, const struct replay_plan *p)
{
	const char *sep = "";

	for (unsigned t = 0; t < p->s->nlive; t++) {
		enum replay_txn_fate f = p->txn_fate[t];
		if (p->s->txns[t].committed &&
		    (f == JBD_TXN_PAST_END || f == JBD_TXN_SKIPPED || f == JBD_TXN_RECOVERY_FAILS)) {
			fprintf(out, "%s%" PRIu32, sep, p->s->txns[t].sequence);
			sep = ", ";
		}
	}
}

/* Do findings F and G (both problems) read alike: the same object, cause, proof and outcome? */
/* Alike in a read-only check's story: the same object and cause (nothing is replayed). */
static int alike_diagnosed(const struct diag_finding *f, const struct diag_finding *g)
{
	return g->problem && g->object == f->object && g->structure == f->structure && g->cause == f->cause;
}

static int alike(const struct replay_plan *p, const struct diag_finding *f, const struct diag_finding *g)
{
	return g->problem && g->object == f->object && g->cause == f->cause && g->proven == f->proven &&
	       !strcmp(outcome_text(p, g), outcome_text(p, f));
}

/* Was a finding alike D's finding I told before it (in its line)? P NULL: a read-only diagnosis. */
static int told_alike(const struct diag_report *d, const struct replay_plan *p, unsigned i)
{
	for (unsigned j = 0; j < i; j++)
		if (p ? alike(p, &d->findings[j], &d->findings[i]) : alike_diagnosed(&d->findings[j], &d->findings[i]))
			return 1;
	return 0;
}

/*
 * The sequences of D's findings from I on alike its finding I, into LIST
 * ("3, 4, 7", cut with ", ..." when long); how many there are.
 */
static unsigned alike_list(const struct diag_report *d, const struct replay_plan *p, unsigned i,
			   char *list, size_t size)
{
	const struct diag_finding *f = &d->findings[i];
	size_t len = 0;
	unsigned n = 0;

	list[0] = 0;
	for (unsigned j = i; j < d->nfindings; j++) {
		if (!(p ? alike(p, f, &d->findings[j]) : alike_diagnosed(f, &d->findings[j])))
			continue;
		n++;
		if (len + 16 < size)
			len += (size_t)snprintf(list + len, size - len, "%s%" PRIu32, len ? ", " : "",
						d->findings[j].sequence);
		else if (len + 6 < size && strcmp(list + len - 5, ", ...") != 0)
			len += (size_t)snprintf(list + len, size - len, ", ...");
	}
	return n;
}

void check_story_text(FILE *out, const char *image, const struct fsck_session *s, int verbose)
{
	const struct replay_result *r = s->replay;
	const struct diag_report *d = r ? replay_diagnosis(r) : NULL;

	if (s->journal.device_missing)
		fprintf(out, _("%s: the external journal device was not found: the journal was not replayed\n"), image);
	if (!(s->journal.replayed || s->journal.diagnosed) || !r || !r->p)
		return;
	if (s->journal.diagnosed) {
		for (unsigned i = 0; d && i < d->nfindings; i++) {
			const struct diag_finding *f = &d->findings[i];

			char list[256];
			unsigned n;

			if (!f->problem || (!verbose && told_alike(d, NULL, i)))
				continue;
			n = verbose ? 1 : alike_list(d, NULL, i, list, sizeof(list));
			if (n > 1)
				fprintf(out, _("Journal transactions %s (%u): %s, cause: %s; left as found: a read-only "
					       "check replays nothing.\n"),
					list, n, diag_print_finding_object_text(f), diag_print_cause_text(f->cause));
			else
				fprintf(out, _("Journal transaction %" PRIu32 ": %s (journal block %" PRIu32 "), "
					       "cause: %s; left as found: a read-only check replays nothing.\n"),
					f->sequence, diag_print_finding_object_text(f), f->jblk,
					diag_print_cause_text(f->cause));
		}
		return;
	}
	if (r->j && r->j->device)
		fprintf(out, _("%s: the external journal was found by its UUID on %s\n"), image, r->j->device);
	for (unsigned i = 0; d && i < d->nfindings; i++) {
		const struct diag_finding *f = &d->findings[i];
		unsigned n = 0;

		if (!f->problem || (!verbose && told_alike(d, r->p, i)))
			continue;
		char list[256];

		if (!verbose)
			n = alike_list(d, r->p, i, list, sizeof(list));
		if (n > 1) {
			fprintf(out, _("Journal transactions %s (%u): %s fails, cause: %s%s; policy %s: %s.\n"), list, n,
				diag_print_finding_object_text(f), diag_print_cause_text(f->cause),
				f->cause == JBD_CAUSE_BIT_FLIP && f->proven ? _(" (proven)") : "",
				replay_policy_name(r->p->policy), outcome_text(r->p, f));
			continue;
		}
		/* "(proven)" only where the proof is the cause: a fit another cause beat is no proof of it */
		fprintf(out, _("Journal transaction %" PRIu32 ": %s %s (journal block %" PRIu32 "), cause: %s%s; "
			       "policy %s: %s.\n"),
			f->sequence, diag_print_finding_object_text(f), f->structure ? _("is damaged") : _("fails"),
			f->jblk, diag_print_cause_text(f->cause),
			f->cause == JBD_CAUSE_BIT_FLIP && f->proven ? _(" (proven)") : "",
			replay_policy_name(r->p->policy), outcome_text(r->p, f));
	}
	if (s->journal.left_out_txns) {
		fprintf(out, _("Left out of the replay: transaction(s) "));
		text_left_txns(out, r->p);
		fputc('\n', out);
	}
	if (s->journal.left_out_blocks)
		fprintf(out, _("Left out of the replay: %u block(s) of replayed transactions.\n"),
			s->journal.left_out_blocks);
}

void check_marked_text(FILE *out, const char *image, const struct fsck_session *s)
{
	if (s->journal.csum_error)
		fprintf(out, _("%s: the journal's checksums did not all hold (see above): marked with errors, "
			       "checking fully.\n"), image);
	else
		fprintf(out, _("%s: part of the journal was not replayed (see above): marked with errors, "
			       "checking fully.\n"), image);
}

void check_orphans_text(FILE *out, const char *image, const struct fsck_orphans *o, int preen)
{
	for (unsigned i = 0; i < o->n; i++) {
		const struct fsck_orphan *x = &o->list[i];
		if (preen)
			fprintf(out, "%s: ", image);
		fprintf(out, _("%s orphaned inode %u (uid=%" PRIu32 ", gid=%" PRIu32 ", mode=0%o, size=%" PRIu64 ")\n"),
			x->truncated ? _("Truncating") : _("Clearing"), x->ino, x->uid, x->gid, x->mode, x->size);
	}
	if (o->dropped)
		fprintf(out, _("%s: the filesystem has errors: its orphan list is left to the full check\n"), image);
	if (o->failed)
		fprintf(out, _("%s: the orphans could not all be released: checking fully\n"), image);
	if (o->quota)
		fprintf(out, _("%s: orphans released: the quota usage is recounted by a full check\n"), image);
}

static void json_left_out(struct json *js, const struct replay_plan *p)
{
	json_begin_array(js, "left_out");
	for (unsigned t = 0; t < p->s->nlive; t++) {
		const struct jbd_scan_txn *x = &p->s->txns[t];
		enum replay_txn_fate f = p->txn_fate[t];

		if (!x->committed)
			continue;
		if (f == JBD_TXN_PAST_END || f == JBD_TXN_SKIPPED || f == JBD_TXN_RECOVERY_FAILS) {
			json_begin_object(js, NULL);
			json_uint(js, "sequence", x->sequence);
			json_string(js, "reason", replay_txn_fate_name(f));
			json_uint(js, "blocks", x->nblocks);
			json_end_object(js);
			continue;
		}
		if (f != JBD_TXN_REPLAYED)
			continue;
		for (unsigned b = 0; b < x->nblocks; b++) {
			enum replay_block_fate bf = jbd_plan_block_fate(p, t, b);
			if (bf != JBD_BLK_CSUM && bf != JBD_BLK_OUT_OF_FS)
				continue;
			json_begin_object(js, NULL);
			json_uint(js, "sequence", x->sequence);
			json_string(js, "reason", replay_block_fate_name(bf));
			json_uint(js, "fs_block", x->blocks[b].fs_block);
			json_uint(js, "journal_block", x->blocks[b].jblk);
			json_end_object(js);
		}
	}
	json_end_array(js);
}

void check_story_json(struct json *js, const struct fsck_session *s)
{
	const struct replay_result *r = s->replay;
	const struct replay_plan *p = r && (s->journal.replayed || s->journal.diagnosed) ? r->p : NULL;
	const struct diag_report *d = p ? replay_diagnosis(r) : NULL;

	json_begin_object(js, "journal");
	json_bool(js, "replayed", s->journal.replayed);
	json_bool(js, "device_missing", s->journal.device_missing);
	json_bool(js, "diagnosed_read_only", s->journal.diagnosed);
	json_uint(js, "faults", s->journal.faults);
	/* a read-only check's dry run replays nothing: no policy acted, no commit was reported */
	json_string(js, "policy", p && s->journal.replayed ? replay_policy_name(p->policy) : NULL);
	json_string(js, "device_found_by_uuid", p && r->j ? r->j->device : NULL);
	if (p && s->journal.replayed && p->has_failed_commit)
		json_uint(js, "failed_commit", p->failed_commit);
	else
		json_null(js, "failed_commit");
	json_begin_array(js, "checksum_failures");
	for (unsigned i = 0; d && i < d->nfindings; i++) {
		const struct diag_finding *f = &d->findings[i];

		if (!f->problem)
			continue;
		json_begin_object(js, NULL);
		diag_print_fault_json(js, f, 0);
		json_bool(js, "proven", f->cause == JBD_CAUSE_BIT_FLIP && f->proven);
		json_string(js, "outcome", outcome_name(s, p, f));
		json_end_object(js);
	}
	json_end_array(js);
	if (p && s->journal.replayed)
		json_left_out(js, p);
	else {
		json_begin_array(js, "left_out");
		json_end_array(js);
	}
	json_uint(js, "left_out_transactions", s->journal.left_out_txns);
	json_uint(js, "left_out_blocks", s->journal.left_out_blocks);
	json_uint(js, "blocks_written", r && s->journal.replayed ? r->blocks_written : 0);
	json_string(js, "log_fault", s->journal.log_fault ? error_message(s->journal.log_fault) : NULL);
	json_bool(js, "marked_error", s->journal.marked_error);
	json_bool(js, "error_state", s->journal.error_state);
	json_end_object(js);
}

void check_orphans_json(struct json *js, const struct fsck_orphans *o)
{
	unsigned truncated = 0;

	json_begin_object(js, "orphans");
	json_begin_array(js, "inodes");
	for (unsigned i = 0; i < o->n; i++) {
		truncated += o->list[i].truncated;
		json_begin_object(js, NULL);
		json_uint(js, "inode", o->list[i].ino);
		json_uint(js, "mode", o->list[i].mode);
		json_uint(js, "size", o->list[i].size);
		json_string(js, "action", o->list[i].truncated ? "truncated" : "cleared");
		json_end_object(js);
	}
	json_end_array(js);
	json_uint(js, "cleared", o->n - truncated);
	json_uint(js, "truncated", truncated);
	json_bool(js, "left_to_check", o->dropped || o->failed || o->quota);
	json_end_object(js);
}
