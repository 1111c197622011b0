/*
 * Journal-assisted repair: write a damaged block's journal copy
 * home. The copies are restored before any other repair of the round, and
 * then the check starts over: every other finding of the round was made on
 * the damaged bytes, and the restored block may answer it.
 */
#include "config.h"

#include <errno.h>

#include "check/ctx.h"
#include "repair/repair.h"
#include "util/nomem.h"

errcode_t repair_journal_copy(struct check_ctx *c, const struct check_finding *f)
{
	const struct check_jcopy *j = f->jcopy;
	ext2_filsys fs = c->fs;
	unsigned isz = EXT2_INODE_SIZE(fs->super);
	ext2_ino_t first;
	errcode_t err;

	if (!j || !j->data || f->blk == E4R_NONE)
		return EINVAL;
	if (j->kind != E4R_JCOPY_INODES)
		return io_channel_write_blk64(fs->io, f->blk, 1, j->data);
	/*
	 * An inode table block: only the inodes brought back are written, one
	 * at a time (the others may be newer than the copy; the write guard
	 * allows one inode's change per write of an inode table block).
	 */
	if (f->group == E4R_NONE || f->group >= fs->group_desc_count)
		return EINVAL;
	first = (ext2_ino_t)f->group * fs->super->s_inodes_per_group +
		(ext2_ino_t)(f->blk - ext2fs_inode_table_loc(fs, (dgrp_t)f->group)) * (fs->blocksize / isz) + 1;
	for (unsigned k = 0; k < j->inodes; k++) {
		ext2_ino_t ino = j->inos[k];

		if (ino < first || ino >= first + fs->blocksize / isz)
			return EINVAL;
		err = ext2fs_write_inode_full(fs, ino, (struct ext2_inode *)(j->data + (ino - first) * isz), isz);
		if (err)
			return err;
	}
	return 0;
}

/* -y restores every copy; -p only those of the live log (what the kernel itself would write). */
static int restore_wanted(struct check_ctx *c, struct check_finding *f)
{
	const struct check_opts *o = c->opts;

	switch (o->repair) {
	case E4R_REPAIR_YES:
		return 1;
	case E4R_REPAIR_PREEN:
		return f->jcopy && f->jcopy->live;
	case E4R_REPAIR_ASK:
		return o->ask ? o->ask(o->ask_arg, f) : 0;
	default:
		return 0;
	}
}

errcode_t repair_journal_copies(struct check_ctx *c, size_t first, unsigned *fixed)
{
	struct check_result *r = c->res;
	unsigned flags = c->fs->flags;
	errcode_t err;

	for (size_t i = first; i < r->count; i++) {
		struct check_finding *f = &r->findings[i];

		if (f->code != E4R_PR_JOURNAL_COPY)
			continue;
		if (!restore_wanted(c, f)) {
			f->declined = 1;
			continue;
		}
		c->fs->flags |= EXT2_FLAG_IGNORE_CSUM_ERRORS;
		err = repair_journal_copy(c, f);
		c->fs->flags = (c->fs->flags & ~EXT2_FLAG_IGNORE_CSUM_ERRORS) |
			       (flags & EXT2_FLAG_IGNORE_CSUM_ERRORS);
		if (util_no_memory(err))
			return err;
		if (!err) {
			f->fixed = 1;
			(*fixed)++;
		}
	}
	if (*fixed)
		ext2fs_flush_icache(c->fs);
	return 0;
}
