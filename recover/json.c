/* A small streaming JSON writer: commas, indentation and string escaping, buffered. */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "json.h"

#define JSON_INDENT	2

void json_init(struct json *j, FILE *out, int compact)
{
	j->out = out;
	j->depth = 0;
	j->compact = compact;
	j->failed = 0;
	j->len = 0;
	memset(j->count, 0, sizeof(j->count));
}

static void flush(struct json *j)
{
	if (j->len && fwrite(j->buf, 1, j->len, j->out) != j->len)
		j->failed = 1;
	j->len = 0;
}

/* Room for N more bytes in the buffer (N at most JSON_BUF_SIZE). */
static char *reserve(struct json *j, size_t n)
{
	if (JSON_BUF_SIZE - j->len < n)
		flush(j);
	return j->buf + j->len;
}

static void put(struct json *j, const char *s, size_t n)
{
	if (n > JSON_BUF_SIZE) {
		flush(j);
		if (fwrite(s, 1, n, j->out) != n)
			j->failed = 1;
		return;
	}
	memcpy(reserve(j, n), s, n);
	j->len += n;
}

static void putch(struct json *j, char c)
{
	*reserve(j, 1) = c;
	j->len++;
}

static void puts_(struct json *j, const char *s)
{
	put(j, s, strlen(s));
}

/* Decimal digits of V, written by hand (no printf per number). */
static void put_u64(struct json *j, uint64_t v, int negative)
{
	char digits[24], *p = digits + sizeof(digits);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (negative)
		*--p = '-';
	put(j, p, (size_t)(digits + sizeof(digits) - p));
}

static void newline(struct json *j)
{
	int depth = j->depth < JSON_MAX_DEPTH ? j->depth : JSON_MAX_DEPTH;
	size_t n = 1 + (size_t)depth * JSON_INDENT;
	char *p;

	if (j->compact)
		return;
	p = reserve(j, n);
	p[0] = '\n';
	memset(p + 1, ' ', n - 1);
	j->len += n;
}

static void put_escaped(struct json *j, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s, *run;

	putch(j, '"');
	for (;;) {
		/* the bytes that go out as they are, in one copy */
		for (run = p; *p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\'; p++)
			;
		put(j, (const char *)run, (size_t)(p - run));
		if (!*p)
			break;
		switch (*p) {
		case '"':  put(j, "\\\"", 2); break;
		case '\\': put(j, "\\\\", 2); break;
		case '\n': put(j, "\\n", 2); break;
		case '\t': put(j, "\\t", 2); break;
		case '\r': put(j, "\\r", 2); break;
		default: {
			/*
			 * Control bytes must be escaped; bytes >= 0x80 are escaped too
			 * (as Latin-1 code points) so that a name read from a damaged
			 * image can never make the document invalid UTF-8.
			 */
			char u[6] = { '\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15] };
			put(j, u, sizeof(u));
		}
		}
		p++;
	}
	putch(j, '"');
}

/* Everything before a value: the comma, the indentation and the key. */
static void member(struct json *j, const char *key)
{
	int level = j->depth < JSON_MAX_DEPTH ? j->depth : JSON_MAX_DEPTH - 1;

	if (j->depth > 0) {
		if (j->count[level]++)
			putch(j, ',');
		newline(j);
	}
	if (key) {
		put_escaped(j, key);
		if (j->compact)
			putch(j, ':');
		else
			put(j, ": ", 2);
	}
}

static void begin(struct json *j, const char *key, char open)
{
	member(j, key);
	putch(j, open);
	j->depth++;
	if (j->depth < JSON_MAX_DEPTH)
		j->count[j->depth] = 0;
}

static void end(struct json *j, char close)
{
	int had_members = j->depth < JSON_MAX_DEPTH && j->count[j->depth] > 0;

	j->depth--;
	if (had_members)
		newline(j);
	putch(j, close);
}

void json_begin_object(struct json *j, const char *key) { begin(j, key, '{'); }
void json_end_object(struct json *j) { end(j, '}'); }
void json_begin_array(struct json *j, const char *key) { begin(j, key, '['); }
void json_end_array(struct json *j) { end(j, ']'); }

void json_string(struct json *j, const char *key, const char *value)
{
	member(j, key);
	if (value)
		put_escaped(j, value);
	else
		put(j, "null", 4);
}

void json_uint(struct json *j, const char *key, uint64_t value)
{
	member(j, key);
	put_u64(j, value, 0);
}

void json_int(struct json *j, const char *key, int64_t value)
{
	member(j, key);
	/* the magnitude in unsigned arithmetic: INT64_MIN has no positive int64_t */
	put_u64(j, value < 0 ? 0 - (uint64_t)value : (uint64_t)value, value < 0);
}

void json_double(struct json *j, const char *key, double value)
{
	member(j, key);
	if (value != value || value > 1e300 || value < -1e300)
		put(j, "null", 4);	/* JSON has no NaN or infinity */
	else {
		char buf[32];
		snprintf(buf, sizeof(buf), "%.6g", value);
		for (char *c = buf; *c; c++)
			if (*c == ',')
				*c = '.';	/* a locale's decimal comma is not JSON */
		puts_(j, buf);
	}
}

void json_bool(struct json *j, const char *key, int value)
{
	member(j, key);
	if (value)
		put(j, "true", 4);
	else
		put(j, "false", 5);
}

void json_null(struct json *j, const char *key)
{
	member(j, key);
	put(j, "null", 4);
}

void json_tristate(struct json *j, const char *key, int state)
{
	if (state < 0)
		json_null(j, key);
	else
		json_bool(j, key, state);
}

int json_finish(struct json *j)
{
	putch(j, '\n');
	flush(j);
	return fflush(j->out) || ferror(j->out) || j->failed ? -1 : 0;
}
