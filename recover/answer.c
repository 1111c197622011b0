/*
 * A terminal question's answer: one key. The terminal is put in
 * non-canonical mode without echo for the wait only, and given back before
 * anything else happens: on an answer, at the end of input, and on a
 * signal. The signals that end a session (SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT) are blocked except inside ppoll, so one that arrives while we
 * wait cannot be lost between a test of the flag and the wait, and the
 * handler does nothing but note it: the restoring is done here, not in a
 * handler.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "answer.h"
#include "i18n.h"

static const int answer_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define NSIGNALS	(sizeof(answer_signals) / sizeof(*answer_signals))

static volatile sig_atomic_t answer_cancelled;

static void on_signal(int sig)
{
	(void)sig;
	answer_cancelled = 1;
}

char answer_letter(const char *word)
{
	return (char)tolower((unsigned char)_(word)[0]);
}

/* The word KEY picks, or -1. */
static int word_of_key(int key, const char *const *words, unsigned n)
{
	key = tolower(key);
	for (unsigned i = 0; i < n; i++)
		if (key == words[i][0] || key == answer_letter(words[i]))
			return (int)i;
	return -1;
}

/* One byte of IN, waiting with the signals open: 1, 0 at the end, -1 on error, -2 on a signal. */
static int read_key(int in, const sigset_t *wait_mask, unsigned char *key)
{
	struct pollfd pfd = { .fd = in, .events = POLLIN };
	ssize_t got;

	for (;;) {
		if (answer_cancelled)
			return -2;
		if (ppoll(&pfd, 1, NULL, wait_mask) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		got = read(in, key, 1);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		return got < 0 ? -1 : (int)got;
	}
}

enum answer_status answer_key(int in, FILE *echo, const char *const *words, unsigned n, unsigned *chosen)
{
	struct sigaction sa, old[NSIGNALS];
	struct termios saved, raw;
	sigset_t block, old_mask, wait_mask;
	enum answer_status st = ANSWER_EOF;
	int tty = tcgetattr(in, &saved) == 0, w;
	unsigned char key;

	fflush(echo);
	answer_cancelled = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	for (unsigned i = 0; i < NSIGNALS; i++) {
		sigaddset(&block, answer_signals[i]);
		sigaction(answer_signals[i], &sa, &old[i]);
	}
	sigprocmask(SIG_BLOCK, &block, &old_mask);
	wait_mask = old_mask;
	for (unsigned i = 0; i < NSIGNALS; i++)
		sigdelset(&wait_mask, answer_signals[i]);
	if (tty) {
		raw = saved;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		tcsetattr(in, TCSANOW, &raw);
	}
	for (;;) {
		int r = read_key(in, &wait_mask, &key);

		if (r == -2) {
			st = ANSWER_CANCELLED;
			break;
		}
		if (r <= 0 || (tty && key == saved.c_cc[VEOF]))
			break;
		if ((w = word_of_key(key, words, n)) >= 0) {
			*chosen = (unsigned)w;
			st = ANSWER_CHOSEN;
			break;
		}
	}
	if (tty)
		tcsetattr(in, TCSANOW, &saved);
	for (unsigned i = 0; i < NSIGNALS; i++)
		sigaction(answer_signals[i], &old[i], NULL);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	if (st == ANSWER_CHOSEN)
		fprintf(echo, "%s\n", _(words[*chosen]));
	fflush(echo);
	return st;
}
