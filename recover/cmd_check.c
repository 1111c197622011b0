/* e4recover check: check a filesystem like e2fsck (not built yet: its issue has not landed). */
#include "config.h"

#include <stdlib.h>

#include "cli.h"
#include "commands.h"

int cmd_check(int argc, const char **argv)
{
	int no = 0, yes = 0, preen = 0, force = 0, json = 0, progress_fd = -1;
	char *policy = NULL, *undo = NULL;
	struct poptOption opts[] = {
		{ NULL, 'n', POPT_ARG_NONE, &no, 0, N_("open read-only, answer no to every question"), NULL },
		{ NULL, 'y', POPT_ARG_NONE, &yes, 0, N_("answer yes to every question"), NULL },
		{ NULL, 'p', POPT_ARG_NONE, &preen, 0, N_("fix what is safe without asking (preen)"), NULL },
		{ NULL, 'f', POPT_ARG_NONE, &force, 0, N_("check even a filesystem marked clean"), NULL },
		{ "policy", 0, POPT_ARG_STRING, &policy, 0, N_("journal checksum failure policy"), N_("P") },
		{ "undo", 0, POPT_ARG_STRING, &undo, 0, N_("write an undo file for e2undo"), N_("FILE") },
		{ "json", 0, POPT_ARG_NONE, &json, 0, N_("print the findings as JSON"), NULL },
		{ NULL, 'C', POPT_ARG_INT, &progress_fd, 0, N_("write progress to file descriptor FD"), N_("FD") },
		POPT_TABLEEND
	};
	const char *image = NULL;
	ext2_filsys fs;
	int rc = cli_parse("check", "[-n|-y|-p] [-f] [--policy=P] [--undo=FILE] [--json] [-C FD] IMAGE", opts, argc, argv, &image, NULL);

	if (rc >= 0)
		return rc;
	fs = cli_open_image(image, 0);
	free((char *)image);
	if (!fs)
		return EXIT_OPERATIONAL;
	ext2fs_close_free(&fs);
	return cli_not_built("check");
}
