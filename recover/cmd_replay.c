/* e4recover replay: replay the journal (not built yet: its issue has not landed). */
#include "config.h"

#include <stdlib.h>

#include "cli.h"
#include "commands.h"

int cmd_replay(int argc, const char **argv)
{
	int dry_run = 0, json = 0;
	char *policy = NULL, *undo = NULL;
	struct poptOption opts[] = {
		{ "policy", 0, POPT_ARG_STRING, &policy, 0, N_("what to do when a checksum fails: stop, skip-block, skip-transaction, all, auto, ask, none"), N_("P") },
		{ "dry-run", 0, POPT_ARG_NONE, &dry_run, 0, N_("print what would be written, write nothing"), NULL },
		{ "undo", 0, POPT_ARG_STRING, &undo, 0, N_("write an undo file for e2undo"), N_("FILE") },
		{ "json", 0, POPT_ARG_NONE, &json, 0, N_("print a JSON summary"), NULL },
		POPT_TABLEEND
	};
	const char *image = NULL;
	ext2_filsys fs;
	int rc = cli_parse("replay", "[--policy=P] [--dry-run] [--undo=FILE] [--json] IMAGE", opts, argc, argv, &image, NULL);

	if (rc >= 0)
		return rc;
	fs = cli_open_image(image, 0);
	free((char *)image);
	if (!fs)
		return EXIT_OPERATIONAL;
	ext2fs_close_free(&fs);
	return cli_not_built("replay");
}
