/* Option parsing and messages shared by the subcommand front-ends. */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <et/com_err.h>

#include "cli.h"
#include "fs/image.h"
#include "util/e4r_err.h"

void cli_error(const char *image, errcode_t err, const char *what, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", progname);
	if (image)
		fprintf(stderr, "%s: ", image);
	if (what) {
		va_start(ap, what);
		vfprintf(stderr, what, ap);
		va_end(ap);
		if (err)
			fputs(": ", stderr);
	}
	if (err)
		fputs(error_message(err), stderr);
	fputc('\n', stderr);
}

void cli_usage_error(const char *subcommand, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s %s: ", progname, subcommand);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, _("\nTry '%s %s --help' for more information.\n"), progname, subcommand);
}

#define OPT_HELP	0x7fff0001

int cli_parse(const char *subcommand, const char *usage, struct poptOption *opts,
	      int argc, const char **argv, const char **image,
	      int (*handle)(int val, poptContext ctx))
{
	struct poptOption table[] = {
		{ NULL, '\0', POPT_ARG_INCLUDE_TABLE, opts, 0, NULL, NULL },
		{ "help", 'h', POPT_ARG_NONE, NULL, OPT_HELP, N_("show this help and exit"), NULL },
		POPT_TABLEEND
	};
	char name[64];
	poptContext ctx;
	const char *arg, *extra;
	int rc, ret = -1;

	const char **args;

	/* popt's usage line takes the program name from argv[0]: make it "e4recover SUB". */
	snprintf(name, sizeof(name), "%s %s", progname, subcommand);
	args = calloc(argc + 1, sizeof(*args));
	if (!args)
		return EXIT_OPERATIONAL;
	memcpy(args, argv, argc * sizeof(*args));
	args[0] = name;
	ctx = poptGetContext(name, argc, args, opts ? table : table + 1, 0);
	poptSetOtherOptionHelp(ctx, _(usage));

	while ((rc = poptGetNextOpt(ctx)) > 0) {
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
	arg = poptGetArg(ctx);
	extra = poptGetArg(ctx);
	if (!arg) {
		cli_usage_error(subcommand, _("no IMAGE given"));
		ret = EXIT_USAGE;
	} else if (extra) {
		cli_usage_error(subcommand, _("unexpected argument '%s'"), extra);
		ret = EXIT_USAGE;
	} else {
		/* popt owns arg's storage only while ctx lives: keep a copy. */
		*image = strdup(arg);
	}
out:
	poptFreeContext(ctx);
	free(args);
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

int cli_is_answer(const char *line, const char *word)
{
	int c = tolower((unsigned char)line[0]);

	return c && (c == word[0] || c == tolower((unsigned char)_(word)[0]));
}

int cli_not_built(const char *subcommand)
{
	fprintf(stderr, _("%s: '%s' is not built yet in this version\n"), progname, subcommand);
	return EXIT_OPERATIONAL;
}
