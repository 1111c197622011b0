/* A progress bar on a terminal: one line, redrawn in place, cleared before other output. */
#ifndef E4R_PROGRESS_H
#define E4R_PROGRESS_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "jbd/journal.h"

struct bar {
	FILE	*out;		/* NULL: no bar (not a terminal, or JSON output) */
	int	shown;		/* chars on the line now (0: nothing drawn) */
	int	percent;	/* what it shows */
	char	label[48];
	struct timespec	from;	/* not drawn before this time */
};

/* A bar on OUT when OUT is a terminal and WANTED is set; else a bar that draws nothing. */
void bar_init(struct bar *b, FILE *out, int wanted);

/*
 * The same, for work that is usually quick (a replay, a logdump): drawn only
 * once it has gone on for a while (half a second, or E4RECOVER_PROGRESS_DELAY_MS
 * milliseconds: the tests set 0), so that a short run leaves no flicker.
 */
void bar_init_delayed(struct bar *b, FILE *out, int wanted);

/* Show LABEL and DONE of TOTAL; drawn again only when the label or the percentage changes. */
void bar_draw(struct bar *b, const char *label, uint64_t done, uint64_t total);

/* Blank the bar's line and put the cursor at its start, so what is printed next is alone on it. */
void bar_clear(struct bar *b);

/* A jbd_progress_fn for a struct bar (ARG): the journal's reading and the replay's writing. */
void bar_journal(void *arg, enum jbd_progress what, uint64_t done, uint64_t total);

#endif
