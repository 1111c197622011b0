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

struct diagnose {
	const char		*image;
	int			json;
	const char		*journal;
	struct jbd_journal	*j;
	struct jbd_scan		*s;
	struct diag_report	*d;
};

static void text_output(const struct diagnose *dg)
{
	if (!dg->d->nfindings)
		printf(_("%s: every journal checksum matches\n"), dg->image);
	diag_print_text(dg->d);
	if (dg->d->nfindings)
		printf(_("%u finding(s), %u problem(s)\n"), dg->d->nfindings, dg->d->problems);
}

static void json_output(const struct diagnose *dg)
{
	static const char *const csum_names[] = { "none", "v1", "v2", "v3" };
	struct json js;

	json_init(&js, stdout, 0);
	json_begin_object(&js, NULL);
	json_string(&js, "image", dg->image);
	json_string(&js, "checksum", csum_names[dg->j->csum]);
	diag_print_json(&js, "findings", dg->d);
	json_uint(&js, "problems", dg->d->problems);
	json_end_object(&js);
	json_finish(&js);
}

/* ---- the command ---- */

static int run(struct diagnose *dg, ext2_filsys fs)
{
	errcode_t err;

	err = jbd_journal_open(fs, dg->journal, &dg->j);
	if (err) {
		cli_error(dg->image, err, _("cannot load the journal"));
		return EXIT_OPERATIONAL;
	}
	err = jbd_scan_log(dg->j, 0, &dg->s);
	if (err) {
		cli_error(dg->image, err, _("cannot scan the journal"));
		return EXIT_OPERATIONAL;
	}
	err = diag_journal(dg->j, dg->s, &dg->d);
	if (err) {
		cli_error(dg->image, err, _("cannot diagnose the journal's checksums"));
		return EXIT_OPERATIONAL;
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
	struct poptOption opts[] = {
		{ "json", 0, POPT_ARG_NONE, &dg.json, 0, N_("print the findings as JSON"), NULL },
		{ "journal", 0, POPT_ARG_STRING, &journal, 0, N_("the external journal device"), N_("PATH") },
		POPT_TABLEEND
	};
	const char *image = NULL;
	ext2_filsys fs = NULL;
	int rc;

	memset(&dg, 0, sizeof(dg));
	rc = cli_parse("diagnose", N_("[--json] [--journal=PATH] IMAGE"), opts, argc, argv, &image, NULL);
	if (rc >= 0)
		goto out;
	dg.image = image;
	dg.journal = journal;
	fs = cli_open_image(image, 0);
	if (!fs) {
		rc = EXIT_OPERATIONAL;
		goto out;
	}
	rc = run(&dg, fs);
out:
	diag_free(dg.d);
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
