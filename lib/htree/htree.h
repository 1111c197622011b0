/*
 * Hashed (htree) directories grown the way ext4 grows them: a one-block directory
 * that fills becomes an index, names go to the leaf their hash belongs to, full
 * leaves split by hash and full index blocks split or add a level. Over libext2fs:
 * blocks are read and written with ext2fs_read/write_dir_block4 and the directory's
 * inode with ext2fs_write_inode, so whatever io manager the filesystem was opened
 * with (the journal writer's) sees every change.
 */
#ifndef E4R_HTREE_H
#define E4R_HTREE_H

#include <ext2fs/ext2fs.h>

/*
 * What the directory's owner decides. dir_append (ext4_append): map one more
 * block at the end of directory DIR, whose inode is INODE (written back by htree
 * later), and grow its size by a block; *LBLK and *PBLK say where. Where the block
 * goes is the caller's allocator's choice (the writer's: the kernel's goal).
 */
struct htree_hooks {
	errcode_t	(*dir_append)(void *arg, ext2_ino_t dir, struct ext2_inode *inode,
				      blk64_t *lblk, blk64_t *pblk);
	void		*arg;
};

/*
 * A one-block directory DIR is full: make it an index (make_indexed_dir), then add
 * NAME (-> INO, of type FTYPE).
 */
errcode_t htree_make_indexed(ext2_filsys fs, const struct htree_hooks *hooks, ext2_ino_t dir,
			     const char *name, ext2_ino_t ino, int ftype);
/*
 * Add NAME to the indexed directory DIR, splitting the leaf it hashes to when full
 * (ext4_dx_add_entry). E4R_WRITE_DIR_INDEX_FULL when the index is as deep as the
 * filesystem allows and full on the way.
 */
errcode_t htree_add(ext2_filsys fs, const struct htree_hooks *hooks, ext2_ino_t dir,
		    const char *name, ext2_ino_t ino, int ftype);

#endif
