/* A small streaming JSON writer: commas, indentation and string escaping. */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "json.h"

#define JSON_INDENT	2

void json_init(struct json *j, FILE *out, int compact)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
	j->compact = compact;
}

static void newline(struct json *j)
{
	int depth = j->depth < JSON_MAX_DEPTH ? j->depth : JSON_MAX_DEPTH;

	if (j->compact)
		return;
	fprintf(j->out, "\n%*s", depth * JSON_INDENT, "");
}

static void put_escaped(FILE *out, const char *s)
{
	const unsigned char *p;

	putc('"', out);
	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':  fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\t': fputs("\\t", out); break;
		case '\r': fputs("\\r", out); break;
		default:
			/*
			 * Control bytes must be escaped; bytes >= 0x80 are escaped too
			 * (as Latin-1 code points) so that a name read from a damaged
			 * image can never make the document invalid UTF-8.
			 */
			if (*p < 0x20 || *p >= 0x7f)
				fprintf(out, "\\u%04x", *p);
			else
				putc(*p, out);
		}
	}
	putc('"', out);
}

/* Everything before a value: the comma, the indentation and the key. */
static void member(struct json *j, const char *key)
{
	int level = j->depth < JSON_MAX_DEPTH ? j->depth : JSON_MAX_DEPTH - 1;

	if (j->depth > 0) {
		if (j->count[level]++)
			putc(',', j->out);
		newline(j);
	}
	if (key) {
		put_escaped(j->out, key);
		fputs(j->compact ? ":" : ": ", j->out);
	}
}

static void begin(struct json *j, const char *key, char open)
{
	member(j, key);
	putc(open, j->out);
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
	putc(close, j->out);
}

void json_begin_object(struct json *j, const char *key) { begin(j, key, '{'); }
void json_end_object(struct json *j) { end(j, '}'); }
void json_begin_array(struct json *j, const char *key) { begin(j, key, '['); }
void json_end_array(struct json *j) { end(j, ']'); }

void json_string(struct json *j, const char *key, const char *value)
{
	member(j, key);
	if (value)
		put_escaped(j->out, value);
	else
		fputs("null", j->out);
}

void json_uint(struct json *j, const char *key, uint64_t value)
{
	member(j, key);
	fprintf(j->out, "%" PRIu64, value);
}

void json_int(struct json *j, const char *key, int64_t value)
{
	member(j, key);
	fprintf(j->out, "%" PRId64, value);
}

void json_double(struct json *j, const char *key, double value)
{
	member(j, key);
	if (value != value || value > 1e300 || value < -1e300)
		fputs("null", j->out);	/* JSON has no NaN or infinity */
	else {
		char buf[32];
		snprintf(buf, sizeof(buf), "%.6g", value);
		for (char *c = buf; *c; c++)
			if (*c == ',')
				*c = '.';	/* a locale's decimal comma is not JSON */
		fputs(buf, j->out);
	}
}

void json_bool(struct json *j, const char *key, int value)
{
	member(j, key);
	fputs(value ? "true" : "false", j->out);
}

void json_null(struct json *j, const char *key)
{
	member(j, key);
	fputs("null", j->out);
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
	putc('\n', j->out);
	return fflush(j->out) || ferror(j->out) ? -1 : 0;
}
