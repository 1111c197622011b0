/* Printing auto's supersede verdicts and the other policies' differences (text and JSON), for replay and diagnose. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "alt_print.h"
#include "describe.h"
#include "i18n.h"
#include "jbd/failure.h"

/* Inodes listed per block in text; JSON lists them all. */
#define TEXT_MAX_INODES	16

const char *supersede_text(enum replay_supersede_why w)
{
	switch (w) {
	case REPLAY_SUPERSEDED:
		return _("wholly superseded: every block it logs is logged again by a later committed "
			 "transaction that is replayed, and no revoke of it is lost: leaving it out loses nothing");
	case REPLAY_SUP_V1_TAGS:
		return _("not provably superseded: a v1 checksum covers the descriptors too, so which home "
			 "blocks it logs is not verified");
	case REPLAY_SUP_TAGS:
		return _("not provably superseded: a descriptor's own checksum fails, so which home blocks "
			 "it logs is not verified");
	case REPLAY_SUP_REVOKE_RECORDS:
		return _("not provably superseded: a revoke block of it fails its checksum or count, so what "
			 "it revokes is not known");
	case REPLAY_SUP_BLOCK:
		return _("not superseded: a block it logs is not logged again by a later replayed transaction");
	case REPLAY_SUP_REVOKE:
		return _("not superseded: a block it revokes would come back from an earlier transaction");
	case REPLAY_SUP_NO_CHECKSUMS:
		return _("the journal has no checksums");
	case REPLAY_SUP_UNCHECKED:
		return _("not checked");
	}
	return "?";
}

static int has_verdict(const struct replay_auto *a, const struct jbd_scan *s, unsigned t)
{
	return a && a->sup && t < s->nlive && s->txns[t].committed && jbd_txn_failures(s, t, JBD_FAILS_TXN);
}

/* A verdict that says nothing of one transaction's own (no block, no sequence): alike ones fold. */
static int verdict_folds(enum replay_supersede_why w)
{
	return w == REPLAY_SUP_V1_TAGS || w == REPLAY_SUP_TAGS || w == REPLAY_SUP_REVOKE_RECORDS ||
	       w == REPLAY_SUP_NO_CHECKSUMS || w == REPLAY_SUP_UNCHECKED;
}

static void text_one_verdict(const struct replay_supersede *v, uint32_t sequence)
{
	printf(_("transaction %" PRIu32 ": %s"), sequence, supersede_text(v->why));
	if (v->why == REPLAY_SUP_BLOCK || v->why == REPLAY_SUP_REVOKE)
		printf(_(" (fs block %" PRIu64 ")"), v->fs_block);
	if (v->why == REPLAY_SUPERSEDED && v->last_sequence)
		printf(_(" (relies on transactions up to %" PRIu32 ")"), v->last_sequence);
	if (v->why == REPLAY_SUP_BLOCK && v->has_limit)
		printf(_("; later copies count only before transaction %" PRIu32 ", which fails too"),
		       v->limit_sequence);
	putchar('\n');
}

/*
 * The N transactions from FIRST with a verdict of FIRST's kind as one
 * line: "transactions 2-11 (10): not provably superseded: ...", runs of
 * sequences as ranges.
 */
static void text_folded_verdicts(const struct replay_auto *a, const struct jbd_scan *s, unsigned first, unsigned n)
{
	enum replay_supersede_why why = a->sup[first].why;
	char list[256];
	size_t len = 0;
	unsigned t, u;

	list[0] = 0;
	for (t = first; t < s->nlive; t++) {
		if (!has_verdict(a, s, t) || a->sup[t].why != why)
			continue;
		/* the run of consecutive sequences from t */
		for (u = t; u + 1 < s->nlive && has_verdict(a, s, u + 1) && a->sup[u + 1].why == why &&
			    s->txns[u + 1].sequence == s->txns[u].sequence + 1; u++)
			;
		if (len + 32 >= sizeof(list)) {
			snprintf(list + len, sizeof(list) - len, ", ...");
			break;
		}
		len += (size_t)snprintf(list + len, sizeof(list) - len, u > t ? "%s%" PRIu32 "-%" PRIu32 : "%s%" PRIu32,
					len ? ", " : "", s->txns[t].sequence, s->txns[u].sequence);
		t = u;
	}
	printf(_("transactions %s (%u): %s\n"), list, n, supersede_text(why));
}

void supersede_print_text(const struct replay_auto *a, const struct jbd_scan *s, int verbose)
{
	unsigned char *told;

	if (!a || !a->sup)
		return;
	/* -v, or no memory for the folding (it only shortens the listing): one line each */
	told = verbose ? NULL : calloc(s->nlive ? s->nlive : 1, 1);
	for (unsigned t = 0; t < s->nlive; t++) {
		unsigned n = 0;

		if (!has_verdict(a, s, t) || (told && told[t]))
			continue;
		if (told && verdict_folds(a->sup[t].why))
			for (unsigned u = t; u < s->nlive; u++)
				if (has_verdict(a, s, u) && a->sup[u].why == a->sup[t].why) {
					told[u] = 1;
					n++;
				}
		if (n > 1)
			text_folded_verdicts(a, s, t, n);
		else
			text_one_verdict(&a->sup[t], s->txns[t].sequence);
	}
	free(told);
}

void supersede_print_json(struct json *js, const char *key, const struct replay_auto *a,
			  const struct jbd_scan *s)
{
	json_begin_array(js, key);
	for (unsigned t = 0; t < s->nlive; t++) {
		const struct replay_supersede *v;
		if (!has_verdict(a, s, t))
			continue;
		v = &a->sup[t];
		json_begin_object(js, NULL);
		json_uint(js, "sequence", s->txns[t].sequence);
		json_bool(js, "superseded", v->why == REPLAY_SUPERSEDED);
		json_string(js, "verdict", replay_supersede_name(v->why));
		if (v->why == REPLAY_SUP_BLOCK || v->why == REPLAY_SUP_REVOKE)
			json_uint(js, "fs_block", v->fs_block);
		else
			json_null(js, "fs_block");
		if (v->last_sequence)
			json_uint(js, "relies_on_up_to", v->last_sequence);
		else
			json_null(js, "relies_on_up_to");
		if (v->has_limit)
			json_uint(js, "next_failed_sequence", v->limit_sequence);
		else
			json_null(js, "next_failed_sequence");
		json_end_object(js);
	}
	json_end_array(js);
}

static void text_version(const char *who, int writes, uint32_t seq)
{
	if (writes)
		printf(_("%s writes transaction %" PRIu32 "'s copy"), who, seq);
	else
		printf(_("%s leaves the home block as it is"), who);
}

static void text_block(const struct replay_alt *alt, const struct replay_alt_block *b, const char *base_name)
{
	char name[160];

	describe_block(&b->info, name, sizeof(name));
	printf(_("    fs block %" PRIu64 ", %s"), b->fs_block, name);
	if (b->path)
		printf(_(" (directory %s)"), b->path);
	printf(": ");
	text_version(base_name, b->base_writes, b->base_seq);
	printf("; ");
	text_version(replay_policy_name(alt->policy), b->alt_writes, b->alt_seq);
	putchar('\n');
	if (b->ninodes) {
		printf(_("      inodes that differ:"));
		for (unsigned i = 0; i < b->ninodes && i < TEXT_MAX_INODES; i++)
			printf(" %u", b->inodes[i]);
		if (b->ninodes > TEXT_MAX_INODES)
			printf(_(" ... (%u in all)"), b->ninodes);
		putchar('\n');
	} else if (b->info.kind == E4R_KIND_BLOCK_BITMAP) {
		printf(_("      %u bit(s) differ\n"), b->nbits);
	}
}

void alt_print_text(const struct replay_alts *a, const char *base_name)
{
	printf(_("what the other policies would write differently from %s:\n"), base_name);
	for (unsigned i = 0; i < a->nalts; i++) {
		const struct replay_alt *alt = &a->alt[i];
		printf(_("  --policy=%s: %zu block(s) differ; replays %u transaction(s) more, %u fewer\n"),
		       replay_policy_name(alt->policy), alt->nblocks, alt->txns_more, alt->txns_fewer);
		for (size_t b = 0; b < alt->nblocks; b++)
			text_block(alt, &alt->blocks[b], base_name);
	}
	if (a->decode_partial)
		printf(_("  (some blocks' owners could not be found: the inode pass stopped early)\n"));
}

static void json_block(struct json *js, const struct replay_alt_block *b)
{
	json_begin_object(js, NULL);
	json_uint(js, "fs_block", b->fs_block);
	json_block_info(js, &b->info);
	if (b->path)
		json_string(js, "directory", b->path);
	if (b->base_writes)
		json_uint(js, "base_sequence", b->base_seq);
	else
		json_null(js, "base_sequence");
	if (b->alt_writes)
		json_uint(js, "sequence", b->alt_seq);
	else
		json_null(js, "sequence");
	if (b->info.kind == E4R_KIND_INODE_TABLE || b->info.kind == E4R_KIND_INODE_BITMAP) {
		json_begin_array(js, "inodes");
		for (unsigned i = 0; i < b->ninodes; i++)
			json_uint(js, NULL, b->inodes[i]);
		json_end_array(js);
	}
	if (b->info.kind == E4R_KIND_BLOCK_BITMAP || b->info.kind == E4R_KIND_INODE_BITMAP)
		json_uint(js, "bits_differing", b->nbits);
	json_end_object(js);
}

void alt_print_json(struct json *js, const char *key, const struct replay_alts *a)
{
	json_begin_array(js, key);
	for (unsigned i = 0; a && i < a->nalts; i++) {
		const struct replay_alt *alt = &a->alt[i];
		json_begin_object(js, NULL);
		json_string(js, "policy", replay_policy_name(alt->policy));
		json_uint(js, "transactions_more", alt->txns_more);
		json_uint(js, "transactions_fewer", alt->txns_fewer);
		json_begin_array(js, "blocks");
		for (size_t b = 0; b < alt->nblocks; b++)
			json_block(js, &alt->blocks[b]);
		json_end_array(js);
		json_end_object(js);
	}
	json_end_array(js);
}
