/* Workloads for the writer: scripts (DESIGN.md's format) and seeded random operations. */
#ifndef E4R_WORKLOAD_H
#define E4R_WORKLOAD_H

#include <stdint.h>
#include <stdio.h>
#include "write/fsops.h"

enum write_op_kind {
	E4R_OP_MKDIR, E4R_OP_CREATE, E4R_OP_APPEND, E4R_OP_UNLINK, E4R_OP_RMDIR,
	E4R_OP_RENAME, E4R_OP_LINK, E4R_OP_SYMLINK, E4R_OP_TRUNCATE, E4R_OP_COMMIT, E4R_OP_CRASH,
};

struct write_op {
	enum write_op_kind kind;
	char		*a, *b;		/* paths (symlink: a = target, b = path) */
	uint64_t	size;
	unsigned	line;		/* script line, 0 for generated ops */
};

struct write_workload {
	struct write_op	*ops;
	unsigned	n, cap;
};

/* Append OP (its strings now belong to the list). */
errcode_t write_workload_add(struct write_workload *wl, const struct write_op *op);
/* Parse a script; *bad_line is set to the offending line on E4R_WRITE_SCRIPT. */
errcode_t write_workload_parse(FILE *in, struct write_workload *wl, unsigned *bad_line);
/*
 * N random operations from SEED, always valid on a fresh filesystem, with a
 * commit every few operations. With IALLOC_BUG every transaction starts by
 * creating a file in the root directory, so the allocation meets the
 * previous transaction's inode bitmap while it is being committed.
 */
errcode_t write_workload_random(unsigned n, unsigned seed, int ialloc_bug, struct write_workload *wl);
void write_workload_print(FILE *out, const struct write_workload *wl);
void write_workload_free(struct write_workload *wl);

/* The result of a run. */
struct write_run {
	unsigned	done;		/* operations performed */
	unsigned	failed_op;	/* index of the op that failed (valid when the run returns an error) */
	int		crashed;	/* a crash line, or the block layer's power cut */
	int		in_flight_end;	/* stop with the log un-checkpointed (ialloc-3.4) */
};

/*
 * Perform the operations. A `commit` starts a commit whose log blocks are
 * written once the next operation ran (the commit thread overlaps it); a
 * `crash` stops at once. Without a crash the session ends cleanly
 * (checkpoint, empty journal), unless run->in_flight_end asks to leave the
 * last commits in the log as a power cut right after them would.
 */
errcode_t write_workload_run(struct write_fs *f, const struct write_workload *wl, struct write_run *run);

#endif
