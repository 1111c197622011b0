/* e4recover write: file operations the way ext4 does them, every metadata change through the journal. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "util/e4r_err.h"
#include "util/nomem.h"
#include "write/workload.h"

struct write_args {
	char	*script, *csum, *reproduce, *dump_script;
	int	ops, seed, async_commit, crash_after, torn;
};

static int parse_csum(const char *s, int async, int metadata_csum, enum jbd_csum_version *out)
{
	if (!s)		/* ext4: v3 with metadata_csum; journal_async_commit implies a checksum */
		*out = metadata_csum ? JBD_CSUM_V3 : async ? JBD_CSUM_V1 : JBD_CSUM_NONE;
	else if (!strcmp(s, "none"))
		*out = JBD_CSUM_NONE;
	else if (!strcmp(s, "v1"))
		*out = JBD_CSUM_V1;
	else if (!strcmp(s, "v2"))
		*out = JBD_CSUM_V2;
	else if (!strcmp(s, "v3"))
		*out = JBD_CSUM_V3;
	else
		return -1;
	return 0;
}

static int check_args(const struct write_args *a)
{
	if (!!a->script == !!a->ops) {
		cli_usage_error("write", _("give either --script=FILE or --ops=N (with --seed=S)"));
		return EXIT_USAGE;
	}
	if (a->ops < 0 || a->crash_after < 0 || a->torn < 0) {
		cli_usage_error("write", _("--ops, --crash-after and --torn take numbers >= 0"));
		return EXIT_USAGE;
	}
	if (a->reproduce && strcmp(a->reproduce, "ialloc-3.4")) {
		cli_usage_error("write", _("unknown bug to reproduce '%s' (known: ialloc-3.4)"), a->reproduce);
		return EXIT_USAGE;
	}
	if (a->csum && strcmp(a->csum, "none") && strcmp(a->csum, "v1") && strcmp(a->csum, "v2") &&
	    strcmp(a->csum, "v3")) {
		cli_usage_error("write", _("unknown journal checksum '%s' (none, v1, v2, v3)"), a->csum);
		return EXIT_USAGE;
	}
	return -1;
}

static int load_workload(const struct write_args *a, struct write_workload *wl)
{
	errcode_t err;
	unsigned bad = 0;
	FILE *in;

	if (!a->script) {
		err = write_workload_random(a->ops, a->seed, a->reproduce != NULL, wl);
		if (err)
			cli_error(NULL, err, _("generating %d random operations"), a->ops);
		return err ? EXIT_OPERATIONAL : -1;
	}
	in = fopen(a->script, "r");
	if (!in) {
		cli_error(a->script, errno, _("cannot open the script"));
		return EXIT_OPERATIONAL;
	}
	err = write_workload_parse(in, wl, &bad);
	fclose(in);
	if (err == E4R_WRITE_SCRIPT) {
		cli_usage_error("write", _("%s: line %u: not an operation of the script format"), a->script, bad);
		return EXIT_USAGE;
	}
	if (err) {
		cli_error(a->script, err, _("reading the script"));
		return EXIT_OPERATIONAL;
	}
	return -1;
}

static int dump_script(const char *path, const struct write_workload *wl)
{
	FILE *out = strcmp(path, "-") ? fopen(path, "w") : stdout;

	if (!out) {
		cli_error(path, errno, _("cannot write the script"));
		return EXIT_OPERATIONAL;
	}
	write_workload_print(out, wl);
	if (out != stdout && fclose(out)) {
		cli_error(path, errno, _("cannot write the script"));
		return EXIT_OPERATIONAL;
	}
	return -1;
}

static void report(const char *image, struct jbd_writer *w, const struct write_fs *f,
		   const struct write_run *run, const struct write_workload *wl)
{
	printf(_("%s: %u of %u operations, %lu commits, %lu checkpoints, %lu block writes\n"),
	       image, run->done, wl->n, w->commits, w->checkpoints, w->bdev.writes);
	if (run->crashed)
		printf(_("%s: power cut: %lu block writes did not reach the image; it needs journal recovery\n"),
		       image, w->bdev.dropped);
	else if (run->in_flight_end)
		printf(_("%s: stopped right after the last commit: the image needs journal recovery\n"), image);
	if (f->bug_ialloc34)
		printf(_("%s: ialloc-3.4: %lu inode bitmap bits leaked into a committing transaction\n"),
		       image, f->leaks);
}

static int run_session(const char *image, const struct write_args *a, struct write_workload *wl)
{
	struct jbd_writer_options opt = { 0 };
	struct jbd_writer *w;
	struct write_fs f;
	struct write_run run = { 0 };
	ext2_filsys probe = cli_open_image(image, 0);
	errcode_t err;

	if (!probe)
		return EXIT_OPERATIONAL;
	parse_csum(a->csum, a->async_commit, ext2fs_has_feature_metadata_csum(probe->super), &opt.csum);
	ext2fs_close_free(&probe);
	opt.async_commit = a->async_commit;
	opt.crash_after = a->crash_after;
	opt.torn_bytes = a->torn;
	err = jbd_writer_open(image, &opt, &w);
	if (err == E4R_FS_MOUNTED) {
		cli_mounted_error(image, err);
		return EXIT_OPERATIONAL;
	}
	if (err) {
		cli_error(image, err, _("cannot start writing"));
		return EXIT_OPERATIONAL;
	}
	err = write_fs_init(&f, w);
	f.bug_ialloc34 = a->reproduce != NULL;
	run.in_flight_end = a->reproduce != NULL;
	if (!err)
		err = write_workload_run(&f, wl, &run);
	if (err && run.failed_op < wl->n) {
		const struct write_op *op = &wl->ops[run.failed_op];

		cli_error(image, err, _("operation %u (line %u) on %s"), run.failed_op + 1, op->line,
			  op->kind == E4R_OP_SYMLINK ? op->b : op->a ? op->a : "-");
	} else if (err) {
		cli_error(image, err, _("journal commit"));
	}
	/*
	 * An operation refused (no parent, a directory not empty) changed
	 * nothing yet: what came before is committed and the image left clean.
	 * Out of memory may strike halfway through one, and committing the
	 * running transaction would make that half durable: like jbd2 aborting
	 * its journal, stop there. The log holds what was committed, and a
	 * replay gives a consistent filesystem.
	 */
	if (!util_no_memory(err) && !run.crashed && !run.in_flight_end) {
		/*
		 * The unmount writes back what the operations before a refused one
		 * left dirty (without it their files kept their sizes over holes);
		 * a writeback that fails (no space) still commits what is there.
		 */
		errcode_t cerr = err ? write_da_flush(&f) : 0;

		if (cerr && !util_no_memory(cerr))
			cerr = 0;
		if (!cerr)
			cerr = jbd_writer_close_clean(w);

		if (cerr)
			cli_error(image, cerr, _("final commit and checkpoint"));
		err = err ? err : cerr;
	}
	report(image, w, &f, &run, wl);
	write_fs_free(&f);
	jbd_writer_abandon(w);
	return err ? EXIT_OPERATIONAL : EXIT_OK;
}

/* popt prints the synopsis above the options: the one place for what IMAGE must already be. */
#define WRITE_USAGE N_("[--script=FILE | --ops=N --seed=S] [options] IMAGE\n\n" \
	"IMAGE must already hold an ext3/ext4 filesystem made by mke2fs (with a journal),\n" \
	"for example: mke2fs -t ext4 -F IMAGE 64M. Exit 0 done, 8 operational error, 16 usage error.\n")

int cmd_write(int argc, const char **argv)
{
	struct write_args a = { 0 };
	struct poptOption opts[] = {
		{ "script", 0, POPT_ARG_STRING, &a.script, 0, N_("operations to perform, one a line (format: e4recover(8))"), N_("FILE") },
		{ "ops", 0, POPT_ARG_INT, &a.ops, 0, N_("number of random operations"), N_("N") },
		{ "seed", 0, POPT_ARG_INT, &a.seed, 0, N_("seed of the random workload (default 0)"), N_("S") },
		{ "csum", 0, POPT_ARG_STRING, &a.csum, 0, N_("journal checksum: none, v1, v2 or v3 (default: v3 with metadata_csum, else v1 with --async-commit, else none)"), N_("KIND") },
		{ "async-commit", 0, POPT_ARG_NONE, &a.async_commit, 0, N_("write commit blocks asynchronously"), NULL },
		{ "crash-after", 0, POPT_ARG_INT, &a.crash_after, 0, N_("cut power after the N-th block write"), N_("N") },
		{ "torn", 0, POPT_ARG_INT, &a.torn, 0, N_("with --crash-after: bytes of the next write that still land"), N_("BYTES") },
		{ "reproduce", 0, POPT_ARG_STRING, &a.reproduce, 0, N_("reproduce a known kernel bug: ialloc-3.4"), N_("BUG") },
		{ "dump-script", 0, POPT_ARG_STRING, &a.dump_script, 0, N_("write the operations (random ones too) to FILE, - for stdout"), N_("FILE") },
		POPT_TABLEEND
	};
	const char *image = NULL;
	struct write_workload wl = { 0 };
	int rc = cli_parse("write", WRITE_USAGE, opts, argc, argv, &image, NULL);

	if (rc < 0)
		rc = check_args(&a);
	if (rc < 0)
		rc = load_workload(&a, &wl);
	if (rc < 0 && a.dump_script)
		rc = dump_script(a.dump_script, &wl);
	if (rc < 0)
		rc = run_session(image, &a, &wl);
	write_workload_free(&wl);
	free((char *)image);
	free(a.script);
	free(a.csum);
	free(a.reproduce);
	free(a.dump_script);
	return rc;
}
