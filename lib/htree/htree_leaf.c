/*
 * An htree leaf the way ext4 fills and splits it: a name takes the first room in the
 * leaf (add_dirent_to_buf); a full leaf gives its upper half by hash to a new block at
 * the end of the directory (do_split), the names in hash order, packed.
 */
#include "config.h"

#include <string.h>

#include "util/e4r_err.h"
#include "htree/htree_int.h"

/* The part of an entry the kernel reads for the split: its hash, offset and record length. */
struct dx_map {
	uint32_t	hash;
	unsigned	offs;
	unsigned	size;
};

static unsigned rec_len_of(const struct htree_ctx *c, const unsigned char *p)
{
	unsigned len = 0;

	ext2fs_get_rec_len(c->fs, (struct ext2_dir_entry *)p, &len);
	return len;
}

static void set_rec_len(const struct htree_ctx *c, unsigned char *p, unsigned len)
{
	ext2fs_set_rec_len(c->fs, len, (struct ext2_dir_entry *)p);
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

/* dx_make_map: the live entries of a leaf, filled from the end as the kernel does. */
static unsigned make_map(const struct htree_ctx *c, const unsigned char *blk, struct dx_map *map, unsigned cap)
{
	unsigned off = 0, n = 0, top = c->bs - c->csum;

	while (off + 8 <= top) {
		unsigned len = rec_len_of(c, blk + off);

		if (len < 8 || off + len > c->bs)
			break;
		if (inode_of(blk + off) && name_len_of(blk + off) && n < cap) {
			map[cap - 1 - n].hash = htree_hash(c, (const char *)blk + off + 8, name_len_of(blk + off));
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
static void stretch_last(const struct htree_ctx *c, unsigned char *blk, unsigned last)
{
	set_rec_len(c, blk + last, c->bs - c->csum - last);
}

void htree_leaf_tail(const struct htree_ctx *c, unsigned char *blk)
{
	if (c->csum)
		ext2fs_initialize_dirent_tail(c->fs, (struct ext2_dir_entry_tail *)(blk + c->bs - c->csum));
}

/* dx_move_dirents: the entries MAP[0..n) go, in hash order, packed to the new leaf TO. */
static unsigned move_dirents(const struct htree_ctx *c, unsigned char *from, unsigned char *to,
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
static unsigned pack_dirents(const struct htree_ctx *c, unsigned char *blk)
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

errcode_t htree_leaf_add(const struct htree_ctx *c, unsigned char *blk, const char *name,
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
			ext2fs_dirent_set_file_type(d, ext2fs_has_feature_filetype(c->fs->super) ? ftype : 0);
			memcpy(d->name, name, nlen);
			return 0;
		}
		off += len;
	}
	return EXT2_ET_DIR_NO_SPACE;
}

errcode_t htree_leaf_split(struct htree_ctx *c, const char *name, ext2_ino_t ino, int ftype,
			   uint32_t *hash2, blk64_t *lblk2, blk64_t *pblk2)
{
	unsigned cap = c->bs / 12 + 1, count, size = 0, move = 0, split, last1, last2;
	uint32_t hash = htree_hash(c, name, strlen(name));
	struct dx_map *map;
	int i, continued;
	errcode_t err;

	err = htree_dir_append(c, lblk2, pblk2);
	if (err)
		return err;
	err = ext2fs_get_array(cap, sizeof(*map), &map);
	if (err)
		return err;
	count = make_map(c, c->leaf, map, cap);
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
	*hash2 = map[split].hash;
	continued = *hash2 == map[split - 1].hash;
	memset(c->leaf2, 0, c->bs);
	last2 = move_dirents(c, c->leaf, c->leaf2, map + split, count - split);
	last1 = pack_dirents(c, c->leaf);
	ext2fs_free_mem(&map);
	stretch_last(c, c->leaf, last1);
	stretch_last(c, c->leaf2, last2);
	htree_leaf_tail(c, c->leaf);
	htree_leaf_tail(c, c->leaf2);
	err = htree_leaf_add(c, hash >= *hash2 ? c->leaf2 : c->leaf, name, ino, ftype);
	*hash2 += continued;
	return err;
}
