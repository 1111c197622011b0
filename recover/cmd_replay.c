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
#include "answer.h"
#include "answers.h"

struct replay_cli {
	const char		*image;
	int			json;
	int			verbose;	/* -v: alike supersede verdicts one line each */
	struct replay_opts	o;
	struct replay_result	*r;
	struct fs_decode	*dec;	/* dry run: names of the blocks */
	struct bar		bar;	/* on stderr, a terminal, for a long replay */
	const char		*answers_file;	/* --answers */
	struct answers		answers;
	int			answers_refused; /* a scripted answer the failure does not allow */
	int			all;	/* ask: "all" was answered */
	int			eof;	/* ask: the terminal's input ended: no from here on */
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

/* ---- ask ---- */

/* The answers a question offers, in the order of their letters on the screen. */
enum ask_answer { ASK_CORRECT, ASK_YES, ASK_NO, ASK_ALL, ASK_SKIP, ASK_NANSWERS };

static const char *const ask_words[ASK_NANSWERS] = {
	[ASK_CORRECT]	= N_("correct"),
	[ASK_YES]	= N_("yes"),
	[ASK_NO]	= N_("no"),
	[ASK_ALL]	= N_("all"),
	[ASK_SKIP]	= N_("skip"),
};

static enum replay_decision ask_decision(enum ask_answer a)
{
	switch (a) {
	case ASK_CORRECT:	return JBD_DECIDE_CORRECTED;
	case ASK_YES:
	case ASK_ALL:		return JBD_DECIDE_AS_IS;
	case ASK_SKIP:		return JBD_DECIDE_SKIP;
	default:		return JBD_DECIDE_REFUSE;
	}
}

/* "[c]orrect": the answer's key in brackets, then the rest of its (translated) word. */
static void print_choice(const char *word, const char *sep)
{
	const char *w = _(word);

	fprintf(stderr, "%s[%c]%s", sep, answer_letter(word), w[0] ? w + 1 : w);
}

/* The failure, what the diagnosis says of it, and what each answer writes. */
static void print_question(const struct jbd_failure *f, const struct replay_ask_offer *o)
{
	int block = f->kind == JBD_FAIL_BLOCK;

	if (block)
		fprintf(stderr, _("Transaction %" PRIu32 ": %s (fs block %" PRIu64 ", journal block %" PRIu32 ").\n"),
			f->sequence, failure_text(f->kind), f->fs_block, f->jblk);
	else
		fprintf(stderr, _("Transaction %" PRIu32 ": %s (journal block %" PRIu32 ").\n"), f->sequence,
			failure_text(f->kind), f->jblk);
	if (o->finding)
		diag_print_explanation(stderr, o->finding);
	else
		fprintf(stderr, _("  cause: %s\n"), diag_print_cause_text(JBD_CAUSE_UNEXPLAINED));
	fputs(block ? _("Replay this block anyway? ") : _("Replay this transaction anyway? "), stderr);
	if (o->correctable && o->finding && o->finding->ncand) {
		print_choice(ask_words[ASK_CORRECT], "");
		fputs(_(" (flip back"), stderr);
		diag_print_flips(stderr, &o->finding->cand[0]);
		fputs(_(": proven), "), stderr);
	} else if (o->correctable) {
		print_choice(ask_words[ASK_CORRECT], "");
		fputs(_(" (proven), "), stderr);
	}
	if (o->skippable) {
		print_choice(ask_words[ASK_SKIP], "");
		fputs(_(" (leave the transaction out: every block it logs is logged again later, proven), "), stderr);
	}
	print_choice(ask_words[ASK_YES], "");
	fputs(_(" as it is logged"), stderr);
	print_choice(ask_words[ASK_NO], ", ");
	fputs(block ? _(" (leave the block out)") : _(" (stop the replay before this transaction)"), stderr);
	print_choice(ask_words[ASK_ALL], ", ");
	fputs(_(" (this and every later failure as it is logged): "), stderr);
}

/* The answer from --answers, checked against what the diagnosis offers: 0, 1 when none, or an error. */
static errcode_t scripted_answer(struct replay_cli *c, const struct jbd_failure *f,
				 const struct replay_ask_offer *o, enum replay_decision *d)
{
	struct answers_entry *e = (struct answers_entry *)answers_find(&c->answers, f->sequence, f->jblk);

	if (!e)
		return 1;
	e->used = 1;
	if ((e->decision == JBD_DECIDE_CORRECTED && !o->correctable) ||
	    (e->decision == JBD_DECIDE_SKIP && !o->skippable)) {
		fputs("\n", stderr);
		cli_usage_error("replay", _("answers file %s: answers[%u]: %s for transaction %" PRIu32
					    ", journal block %" PRIu32 ", which has no proven %s"),
				c->answers_file, e->index, answers_decision_name(e->decision), f->sequence, f->jblk,
				e->decision == JBD_DECIDE_CORRECTED ? _("correction") : _("supersession"));
		c->answers_refused = 1;
		return E4R_BAD_ARGUMENT;
	}
	*d = e->decision;
	fprintf(stderr, _("%s (answers[%u] of %s)\n"), answers_decision_name(e->decision), e->index,
		c->answers_file);
	return 0;
}

/*
 * --policy=ask: one question per failure: the answers file first, then the
 * terminal; without one, no. A cancel (SIGINT, SIGTERM, SIGHUP, SIGQUIT) ends the
 * plan before anything is written.
 */
static errcode_t ask_question(void *arg, const struct jbd_failure *f, const struct replay_ask_offer *o,
			      enum replay_decision *d)
{
	struct replay_cli *c = arg;
	const char *words[ASK_NANSWERS];
	enum ask_answer which[ASK_NANSWERS];
	unsigned n = 0, chosen;
	errcode_t err;

	bar_clear(&c->bar);
	print_question(f, o);
	err = scripted_answer(c, f, o, d);
	if (err != 1)
		return err;
	if (c->all) {
		fprintf(stderr, "%s\n", _("yes"));
		*d = JBD_DECIDE_AS_IS;
		return 0;
	}
	*d = JBD_DECIDE_REFUSE;
	if (c->eof) {
		fprintf(stderr, "%s\n", _("no"));
		return 0;
	}
	if (!isatty(STDIN_FILENO)) {
		fputs(_("no (standard input is not a terminal)\n"), stderr);
		return 0;
	}
	for (int a = 0; a < ASK_NANSWERS; a++)
		if ((a != ASK_CORRECT || o->correctable) && (a != ASK_SKIP || o->skippable)) {
			which[n] = (enum ask_answer)a;
			words[n++] = ask_words[a];
		}
	switch (answer_key(STDIN_FILENO, stderr, words, n, &chosen)) {
	case ANSWER_CHOSEN:
		c->all = which[chosen] == ASK_ALL;
		*d = ask_decision(which[chosen]);
		return 0;
	case ANSWER_CANCELLED:
		fputs(_("cancelled\n"), stderr);
		return E4R_CANCELLED;
	case ANSWER_EOF:
		c->eof = 1;	/* the end of input (^D) answers every later question too */
		break;
	}
	fprintf(stderr, "%s\n", _("no"));
	return 0;
}

/* ---- text ---- */

/* What the policy decided on a failure, in words (JSON keeps answers_decision_name's). */
static const char *decision_text(enum replay_decision d)
{
	switch (d) {
	case JBD_DECIDE_REFUSE:		return _("not replayed");
	case JBD_DECIDE_AS_IS:		return _("replayed as logged");
	case JBD_DECIDE_CORRECTED:	return _("replayed with the proven correction");
	case JBD_DECIDE_SKIP:		return _("left out: wholly superseded by later transactions");
	}
	return "?";
}

/* Why a logged block is not written, in words (JSON keeps replay_block_fate_name's). */
static const char *block_fate_text(enum replay_block_fate f)
{
	switch (f) {
	case JBD_BLK_REPLAYED:		return _("replayed");
	case JBD_BLK_CORRECTED:		return _("replayed corrected");
	case JBD_BLK_TXN:		return _("its transaction is not replayed");
	case JBD_BLK_REVOKED:		return _("revoked");
	case JBD_BLK_CSUM:		return _("its checksum is bad");
	case JBD_BLK_OUT_OF_FS:		return _("its home is outside the filesystem");
	}
	return "?";
}

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
	       block_fate_text(lo->fate));
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
		       failure_text(d->failure.kind), decision_text(d->decision));
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
		supersede_print_text(r->autop, r->s, c->verbose);
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
		json_uint(js, "journal_block", d->failure.jblk);
		if (d->failure.kind == JBD_FAIL_BLOCK)
			json_uint(js, "fs_block", c->r->s->txns[d->failure.txn].blocks[d->failure.index].fs_block);
		json_string(js, "decision", answers_decision_name(d->decision));
		json_string(js, "cause", failure_finding(c, &d->failure, 0) ?
			    diag_cause_name(failure_finding(c, &d->failure, 0)->cause) : NULL);
		if (d->decision == JBD_DECIDE_REFUSE && refusal_finding(c, &d->failure))
			json_string(js, "reason", diag_stop_reason_name(refusal_finding(c, &d->failure)->stop_reason));
		json_end_object(js);
	}
	json_end_array(js);
}

static void json_answer(struct json *js, const struct jbd_failure *f, enum replay_decision d)
{
	json_begin_object(js, NULL);
	json_uint(js, "sequence", f->sequence);
	json_uint(js, "journal_block", f->jblk);
	json_string(js, "failure", failure_name(f->kind));
	if (f->kind == JBD_FAIL_BLOCK)
		json_uint(js, "fs_block", f->fs_block);
	json_string(js, "decision", answers_decision_name(d));
	json_end_object(js);
}

/*
 * What a policy without questions did with failure F, as the answer that
 * does the same under ask: a block replayed (as it is or corrected) or left
 * out; a transaction-level failure replayed past or not.
 */
static int derived_answer(const struct replay_plan *p, const struct jbd_failure *f, enum replay_decision *d)
{
	if (f->kind != JBD_FAIL_BLOCK) {
		*d = p->txn_fate[f->txn] == JBD_TXN_REPLAYED ? JBD_DECIDE_AS_IS : JBD_DECIDE_REFUSE;
		return 1;
	}
	if (p->txn_fate[f->txn] != JBD_TXN_REPLAYED)
		return 0;	/* never asked: its transaction is not replayed */
	switch (jbd_plan_block_fate(p, f->txn, f->index)) {
	case JBD_BLK_REPLAYED:	*d = JBD_DECIDE_AS_IS; return 1;
	case JBD_BLK_CORRECTED:	*d = JBD_DECIDE_CORRECTED; return 1;
	case JBD_BLK_CSUM:	*d = JBD_DECIDE_REFUSE; return 1;
	default:		return 0;	/* revoked, or outside the filesystem: never asked */
	}
}

/*
 * The decisions in the form --answers reads: ask's and auto's as taken;
 * the other policies' as the answer that does the same to each failure.
 */
static void json_answers(struct replay_cli *c, struct json *js)
{
	const struct replay_plan *p = c->r->p;
	const struct jbd_scan *s = c->r->s;
	enum replay_decision d;

	json_begin_array(js, "answers");
	if (p->policy == JBD_POLICY_ASK || p->policy == JBD_POLICY_AUTO) {
		for (unsigned i = 0; i < p->ndecisions; i++)
			json_answer(js, &p->decisions[i].failure, p->decisions[i].decision);
	} else {
		for (unsigned t = 0; t < s->nlive; t++) {
			struct jbd_failure_iter it;
			struct jbd_failure f;

			if (!s->txns[t].committed)
				continue;
			jbd_failures_init(&it, s, t, JBD_FAILS_ALL);
			while (jbd_failures_next(&it, &f))
				if (derived_answer(p, &f, &d))
					json_answer(js, &f, d);
		}
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
		json_answers(c, &js);
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
	struct replay_asker asker = { ask_question, NULL };
	char *policy = NULL, *undo = NULL, *journal = NULL, *answers = NULL;
	int dry_run = 0, rc;
	errcode_t err;
	struct poptOption opts[] = {
		{ "policy", 0, POPT_ARG_STRING, &policy, 0, N_("what to do when a checksum fails: stop, skip-block, skip-transaction, all, auto (default), ask, none"), N_("P") },
		{ "dry-run", 0, POPT_ARG_NONE, &dry_run, 0, N_("print what would be written, write nothing"), NULL },
		{ "undo", 0, POPT_ARG_STRING, &undo, 0, N_("write an undo file for e2undo (must not exist)"), N_("FILE") },
		{ "journal", 0, POPT_ARG_STRING, &journal, 0, N_("the external journal device"), N_("PATH") },
		{ "answers", 0, POPT_ARG_STRING, &answers, 0, N_("ask: take the decisions from FILE (JSON, as replay --json gives them); implies --policy=ask"), N_("FILE") },
		{ "json", 0, POPT_ARG_NONE, &c.json, 0, N_("print a JSON summary"), NULL },
		{ NULL, 'v', POPT_ARG_NONE, &c.verbose, 0, N_("verbose: one line for each transaction's supersede verdict, none folded"), NULL },
		POPT_TABLEEND
	};

	memset(&c, 0, sizeof(c));
	rc = cli_parse("replay", N_("[--policy=P] [--answers=FILE] [--dry-run] [--undo=FILE] [--json] [-v] [--journal=PATH] IMAGE"),
		       opts, argc, argv, &c.image, NULL);
	if (rc >= 0)
		goto out;
	c.o.policy = JBD_POLICY_AUTO;
	if (policy && replay_policy_parse(policy, &c.o.policy)) {
		cli_usage_error("replay", _("unknown policy '%s' (stop, skip-block, skip-transaction, all, auto, ask, none)"), policy);
		rc = EXIT_USAGE;
		goto out;
	}
	if (answers && policy && c.o.policy != JBD_POLICY_ASK) {
		cli_usage_error("replay", _("--answers are the answers of --policy=ask, not of --policy=%s"), policy);
		rc = EXIT_USAGE;
		goto out;
	}
	if (answers) {
		char why[512];

		c.o.policy = JBD_POLICY_ASK;
		c.answers_file = answers;
		if (answers_load(answers, &c.answers, why, sizeof(why))) {
			cli_usage_error("replay", _("answers file %s: %s"), answers, why);
			rc = EXIT_USAGE;
			goto out;
		}
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
		asker.arg = &c;
		c.o.asker = &asker;
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
	/* An answer no question met: a file made for another journal, or past where the replay stopped. */
	for (unsigned i = 0; i < c.answers.n; i++)
		if (!c.answers.e[i].used && !c.answers_refused)
			fprintf(stderr, _("%s: answers file %s: answers[%u] (transaction %" PRIu32 ", journal block %"
					  PRIu32 ") answers no failure this replay asked about\n"), progname,
				c.answers_file, c.answers.e[i].index, c.answers.e[i].sequence, c.answers.e[i].jblk);
	/*
	 * Refused or cancelled at a question: nothing was written, and the undo
	 * file (made by this run: replay_image refuses one that exists) records
	 * nothing; left behind, it would refuse the next run with the same --undo.
	 */
	if ((c.answers_refused || err == E4R_CANCELLED) && undo)
		unlink(undo);
	if (c.answers_refused) {
		/* The refusal is printed; nothing was written. */
		rc = EXIT_USAGE;
		goto out;
	}
	if (err == E4R_CANCELLED) {
		cli_error(c.image, err, _("replay cancelled before anything was written"));
		rc = EXIT_CANCELLED;
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
	free(answers);
	answers_free(&c.answers);
	free((char *)c.image);
	return rc;
}
