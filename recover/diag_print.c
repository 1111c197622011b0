/* Printing a journal diagnosis (text and JSON), shared by diagnose and logdump --diagnose. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "diag_print.h"
#include "json_doc.h"
#include "i18n.h"

static const char *const cause_texts[] = {
	[JBD_CAUSE_BIT_FLIP]	= N_("flipped bits"),
	[JBD_CAUSE_STALE]	= N_("stale: left from an earlier use of the journal"),
	[JBD_CAUSE_TORN_COMMIT]	= N_("torn commit: the commit reached the disk, not all of its blocks"),
	[JBD_CAUSE_UNJOURNALED]	= N_("unjournaled modification: bits set outside the transaction"),
	[JBD_CAUSE_UNEXPLAINED]	= N_("unexplained"),
};

static const char *const object_texts[] = {
	[JBD_OBJ_DATA]		= N_("data block tag checksum"),
	[JBD_OBJ_DESCRIPTOR]	= N_("descriptor block checksum"),
	[JBD_OBJ_REVOKE]	= N_("revoke block checksum"),
	[JBD_OBJ_COMMIT]	= N_("commit block checksum"),
	[JBD_OBJ_TRANSACTION]	= N_("transaction checksum (v1)"),
};

static const char *const action_texts[] = {
	[JBD_AUTO_REPLAY]			= N_("replay"),
	[JBD_AUTO_REPLAY_CORRECTED]		= N_("replay the corrected content"),
	[JBD_AUTO_REPLAY_AS_IS_BENIGN_LEAK]	= N_("replay as is (the extra bits are set by a later transaction anyway)"),
	[JBD_AUTO_STOP]				= N_("stop here, as e2fsck does"),
};

static const char *const stop_texts[] = {
	[JBD_STOP_NONE]			= "",
	[JBD_STOP_UNEXPLAINED]		= N_("no cause explains the mismatch, so the intended content is not known"),
	[JBD_STOP_NOT_PROVEN]		= N_("the flipped bits are not proven (no single fit that is unlikely by chance), "
					     "so the intended content is not known for certain"),
	[JBD_STOP_FLIP_IN_TAGS]		= N_("the flip is in the descriptor's tags, which say where each logged block "
					     "goes home: the log was read with the damaged tags, so the home blocks it "
					     "found cannot be trusted, and auto does not re-read the log corrected"),
	[JBD_STOP_FLIP_IN_SEQUENCE]	= N_("the flip is in the descriptor's sequence, which every tag checksum of "
					     "the transaction covers: the log was read with the damaged value, and auto "
					     "does not re-read it corrected"),
	[JBD_STOP_FLIP_SPANS_BLOCKS]	= N_("the proven flips lie in two journal blocks; auto corrects one block per "
					     "finding"),
	[JBD_STOP_STALE]		= N_("the block is left from an earlier use of the journal: the log ends here"),
	[JBD_STOP_TORN]			= N_("the commit is not verified, so the transaction is not known to be "
					     "complete"),
	[JBD_STOP_LEAK_UNSOUND]		= N_("a transaction that sets the extra bits is not replayed itself"),
};

static const char *const place_texts[] = {
	[JBD_FLIP_CONTENT]	= N_("content"),
	[JBD_FLIP_STORED]	= N_("stored checksum"),
	[JBD_FLIP_SEQUENCE]	= N_("sequence"),
};

const char *diag_stop_text(enum diag_stop_reason r)
{
	return (unsigned)r < sizeof(stop_texts) / sizeof(*stop_texts) ? _(stop_texts[r]) : "?";
}

/* ---- text ---- */

void diag_print_flips(FILE *out, const struct diag_candidate *c)
{
	for (unsigned i = 0; i < c->nflips; i++)
		fprintf(out, _("%s journal block %" PRIu32 ", byte %" PRIu32 ", bit %u (%s)"), i ? ";" : "",
		       c->flip[i].jblk, c->flip[i].byte, c->flip[i].bit, _(place_texts[c->flip[i].place]));
}

/*
 * What is known of a torn commit. In v2/v3 each logged block has its own
 * checksum: when all of them hold, the blocks did reach the disk and only
 * the commit block is in question. A v1 checksum covers the whole
 * transaction and cannot say which block is missing.
 */
static void text_cause(FILE *out, const struct diag_finding *f)
{
	if (f->cause != JBD_CAUSE_TORN_COMMIT) {
		fprintf(out, _("  cause: %s\n"), _(cause_texts[f->cause]));
		return;
	}
	if (f->object == JBD_OBJ_TRANSACTION)
		fprintf(out, _("  cause: torn commit: the transaction checksum fails at the last (async) commit; "
			 "v1 cannot say which of its blocks did not reach the disk\n"));
	else if (f->object == JBD_OBJ_COMMIT && !f->bad_tags && f->partial_commit)
		fprintf(out, _("  cause: torn commit block: only the commit block's header checks out; every logged "
			 "block of the transaction matches its own checksum, so those reached the disk\n"));
	else if (f->object == JBD_OBJ_COMMIT && !f->bad_tags)
		fprintf(out, _("  cause: torn commit: the last (async) commit block's checksum fails; every logged "
			 "block of the transaction matches its own checksum, so those reached the disk\n"));
	else
		fprintf(out, _("  cause: %s (%u logged block(s) fail their checksums)\n"), _(cause_texts[f->cause]),
		       f->bad_tags);
}

/* A candidate is a verified correction only when the diagnosis proved it and took it as the cause. */
static int proven_correction(const struct diag_finding *f, unsigned i)
{
	return f->correction_proven && i == 0 && f->cand[0].verified;
}

static void text_search(FILE *out, const struct diag_finding *f)
{
	if (!f->weight) {
		fprintf(out, _("  no fit among: single bits%s%s\n"),
		       (f->searched & CRC_SEARCHED_2) ? _(", bit pairs") : _(" (pairs not searched: too many fit by chance)"),
		       (f->searched & CRC_SEARCHED_BURST) ? _(", bursts up to 32 bits") : "");
		return;
	}
	fprintf(out, _("  %" PRIu64 " pattern(s) of weight %u fit%s (%g expected by chance); %s\n"), f->nfits, f->weight,
	       f->burst ? _(" as a burst") : "", f->chance,
	       f->correction_proven ? _("proven: the only fit, and the checksum matches once corrected") :
	       f->proven ? _("the only fit, but fits this light are expected by chance: not proven") :
	       _("not proven"));
	for (unsigned i = 0; i < f->ncand; i++) {
		fprintf(out, _("  candidate %u%s:"), i + 1,
		       proven_correction(f, i) ? _(" (verified)") :
		       f->cand[i].verified ? _(" (fits the checksum; not a proof)") : "");
		diag_print_flips(out, &f->cand[i]);
		fputc('\n', out);
	}
}

static void text_evidence(FILE *out, const struct diag_finding *f)
{
	if (f->uuid_mismatch)
		fprintf(out, _("  a descriptor names another journal UUID\n"));
	if (f->has_stale_sequence)
		fprintf(out, _("  the tag checksum matches this block as logged by transaction %" PRIu32 "\n"),
		       f->stale_sequence);
	if (f->time_backwards)
		fprintf(out, _("  commit time %" PRIu64 " is earlier than the previous commit's, %" PRIu64 "\n"),
		       f->commit_sec, f->prev_commit_sec);
	if (f->partial_commit)
		fprintf(out, _("  only the commit header checks out (a torn commit block)\n"));
	if (f->cause == JBD_CAUSE_TORN_COMMIT && f->async_commit)
		fprintf(out, _("  async commit, last commit in the log, %u tag(s) failing\n"), f->bad_tags);
	for (unsigned i = 0; i < f->leak.nbits; i++)
		fprintf(out, _("  bit %" PRIu32 " (%s %" PRIu64 ") is set here and by transaction %" PRIu32
			 "; clearing it makes the checksum match\n"),
		       f->leak.bit[i], f->info.kind == E4R_KIND_INODE_BITMAP ? _("inode") : _("block"),
		       f->leak.object[i], f->leak.set_by[i]);
}

static int superseded(const struct diag_finding *f, const struct replay_supersede *sup)
{
	return sup && f->action == JBD_AUTO_STOP && f->object != JBD_OBJ_DATA &&
	       sup[f->txn].why == REPLAY_SUPERSEDED;
}

static void text_auto(const struct diag_finding *f, const struct replay_supersede *sup)
{
	if (superseded(f, sup))
		printf(_("  auto: leave the transaction out and replay past it, as it is wholly superseded by later "
			 "transactions (it cannot be replayed itself: %s)\n"), _(stop_texts[f->stop_reason]));
	else if (f->action == JBD_AUTO_STOP)
		printf(_("  auto: %s: %s\n"), _(action_texts[f->action]), _(stop_texts[f->stop_reason]));
	else
		printf(_("  auto: %s\n"), _(action_texts[f->action]));
}

void diag_print_explanation(FILE *out, const struct diag_finding *f)
{
	text_cause(out, f);
	if (f->searched || f->weight)
		text_search(out, f);
	text_evidence(out, f);
}

static void text_finding(const struct diag_finding *f, const struct replay_supersede *sup)
{
	printf(_("transaction %" PRIu32 ", journal block %" PRIu32 ": %s BAD (stored %#" PRIx32
		 ", computed %#" PRIx32 ", %u bits)\n"),
	       f->sequence, f->jblk, _(object_texts[f->object]), f->csum.stored, f->csum.computed, f->csum_bits);
	if (f->block >= 0)
		printf(_("  filesystem block %" PRIu64 ": %s\n"), f->fs_block, fs_block_kind_name(f->info.kind));
	diag_print_explanation(stdout, f);
	text_auto(f, sup);
}

/* ---- JSON ---- */

static void json_candidate(struct json *js, const struct diag_finding *f, unsigned i)
{
	const struct diag_candidate *c = &f->cand[i];

	json_begin_object(js, NULL);
	json_uint(js, "weight", c->weight);
	if (c->span)
		json_uint(js, "span", c->span);
	json_bool(js, "verified", c->verified);
	json_bool(js, "proven_correction", proven_correction(f, i));
	json_begin_array(js, "flips");
	for (unsigned i = 0; i < c->nflips; i++) {
		json_begin_object(js, NULL);
		json_uint(js, "journal_block", c->flip[i].jblk);
		json_uint(js, "byte", c->flip[i].byte);
		json_uint(js, "bit", c->flip[i].bit);
		json_string(js, "place", diag_flip_place_name(c->flip[i].place));
		json_end_object(js);
	}
	json_end_array(js);
	json_end_object(js);
}

static void json_search(struct json *js, const struct diag_finding *f)
{
	json_begin_object(js, "search");
	json_bool(js, "single_bits", f->searched & CRC_SEARCHED_1);
	json_bool(js, "bit_pairs", f->searched & CRC_SEARCHED_2);
	json_bool(js, "bursts", f->searched & CRC_SEARCHED_BURST);
	json_uint(js, "weight", f->weight);
	json_bool(js, "burst", f->burst);
	json_uint(js, "fits", f->nfits);
	json_double(js, "chance", f->chance);
	json_bool(js, "proven", f->proven);
	json_begin_array(js, "candidates");
	for (unsigned i = 0; i < f->ncand; i++)
		json_candidate(js, f, i);
	json_end_array(js);
	json_end_object(js);
}

static void json_leak(struct json *js, const struct diag_finding *f)
{
	json_begin_object(js, "leak");
	json_bool(js, "before_from_home", f->leak.before_from_home);
	json_uint(js, "later_versions", f->leak.later_versions);
	json_begin_array(js, "bits");
	for (unsigned i = 0; i < f->leak.nbits; i++) {
		json_begin_object(js, NULL);
		json_uint(js, "bit", f->leak.bit[i]);
		json_uint(js, f->info.kind == E4R_KIND_INODE_BITMAP ? "inode" : "block", f->leak.object[i]);
		json_uint(js, "set_by", f->leak.set_by[i]);
		json_end_object(js);
	}
	json_end_array(js);
	json_end_object(js);
}

static void json_evidence(struct json *js, const struct diag_finding *f)
{
	json_begin_object(js, "evidence");
	json_bool(js, "uuid_mismatch", f->uuid_mismatch);
	if (f->has_stale_sequence)
		json_uint(js, "stale_sequence", f->stale_sequence);
	else
		json_null(js, "stale_sequence");
	json_bool(js, "time_backwards", f->time_backwards);
	json_uint(js, "commit_time", f->commit_sec);
	json_uint(js, "previous_commit_time", f->prev_commit_sec);
	json_bool(js, "async_commit", f->async_commit);
	json_bool(js, "last_commit", f->last_commit);
	json_bool(js, "partial_commit", f->partial_commit);
	json_uint(js, "bad_tags", f->bad_tags);
	if (f->leak.nbits)
		json_leak(js, f);
	json_end_object(js);
}

static void json_finding(struct json *js, const struct diag_finding *f, const struct replay_supersede *sup)
{
	json_begin_object(js, NULL);
	json_uint(js, "sequence", f->sequence);
	json_string(js, "object", diag_object_name(f->object));
	json_uint(js, "journal_block", f->jblk);
	if (f->block >= 0) {
		json_uint(js, "fs_block", f->fs_block);
		json_string(js, "kind", fs_block_kind_name(f->info.kind));
	} else {
		json_null(js, "fs_block");
		json_null(js, "kind");
	}
	json_checksum(js, "csum_stored", f->csum.stored);
	json_checksum(js, "csum_computed", f->csum.computed);
	json_uint(js, "csum_bits", f->csum_bits);
	/* stored, computed, checksum_bits: deprecated aliases of csum_* */
	json_uint(js, "stored", f->csum.stored);
	json_uint(js, "computed", f->csum.computed);
	json_uint(js, "checksum_bits", f->csum_bits);
	json_string(js, "cause", diag_cause_name(f->cause));
	json_bool(js, "problem", f->problem);
	json_string(js, "action", diag_action_name(f->action));
	if (f->action == JBD_AUTO_STOP)
		json_string(js, "stop_reason", diag_stop_reason_name(f->stop_reason));
	else
		json_null(js, "stop_reason");
	json_bool(js, "transaction_superseded", superseded(f, sup));
	json_bool(js, "logged_blocks_intact", f->object != JBD_OBJ_TRANSACTION && !f->bad_tags);
	json_search(js, f);
	json_evidence(js, f);
	json_end_object(js);
}

/* ---- the whole diagnosis ---- */

void diag_print_text(const struct diag_report *d, const struct replay_supersede *sup)
{
	for (unsigned i = 0; i < d->nfindings; i++)
		text_finding(&d->findings[i], sup);
}

void diag_print_json(struct json *js, const char *key, const struct diag_report *d,
		     const struct replay_supersede *sup)
{
	json_begin_array(js, key);
	for (unsigned i = 0; i < d->nfindings; i++)
		json_finding(js, &d->findings[i], sup);
	json_end_array(js);
}

const char *diag_print_cause_text(enum diag_cause c)
{
	return c <= JBD_CAUSE_UNEXPLAINED ? _(cause_texts[c]) : "?";
}

const char *diag_print_object_text(enum diag_object o)
{
	return o <= JBD_OBJ_TRANSACTION ? _(object_texts[o]) : "?";
}
