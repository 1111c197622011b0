/* Naming what a filesystem block is: layout metadata, or which inode owns it and how. */
#ifndef E4R_FS_DECODE_H
#define E4R_FS_DECODE_H

#include <ext2fs/ext2fs.h>

enum fs_block_kind {
	E4R_KIND_UNKNOWN = 0,	/* not metadata and no inode claims it (free, or not found) */
	E4R_KIND_SUPERBLOCK,	/* the primary superblock or a backup */
	E4R_KIND_GROUP_DESC,	/* group descriptors (or reserved GDT blocks) */
	E4R_KIND_BLOCK_BITMAP,
	E4R_KIND_INODE_BITMAP,
	E4R_KIND_INODE_TABLE,
	E4R_KIND_DIRECTORY,	/* a data block of a directory */
	E4R_KIND_EXTENT_TREE,	/* an extent index or leaf block */
	E4R_KIND_INDIRECT,	/* an indirect block of a block-mapped inode */
	E4R_KIND_XATTR,		/* an extended-attribute block */
	E4R_KIND_DATA,		/* a data block of a regular file, symlink, ... */
	E4R_KIND_OUTSIDE,	/* beyond the end of the filesystem */
};

/* What one block is. Fields that do not apply to the kind are 0. */
struct fs_block_info {
	enum fs_block_kind kind;
	dgrp_t		group;		/* owning group for superblock .. inode_table */
	int		backup;		/* superblock / group_desc: a backup copy */
	int		reserved;	/* group_desc: a reserved GDT block */
	ext2_ino_t	inode;		/* owner for directory .. data */
	blk64_t		lblk;		/* logical block in the owner (directory, data) */
	ext2_ino_t	ino_first;	/* inode_table: the inodes in this block */
	ext2_ino_t	ino_last;
	int		allocated;	/* the block bitmap's bit: 1, 0, or -1 unknown */
};

/*
 * A decoder for a set of blocks. Usage: fs_decode_new, fs_decode_want for
 * every block of interest, then fs_decode_lookup. The first lookup resolves
 * the whole set at once: the static layout comes from the group descriptors;
 * if some wanted block is not layout metadata, one pass over the in-use
 * inodes (inode scan, extent and block-map walks, with limits against loops
 * and garbage) finds their owners. Nothing is done unless someone asks.
 */
struct fs_decode;

errcode_t fs_decode_new(ext2_filsys fs, struct fs_decode **out);
void fs_decode_free(struct fs_decode *d);

/* Add BLK to the set to resolve (before the first lookup; later ones are resolved statically only). */
errcode_t fs_decode_want(struct fs_decode *d, blk64_t blk);

/* What BLK is. Errors only from reading the filesystem; a damaged inode is skipped, not fatal. */
errcode_t fs_decode_lookup(struct fs_decode *d, blk64_t blk, struct fs_block_info *info);

/* 1 when the inode pass stopped early (a read error or a safety limit): owners may be missing. */
int fs_decode_partial(const struct fs_decode *d);

/* The JSON/short name of a kind: "superblock", "inode_bitmap", ... */
const char *fs_block_kind_name(enum fs_block_kind kind);

/* The kind in words, in English ("inode bitmap"): for gettext in the front end. */
const char *fs_block_kind_text(enum fs_block_kind kind);

#endif
