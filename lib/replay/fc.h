/* Replaying committed fast-commit tags into a filesystem through libext2fs, after the full-commit replay. */
#ifndef E4R_FC_REPLAY_H
#define E4R_FC_REPLAY_H

#include <ext2fs/ext2fs.h>
#include "jbd/fc.h"

struct replay_fc_result {
	unsigned	applied;	/* committed tags applied (HEAD, TAIL and PAD included) */
	unsigned	failed;		/* committed tags refused or failed; the rest still applied, as the kernel does */
	errcode_t	first_error;	/* the first failure, 0 if none */
	unsigned	first_error_tag;	/* its index in fc->tags */
	unsigned	inodes;		/* inodes touched, whose blocks and counts were recomputed */
};

/*
 * Apply FC's committed tags (tags[0 .. ncommitted)) to FS, opened read-write,
 * in order: INODE copies the logged inode (keeping the on-disk block map),
 * ADD_RANGE maps blocks, DEL_RANGE unmaps and frees them, CREAT/LINK add a
 * dentry (a new directory gets its "." and ".." block), UNLINK removes one
 * and frees an inode left with no link. Then every touched inode's i_blocks
 * and its blocks in the bitmap, a touched directory's link count (from its
 * subdirectories), the used-directories count of touched groups, and the
 * group and superblock counts are recomputed.
 * Blocks named by any committed ADD_RANGE are kept from the allocator while
 * replaying (the kernel's excluded regions). The error flag is set on disk
 * first and cleared at the end, as e2fsck does: fast-commit replay is not atomic.
 * A tag whose values are outside FS (reserved inodes, ranges over the
 * filesystem's own metadata) or whose operation fails is counted in RES and
 * skipped. Returns an error only when FS could not be updated at all
 * (bitmaps unreadable, superblock unwritable); nothing to do when
 * fc->stop_error is set (recovery fails) or no tag is committed.
 */
errcode_t replay_fc(ext2_filsys fs, const struct jbd_fc *fc, struct replay_fc_result *res);

#endif
