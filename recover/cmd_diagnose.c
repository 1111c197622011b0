/* e4recover diagnose: explain every journal checksum mismatch, its evidence, and what `auto` does. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "diag_print.h"
#include "alt_print.h"
#include "json_doc.h"
#include "json.h"
#include "salvage.h"
#include "util/e4r_err.h"

struct diagnose {
	const char		*image;
	int			json;
	const char		*journal;
	struct jbd_journal	*j;
	struct jbd_scan		*s;
	struct diag_report	*d;	/* auto.diag */
	struct replay_auto	autop;
	struct replay_plan	*plan;	/* what auto does */
	struct replay_alts	*alts;	/* when auto falls back: what the other policies write differently */
	ext2_filsys		fs;
};

/* Tags of the live log whose home lies past the end of the filesystem: damage no policy writes. */
static void for_each_outside(const struct diagnose *dg, ext2_filsys fs,
			     void (*fn)(const struct jbd_scan_txn *, const struct jbd_scan_block *, uint64_t, void *),
			     void *arg)
{
	uint64_t n = ext2fs_blocks_count(fs->super);

	for (unsigned t = 0; t < dg->s->nlive; t++)
		for (unsigned b = 0; b < dg->s->txns[t].nblocks; b++)
			if (dg->s->txns[t].blocks[b].fs_block >= n)
				fn(&dg->s->txns[t], &dg->s->txns[t].blocks[b], n, arg);
}

static void text_outside(const struct jbd_scan_txn *t, const struct jbd_scan_block *b, uint64_t n, void *arg)
{
	(void)arg;
	printf(_("transaction %" PRIu32 "%s, journal block %" PRIu32 ": its tag names fs block %" PRIu64
		 ", OUTSIDE THE FILESYSTEM (%" PRIu64 " blocks): no policy writes it\n"),
	       t->sequence, t->committed ? "" : _(" (uncommitted)"), b->jblk, b->fs_block, n);
}

static void json_outside(const struct jbd_scan_txn *t, const struct jbd_scan_block *b, uint64_t n, void *arg)
{
	struct json *js = arg;

	(void)n;
	json_begin_object(js, NULL);
	json_uint(js, "sequence", t->sequence);
	json_bool(js, "committed", t->committed);
	json_uint(js, "journal_block", b->jblk);
	json_uint(js, "fs_block", b->fs_block);
	json_end_object(js);
}

static void text_output(const struct diagnose *dg)
{
	if (!dg->d->nfindings)
		printf(_("%s: every journal checksum matches\n"), dg->image);
	diag_print_text(dg->d, dg->autop.sup);
	for_each_outside(dg, dg->fs, text_outside, NULL);
	supersede_print_text(&dg->autop, dg->s);
	if (dg->alts)
		alt_print_text(dg->alts, replay_policy_name(JBD_POLICY_AUTO));
	if (dg->d->nfindings)
		printf(_("%u finding(s), %u problem(s)\n"), dg->d->nfindings, dg->d->problems);
}

static void json_output(const struct diagnose *dg)
{
	static const char *const csum_names[] = { "none", "v1", "v2", "v3" };
	struct json js;

	json_begin_document(&js, stdout, "diagnose", dg->image);
	json_journal_checksum(&js, dg->j);
	/* deprecated alias of checksum_version, as "v3" */
	json_bool(&js, "has_journal", 1);
	json_string(&js, "checksum", csum_names[dg->j->csum]);
	diag_print_json(&js, "findings", dg->d, dg->autop.sup);
	supersede_print_json(&js, "supersede", &dg->autop, dg->s);
	json_begin_array(&js, "outside_filesystem");
	for_each_outside(dg, dg->fs, json_outside, &js);
	json_end_array(&js);
	alt_print_json(&js, "alternatives", dg->alts);
	json_uint(&js, "problems", dg->d->problems);
	json_end_object(&js);
	json_finish(&js);
}

/* ---- the command ---- */

/* A filesystem without a journal: one line (or a document) saying so; exit 0. */
static int no_journal(const struct diagnose *dg)
{
	struct json js;

	if (!dg->json) {
		printf(_("%s: the filesystem has no journal: nothing to diagnose\n"), dg->image);
		return EXIT_OK;
	}
	json_begin_document(&js, stdout, "diagnose", dg->image);
	json_bool(&js, "has_journal", 0);
	json_null(&js, "checksum");
	json_begin_array(&js, "findings");
	json_end_array(&js);
	json_uint(&js, "problems", 0);
	json_end_object(&js);
	return json_finish(&js) ? EXIT_OPERATIONAL : EXIT_OK;
}

static int run(struct diagnose *dg, ext2_filsys fs)
{
	errcode_t err;

	err = jbd_journal_open(fs, dg->journal, &dg->j);
	if (err == E4R_NO_JOURNAL)
		return no_journal(dg);
	if (err) {
		cli_error(dg->image, err, _("cannot load the journal"));
		return EXIT_OPERATIONAL;
	}
	err = jbd_scan_log(dg->j, 0, &dg->s);
	if (err) {
		cli_error(dg->image, err, _("cannot scan the journal"));
		return EXIT_OPERATIONAL;
	}
	err = replay_auto_setup(dg->j, dg->s, &dg->autop);
	if (err) {
		cli_error(dg->image, err, _("cannot diagnose the journal's checksums"));
		return EXIT_OPERATIONAL;
	}
	dg->d = dg->autop.diag;
	if (replay_log_has_failures(dg->s)) {
		/* What auto makes of it, and what the other policies would write instead. */
		err = replay_plan_build(dg->j, dg->s, JBD_POLICY_AUTO, ext2fs_blocks_count(fs->super),
					&dg->autop.hooks, &dg->plan);
		/* The comparison is a report of its own: a filesystem too damaged for it still gets the rest. */
		if (!err && replay_plan_fell_back(dg->plan) && replay_alternatives(dg->j, dg->s, dg->plan, &dg->alts))
			dg->alts = NULL;
		if (err) {
			cli_error(dg->image, err, _("cannot plan the replay"));
			return EXIT_OPERATIONAL;
		}
	}
	if (dg->json)
		json_output(dg);
	else
		text_output(dg);
	if (fflush(stdout) || ferror(stdout)) {
		cli_error(NULL, errno, _("cannot write the output"));
		return EXIT_OPERATIONAL;
	}
	return dg->d->problems ? EXIT_PROBLEMS : EXIT_OK;
}

int cmd_diagnose(int argc, const char **argv)
{
	struct diagnose dg;
	char *journal = NULL;
	int salvage = 0;
	struct poptOption opts[] = {
		{ "json", 0, POPT_ARG_NONE, &dg.json, 0, N_("print the findings as JSON"), NULL },
		{ "journal", 0, POPT_ARG_STRING, &journal, 0, N_("the external journal device"), N_("PATH") },
		{ "salvage", 0, POPT_ARG_NONE, &salvage, 0,
		  N_("list the damaged metadata blocks the journal holds a usable copy of"), NULL },
		POPT_TABLEEND
	};
	const char *image = NULL;
	ext2_filsys fs = NULL;
	int rc;

	memset(&dg, 0, sizeof(dg));
	rc = cli_parse("diagnose", N_("[--json] [--salvage] [--journal=PATH] IMAGE"), opts, argc, argv, &image, NULL);
	if (rc >= 0)
		goto out;
	dg.image = image;
	dg.journal = journal;
	cli_warn_if_mounted(image);
	fs = cli_open_image(image, 0);
	if (!fs) {
		rc = EXIT_OPERATIONAL;
		goto out;
	}
	dg.fs = fs;
	rc = salvage ? salvage_run(image, fs, journal, dg.json) : run(&dg, fs);
out:
	replay_alternatives_free(dg.alts);
	replay_plan_free(dg.plan);
	replay_auto_free(&dg.autop);
	if (dg.s)
		jbd_scan_free(dg.s);
	if (dg.j)
		jbd_journal_close(dg.j);
	if (fs)
		ext2fs_close_free(&fs);
	free(journal);
	free((char *)image);
	return rc;
}
