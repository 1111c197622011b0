/* e4recover logdump: show the journal's transactions, checksums and end, as text or JSON. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <et/com_err.h>

#include "cli.h"
#include "commands.h"
#include "util/e4r_err.h"
#include "fs/decode.h"
#include "replay/load.h"
#include "replay/view.h"
#include "json.h"
#include "json_doc.h"
#include "progress.h"
#include "describe.h"
#include "diag_print.h"
#include "logdump_fc.h"

struct logdump_opts {
	int		json, all, decode, diagnose;
	int		have_seq, have_block;
	uint32_t	seq;
	uint64_t	block;
	const char	*journal;	/* external journal device, or NULL */
};

struct logdump {
	struct logdump_opts	o;
	const char		*image;
	struct replay_load	load;		/* the journal, its log, the stop policy's plan (what it does
						   with each block) and the fast-commit area, if any */
	struct fs_decode	*dec;
	struct replay_view	*view;		/* the fates and problems shown, from the scan and the plan */
	struct diag_report	*diag;		/* --diagnose */
	struct replay_supersede	*sup;		/* --diagnose: auto's supersede verdicts, by transaction */
	unsigned		problems;	/* bad checksums and other damage found */
};

/* What becomes of a logged block version under the stop policy (the view computes it). */
static const char *const fate_texts[] = {
	[REPLAY_VIEW_REPLAYED]		= N_("replayed"),
	[REPLAY_VIEW_OLD]		= N_("not replayed: old transaction"),
	[REPLAY_VIEW_RECOVERY_FAILS]	= N_("not replayed: recovery fails as a whole"),
	[REPLAY_VIEW_PAST_END]		= N_("not replayed: after the end of replay"),
	[REPLAY_VIEW_REVOKED]		= N_("not replayed: revoked"),
	[REPLAY_VIEW_CSUM]		= N_("not replayed: its checksum is bad"),
	[REPLAY_VIEW_OUT_OF_FS]		= N_("not replayed: its home is outside the filesystem"),
};

/* Why the log ends, in words (JSON keeps jbd_scan_end_name's). */
static const char *const end_texts[] = {
	[JBD_END_CLEAN]		= N_("the journal is clean"),
	[JBD_END_NO_MAGIC]	= N_("a block without the journal's magic number"),
	[JBD_END_SEQUENCE]	= N_("a block of another transaction"),
	[JBD_END_UNKNOWN_TYPE]	= N_("a block of a type the format does not define"),
	[JBD_END_STALE]		= N_("a stale transaction (its commit time goes backwards)"),
	[JBD_END_BAD_BLOCK]	= N_("a descriptor or revoke block that cannot be read"),
	[JBD_END_WRAPPED]	= N_("the log came back to its start"),
	[JBD_END_IO]		= N_("a journal block could not be read"),
	[JBD_END_LIMIT]		= N_("a safety limit"),
};

static const char *end_text(enum jbd_scan_end reason)
{
	return (unsigned)reason < sizeof(end_texts) / sizeof(end_texts[0]) && end_texts[reason] ?
	       _(end_texts[reason]) : "?";
}

/* Journal feature bits and their names. */
struct feature_name {
	int		word;	/* 0 compat, 1 incompat, 2 ro_compat */
	uint32_t	mask;
	const char	*name;
};

static const struct feature_name feature_names[] = {
	{ 0, JBD_FEATURE_COMPAT_CHECKSUM,	"checksum" },
	{ 1, JBD_FEATURE_INCOMPAT_REVOKE,	"revoke" },
	{ 1, JBD_FEATURE_INCOMPAT_64BIT,	"64bit" },
	{ 1, JBD_FEATURE_INCOMPAT_ASYNC_COMMIT,	"async_commit" },
	{ 1, JBD_FEATURE_INCOMPAT_CSUM_V2,	"csum_v2" },
	{ 1, JBD_FEATURE_INCOMPAT_CSUM_V3,	"csum_v3" },
	{ 1, JBD_FEATURE_INCOMPAT_FAST_COMMIT,	"fast_commit" },
};


/* The tag names a home block at or past the end of the filesystem. */
static int home_outside(const struct logdump *ld, const struct jbd_scan_block *b)
{
	return b->fs_block >= ext2fs_blocks_count(ld->load.j->fs->super);
}

static const char *csum_text(const struct jbd_csum *c)
{
	if (c->state == JBD_CSUM_OK)
		return _("checksum OK");
	if (c->state == JBD_CSUM_BAD)
		return _("checksum BAD");
	return _("no checksum");
}

/* ---- options ---- */

/* A whole decimal (or 0x hex) number no larger than MAX. */
static int parse_number(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

static int check_numbers(struct logdump_opts *o, const char *seq, const char *block)
{
	uint64_t v;

	if (seq) {
		if (parse_number(seq, UINT32_MAX, &v)) {
			cli_usage_error("logdump", _("--transaction=%s: not a transaction ID (0 to %u)"),
					seq, UINT32_MAX);
			return EXIT_USAGE;
		}
		o->have_seq = 1;
		o->seq = v;
	}
	if (block) {
		if (parse_number(block, UINT64_MAX, &v)) {
			cli_usage_error("logdump", _("--block=%s: not a block number"), block);
			return EXIT_USAGE;
		}
		o->have_block = 1;
		o->block = v;
	}
	return -1;
}

/* The view's verdict on block B of transaction T. */
static const struct replay_view_block *block_view(const struct logdump *ld, const struct jbd_scan_txn *t,
						  const struct jbd_scan_block *b)
{
	return replay_view_block(ld->view, (unsigned)(t - ld->load.s->txns), (unsigned)(b - t->blocks));
}

/* ---- selection and problem counting ---- */

static int txn_logs_block(const struct jbd_scan_txn *t, uint64_t blk)
{
	unsigned i;

	for (i = 0; i < t->nblocks; i++)
		if (t->blocks[i].fs_block == blk)
			return 1;
	for (i = 0; i < t->nrevoked; i++)
		if (t->revoked[i] == blk)
			return 1;
	return 0;
}

static int txn_shown(const struct logdump *ld, const struct jbd_scan_txn *t)
{
	if (ld->o.have_seq && t->sequence != ld->o.seq)
		return 0;
	if (ld->o.have_block && !txn_logs_block(t, ld->o.block))
		return 0;
	return 1;
}

static int block_shown(const struct logdump *ld, const struct jbd_scan_block *b)
{
	return !ld->o.have_block || b->fs_block == ld->o.block;
}

/* Problems in the superblock, the shown live transactions (old ones are expected garbage) and the log. */
static void count_problems(struct logdump *ld)
{
	unsigned t;

	ld->problems = ld->view->sb_problems + ld->view->log_problems;
	for (t = 0; t < ld->load.s->nlive; t++)
		if (txn_shown(ld, &ld->load.s->txns[t]))
			ld->problems += ld->view->txns[t].problems;
	ld->problems += fc_problems(ld->load.fc);
}

/* ---- --decode ---- */

static errcode_t build_decoder(struct logdump *ld)
{
	unsigned t, i;
	errcode_t err;

	err = fs_decode_new(ld->load.j->fs, &ld->dec);
	if (err)
		return err;
	if (ld->o.have_block)
		return fs_decode_want(ld->dec, ld->o.block);
	for (t = 0; t < ld->load.s->ntxns; t++) {
		const struct jbd_scan_txn *txn = &ld->load.s->txns[t];
		if (!txn_shown(ld, txn))
			continue;
		for (i = 0; i < txn->nblocks; i++) {
			err = fs_decode_want(ld->dec, txn->blocks[i].fs_block);
			if (err)
				return err;
		}
	}
	return 0;
}

/* ---- the journal superblock ---- */

static uint32_t feature_word(const struct jbd_journal *j, int word)
{
	return word == 0 ? j->compat : word == 1 ? j->incompat : j->ro_compat;
}

/* Names of the feature bits, unknown ones as "incompat_0x40". */
static void for_each_feature(const struct jbd_journal *j, void (*fn)(const char *, void *), void *arg)
{
	static const char *const words[] = { "compat", "incompat", "ro_compat" };
	char name[32];
	uint32_t known[3] = { 0, 0, 0 };
	size_t i;
	int w, bit;

	for (i = 0; i < sizeof(feature_names) / sizeof(feature_names[0]); i++) {
		known[feature_names[i].word] |= feature_names[i].mask;
		if (feature_word(j, feature_names[i].word) & feature_names[i].mask)
			fn(feature_names[i].name, arg);
	}
	for (w = 0; w < 3; w++)
		for (bit = 0; bit < 32; bit++)
			if (feature_word(j, w) & ~known[w] & (1U << bit)) {
				snprintf(name, sizeof(name), "%s_0x%x", words[w], 1U << bit);
				fn(name, arg);
			}
}

static void feature_json(const char *name, void *arg)
{
	json_string(arg, NULL, name);
}

static void feature_text(const char *name, void *arg)
{
	printf(" %s", name);
	(*(int *)arg)++;
}

static void text_super(const struct logdump *ld)
{
	const struct jbd_journal *j = ld->load.j;
	int n = 0;

	printf(_("Journal superblock (v%d%s):\n"), j->format, j->external ? _(", external device") : "");
	if (j->device)
		printf(_("  external device found by its UUID: %s\n"), j->device);
	printf(_("  block size %u, %u blocks (maxlen), log from block %u to %u\n"),
	       j->blocksize, j->maxlen, j->first, j->last);
	if (j->fc_blocks)
		printf(_("  fast-commit area: %u blocks\n"), j->fc_blocks);
	printf(_("  start %u%s, sequence %u, errno %d\n"), j->start,
	       j->start ? "" : _(" (clean: nothing to recover)"), j->sequence, j->errno_);
	printf(_("  features:"));
	for_each_feature(j, feature_text, &n);
	printf("%s\n", n ? "" : _(" (none)"));
	printf(_("  checksums: %s"), json_checksum_type(j));
	if (j->csum != JBD_CSUM_NONE)
		printf(" (v%d)", (int)j->csum);
	if (j->sb_csum_ok < 0)
		printf(_("; superblock not checksummed\n"));
	else
		printf(_("; superblock checksum %s (stored 0x%08x, computed 0x%08x)\n"),
		       j->sb_csum_ok ? _("OK") : _("BAD"), j->sb_csum_stored, j->sb_csum_computed);
}

static void json_super(struct json *js, const struct logdump *ld)
{
	const struct jbd_journal *j = ld->load.j;

	json_begin_object(js, "journal");
	json_uint(js, "blocksize", j->blocksize);
	json_uint(js, "maxlen", j->maxlen);
	json_uint(js, "first", j->first);
	json_uint(js, "last", j->last);
	json_uint(js, "start", j->start);
	json_uint(js, "sequence", j->sequence);
	json_int(js, "errno", j->errno_);
	json_uint(js, "format", j->format);
	json_bool(js, "external", j->external);
	if (j->external)
		json_string(js, "device_found_by_uuid", j->device);
	json_uint(js, "fc_blocks", j->fc_blocks);
	json_begin_array(js, "features");
	for_each_feature(j, feature_json, js);
	json_end_array(js);
	json_journal_checksum(js, j);
	json_tristate(js, "superblock_csum_ok", j->sb_csum_ok);
	if (j->sb_csum_ok >= 0) {
		json_checksum(js, "superblock_csum_stored", j->sb_csum_stored);
		json_checksum(js, "superblock_csum_computed", j->sb_csum_computed);
	}
	json_end_object(js);
}

/* ---- transactions, text ---- */

static void text_time(uint64_t sec, uint32_t nsec)
{
	/*
	 * The kernel stores h_commit_sec as 64 bits; debugfs 1.47's journal
	 * writer puts 32-bit seconds in the high half and zeros in the low.
	 * Read as stored, that is a date billions of years away: shown as the
	 * time it means, with a word on where it was found.
	 */
	int high = sec > UINT32_MAX && !(sec & UINT32_MAX);
	time_t t = (time_t)(high ? sec >> 32 : sec);
	struct tm tm;
	char buf[64];

	if ((uint64_t)t != (high ? sec >> 32 : sec) || !gmtime_r(&t, &tm) ||
	    !strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm))
		printf(_("%llu s"), (unsigned long long)sec);
	else if (high)
		printf(_("%s.%09u UTC (32-bit seconds in the high half of the field, as debugfs "
			 "writes them)"), buf, nsec);
	else
		printf("%s.%09u UTC", buf, nsec);
}

static void text_block(const struct logdump *ld, const struct jbd_scan_txn *t,
		       const struct jbd_scan_block *b)
{
	const struct replay_view_block *v = block_view(ld, t, b);
	struct fs_block_info bi;
	char what[128];

	printf(_("    fs block %llu -> journal block %u, flags 0x%x%s, %s"),
	       (unsigned long long)b->fs_block, b->jblk, b->flags,
	       b->flags & JBD_FLAG_ESCAPE ? _(" (escaped)") : "", csum_text(&b->csum));
	if (jbd_csum_bad(&b->csum))
		printf(_(" (stored 0x%08x, computed 0x%08x)"), b->csum.stored, b->csum.computed);
	if (ld->dec && !fs_decode_lookup(ld->dec, b->fs_block, &bi)) {
		describe_block(&bi, what, sizeof(what));
		printf(" [%s]", what);
	}
	if (v->fate == REPLAY_VIEW_REVOKED)
		printf(_("; revoked by transaction %u"), v->revoker);
	else if (v->fate != REPLAY_VIEW_REPLAYED && v->fate != REPLAY_VIEW_OLD && v->fate != REPLAY_VIEW_PAST_END)
		printf("; %s", _(fate_texts[v->fate]));
	/* Whatever its fate, a home past the end is damage worth seeing (a flipped tag, garbage). */
	if (home_outside(ld, b) && v->fate != REPLAY_VIEW_OUT_OF_FS)
		printf(_("; HOME OUTSIDE THE FILESYSTEM (%llu blocks)"),
		       (unsigned long long)ext2fs_blocks_count(ld->load.j->fs->super));
	putchar('\n');
}

static void text_desc(const struct logdump *ld, const struct jbd_scan_txn *t, unsigned d)
{
	const struct jbd_scan_desc *desc = &t->descs[d];
	unsigned i;

	printf(_("  descriptor block %u: %u tags%s, tail %s\n"), desc->jblk, desc->ntags,
	       desc->no_last_tag ? _(", NONE MARKED THE LAST") : "", csum_text(&desc->tail));
	for (i = 0; i < t->nblocks; i++)
		if (t->blocks[i].desc_jblk == desc->jblk && block_shown(ld, &t->blocks[i]))
			text_block(ld, t, &t->blocks[i]);
}

static void text_revokes(const struct logdump *ld, const struct jbd_scan_txn *t)
{
	unsigned r, i;

	for (r = 0; r < t->nrevokes; r++) {
		const struct jbd_scan_revoke *rv = &t->revokes[r];
		printf(_("  revoke block %u: %u records (r_count %u%s), tail %s\n"), rv->jblk, rv->count,
		       rv->r_count, rv->count_bad ? _(", TOO LARGE") : "", csum_text(&rv->tail));
		printf(_("    revoked:"));
		for (i = rv->first; i < rv->first + rv->count && i < t->nrevoked; i++)
			if (!ld->o.have_block || t->revoked[i] == ld->o.block)
				printf(" %llu", (unsigned long long)t->revoked[i]);
		putchar('\n');
	}
}

static void text_commit(const struct jbd_scan_txn *t)
{
	if (!t->committed) {
		printf(_("  no commit block: the transaction is incomplete\n"));
		return;
	}
	printf(_("  commit block %u, "), t->commit_jblk);
	text_time(t->commit_sec, t->commit_nsec);
	printf(", %s", csum_text(&t->commit_csum));
	if (t->commit_csum.state != JBD_CSUM_NA)
		printf(_(" (type %u size %u, stored 0x%08x, computed 0x%08x)"), t->commit_csum_type,
		       t->commit_csum_size, t->commit_csum.stored, t->commit_csum.computed);
	if (t->commit_header_bad)
		printf(_("; HEADER MALFORMED (type %u size %u)"), t->commit_csum_type, t->commit_csum_size);
	putchar('\n');
}

static void text_txn(const struct logdump *ld, const struct jbd_scan_txn *t)
{
	unsigned d;

	printf(_("Transaction %u%s, from journal block %u:\n"), t->sequence,
	       t->old ? _(" (OLD: past the end of the log)") : "", t->first_jblk);
	for (d = 0; d < t->ndescs; d++)
		text_desc(ld, t, d);
	text_revokes(ld, t);
	text_commit(t);
}

static void text_end(const struct logdump *ld)
{
	const struct jbd_scan *s = ld->load.s;

	if (s->end_reason == JBD_END_CLEAN) {
		printf(_("The journal is clean (s_start 0): nothing to recover.\n"));
		return;
	}
	printf(_("End of the log at journal block %u (expected sequence %u): %s"), s->end_jblk,
	       s->end_sequence, end_text(s->end_reason));
	if (s->end_error)
		printf(" (%s)", error_message(s->end_error));
	putchar('\n');
	if (s->stop_error) {
		printf(_("e2fsck would replay nothing: %s\n"), error_message(s->stop_error));
		return;
	}
	if (ld->view->replays_any)
		printf(_("e2fsck would replay transactions %u to %u\n"), ld->view->replay_first,
		       ld->view->replay_last);
	else
		printf(_("e2fsck would replay no transaction\n"));
	if (s->has_failed_commit)
		printf(_("e2fsck would report transaction %u as corrupt: replay aborted there\n"), s->failed_commit);
}

/* Call FN for every logged version of the --block block, FINAL telling the one left on disk. */
static void for_each_version(const struct logdump *ld,
			     void (*fn)(const struct logdump *, const struct jbd_scan_txn *,
					const struct jbd_scan_block *, int final, void *), void *arg)
{
	unsigned t, i, ft = 0, fi = 0;
	int have_final = replay_view_final(ld->view, ld->o.block, &ft, &fi);

	for (t = 0; t < ld->load.s->ntxns; t++) {
		const struct jbd_scan_txn *txn = &ld->load.s->txns[t];
		if (!ld->o.all && txn->old)
			continue;
		for (i = 0; i < txn->nblocks; i++)
			if (txn->blocks[i].fs_block == ld->o.block)
				fn(ld, txn, &txn->blocks[i], have_final && t == ft && i == fi, arg);
	}
}

static void text_version(const struct logdump *ld, const struct jbd_scan_txn *txn,
			 const struct jbd_scan_block *b, int final, void *arg)
{
	const struct replay_view_block *v = block_view(ld, txn, b);

	printf(_("  transaction %u%s, journal block %u: %s"), txn->sequence,
	       txn->old ? _(" (old)") : "", b->jblk, _(fate_texts[v->fate]));
	if (v->fate == REPLAY_VIEW_REVOKED)
		printf(_(" by transaction %u"), v->revoker);
	if (final)
		printf(_(" (this version ends on disk)"));
	putchar('\n');
	(*(unsigned *)arg)++;
}

/* --block: every logged version of one block and what becomes of it. */
static void text_versions(const struct logdump *ld)
{
	struct fs_block_info bi;
	char what[128];
	unsigned n = 0;

	printf(_("Filesystem block %llu"), (unsigned long long)ld->o.block);
	if (ld->dec && !fs_decode_lookup(ld->dec, ld->o.block, &bi)) {
		describe_block(&bi, what, sizeof(what));
		printf(" (%s)", what);
	}
	printf(":\n");
	for_each_version(ld, text_version, &n);
	if (!n)
		printf(_("  not logged in the journal\n"));
}

static void text_output(struct logdump *ld)
{
	unsigned t, shown = 0;

	text_super(ld);
	for (t = 0; t < ld->load.s->ntxns; t++) {
		if (!ld->o.all && ld->load.s->txns[t].old)
			continue;
		if (txn_shown(ld, &ld->load.s->txns[t])) {
			text_txn(ld, &ld->load.s->txns[t]);
			shown++;
		}
	}
	if (ld->o.have_seq && !shown)
		printf(_("Transaction %u is not in the journal.\n"), ld->o.seq);
	text_end(ld);
	if (ld->load.fc && !ld->o.have_seq && !ld->o.have_block)
		fc_text(ld->load.fc, ld->view->fc_replays);
	if (ld->o.have_block)
		text_versions(ld);
	if (ld->diag) {
		printf(_("Diagnosis of the checksum failures:\n"));
		diag_print_text(ld->diag, ld->sup);
	}
}

/* ---- transactions, JSON ---- */

static void json_block(struct json *js, const struct logdump *ld, const struct jbd_scan_txn *t,
		       const struct jbd_scan_block *b)
{
	const struct replay_view_block *v = block_view(ld, t, b);
	struct fs_block_info bi;

	json_begin_object(js, NULL);
	json_uint(js, "fs_block", b->fs_block);
	json_uint(js, "journal_block", b->jblk);
	json_uint(js, "descriptor_block", b->desc_jblk);
	json_uint(js, "flags", b->flags);
	json_bool(js, "escaped", !!(b->flags & JBD_FLAG_ESCAPE));
	json_tristate(js, "csum_ok", b->csum.state);
	if (b->csum.state != JBD_CSUM_NA) {
		json_checksum(js, "csum_stored", b->csum.stored);
		json_checksum(js, "csum_computed", b->csum.computed);
	}
	json_string(js, "fate", replay_view_fate_name(v->fate));
	if (v->fate == REPLAY_VIEW_REVOKED)
		json_uint(js, "revoked_by", v->revoker);
	json_bool(js, "outside_filesystem", home_outside(ld, b));
	if (ld->dec && !fs_decode_lookup(ld->dec, b->fs_block, &bi))
		json_block_info(js, &bi);
	json_end_object(js);
}

static void json_csum(struct json *js, const char *prefix, const struct jbd_csum *c)
{
	char key[48];

	snprintf(key, sizeof(key), "%s_csum_ok", prefix);
	json_tristate(js, key, c->state);
	if (c->state == JBD_CSUM_NA)
		return;
	snprintf(key, sizeof(key), "%s_csum_stored", prefix);
	json_checksum(js, key, c->stored);
	snprintf(key, sizeof(key), "%s_csum_computed", prefix);
	json_checksum(js, key, c->computed);
}

static void json_revokes(struct json *js, const struct logdump *ld, const struct jbd_scan_txn *t)
{
	unsigned i, r;

	json_begin_array(js, "revoked");
	for (i = 0; i < t->nrevoked; i++)
		if (!ld->o.have_block || t->revoked[i] == ld->o.block)
			json_uint(js, NULL, t->revoked[i]);
	json_end_array(js);
	json_begin_array(js, "revoke_blocks");
	for (r = 0; r < t->nrevokes; r++) {
		json_begin_object(js, NULL);
		json_uint(js, "journal_block", t->revokes[r].jblk);
		json_uint(js, "r_count", t->revokes[r].r_count);
		json_bool(js, "count_bad", t->revokes[r].count_bad);
		json_uint(js, "records", t->revokes[r].count);
		json_csum(js, "tail", &t->revokes[r].tail);
		json_end_object(js);
	}
	json_end_array(js);
}

static void json_descs(struct json *js, const struct jbd_scan_txn *t)
{
	unsigned d;

	json_begin_array(js, "descriptor_blocks");
	for (d = 0; d < t->ndescs; d++)
		json_uint(js, NULL, t->descs[d].jblk);
	json_end_array(js);
	json_begin_array(js, "descriptors");
	for (d = 0; d < t->ndescs; d++) {
		json_begin_object(js, NULL);
		json_uint(js, "journal_block", t->descs[d].jblk);
		json_uint(js, "tags", t->descs[d].ntags);
		json_bool(js, "no_last_tag", t->descs[d].no_last_tag);
		json_csum(js, "tail", &t->descs[d].tail);
		json_end_object(js);
	}
	json_end_array(js);
}

static void json_commit(struct json *js, const struct jbd_scan_txn *t)
{
	if (!t->committed) {
		json_null(js, "commit_block");
		json_null(js, "commit_csum_ok");
		return;
	}
	json_uint(js, "commit_block", t->commit_jblk);
	json_csum(js, "commit", &t->commit_csum);
	json_uint(js, "commit_csum_type", t->commit_csum_type);
	json_uint(js, "commit_csum_size", t->commit_csum_size);
	json_bool(js, "commit_header_bad", t->commit_header_bad);
	json_uint(js, "commit_sec", t->commit_sec);
	json_uint(js, "commit_nsec", t->commit_nsec);
}

static void json_txn(struct json *js, const struct logdump *ld, const struct jbd_scan_txn *t)
{
	unsigned i;

	json_begin_object(js, NULL);
	json_uint(js, "sequence", t->sequence);
	json_uint(js, "first_block", t->first_jblk);
	json_bool(js, "old", t->old);
	json_descs(js, t);
	json_commit(js, t);
	json_bool(js, "committed", t->committed);
	json_bool(js, "replayed", ld->view->txns[t - ld->load.s->txns].replayed);
	json_begin_array(js, "blocks");
	for (i = 0; i < t->nblocks; i++)
		if (block_shown(ld, &t->blocks[i]))
			json_block(js, ld, t, &t->blocks[i]);
	json_end_array(js);
	json_revokes(js, ld, t);
	json_end_object(js);
}

static void json_end(struct json *js, const struct logdump *ld)
{
	const struct jbd_scan *s = ld->load.s;

	json_begin_object(js, "end");
	json_uint(js, "journal_block", s->end_jblk);
	json_string(js, "reason", jbd_scan_end_name(s->end_reason));
	json_uint(js, "sequence", s->end_sequence);
	json_string(js, "error", s->end_error ? error_message(s->end_error) : NULL);
	json_end_object(js);
	json_begin_object(js, "replay");
	json_uint(js, "stop_end", s->stop_end);
	if (s->has_failed_commit)
		json_uint(js, "failed_commit", s->failed_commit);
	else
		json_null(js, "failed_commit");
	json_string(js, "error", s->stop_error ? error_message(s->stop_error) : NULL);
	json_end_object(js);
}

static void json_version(const struct logdump *ld, const struct jbd_scan_txn *txn,
			 const struct jbd_scan_block *b, int final, void *arg)
{
	struct json *js = arg;
	const struct replay_view_block *v = block_view(ld, txn, b);

	json_begin_object(js, NULL);
	json_uint(js, "sequence", txn->sequence);
	json_uint(js, "journal_block", b->jblk);
	json_bool(js, "old", txn->old);
	json_bool(js, "revoked", v->fate == REPLAY_VIEW_REVOKED);
	if (v->fate == REPLAY_VIEW_REVOKED)
		json_uint(js, "revoked_by", v->revoker);
	json_bool(js, "replayed", v->fate == REPLAY_VIEW_REPLAYED);
	json_bool(js, "final", final);
	json_string(js, "fate", replay_view_fate_name(v->fate));
	json_end_object(js);
}

static void json_versions(struct json *js, const struct logdump *ld)
{
	struct fs_block_info bi;

	json_begin_object(js, "block");
	json_uint(js, "fs_block", ld->o.block);
	if (ld->dec && !fs_decode_lookup(ld->dec, ld->o.block, &bi))
		json_block_info(js, &bi);
	json_begin_array(js, "versions");
	for_each_version(ld, json_version, js);
	json_end_array(js);
	json_end_object(js);
}

static void json_output(struct logdump *ld)
{
	struct json js;
	unsigned t;

	json_begin_document(&js, stdout, "logdump", ld->image);
	json_bool(&js, "has_journal", 1);
	json_super(&js, ld);
	json_begin_array(&js, "transactions");
	for (t = 0; t < ld->load.s->ntxns; t++) {
		if (!ld->o.all && ld->load.s->txns[t].old)
			continue;
		if (txn_shown(ld, &ld->load.s->txns[t]))
			json_txn(&js, ld, &ld->load.s->txns[t]);
	}
	json_end_array(&js);
	json_end(&js, ld);
	if (ld->o.have_block)
		json_versions(&js, ld);
	fc_json(&js, ld->o.have_seq || ld->o.have_block ? NULL : ld->load.fc, ld->view->fc_replays);
	json_bool(&js, "decode_partial", ld->dec && fs_decode_partial(ld->dec));
	if (ld->diag)
		diag_print_json(&js, "diagnosis", ld->diag, ld->sup);
	json_uint(&js, "problems", ld->problems);
	json_end_object(&js);
	json_finish(&js);
}

/* ---- the command ---- */

/* A filesystem without a journal: one line (or a document) saying so; exit 0. */
static int no_journal(const struct logdump *ld)
{
	struct json js;

	if (!ld->o.json) {
		printf(_("%s: the filesystem has no journal: nothing to show\n"), ld->image);
		return EXIT_OK;
	}
	json_begin_document(&js, stdout, "logdump", ld->image);
	json_bool(&js, "has_journal", 0);
	json_begin_array(&js, "transactions");
	json_end_array(&js);
	json_uint(&js, "problems", 0);
	json_end_object(&js);
	return json_finish(&js) ? EXIT_OPERATIONAL : EXIT_OK;
}

/*
 * What loading the journal could not do, by the step that failed. The plan
 * is the first of what is made of the scanned log for the listing (then
 * the fates shown, the blocks named) and is reported as they are.
 */
static const char *const load_errors[] = {
	[REPLAY_LOAD_OPEN]	= N_("cannot load the journal"),
	[REPLAY_LOAD_SCAN]	= N_("cannot scan the journal"),
	[REPLAY_LOAD_DIAGNOSE]	= N_("cannot diagnose the journal's checksums"),
	[REPLAY_LOAD_PLAN]	= N_("cannot decode the filesystem's blocks"),
	[REPLAY_LOAD_FC]	= N_("cannot scan the fast-commit area"),
};

static int load(struct logdump *ld, ext2_filsys fs)
{
	/* The stop policy's plan, and its fast commits: what e2fsck would do with the log shown. */
	struct replay_load_opts lo = {
		.journal_path = ld->o.journal,
		.scan_flags = ld->o.all ? JBD_SCAN_OLD : 0,
		.policy = JBD_POLICY_STOP,
		.fc = REPLAY_LOAD_FC_SHOW,
	};
	struct bar bar;
	errcode_t err;

	/* A bar for a long log, on stderr when it is a terminal; never with --json. */
	bar_init_delayed(&bar, stderr, !ld->o.json);
	if (bar.out) {
		lo.progress = bar_journal;
		lo.progress_arg = &bar;
	}
	err = replay_load(fs, &lo, &ld->load);
	bar_clear(&bar);
	if (ld->load.j)
		ld->load.j->progress = NULL;
	if (err == E4R_NO_JOURNAL && ld->load.failed == REPLAY_LOAD_OPEN)
		return no_journal(ld);
	if (err) {
		cli_error(ld->image, err, "%s", _(load_errors[ld->load.failed]));
		return EXIT_OPERATIONAL;
	}
	err = replay_view_build(ld->load.j, ld->load.s, ld->load.plan, &ld->view);
	if (!err && (ld->o.decode || ld->o.have_block))
		err = build_decoder(ld);
	if (err) {
		cli_error(ld->image, err, _("cannot decode the filesystem's blocks"));
		return EXIT_OPERATIONAL;
	}
	if (ld->o.diagnose) {
		err = diag_journal(ld->load.j, ld->load.s, &ld->diag);
		if (err) {
			cli_error(ld->image, err, _("cannot diagnose the journal's checksums"));
			return EXIT_OPERATIONAL;
		}
		/* auto leaves out, rather than stops at, a failed transaction proven superseded. */
		err = replay_supersede_all(ld->load.j, ld->load.s, &ld->sup);
		if (err) {
			cli_error(ld->image, err, _("cannot diagnose the journal's checksums"));
			return EXIT_OPERATIONAL;
		}
	}
	return -1;
}

static int dump(struct logdump *ld)
{
	count_problems(ld);
	if (ld->o.json)
		json_output(ld);
	else
		text_output(ld);
	if (fflush(stdout) || ferror(stdout)) {
		cli_error(NULL, errno, _("cannot write the output"));
		return EXIT_OPERATIONAL;
	}
	return ld->problems ? EXIT_PROBLEMS : EXIT_OK;
}

int cmd_logdump(int argc, const char **argv)
{
	struct logdump ld;
	char *seq = NULL, *block = NULL, *journal = NULL;
	struct poptOption opts[] = {
		{ "json", 0, POPT_ARG_NONE, &ld.o.json, 0, N_("print a JSON document"), NULL },
		{ "all", 0, POPT_ARG_NONE, &ld.o.all, 0, N_("also show old transactions past the end of the log"), NULL },
		{ "decode", 0, POPT_ARG_NONE, &ld.o.decode, 0, N_("name what each logged block is in the filesystem"), NULL },
		{ "diagnose", 0, POPT_ARG_NONE, &ld.o.diagnose, 0, N_("explain each checksum failure (as diagnose does)"), NULL },
		{ "transaction", 0, POPT_ARG_STRING, &seq, 0, N_("show only transaction SEQ"), N_("SEQ") },
		{ "block", 0, POPT_ARG_STRING, &block, 0, N_("show every logged version of filesystem block FSBLK"), N_("FSBLK") },
		{ "journal", 0, POPT_ARG_STRING, &journal, 0, N_("the external journal device"), N_("PATH") },
		POPT_TABLEEND
	};
	const char *image = NULL;
	ext2_filsys fs = NULL;
	int rc;

	memset(&ld, 0, sizeof(ld));
	rc = cli_parse("logdump", N_("[--json] [--all] [--decode] [--diagnose] [--transaction=SEQ] [--block=FSBLK] "
		       "[--journal=PATH] IMAGE"), opts, argc, argv, &image, NULL);
	if (rc < 0)
		rc = check_numbers(&ld.o, seq, block);
	if (rc >= 0)
		goto out;
	ld.image = image;
	ld.o.journal = journal;
	if ((rc = cli_journal_path("logdump", image, journal)))
		goto out;
	cli_warn_if_mounted(image);
	fs = cli_open_image(image, 0);
	if (!fs) {
		rc = EXIT_OPERATIONAL;
		goto out;
	}
	rc = load(&ld, fs);
	if (rc < 0)
		rc = dump(&ld);
out:
	diag_free(ld.diag);
	free(ld.sup);
	fs_decode_free(ld.dec);
	replay_view_free(ld.view);
	replay_load_free(&ld.load);
	if (fs)
		ext2fs_close_free(&fs);
	free(seq);
	free(block);
	free(journal);
	free((char *)image);
	return rc;
}
