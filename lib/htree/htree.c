/*
 * Adding a name to a hashed (htree) directory the way ext4 does: a one-block directory
 * that runs out of room becomes an index (make_indexed_dir); an indexed one follows the
 * index from the root to the leaf the name's hash belongs to (dx_probe) and adds it
 * there; a full leaf splits by hash (do_split), and when the index block above it is
 * full the index grows first (ext4_dx_add_entry), a level deeper when the root is full.
 * The layout follows the kernel's so that the blocks a directory takes, the order they
 * are taken in and the order of the names in each leaf are the kernel's.
 */
#include "config.h"

#include <string.h>

#include "util/e4r_err.h"
#include "htree/htree_int.h"

static errcode_t ctx_init(struct htree_ctx *c, ext2_filsys fs, const struct htree_hooks *hooks,
			  ext2_ino_t dir)
{
	unsigned char *mem;
	errcode_t err;

	memset(c, 0, sizeof(*c));
	c->fs = fs;
	c->hooks = hooks;
	c->dir = dir;
	c->bs = fs->blocksize;
	c->csum = ext2fs_has_feature_metadata_csum(fs->super) ? sizeof(struct ext2_dir_entry_tail) : 0;
	err = ext2fs_read_inode(fs, dir, &c->inode);
	if (!err)
		err = ext2fs_get_memzero((HTREE_MAX_LEVELS + 3) * c->bs, &mem);
	if (err)
		return err;
	for (unsigned i = 0; i < HTREE_MAX_LEVELS; i++)
		c->frame[i].buf = mem + i * c->bs;
	c->leaf = mem + HTREE_MAX_LEVELS * c->bs;
	c->leaf2 = c->leaf + c->bs;
	c->spare = c->leaf2 + c->bs;
	err = ext2fs_bmap2(fs, dir, &c->inode, NULL, 0, 0, NULL, &c->frame[0].pblk);
	if (!err && !c->frame[0].pblk)
		err = EXT2_ET_DIR_CORRUPTED;
	if (!err)
		err = ext2fs_read_dir_block4(fs, c->frame[0].pblk, c->frame[0].buf, 0, dir);
	return err;
}

static void ctx_free(struct htree_ctx *c)
{
	ext2fs_free_mem(&c->frame[0].buf);
}

static void ctx_hash_version(struct htree_ctx *c, int version)
{
	c->hash_version = version;
	if (version <= EXT2_HASH_TEA && (c->fs->super->s_flags & EXT2_FLAGS_UNSIGNED_HASH))
		c->hash_version += 3;
}

/*
 * The leaf c->leaf (under the index block followed last) is full: split it, index the
 * new leaf, and write both leaves, the index block and the directory's inode.
 */
static errcode_t split_leaf(struct htree_ctx *c, const char *name, ext2_ino_t ino, int ftype)
{
	struct htree_frame *parent = &c->frame[c->levels - 1];
	uint32_t hash2;
	blk64_t lblk2, pblk2;
	errcode_t err = htree_leaf_split(c, name, ino, ftype, &hash2, &lblk2, &pblk2);

	if (err)
		return err;
	htree_insert(parent, hash2, (uint32_t)lblk2);
	err = ext2fs_write_dir_block4(c->fs, c->leaf_pblk, c->leaf, 0, c->dir);
	if (!err)
		err = ext2fs_write_dir_block4(c->fs, pblk2, c->leaf2, 0, c->dir);
	if (!err)
		err = htree_write_frame(c, parent);
	if (!err)
		err = ext2fs_write_inode(c->fs, c->dir, &c->inode);
	return err;
}

errcode_t htree_make_indexed(ext2_filsys fs, const struct htree_hooks *hooks, ext2_ino_t dir,
			     const char *name, ext2_ino_t ino, int ftype)
{
	struct ext2_dx_root_info *info;
	struct ext2_dx_countlimit *cl;
	struct htree_ctx c;
	unsigned char *root;
	unsigned first, len;
	blk64_t lblk1;
	errcode_t err = ctx_init(&c, fs, hooks, dir);

	if (err)
		goto out;
	root = c.frame[0].buf;
	if (ext2fs_le16_to_cpu(((struct ext2_dir_entry *)root)->rec_len) != 12 ||
	    ext2fs_dirent_name_len((struct ext2_dir_entry *)(root + 12)) != 2) {
		err = EXT2_ET_DIR_CORRUPTED;
		goto out;
	}
	/* the entries after ".." move to a new block 1, as they lie */
	ext2fs_get_rec_len(fs, (struct ext2_dir_entry *)(root + 12), &len);
	first = 12 + len;
	if (first >= c.bs - c.csum) {
		err = EXT2_ET_DIR_CORRUPTED;
		goto out;
	}
	err = htree_dir_append(&c, &lblk1, &c.leaf_pblk);
	if (err)
		goto out;
	len = c.bs - c.csum - first;
	memcpy(c.leaf, root + first, len);
	/*
	 * The last entry is stretched over the room the root's "." and ".." took (the
	 * split that follows counts each entry's record length, this one's slack too).
	 */
	for (unsigned off = 0, rec;; off += rec) {
		ext2fs_get_rec_len(fs, (struct ext2_dir_entry *)(c.leaf + off), &rec);
		if (rec < 12 || off + rec >= len) {
			ext2fs_set_rec_len(fs, c.bs - c.csum - off, (struct ext2_dir_entry *)(c.leaf + off));
			break;
		}
	}
	htree_leaf_tail(&c, c.leaf);
	/* block 0 becomes the root: ".." spans the block, the index follows */
	ext2fs_set_rec_len(fs, c.bs - 12, (struct ext2_dir_entry *)(root + 12));
	info = (struct ext2_dx_root_info *)(root + 24);
	memset(info, 0, sizeof(*info));
	info->info_length = sizeof(*info);
	info->hash_version = fs->super->s_def_hash_version;
	c.frame[0].cl = 24 + sizeof(*info);
	cl = htree_cl(&c.frame[0]);
	cl->limit = ext2fs_cpu_to_le16(htree_root_limit(&c, sizeof(*info)));
	cl->count = ext2fs_cpu_to_le16(1);
	htree_entries(&c.frame[0])[0].block = ext2fs_cpu_to_le32((uint32_t)lblk1);
	c.frame[0].at = 0;
	c.levels = 1;
	c.inode.i_flags |= EXT2_INDEX_FL;
	ctx_hash_version(&c, info->hash_version);
	err = split_leaf(&c, name, ino, ftype);
out:
	ctx_free(&c);
	return err;
}

errcode_t htree_add(ext2_filsys fs, const struct htree_hooks *hooks, ext2_ino_t dir,
		    const char *name, ext2_ino_t ino, int ftype)
{
	struct htree_ctx c;
	uint32_t hash;
	errcode_t err = ctx_init(&c, fs, hooks, dir);

	if (err)
		goto out;
	ctx_hash_version(&c, ((struct ext2_dx_root_info *)(c.frame[0].buf + 24))->hash_version);
	hash = htree_hash(&c, name, strlen(name));
	/* each growth of the index is followed by a new walk from the root, as in the kernel */
	for (;;) {
		struct htree_frame *parent;

		err = htree_probe(&c, hash);
		if (err)
			goto out;
		err = htree_leaf_add(&c, c.leaf, name, ino, ftype);
		if (!err) {
			err = ext2fs_write_dir_block4(fs, c.leaf_pblk, c.leaf, 0, dir);
			goto out;
		}
		if (err != EXT2_ET_DIR_NO_SPACE)
			goto out;
		parent = &c.frame[c.levels - 1];
		if (htree_count(parent) < htree_limit(parent))
			break;
		err = htree_grow_index(&c);
		if (!err)
			err = ext2fs_write_inode(fs, dir, &c.inode);
		if (err)
			goto out;
	}
	err = split_leaf(&c, name, ino, ftype);
out:
	ctx_free(&c);
	return err;
}
