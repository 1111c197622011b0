/* Fuzz target: check -n -f (every pass of the checker) on an image in memory. */
#include "config.h"

#include "fuzz_common.h"
#include "commands.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned opt = size > 5 ? data[5] : 0;
	const char *argv[4] = { "check", "-n", "-f" };
	int argc = 3;

	if (opt & 1)
		argv[argc++] = "--json";
	/* -n never writes, even when the journal needs replaying. */
	fuzz_run(data, size, cmd_check, argc, argv, FUZZ_READ_ONLY);
	return 0;
}
