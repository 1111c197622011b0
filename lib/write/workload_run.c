/* Running an operation list against the filesystem, with commits overlapping the next operation. */
#include "config.h"

#include "util/e4r_err.h"
#include "write/workload.h"

static errcode_t run_op(struct write_fs *f, const struct write_op *op)
{
	switch (op->kind) {
	case E4R_OP_MKDIR:
		return write_op_mkdir(f, op->a, NULL);
	case E4R_OP_CREATE:
		return write_op_create(f, op->a, op->size, NULL);
	case E4R_OP_APPEND:
		return write_op_append(f, op->a, op->size);
	case E4R_OP_UNLINK:
		return write_op_unlink(f, op->a);
	case E4R_OP_RMDIR:
		return write_op_rmdir(f, op->a);
	case E4R_OP_RENAME:
		return write_op_rename(f, op->a, op->b);
	case E4R_OP_LINK:
		return write_op_link(f, op->a, op->b);
	case E4R_OP_SYMLINK:
		return write_op_symlink(f, op->a, op->b, NULL);
	case E4R_OP_TRUNCATE:
		return write_op_truncate(f, op->a, op->size);
	default:
		return 0;
	}
}

errcode_t write_workload_run(struct write_fs *f, const struct write_workload *wl, struct write_run *run)
{
	struct jbd_writer *w = f->w;
	errcode_t err = 0;
	unsigned i;

	for (i = 0; i < wl->n && !err; i++) {
		const struct write_op *op = &wl->ops[i];

		run->failed_op = i;
		if (op->kind == E4R_OP_COMMIT) {
			err = write_da_flush(f);		/* sync writes the dirty data back first */
			if (!err)
				err = jbd_writer_commit_start(w);	/* its log blocks go out after the next op */
			f->sync_committed = 1;
		} else if (op->kind == E4R_OP_CRASH) {
			err = jbd_writer_commit_finish(w);	/* already submitted: it reaches the disk */
			run->crashed = 1;
		} else {
			err = run_op(f, op);
			if (!err)
				err = jbd_writer_commit_finish(w);
			if (!err && jbd_writer_running_full(w)) {
				err = jbd_writer_commit_start(w);
				f->sync_committed = 0;	/* in the background: frees wait for it */
			}
		}
		if (!err)
			run->done++;
		if (w->bdev.crashed)
			run->crashed = 1;
		if (run->crashed)
			return err;
	}
	if (err)
		return err;
	err = write_da_flush(f);	/* the unmount writes back what is left */
	if (!err)
		err = jbd_writer_commit_finish(w);
	if (!err && run->in_flight_end)
		err = jbd_writer_commit_sync(w);
	if (w->bdev.crashed)
		run->crashed = 1;
	return err;
}
