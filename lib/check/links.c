/*
 * Checker passes 3 and 4: every directory reaches the root; every inode's link count.
 *
 * Fills in nothing for later passes: reads c->dirs and c->nlink.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/bitcursor.h"
#include "check/ctx.h"
#include "fs/inode.h"
#include "util/nomem.h"

#define LPF_NAME	"lost+found"

enum { REACH_UNKNOWN = 0, REACH_WALKING, REACH_ROOT, REACH_NONE };

static void check_root(struct check_ctx *c)
{
	struct check_dir *root = check_find_dir(c, EXT2_ROOT_INO);

	if (!ext2fs_test_inode_bitmap2(c->inode_used, EXT2_ROOT_INO) || !root) {
		check_report_ino(c, E4R_PR_NO_ROOT, EXT2_ROOT_INO, E4R_NONE, E4R_NONE, E4R_NONE);
		return;
	}
	root->parent = EXT2_ROOT_INO;
	if (root->dotdot && root->dotdot != EXT2_ROOT_INO)
		check_report_ino(c, E4R_PR_BAD_DOTDOT, EXT2_ROOT_INO, E4R_NONE, EXT2_ROOT_INO,
				 root->dotdot);
}

/*
 * Follow parents from directory I until a directory whose fate is known;
 * then every directory on the way shares it. Only the top of an
 * unconnected chain is reported (connecting it would connect the rest).
 */
static void walk_up(struct check_ctx *c, uint8_t *state, size_t i)
{
	size_t cur = i, steps = 0;
	int fate = REACH_NONE;
	ext2_ino_t top = c->dirs[i].ino;
	int loop = 0;

	while (steps++ <= c->ndirs) {
		struct check_dir *d = &c->dirs[cur], *p;

		if (state[cur] == REACH_ROOT || state[cur] == REACH_NONE) {
			fate = state[cur];
			break;
		}
		if (state[cur] == REACH_WALKING) {
			loop = 1;
			top = d->ino;
			break;
		}
		state[cur] = REACH_WALKING;
		top = d->ino;
		if (d->ino == EXT2_ROOT_INO) {
			fate = REACH_ROOT;
			break;
		}
		p = d->parent ? check_find_dir(c, d->parent) : NULL;
		if (!p)
			break;
		cur = (size_t)(p - c->dirs);
	}
	if (fate == REACH_NONE && !loop) {
		struct check_dir *t = check_find_dir(c, top);
		if (t && state[t - c->dirs] == REACH_WALKING)
			check_report_ino(c, E4R_PR_UNCONNECTED_DIR, top, E4R_NONE, E4R_NONE, t->dotdot);
	} else if (loop) {
		check_report_ino(c, E4R_PR_DIR_LOOP, top, E4R_NONE, E4R_NONE, E4R_NONE);
		fate = REACH_NONE;
	}
	/* Settle the chain walked from I. */
	cur = i;
	steps = 0;
	while (state[cur] == REACH_WALKING && steps++ <= c->ndirs) {
		struct check_dir *p = c->dirs[cur].parent ? check_find_dir(c, c->dirs[cur].parent) : NULL;
		state[cur] = fate;
		if (!p || c->dirs[cur].ino == EXT2_ROOT_INO)
			break;
		cur = (size_t)(p - c->dirs);
	}
}

static void check_lost_found(struct check_ctx *c)
{
	ext2_ino_t ino = 0;
	errcode_t err;

	if (!check_find_dir(c, EXT2_ROOT_INO) ||
	    ext2fs_test_inode_bitmap2(c->inode_bad, EXT2_ROOT_INO))
		return;
	/*
	 * An entry naming an inode not in use goes with this round's repairs
	 * (pass 2 found it): when repairing, lost+found is missing as well, and
	 * made again as e2fsck does once its pass 2 has cleared the entry.
	 */
	err = ext2fs_lookup(c->fs, EXT2_ROOT_INO, LPF_NAME, strlen(LPF_NAME), NULL, &ino);
	/*
	 * libext2fs 1.47.0's block iterator drops a failure to open the
	 * directory's extent handle (out of memory) and walks nothing: the
	 * lookup then says "not found", not "no memory". "Not found" is believed
	 * when a second lookup agrees; a lack of memory that lasts fails the
	 * repair that would make lost+found, and that ends the run.
	 */
	if (err == EXT2_ET_FILE_NOT_FOUND || (!err && !ino))
		err = ext2fs_lookup(c->fs, EXT2_ROOT_INO, LPF_NAME, strlen(LPF_NAME), NULL, &ino);
	/* a lookup that ran out of memory says nothing of lost+found: no new one is made for it */
	if (util_no_memory(err)) {
		check_fatal(c, err);
		return;
	}
	if (err || !ino ||
	    (c->opts && c->opts->repair != E4R_REPAIR_NONE &&
	     (ino > c->inodes || !ext2fs_test_inode_bitmap2(c->inode_used, ino)))) {
		if (!c->lpf_no_space)
			check_report_ino(c, E4R_PR_NO_LPF, E4R_NONE, E4R_NONE, E4R_NONE, E4R_NONE);
		return;
	}
	/* one in the bad blocks list's inode table blocks has no kind: its entry is pass 2's finding */
	if (ino <= c->inodes && ext2fs_test_inode_bitmap2(c->inode_used, ino) && c->kind[ino] != KIND_DIR &&
	    c->kind[ino] != KIND_NONE)
		check_report_ino(c, E4R_PR_LPF_NOT_DIR, ino, E4R_NONE, E4R_NONE, E4R_NONE);
}

errcode_t check_connectivity(struct check_ctx *c)
{
	uint8_t *state = calloc(c->ndirs ? c->ndirs : 1, 1);
	size_t i;

	if (!state)
		return ENOMEM;
	check_progress(c, E4R_PASS_CONNECT, 0, c->ndirs);
	check_root(c);
	for (i = 0; i < c->ndirs; i++) {
		if (state[i] == REACH_UNKNOWN)
			walk_up(c, state, i);
		if (state[i] == REACH_ROOT && c->dirs[i].ino != EXT2_ROOT_INO &&
		    c->dirs[i].dotdot != c->dirs[i].parent &&
		    !ext2fs_test_inode_bitmap2(c->inode_bad, c->dirs[i].ino))
			check_report_ino(c, E4R_PR_BAD_DOTDOT, c->dirs[i].ino, E4R_NONE,
					 c->dirs[i].parent, c->dirs[i].dotdot);
		check_progress(c, E4R_PASS_CONNECT, i + 1, c->ndirs);	/* per directory, as e2fsck's */
	}
	check_lost_found(c);
	check_progress(c, E4R_PASS_CONNECT, c->ndirs, c->ndirs);
	free(state);
	return 0;
}

/*
 * An unattached inode that holds nothing worth keeping, which e2fsck offers
 * to clear rather than reconnect: a regular file or directory with no blocks
 * and no extended attributes in the inode (inline data lives there). Devices,
 * FIFOs, sockets and symlinks have no blocks by nature: they go to lost+found.
 */
static int zero_length(struct check_ctx *c, ext2_ino_t ino)
{
	unsigned size = EXT2_INODE_SIZE(c->fs->super);
	/* the whole on-disk inode: the in-inode xattr area lies past struct ext2_inode_large */
	struct ext2_inode_large *in = calloc(1, size > sizeof(*in) ? size : sizeof(*in));
	int zero = 0;

	if (!in || fs_read_inode_full(c->fs, ino, (struct ext2_inode *)in, size))
		goto out;
	if (!LINUX_S_ISREG(in->i_mode) && !LINUX_S_ISDIR(in->i_mode))
		goto out;
	if (ext2fs_inode_i_blocks(c->fs, (struct ext2_inode *)in))
		goto out;
	zero = 1;
	if (size > EXT2_GOOD_OLD_INODE_SIZE && in->i_extra_isize >= sizeof(in->i_extra_isize) &&
	    EXT2_GOOD_OLD_INODE_SIZE + in->i_extra_isize + sizeof(uint32_t) <= size) {
		uint32_t magic;

		memcpy(&magic, (char *)in + EXT2_GOOD_OLD_INODE_SIZE + in->i_extra_isize,
		       sizeof(magic));
		if (magic == EXT2_EXT_ATTR_MAGIC)
			zero = 0;
	}
out:
	free(in);
	return zero;
}

/*
 * An indexed directory whose count once passed the link limit keeps 1 (the
 * kernel's "too many"): e2fsck puts the real count back when it may write,
 * and does not call it an error.
 */
static int htree_count_dropped(struct check_ctx *c, ext2_ino_t ino, uint64_t found)
{
	struct ext2_inode in;

	if (c->kind[ino] != KIND_DIR || check_nlink_disk(c, ino) != 1 || found <= 1 ||
	    fs_read_inode(c->fs, ino, &in))
		return 0;
	return (in.i_flags & EXT2_INDEX_FL) != 0;
}

errcode_t check_links(struct check_ctx *c)
{
	ext2_ino_t ino;
	uint32_t ipg = c->fs->super->s_inodes_per_group;
	dgrp_t groups = c->fs->group_desc_count;
	struct check_bit_cursor bad, ea;

	check_cursor_init(&bad, c->inode_bad, c->inodes);
	check_cursor_init(&ea, c->inode_ea, c->inodes);
	check_progress(c, E4R_PASS_LINKS, 0, groups);
	for (ino = EXT2_ROOT_INO; ino <= c->inodes; ino++) {
		uint64_t found;

		/*
		 * per group, as e2fsck's pass 4: INO starts a group, the ones before
		 * are done (never past the total: a bad inode count may claim more)
		 */
		if (ipg && (ino - 1) % ipg == 0 && (ino - 1) / ipg <= groups)
			check_progress(c, E4R_PASS_LINKS, (ino - 1) / ipg, groups);

		if (ino < c->first_ino && ino != EXT2_ROOT_INO)
			continue;
		/* Hidden inodes past the reserved ones: no entry names them, by design. */
		if (check_is_quota_ino(c, ino) || ino == c->fs->super->s_orphan_file_inum)
			continue;
		if (!c->kind[ino] || c->kind[ino] == KIND_BAD ||
		    check_cursor_test(&bad, ino) || check_cursor_test(&ea, ino))
			continue;
		found = check_nlink_found(c, ino);
		if (found == 0) {
			check_report_ino(c, zero_length(c, ino) ? E4R_PR_UNATTACHED_ZERO :
					 E4R_PR_UNATTACHED, ino, E4R_NONE, E4R_NONE, E4R_NONE);
			continue;
		}
		if (c->kind[ino] == KIND_DIR && found > EXT2_LINK_MAX) {
			/* too many to count: the kernel stores 1, which needs the dir_nlink feature */
			if (!c->dir_nlink)
				check_report_ino(c, E4R_PR_DIR_NLINK_FEATURE, ino, E4R_NONE, EXT2_LINK_MAX, found);
			found = 1;
		}
		if (found != check_nlink_disk(c, ino) && !htree_count_dropped(c, ino, found))
			check_report_ino(c, E4R_PR_LINK_COUNT, ino, E4R_NONE, found,
					 check_nlink_disk(c, ino));
	}
	check_progress(c, E4R_PASS_LINKS, groups, groups);
	return 0;
}
