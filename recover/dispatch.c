/* e4recover: dispatch to a subcommand (git-style table); main.c only calls it. */
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <et/com_err.h>
#include <ext2fs/ext2fs.h>

#include "cli.h"
#include "commands.h"
#include "util/e4r_err.h"

const char *progname = "e4recover";

static const struct subcommand subcommands[] = {
	{ "check",	N_("check a filesystem and optionally repair it (like e2fsck)"), cmd_check },
	{ "logdump",	N_("dump the journal's transactions, as text or JSON"), cmd_logdump },
	{ "replay",	N_("replay the journal, with a policy for checksum failures"), cmd_replay },
	{ "diagnose",	N_("explain every journal checksum mismatch and prove its cause"), cmd_diagnose },
	{ "write",	N_("perform file operations the way ext4 would, to make test images"), cmd_write },
	{ NULL, NULL, NULL }
};

static void usage(FILE *out)
{
	const struct subcommand *c;

	fprintf(out, _("Usage: %s SUBCOMMAND [options] IMAGE\n"
		       "       %s --help | --version | SUBCOMMAND --help\n\n"
		       "Offline journal recovery and checking for ext3/ext4 images.\n\n"
		       "Subcommands:\n"), progname, progname);
	for (c = subcommands; c->name; c++)
		fprintf(out, "  %-10s %s\n", c->name, _(c->summary));
	fprintf(out, _("\nExit codes: 0 success, 1 problems found (check: fixed), "
		       "4 errors left (check), 8 operational error, 16 usage error.\n"));
}

/* com_err asks this to translate its table's messages. */
static char *translate(const char *msg)
{
	return gettext(msg);
}

/*
 * The catalogs are looked up under LOCALEDIR (where make install puts them),
 * or under E4RECOVER_LOCALEDIR when it is set: the tests run the program
 * from the build tree, with catalogs that are not installed.
 */
static void init_i18n(void)
{
	const char *dir = getenv("E4RECOVER_LOCALEDIR");

	setlocale(LC_ALL, "");
	bindtextdomain(PACKAGE, dir && *dir ? dir : LOCALEDIR);
	textdomain(PACKAGE);
	set_com_err_gettext(translate);
}

int recover_main(int argc, const char **argv)
{
	const struct subcommand *c;

	init_i18n();
	initialize_e4r_error_table();
	initialize_ext2_error_table();

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("%s %s\n", PACKAGE_NAME, PACKAGE_VERSION);
		return EXIT_OK;
	}
	for (c = subcommands; c->name; c++)
		if (!strcmp(argv[1], c->name))
			return cli_finish(c->run(argc - 1, argv + 1));

	fprintf(stderr, _("%s: '%s' is not a subcommand\n"), progname, argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
