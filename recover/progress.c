/* A progress bar on a terminal (check -C 0, long replays and logdumps). */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "progress.h"

#define BAR_WIDTH	40

void bar_init(struct bar *b, FILE *out, int wanted)
{
	memset(b, 0, sizeof(*b));
	b->percent = -1;
	if (wanted && out && isatty(fileno(out)))
		b->out = out;
}

void bar_draw(struct bar *b, const char *label, uint64_t done, uint64_t total)
{
	int percent = total ? (int)((done > total ? total : done) * 100 / total) : 100;
	int fill = percent * BAR_WIDTH / 100, n;

	if (!b->out || (percent == b->percent && !strcmp(label, b->label)))
		return;
	b->percent = percent;
	snprintf(b->label, sizeof(b->label), "%s", label);
	n = fprintf(b->out, "\r%s |%.*s%*s| %3d%%", b->label, fill,
		    "========================================", BAR_WIDTH - fill, "", percent);
	/* a shorter line than the last one leaves the old one's tail: blank it */
	if (n - 1 < b->shown)
		fprintf(b->out, "%*s", b->shown - (n - 1), "");
	if (n - 1 > b->shown)
		b->shown = n - 1;
	fflush(b->out);
}

void bar_clear(struct bar *b)
{
	if (!b->out || !b->shown)
		return;
	fprintf(b->out, "\r%*s\r", b->shown, "");
	fflush(b->out);
	b->shown = 0;
	b->percent = -1;
	b->label[0] = '\0';
}
