/* A finding's message: expanding its problem's template (the printers show the string as it is). */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <et/com_err.h>

#include "check/message.h"

/* A name as bytes from the disk: anything not printable ASCII as \xNN. Returns chars written. */
static size_t escape_name(const char *name, char *out, size_t size)
{
	const unsigned char *s = (const unsigned char *)(name ? name : "");
	size_t n = 0;

	for (; *s && n + 5 < size; s++) {
		if (*s < 0x20 || *s >= 0x7f || *s == '\\')
			n += (size_t)snprintf(out + n, size - n, "\\x%02x", *s);
		else
			out[n++] = (char)*s;
	}
	out[n] = '\0';
	return n;
}

void check_message_format(const char *tmpl, const struct check_finding *f, char *out, size_t size)
{
	const char *t = tmpl;
	size_t n = 0;

	for (; *t && n + 1 < size; t++) {
		uint64_t v = E4R_NONE;
		int w;

		if (*t != '%' || !t[1]) {
			out[n++] = *t;
			continue;
		}
		switch (*++t) {
		case 'i': v = f->ino; break;
		case 'b': v = f->blk; break;
		case 'g': v = f->group; break;
		case 'd': v = f->dir; break;
		case 'q': v = f->qid; break;
		case 'e': v = f->expected; break;
		case 'f': case 'o': v = f->found; break;
		case 'r': case 'R':
			v = *t == 'r' ? f->blk : f->ino;
			if (f->expected != E4R_NONE && f->expected != v)
				w = snprintf(out + n, size - n, "%" PRIu64 "-%" PRIu64, v, f->expected);
			else
				w = snprintf(out + n, size - n, "%" PRIu64, v);
			n += w > 0 ? (size_t)w : 0;
			continue;
		case 'x':
			w = snprintf(out + n, size - n, "%s", error_message((errcode_t)f->found));
			n += w > 0 ? (size_t)w : 0;
			continue;
		case 'n':
			n += escape_name(f->name, out + n, size - n);
			continue;
		default:
			out[n++] = *t;
			continue;
		}
		if (v == E4R_NONE)
			w = snprintf(out + n, size - n, "?");
		else if (*t == 'o')
			w = snprintf(out + n, size - n, "0%" PRIo64, v);
		else
			w = snprintf(out + n, size - n, "%" PRIu64, v);
		n += w > 0 ? (size_t)w : 0;
	}
	out[n < size ? n : size - 1] = '\0';
}
