/* Fuzz target: diagnose (CRC algebra on every checksum failure, leak signatures). */
#include "config.h"

#include "fuzz_common.h"
#include "commands.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned opt = size > 5 ? data[5] : 0;
	const char *argv[4] = { "diagnose" };
	int argc = 1;

	if (opt & 1)
		argv[argc++] = "--json";
	fuzz_run(data, size, cmd_diagnose, argc, argv, FUZZ_READ_ONLY);
	return 0;
}
