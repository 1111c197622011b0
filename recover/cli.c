/* Option parsing and messages shared by the subcommand front-ends. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <et/com_err.h>

#include "cli.h"
#include "json_doc.h"
#include "fs/image.h"
#include "fs/ioerr_io.h"
#include "fs/open.h"
#include "jbd/journal.h"
#include "util/e4r_err.h"

/*
 * The running subcommand, for its error document under --json: whether
 * --json was asked, the image, and the first error reported (the cause;
 * later ones tend to be its consequences).
 */
static struct {
	int		json;
	const char	*subcommand;
	char		*image;
	int		have_error;
	char		*error_image;
	char		message[1024];
	unsigned	documents;	/* json_stdout_documents() when the subcommand began */
	int		ioerr_told;	/* an error message named the failed read or write */
} run;

static void keep_error(const char *image, const char *text)
{
	if (!run.json || run.have_error)
		return;
	run.have_error = 1;
	run.error_image = image ? strdup(image) : NULL;
	snprintf(run.message, sizeof(run.message), "%s", text);
}

/*
 * After a failed read or write, where it happened: " (reading block N)" when
 * ERR is what it returned, " (after Input/output error reading block N)"
 * when ERR is what a caller made of it (libext2fs's "Can't write a block
 * bitmap"); the file is named when it is not IMAGE (an undo file, an
 * external journal).
 */
static void name_failed_block(const char *image, errcode_t err, char *out, size_t size)
{
	struct fs_ioerr e;
	char place[64], whole[sizeof(place) + sizeof(((struct fs_ioerr *)0)->name) + 16];

	if (!fs_ioerr_last(&e))
		return;
	run.ioerr_told = 1;
	/* whole phrases, so that a translation can order them as its language needs */
	if (e.block_size == 1)
		snprintf(place, sizeof(place), e.write ? _("writing byte %llu") : _("reading byte %llu"), e.block);
	else
		snprintf(place, sizeof(place), e.write ? _("writing block %llu") : _("reading block %llu"), e.block);
	if (!image || strcmp(image, e.name) != 0)
		snprintf(whole, sizeof(whole), _("%s of %s"), place, e.name);
	else
		snprintf(whole, sizeof(whole), "%s", place);
	if (e.err != err)
		snprintf(out, size, _(" (after %s %s)"), error_message(e.err), whole);
	else
		snprintf(out, size, " (%s)", whole);
}

void cli_error(const char *image, errcode_t err, const char *what, ...)
{
	char text[sizeof(run.message)];
	size_t n = 0;
	va_list ap;

	text[0] = '\0';
	if (what) {
		va_start(ap, what);
		vsnprintf(text, sizeof(text), what, ap);
		va_end(ap);
		n = strlen(text);
		if (err)
			n += (size_t)snprintf(text + n, sizeof(text) - n, ": ");
	}
	if (err && n < sizeof(text))
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s", error_message(err));
	if (err && n < sizeof(text))
		name_failed_block(image, err, text + n, sizeof(text) - n);
	fprintf(stderr, "%s: ", progname);
	if (image)
		fprintf(stderr, "%s: ", image);
	fprintf(stderr, "%s\n", text);
	keep_error(image, text);
}

void cli_usage_error(const char *subcommand, const char *fmt, ...)
{
	char text[sizeof(run.message)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s %s: %s", progname, subcommand, text);
	fprintf(stderr, _("\nTry '%s %s --help' for more information.\n"), progname, subcommand);
	keep_error(NULL, text);
}

/* Whether the subcommand's options (OPTS, ended by POPT_TABLEEND) include --json. */
static int has_json_option(const struct poptOption *opts)
{
	for (; opts && (opts->longName || opts->shortName || opts->argInfo); opts++)
		if (opts->longName && !strcmp(opts->longName, "json"))
			return 1;
	return 0;
}

/* A new subcommand begins: forget the last one's, and see whether --json is among its arguments. */
static void begin_run(const char *subcommand, const struct poptOption *opts, int argc, const char **argv)
{
	int i;

	free(run.image);
	free(run.error_image);
	memset(&run, 0, sizeof(run));
	run.subcommand = subcommand;
	run.documents = json_stdout_documents();
	if (!has_json_option(opts))
		return;		/* write: --json is an unknown option there, reported as text */
	/* Looked for before popt parses, so that an error in an earlier option is reported as JSON too. */
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--json"))
			run.json = 1;
}

int cli_finish(int rc)
{
	struct fs_ioerr e;

	/*
	 * A read or write failed and nothing said so (a failure the command
	 * went on after): the result is not to be trusted, and is not called a
	 * success. check adds 8 to 4 as e2fsck does for a check cut short.
	 */
	if (fs_ioerr_last(&e) && !run.ioerr_told && rc != EXIT_USAGE) {
		cli_error(run.image ? run.image : e.name, e.err, NULL);
		if (rc < EXIT_OPERATIONAL)
			rc = run.subcommand && !strcmp(run.subcommand, "check") && rc == EXIT_UNCORRECTED ?
			     EXIT_OPERATIONAL | EXIT_UNCORRECTED : EXIT_OPERATIONAL;
	}
	if (run.json && rc >= EXIT_OPERATIONAL && json_stdout_documents() == run.documents)
		json_error_document(stdout, run.subcommand, run.image,
				    run.have_error ? run.message : _("operational error"),
				    run.error_image, rc);
	free(run.image);
	free(run.error_image);
	memset(&run, 0, sizeof(run));
	return rc;
}

#define OPT_HELP	0x7fff0001
#define OPT_VALUE	0x7ffe0000	/* an option with a value: popt returns once it stored it */
#define OPT_VALUE_MAX	0xffff		/* OPT_VALUE + the option's place in the table */

/*
 * popt 1.19 ends the process with exit(1) when one of its own allocations
 * fails ("virtual memory exhausted"), and 1 is this program's "problems
 * found". While popt parses, an exit is that one: it leaves with exit 8,
 * and under --json with the error document every exit of 8 or more has
 * (stdio still works in an exit handler).
 */
static int in_popt;

static void popt_exit(void)
{
	if (!in_popt)
		return;
	in_popt = 0;
	cli_error(NULL, EXT2_ET_NO_MEMORY, NULL);
	cli_finish(EXIT_OPERATIONAL);
	fflush(stdout);
	_exit(EXIT_OPERATIONAL);
}

int cli_parse(const char *subcommand, const char *usage, struct poptOption *opts,
	      int argc, const char **argv, const char **image,
	      int (*handle)(int val, poptContext ctx))
{
	struct poptOption *own = NULL;
	unsigned char *given = NULL;	/* how often each option with a value came, by place */
	char **first = NULL;		/* a string option's first value, by place */
	struct poptOption table[] = {
		{ NULL, '\0', POPT_ARG_INCLUDE_TABLE, opts, 0, NULL, NULL },
		{ "help", 'h', POPT_ARG_NONE, NULL, OPT_HELP, N_("show this help and exit"), NULL },
		POPT_TABLEEND
	};
	static int exit_hooked;
	char name[64];
	poptContext ctx;
	char *arg = NULL, *extra = NULL, *a;
	int rc, ret = -1;

	const char **args;

	begin_run(subcommand, opts, argc, argv);
	/* popt's usage line takes the program name from argv[0]: make it "e4recover SUB". */
	snprintf(name, sizeof(name), "%s %s", progname, subcommand);
	if (!exit_hooked && atexit(popt_exit) == 0)
		exit_hooked = 1;
	args = calloc(argc + 1, sizeof(*args));
	if (!args || !exit_hooked) {
		free(args);
		cli_error(NULL, EXT2_ET_NO_MEMORY, NULL);
		return EXIT_OPERATIONAL;
	}
	memcpy(args, argv, argc * sizeof(*args));
	args[0] = name;
	/*
	 * popt drops an option's value when its copy cannot be allocated, and
	 * goes on as if the option were not given (--policy=none lost: a
	 * replay that writes). Each option with a value gets a val, so popt
	 * returns after storing it and the value can be asked for.
	 */
	if (opts) {
		size_t n = 0;

		while (opts[n].longName || opts[n].shortName || opts[n].arg)
			n++;
		own = calloc(n + 1, sizeof(*own));
		if (!own) {
			free(args);
			cli_error(NULL, EXT2_ET_NO_MEMORY, NULL);
			return EXIT_OPERATIONAL;
		}
		memcpy(own, opts, n * sizeof(*own));
		for (size_t i = 0; i < n && i < OPT_VALUE_MAX; i++)
			if (!own[i].val && (own[i].argInfo & POPT_ARG_MASK) != POPT_ARG_NONE)
				own[i].val = OPT_VALUE + (int)i;
		given = calloc(n + 1, 1);
		first = calloc(n + 1, sizeof(*first));
		if (!given || !first) {
			free(given);
			free(first);
			free(own);
			free(args);
			cli_error(NULL, EXT2_ET_NO_MEMORY, NULL);
			return EXIT_OPERATIONAL;
		}
		table[0].arg = own;
	}
	in_popt = 1;
	/*
	 * POPT_CONTEXT_ARG_OPTS: each argument comes back from poptGetNextOpt.
	 * Without it popt keeps them in a list whose allocation it does not
	 * check: out of memory, the image would go missing ("no IMAGE given").
	 */
	ctx = poptGetContext(name, argc, args, opts ? table : table + 1, POPT_CONTEXT_ARG_OPTS);
	if (!ctx) {
		in_popt = 0;
		free(own);
		free(args);
		cli_error(NULL, EXT2_ET_NO_MEMORY, NULL);
		return EXIT_OPERATIONAL;
	}
	poptSetOtherOptionHelp(ctx, _(usage));

	while ((rc = poptGetNextOpt(ctx)) >= 0) {
		if (rc == 0) {
			/* an argument: the first is the image, a second one is a usage error */
			a = poptGetOptArg(ctx);
			if (!arg)
				arg = a;
			else if (!extra)
				extra = a;
			else
				free(a);
			continue;
		}
		if (own && rc >= OPT_VALUE && rc < OPT_VALUE + OPT_VALUE_MAX) {
			const struct poptOption *o = &own[rc - OPT_VALUE];

			/* stored; no value here means popt could not copy it */
			a = poptGetOptArg(ctx);
			if (!a) {
				cli_error(NULL, EXT2_ET_NO_MEMORY, NULL);
				ret = EXIT_OPERATIONAL;
				goto out;
			}
			free(a);
			/*
			 * a second value would silently replace the first: which one was
			 * meant? popt overwrites a string option's first copy without
			 * freeing it: the first is kept here and freed then
			 */
			if ((o->argInfo & POPT_ARG_MASK) == POPT_ARG_STRING && o->arg) {
				char *now = *(char **)o->arg;

				if (!given[rc - OPT_VALUE])
					first[rc - OPT_VALUE] = now;
				else if (first[rc - OPT_VALUE] != now)
					free(first[rc - OPT_VALUE]);
			}
			if (given[rc - OPT_VALUE]++) {
				if (o->longName)
					cli_usage_error(subcommand, _("--%s given more than once"), o->longName);
				else
					cli_usage_error(subcommand, _("-%c given more than once"), o->shortName);
				ret = EXIT_USAGE;
				goto out;
			}
			continue;
		}
		if (rc == OPT_HELP) {
			poptPrintHelp(ctx, stdout, 0);
			ret = EXIT_OK;
			goto out;
		}
		if (handle) {
			int r = handle(rc, ctx);
			if (r) {
				ret = r;
				goto out;
			}
		}
	}
	if (rc < -1) {
		cli_usage_error(subcommand, "%s: %s", poptBadOption(ctx, POPT_BADOPTION_NOALIAS),
				poptStrerror(rc));
		ret = EXIT_USAGE;
		goto out;
	}
	if (!arg) {
		cli_usage_error(subcommand, _("no IMAGE given"));
		ret = EXIT_USAGE;
	} else if (extra) {
		cli_usage_error(subcommand, _("unexpected argument '%s'"), extra);
		ret = EXIT_USAGE;
	} else if (!(run.image = strdup(arg))) {
		cli_error(arg, EXT2_ET_NO_MEMORY, NULL);
		ret = EXIT_OPERATIONAL;
	} else {
		/* the caller frees the image it is given */
		*image = arg;
		arg = NULL;
	}
out:
	in_popt = 0;
	poptFreeContext(ctx);
	free(own);
	free(given);
	free(first);
	free(args);
	free(arg);
	free(extra);
	return ret;
}

ext2_filsys cli_open_image(const char *image, int rw)
{
	ext2_filsys fs;
	errcode_t err = fs_image_open(image, rw ? E4R_OPEN_RW : 0, NULL, &fs);

	if (err) {
		cli_error(image, err, _("cannot open the filesystem"));
		return NULL;
	}
	return fs;
}

int cli_not_built(const char *subcommand)
{
	fprintf(stderr, _("%s: '%s' is not built yet in this version\n"), progname, subcommand);
	return EXIT_OPERATIONAL;
}

void cli_warn_if_mounted(const char *image)
{
	char mnt[4096];

	if (fs_mount_point(image, mnt, sizeof(mnt)) == E4R_FS_MOUNTED)
		fprintf(stderr, _("Warning! %s is mounted on %s: the kernel may change it while it is read.\n"),
			image, mnt);
}

int cli_journal_path(const char *subcommand, const char *image, const char *path)
{
	errcode_t err;

	if (!path || !(err = jbd_journal_path_check(image, path)))
		return 0;
	if (err == E4R_JOURNAL_PATH_UNUSED) {
		cli_usage_error(subcommand, _("--journal=%s: %s names no external journal (its journal "
					      "is internal, or it has none)"), path, image);
		return EXIT_USAGE;
	}
	cli_error(path, err, _("the journal device given with --journal does not open"));
	return EXIT_OPERATIONAL;
}

int cli_progress_fd(const char *subcommand, int fd)
{
	if (fd <= 0 || fcntl(fd, F_GETFD) != -1)
		return 0;
	(void)subcommand;
	cli_error("-C", errno, _("file descriptor %d is not open"), fd);
	return EXIT_OPERATIONAL;
}

void cli_mounted_error(const char *image, errcode_t err)
{
	char mnt[4096];

	/* where it is mounted, in place of the table's "the filesystem is mounted" */
	if (fs_mount_point(image, mnt, sizeof(mnt)) != E4R_FS_MOUNTED)
		cli_error(image, err, NULL);
	else if (err == E4R_CHECK_MOUNTED)
		cli_error(image, 0, _("mounted on %s: repairs would race with the kernel; "
				      "unmount it or use -n"), mnt);
	else if (err == E4R_FS_MOUNTED)
		cli_error(image, 0, _("mounted on %s: writing to it would race with the kernel; "
				      "unmount it first"), mnt);
	else
		cli_error(image, err, _("mounted on %s"), mnt);
}
