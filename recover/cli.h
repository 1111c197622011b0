/* What every subcommand front-end shares: option parsing, messages, exit codes. */
#ifndef E4R_CLI_H
#define E4R_CLI_H

#include <popt.h>
#include <ext2fs/ext2fs.h>
#include "i18n.h"

/* Exit codes (doc/DESIGN.md; check follows e2fsck). */
#define EXIT_OK		0
#define EXIT_PROBLEMS	1	/* diagnose/logdump: problems found; check: errors fixed */
#define EXIT_UNCORRECTED 4	/* check: errors left */
#define EXIT_OPERATIONAL 8
#define EXIT_USAGE	16
#define EXIT_CANCELLED	32

extern const char *progname;

/* One subcommand: name, one-line summary, and its entry point. */
struct subcommand {
	const char *name;
	const char *summary;
	int (*run)(int argc, const char **argv);
};

/*
 * Parse a subcommand's options with popt. OPTS is the subcommand's table
 * (without help; cli_parse adds --help). USAGE is the synopsis after the
 * subcommand name, marked with N_() (translated here). On success *image is the single IMAGE argument and the
 * return is -1; otherwise the return is the exit code (0 after --help,
 * EXIT_USAGE after a usage error, with the message printed).
 * HANDLE, if not NULL, is called for options whose val is not 0 (popt's
 * return value), and returns 0 or an exit code.
 */
int cli_parse(const char *subcommand, const char *usage, struct poptOption *opts,
	      int argc, const char **argv, const char **image,
	      int (*handle)(int val, poptContext ctx));

/* "e4recover: IMAGE: WHAT: reason" on stderr. WHAT may be NULL. Under --json, kept for cli_finish. */
void cli_error(const char *image, errcode_t err, const char *what, ...)
	__attribute__((format(printf, 3, 4)));

/* "e4recover SUBCOMMAND: message" on stderr, for usage errors. */
void cli_usage_error(const char *subcommand, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * After the subcommand returns RC: under --json, a command that failed
 * (RC 8 or more) without printing its document prints the error document
 * on stdout (json_doc.h), from the first error cli_error or
 * cli_usage_error reported. Returns RC.
 */
int cli_finish(int rc);

/* For subcommands whose issue has not landed: say so, exit 8. */
int cli_not_built(const char *subcommand);

/* Open IMAGE (read-only unless RW), printing a clear error; NULL on failure. */
ext2_filsys cli_open_image(const char *image, int rw);

/* Read-only commands: warn on stderr when IMAGE is mounted (as e2fsck -n does) and go on. */
void cli_warn_if_mounted(const char *image);

/*
 * --journal=PATH before anything runs: a device that does not open ends the
 * command (EXIT_OPERATIONAL, as e2fsck's missing journal device does), one
 * IMAGE's superblock has no use for (an internal journal or none) is a
 * usage error (EXIT_USAGE). Returns 0 when PATH is NULL or may serve.
 */
int cli_journal_path(const char *subcommand, const char *image, const char *path);

/*
 * -C FD: a descriptor that is not open ends the command before it runs
 * (EXIT_OPERATIONAL, as e2fsck); 0 for FD 0 (the terminal's bar), a
 * negative one (no -C) or an open one.
 */
int cli_progress_fd(const char *subcommand, int fd);

/* The refusal to write to a mounted IMAGE (ERR): names the image and its mount point. */
void cli_mounted_error(const char *image, errcode_t err);

#endif
