/* Printing a journal diagnosis (text and JSON), shared by diagnose and logdump --diagnose. */
#ifndef E4R_DIAG_PRINT_H
#define E4R_DIAG_PRINT_H

#include <stdio.h>

#include "diag/diagnose.h"
#include "json.h"
#include "replay/supersede.h"

/*
 * Each finding: the failing object, the cause, the evidence, and what auto
 * does. SUP (indexed by transaction, may be NULL) holds auto's supersede
 * verdicts: a transaction proven superseded is left out, not stopped at.
 */
void diag_print_text(const struct diag_report *d, const struct replay_supersede *sup);

/*
 * A finding's cause, the flips that fit and the evidence, as diagnose
 * prints them under the finding's first line (replay's questions show the
 * same on stderr).
 */
void diag_print_explanation(FILE *out, const struct diag_finding *f);

/* The flips of C: "journal block J, byte B, bit N (place)", ";" between them. */
void diag_print_flips(FILE *out, const struct diag_candidate *c);

/* Why auto stops at a finding, in words. */
const char *diag_stop_text(enum diag_stop_reason r);

/* The findings as an array member KEY (NULL inside an array) of the document. */
void diag_print_json(struct json *js, const char *key, const struct diag_report *d,
		     const struct replay_supersede *sup);

/*
 * One line per problem of D: the transaction, the journal block, the object
 * and its cause, each line after PREFIX; and the same as a JSON array member
 * KEY [{sequence, object, journal_block, fs_block, fault, cause, action}]:
 * replay and check name each cause as diagnose does.
 */
void diag_print_causes_text(FILE *out, const char *prefix, const struct diag_report *d);
void diag_print_causes_json(struct json *js, const char *key, const struct diag_report *d);
/*
 * A fault's members in the object open in JS: sequence, object,
 * journal_block, fs_block (a data block's; else null with NULL_FS_BLOCK,
 * left out without), cause, fault.
 */
void diag_print_fault_json(struct json *js, const struct diag_finding *f, int null_fs_block);

/* The words for a cause and for a failing object, as the text output names them. */
const char *diag_print_cause_text(enum diag_cause c);
const char *diag_print_object_text(enum diag_object o);
/* A finding's object in words: its failing checksum, or the structure at fault. */
const char *diag_print_finding_object_text(const struct diag_finding *f);

#endif
