/* A progress bar on a terminal: one line, redrawn in place, cleared before other output. */
#ifndef E4R_PROGRESS_H
#define E4R_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

struct bar {
	FILE	*out;		/* NULL: no bar (not a terminal, or JSON output) */
	int	shown;		/* chars on the line now (0: nothing drawn) */
	int	percent;	/* what it shows */
	char	label[48];
};

/* A bar on OUT when OUT is a terminal and WANTED is set; else a bar that draws nothing. */
void bar_init(struct bar *b, FILE *out, int wanted);

/* Show LABEL and DONE of TOTAL; drawn again only when the label or the percentage changes. */
void bar_draw(struct bar *b, const char *label, uint64_t done, uint64_t total);

/* Blank the bar's line and put the cursor at its start, so what is printed next is alone on it. */
void bar_clear(struct bar *b);

#endif
