/* The repairs: check/ finds, repair/ mends (each function mends one kind of finding). */
#ifndef E4R_REPAIR_H
#define E4R_REPAIR_H

#include "check/ctx.h"

/*
 * The repairs. repair_round decides
 * for the findings from index FIRST on (this round's) and makes the repairs,
 * counting them in *FIXED; repair_finish marks a repaired filesystem
 * valid as e2fsck does at its end.
 */
errcode_t repair_round(struct check_ctx *c, size_t first, unsigned *fixed);
void repair_finish(ext2_filsys fs, struct e4r_check_result *r);

/* One repair each; 0 when done, else why not (the finding stays unfixed). */
errcode_t repair_inode(struct check_ctx *c, const struct e4r_finding *f);
errcode_t repair_inode_clear(struct check_ctx *c, ext2_ino_t ino);
errcode_t repair_block_map(struct check_ctx *c, const struct e4r_finding *f);
errcode_t repair_extent_csum(struct check_ctx *c, const struct e4r_finding *f);
errcode_t repair_dir_entry(struct check_ctx *c, const struct e4r_finding *f);
errcode_t repair_dir_block(struct check_ctx *c, const struct e4r_finding *f);
errcode_t repair_dot(struct check_ctx *c, const struct e4r_finding *f);
errcode_t repair_dotdot(struct check_ctx *c, ext2_ino_t dir, ext2_ino_t parent);
errcode_t repair_reconnect(struct check_ctx *c, ext2_ino_t ino, int is_dir);
errcode_t repair_dir_hole(struct check_ctx *c, ext2_ino_t dir, uint64_t lblk);
errcode_t repair_htree_flag(struct check_ctx *c, ext2_ino_t dir);
errcode_t repair_journal_clear(struct check_ctx *c);
errcode_t repair_root(struct check_ctx *c);
errcode_t repair_dir_uninit(struct check_ctx *c, ext2_ino_t ino);
errcode_t repair_bad_blocks_inode(struct check_ctx *c);
errcode_t repair_resize_inode_off(struct check_ctx *c);
errcode_t repair_summaries(struct check_ctx *c);
errcode_t repair_dups(struct check_ctx *c, const struct e4r_finding *f, size_t n,
		   unsigned *cloned);

#endif
