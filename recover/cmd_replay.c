/* e4recover replay: replay the journal with a policy for checksum failures; dry run and undo file. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "alt_print.h"
#include "diag_print.h"
#include "describe.h"
#include "util/e4r_err.h"
#include "util/nomem.h"
#include "json.h"
#include "json_doc.h"
#include "progress.h"
#include "replay/image.h"

struct replay_cli {
	const char		*image;
	int			json;
	struct replay_opts	o;
	struct replay_result	*r;
	struct fs_decode	*dec;	/* dry run: names of the blocks */
	struct bar		bar;	/* on stderr, a terminal, for a long replay */
};

static const char *failure_text(enum jbd_failure_kind k)
{
	switch (k) {
	case JBD_FAIL_COMMIT:		return _("commit checksum does not match");
	case JBD_FAIL_DESC_TAIL:	return _("descriptor block checksum does not match");
	case JBD_FAIL_REVOKE_TAIL:	return _("revoke block checksum does not match");
	case JBD_FAIL_REVOKE_COUNT:	return _("revoke block's record count is larger than the block");
	case JBD_FAIL_BLOCK:		return _("logged block's checksum does not match");
	}
	return "?";
}

static const char *failure_name(enum jbd_failure_kind k)
{
	switch (k) {
	case JBD_FAIL_COMMIT:		return "commit_checksum";
	case JBD_FAIL_DESC_TAIL:	return "descriptor_checksum";
	case JBD_FAIL_REVOKE_TAIL:	return "revoke_checksum";
	case JBD_FAIL_REVOKE_COUNT:	return "revoke_count";
	case JBD_FAIL_BLOCK:		return "block_checksum";
	}
	return "?";
}

static const char *decision_name(enum replay_decision d)
{
	switch (d) {
	case JBD_DECIDE_REFUSE:		return "refused";
	case JBD_DECIDE_AS_IS:		return "replayed_as_is";
	case JBD_DECIDE_CORRECTED:	return "replayed_corrected";
	case JBD_DECIDE_SKIP:		return "skipped_superseded";
	}
	return "?";
}

/* --policy=ask: one question per failure, on the terminal; "no" without one. */
static enum replay_decision ask_user(void *arg, const struct jbd_failure *f)
{
	struct replay_cli *c = arg;
	char line[64];

	bar_clear(&c->bar);
	if (f->kind == JBD_FAIL_BLOCK)
		fprintf(stderr, _("Transaction %" PRIu32 ": %s (fs block %" PRIu64 ", journal block %" PRIu32
				  "). Replay this block anyway? "), f->sequence, failure_text(f->kind),
			f->fs_block, f->jblk);
	else
		fprintf(stderr, _("Transaction %" PRIu32 ": %s (journal block %" PRIu32
				  "). Replay this transaction anyway? "), f->sequence, failure_text(f->kind), f->jblk);
	if (!isatty(STDIN_FILENO)) {
		fputs(_("no (standard input is not a terminal)\n"), stderr);
		return JBD_DECIDE_REFUSE;
	}
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin))
		return JBD_DECIDE_REFUSE;
	return cli_is_answer(line, N_("yes")) ? JBD_DECIDE_AS_IS : JBD_DECIDE_REFUSE;
}

/* ---- text ---- */

/* A transaction's fate in words (JSON keeps replay_txn_fate_name's short names). */
static const char *txn_fate_text(enum replay_txn_fate f)
{
	switch (f) {
	case JBD_TXN_REPLAYED:		return _("replayed");
	case JBD_TXN_UNCOMMITTED:	return _("not replayed (no commit block)");
	case JBD_TXN_PAST_END:		return _("not replayed (at or after the point where replay stops)");
	case JBD_TXN_SKIPPED:		return _("skipped (a checksum failed)");
	case JBD_TXN_RECOVERY_FAILS:	return _("not replayed (recovery fails as a whole)");
	case JBD_TXN_NOT_REPLAYING:	return _("not replayed (policy none)");
	case JBD_TXN_OLD:		return _("old (past the end of the log)");
	}
	return "?";
}

static void text_block_name(struct replay_cli *c, uint64_t blk, char *buf, size_t len)
{
	struct fs_block_info bi;

	if (c->dec && !fs_decode_lookup(c->dec, blk, &bi))
		describe_block(&bi, buf, len);
	else
		buf[0] = 0;
}

static void text_transactions(struct replay_cli *c)
{
	const struct replay_result *r = c->r;

	for (unsigned t = 0; t < r->s->ntxns; t++) {
		const struct jbd_scan_txn *x = &r->s->txns[t];
		printf(_("transaction %" PRIu32 ": %s, %u of %u blocks\n"), x->sequence,
		       txn_fate_text(r->p->txn_fate[t]), replay_plan_txn_replayed(r->p, t), x->nblocks);
	}
}

/* A block version of a replayed transaction that the plan leaves out, and why. */
struct left_out {
	const struct jbd_scan_txn	*txn;
	const struct jbd_scan_block	*blk;
	enum replay_block_fate		fate;
	uint32_t			revoker;	/* for JBD_BLK_REVOKED */
};

static void for_each_left_out(struct replay_cli *c, void (*fn)(struct replay_cli *, const struct left_out *, void *),
			      void *arg)
{
	const struct replay_result *r = c->r;

	for (unsigned t = 0; t < r->s->ntxns; t++) {
		const struct jbd_scan_txn *x = &r->s->txns[t];
		if (r->p->txn_fate[t] != JBD_TXN_REPLAYED)
			continue;
		for (unsigned b = 0; b < x->nblocks; b++) {
			struct left_out lo = { x, &x->blocks[b], jbd_plan_block_fate(r->p, t, b),
					       r->p->blk_revoker[r->p->blk_base[t] + b] };
			if (!jbd_fate_writes(lo.fate))
				fn(c, &lo, arg);
		}
	}
}

static void text_one_left_out(struct replay_cli *c, const struct left_out *lo, void *arg)
{
	char name[160];

	(void)arg;
	text_block_name(c, lo->blk->fs_block, name, sizeof(name));
	printf(_("  left out: fs block %" PRIu64 " (journal block %" PRIu32 ", transaction %" PRIu32 ")%s%s: %s"),
	       lo->blk->fs_block, lo->blk->jblk, lo->txn->sequence, name[0] ? ", " : "", name,
	       replay_block_fate_name(lo->fate));
	if (lo->fate == JBD_BLK_REVOKED)
		printf(_(" by transaction %" PRIu32), lo->revoker);
	putchar('\n');
}

static void text_writes(struct replay_cli *c)
{
	const struct replay_plan *p = c->r->p;
	char name[160];

	for (size_t i = 0; i < p->nwrites; i++) {
		const struct replay_write *w = &p->writes[i];
		text_block_name(c, w->fs_block, name, sizeof(name));
		printf(_("  journal block %" PRIu32 " -> fs block %" PRIu64 "%s%s, from transaction %" PRIu32 "%s\n"),
		       w->jblk, w->fs_block, name[0] ? ", " : "", name, w->sequence,
		       w->content ? _(" (corrected)") : "");
	}
}

/*
 * The diagnosis's finding for failure F: its block's, or its transaction's
 * first; with STOP_ONLY, the first at which auto stops (a refusal's reason).
 * NULL when none.
 */
static const struct diag_finding *failure_finding(const struct replay_cli *c, const struct jbd_failure *f,
						  int stop_only)
{
	const struct diag_report *d = replay_diagnosis(c->r);

	for (unsigned i = 0; d && i < d->nfindings; i++) {
		const struct diag_finding *g = &d->findings[i];
		if (g->txn != f->txn || (stop_only && g->action != JBD_AUTO_STOP))
			continue;
		if (f->kind == JBD_FAIL_BLOCK && g->object == JBD_OBJ_DATA && g->block != (int)f->index)
			continue;
		return g;
	}
	return NULL;
}

/* Auto refused: the diagnosis's finding, with its reason, for the failure's transaction (or block). */
static const struct diag_finding *refusal_finding(const struct replay_cli *c, const struct jbd_failure *f)
{
	return c->r->autop ? failure_finding(c, f, 1) : NULL;
}

static void text_decisions(struct replay_cli *c)
{
	const struct replay_plan *p = c->r->p;

	for (unsigned i = 0; i < p->ndecisions; i++) {
		const struct replay_txn_decision *d = &p->decisions[i];
		const struct diag_finding *why = d->decision == JBD_DECIDE_REFUSE ?
						 refusal_finding(c, &d->failure) : NULL;
		printf(_("transaction %" PRIu32 ": %s: %s\n"), c->r->s->txns[d->failure.txn].sequence,
		       failure_text(d->failure.kind), decision_name(d->decision));
		if (why)
			printf(_("  why: %s\n"), diag_stop_text(why->stop_reason));
	}
}

static void text_output(struct replay_cli *c, errcode_t err)
{
	const struct replay_result *r = c->r;

	if (r->nothing_to_do) {
		printf(_("%s: the journal is clean: nothing to replay\n"), c->image);
		return;
	}
	if (r->resumed) {
		printf(_("%s: finished an interrupted replay (journal sequence %" PRIu32 ")\n"),
		       c->image, r->sequence_after);
		return;
	}
	if (!r->p)
		return;
	if (r->j && r->j->device)
		printf(_("%s: the external journal was found by its UUID on %s\n"), c->image, r->j->device);
	printf(_("%s: policy %s%s\n"), c->image, replay_policy_name(c->o.policy),
	       c->o.dry_run ? _(" (dry run: nothing is written)") : "");
	text_transactions(c);
	text_decisions(c);
	diag_print_causes_text(stdout, _("journal fault: "), replay_diagnosis(r));
	if (r->autop)
		supersede_print_text(r->autop, r->s);
	if (r->p->recovery_error)
		printf(_("journal recovery fails as a whole: %s\n"), error_message(r->p->recovery_error));
	if (r->p->has_failed_commit)
		printf(_("journal transaction %" PRIu32 " was corrupt\n"), r->p->failed_commit);
	if (c->o.dry_run) {
		printf(_("would write %zu blocks (%" PRIu64 " older versions superseded):\n"),
		       r->p->nwrites, r->p->superseded);
		text_writes(c);
	}
	for_each_left_out(c, text_one_left_out, NULL);
	if (r->alts)
		alt_print_text(r->alts, replay_policy_name(c->o.policy));
	if (r->fc) {
		printf(_("fast commits: %u committed tags"), r->fc->ncommitted);
		if (r->fc->stop_error)
			printf(_("; area damaged: %s"), error_message(r->fc->stop_error));
		if (r->fc_replayed)
			printf(_("; %u applied, %u refused"), r->fc_result.applied, r->fc_result.failed);
		putchar('\n');
	}
	if (!c->o.dry_run && c->o.policy != JBD_POLICY_NONE && !err) {
		printf(_("wrote %" PRIu64 " blocks; journal emptied, sequence %" PRIu32 "\n"),
		       r->blocks_written, r->sequence_after);
		if (r->fs_marked_invalid)
			printf(_("filesystem marked not clean: run a full check\n"));
		if (r->fs_marked_error)
			printf(_("filesystem marked with errors\n"));
	}
}

/* ---- JSON ---- */

static void json_block_name(struct replay_cli *c, struct json *js, uint64_t blk)
{
	struct fs_block_info bi;

	if (c->dec && !fs_decode_lookup(c->dec, blk, &bi))
		json_block_info(js, &bi);
}

static void json_transactions(struct replay_cli *c, struct json *js)
{
	const struct replay_result *r = c->r;

	json_begin_array(js, "transactions");
	for (unsigned t = 0; t < r->s->ntxns; t++) {
		const struct jbd_scan_txn *x = &r->s->txns[t];

		json_begin_object(js, NULL);
		json_uint(js, "sequence", x->sequence);
		json_string(js, "fate", replay_txn_fate_name(r->p->txn_fate[t]));
		json_uint(js, "blocks", x->nblocks);
		json_uint(js, "blocks_replayed", replay_plan_txn_replayed(r->p, t));
		json_end_object(js);
	}
	json_end_array(js);
}

static void json_one_left_out(struct replay_cli *c, const struct left_out *lo, void *arg)
{
	struct json *js = arg;

	json_begin_object(js, NULL);
	json_uint(js, "fs_block", lo->blk->fs_block);
	json_uint(js, "journal_block", lo->blk->jblk);
	json_uint(js, "sequence", lo->txn->sequence);
	json_string(js, "reason", replay_block_fate_name(lo->fate));
	if (lo->fate == JBD_BLK_REVOKED)
		json_uint(js, "revoked_by", lo->revoker);
	json_block_name(c, js, lo->blk->fs_block);
	json_end_object(js);
}

static void json_writes(struct replay_cli *c, struct json *js)
{
	const struct replay_plan *p = c->r->p;

	json_begin_array(js, "writes");
	for (size_t i = 0; i < p->nwrites; i++) {
		json_begin_object(js, NULL);
		json_uint(js, "fs_block", p->writes[i].fs_block);
		json_uint(js, "journal_block", p->writes[i].jblk);
		json_uint(js, "sequence", p->writes[i].sequence);
		json_bool(js, "corrected", p->writes[i].content != NULL);
		json_block_name(c, js, p->writes[i].fs_block);
		json_end_object(js);
	}
	json_end_array(js);
}

static void json_decisions(struct replay_cli *c, struct json *js)
{
	const struct replay_plan *p = c->r->p;

	json_begin_array(js, "decisions");
	for (unsigned i = 0; i < p->ndecisions; i++) {
		const struct replay_txn_decision *d = &p->decisions[i];
		json_begin_object(js, NULL);
		json_uint(js, "sequence", c->r->s->txns[d->failure.txn].sequence);
		json_string(js, "failure", failure_name(d->failure.kind));
		if (d->failure.kind == JBD_FAIL_BLOCK)
			json_uint(js, "fs_block", c->r->s->txns[d->failure.txn].blocks[d->failure.index].fs_block);
		json_string(js, "decision", decision_name(d->decision));
		json_string(js, "cause", failure_finding(c, &d->failure, 0) ?
			    diag_cause_name(failure_finding(c, &d->failure, 0)->cause) : NULL);
		if (d->decision == JBD_DECIDE_REFUSE && refusal_finding(c, &d->failure))
			json_string(js, "reason", diag_stop_reason_name(refusal_finding(c, &d->failure)->stop_reason));
		json_end_object(js);
	}
	json_end_array(js);
}

static void json_output(struct replay_cli *c, errcode_t err)
{
	const struct replay_result *r = c->r;
	struct json js;

	json_begin_document(&js, stdout, "replay", c->image);
	json_string(&js, "policy", replay_policy_name(c->o.policy));
	json_bool(&js, "dry_run", c->o.dry_run);
	json_bool(&js, "has_journal", 1);
	if (r->j && r->j->external)
		json_string(&js, "journal_device_found_by_uuid", r->j->device);
	json_bool(&js, "nothing_to_do", r->nothing_to_do);
	json_bool(&js, "resumed", r->resumed);
	if (r->p) {
		json_transactions(c, &js);
		json_decisions(c, &js);
		diag_print_causes_json(&js, "causes", replay_diagnosis(r));
		supersede_print_json(&js, "supersede", r->autop, r->s);
		alt_print_json(&js, "alternatives", r->alts);
		if (c->o.dry_run)
			json_writes(c, &js);
		json_begin_array(&js, "left_out");
		for_each_left_out(c, json_one_left_out, &js);
		json_end_array(&js);
		json_uint(&js, "blocks_to_write", r->p->nwrites);
		json_uint(&js, "blocks_superseded", r->p->superseded);
		json_string(&js, "recovery_error", r->p->recovery_error ? error_message(r->p->recovery_error) : NULL);
		if (r->p->has_failed_commit)
			json_uint(&js, "failed_commit", r->p->failed_commit);
		else
			json_null(&js, "failed_commit");
	}
	if (r->fc) {
		json_begin_object(&js, "fast_commit");
		json_uint(&js, "committed_tags", r->fc->ncommitted);
		json_string(&js, "error", r->fc->stop_error ? error_message(r->fc->stop_error) : NULL);
		json_bool(&js, "replayed", r->fc_replayed);
		json_uint(&js, "applied", r->fc_result.applied);
		json_uint(&js, "refused", r->fc_result.failed);
		json_end_object(&js);
	}
	json_uint(&js, "blocks_written", r->blocks_written);
	json_bool(&js, "fs_marked_not_clean", r->fs_marked_invalid);
	json_bool(&js, "fs_marked_error", r->fs_marked_error);
	if (!c->o.dry_run && (r->p || r->resumed) && !err)
		json_uint(&js, "journal_sequence_after", r->sequence_after);
	/*
	 * A replay that fails part way still reports what it did: the reason is
	 * replay_error, and error its deprecated alias (a string here, not the
	 * error object of a command that failed before it could report).
	 */
	json_string(&js, "replay_error", err ? error_message(err) : NULL);
	json_string(&js, "error", err ? error_message(err) : NULL);
	json_end_object(&js);
	json_finish(&js);
}

/* ---- the command ---- */

/* A filesystem without a journal: one line (or a document) saying so; exit 0. */
static int no_journal(struct replay_cli *c)
{
	struct json js;

	if (!c->json) {
		printf(_("%s: the filesystem has no journal: nothing to replay\n"), c->image);
		return EXIT_OK;
	}
	json_begin_document(&js, stdout, "replay", c->image);
	json_string(&js, "policy", replay_policy_name(c->o.policy));
	json_bool(&js, "dry_run", c->o.dry_run);
	json_bool(&js, "has_journal", 0);
	json_bool(&js, "nothing_to_do", 1);
	json_uint(&js, "blocks_written", 0);
	json_null(&js, "error");
	json_end_object(&js);
	return json_finish(&js) ? EXIT_OPERATIONAL : EXIT_OK;
}

static errcode_t build_decoder(struct replay_cli *c)
{
	const struct jbd_scan *s = c->r->s;
	errcode_t err;

	err = fs_decode_new(c->r->fs, &c->dec);
	for (unsigned t = 0; t < s->ntxns && !err; t++)
		for (unsigned b = 0; b < s->txns[t].nblocks && !err; b++)
			err = fs_decode_want(c->dec, s->txns[t].blocks[b].fs_block);
	return err;
}

static int exit_code(const struct replay_result *r, errcode_t err)
{
	if (err)
		return EXIT_OPERATIONAL;
	if (r->p && (r->p->checksum_failures || r->p->recovery_error || r->p->out_of_fs ||
		     r->p->csum_skipped))
		return EXIT_PROBLEMS;
	/* Fast-commit tags refused, or an area that fails recovery: the fs is marked for a check. */
	if (r->fc_failed)
		return EXIT_PROBLEMS;
	return EXIT_OK;
}

int cmd_replay(int argc, const char **argv)
{
	struct replay_cli c;
	struct replay_hooks hooks = { 0 };
	char *policy = NULL, *undo = NULL, *journal = NULL;
	int dry_run = 0, rc;
	errcode_t err;
	struct poptOption opts[] = {
		{ "policy", 0, POPT_ARG_STRING, &policy, 0, N_("what to do when a checksum fails: stop, skip-block, skip-transaction, all, auto (default), ask, none"), N_("P") },
		{ "dry-run", 0, POPT_ARG_NONE, &dry_run, 0, N_("print what would be written, write nothing"), NULL },
		{ "undo", 0, POPT_ARG_STRING, &undo, 0, N_("write an undo file for e2undo (must not exist)"), N_("FILE") },
		{ "journal", 0, POPT_ARG_STRING, &journal, 0, N_("the external journal device"), N_("PATH") },
		{ "json", 0, POPT_ARG_NONE, &c.json, 0, N_("print a JSON summary"), NULL },
		POPT_TABLEEND
	};

	memset(&c, 0, sizeof(c));
	rc = cli_parse("replay", N_("[--policy=P] [--dry-run] [--undo=FILE] [--json] [--journal=PATH] IMAGE"),
		       opts, argc, argv, &c.image, NULL);
	if (rc >= 0)
		goto out;
	c.o.policy = JBD_POLICY_AUTO;
	if (policy && replay_policy_parse(policy, &c.o.policy)) {
		cli_usage_error("replay", _("unknown policy '%s' (stop, skip-block, skip-transaction, all, auto, ask, none)"), policy);
		rc = EXIT_USAGE;
		goto out;
	}
	if (dry_run && undo) {
		cli_usage_error("replay", _("--undo records what the replay writes, and --dry-run writes nothing"));
		rc = EXIT_USAGE;
		goto out;
	}
	if ((rc = cli_journal_path("replay", c.image, journal)))
		goto out;
	c.o.dry_run = dry_run;
	c.o.undo_file = undo;
	c.o.journal_path = journal;
	if (c.o.policy == JBD_POLICY_ASK) {
		hooks.decide = ask_user;
		hooks.arg = &c;
		c.o.hooks = &hooks;
	}
	if (c.o.dry_run || c.o.policy == JBD_POLICY_NONE)
		cli_warn_if_mounted(c.image);
	/* A bar for a long replay, on stderr when it is a terminal; never with --json. */
	bar_init_delayed(&c.bar, stderr, !c.json);
	if (c.bar.out) {
		c.o.progress = bar_journal;
		c.o.progress_arg = &c.bar;
	}
	err = replay_image(c.image, &c.o, &c.r);
	bar_clear(&c.bar);
	if (c.r && c.r->j)
		c.r->j->progress = NULL;	/* the report reads the journal again: no bar over it */
	if (err == E4R_NO_JOURNAL) {
		/* An ext2 (or a journal removed): nothing is wrong, there is nothing to do. */
		rc = no_journal(&c);
		goto out;
	}
	if (err && (!c.r || !c.r->j)) {
		/* Nothing was learnt about the journal: one line naming the image and the reason. */
		if (err == E4R_FS_MOUNTED)
			cli_mounted_error(c.image, err);
		else if (err == E4R_UNDO_EXISTS)
			cli_error(c.image, err, _("undo file %s"), undo);
		else
			cli_error(c.image, err, _("cannot replay the journal"));
		rc = err == E4R_UNDO_EXISTS ? EXIT_USAGE : EXIT_OPERATIONAL;
		goto out;
	}
	if (c.o.dry_run && c.r->fs && c.r->p) {
		errcode_t derr = build_decoder(&c);

		/*
		 * Unnamed blocks only make the listing plainer; no memory ends the
		 * run, or the dry run's report would be another one than the
		 * replay's.
		 */
		if (util_no_memory(derr)) {
			cli_error(c.image, derr, _("cannot name the journal's blocks"));
			rc = EXIT_OPERATIONAL;
			goto out;
		}
		if (derr) {
			fs_decode_free(c.dec);
			c.dec = NULL;
		}
	}
	if (c.json)
		json_output(&c, err);
	else
		text_output(&c, err);
	if (err)
		cli_error(c.image, err, _("journal replay failed"));
	rc = exit_code(c.r, err);
out:
	fs_decode_free(c.dec);
	replay_free(c.r);
	free(policy);
	free(undo);
	free(journal);
	free((char *)c.image);
	return rc;
}
