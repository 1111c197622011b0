/* A terminal question's answer: one key, read without Enter, as fsck asks. */
#ifndef E4R_ANSWER_H
#define E4R_ANSWER_H

#include <stdio.h>

enum answer_status {
	ANSWER_CHOSEN = 0,	/* *chosen is set */
	ANSWER_EOF,		/* the input ended (or failed, or ^D was typed) */
	ANSWER_CANCELLED,	/* SIGINT, SIGTERM, SIGHUP or SIGQUIT arrived while waiting */
};

/*
 * Wait for a key on IN that is the first letter of one of WORDS[0..N) (the
 * English words, marked N_(), or their translations, as the question shows
 * them); other keys are ignored. On a terminal the key is read raw (no line
 * editing, no echo); the chosen word is echoed to ECHO with a newline. The
 * terminal's settings and the signal dispositions are given back on every
 * way out: a signal only ends the wait (ANSWER_CANCELLED), and the caller
 * ends the command with its exit code.
 */
enum answer_status answer_key(int in, FILE *echo, const char *const *words, unsigned n, unsigned *chosen);

/* The key that picks WORD (the first letter of its translation), for the question's text. */
char answer_letter(const char *word);

#endif
