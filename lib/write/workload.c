/* Parsing, generating and running the writer's operation lists. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/e4r_err.h"
#include "write/workload.h"

#define E4R_SCRIPT_LINE_MAX	8192
#define E4R_MAX_FILE_SIZE	(1ULL << 32)

static const struct {
	const char	*name;
	enum write_op_kind kind;
	int		args;		/* 'p' path, 's' size */
	const char	*shape;
} op_names[] = {
	{ "mkdir", E4R_OP_MKDIR, 1, "p" },
	{ "create", E4R_OP_CREATE, 2, "ps" },
	{ "append", E4R_OP_APPEND, 2, "ps" },
	{ "unlink", E4R_OP_UNLINK, 1, "p" },
	{ "rmdir", E4R_OP_RMDIR, 1, "p" },
	{ "rename", E4R_OP_RENAME, 2, "pp" },
	{ "link", E4R_OP_LINK, 2, "pp" },
	{ "symlink", E4R_OP_SYMLINK, 2, "pp" },
	{ "truncate", E4R_OP_TRUNCATE, 2, "ps" },
	{ "commit", E4R_OP_COMMIT, 0, "" },
	{ "crash", E4R_OP_CRASH, 0, "" },
};

errcode_t write_workload_add(struct write_workload *wl, const struct write_op *op)
{
	if (wl->n == wl->cap) {
		unsigned ncap = wl->cap ? wl->cap * 2 : 64;
		errcode_t err = ext2fs_resize_mem(wl->cap * sizeof(*wl->ops), ncap * sizeof(*wl->ops), &wl->ops);

		if (err)
			return err;
		wl->cap = ncap;
	}
	wl->ops[wl->n++] = *op;
	return 0;
}

void write_workload_free(struct write_workload *wl)
{
	for (unsigned i = 0; i < wl->n; i++) {
		free(wl->ops[i].a);
		free(wl->ops[i].b);
	}
	ext2fs_free_mem(&wl->ops);
	wl->n = wl->cap = 0;
}

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > E4R_MAX_FILE_SIZE)
		return -1;
	*out = v;
	return 0;
}

/* One non-comment line: "op arg..." with exactly the arguments the op takes. */
static errcode_t parse_line(char *line, unsigned lineno, struct write_workload *wl)
{
	char *words[4], *save = NULL, *w;
	unsigned nw = 0, k;
	struct write_op op;

	for (w = strtok_r(line, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
		if (nw == 4)
			return E4R_WRITE_SCRIPT;
		words[nw++] = w;
	}
	if (!nw)
		return 0;
	for (k = 0; k < sizeof(op_names) / sizeof(op_names[0]); k++)
		if (!strcmp(words[0], op_names[k].name))
			break;
	if (k == sizeof(op_names) / sizeof(op_names[0]) || nw != (unsigned)op_names[k].args + 1)
		return E4R_WRITE_SCRIPT;
	memset(&op, 0, sizeof(op));
	op.kind = op_names[k].kind;
	op.line = lineno;
	for (unsigned i = 0; i < (unsigned)op_names[k].args; i++) {
		if (op_names[k].shape[i] == 's') {
			if (parse_size(words[i + 1], &op.size))
				return E4R_WRITE_SCRIPT;
		} else if (words[i + 1][0] != '/' && !(op.kind == E4R_OP_SYMLINK && i == 0)) {
			return E4R_WRITE_SCRIPT;	/* paths are absolute; a symlink target may be anything */
		}
	}
	op.a = nw > 1 && op_names[k].shape[0] == 'p' ? strdup(words[1]) : NULL;
	op.b = nw > 2 && op_names[k].shape[1] == 'p' ? strdup(words[2]) : NULL;
	if ((nw > 1 && !op.a) || (nw > 2 && op_names[k].shape[1] == 'p' && !op.b)) {
		free(op.a);
		free(op.b);
		return ENOMEM;
	}
	return write_workload_add(wl, &op);
}

errcode_t write_workload_parse(FILE *in, struct write_workload *wl, unsigned *bad_line)
{
	char line[E4R_SCRIPT_LINE_MAX];
	unsigned lineno = 0;
	errcode_t err = 0;

	memset(wl, 0, sizeof(*wl));
	while (!err && fgets(line, sizeof(line), in)) {
		char *hash = strchr(line, '#');

		lineno++;
		if (!strchr(line, '\n') && !feof(in))
			err = E4R_WRITE_SCRIPT;		/* line too long */
		if (hash)
			*hash = 0;
		if (!err)
			err = parse_line(line, lineno, wl);
	}
	if (!err && ferror(in))
		err = errno ? errno : EIO;
	if (err) {
		*bad_line = lineno;
		write_workload_free(wl);
	}
	return err;
}

static void print_op(FILE *out, const struct write_op *op)
{
	for (unsigned k = 0; k < sizeof(op_names) / sizeof(op_names[0]); k++) {
		if (op_names[k].kind != op->kind)
			continue;
		fputs(op_names[k].name, out);
		if (op->a)
			fprintf(out, " %s", op->a);
		if (op->b)
			fprintf(out, " %s", op->b);
		if (strchr(op_names[k].shape, 's'))
			fprintf(out, " %llu", (unsigned long long)op->size);
		fputc('\n', out);
	}
}

void write_workload_print(FILE *out, const struct write_workload *wl)
{
	for (unsigned i = 0; i < wl->n; i++)
		print_op(out, &wl->ops[i]);
}
