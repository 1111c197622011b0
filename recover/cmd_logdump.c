/* e4recover logdump: dump the journal (not built yet: its issue has not landed). */
#include "config.h"

#include <stdlib.h>

#include "cli.h"
#include "commands.h"

int cmd_logdump(int argc, const char **argv)
{
	int json = 0, all = 0, decode = 0;
	char *txn = NULL, *block = NULL;
	struct poptOption opts[] = {
		{ "json", 0, POPT_ARG_NONE, &json, 0, N_("print a JSON document"), NULL },
		{ "all", 0, POPT_ARG_NONE, &all, 0, N_("also show old transactions past the end of the log"), NULL },
		{ "decode", 0, POPT_ARG_NONE, &decode, 0, N_("name what each logged block is in the filesystem"), NULL },
		{ "transaction", 0, POPT_ARG_STRING, &txn, 0, N_("show only transaction SEQ"), N_("SEQ") },
		{ "block", 0, POPT_ARG_STRING, &block, 0, N_("show every logged version of filesystem block FSBLK"), N_("FSBLK") },
		POPT_TABLEEND
	};
	const char *image = NULL;
	ext2_filsys fs;
	int rc = cli_parse("logdump", "[--json] [--all] [--decode] [--transaction=SEQ] [--block=FSBLK] IMAGE", opts, argc, argv, &image, NULL);

	if (rc >= 0)
		return rc;
	fs = cli_open_image(image, 0);
	free((char *)image);
	if (!fs)
		return EXIT_OPERATIONAL;
	ext2fs_close_free(&fs);
	return cli_not_built("logdump");
}
