/* Fuzz target: replay under every policy, and --dry-run, on an image in memory. */
#include "config.h"

#include "fuzz_common.h"
#include "commands.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const policies[] = {
	"--policy=stop", "--policy=skip-block", "--policy=skip-transaction",
	"--policy=all", "--policy=auto",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned opt = size > 5 ? data[5] : 0;
	const char *argv[4] = { "replay", policies[opt % 5] };
	int argc = 2;

	if (opt & 0x80) {
		/* A dry run must leave every byte as it was. */
		argv[argc++] = "--dry-run";
		fuzz_run(data, size, cmd_replay, argc, argv, FUZZ_READ_ONLY);
	} else {
		fuzz_run(data, size, cmd_replay, argc, argv, FUZZ_MAY_WRITE);
	}
	return 0;
}
