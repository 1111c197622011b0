/* e4recover diagnose: explain and prove journal checksum mismatches (not built yet: its issue has not landed). */
#include "config.h"

#include <stdlib.h>

#include "cli.h"
#include "commands.h"

int cmd_diagnose(int argc, const char **argv)
{
	int json = 0;
	struct poptOption opts[] = {
		{ "json", 0, POPT_ARG_NONE, &json, 0, N_("print the findings as JSON"), NULL },
		POPT_TABLEEND
	};
	const char *image = NULL;
	ext2_filsys fs;
	int rc = cli_parse("diagnose", "[--json] IMAGE", opts, argc, argv, &image, NULL);

	if (rc >= 0)
		return rc;
	fs = cli_open_image(image, 0);
	free((char *)image);
	if (!fs)
		return EXIT_OPERATIONAL;
	ext2fs_close_free(&fs);
	return cli_not_built("diagnose");
}
