/* replay --answers=FILE: the decisions of an ask replay, taken once and replayed. */
#ifndef E4R_ANSWERS_H
#define E4R_ANSWERS_H

#include <stddef.h>
#include <stdint.h>

#include "replay/plan.h"

/* One failure's answer: the failure by its transaction and journal block. */
struct answers_entry {
	uint32_t		sequence;
	uint32_t		jblk;
	enum replay_decision	decision;
	unsigned		index;		/* its place in the file's array */
	int			used;		/* a failure of this replay was answered by it */
};

struct answers {
	struct answers_entry	*e;
	unsigned		n;
};

/* A decision's name in JSON (replay's decisions and answers, and an answers file). */
const char *answers_decision_name(enum replay_decision d);

/*
 * Read FILE: a JSON object whose "answers" member is an array of objects
 * with sequence, journal_block and decision (other members are ignored, so
 * replay --json's own document is an answers file). Returns 0, or -1 with
 * the reason in WHY (translated; names the entry, as answers[N]). No memory:
 * -1 too, and WHY says so.
 */
int answers_load(const char *file, struct answers *out, char *why, size_t len);
const struct answers_entry *answers_find(const struct answers *a, uint32_t sequence, uint32_t jblk);
void answers_free(struct answers *a);

#endif
