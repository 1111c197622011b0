/*
 * Hashed (htree) directories the way ext4 grows them: a one-block directory that runs
 * out of room becomes an index (make_indexed_dir), and a full leaf splits by hash
 * (do_split). The layout follows the kernel's so that the blocks a directory takes, the
 * order they are taken in and the order of the names in each leaf are the kernel's.
 * One index level: a root that is full is reported, not deepened.
 */
#include "config.h"

#include <string.h>

#include "util/e4r_err.h"
#include "write/fsops.h"

/* The part of an entry the kernel reads for the split: its hash, offset and record length. */
struct dx_map {
	uint32_t	hash;
	unsigned	offs;
	unsigned	size;
};

struct dx_ctx {
	struct write_fs	*f;
	ext2_ino_t	dir;
	struct ext2_inode inode;
	unsigned	bs;
	unsigned	csum;		/* bytes of the leaf tail (metadata_csum) */
	int		hash_version;	/* with the unsigned variant folded in */
	unsigned char	*root, *b1, *b2;
	blk64_t		root_pblk;
};

static unsigned rec_len_of(const struct dx_ctx *c, const unsigned char *p)
{
	unsigned len = 0;

	ext2fs_get_rec_len(c->f->fs, (struct ext2_dir_entry *)p, &len);
	return len;
}

static void set_rec_len(const struct dx_ctx *c, unsigned char *p, unsigned len)
{
	ext2fs_set_rec_len(c->f->fs, len, (struct ext2_dir_entry *)p);
}

static unsigned name_len_of(const unsigned char *p)
{
	return ext2fs_dirent_name_len((const struct ext2_dir_entry *)p);
}

static ext2_ino_t inode_of(const unsigned char *p)
{
	return ext2fs_le32_to_cpu(((const struct ext2_dir_entry *)p)->inode);
}

/* The space an entry with a name of LEN bytes needs (EXT4_DIR_REC_LEN). */
static unsigned needed(unsigned len)
{
	return (8 + len + 3) & ~3U;
}

static uint32_t name_hash(const struct dx_ctx *c, const char *name, unsigned len)
{
	ext2_dirhash_t hash = 0, minor = 0;

	if (ext2fs_dirhash2(c->hash_version, name, len, NULL, 0, c->f->fs->super->s_hash_seed, &hash, &minor))
		return 0;
	return hash;
}

/* The root's count/limit header and entries: after ".", "..", and the 8-byte root info. */
static struct ext2_dx_countlimit *root_cl(const struct dx_ctx *c)
{
	return (struct ext2_dx_countlimit *)(c->root + 24 + 8);
}

static struct ext2_dx_entry *root_entries(const struct dx_ctx *c)
{
	return (struct ext2_dx_entry *)root_cl(c);
}

/* dx_root_limit: what fits after the root's header, less the dx tail with metadata_csum. */
static unsigned root_limit(const struct dx_ctx *c)
{
	unsigned space = c->bs - 12 - 12 - 8;

	if (ext2fs_has_feature_metadata_csum(c->f->fs->super))
		space -= sizeof(struct ext2_dx_tail);
	return space / sizeof(struct ext2_dx_entry);
}

/* dx_make_map: the live entries of a leaf, filled from the end as the kernel does. */
static unsigned make_map(const struct dx_ctx *c, const unsigned char *blk, struct dx_map *map, unsigned cap)
{
	unsigned off = 0, n = 0, top = c->bs - c->csum;

	while (off + 8 <= top) {
		unsigned len = rec_len_of(c, blk + off);

		if (len < 8 || off + len > c->bs)
			break;
		if (inode_of(blk + off) && name_len_of(blk + off) && n < cap) {
			map[cap - 1 - n].hash = name_hash(c, (const char *)blk + off + 8, name_len_of(blk + off));
			map[cap - 1 - n].offs = off;
			map[cap - 1 - n].size = len;
			n++;
		}
		off += len;
	}
	memmove(map, map + cap - n, n * sizeof(*map));
	return n;
}

/* dx_sort_map: a comb sort from the top down, then bubble passes, on the hash alone. */
static void comb_sort(struct dx_map *map, unsigned n)
{
	unsigned gap = n;
	int more;

	while (gap > 2) {
		gap = gap * 10 / 13;
		if (gap == 9 || gap == 10)
			gap = 11;
		for (unsigned p = n; p-- > gap;)
			if (map[p].hash < map[p - gap].hash) {
				struct dx_map t = map[p];

				map[p] = map[p - gap];
				map[p - gap] = t;
			}
	}
	do {
		more = 0;
		for (unsigned i = n; i-- > 1;)
			if (map[i].hash < map[i - 1].hash) {
				struct dx_map t = map[i];

				map[i] = map[i - 1];
				map[i - 1] = t;
				more = 1;
			}
	} while (more);
}

/* The last entry of a packed run that ends at TOP gets the rest of the leaf. */
static void stretch_last(const struct dx_ctx *c, unsigned char *blk, unsigned last)
{
	set_rec_len(c, blk + last, c->bs - c->csum - last);
}

static void init_tail(const struct dx_ctx *c, unsigned char *blk)
{
	if (c->csum)
		ext2fs_initialize_dirent_tail(c->f->fs, (struct ext2_dir_entry_tail *)(blk + c->bs - c->csum));
}

/* dx_move_dirents: the entries MAP[0..n) go, in hash order, packed to the new leaf TO. */
static unsigned move_dirents(const struct dx_ctx *c, unsigned char *from, unsigned char *to,
			     const struct dx_map *map, unsigned n)
{
	unsigned off = 0, last = 0;

	for (unsigned i = 0; i < n; i++) {
		unsigned char *de = from + map[i].offs;
		unsigned len = needed(name_len_of(de));

		memcpy(to + off, de, len);
		set_rec_len(c, to + off, len);
		/* the moved entry is wiped in the old leaf, all but its record length */
		memset(de, 0, 4);
		memset(de + 6, 0, map[i].size - 6);
		last = off;
		off += len;
	}
	return last;
}

/* dx_pack_dirents: the live entries left in BLK close up at its start, in place. */
static unsigned pack_dirents(const struct dx_ctx *c, unsigned char *blk)
{
	unsigned off = 0, to = 0, prev = 0;

	while (off < c->bs) {
		unsigned len = rec_len_of(c, blk + off);

		if (len < 8)
			break;
		if (inode_of(blk + off) && name_len_of(blk + off)) {
			unsigned need = needed(name_len_of(blk + off));

			if (off > to)
				memmove(blk + to, blk + off, need);
			set_rec_len(c, blk + to, need);
			prev = to;
			to += need;
		}
		off += len;
	}
	return prev;
}

/* dx_insert_block: a new index entry (HASH -> LBLK) after entry AT of the root. */
static void insert_index(const struct dx_ctx *c, unsigned at, uint32_t hash, uint32_t lblk)
{
	struct ext2_dx_countlimit *cl = root_cl(c);
	struct ext2_dx_entry *e = root_entries(c);
	unsigned count = ext2fs_le16_to_cpu(cl->count);

	memmove(e + at + 2, e + at + 1, (count - at - 1) * sizeof(*e));
	e[at + 1].hash = ext2fs_cpu_to_le32(hash);
	e[at + 1].block = ext2fs_cpu_to_le32(lblk);
	cl->count = ext2fs_cpu_to_le16(count + 1);
}

/*
 * add_dirent_to_buf: the first entry with room for NAME (its own slack, or a free
 * entry) takes it; 0 when it went in, EXT2_ET_DIR_NO_SPACE when the leaf is full.
 */
static errcode_t add_to_leaf(const struct dx_ctx *c, unsigned char *blk, const char *name,
			     ext2_ino_t ino, int ftype)
{
	unsigned nlen = strlen(name), reclen = needed(nlen), off = 0, top = c->bs - c->csum;

	while (off + 8 <= top) {
		unsigned len = rec_len_of(c, blk + off), used;
		unsigned char *de = blk + off;

		if (len < 8 || off + len > top)
			return EXT2_ET_DIR_CORRUPTED;
		used = inode_of(de) ? needed(name_len_of(de)) : 0;
		if (len - used >= reclen) {
			struct ext2_dir_entry *d;

			if (used) {
				set_rec_len(c, de, used);
				de += used;
				set_rec_len(c, de, len - used);
			}
			d = (struct ext2_dir_entry *)de;
			d->inode = ext2fs_cpu_to_le32(ino);
			ext2fs_dirent_set_name_len(d, nlen);
			ext2fs_dirent_set_file_type(d, ext2fs_has_feature_filetype(c->f->fs->super) ? ftype : 0);
			memcpy(d->name, name, nlen);
			return 0;
		}
		off += len;
	}
	return EXT2_ET_DIR_NO_SPACE;
}

static errcode_t ctx_init(struct dx_ctx *c, struct write_fs *f, ext2_ino_t dir)
{
	ext2_filsys fs = f->fs;
	errcode_t err;

	memset(c, 0, sizeof(*c));
	c->f = f;
	c->dir = dir;
	c->bs = fs->blocksize;
	c->csum = ext2fs_has_feature_metadata_csum(fs->super) ? sizeof(struct ext2_dir_entry_tail) : 0;
	err = ext2fs_read_inode(fs, dir, &c->inode);
	if (!err)
		err = ext2fs_get_memzero(3 * c->bs, &c->root);
	if (err)
		return err;
	c->b1 = c->root + c->bs;
	c->b2 = c->b1 + c->bs;
	return ext2fs_bmap2(fs, dir, &c->inode, NULL, 0, 0, NULL, &c->root_pblk);
}

static void ctx_hash_version(struct dx_ctx *c, int version)
{
	c->hash_version = version;
	if (version <= EXT2_HASH_TEA && (c->f->fs->super->s_flags & EXT2_FLAGS_UNSIGNED_HASH))
		c->hash_version += 3;
}

/*
 * do_split: leaf B1 (logical block L1, index entry AT) is full. A new leaf at the end
 * of the directory takes the upper half by hash, the root gets its entry, and NAME goes
 * to whichever half its hash belongs to. Writes both leaves; the caller writes the root.
 */
static errcode_t split_and_add(struct dx_ctx *c, blk64_t pblk1, unsigned at, const char *name,
			       ext2_ino_t ino, int ftype)
{
	unsigned cap = c->bs / 12 + 1, count, size = 0, move = 0, split, last1, last2;
	uint32_t hash = name_hash(c, name, strlen(name)), hash2;
	struct dx_map *map;
	blk64_t lblk2, pblk2;
	int i, continued;
	errcode_t err;

	if (ext2fs_le16_to_cpu(root_cl(c)->count) >= ext2fs_le16_to_cpu(root_cl(c)->limit))
		return E4R_WRITE_NO_SPACE;	/* a second index level is not made */
	err = write_dir_append(c->f, c->dir, &c->inode, &lblk2, &pblk2);
	if (err)
		return err;
	err = ext2fs_get_array(cap, sizeof(*map), &map);
	if (err)
		return err;
	count = make_map(c, c->b1, map, cap);
	comb_sort(map, count);
	if (count < 2) {
		ext2fs_free_mem(&map);
		return EXT2_ET_DIR_CORRUPTED;
	}
	/* split in the middle by size: what more than half of lies in the upper half moves */
	for (i = (int)count - 1; i >= 0; i--) {
		if (size + map[i].size / 2 > c->bs / 2)
			break;
		size += map[i].size;
		move++;
	}
	split = i > 0 ? count - move : count / 2;
	hash2 = map[split].hash;
	continued = hash2 == map[split - 1].hash;
	memset(c->b2, 0, c->bs);
	last2 = move_dirents(c, c->b1, c->b2, map + split, count - split);
	last1 = pack_dirents(c, c->b1);
	ext2fs_free_mem(&map);
	stretch_last(c, c->b1, last1);
	stretch_last(c, c->b2, last2);
	init_tail(c, c->b1);
	init_tail(c, c->b2);
	insert_index(c, at, hash2 + continued, (uint32_t)lblk2);
	err = add_to_leaf(c, hash >= hash2 ? c->b2 : c->b1, name, ino, ftype);
	if (!err)
		err = ext2fs_write_dir_block4(c->f->fs, pblk1, c->b1, 0, c->dir);
	if (!err)
		err = ext2fs_write_dir_block4(c->f->fs, pblk2, c->b2, 0, c->dir);
	return err;
}

static errcode_t write_root(struct dx_ctx *c)
{
	errcode_t err = ext2fs_write_dir_block4(c->f->fs, c->root_pblk, c->root, 0, c->dir);

	if (!err)
		err = ext2fs_write_inode(c->f->fs, c->dir, &c->inode);
	return err;
}

errcode_t write_dx_make_indexed(struct write_fs *f, ext2_ino_t dir, const char *name, ext2_ino_t ino, int ftype)
{
	ext2_filsys fs = f->fs;
	struct ext2_dx_root_info *info;
	struct ext2_dx_countlimit *cl;
	struct dx_ctx c;
	unsigned dotdot, first, len;
	blk64_t lblk1, pblk1;
	errcode_t err = ctx_init(&c, f, dir);

	if (!err)
		err = ext2fs_read_dir_block4(fs, c.root_pblk, c.root, 0, dir);
	if (err)
		goto out;
	dotdot = rec_len_of(&c, c.root);
	if (dotdot != 12 || name_len_of(c.root + 12) != 2) {
		err = EXT2_ET_DIR_CORRUPTED;
		goto out;
	}
	/* the entries after ".." move to a new block 1, as they lie */
	first = 12 + rec_len_of(&c, c.root + 12);
	if (first >= c.bs - c.csum) {
		err = EXT2_ET_DIR_CORRUPTED;
		goto out;
	}
	err = write_dir_append(f, dir, &c.inode, &lblk1, &pblk1);
	if (err)
		goto out;
	len = c.bs - c.csum - first;
	memcpy(c.b1, c.root + first, len);
	init_tail(&c, c.b1);
	/* block 0 becomes the root: ".." spans the block, the index follows */
	set_rec_len(&c, c.root + 12, c.bs - 12);
	info = (struct ext2_dx_root_info *)(c.root + 24);
	memset(info, 0, sizeof(*info));
	info->info_length = sizeof(*info);
	info->hash_version = fs->super->s_def_hash_version;
	cl = root_cl(&c);
	cl->limit = ext2fs_cpu_to_le16(root_limit(&c));
	cl->count = ext2fs_cpu_to_le16(1);
	root_entries(&c)[0].block = ext2fs_cpu_to_le32((uint32_t)lblk1);
	c.inode.i_flags |= EXT2_INDEX_FL;
	ctx_hash_version(&c, info->hash_version);
	err = split_and_add(&c, pblk1, 0, name, ino, ftype);
	if (!err)
		err = write_root(&c);
out:
	ext2fs_free_mem(&c.root);
	return err;
}

errcode_t write_dx_add(struct write_fs *f, ext2_ino_t dir, const char *name, ext2_ino_t ino, int ftype)
{
	ext2_filsys fs = f->fs;
	struct ext2_dx_root_info *info;
	struct ext2_dx_entry *e;
	struct dx_ctx c;
	unsigned count, lo, hi, at;
	uint32_t hash;
	blk64_t pblk;
	errcode_t err = ctx_init(&c, f, dir);

	if (!err)
		err = ext2fs_read_dir_block4(fs, c.root_pblk, c.root, 0, dir);
	if (err)
		goto out;
	info = (struct ext2_dx_root_info *)(c.root + 24);
	if (info->indirect_levels || info->info_length != 8) {
		err = E4R_WRITE_NO_SPACE;	/* deeper trees are not reproduced */
		goto out;
	}
	ctx_hash_version(&c, info->hash_version);
	hash = name_hash(&c, name, strlen(name));
	e = root_entries(&c);
	count = ext2fs_le16_to_cpu(root_cl(&c)->count);
	/* dx_probe: the last index entry whose hash is not above the name's */
	lo = 1;
	hi = count;
	while (lo < hi) {
		unsigned m = lo + (hi - lo) / 2;

		if (ext2fs_le32_to_cpu(e[m].hash) > hash)
			hi = m;
		else
			lo = m + 1;
	}
	at = lo - 1;
	err = ext2fs_bmap2(fs, dir, &c.inode, NULL, 0, ext2fs_le32_to_cpu(e[at].block) & EXT4_DX_BLOCK_MASK,
			   NULL, &pblk);
	if (!err && !pblk)
		err = EXT2_ET_DIR_CORRUPTED;
	if (!err)
		err = ext2fs_read_dir_block4(fs, pblk, c.b1, 0, dir);
	if (err)
		goto out;
	err = add_to_leaf(&c, c.b1, name, ino, ftype);
	if (!err) {
		err = ext2fs_write_dir_block4(fs, pblk, c.b1, 0, dir);
		goto out;
	}
	if (err != EXT2_ET_DIR_NO_SPACE)
		goto out;
	err = split_and_add(&c, pblk, at, name, ino, ftype);
	if (!err)
		err = write_root(&c);
out:
	ext2fs_free_mem(&c.root);
	return err;
}
