/* The inodes a crash left half deleted or half truncated: finished before the check, as e2fsck does. */
#ifndef E4R_FSCK_ORPHANS_RELEASE_H
#define E4R_FSCK_ORPHANS_RELEASE_H

#include <stdint.h>
#include <ext2fs/ext2fs.h>

/* One inode released, for the front-end's "Clearing orphaned inode ..." lines. */
struct fsck_orphan {
	ext2_ino_t	ino;
	uint16_t	mode;
	uint32_t	uid, gid;
	uint64_t	size;
	int		truncated;	/* still linked: its blocks past i_size were freed */
};

struct fsck_orphans {
	struct fsck_orphan	*list;		/* every inode released, in the order done */
	unsigned		n, cap;
	/*
	 * The filesystem carries the error state: the list is forgotten and its
	 * inodes left to the full check, which that state calls for anyway.
	 */
	int			dropped;
	/*
	 * A link out of the inode range, a loop, an inode or block already free,
	 * an orphan file block that fails its checksum: nothing was released,
	 * the filesystem is marked not valid, and the full check names it.
	 */
	int			failed;
	/* Quota usage changed and is left to the full check (marked not valid too). */
	int			quota;
	/* Anything was written (the list's head cleared, or an inode released). */
	int			changed;
};

/*
 * Release the orphans of FS (open read-write): the orphan file's entries
 * (feature orphan_file, when orphan_present is set) and the classic list
 * from s_last_orphan. An unlinked inode is deleted (its blocks and xattr
 * block freed, dtime set); a linked one is truncated to its size. Every
 * orphan is checked before the first is released: all or nothing. The
 * list's head and orphan_present are then cleared, the block and inode
 * counts having moved with the bitmaps, and all of it is flushed. Returns
 * an error only when FS cannot be read or written; *O says what was done.
 */
errcode_t fsck_orphans_release(ext2_filsys fs, struct fsck_orphans *o);
void fsck_orphans_free(struct fsck_orphans *o);

#endif
