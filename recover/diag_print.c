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
	[JBD_CAUSE_FILLED]	= N_("overwritten with all ones or all zeros, not flipped"),
	[JBD_CAUSE_MISDIRECTED]	= N_("misdirected or stale write: the block holds another block's content"),
	[JBD_CAUSE_TORN_WRITE]	= N_("torn write: the intended content only up to a sector boundary"),
	[JBD_CAUSE_REVOKE_COUNT]	= N_("revoke block's record count is larger than the block"),
	[JBD_CAUSE_DESCRIPTOR_TAGS]	= N_("descriptor's tags run past the block: no tag is marked the last"),
	[JBD_CAUSE_COMMIT_HEADER]	= N_("malformed commit header: a checksum type or size the journal's "
					     "features do not allow"),
};

static const char *const object_texts[] = {
	[JBD_OBJ_DATA]		= N_("data block tag checksum"),
	[JBD_OBJ_DESCRIPTOR]	= N_("descriptor block checksum"),
	[JBD_OBJ_REVOKE]	= N_("revoke block checksum"),
	[JBD_OBJ_COMMIT]	= N_("commit block checksum"),
	[JBD_OBJ_TRANSACTION]	= N_("transaction checksum (v1)"),
};

/* The object of a structural fault (its checksum, if any, is not what failed). */
static const char *const structure_texts[] = {
	[JBD_OBJ_DATA]		= N_("logged block"),
	[JBD_OBJ_DESCRIPTOR]	= N_("descriptor block structure"),
	[JBD_OBJ_REVOKE]	= N_("revoke block structure"),
	[JBD_OBJ_COMMIT]	= N_("commit block header"),
	[JBD_OBJ_TRANSACTION]	= N_("transaction"),
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
	[JBD_STOP_OVERWRITTEN]		= N_("the block was overwritten, so the intended content is not there"),
	[JBD_STOP_STRUCTURE]		= N_("the log's structure is damaged here, so what the transaction holds is "
					     "not known"),
};

static const char *const place_texts[] = {
	[JBD_FLIP_CONTENT]	= N_("content"),
	[JBD_FLIP_STORED]	= N_("stored checksum"),
	[JBD_FLIP_SEQUENCE]	= N_("sequence"),
};

static const char *const fill_texts[] = {
	[JBD_FILL_NONE]		= "",
	[JBD_FILL_STORED_CSUM]	= N_("the stored checksum"),
	[JBD_FILL_BLOCK]	= N_("the whole block"),
	[JBD_FILL_COMMIT_TIME]	= N_("the commit time"),
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

/* A block matched, in words: "journal block J (transaction T's copy of fs block B)", ... */
static void text_match(FILE *out, const struct diag_match *m)
{
	if (m->kind == JBD_MATCH_HOME)
		fprintf(out, _("filesystem block %" PRIu64 " (the home of another tag of transaction %" PRIu32 ")"),
		             m->fs_block, m->sequence);
	else if (m->is_copy)
		fprintf(out, _("journal block %" PRIu32 " (transaction %" PRIu32 "'s copy of filesystem block %" PRIu64 ")"),
		             m->jblk, m->sequence, m->fs_block);
	else
		fprintf(out, _("journal block %" PRIu32 " (a log block of transaction %" PRIu32 ")"), m->jblk, m->sequence);
}

/* The evidence of the overwrite and structure causes. */
static void text_overwrite(FILE *out, const struct diag_finding *f)
{
	switch (f->cause) {
	case JBD_CAUSE_FILLED:
		fprintf(out, _("  %s is all %s: overwritten, not flipped\n"), _(fill_texts[f->fill_field]),
		             f->fill_byte ? _("ones") : _("zeros"));
		break;
	case JBD_CAUSE_MISDIRECTED:
		fprintf(out, _("  its content equals "));
		text_match(out, &f->match);
		fprintf(out, "\n");
		break;
	case JBD_CAUSE_TORN_WRITE:
		fprintf(out, _("  torn at sector %u of %u (512 bytes each): "), f->torn_sector, f->sectors);
		fprintf(out, f->torn_new_first ? _("sectors before it equal ") : _("sectors from it on equal "));
		text_match(out, &f->torn_intended);
		fprintf(out, _(", whose content makes the checksum match; the %s differ from it\n"),
		             f->torn_new_first ? _("sectors from it on") : _("sectors before it"));
		break;
	case JBD_CAUSE_REVOKE_COUNT:
		fprintf(out, _("  r_count %" PRIu32 " bytes, the block holds at most %" PRIu32 "\n"), f->r_count,
		             f->r_count_max);
		break;
	case JBD_CAUSE_DESCRIPTOR_TAGS:
		fprintf(out, _("  %u tag(s) read to the block's end"), f->ntags);
		if (f->claims_log_block)
			fprintf(out, _("; a tag claims journal block %" PRIu32 ", a block of the transaction's own log, "
				       "so its tag count cannot be"), f->claimed_jblk);
		fprintf(out, "\n");
		break;
	case JBD_CAUSE_COMMIT_HEADER:
		fprintf(out, _("  checksum type %u, size %u\n"), f->header_type, f->header_size);
		break;
	default:
		break;
	}
}

void diag_print_explanation(FILE *out, const struct diag_finding *f)
{
	text_cause(out, f);
	text_overwrite(out, f);
	/* where another cause explains the mismatch, no fit is offered as flips */
	if ((f->searched || f->weight) && f->cause <= JBD_CAUSE_UNEXPLAINED && f->cause != JBD_CAUSE_TORN_COMMIT)
		text_search(out, f);
	text_evidence(out, f);
}

static void text_finding(const struct diag_finding *f, const struct replay_supersede *sup)
{
	if (f->structure)
		printf(_("transaction %" PRIu32 ", journal block %" PRIu32 ": %s\n"), f->sequence, f->jblk,
		       _(structure_texts[f->object]));
	else
		printf(_("transaction %" PRIu32 ", journal block %" PRIu32 ": %s BAD (stored %#" PRIx32
			 ", computed %#" PRIx32 ", %u bits)\n"),
		       f->sequence, f->jblk, _(object_texts[f->object]), f->csum.stored, f->csum.computed,
		       f->csum_bits);
	if (f->block >= 0)
		printf(_("  filesystem block %" PRIu64 ": %s\n"), f->fs_block,
		       _(fs_block_kind_text(f->info.kind)));
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

static void json_match(struct json *js, const char *key, const struct diag_match *m)
{
	json_begin_object(js, key);
	json_string(js, "kind", m->kind == JBD_MATCH_HOME ? "home_block" : m->is_copy ? "logged_copy" : "log_block");
	if (m->kind == JBD_MATCH_HOME)
		json_null(js, "journal_block");
	else
		json_uint(js, "journal_block", m->jblk);
	json_uint(js, "sequence", m->sequence);
	if (m->kind == JBD_MATCH_HOME || m->is_copy)
		json_uint(js, "fs_block", m->fs_block);
	else
		json_null(js, "fs_block");
	json_end_object(js);
}

/* The evidence of the overwrite and structure causes, each under its own key. */
static void json_overwrite(struct json *js, const struct diag_finding *f)
{
	switch (f->cause) {
	case JBD_CAUSE_FILLED:
		json_begin_object(js, "filled");
		json_string(js, "field", f->fill_field == JBD_FILL_BLOCK ? "block" :
					 f->fill_field == JBD_FILL_COMMIT_TIME ? "commit_time" : "stored_checksum");
		json_string(js, "with", f->fill_byte ? "ones" : "zeros");
		json_end_object(js);
		break;
	case JBD_CAUSE_MISDIRECTED:
		json_match(js, "matches", &f->match);
		break;
	case JBD_CAUSE_TORN_WRITE:
		json_begin_object(js, "torn");
		json_uint(js, "sector", f->torn_sector);
		json_uint(js, "sectors", f->sectors);
		json_bool(js, "intended_first", f->torn_new_first);
		json_match(js, "intended", &f->torn_intended);
		json_end_object(js);
		break;
	case JBD_CAUSE_REVOKE_COUNT:
		json_begin_object(js, "revoke_count");
		json_uint(js, "r_count", f->r_count);
		json_uint(js, "max", f->r_count_max);
		json_end_object(js);
		break;
	case JBD_CAUSE_DESCRIPTOR_TAGS:
		json_begin_object(js, "descriptor_tags");
		json_uint(js, "tags", f->ntags);
		if (f->claims_log_block)
			json_uint(js, "claimed_journal_block", f->claimed_jblk);
		else
			json_null(js, "claimed_journal_block");
		json_end_object(js);
		break;
	case JBD_CAUSE_COMMIT_HEADER:
		json_begin_object(js, "commit_header");
		json_uint(js, "checksum_type", f->header_type);
		json_uint(js, "checksum_size", f->header_size);
		json_end_object(js);
		break;
	default:
		break;
	}
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
	json_overwrite(js, f);
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
	json_string(js, "fault", f->structure ? "structure" : "checksum");
	json_bool(js, "problem", f->problem);
	json_string(js, "action", diag_action_name(f->action));
	if (f->action == JBD_AUTO_STOP)
		json_string(js, "stop_reason", diag_stop_reason_name(f->stop_reason));
	else
		json_null(js, "stop_reason");
	json_bool(js, "transaction_superseded", superseded(f, sup));
	/* tags that ran past their block name homes no writer meant */
	json_bool(js, "logged_blocks_intact", f->object != JBD_OBJ_TRANSACTION && !f->bad_tags &&
		  f->cause != JBD_CAUSE_DESCRIPTOR_TAGS);
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

const char *diag_print_finding_object_text(const struct diag_finding *f)
{
	return f->structure ? _(structure_texts[f->object]) : _(object_texts[f->object]);
}

void diag_print_causes_text(FILE *out, const char *prefix, const struct diag_report *d)
{
	for (unsigned i = 0; d && i < d->nfindings; i++) {
		const struct diag_finding *f = &d->findings[i];

		if (!f->problem)
			continue;
		fprintf(out, _("%stransaction %" PRIu32 ", journal block %" PRIu32 ": %s: cause: %s\n"), prefix,
			f->sequence, f->jblk, diag_print_finding_object_text(f), diag_print_cause_text(f->cause));
	}
}

void diag_print_fault_json(struct json *js, const struct diag_finding *f, int null_fs_block)
{
	json_uint(js, "sequence", f->sequence);
	json_string(js, "object", diag_object_name(f->object));
	json_uint(js, "journal_block", f->jblk);
	if (f->block >= 0)
		json_uint(js, "fs_block", f->fs_block);
	else if (null_fs_block)
		json_null(js, "fs_block");
	json_string(js, "cause", diag_cause_name(f->cause));
	json_string(js, "fault", f->structure ? "structure" : "checksum");
}

void diag_print_causes_json(struct json *js, const char *key, const struct diag_report *d)
{
	json_begin_array(js, key);
	for (unsigned i = 0; d && i < d->nfindings; i++) {
		const struct diag_finding *f = &d->findings[i];

		if (!f->problem)
			continue;
		json_begin_object(js, NULL);
		diag_print_fault_json(js, f, 1);
		json_string(js, "action", diag_action_name(f->action));
		json_end_object(js);
	}
	json_end_array(js);
}

const char *diag_print_cause_text(enum diag_cause c)
{
	return (unsigned)c < sizeof(cause_texts) / sizeof(*cause_texts) ? _(cause_texts[c]) : "?";
}

const char *diag_print_object_text(enum diag_object o)
{
	return o <= JBD_OBJ_TRANSACTION ? _(object_texts[o]) : "?";
}
