/* The check command's engine: a whole check of an open filesystem, with repair rounds. */
#ifndef E4R_FSCK_H
#define E4R_FSCK_H

#include "check/check.h"

/*
 * Check FS like e2fsck. With o->repair NONE (FS may be read-only) never
 * writes; otherwise repairs what it is allowed to, checks again until
 * nothing more is fixed (at most o->max_rounds checks), and leaves the
 * changes in FS for the caller's ext2fs_close. On success *out holds the findings (free it with
 * check_result_free) even when the filesystem has errors; the return is
 * an error only when the check could not run at all (out of memory).
 */
errcode_t fsck_run(ext2_filsys fs, const struct check_opts *o,
			struct check_result **out);

#endif
