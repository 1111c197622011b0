/*
 * Pass 1's walk over the inode tables: the inodes libext2fs's inode scan
 * returns, in its order, with its errors and its per-group callback, but
 * read ahead by a second thread (fs/readahead.h) and handed out in place
 * (no copy per inode) where that gives the same answers. libext2fs's scan
 * does the work where it would not: a bad blocks list, a channel other than
 * the plain read-only one, inodes smaller than struct ext2_inode_large, and
 * from the first inode table read that fails on (so its errors and the
 * channel's notes are libext2fs's own).
 */
#ifndef E4R_CHECK_ISCAN_H
#define E4R_CHECK_ISCAN_H

#include <ext2fs/ext2fs.h>

struct check_iscan;

typedef errcode_t (*check_iscan_group_fn)(ext2_filsys fs, ext2_inode_scan scan, dgrp_t group,
					  void *arg);

/*
 * Open a walk over FS's inodes. DONE (may be NULL) is called with ARG after
 * each group, as ext2fs_set_inode_callback's. SLOW: libext2fs's scan only.
 */
errcode_t check_iscan_open(ext2_filsys fs, int slow, check_iscan_group_fn done, void *arg,
			   struct check_iscan **out);

/*
 * As ext2fs_get_next_inode_full: the next inode's number in *INO (0 at the
 * end; left as it was on an error) and in *INODE the inode, EXT2_INODE_SIZE
 * bytes the caller may change until the next call. *CSUM: what
 * check_inode_csum_ok says of it as read (the reader computed it), or -1
 * when the caller must ask. *GARBAGE: 1 when the inode's table block is
 * garbage as libext2fs's scan judges it for e2fsck (EXT2_ET_INODE_IS_GARBAGE,
 * which is not returned as an error here).
 */
errcode_t check_iscan_next(struct check_iscan *s, ext2_ino_t *ino, struct ext2_inode_large **inode,
			   int *csum, int *garbage);

/* 1 when the walk read ahead so far (no libext2fs scan involved yet). */
int check_iscan_fast(const struct check_iscan *s);

void check_iscan_close(struct check_iscan *s);

#endif
