/* A progress bar on a terminal (check -C 0, long replays and logdumps). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "i18n.h"
#include "progress.h"

#define BAR_WIDTH	40
#define DEFAULT_DELAY_MS	500

void bar_init(struct bar *b, FILE *out, int wanted)
{
	memset(b, 0, sizeof(*b));
	b->percent = -1;
	if (wanted && out && isatty(fileno(out)))
		b->out = out;
}

void bar_init_delayed(struct bar *b, FILE *out, int wanted)
{
	const char *env = getenv("E4RECOVER_PROGRESS_DELAY_MS");
	long ms = env && *env ? strtol(env, NULL, 10) : DEFAULT_DELAY_MS;

	bar_init(b, out, wanted);
	clock_gettime(CLOCK_MONOTONIC, &b->from);
	if (ms > 0) {
		b->from.tv_sec += ms / 1000;
		b->from.tv_nsec += (ms % 1000) * 1000000L;
		if (b->from.tv_nsec >= 1000000000L) {
			b->from.tv_sec++;
			b->from.tv_nsec -= 1000000000L;
		}
	}
}

static int too_early(const struct bar *b)
{
	struct timespec now;

	if (!b->from.tv_sec && !b->from.tv_nsec)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec < b->from.tv_sec ||
	       (now.tv_sec == b->from.tv_sec && now.tv_nsec < b->from.tv_nsec);
}

void bar_draw(struct bar *b, const char *label, uint64_t done, uint64_t total)
{
	int percent = total ? (int)((done > total ? total : done) * 100 / total) : 100;
	int fill = percent * BAR_WIDTH / 100, n;

	if (!b->out || (percent == b->percent && !strcmp(label, b->label)) || too_early(b))
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

void bar_journal(void *arg, enum jbd_progress what, uint64_t done, uint64_t total)
{
	const char *label = what == JBD_PROGRESS_SCAN ? _("Reading the journal") :
			    what == JBD_PROGRESS_SCAN_OLD ? _("Reading old transactions") :
			    _("Writing blocks home");

	bar_draw(arg, label, done, total);
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
