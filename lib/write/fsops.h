/* File operations the way ext4 performs them, logged through the journal writer. */
#ifndef E4R_FSOPS_H
#define E4R_FSOPS_H

#include <stdint.h>
#include <ext2fs/ext2fs.h>
#include "alloc/alloc.h"
#include "jbd/writer.h"

/* A file block written but not yet given a place (delayed allocation). */
struct write_da_block {
	ext2_ino_t	ino;
	blk64_t		lblk;
	unsigned char	*data;
};

struct write_fs {
	struct jbd_writer *w;
	ext2_filsys	fs;
	struct alloc_ctx alloc;
	unsigned char	*blockbuf;
	struct write_da_block *da;	/* in the order they were dirtied */
	unsigned	nda, capda;
	/*
	 * The files written to since the last writeback, first written first: the order
	 * the commit writes them back in, whether the first write needed new blocks or
	 * went to blocks the file already had.
	 */
	ext2_ino_t	*dirty_ino;
	unsigned	ndirty, capdirty;
	/*
	 * While a file's new extent goes in, the goal of an extent tree block it may
	 * need (ext4_ext_find_goal for the new extent: where the extent before it would
	 * have continued to); 0 leaves libext2fs's.
	 */
	blk64_t		meta_goal;
	/*
	 * The committing transaction was started by a sync (the script's commit),
	 * which returns once it is on disk: its freed blocks are back in the buddy.
	 */
	int		sync_committed;
	int		bug_ialloc34;	/* 3.4 order: bitmap bit set before journal write access */
	unsigned long	leaks;		/* bits that leaked into a committing transaction */
};

errcode_t write_fs_init(struct write_fs *f, struct jbd_writer *w);
void write_fs_free(struct write_fs *f);

/* The deterministic content of byte OFFSET of a file created or appended to as PATH. */
unsigned char write_content_byte(const char *path, uint64_t offset);
void write_content_fill(const char *path, uint64_t offset, unsigned char *buf, size_t len);

/* Paths are absolute, from the root directory. Errors: E4R_WRITE_*, EXT2_ET_*. */
errcode_t write_op_mkdir(struct write_fs *f, const char *path, ext2_ino_t *ino);
errcode_t write_op_create(struct write_fs *f, const char *path, uint64_t size, ext2_ino_t *ino);
errcode_t write_op_append(struct write_fs *f, const char *path, uint64_t size);
errcode_t write_op_truncate(struct write_fs *f, const char *path, uint64_t size);
errcode_t write_op_unlink(struct write_fs *f, const char *path);
errcode_t write_op_rmdir(struct write_fs *f, const char *path);
errcode_t write_op_rename(struct write_fs *f, const char *from, const char *to);
errcode_t write_op_link(struct write_fs *f, const char *from, const char *to);
errcode_t write_op_symlink(struct write_fs *f, const char *target, const char *path, ext2_ino_t *ino);

/*
 * Map logical block LBLK of INO (INODE, written back by the caller) to a new block
 * from the kernel's goal: the block after the previous logical block's, else the
 * inode's group (blockmap.c).
 */
errcode_t write_map_new_block(struct write_fs *f, ext2_ino_t ino, struct ext2_inode *inode,
			      blk64_t lblk, int is_reg, blk64_t *pblk);
/*
 * ext4_append: one more block at the end of directory DIR (INODE, written back by the
 * caller), from the kernel's goal; *LBLK and *PBLK say where.
 */
errcode_t write_dir_append(struct write_fs *f, ext2_ino_t dir, struct ext2_inode *inode,
			   blk64_t *lblk, blk64_t *pblk);

/* Directory names on fs/dirwalk.h (dirwalk.c). */
/* ext2fs_namei from the root for an absolute PATH. */
errcode_t write_namei(ext2_filsys fs, const char *path, ext2_ino_t *ino);
/* ext2fs_link into a directory that is not indexed (EXT2_ET_DIR_NO_SPACE: no room). */
errcode_t write_link_linear(ext2_filsys fs, ext2_ino_t dir, const char *name, ext2_ino_t ino, int ftype);

/* Delayed allocation (delalloc.c). */
unsigned char *write_da_lookup(struct write_fs *f, ext2_ino_t ino, blk64_t lblk);
errcode_t write_da_add(struct write_fs *f, ext2_ino_t ino, blk64_t lblk, const unsigned char *data);
void write_da_drop(struct write_fs *f, ext2_ino_t ino, blk64_t from);
/* INO was written to: it takes its place in the writeback order unless it has one. */
errcode_t write_da_dirtied(struct write_fs *f, ext2_ino_t ino);
/* INO is freed: it leaves the writeback order (a new file of that number comes last). */
void write_da_forget(struct write_fs *f, ext2_ino_t ino);
/* Writeback before a commit: allocate and write every dirty block, oldest inode first. */
errcode_t write_da_flush(struct write_fs *f);
/* Whether INO has dirty blocks waiting for writeback (i_reserved_data_blocks). */
int write_da_has(struct write_fs *f, ext2_ino_t ino);
void write_da_free(struct write_fs *f);

#endif
