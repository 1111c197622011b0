/*
 * Fuzz target: check -f on an image in memory, in each mode: -n (every pass,
 * and not one write), -y (the repairs, which must stay inside the image)
 * and -p (safe repairs only, or nothing).
 */
#include "config.h"

#include "fuzz_common.h"
#include "commands.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const modes[] = { "-n", "-y", "-p" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned opt = size > 5 ? data[5] : 0;
	unsigned mode = (opt >> 1) % 3;
	const char *argv[4] = { "check", modes[mode], "-f" };
	int argc = 3;

	if (opt & 1)
		argv[argc++] = "--json";
	/* -n never writes, even when the journal needs replaying. */
	fuzz_run(data, size, cmd_check, argc, argv, mode == 0 ? FUZZ_READ_ONLY : FUZZ_MAY_WRITE);
	return 0;
}
