/* e4recover write: file operations the way ext4 does them (not built yet: its issue has not landed). */
#include "config.h"

#include <stdlib.h>

#include "cli.h"
#include "commands.h"

int cmd_write(int argc, const char **argv)
{
	char *script = NULL, *csum = NULL, *reproduce = NULL;
	int ops = 0, seed = 0, async_commit = 0, crash_after = 0;
	struct poptOption opts[] = {
		{ "script", 0, POPT_ARG_STRING, &script, 0, N_("operations to perform, one a line"), N_("FILE") },
		{ "ops", 0, POPT_ARG_INT, &ops, 0, N_("number of random operations"), N_("N") },
		{ "seed", 0, POPT_ARG_INT, &seed, 0, N_("seed of the random workload"), N_("S") },
		{ "csum", 0, POPT_ARG_STRING, &csum, 0, N_("journal checksum: none, v1, v2 or v3"), N_("KIND") },
		{ "async-commit", 0, POPT_ARG_NONE, &async_commit, 0, N_("write commit blocks asynchronously"), NULL },
		{ "crash-after", 0, POPT_ARG_INT, &crash_after, 0, N_("cut power after the N-th block write"), N_("N") },
		{ "reproduce", 0, POPT_ARG_STRING, &reproduce, 0, N_("reproduce a known kernel bug: ialloc-3.4"), N_("BUG") },
		POPT_TABLEEND
	};
	const char *image = NULL;
	ext2_filsys fs;
	int rc = cli_parse("write", "[--script=FILE | --ops=N --seed=S] [options] IMAGE", opts, argc, argv, &image, NULL);

	if (rc >= 0)
		return rc;
	fs = cli_open_image(image, 0);
	free((char *)image);
	if (!fs)
		return EXIT_OPERATIONAL;
	ext2fs_close_free(&fs);
	return cli_not_built("write");
}
