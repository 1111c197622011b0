/*
 * Hashed (htree) directories, shared by the files that grow them: htree.c (adding a
 * name: the walk from the root to a leaf and what follows), htree_leaf.c (a leaf: adding
 * to it and splitting it by hash) and htree_index.c (the index above the leaves: finding
 * the path, inserting an entry, splitting a full index block, adding a level).
 */
#ifndef E4R_HTREE_INT_H
#define E4R_HTREE_INT_H

#include <ext2fs/ext2fs.h>
#include "htree/htree.h"

/* ext4's deepest index: the root and two levels of index nodes under it (large_dir). */
#define HTREE_MAX_LEVELS	3

/* One index block on the path from the root to a leaf (the kernel's dx_frame). */
struct htree_frame {
	unsigned char	*buf;
	blk64_t		pblk;
	unsigned	cl;		/* offset of its count/limit header (its first entry) */
	unsigned	at;		/* the entry the path follows */
};

struct htree_ctx {
	ext2_filsys	fs;
	const struct htree_hooks *hooks;
	ext2_ino_t	dir;
	struct ext2_inode inode;
	unsigned	bs;
	unsigned	csum;		/* bytes of the leaf tail (metadata_csum) */
	int		hash_version;	/* with the unsigned variant folded in */
	unsigned	levels;		/* index blocks on the path: indirect_levels + 1 */
	struct htree_frame frame[HTREE_MAX_LEVELS];
	unsigned char	*leaf, *leaf2, *spare;
	blk64_t		leaf_pblk;
};

static inline uint32_t htree_hash(const struct htree_ctx *c, const char *name, unsigned len)
{
	ext2_dirhash_t hash = 0, minor = 0;

	if (ext2fs_dirhash2(c->hash_version, name, len, NULL, 0, c->fs->super->s_hash_seed, &hash, &minor))
		return 0;
	return hash;
}

static inline struct ext2_dx_countlimit *htree_cl(const struct htree_frame *fr)
{
	return (struct ext2_dx_countlimit *)(fr->buf + fr->cl);
}

static inline struct ext2_dx_entry *htree_entries(const struct htree_frame *fr)
{
	return (struct ext2_dx_entry *)(fr->buf + fr->cl);
}

static inline unsigned htree_count(const struct htree_frame *fr)
{
	return ext2fs_le16_to_cpu(htree_cl(fr)->count);
}

static inline unsigned htree_limit(const struct htree_frame *fr)
{
	return ext2fs_le16_to_cpu(htree_cl(fr)->limit);
}

/* One more block at the end of the directory (c->inode grows), where the caller's hook puts it. */
static inline errcode_t htree_dir_append(struct htree_ctx *c, blk64_t *lblk, blk64_t *pblk)
{
	return c->hooks->dir_append(c->hooks->arg, c->dir, &c->inode, lblk, pblk);
}

/* htree_leaf.c */
/*
 * add_dirent_to_buf: the first entry of leaf BLK with room for NAME takes it; 0 when it
 * went in, EXT2_ET_DIR_NO_SPACE when the leaf is full (BLK is then unchanged).
 */
errcode_t htree_leaf_add(const struct htree_ctx *c, unsigned char *blk, const char *name,
			 ext2_ino_t ino, int ftype);
/*
 * do_split: the full leaf c->leaf goes half (by hash and size) to c->leaf2, a new block
 * at the end of the directory (*LBLK2, *PBLK2); *HASH2 is the index entry's hash for it
 * (the continuation bit set when a hash straddles the two). Then NAME goes to the half
 * its hash belongs to. Writes nothing.
 */
errcode_t htree_leaf_split(struct htree_ctx *c, const char *name, ext2_ino_t ino, int ftype,
			   uint32_t *hash2, blk64_t *lblk2, blk64_t *pblk2);
/* A new leaf's checksum tail (metadata_csum), at its end. */
void htree_leaf_tail(const struct htree_ctx *c, unsigned char *blk);

/* htree_index.c */
/* dx_root_limit / dx_node_limit: index entries a root / node holds. */
unsigned htree_root_limit(const struct htree_ctx *c, unsigned info_length);
unsigned htree_node_limit(const struct htree_ctx *c);
/*
 * dx_probe: read the index from the root (already in frame[0].buf) down, following
 * HASH, and the leaf it leads to into c->leaf. Refuses an index it cannot follow.
 */
errcode_t htree_probe(struct htree_ctx *c, uint32_t hash);
/* dx_insert_block: a new entry (HASH -> LBLK) after the followed entry of index block FR. */
void htree_insert(struct htree_frame *fr, uint32_t hash, uint32_t lblk);
/*
 * ext4_dx_add_entry when the leaf's index block is full: the nearest block above it
 * with room takes a new entry for the upper half of the full block below it (split),
 * or, when every index block up to the root is full, the root's entries move to a new
 * node and the tree is one level deeper. Writes the blocks it changed; the caller
 * probes again. E4R_WRITE_DIR_INDEX_FULL when the tree is as deep as the filesystem
 * allows (2 levels of index, 3 with large_dir).
 */
errcode_t htree_grow_index(struct htree_ctx *c);
/* Write index block FR (its dx checksum, with metadata_csum, on the way). */
errcode_t htree_write_frame(const struct htree_ctx *c, const struct htree_frame *fr);

#endif
