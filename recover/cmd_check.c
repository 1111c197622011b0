/* e4recover check: check a filesystem like e2fsck -n and print what is wrong with it. */
#include "config.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <et/com_err.h>

#include "check/check.h"
#include "check/message.h"
#include "fsck/session.h"
#include "check_story.h"
#include "answer.h"
#include "cli.h"
#include "commands.h"
#include "json.h"
#include "json_doc.h"
#include "progress.h"
#include "salvage.h"

/* The session's exit codes are returned as they are: they must be the command's. */
_Static_assert(FSCK_EXIT_FIXED == EXIT_PROBLEMS && FSCK_EXIT_UNCORRECTED == EXIT_UNCORRECTED &&
	       FSCK_EXIT_OPERATIONAL == EXIT_OPERATIONAL && FSCK_EXIT_USAGE == EXIT_USAGE,
	       "check's exit codes are e2fsck's");

static const char *const pass_titles[E4R_PASS_COUNT] = {
	N_("Checking the superblock and group descriptors"),
	N_("Pass 1: Checking inodes, blocks, and sizes"),
	N_("Pass 2: Checking directory structure"),
	N_("Pass 3: Checking directory connectivity"),
	N_("Pass 4: Checking reference counts"),
	N_("Pass 5: Checking group summary information"),
};

static const char *const reason_texts[] = {
	[E4R_REASON_FORCED]		= NULL,
	[E4R_REASON_CLEAN_SKIPPED]	= NULL,
	[E4R_REASON_NOT_CLEAN]		= N_("was not cleanly unmounted, check forced."),
	[E4R_REASON_ERRORS]		= N_("contains a file system with errors, check forced."),
	[E4R_REASON_MOUNT_COUNT]	= N_("has been mounted too many times without being checked, check forced."),
	[E4R_REASON_INTERVAL]		= N_("has gone too long without being checked, check forced."),
};

static const char *const severity_names[] = { "error", "warning", "info" };

/*
 * Progress as e2fsck's -C: to a file descriptor, a "pass done total image"
 * line for every step the checker tells (pass 0, the superblock, is not
 * told, as e2fsck does not); with -C 0 and stdout a terminal, a bar there,
 * cleared before anything else is printed (a question, a header, the report).
 */
struct progress {
	int		fd;		/* -1: the bar */
	const char	*image;
	struct bar	bar;
};

static void progress_cb(void *arg, int pass, uint64_t done, uint64_t total)
{
	struct progress *p = arg;
	char label[32];

	if (pass == E4R_PASS_SUPER)
		return;
	if (p->fd >= 0) {
		dprintf(p->fd, "%d %" PRIu64 " %" PRIu64 " %s\n", pass, done, total, p->image);
		return;
	}
	snprintf(label, sizeof(label), _("Pass %d"), pass);
	bar_draw(&p->bar, label, done, total);
}

/* A finding's message, in the user's language (the table holds English templates). */
static void format_finding(const struct check_finding *f, char *out, size_t size)
{
	const struct check_problem_info *p = check_problem_info(f->code);

	check_message_format(p ? _(p->message) : "?", f, out, size);
}

static void print_summary(const char *image, const struct check_result *r)
{
	printf(_("%s: %" PRIu64 "/%" PRIu64 " files, %" PRIu64 "/%" PRIu64 " blocks\n"), image,
	       r->inodes_used, r->inodes_count, r->blocks_used, r->blocks_count);
}

/* Has finding F an answer to print after it (a run with repairs)? */
static int has_answer(const struct check_finding *f)
{
	return f->deferred || (check_problem_question(f->code) && (f->fixed || f->declined));
}

/*
 * After a finding, in a run with repairs: what was done with it, as
 * e2fsck's answers; INLINE: on the finding's own line, as e2fsck puts it.
 */
static void print_answer(const struct check_finding *f, int inline_)
{
	const char *q = check_problem_question(f->code);
	const char *sep = inline_ ? "  " : "";

	if (f->deferred)
		printf("%s%s\n\n", sep, _("(counted again after this round's repairs)"));
	else if (q && (f->fixed || f->declined))
		printf("%s%s? %s\n\n", sep, _(q), f->fixed ? _("yes") : _("no"));
	else if (inline_)
		putchar('\n');
}

/*
 * How far the text report has got: the round, and the last pass whose header
 * is out. Asking on a terminal, each check's part is printed as soon as its
 * passes are done, before its questions (live); otherwise all at the end.
 */
struct report {
	const char	*image;
	unsigned	round;
	int		pass;
	int		live;		/* the checks' parts are out: the end prints the verdict only */
	int		errors_said;	/* the replay's marking of the error state was told */
	int		verbose;	/* -v: every finding, none folded */
	unsigned	told_round;	/* the check (round + 1) whose folded lines TOLD marks */
	unsigned char	told[E4R_PR_COUNT + 1];	/* by problem (E4R_PR_COUNT: the bookkeeping) */
	struct bar	*bar;		/* cleared before printing */
};

/*
 * Print the pass headers up to PASS. A check after repairs is quiet (not
 * with -v): only the header of a pass with something to print (SAYS), so
 * a check that finds nothing more is one line.
 */
static void headers_to(struct report *at, int pass, int says)
{
	while (at->pass < pass && at->pass < E4R_PASS_COUNT - 1) {
		at->pass++;
		if (at->pass > 0 && (at->round == 0 || at->verbose || (says && at->pass == pass)))
			printf("%s\n", _(pass_titles[at->pass]));
	}
}

/* The passes ran again after repairs: the rest of the last check's headers, then say so. */
static void next_round(struct report *at, unsigned round)
{
	headers_to(at, E4R_PASS_COUNT - 1, 0);
	printf(_("%s: checking again after the repairs\n"), at->image);
	at->round = round;
	at->pass = -1;
}

static void print_finding(const struct check_finding *f, enum check_repair_mode mode)
{
	const struct check_problem_info *p = check_problem_info(f->code);
	char msg[1024];

	format_finding(f, msg, sizeof(msg));
	printf("%s%s", p && p->severity == E4R_SEV_INFO ? _("Note: ") : "", msg);
	if (mode != E4R_REPAIR_NONE && has_answer(f))
		print_answer(f, 1);
	else
		putchar('\n');
}

/*
 * Bitmap differences come as one finding per run of blocks or inodes; a row
 * of them reads as one line, as e2fsck prints them.
 */
static int folds_in_a_row(enum check_problem code)
{
	return code == E4R_PR_BLOCK_NOT_MARKED || code == E4R_PR_BLOCK_MARKED_FREE ||
	       code == E4R_PR_INODE_NOT_MARKED || code == E4R_PR_INODE_MARKED_FREE;
}

/* Block bitmap differences, either way, are one row; so are the inode bitmap's. */
static enum check_problem row_code(enum check_problem code)
{
	if (code == E4R_PR_BLOCK_MARKED_FREE)
		return E4R_PR_BLOCK_NOT_MARKED;
	if (code == E4R_PR_INODE_MARKED_FREE)
		return E4R_PR_INODE_NOT_MARKED;
	return code;
}

/* Findings one row of bitmap differences can hold. */
static int same_row(const struct check_finding *a, const struct check_finding *b)
{
	return row_code(a->code) == row_code(b->code) && a->round == b->round && a->fixed == b->fixed &&
	       a->declined == b->declined && a->deferred == b->deferred;
}

/* Findings in a row that one answer serves: the same question, answered alike (e2fsck's latch). */
static int same_answer(const struct check_finding *a, const struct check_finding *b)
{
	const char *qa = check_problem_question(a->code), *qb = check_problem_question(b->code);

	return a->round == b->round && a->fixed == b->fixed && a->declined == b->declined &&
	       a->deferred == b->deferred && (qa == qb || (qa && qb && !strcmp(qa, qb)));
}

/*
 * The lengths of what a bitmap difference's message has before its sign
 * and after its run (%r or %R), read from the translated template:
 * "block bitmap differences: " and " (in use, marked free)".
 */
static int row_parts(enum check_problem code, size_t *pre, size_t *suf)
{
	const struct check_problem_info *p = check_problem_info(code);
	const char *t = p ? _(p->message) : NULL;
	const char *at = t ? strstr(t, "%r") : NULL;

	if (t && !at)
		at = strstr(t, "%R");
	if (!at || at == t)
		return -1;
	*pre = (size_t)(at - t) - 1;
	*suf = strlen(at + 2);
	return 0;
}

/*
 * Bitmap differences FROM .. TO-1 as one line, as e2fsck prints them:
 * "block bitmap differences: +12 -20 +41-50", each run with its sign;
 * what a run means ("(in use, marked free)") is said when all are alike.
 */
static void print_row(const struct check_result *r, size_t from, size_t to, enum check_repair_mode mode)
{
	char msg[1024];
	size_t i, pre = 0, suf = 0, len;
	int alike = 1;

	for (i = from; i < to; i++)
		alike &= r->findings[i].code == r->findings[from].code;
	for (i = from; i < to; i++) {
		if (row_parts(r->findings[i].code, &pre, &suf)) {
			print_finding(&r->findings[i], E4R_REPAIR_NONE);
			continue;
		}
		format_finding(&r->findings[i], msg, sizeof(msg));
		len = strlen(msg);
		if (pre + suf > len)
			continue;
		if (i == from)
			printf("%.*s", (int)pre, msg);
		printf("%s%.*s", i == from ? "" : " ", (int)(len - pre - suf), msg + pre);
		if (i + 1 == to && alike)
			printf("%s", msg + len - suf);
	}
	if (mode != E4R_REPAIR_NONE && has_answer(&r->findings[from]))
		print_answer(&r->findings[from], 1);
	else
		putchar('\n');
}

/*
 * Two kinds of finding fold into one line per check, unless -v: those a
 * round's repairs leave to the next check (deferred: it finds them again
 * and asks there), and, after the first check, the bitmaps, counts and
 * quota usage a repair of the check before changed, fixed as routine
 * (e2fsck keeps them as it repairs and says nothing of them).
 */
enum fold { FOLD_NONE = 0, FOLD_DEFERRED, FOLD_ACCOUNTING };

static enum fold fold_of(const struct report *at, const struct check_finding *f, enum check_repair_mode mode)
{
	const struct check_problem_info *p = check_problem_info(f->code);

	if (at->verbose || mode == E4R_REPAIR_NONE || !p)
		return FOLD_NONE;
	if (f->deferred)
		return FOLD_DEFERRED;
	if (f->round > 0 && f->fixed && ((p->pass == E4R_PASS_BITMAPS && p->phase == E4R_PHASE_SUMMARY) ||
					 (p->flags & E4R_PF_COUNTS_USAGE)))
		return FOLD_ACCOUNTING;
	return FOLD_NONE;
}

/* Do findings G and F fold into the same line? */
static int fold_together(const struct report *at, const struct check_finding *g, const struct check_finding *f,
			 enum fold k, enum check_repair_mode mode)
{
	if (g->round != f->round || fold_of(at, g, mode) != k)
		return 0;
	return k == FOLD_ACCOUNTING || g->code == f->code;
}

/* The line of R's finding I's fold K (to TO, the findings printed), at the first of them. */
static void print_fold(struct report *at, const struct check_result *r, size_t i, size_t to,
		       enum fold k, enum check_repair_mode mode)
{
	const struct check_finding *f = &r->findings[i];
	unsigned slot = k == FOLD_ACCOUNTING || (unsigned)f->code >= E4R_PR_COUNT ? E4R_PR_COUNT : (unsigned)f->code;
	unsigned n = 0;
	char msg[1024];
	size_t j;

	/* told at the first of its kind in this check */
	if (at->told_round != f->round + 1u) {
		memset(at->told, 0, sizeof(at->told));
		at->told_round = f->round + 1u;
	}
	if (at->told[slot])
		return;
	at->told[slot] = 1;
	for (j = i; j < to; j++)
		n += fold_together(at, &r->findings[j], f, k, mode);
	if (k == FOLD_ACCOUNTING) {
		printf(ngettext("%u bitmap, count or quota total brought up to date after the repairs before "
				"(-v lists it)\n",
				"%u bitmaps, counts and quota totals brought up to date after the repairs before "
				"(-v lists them)\n", n), n);
		return;
	}
	format_finding(f, msg, sizeof(msg));
	if (n == 1)
		printf(_("%s (counted again after this round's repairs)\n"), msg);
	else
		printf(ngettext("%s (and %u more like it): counted again after this round's repairs\n",
				"%s (and %u more like them): counted again after this round's repairs\n", n - 1),
		       msg, n - 1);
}

/*
 * A fixable finding of a check that repairs ran after, neither asked nor
 * fixed nor left to the next check (another repair of the round made it
 * moot): the next check finds it again and asks there, or it is gone, so
 * it is no finding to print (-v prints it). A warning or a note nobody
 * could fix is told where it was found.
 */
static int passed_over(const struct report *at, const struct check_result *r, const struct check_finding *f,
		       enum check_repair_mode mode)
{
	return mode != E4R_REPAIR_NONE && !at->verbose && (unsigned)f->round + 1 < r->rounds &&
	       check_problem_fixable(f->code) && !f->fixed && !f->declined && !f->deferred &&
	       !r->round_dropped && !r->aborted;
}

/* Not printed here: asked on the terminal (shown with its answer, or to be), or passed over. */
static int skipped(const struct report *at, const struct check_result *r, const struct check_finding *f,
		   enum check_repair_mode mode, int asked)
{
	if (f->code == E4R_PR_JOURNAL_SKIPPED)
		return 1;
	if (f->code == E4R_PR_ERRORS_FLAG && !at->verbose && (r->reason == E4R_REASON_ERRORS || at->errors_said))
		return 1;
	return (asked && check_problem_fixable(f->code)) || (mode == E4R_REPAIR_ASK && (f->fixed || f->declined)) ||
	       passed_over(at, r, f, mode);
}

/* Under the same pass header (a latched answer never spans two). */
static int same_pass(const struct check_finding *a, const struct check_finding *b)
{
	const struct check_problem_info *pa = check_problem_info(a->code), *pb = check_problem_info(b->code);

	return pa && pb && pa->pass == pb->pass;
}

/*
 * A problem found more than RUN_FOLDED times among findings one answer
 * serves shows its first RUN_SHOWN, then the rest as a count (not with -v).
 */
#define RUN_FOLDED	8
#define RUN_SHOWN	5

/* R's findings FROM .. TO-1, one answer for them all: each on its line, a problem found many times cut short. */
static void print_latched(const struct report *at, const struct check_result *r, size_t from, size_t to)
{
	size_t all[E4R_PR_COUNT] = { 0 }, shown[E4R_PR_COUNT] = { 0 };
	size_t i, hidden = 0;

	for (i = from; i < to; i++)
		if ((unsigned)r->findings[i].code < E4R_PR_COUNT)
			all[r->findings[i].code]++;
	for (i = from; i < to; i++) {
		unsigned code = (unsigned)r->findings[i].code;

		if (!at->verbose && code < E4R_PR_COUNT && all[code] > RUN_FOLDED && shown[code] >= RUN_SHOWN) {
			hidden++;
			continue;
		}
		if (code < E4R_PR_COUNT)
			shown[code]++;
		print_finding(&r->findings[i], E4R_REPAIR_NONE);
	}
	if (hidden)
		printf(ngettext("... and %zu more like those above (-v lists it)\n",
				"... and %zu more like those above (-v lists them)\n", hidden), hidden);
}

/* R's findings FROM .. TO under their headers; ASKED: leave out what the questions show. */
static void print_findings(struct report *at, const struct check_result *r, size_t from, size_t to,
			   enum check_repair_mode mode, int asked)
{
	size_t i, j;

	for (i = from; i < to; i++) {
		const struct check_finding *f = &r->findings[i];
		const struct check_problem_info *p = check_problem_info(f->code);

		if (f->code == E4R_PR_JOURNAL_SKIPPED)
			continue;
		/* said already: "contains a file system with errors, check forced.", or the replay's marking */
		if (f->code == E4R_PR_ERRORS_FLAG && !at->verbose && (r->reason == E4R_REASON_ERRORS || at->errors_said))
			continue;
		if (f->round != at->round)
			next_round(at, f->round);
		if (skipped(at, r, f, mode, asked)) {
			if (p)
				headers_to(at, p->pass, 0);
			continue;
		}
		/* the bookkeeping's count line needs no header of its own */
		if (p)
			headers_to(at, p->pass, fold_of(at, f, mode) != FOLD_ACCOUNTING);
		if (fold_of(at, f, mode)) {
			print_fold(at, r, i, to, fold_of(at, f, mode), mode);
			continue;
		}
		for (j = i + 1; !at->verbose && folds_in_a_row(f->code) && j < to && same_row(f, &r->findings[j]); j++)
			;
		if (j > i + 1) {
			print_row(r, i, j, mode);
			i = j - 1;
			continue;
		}
		/*
		 * Findings in a row that one answer serves: the answer once, after
		 * them, as e2fsck latches a question over a group. Each finding
		 * still has its line; the same header, nothing folded between.
		 */
		for (j = i + 1; j < to && same_answer(f, &r->findings[j]) && !skipped(at, r, &r->findings[j], mode, asked) &&
				!fold_of(at, &r->findings[j], mode) && !folds_in_a_row(r->findings[j].code) &&
				same_pass(f, &r->findings[j]); j++)
			;
		if (j == i + 1) {
			print_finding(f, mode);
		} else {
			print_latched(at, r, i, j);
			if (mode != E4R_REPAIR_NONE && has_answer(f))
				print_answer(f, 0);
		}
		i = j - 1;
	}
}

/*
 * A check's passes are done and its questions come next (asking on a
 * terminal): its part of the report now, so that the headers and what cannot
 * be fixed come before the questions, as e2fsck's do.
 */
static void checked_cb(void *arg, const struct check_result *r, size_t first)
{
	struct report *at = arg;

	if (r->reason == E4R_REASON_CLEAN_SKIPPED)
		return;		/* nothing asked: the end prints it */
	bar_clear(at->bar);
	if (!at->live && reason_texts[r->reason])
		printf("%s %s\n", at->image, _(reason_texts[r->reason]));
	at->live = 1;
	if (r->rounds - 1 != at->round)
		next_round(at, r->rounds - 1);
	print_findings(at, r, first, r->count, E4R_REPAIR_ASK, 1);
	if (!r->aborted)
		headers_to(at, E4R_PASS_COUNT - 1, 0);
	fflush(stdout);
}

/* Why repairs went home without the journal, as a phrase and as JSON's name. */
static const char *const unjournaled_texts[] = {
	[E4R_UNJOURNALED_NO_JOURNAL] = N_("the filesystem has no journal here"),
	[E4R_UNJOURNALED_JOURNAL_BAD] = N_("the journal could not be used as it is"),
	[E4R_UNJOURNALED_JOURNAL_REPAIRED] = N_("the repairs change the journal itself"),
	[E4R_UNJOURNALED_TOO_BIG] = N_("the repairs of one check did not fit in the journal"),
};
static const char *const unjournaled_names[] = {
	[E4R_UNJOURNALED_NO_JOURNAL] = "no_journal", [E4R_UNJOURNALED_JOURNAL_BAD] = "journal_bad",
	[E4R_UNJOURNALED_JOURNAL_REPAIRED] = "journal_repaired", [E4R_UNJOURNALED_TOO_BIG] = "too_big",
};

/*
 * How the repairs reached the disk, where a person needs to know: a round
 * that was dropped, and repairs of a journaled filesystem written without
 * its journal (a crash while they were written could have left them half
 * done). On ext2 writing in place is what everyone expects: not said.
 */
static void print_writes(const char *image, const struct check_result *r)
{
	if (r->commits.direct && r->commits.why != E4R_UNJOURNALED_NO_JOURNAL &&
	    r->commits.why < sizeof(unjournaled_texts) / sizeof(unjournaled_texts[0]) &&
	    unjournaled_texts[r->commits.why])
		printf(_("\n%s: %u of the repairs' %u writes went to the disk without the journal: %s\n"), image,
		       r->commits.direct, r->commits.direct + r->commits.journaled,
		       _(unjournaled_texts[r->commits.why]));
	if (r->commits.split)
		printf(_("\n%s: %u of the repairs' rounds did not fit in the journal at once: %u transactions carried "
			 "them, the filesystem marked not clean until the last\n"),
		       image, r->commits.split, r->commits.split_txns);
	if (!r->round_dropped)
		return;
	if (r->dropped_round)
		printf(_("\n%s: the repairs of check %u could not be finished (%s): none of them was written\n"),
		       image, r->dropped_round, error_message(r->dropped_err));
	else
		printf(_("\n%s: the last writes of the repairs (the state, the totals) could not be made (%s)\n"),
		       image, error_message(r->dropped_err));
	printf(_("%s: the filesystem is as the check before left it, marked with errors: the next check checks it fully\n"),
	       image);
}

static void print_text(struct report *at, const struct check_result *r, enum check_repair_mode mode)
{
	const char *image = at->image;
	size_t i;
	char msg[1024];

	if (at->live) {
		/* asked, yet not answered (a repair that restarts the check came first) */
		for (i = 0; i < r->count; i++)
			if (check_problem_fixable(r->findings[i].code) &&
			    !r->findings[i].fixed && !r->findings[i].declined)
				print_finding(&r->findings[i], E4R_REPAIR_NONE);
		goto verdict;
	}
	if (r->journal_skipped)
		printf(_("Warning: skipping journal recovery because doing a read-only filesystem check.\n"));
	if (r->reason == E4R_REASON_CLEAN_SKIPPED && !r->errors) {
		for (i = 0; i < r->count; i++)
			if (r->findings[i].code == E4R_PR_JOURNAL_DEVICE_MISSING) {
				format_finding(&r->findings[i], msg, sizeof(msg));
				printf("%s%s\n", _("Note: "), msg);
			}
		printf(_("%s: clean, %" PRIu64 "/%" PRIu64 " files, %" PRIu64 "/%" PRIu64 " blocks\n"),
		       image, r->inodes_used, r->inodes_count, r->blocks_used, r->blocks_count);
		return;
	}
	if (reason_texts[r->reason])
		printf("%s %s\n", image, _(reason_texts[r->reason]));
	print_findings(at, r, 0, r->count, mode, 0);
	if (r->rounds > at->round + 1 && at->verbose) {	/* the last check found nothing */
		next_round(at, r->rounds - 1);
	} else if (r->rounds > at->round + 1) {
		/* quiet: a check that found nothing more says nothing, as e2fsck never checks again */
		headers_to(at, E4R_PASS_COUNT - 1, 0);
		at->round = r->rounds - 1;
		at->pass = E4R_PASS_COUNT - 1;
	}
	if (!r->aborted)
		headers_to(at, E4R_PASS_COUNT - 1, 0);
verdict:
	if (r->aborted)
		printf(_("%s: the check could not finish; what is listed is incomplete\n"), image);
	if (r->preen_halt) {
		printf(_("\n%s: UNEXPECTED INCONSISTENCY; nothing was changed. A person must decide:\n"), image);
		for (i = 0; i < r->count; i++)
			if (r->findings[i].declined) {
				format_finding(&r->findings[i], msg, sizeof(msg));
				printf("  %s\n", msg);
			}
		printf(_("Run check without -p (with -y to fix everything, or on a terminal to be asked).\n"));
	}
	if (r->journal_recreated)
		printf(_("\n%s: *** the journal, removed by the repairs, has been made anew ***\n"), image);
	else if (r->journal_recreate_err)
		printf(_("\n%s: the journal, removed by the repairs, could not be made anew (%s): "
			 "the filesystem is left without one\n"), image, error_message(r->journal_recreate_err));
	print_writes(image, r);
	if (r->fixed || r->written)
		printf(_("\n%s: ***** FILE SYSTEM WAS MODIFIED *****\n"), image);
	if (r->unsettled)
		printf(_("\n%s: the repairs did not settle in %u checks; run check again\n"), image, r->rounds);
	if (check_result_halted(r)) {
		format_finding(check_result_halted(r), msg, sizeof(msg));
		printf(_("\n%s: cannot proceed with the check while this is left unrepaired "
			 "(e2fsck stops there): %s\n"), image, msg);
	}
	if (r->left || r->unsettled || r->preen_halt)
		printf(_("\n%s: ********** WARNING: Filesystem still has errors **********\n\n"), image);
	/* after a dropped round the counts in memory are the dropped ones' */
	if (!r->round_dropped)
		print_summary(image, r);
}

static void json_finding(struct json *j, const struct check_finding *f)
{
	const struct check_problem_info *p = check_problem_info(f->code);
	char msg[1024];

	format_finding(f, msg, sizeof(msg));
	json_begin_object(j, NULL);
	json_string(j, "problem", p ? p->name : "unknown");
	json_string(j, "pass", p ? check_pass_name(p->pass) : "unknown");
	json_string(j, "severity", p ? severity_names[p->severity] : "error");
	json_string(j, "message", msg);
#define FIELD(key, v) do { if ((v) != E4R_NONE) json_uint(j, key, v); } while (0)
	FIELD("group", f->group);
	FIELD("inode", f->ino);
	FIELD("block", f->blk);
	FIELD("dir", f->dir);
	FIELD("quota_id", f->qid);
	if (f->name)
		json_string(j, "name", f->name);
	FIELD("expected", f->expected);
	FIELD("found", f->found);
#undef FIELD
	if (f->jcopy)
		salvage_json_copy(j, "journal_copy", f->jcopy);
	json_bool(j, "fixed", f->fixed);
	json_uint(j, "round", f->round);
	json_end_object(j);
}

static const char *const reason_names[] = {
	[E4R_REASON_FORCED] = "forced", [E4R_REASON_CLEAN_SKIPPED] = "clean_skipped",
	[E4R_REASON_NOT_CLEAN] = "not_clean", [E4R_REASON_ERRORS] = "errors",
	[E4R_REASON_MOUNT_COUNT] = "mount_count", [E4R_REASON_INTERVAL] = "interval",
};

static int print_json(const char *image, const struct fsck_session *s)
{
	const struct check_result *r = s->result;
	struct json j;
	size_t i;

	json_begin_document(&j, stdout, "check", image);
	json_bool(&j, "clean", r->left == 0 && !r->unsettled && !r->preen_halt && !r->aborted);
	json_bool(&j, "full_check", r->reason != E4R_REASON_CLEAN_SKIPPED);
	json_string(&j, "reason", reason_names[r->reason]);
	json_bool(&j, "journal_skipped", r->journal_skipped);
	json_bool(&j, "aborted", r->aborted);
	/* problems*: the one vocabulary (e4recover-json(5)); errors, fixed, errors_left: deprecated aliases. */
	json_uint(&j, "problems", r->errors);
	json_uint(&j, "problems_fixed", r->fixed);
	json_uint(&j, "problems_left", r->left);
	json_uint(&j, "errors", r->errors);
	json_uint(&j, "fixed", r->fixed);
	json_uint(&j, "errors_left", r->left);
	json_uint(&j, "rounds", r->rounds);
	json_bool(&j, "preen_halt", r->preen_halt);
	/* e2fsck's "cannot proceed": the finding that stops it, left unrepaired (exit 12) */
	if (check_result_halted(r) && check_problem_info(check_result_halted(r)->code))
		json_string(&j, "halted", check_problem_info(check_result_halted(r)->code)->name);
	else
		json_null(&j, "halted");
	json_uint(&j, "dropped", r->dropped);
	json_begin_array(&j, "findings");
	for (i = 0; i < r->count; i++)
		json_finding(&j, &r->findings[i]);
	json_end_array(&j);
	json_begin_object(&j, "summary");
	json_uint(&j, "inodes_used", r->inodes_used);
	json_uint(&j, "inodes_count", r->inodes_count);
	json_uint(&j, "blocks_used", r->blocks_used);
	json_uint(&j, "blocks_count", r->blocks_count);
	json_uint(&j, "directories", r->dirs);
	json_uint(&j, "regular_files", r->regular);
	json_uint(&j, "symlinks", r->symlinks);
	json_uint(&j, "other_files", r->other_files);
	json_bool(&j, "totals_set", r->totals_set);
	json_end_object(&j);
	json_begin_object(&j, "writes");
	json_uint(&j, "journaled", r->commits.journaled);
	json_uint(&j, "split_rounds", r->commits.split);
	json_uint(&j, "direct", r->commits.direct);
	if (r->commits.direct && r->commits.why < sizeof(unjournaled_names) / sizeof(unjournaled_names[0]) &&
	    unjournaled_names[r->commits.why])
		json_string(&j, "direct_reason", unjournaled_names[r->commits.why]);
	else
		json_null(&j, "direct_reason");
	json_bool(&j, "round_dropped", r->round_dropped);
	if (r->round_dropped) {
		json_uint(&j, "dropped_round", r->dropped_round);
		json_string(&j, "dropped_error", error_message(r->dropped_err));
	} else {
		json_null(&j, "dropped_round");
		json_null(&j, "dropped_error");
	}
	json_end_object(&j);
	check_story_json(&j, s);
	check_orphans_json(&j, &s->orphans);
	json_end_object(&j);
	return json_finish(&j);
}

/* What the session tells as it happens, ahead of the findings; on stderr when stdout carries JSON. */
struct teller {
	const char	*image;
	FILE		*out;
	int		preen;		/* -p: lines start with the image's name, as e2fsck -p's */
	struct bar	*bar;		/* cleared before telling */
	int		*errors_said;	/* set once the error state's marking is told */
	int		verbose;	/* -v: the marking told even after e2fsck's own line */
};

static void event_cb(void *arg, enum fsck_event what, const struct fsck_session *s)
{
	struct teller *t = arg;

	bar_clear(t->bar);
	switch (what) {
	case FSCK_EVENT_JOURNAL_REPLAYED:
		fprintf(t->out, _("%s: recovering journal\n"), t->image);
		if (s->journal.failed_commit)
			fprintf(t->out, _("Journal transaction %" PRIu32 " was corrupt, replay was aborted.\n"),
				s->journal.failed_seq);
		/* e2fsck: "<error> while recovering journal of IMAGE", nothing replayed */
		if (s->journal.log_fault)
			fprintf(t->out, _("%s: the journal cannot be replayed: %s; nothing of it was written\n"),
				t->image, error_message(s->journal.log_fault));
		if (s->journal.csum_error)
			fprintf(t->out, _("Journal checksum error found in %s\n"), t->image);
		check_story_text(t->out, t->image, s, t->verbose);
		break;
	case FSCK_EVENT_JOURNAL_DIAGNOSED:
		if (s->journal.log_fault)
			fprintf(t->out, _("%s: the journal cannot be replayed: %s\n"), t->image,
				error_message(s->journal.log_fault));
		check_story_text(t->out, t->image, s, t->verbose);
		break;
	case FSCK_EVENT_MARKED_ERROR:
		/* "Journal checksum error found" said it, as e2fsck says it */
		if (!s->journal.csum_error || t->verbose)
			check_marked_text(t->out, t->image, s);
		*t->errors_said = 1;
		break;
	case FSCK_EVENT_ORPHANS:
		check_orphans_text(t->out, t->image, &s->orphans, t->preen);
		break;
	case FSCK_EVENT_BACKUP_SUPER:
		fprintf(t->out, _("%s: the superblock or the group descriptors look bad: using the backup superblock at block %llu\n"),
			t->image, (unsigned long long)s->backup_sb);
		break;
	}
}

/* Why a session stopped early, as one line on stderr. */
static void print_stop(const char *image, const char *undo, const struct fsck_session *s)
{
	switch (s->stopped) {
	case FSCK_STAGE_NONE:
		break;
	case FSCK_STAGE_UNDO:
		cli_error(image, s->err, _("undo file %s"), undo);
		break;
	case FSCK_STAGE_MOUNTED:
		cli_mounted_error(image, s->err);
		break;
	case FSCK_STAGE_REPLAY:
		cli_error(image, s->err, _("journal recovery failed"));
		break;
	case FSCK_STAGE_OPEN:
		cli_error(image, s->err, _("cannot open the filesystem"));
		break;
	case FSCK_STAGE_CHECK:
		cli_error(image, s->err, _("cannot check the filesystem"));
		break;
	case FSCK_STAGE_CLOSE:
		cli_error(image, s->err, _("cannot write the repaired filesystem"));
		break;
	}
	if (s->guard_tripped)
		cli_error(image, 0, _("the refused write was to block %llu, %s; please report this"),
			  (unsigned long long)s->guard_blk, _(s->guard_what));
}

/* Asking on the terminal: yes, no, or all (yes to this and every later question). */
struct asker {
	int		all;
	int		eof;
	struct bar	*bar;	/* cleared before asking */
};

static const char *const check_answers[] = { N_("yes"), N_("no"), N_("all") };

static int ask_cb(void *arg, const struct check_finding *f)
{
	struct asker *a = arg;
	const struct check_problem_info *p = check_problem_info(f->code);
	const char *q = check_problem_question(f->code);
	char msg[1024];
	unsigned chosen;

	bar_clear(a->bar);
	format_finding(f, msg, sizeof(msg));
	printf("%s%s\n", p && p->severity == E4R_SEV_INFO ? _("Note: ") : "", msg);
	if (a->all) {
		printf("%s? %s\n\n", _(q), _("yes"));
		return 1;
	}
	printf(_("%s (yes/no/all)? "), _(q));
	if (!a->eof) {
		switch (answer_key(STDIN_FILENO, stdout, check_answers, 3, &chosen)) {
		case ANSWER_CHOSEN:
			putchar('\n');
			a->all = chosen == 2;
			return chosen != 1;
		case ANSWER_CANCELLED:
			/* As the handler would: the round is dropped, and nothing more is asked. */
			fsck_session_cancel();
			break;
		case ANSWER_EOF:
			break;
		}
		a->eof = 1;
	}
	printf("%s\n\n", _("no"));
	return 0;
}

static void on_cancel(int sig)
{
	(void)sig;
	fsck_session_cancel();
}

/* Catch SIGINT and SIGTERM once (ON), or give them back their default. */
static void catch_cancel(int on)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on ? on_cancel : SIG_DFL;
	sa.sa_flags = on ? SA_RESETHAND : 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int cmd_check(int argc, const char **argv)
{
	int no = 0, yes = 0, preen = 0, force = 0, json = 0, verbose = 0, progress_fd = -1;
	char *policy = NULL, *undo = NULL, *journal = NULL;
	struct poptOption opts[] = {
		{ NULL, 'n', POPT_ARG_NONE, &no, 0, N_("open read-only, answer no to every question"), NULL },
		{ NULL, 'y', POPT_ARG_NONE, &yes, 0, N_("answer yes to every question: fix everything"), NULL },
		{ NULL, 'p', POPT_ARG_NONE, &preen, 0, N_("fix what is safe without asking; stop (exit 4) on anything else"), NULL },
		{ NULL, 'f', POPT_ARG_NONE, &force, 0, N_("check even a filesystem marked clean"), NULL },
		{ "policy", 0, POPT_ARG_STRING, &policy, 0, N_("when the journal is replayed first (not with -n), what to do on a checksum failure: stop, skip-block, skip-transaction, all, auto (default), ask, none"), N_("P") },
		{ "undo", 0, POPT_ARG_STRING, &undo, 0, N_("write an undo file for e2undo (must not exist)"), N_("FILE") },
		{ "journal", 0, POPT_ARG_STRING, &journal, 0, N_("the external journal device (default: found by its UUID)"), N_("PATH") },
		{ "json", 0, POPT_ARG_NONE, &json, 0, N_("print the findings as JSON"), NULL },
		{ NULL, 'v', POPT_ARG_NONE, &verbose, 0, N_("verbose: every finding as each check found it, none folded into a count"), NULL },
		{ NULL, 'C', POPT_ARG_INT, &progress_fd, 0, N_("write progress to file descriptor FD (0: a bar on the terminal)"), N_("FD") },
		POPT_TABLEEND
	};
	const char *image = NULL;
	struct progress prog = { .fd = -1 };
	struct asker asker = { 0 };
	struct report rep = { .pass = -1 };
	struct teller teller = { 0 };
	struct fsck_session_opts so = { .policy = JBD_POLICY_AUTO };
	struct fsck_session s = { 0 };
	int rc = cli_parse("check", N_("[-n|-y|-p] [-f] [-v] [--policy=P] [--undo=FILE] [--journal=PATH] [--json] [-C FD] IMAGE"),
			   opts, argc, argv, &image, NULL);

	if (rc >= 0)
		goto out;
	rc = EXIT_USAGE;
	if (no + yes + preen > 1) {
		cli_usage_error("check", _("only one of the options -p, -n or -y may be given"));
		goto out;
	}
	if (policy && replay_policy_parse(policy, &so.policy)) {
		cli_usage_error("check", _("unknown policy '%s' (stop, skip-block, skip-transaction, all, auto, ask, none)"), policy);
		goto out;
	}
	/* -n writes nothing, so an undo file would be an empty promise */
	if (no && undo) {
		cli_usage_error("check", _("--undo records what repairs write, and -n writes nothing"));
		goto out;
	}
	if ((rc = cli_progress_fd("check", progress_fd)) || (rc = cli_journal_path("check", image, journal)))
		goto out;
	/* Without -n/-y/-p: ask on a terminal; off a terminal, like -n (e2fsck would refuse). */
	so.check.repair = no ? E4R_REPAIR_NONE : yes ? E4R_REPAIR_YES : preen ? E4R_REPAIR_PREEN :
			  (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) && !json) ? E4R_REPAIR_ASK :
			  E4R_REPAIR_NONE;
	so.check.force = force;
	/* tests compare pass 1's read-ahead walk with libext2fs's scan alone */
	so.check.slow_scan = getenv("E4RECOVER_SLOW_SCAN") != NULL;
	so.check.ask = ask_cb;
	so.check.ask_arg = &asker;
	/* -C 0: a bar, only on a terminal; never with --json (stdout is the document) */
	bar_init(&prog.bar, stdout, progress_fd == 0 && !json);
	if (!json && (progress_fd > 0 || prog.bar.out)) {
		prog.fd = progress_fd > 0 ? progress_fd : -1;
		prog.image = image;
		so.check.progress = progress_cb;
		so.check.progress_arg = &prog;
	}
	asker.bar = &prog.bar;
	teller.bar = &prog.bar;
	rep.image = image;
	rep.bar = &prog.bar;
	rep.verbose = verbose;
	teller.verbose = verbose;
	if (so.check.repair == E4R_REPAIR_ASK) {
		so.check.checked = checked_cb;
		so.check.checked_arg = &rep;
	}
	so.image = image;
	so.undo_file = undo;
	so.journal_path = journal;
	so.check.journal_path = journal;
	teller.image = image;
	teller.errors_said = &rep.errors_said;
	teller.preen = so.check.repair == E4R_REPAIR_PREEN;
	teller.out = json ? stderr : stdout;
	so.event = event_cb;
	so.event_arg = &teller;
	if (so.check.repair == E4R_REPAIR_NONE)
		cli_warn_if_mounted(image);
	/*
	 * Ctrl-C or a TERM while repairing ends the round under way at its
	 * next write, dropped whole (exit 32); a second one kills at once,
	 * which a journaled round survives too.
	 */
	if (so.check.repair != E4R_REPAIR_NONE)
		catch_cancel(1);
	rc = fsck_session_run(&so, &s);
	if (so.check.repair != E4R_REPAIR_NONE)
		catch_cancel(0);
	bar_clear(&prog.bar);
	if (s.stopped != FSCK_STAGE_NONE) {
		/* a round dropped whole: what was found, and that none of it was written */
		if (s.result && s.result->round_dropped && json)
			print_json(image, &s);
		else if (s.result && s.result->round_dropped)
			print_text(&rep, s.result, so.check.repair);
		fflush(stdout);	/* the report first, then why it stopped (stderr) */
		print_stop(image, undo, &s);
	} else if (json) {
		if (print_json(image, &s))
			rc = EXIT_OPERATIONAL;
	} else {
		print_text(&rep, s.result, so.check.repair);
	}
out:
	fsck_session_free(&s);
	free((char *)image);
	free(policy);
	free(undo);
	free(journal);
	return rc;
}
