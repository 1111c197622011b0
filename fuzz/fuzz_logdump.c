/* Fuzz target: logdump (journal open, scan, replay plan, block decoding, fast commits, text and JSON). */
#include "config.h"

#include "fuzz_common.h"
#include "commands.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The header's options byte picks the output and how much of it. */
	unsigned opt = size > 5 ? data[5] : 0;
	const char *argv[8] = { "logdump" };
	int argc = 1;

	if (opt & 1)
		argv[argc++] = "--json";
	if (opt & 2)
		argv[argc++] = "--all";
	if (opt & 4)
		argv[argc++] = "--decode";
	if (opt & 8)
		argv[argc++] = "--diagnose";
	fuzz_run(data, size, cmd_logdump, argc, argv, FUZZ_READ_ONLY);
	return 0;
}
