/* diagnose --salvage: which damaged metadata blocks the journal holds a usable copy of. */
#ifndef E4R_RECOVER_SALVAGE_H
#define E4R_RECOVER_SALVAGE_H

#include <ext2fs/ext2fs.h>
#include "check/problem.h"
#include "json.h"

/* A journal copy as the JSON object KEY (check's journal_copy findings, the salvage list). */
void salvage_json_copy(struct json *j, const char *key, const struct check_jcopy *c);

/* Check FS read-only and list its damaged blocks, each with its usable copy or none. */
int salvage_run(const char *image, ext2_filsys fs, const char *journal, int json);

#endif
