/* Orphans the repairs mend (found wrong: check/orphan.c; released before the check: fsck/orphans_release.c). */
/*
 * Repairs of the orphan file (feature orphan_file): a block that lists
 * inodes or has a bad tail, an orphan file that is not one, and an orphan
 * file's inode left behind when the feature is off.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/ctx.h"
#include "fs/bitmaps.h"
#include "fs/inode.h"
#include "repair/repair.h"

#define ORPHAN_BLOCK_MAGIC	0x0b10ca04

/*
 * A block that is not clean is written empty with a valid tail, as e2fsck
 * clears it. The inodes it listed are not released here: the next round's
 * pass 1 finds them unlinked and deletes them, as it does when e2fsck
 * cannot trust the orphans of a filesystem with errors.
 */
errcode_t repair_orphan_block(struct check_ctx *c, const struct check_finding *f)
{
	ext2_filsys fs = c->fs;
	struct ext4_orphan_block_tail *tail;
	struct ext2_inode in;
	char *buf;
	errcode_t err;

	if (f->ino == E4R_NONE || f->ino != fs->super->s_orphan_file_inum ||
	    f->blk == E4R_NONE || check_out_of_fs(fs, f->blk, 1))
		return EINVAL;
	buf = calloc(1, fs->blocksize);
	if (!buf)
		return ENOMEM;
	tail = ext2fs_orphan_block_tail(fs, buf);
	tail->ob_magic = ext2fs_cpu_to_le32(ORPHAN_BLOCK_MAGIC);
	/*
	 * The checksum covers the inode's generation: computed here, since
	 * libext2fs 1.47.0's ext2fs_orphan_file_block_csum_set returns before
	 * it stores the value.
	 */
	err = fs_read_inode(fs, (ext2_ino_t)f->ino, &in);
	if (!err && ext2fs_has_feature_metadata_csum(fs->super))
		tail->ob_checksum = ext2fs_cpu_to_le32(
			ext2fs_do_orphan_file_block_csum(fs, (ext2_ino_t)f->ino, in.i_generation,
							 f->blk, buf));
	if (!err)
		err = io_channel_write_blk64(fs->io, f->blk, 1, buf);
	free(buf);
	return err;
}

/*
 * Without the orphan_file feature, the inode the superblock still names
 * must not hold anything: e2fsck clears it. The inode is released like any
 * cleared inode (the next round's bitmap rebuild frees its blocks), and
 * the superblock stops naming it. A reserved inode is kept: without the
 * feature the number names no orphan file, while the inode may hold
 * another role's data (e2fsck 1.47 clears the resize inode this way and
 * its next run finds it invalid); the number alone goes.
 */
errcode_t repair_orphan_file_remove(struct check_ctx *c, const struct check_finding *f)
{
	ext2_filsys fs = c->fs;
	errcode_t err;

	if (ext2fs_has_feature_orphan_file(fs->super) || f->ino == E4R_NONE ||
	    f->ino != fs->super->s_orphan_file_inum)
		return EINVAL;
	if (f->ino >= c->first_ino) {
		err = repair_inode_clear(c, (ext2_ino_t)f->ino);
		if (err)
			return err;
	}
	fs->super->s_orphan_file_inum = 0;
	ext2fs_mark_super_dirty(fs);
	return 0;
}

/*
 * An orphan file that cannot be read, is not a regular file or has a hole
 * is made again, as e2fsck does: its blocks are freed and a new file of
 * the default size is written, every block empty with a valid tail. This
 * allocates, so it runs after the bitmaps are rebuilt.
 */
errcode_t repair_orphan_file_recreate(struct check_ctx *c, const struct check_finding *f)
{
	ext2_filsys fs = c->fs;
	ext2_ino_t ino = fs->super->s_orphan_file_inum;
	struct ext2_inode in;
	errcode_t err;

	(void)f;
	if (!ext2fs_has_feature_orphan_file(fs->super))
		return EINVAL;
	if (!fs->block_map || !fs->inode_map) {
		err = fs_read_bitmaps(fs);
		if (err)
			return err;
	}
	/* An inode number out of range, or a reserved one, is not reused: a new inode is taken. */
	if (ino && (ino < c->first_ino || ino > c->inodes || fs_read_inode(fs, ino, &in)))
		ino = 0;
	if (ino) {
		if (in.i_links_count) {
			/* libext2fs frees the blocks of a file with a size: whatever the mode, these go */
			if (!EXT2_I_SIZE(&in) && (in.i_blocks || in.i_block[0]))
				ext2fs_inode_size_set(fs, &in, fs->blocksize);
			in.i_mode = LINUX_S_IFREG | 0600;
		} else {
			/*
			 * Cleared earlier in this round (pass 1 judged it): its blocks
			 * are already free in the rebuilt bitmap, so they are not
			 * freed twice; the inode only needs to be in use again.
			 */
			memset(&in, 0, sizeof(in));
			if (!ext2fs_test_inode_bitmap2(fs->inode_map, ino))
				ext2fs_inode_alloc_stats2(fs, ino, +1, 0);
		}
		err = ext2fs_write_inode(fs, ino, &in);
		if (err)
			return err;
	}
	fs->super->s_orphan_file_inum = ino;
	err = ext2fs_create_orphan_file(fs, (blk_t)ext2fs_default_orphan_file_blocks(fs));
	if (err)
		return err;
	ext2fs_mark_super_dirty(fs);
	return 0;
}
