/* A block-mapped file made an extent file: bigalloc filesystems allow no block maps. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/ctx.h"
#include "fs/inode.h"
#include "repair/repair.h"
#include "util/array.h"

/* The longest initialized extent. */
#define RUN_MAX	32768

/* The data blocks of a block map, as runs of consecutive logical and physical blocks. */
struct map_runs {
	struct ext2fs_extent	*run;
	size_t			n, cap;
	errcode_t		err;
};

static int collect_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		      blk64_t ref_blk, int ref_offset, void *priv)
{
	struct map_runs *m = priv;
	struct ext2fs_extent *last = m->n ? &m->run[m->n - 1] : NULL;

	(void)fs; (void)ref_blk; (void)ref_offset;
	/* the indirect blocks go with the map: the next check finds them unused */
	if (blockcnt < 0 || !*blocknr)
		return 0;
	if (last && last->e_lblk + last->e_len == (blk64_t)blockcnt &&
	    last->e_pblk + last->e_len == *blocknr && last->e_len < RUN_MAX) {
		last->e_len++;
		return 0;
	}
	if (util_grow_from((void **)&m->run, &m->cap, m->n + 1, sizeof(*m->run), 64)) {
		m->err = ENOMEM;
		return BLOCK_ABORT;
	}
	memset(&m->run[m->n], 0, sizeof(m->run[m->n]));
	m->run[m->n].e_lblk = (blk64_t)blockcnt;
	m->run[m->n].e_pblk = *blocknr;
	m->run[m->n].e_len = 1;
	m->n++;
	return 0;
}

errcode_t repair_to_extents(struct check_ctx *c, ext2_ino_t ino)
{
	ext2_filsys fs = c->fs;
	struct map_runs m = { 0 };
	struct ext2_inode in;
	ext2_extent_handle_t h = NULL;
	errcode_t err;
	size_t i;

	if (!ino || ino > c->inodes)
		return EINVAL;
	err = fs_read_inode(fs, ino, &in);
	if (err || (in.i_flags & (EXT4_EXTENTS_FL | EXT4_INLINE_DATA_FL)))
		return err;
	err = ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY, NULL, collect_cb, &m);
	if (!err)
		err = m.err;
	if (err)
		goto out;
	/* an empty i_block with the flag: libext2fs starts an empty tree in it */
	memset(in.i_block, 0, sizeof(in.i_block));
	in.i_flags |= EXT4_EXTENTS_FL;
	err = ext2fs_write_inode(fs, ino, &in);
	if (!err)
		err = ext2fs_extent_open(fs, ino, &h);
	for (i = 0; !err && i < m.n; i++) {
		err = ext2fs_extent_insert(h, i ? EXT2_EXTENT_INSERT_AFTER : 0, &m.run[i]);
		if (!err)
			err = ext2fs_extent_fix_parents(h);
	}
out:
	if (h)
		ext2fs_extent_free(h);
	free(m.run);
	return err;
}
