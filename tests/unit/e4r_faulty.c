/*
 * Test helper (run by tests/t/eio-every-call.sh): e4recover with the
 * fault-injecting io manager under every file it opens. The environment
 * says which call fails with EIO:
 *   E4R_FAULT_READ=K	the K-th read call (from 1; 0 or unset: none)
 *   E4R_FAULT_WRITE=K	the K-th write call
 *   E4R_FAULT_TARGET=F	count and fail only calls on F (default: every file)
 *   E4R_FAULT_REPORT=R	at exit, write to R one line:
 *			"reads N writes N eio 0|1 block B after N"
 *			(calls made, whether the EIO was returned, at which
 *			block, writes that went through after it)
 * Otherwise it is e4recover: same arguments, output and exit codes.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "fs/ioerr_io.h"
#include "fault_io.h"
#include "commands.h"

static const char *report;

static long env_long(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? atol(v) : 0;
}

static void write_report(void)
{
	unsigned long long block = 0;
	long reads, writes, after = 0;
	int done = e4r_fault_io_eio_done(&block, &after);
	FILE *f = fopen(report, "w");

	if (!f)
		return;
	e4r_fault_io_calls(&reads, &writes);
	fprintf(f, "reads %ld writes %ld eio %d block %llu after %ld\n", reads, writes, done, block, after);
	fclose(f);
}

int main(int argc, const char **argv)
{
	e4r_fault_io_setup(unix_io_manager, -1);
	e4r_fault_io_eio(env_long("E4R_FAULT_READ"), env_long("E4R_FAULT_WRITE"));
	if (getenv("E4R_FAULT_TARGET"))
		e4r_fault_io_target(getenv("E4R_FAULT_TARGET"));
	fs_set_base_io(e4r_fault_io_manager);
	report = getenv("E4R_FAULT_REPORT");
	if (report)
		atexit(write_report);
	return recover_main(argc, argv);
}
