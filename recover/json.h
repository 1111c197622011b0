/* A small streaming JSON writer to a FILE*, shared by the subcommands' --json output. */
#ifndef E4R_JSON_H
#define E4R_JSON_H

#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	32

/*
 * Values are written as they come; the writer tracks nesting only to place
 * commas and indentation. KEY is the member name inside an object and must
 * be NULL inside an array (and for the top-level value). Nesting deeper than
 * JSON_MAX_DEPTH is a programming error: the writer stops indenting but the
 * document stays well-formed as long as begin/end calls pair up.
 */
/*
 * The text goes into BUF and reaches OUT in large writes (when BUF fills and
 * at json_finish): a logdump of a large journal writes millions of numbers,
 * and a stdio call per number and per indentation was half its time.
 */
#define JSON_BUF_SIZE	(64 * 1024)

struct json {
	FILE	*out;
	int	depth;
	int	compact;			/* 1: no newlines or indentation */
	int	failed;			/* a write to OUT failed */
	int	count[JSON_MAX_DEPTH];		/* members written at each level */
	size_t	len;				/* bytes waiting in buf */
	char	buf[JSON_BUF_SIZE];
};

void json_init(struct json *j, FILE *out, int compact);

void json_begin_object(struct json *j, const char *key);
void json_end_object(struct json *j);
void json_begin_array(struct json *j, const char *key);
void json_end_array(struct json *j);

void json_string(struct json *j, const char *key, const char *value);	/* NULL writes null */
void json_uint(struct json *j, const char *key, uint64_t value);
void json_int(struct json *j, const char *key, int64_t value);
void json_double(struct json *j, const char *key, double value);	/* %.6g; null if not finite */
void json_bool(struct json *j, const char *key, int value);
void json_null(struct json *j, const char *key);
/* true, false, or null for a negative STATE (a checksum that does not apply). */
void json_tristate(struct json *j, const char *key, int state);

/* Finish the document: a final newline, everything written to OUT. Returns 0, or -1 if writing failed. */
int json_finish(struct json *j);

#endif
