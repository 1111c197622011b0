/* File operations the way ext4 performs them, logged through the journal writer. */
#ifndef E4R_FSOPS_H
#define E4R_FSOPS_H

#include <stdint.h>
#include <ext2fs/ext2fs.h>
#include "write/alloc.h"
#include "write/journal.h"

/* A file block written but not yet given a place (delayed allocation). */
struct e4r_da_block {
	ext2_ino_t	ino;
	blk64_t		lblk;
	unsigned char	*data;
};

struct e4r_fs {
	struct jbd_writer *w;
	ext2_filsys	fs;
	struct e4r_alloc alloc;
	unsigned char	*blockbuf;
	struct e4r_da_block *da;	/* in the order they were dirtied */
	unsigned	nda, capda;
};

errcode_t write_fs_init(struct e4r_fs *f, struct jbd_writer *w);
void write_fs_free(struct e4r_fs *f);

/* The deterministic content of byte OFFSET of a file created or appended to as PATH. */
unsigned char write_content_byte(const char *path, uint64_t offset);
void write_content_fill(const char *path, uint64_t offset, unsigned char *buf, size_t len);

/* Paths are absolute, from the root directory. Errors: E4R_WRITE_*, EXT2_ET_*. */
errcode_t write_op_mkdir(struct e4r_fs *f, const char *path, ext2_ino_t *ino);
errcode_t write_op_create(struct e4r_fs *f, const char *path, uint64_t size, ext2_ino_t *ino);
errcode_t write_op_append(struct e4r_fs *f, const char *path, uint64_t size);
errcode_t write_op_truncate(struct e4r_fs *f, const char *path, uint64_t size);
errcode_t write_op_unlink(struct e4r_fs *f, const char *path);
errcode_t write_op_rmdir(struct e4r_fs *f, const char *path);
errcode_t write_op_rename(struct e4r_fs *f, const char *from, const char *to);
errcode_t write_op_link(struct e4r_fs *f, const char *from, const char *to);
errcode_t write_op_symlink(struct e4r_fs *f, const char *target, const char *path, ext2_ino_t *ino);

/* Delayed allocation (e4r_delalloc.c). */
unsigned char *write_da_lookup(struct e4r_fs *f, ext2_ino_t ino, blk64_t lblk);
errcode_t write_da_add(struct e4r_fs *f, ext2_ino_t ino, blk64_t lblk, const unsigned char *data);
void write_da_drop(struct e4r_fs *f, ext2_ino_t ino, blk64_t from);
/* Writeback before a commit: allocate and write every dirty block, oldest inode first. */
errcode_t write_da_flush(struct e4r_fs *f);
void write_da_free(struct e4r_fs *f);

#endif
