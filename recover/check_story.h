/* check's account of the journal replay and of the orphans released before the check. */
#ifndef E4R_CHECK_STORY_H
#define E4R_CHECK_STORY_H

#include <stdio.h>

#include "fsck/session.h"
#include "json.h"

/*
 * The replay's story on OUT: failed checksums, causes, the policy's doing, what was
 * left out; failures alike (object, cause, outcome) share a line unless VERBOSE.
 */
void check_story_text(FILE *out, const char *image, const struct fsck_session *s, int verbose);

/* The check set the error state because the replay left part of the journal out. */
void check_marked_text(FILE *out, const char *image, const struct fsck_session *s);

/* The orphans released, one line each (after the image's name with PREEN, as e2fsck -p), and any left to the check. */
void check_orphans_text(FILE *out, const char *image, const struct fsck_orphans *o, int preen);

/* The same as the "journal" and "orphans" members of check's document. */
void check_story_json(struct json *js, const struct fsck_session *s);
void check_orphans_json(struct json *js, const struct fsck_orphans *o);

#endif
