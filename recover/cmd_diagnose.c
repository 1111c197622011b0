/* e4recover diagnose: explain every journal checksum mismatch, its evidence, and what `auto` does. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <et/com_err.h>

#include "cli.h"
#include "commands.h"
#include "diag_print.h"
#include "alt_print.h"
#include "json_doc.h"
#include "json.h"
#include "salvage.h"
#include "replay/load.h"
#include "util/e4r_err.h"

struct diagnose {
	const char		*image;
	int			json;
	int			verbose;	/* -v: alike supersede verdicts one line each */
	const char		*journal;
	/*
	 * The journal, its log, auto's diagnosis (autop), what auto does with
	 * a log that has failures (plan), and when auto falls back, what the
	 * other policies write differently (alts).
	 */
	struct replay_load	load;
	struct diag_report	*d;	/* load.autop->diag */
	ext2_filsys		fs;
};

/* Tags of the live log whose home lies past the end of the filesystem: damage no policy writes. */
static void for_each_outside(const struct diagnose *dg, ext2_filsys fs,
			     void (*fn)(const struct jbd_scan_txn *, const struct jbd_scan_block *, uint64_t, void *),
			     void *arg)
{
	uint64_t n = ext2fs_blocks_count(fs->super);

	for (unsigned t = 0; t < dg->load.s->nlive; t++)
		for (unsigned b = 0; b < dg->load.s->txns[t].nblocks; b++)
			if (dg->load.s->txns[t].blocks[b].fs_block >= n)
				fn(&dg->load.s->txns[t], &dg->load.s->txns[t].blocks[b], n, arg);
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

/*
 * Why recovery fails as a whole on the log's structure rather than on a
 * checksum (a revoke block's record count past the block): e2fsck and the
 * kernel replay none of it. 0 when it does not.
 */
static errcode_t log_fault(const struct diagnose *dg)
{
	errcode_t err = dg->load.s ? dg->load.s->stop_error : 0;

	return err == E4R_SCAN_BAD_CSUM ? 0 : err;
}

static void text_output(const struct diagnose *dg)
{
	if (log_fault(dg))
		printf(_("%s: the journal cannot be recovered: %s; e2fsck and the kernel replay none of it\n"),
		       dg->image, error_message(log_fault(dg)));
	else if (!dg->d->nfindings)
		printf(_("%s: every journal checksum matches\n"), dg->image);
	diag_print_text(dg->d, dg->load.autop->sup);
	for_each_outside(dg, dg->fs, text_outside, NULL);
	supersede_print_text(dg->load.autop, dg->load.s, dg->verbose);
	if (dg->load.alts)
		alt_print_text(dg->load.alts, replay_policy_name(JBD_POLICY_AUTO));
	if (dg->d->nfindings)
		printf(_("%u finding(s), %u problem(s)\n"), dg->d->nfindings, dg->d->problems);
}

static void json_output(const struct diagnose *dg)
{
	static const char *const csum_names[] = { "none", "v1", "v2", "v3" };
	struct json js;

	json_begin_document(&js, stdout, "diagnose", dg->image);
	json_journal_checksum(&js, dg->load.j);
	/* deprecated alias of checksum_version, as "v3" */
	json_bool(&js, "has_journal", 1);
	json_string(&js, "checksum", csum_names[dg->load.j->csum]);
	diag_print_json(&js, "findings", dg->d, dg->load.autop->sup);
	supersede_print_json(&js, "supersede", dg->load.autop, dg->load.s);
	json_begin_array(&js, "outside_filesystem");
	for_each_outside(dg, dg->fs, json_outside, &js);
	json_end_array(&js);
	alt_print_json(&js, "alternatives", dg->load.alts);
	json_string(&js, "log_fault", log_fault(dg) ? error_message(log_fault(dg)) : NULL);
	json_uint(&js, "problems", dg->d->problems + !!log_fault(dg));
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

/* What loading the journal could not do, by the step that failed. */
static const char *const load_errors[] = {
	[REPLAY_LOAD_OPEN]	= N_("cannot load the journal"),
	[REPLAY_LOAD_SCAN]	= N_("cannot scan the journal"),
	[REPLAY_LOAD_DIAGNOSE]	= N_("cannot diagnose the journal's checksums"),
	[REPLAY_LOAD_PLAN]	= N_("cannot plan the replay"),
	[REPLAY_LOAD_FC]	= N_("cannot scan the fast-commit area"),
};

static int run(struct diagnose *dg, ext2_filsys fs)
{
	/*
	 * Auto's diagnosis of the whole log; a log with failures also gets
	 * what auto makes of it, and what the other policies would write instead.
	 */
	struct replay_load_opts lo = {
		.journal_path = dg->journal,
		.policy = JBD_POLICY_AUTO,
		.diagnose_healthy = 1,
		.plan_failures = 1,
		.alternatives = 1,
	};
	errcode_t err;

	err = replay_load(fs, &lo, &dg->load);
	if (err == E4R_NO_JOURNAL && dg->load.failed == REPLAY_LOAD_OPEN)
		return no_journal(dg);
	if (err) {
		cli_error(dg->image, err, "%s", _(load_errors[dg->load.failed]));
		return EXIT_OPERATIONAL;
	}
	dg->d = dg->load.autop->diag;
	if (dg->json)
		json_output(dg);
	else
		text_output(dg);
	if (fflush(stdout) || ferror(stdout)) {
		cli_error(NULL, errno, _("cannot write the output"));
		return EXIT_OPERATIONAL;
	}
	return dg->d->problems || log_fault(dg) ? EXIT_PROBLEMS : EXIT_OK;
}

int cmd_diagnose(int argc, const char **argv)
{
	struct diagnose dg;
	char *journal = NULL;
	int salvage = 0;
	struct poptOption opts[] = {
		{ "json", 0, POPT_ARG_NONE, &dg.json, 0, N_("print the findings as JSON"), NULL },
		{ NULL, 'v', POPT_ARG_NONE, &dg.verbose, 0, N_("verbose: one line for each transaction's supersede verdict, none folded"), NULL },
		{ "journal", 0, POPT_ARG_STRING, &journal, 0, N_("the external journal device"), N_("PATH") },
		{ "salvage", 0, POPT_ARG_NONE, &salvage, 0,
		  N_("list the damaged metadata blocks the journal holds a usable copy of"), NULL },
		POPT_TABLEEND
	};
	const char *image = NULL;
	ext2_filsys fs = NULL;
	int rc;

	memset(&dg, 0, sizeof(dg));
	rc = cli_parse("diagnose", N_("[--json] [-v] [--salvage] [--journal=PATH] IMAGE"), opts, argc, argv, &image, NULL);
	if (rc >= 0)
		goto out;
	dg.image = image;
	dg.journal = journal;
	if ((rc = cli_journal_path("diagnose", image, journal)))
		goto out;
	cli_warn_if_mounted(image);
	fs = cli_open_image(image, 0);
	if (!fs) {
		rc = EXIT_OPERATIONAL;
		goto out;
	}
	dg.fs = fs;
	rc = salvage ? salvage_run(image, fs, journal, dg.json) : run(&dg, fs);
out:
	replay_load_free(&dg.load);
	if (fs)
		ext2fs_close_free(&fs);
	free(journal);
	free((char *)image);
	return rc;
}
