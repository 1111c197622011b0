/*
 * replay --answers=FILE. The file is JSON, and only its "answers" member is
 * read: a small recursive-descent reader picks the entries out and skips
 * every other value (a replay document may hold long lists), checking the
 * grammar as it goes, so a damaged file is refused whole before anything
 * is written.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "answers.h"
#include "i18n.h"

/* Larger than any replay document of a journal (a dry run lists every block once). */
#define ANSWERS_MAX_BYTES	(1024L << 20)
/* Nesting the reader follows before it calls the file malformed. */
#define ANSWERS_MAX_DEPTH	256
/* Names longer than this are no decision and no member we read. */
#define ANSWERS_NAME_MAX	64

static const char *const decision_names[] = {
	[JBD_DECIDE_REFUSE]	= "refused",
	[JBD_DECIDE_AS_IS]	= "replayed_as_is",
	[JBD_DECIDE_CORRECTED]	= "replayed_corrected",
	[JBD_DECIDE_SKIP]	= "skipped_superseded",
};

const char *answers_decision_name(enum replay_decision d)
{
	return (unsigned)d < sizeof(decision_names) / sizeof(*decision_names) ? decision_names[d] : "?";
}

struct reader {
	const char	*s;
	size_t		len, pos;
	int		depth;
	char		*why;
	size_t		why_len;
	int		failed;
};

static int fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct reader *r, const char *fmt, ...)
{
	va_list ap;

	if (!r->failed) {
		va_start(ap, fmt);
		vsnprintf(r->why, r->why_len, fmt, ap);
		va_end(ap);
		r->failed = 1;
	}
	return -1;
}

static int malformed(struct reader *r, const char *expected)
{
	return fail(r, _("not JSON: %s expected at byte %zu"), expected, r->pos);
}

static void ws(struct reader *r)
{
	while (r->pos < r->len && r->s[r->pos] && strchr(" \t\r\n", r->s[r->pos]))
		r->pos++;
}

static int peek(struct reader *r)
{
	ws(r);
	return r->pos < r->len ? (unsigned char)r->s[r->pos] : -1;
}

static int expect(struct reader *r, char c, const char *what)
{
	if (peek(r) != c)
		return malformed(r, what);
	r->pos++;
	return 0;
}

static int hex4(struct reader *r)
{
	for (int i = 0; i < 4; i++, r->pos++)
		if (r->pos >= r->len || !strchr("0123456789abcdefABCDEF", r->s[r->pos]) || !r->s[r->pos])
			return malformed(r, _("four hex digits"));
	return 0;
}

/*
 * A string; its first OUT_LEN - 1 bytes into OUT (NULL: skip it). A longer
 * one is marked by *LONG so it matches no name. \u escapes become '?': no
 * name we read has them.
 */
static int string(struct reader *r, char *out, size_t out_len, int *too_long)
{
	size_t n = 0;

	if (expect(r, '"', _("a string")))
		return -1;
	if (too_long)
		*too_long = 0;
	for (;;) {
		unsigned char c;

		if (r->pos >= r->len)
			return malformed(r, _("the end of a string"));
		c = (unsigned char)r->s[r->pos++];
		if (c == '"')
			break;
		if (c < 0x20) {
			r->pos--;
			return malformed(r, _("a character of a string"));
		}
		if (c == '\\') {
			if (r->pos >= r->len || !r->s[r->pos] || !strchr("\"\\/bfnrtu", r->s[r->pos]))
				return malformed(r, _("an escape"));
			c = (unsigned char)r->s[r->pos++];
			if (c == 'u') {
				if (hex4(r))
					return -1;
				c = '?';
			}
		}
		if (out && n + 1 < out_len)
			out[n++] = (char)c;
		else if (too_long)
			*too_long = 1;
	}
	if (out)
		out[n] = 0;
	return 0;
}

/* A number; *VALUE and *WHOLE (1: an integer from 0 to UINT64_MAX) when not NULL. */
static int number(struct reader *r, uint64_t *value, int *whole)
{
	size_t start = r->pos, digits;
	int neg = 0, frac = 0;
	uint64_t v = 0, over = 0;

	if (r->pos < r->len && r->s[r->pos] == '-') {
		neg = 1;
		r->pos++;
	}
	digits = r->pos;
	while (r->pos < r->len && r->s[r->pos] >= '0' && r->s[r->pos] <= '9') {
		unsigned d = (unsigned)(r->s[r->pos++] - '0');
		if (v > (UINT64_MAX - d) / 10)
			over = 1;
		v = v * 10 + d;
	}
	if (r->pos == digits || (r->s[digits] == '0' && r->pos - digits > 1)) {
		r->pos = start;
		return malformed(r, _("a value"));
	}
	if (r->pos < r->len && r->s[r->pos] == '.') {
		frac = 1;
		digits = ++r->pos;
		while (r->pos < r->len && r->s[r->pos] >= '0' && r->s[r->pos] <= '9')
			r->pos++;
		if (r->pos == digits)
			return malformed(r, _("a digit"));
	}
	if (r->pos < r->len && (r->s[r->pos] == 'e' || r->s[r->pos] == 'E')) {
		frac = 1;
		r->pos++;
		if (r->pos < r->len && (r->s[r->pos] == '+' || r->s[r->pos] == '-'))
			r->pos++;
		digits = r->pos;
		while (r->pos < r->len && r->s[r->pos] >= '0' && r->s[r->pos] <= '9')
			r->pos++;
		if (r->pos == digits)
			return malformed(r, _("a digit"));
	}
	if (value)
		*value = v;
	if (whole)
		*whole = !neg && !frac && !over;
	return 0;
}

static int skip_value(struct reader *r);

static int literal(struct reader *r, const char *word)
{
	size_t n = strlen(word);

	if (r->len - r->pos < n || memcmp(r->s + r->pos, word, n))
		return malformed(r, _("a value"));
	r->pos += n;
	return 0;
}

/* The members of an object or the items of an array, each skipped; after its opening bracket. */
static int skip_container(struct reader *r, char close)
{
	if (++r->depth > ANSWERS_MAX_DEPTH)
		return fail(r, _("nested deeper than %d levels"), ANSWERS_MAX_DEPTH);
	if (peek(r) == close) {
		r->pos++;
		r->depth--;
		return 0;
	}
	for (;;) {
		if (close == '}' && (string(r, NULL, 0, NULL) || expect(r, ':', "':'")))
			return -1;
		if (skip_value(r))
			return -1;
		if (peek(r) == ',') {
			r->pos++;
			continue;
		}
		r->depth--;
		return expect(r, close, close == '}' ? "',' or '}'" : "',' or ']'");
	}
}

static int skip_value(struct reader *r)
{
	switch (peek(r)) {
	case '{':
		r->pos++;
		return skip_container(r, '}');
	case '[':
		r->pos++;
		return skip_container(r, ']');
	case '"':
		return string(r, NULL, 0, NULL);
	case 't':
		return literal(r, "true");
	case 'f':
		return literal(r, "false");
	case 'n':
		return literal(r, "null");
	default:
		return number(r, NULL, NULL);
	}
}

static int decision_parse(const char *name, enum replay_decision *out)
{
	for (unsigned i = 0; i < sizeof(decision_names) / sizeof(*decision_names); i++)
		if (!strcmp(name, decision_names[i])) {
			*out = (enum replay_decision)i;
			return 0;
		}
	return -1;
}

/* A member that must be an integer from 0 to 2^32 - 1. */
static int u32_member(struct reader *r, unsigned index, const char *key, uint32_t *out)
{
	uint64_t v;
	int whole;

	if (peek(r) == '"' || peek(r) == '{' || peek(r) == '[' || peek(r) == 't' || peek(r) == 'f' ||
	    peek(r) == 'n' || number(r, &v, &whole) || !whole || v > UINT32_MAX)
		return fail(r, _("answers[%u]: \"%s\" is not a number from 0 to 4294967295"), index, key);
	*out = (uint32_t)v;
	return 0;
}

enum { HAS_SEQUENCE = 1, HAS_JBLK = 2, HAS_DECISION = 4 };

static int entry(struct reader *r, unsigned index, struct answers_entry *e)
{
	char key[ANSWERS_NAME_MAX], name[ANSWERS_NAME_MAX];
	int has = 0, too_long;

	if (peek(r) != '{')
		return fail(r, _("answers[%u] is not an object"), index);
	r->pos++;
	e->index = index;
	if (peek(r) == '}')
		r->pos++;
	else for (;;) {
		if (string(r, key, sizeof(key), &too_long) || expect(r, ':', "':'"))
			return -1;
		if (too_long) {
			if (skip_value(r))
				return -1;
		} else if (!strcmp(key, "sequence")) {
			if (u32_member(r, index, key, &e->sequence))
				return -1;
			has |= HAS_SEQUENCE;
		} else if (!strcmp(key, "journal_block")) {
			if (u32_member(r, index, key, &e->jblk))
				return -1;
			has |= HAS_JBLK;
		} else if (!strcmp(key, "decision")) {
			if (peek(r) != '"')
				return fail(r, _("answers[%u]: \"decision\" is not a string"), index);
			if (string(r, name, sizeof(name), &too_long))
				return -1;
			if (too_long || decision_parse(name, &e->decision))
				return fail(r, _("answers[%u]: unknown decision \"%s%s\" (replayed_corrected, "
						 "replayed_as_is, refused, skipped_superseded)"),
					    index, name, too_long ? "..." : "");
			has |= HAS_DECISION;
		} else if (skip_value(r)) {
			return -1;
		}
		if (peek(r) == ',') {
			r->pos++;
			continue;
		}
		if (expect(r, '}', "',' or '}'"))
			return -1;
		break;
	}
	if (!(has & HAS_SEQUENCE))
		return fail(r, _("answers[%u] has no \"sequence\""), index);
	if (!(has & HAS_JBLK))
		return fail(r, _("answers[%u] has no \"journal_block\""), index);
	if (!(has & HAS_DECISION))
		return fail(r, _("answers[%u] has no \"decision\""), index);
	return 0;
}

static int add(struct reader *r, struct answers *a, unsigned *cap, const struct answers_entry *e)
{
	const struct answers_entry *dup = answers_find(a, e->sequence, e->jblk);

	if (dup)
		return fail(r, _("answers[%u]: transaction %" PRIu32 ", journal block %" PRIu32
				 " is answered already by answers[%u]"), e->index, e->sequence, e->jblk, dup->index);
	if (a->n == *cap) {
		unsigned ncap = *cap ? *cap * 2 : 16;
		void *n = realloc(a->e, ncap * sizeof(*a->e));
		if (!n)
			return fail(r, "%s", strerror(ENOMEM));
		a->e = n;
		*cap = ncap;
	}
	a->e[a->n++] = *e;
	return 0;
}

static int answers_array(struct reader *r, struct answers *a)
{
	unsigned cap = 0;
	struct answers_entry e;

	if (peek(r) != '[')
		return fail(r, _("\"answers\" is not an array"));
	r->pos++;
	if (peek(r) == ']') {
		r->pos++;
		return 0;
	}
	for (unsigned i = 0;; i++) {
		memset(&e, 0, sizeof(e));
		if (entry(r, i, &e) || add(r, a, &cap, &e))
			return -1;
		if (peek(r) == ',') {
			r->pos++;
			continue;
		}
		return expect(r, ']', "',' or ']'");
	}
}

static int document(struct reader *r, struct answers *a)
{
	char key[ANSWERS_NAME_MAX];
	int found = 0, too_long;

	if (peek(r) != '{')
		return malformed(r, _("an object"));
	r->pos++;
	r->depth = 1;
	if (peek(r) == '}')
		r->pos++;
	else for (;;) {
		if (string(r, key, sizeof(key), &too_long) || expect(r, ':', "':'"))
			return -1;
		if (!too_long && !strcmp(key, "answers")) {
			if (found)
				return fail(r, _("\"answers\" is given twice"));
			if (answers_array(r, a))
				return -1;
			found = 1;
		} else if (skip_value(r)) {
			return -1;
		}
		if (peek(r) == ',') {
			r->pos++;
			continue;
		}
		if (expect(r, '}', "',' or '}'"))
			return -1;
		break;
	}
	if (peek(r) != -1)
		return malformed(r, _("the end of the file"));
	if (!found)
		return fail(r, _("no \"answers\" array"));
	return 0;
}

/* The whole of FILE, NUL-terminated. */
static char *slurp(const char *file, size_t *len, struct reader *r)
{
	FILE *f = fopen(file, "rb");
	struct stat st;
	char *buf = NULL;

	if (!f) {
		fail(r, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode))
		fail(r, _("not a regular file"));
	else if (st.st_size > ANSWERS_MAX_BYTES)
		fail(r, _("larger than %ld bytes"), ANSWERS_MAX_BYTES);
	else if (!(buf = malloc((size_t)st.st_size + 1)))
		fail(r, "%s", strerror(ENOMEM));
	else if ((*len = fread(buf, 1, (size_t)st.st_size, f)) != (size_t)st.st_size || ferror(f)) {
		fail(r, _("cannot read it"));
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf)
		buf[*len] = 0;
	return buf;
}

int answers_load(const char *file, struct answers *out, char *why, size_t len)
{
	struct reader r = { .why = why, .why_len = len };
	char *text;

	memset(out, 0, sizeof(*out));
	text = slurp(file, &r.len, &r);
	if (!text)
		return -1;
	r.s = text;
	document(&r, out);
	free(text);
	if (r.failed) {
		answers_free(out);
		return -1;
	}
	return 0;
}

const struct answers_entry *answers_find(const struct answers *a, uint32_t sequence, uint32_t jblk)
{
	for (unsigned i = 0; i < a->n; i++)
		if (a->e[i].sequence == sequence && a->e[i].jblk == jblk)
			return &a->e[i];
	return NULL;
}

void answers_free(struct answers *a)
{
	free(a->e);
	a->e = NULL;
	a->n = 0;
}
