/* logdump's presentation of the fast-commit area (text and JSON). */
#ifndef E4R_LOGDUMP_FC_H
#define E4R_LOGDUMP_FC_H

#include "jbd/fc.h"
#include "json.h"

/* REPLAYS: 1 when a recovery would reach the fast commits (the log needs recovery and its replay does not fail). */
void fc_text(const struct jbd_fc *fc, int replays);
/* The "fast_commit" array (one object per tag) and the "fast_commit_end" object. FC may be NULL (no area, or a --transaction/--block selection): [] and null. */
void fc_json(struct json *js, const struct jbd_fc *fc, int replays);
/* Damage worth exit code 1: a stop that fails recovery, committed tags with values outside the fs. */
unsigned fc_problems(const struct jbd_fc *fc);

#endif
