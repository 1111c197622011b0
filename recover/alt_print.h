/* Printing what auto proved about a failed transaction and what the other policies would write differently. */
#ifndef E4R_ALT_PRINT_H
#define E4R_ALT_PRINT_H

#include "replay/alternatives.h"
#include "replay/auto.h"
#include "json.h"

/* Why a failed transaction is, or is not, wholly superseded: one sentence. */
const char *supersede_text(enum replay_supersede_why w);

/*
 * The supersede verdicts of A's failed transactions: text lines (alike ones
 * folded into one unless VERBOSE), and a JSON array under KEY.
 */
void supersede_print_text(const struct replay_auto *a, const struct jbd_scan *s, int verbose);
void supersede_print_json(struct json *js, const char *key, const struct replay_auto *a,
			  const struct jbd_scan *s);

/* BASE_NAME is what the alternatives are compared with ("stop", "auto"). */
void alt_print_text(const struct replay_alts *a, const char *base_name);
void alt_print_json(struct json *js, const char *key, const struct replay_alts *a);

#endif
