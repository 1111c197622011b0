/* What every pass shares: reporting findings and progress, the pass names, directory lookup, inode kinds. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "check/ctx.h"
#include "util/array.h"
#include "util/sorted.h"


static const char *const pass_names[E4R_PASS_COUNT] = {
	"superblock", "inodes", "directories", "connectivity", "links", "bitmaps",
};

const char *check_pass_name(int pass)
{
	return pass >= 0 && pass < E4R_PASS_COUNT ? pass_names[pass] : "unknown";
}

errcode_t check_report(struct check_ctx *c, const struct check_finding *f)
{
	struct check_result *r = c->res;
	const struct check_problem_info *p = check_problem_info(f->code);
	struct check_finding *slot;

	if (p && p->severity == E4R_SEV_ERROR)
		r->errors++;
	/*
	 * The limit holds per round: a repair that postpones 100,000 reconnections
	 * to the next round (they wait for the entries it fixes) must find room there.
	 */
	if (r->count - r->round_first >= r->max_findings) {
		r->dropped++;
		return 0;
	}
	if (util_grow_from((void **)&r->findings, &r->cap, r->count + 1, sizeof(*r->findings), 64))
		return check_fatal(c, ENOMEM);
	slot = &r->findings[r->count];
	*slot = *f;
	slot->name = NULL;
	slot->round = (uint16_t)c->round;
	if (f->name && !(slot->name = strdup(f->name)))
		return check_fatal(c, ENOMEM);
	r->count++;
	return 0;
}

errcode_t check_fatal(struct check_ctx *c, errcode_t err)
{
	if (!c->res->fatal)
		c->res->fatal = err;
	return err;
}

errcode_t check_report_ino(struct check_ctx *c, enum check_problem code, uint64_t ino,
			   uint64_t blk, uint64_t expected, uint64_t found)
{
	struct check_finding f = check_finding_init(code);

	f.ino = ino;
	f.blk = blk;
	f.expected = expected;
	f.found = found;
	return check_report(c, &f);
}

errcode_t check_report_group(struct check_ctx *c, enum check_problem code, uint64_t group,
			     uint64_t blk, uint64_t expected, uint64_t found)
{
	struct check_finding f = check_finding_init(code);

	f.group = group;
	f.blk = blk;
	f.expected = expected;
	f.found = found;
	return check_report(c, &f);
}

void check_progress(struct check_ctx *c, int pass, uint64_t done, uint64_t total)
{
	if (!c->opts || !c->opts->progress)
		return;
	if (pass == c->prog_pass && done == c->prog_done && total == c->prog_total)
		return;
	c->prog_pass = pass;
	c->prog_done = done;
	c->prog_total = total;
	c->opts->progress(c->opts->progress_arg, pass, done, total);
}

errcode_t check_keys_collect(const struct check_result *r, size_t first, check_key_pick_fn pick,
			     const void *arg, struct check_keys *out)
{
	uint64_t key;

	out->v = NULL;
	out->n = 0;
	for (size_t i = first; i < r->count; i++) {
		if (!pick(&r->findings[i], arg, &key))
			continue;
		/* room for every finding left, taken at the first one picked */
		if (!out->v && !(out->v = malloc((r->count - i) * sizeof(*out->v))))
			return ENOMEM;
		out->v[out->n++] = key;
	}
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), util_cmp_u64);
	return 0;
}

int check_keys_has(const struct check_keys *k, uint64_t key)
{
	return k->n && bsearch(&key, k->v, k->n, sizeof(*k->v), util_cmp_u64) != NULL;
}

void check_keys_free(struct check_keys *k)
{
	free(k->v);
	k->v = NULL;
	k->n = 0;
}

struct check_dir *check_find_dir(struct check_ctx *c, ext2_ino_t ino)
{
	size_t i = util_find_key(UTIL_SORTED(c->dirs, c->ndirs, ino), ino);

	return i < c->ndirs ? &c->dirs[i] : NULL;
}

int check_inode_kind(uint16_t mode)
{
	switch (mode & 0170000) {
	case 0100000: return KIND_REG;
	case 0040000: return KIND_DIR;
	case 0020000: return KIND_CHR;
	case 0060000: return KIND_BLK;
	case 0010000: return KIND_FIFO;
	case 0140000: return KIND_SOCK;
	case 0120000: return KIND_LNK;
	default:      return KIND_BAD;
	}
}

const struct check_finding *check_result_halted(const struct check_result *r)
{
	size_t i;

	/*
	 * What the last check found and left: an earlier round's finding stays
	 * unfixed when a repair that restarts the check came first, and the
	 * next round finds it again. A finding of a round that was dropped
	 * stays unfixed, and stays found (that round is the last).
	 */
	for (i = 0; r && i < r->count; i++) {
		const struct check_problem_info *p = check_problem_info(r->findings[i].code);

		if (p && (p->flags & E4R_PF_HALTS) && !r->findings[i].fixed &&
		    r->findings[i].round + 1 >= r->rounds)
			return &r->findings[i];
	}
	return NULL;
}

void check_result_free(struct check_result *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->count; i++) {
		struct check_jcopy *j = r->findings[i].jcopy;

		free(r->findings[i].name);
		if (j) {
			free(j->data);
			free(j->inos);
			free(j);
		}
	}
	free(r->findings);
	free(r);
}
