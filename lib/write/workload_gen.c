/* Seeded random workloads that stay valid: a model of the tree decides what can be done. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/e4r_err.h"
#include "write/workload.h"

#define GEN_MAX_ENTRIES		4096
#define GEN_SMALL_FILE		8192
#define GEN_LARGE_FILE		(96 * 1024)

enum gen_type { GEN_DIR, GEN_FILE, GEN_SYMLINK };

struct gen_entry {
	char		*path;
	enum gen_type	type;
};

struct gen {
	struct gen_entry e[GEN_MAX_ENTRIES];
	unsigned	n;
	unsigned	next_name;
	uint64_t	rng;
	struct write_workload *wl;
};

/* xorshift64*: the same sequence on every platform for the same seed. */
static uint32_t gen_rand(struct gen *g)
{
	g->rng ^= g->rng >> 12;
	g->rng ^= g->rng << 25;
	g->rng ^= g->rng >> 27;
	return (uint32_t)((g->rng * 0x2545F4914F6CDD1DULL) >> 32);
}

static unsigned gen_below(struct gen *g, unsigned n)
{
	return n ? gen_rand(g) % n : 0;
}

static errcode_t emit(struct gen *g, enum write_op_kind kind, const char *a, const char *b, uint64_t size)
{
	struct write_op op = { kind, a ? strdup(a) : NULL, b ? strdup(b) : NULL, size, 0 };
	errcode_t err = (a && !op.a) || (b && !op.b) ? ENOMEM : write_workload_add(g->wl, &op);

	if (err) {
		free(op.a);
		free(op.b);
	}
	return err;
}

/* A random entry of TYPE, or -1. */
static int pick(struct gen *g, int type)
{
	unsigned cand[GEN_MAX_ENTRIES], n = 0;

	for (unsigned i = 0; i < g->n; i++)
		if (type < 0 || (int)g->e[i].type == type)
			cand[n++] = i;
	return n ? (int)cand[gen_below(g, n)] : -1;
}

/* A directory to create in: the root or an existing directory. */
static const char *pick_dir(struct gen *g)
{
	int d = gen_below(g, 3) ? pick(g, GEN_DIR) : -1;

	return d < 0 ? "" : g->e[d].path;
}

static errcode_t new_path(struct gen *g, const char *dir, char prefix, char **out)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s/%c%u", dir, prefix, g->next_name++);
	*out = strdup(buf);
	return *out ? 0 : ENOMEM;
}

static uint64_t file_size(struct gen *g)
{
	switch (gen_below(g, 8)) {
	case 0:
		return 0;
	case 1:
		return gen_below(g, GEN_LARGE_FILE);
	default:
		return gen_below(g, GEN_SMALL_FILE);
	}
}

static errcode_t add_entry(struct gen *g, char *path, enum gen_type type)
{
	if (g->n == GEN_MAX_ENTRIES) {
		free(path);
		return E4R_LIMIT;
	}
	g->e[g->n].path = path;
	g->e[g->n++].type = type;
	return 0;
}

static void remove_entry(struct gen *g, unsigned i)
{
	free(g->e[i].path);
	g->e[i] = g->e[--g->n];
}

static int has_children(struct gen *g, const char *dir)
{
	size_t len = strlen(dir);

	for (unsigned i = 0; i < g->n; i++)
		if (!strncmp(g->e[i].path, dir, len) && g->e[i].path[len] == '/')
			return 1;
	return 0;
}

static errcode_t gen_create(struct gen *g, const char *dir)
{
	char *p;
	uint64_t size = file_size(g);
	errcode_t err = new_path(g, dir, 'f', &p);

	if (!err)
		err = emit(g, E4R_OP_CREATE, p, NULL, size);
	return err ? (free(p), err) : add_entry(g, p, GEN_FILE);
}

static errcode_t gen_mkdir(struct gen *g)
{
	char *p;
	errcode_t err = new_path(g, pick_dir(g), 'd', &p);

	if (!err)
		err = emit(g, E4R_OP_MKDIR, p, NULL, 0);
	return err ? (free(p), err) : add_entry(g, p, GEN_DIR);
}

static errcode_t gen_symlink(struct gen *g)
{
	char target[300], *p;
	unsigned len = gen_below(g, 2) ? 1 + gen_below(g, 40) : 60 + gen_below(g, 200);
	errcode_t err;

	for (unsigned i = 0; i < len; i++)
		target[i] = "abcdefghijklmnopqrstuvwxyz/._-"[gen_below(g, 30)];
	target[len] = 0;
	err = new_path(g, pick_dir(g), 'l', &p);
	if (!err)
		err = emit(g, E4R_OP_SYMLINK, target, p, 0);
	return err ? (free(p), err) : add_entry(g, p, GEN_SYMLINK);
}

/* Move entry I (and, for a directory, everything under it) to a new name. */
static errcode_t gen_rename(struct gen *g, int i)
{
	const char *dir = pick_dir(g);
	char *old = g->e[i].path, *p;
	size_t olen = strlen(old);
	errcode_t err;

	if (!strncmp(dir, old, olen) && (dir[olen] == '/' || !dir[olen]))
		dir = "";	/* not into itself */
	err = new_path(g, dir, g->e[i].type == GEN_DIR ? 'd' : 'r', &p);
	if (!err)
		err = emit(g, E4R_OP_RENAME, old, p, 0);
	if (err) {
		free(p);
		return err;
	}
	for (unsigned k = 0; k < g->n; k++) {
		char buf[8192], *np;

		if (k == (unsigned)i || strncmp(g->e[k].path, old, olen) || g->e[k].path[olen] != '/')
			continue;
		snprintf(buf, sizeof(buf), "%s%s", p, g->e[k].path + olen);
		np = strdup(buf);
		if (!np)
			return ENOMEM;
		free(g->e[k].path);
		g->e[k].path = np;
	}
	free(old);
	g->e[i].path = p;
	return 0;
}

static errcode_t gen_link(struct gen *g, int i)
{
	char *p;
	errcode_t err = new_path(g, pick_dir(g), 'h', &p);

	if (!err)
		err = emit(g, E4R_OP_LINK, g->e[i].path, p, 0);
	return err ? (free(p), err) : add_entry(g, p, g->e[i].type);
}

static errcode_t gen_one(struct gen *g)
{
	unsigned r = gen_below(g, 100);
	int f = pick(g, GEN_FILE), d = pick(g, GEN_DIR), any = pick(g, -1);

	if (r < 30 || any < 0)
		return gen_create(g, pick_dir(g));
	if (r < 40)
		return gen_mkdir(g);
	if (r < 55 && f >= 0)
		return emit(g, E4R_OP_APPEND, g->e[f].path, NULL, file_size(g));
	if (r < 62 && f >= 0)
		return emit(g, E4R_OP_TRUNCATE, g->e[f].path, NULL, gen_below(g, GEN_SMALL_FILE * 2));
	if (r < 72 && any >= 0 && g->e[any].type != GEN_DIR) {
		errcode_t err = emit(g, E4R_OP_UNLINK, g->e[any].path, NULL, 0);

		if (!err)
			remove_entry(g, any);
		return err;
	}
	if (r < 76 && d >= 0 && !has_children(g, g->e[d].path)) {
		errcode_t err = emit(g, E4R_OP_RMDIR, g->e[d].path, NULL, 0);

		if (!err)
			remove_entry(g, d);
		return err;
	}
	if (r < 84 && any >= 0)
		return gen_rename(g, any);
	if (r < 89 && f >= 0)
		return gen_link(g, f);
	if (r < 95)
		return gen_symlink(g);
	return gen_create(g, pick_dir(g));
}

errcode_t write_workload_random(unsigned n, unsigned seed, int ialloc_bug, struct write_workload *wl)
{
	struct gen *g;
	unsigned until_commit;
	errcode_t err;

	memset(wl, 0, sizeof(*wl));
	err = ext2fs_get_memzero(sizeof(*g), &g);
	if (err)
		return err;
	g->rng = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)seed << 1) ^ 1;
	g->wl = wl;
	until_commit = 1 + gen_below(g, 6);
	for (unsigned i = 0; !err && i < n; i++) {
		if (ialloc_bug && (i == 0 || !until_commit))
			err = gen_create(g, "");	/* meets the bitmap of the transaction in flight */
		else
			err = gen_one(g);
		if (!err && (!until_commit || !--until_commit)) {
			err = emit(g, E4R_OP_COMMIT, NULL, NULL, 0);
			until_commit = 1 + gen_below(g, 6);
			if (ialloc_bug && !err && i + 1 < n) {
				err = gen_create(g, "");
				i++;
			}
		}
	}
	if (!err && (!wl->n || wl->ops[wl->n - 1].kind != E4R_OP_COMMIT))
		err = emit(g, E4R_OP_COMMIT, NULL, NULL, 0);
	for (unsigned i = 0; i < g->n; i++)
		free(g->e[i].path);
	ext2fs_free_mem(&g);
	if (err)
		write_workload_free(wl);
	return err;
}
