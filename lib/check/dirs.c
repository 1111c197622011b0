/*
 * Checker pass 2: every directory block: entries, lengths, names, types, '.', '..', checksums, htree.
 *
 * Fills in each directory's dotdot and parent (c->dirs) and the count of entries
 * naming each inode (c->nlink), for passes 3 and 4.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/ctx.h"
#include "check/csum.h"
#include "check/dirread.h"
#include "fs/dirent.h"
#include "fs/inode.h"
#include "fs/dirent_salvage.h"

#define DIRENT_HEADER		8	/* inode, rec_len, name_len, file_type */
#define INLINE_IBLOCK_SIZE	60	/* i_block: 4 bytes of parent, then entries */
#define INLINE_PARENT_SIZE	4
#define ENCRYPTED_NAME_MIN	16	/* an encrypted name is at least one cipher block */

/* A name met in the block being read. */
struct seen_name {
	const char	*name;
	unsigned	len;
};

/* What pass 2 knows about the directory whose blocks it is reading. */
/*
 * What pass 2 keeps from one directory block to the next: the duplicate
 * search's tables (a block's worth, allocated once, not per block) and, per
 * group, the index in its inode table from which inodes were never
 * initialized (0 for an INODE_UNINIT group), read once from the descriptors.
 */
struct dir_scratch {
	struct seen_name	*seen;
	size_t			seen_cap;
	uint32_t		*slots;
	uint32_t		slots_cap;
	uint32_t		*unused_from;	/* NULL: asked of the descriptors each time */
};

struct dir_walk {
	struct check_ctx	*c;
	struct dir_scratch	*scr;
	ext2_ino_t		ino;
	struct check_dir	*dir;
	uint32_t		flags;		/* the directory's i_flags */
	const struct ext2_inode	*inode;		/* the directory's inode as read */
	int			csum;		/* metadata_csum: blocks carry tails */
	struct check_htree_map	*ht;		/* the index of an htree directory, or NULL */
	blk64_t			blk;		/* the block being read, for findings */
	struct seen_name	*seen;		/* names of the block so far (duplicates) */
	size_t			nseen;
	uint32_t		*slots;		/* hash of SEEN's names: index + 1 (0: free) */
	uint32_t		nslots;		/* a power of two above twice the entries */
	uint32_t		lblk;
};

static const int kind_to_ft[] = {
	[KIND_NONE] = 0, [KIND_REG] = EXT2_FT_REG_FILE, [KIND_DIR] = EXT2_FT_DIR,
	[KIND_CHR] = EXT2_FT_CHRDEV, [KIND_BLK] = EXT2_FT_BLKDEV, [KIND_FIFO] = EXT2_FT_FIFO,
	[KIND_SOCK] = EXT2_FT_SOCK, [KIND_LNK] = EXT2_FT_SYMLINK, [KIND_BAD] = 0,
};

static void entry_problem(struct dir_walk *d, enum check_problem code, ext2_ino_t ino,
			  const char *name, int len, uint64_t expected, uint64_t found)
{
	struct check_finding f = check_finding_init(code);
	char buf[EXT2_NAME_LEN + 1];

	if (len < 0)
		len = 0;
	memcpy(buf, name, (size_t)len);
	buf[len] = '\0';
	f.dir = d->ino;
	f.ino = ino ? ino : E4R_NONE;
	f.blk = d->blk;
	f.name = buf;
	f.expected = expected;
	f.found = found;
	if (code == E4R_PR_ENTRY_UNINIT_INODE)
		f.group = ext2fs_group_of_ino(d->c->fs, ino);
	check_report(d->c, &f);
}

static void dir_problem(struct dir_walk *d, enum check_problem code, uint64_t expected, uint64_t found)
{
	struct check_finding f = check_finding_init(code);

	f.dir = d->ino;
	f.blk = d->blk;
	f.expected = expected;
	f.found = found;
	check_report(d->c, &f);
}

static int is_dot(const char *name, int len) { return len == 1 && name[0] == '.'; }
static int is_dotdot(const char *name, int len) { return len == 2 && name[0] == '.' && name[1] == '.'; }

/*
 * An inode the filesystem never initialized: past its group's used-inode
 * watermark. Judged without group checksums too, as e2fsck's pass 2 does:
 * there the scan reads every inode, and the descriptor still lies.
 */
static uint32_t unused_from(ext2_filsys fs, dgrp_t g)
{
	if (ext2fs_bg_flags_test(fs, g, EXT2_BG_INODE_UNINIT))
		return 0;
	/* a count past the group's inodes wraps, and then no inode is past the mark */
	return fs->super->s_inodes_per_group - ext2fs_bg_itable_unused(fs, g);
}

int check_ino_in_unused_area(ext2_filsys fs, ext2_ino_t ino)
{
	dgrp_t g = ext2fs_group_of_ino(fs, ino);

	return g < fs->group_desc_count && (ino - 1) % fs->super->s_inodes_per_group >= unused_from(fs, g);
}

static int in_unused_area(const struct dir_walk *d, ext2_ino_t ino)
{
	ext2_filsys fs = d->c->fs;
	dgrp_t g = ext2fs_group_of_ino(fs, ino);
	ext2_ino_t idx = (ino - 1) % fs->super->s_inodes_per_group;

	return idx >= (d->scr->unused_from && g < fs->group_desc_count ? d->scr->unused_from[g] :
		       unused_from(fs, g));
}

/* An inode number an entry may hold: the root's or one past the reserved ones. */
static int ino_in_range(const struct check_ctx *c, ext2_ino_t ino)
{
	struct ext2_super_block *sb = c->fs->super;

	/* nor one the superblock names for a quota or the orphan file, feature or not (e2fsck's rule) */
	if (ino && (ino == sb->s_usr_quota_inum || ino == sb->s_grp_quota_inum || ino == sb->s_prj_quota_inum ||
		    ino == sb->s_orphan_file_inum))
		return 0;
	return (ino >= c->first_ino || ino == EXT2_ROOT_INO) && ino <= c->inodes;
}

/* An inode whose inode table block is in the bad blocks list (the inode scan skipped it). */
static int in_bad_itable_block(ext2_filsys fs, ext2_ino_t ino)
{
	dgrp_t g = ext2fs_group_of_ino(fs, ino);
	uint64_t off = (uint64_t)((ino - 1) % fs->super->s_inodes_per_group) * EXT2_INODE_SIZE(fs->super);

	/* the list the inode scan read (libext2fs keeps it with the filesystem) */
	return fs->badblocks &&
	       ext2fs_badblocks_list_test(fs->badblocks, (blk_t)(ext2fs_inode_table_loc(fs, g) +
								 off / fs->blocksize));
}

/* An encrypted directory may hold only encrypted directories, files and symlinks. */
static void check_encrypted_target(struct dir_walk *d, ext2_ino_t ino, int kind, const char *name,
				   int len)
{
	struct ext2_inode in;

	if (kind != KIND_DIR && kind != KIND_REG && kind != KIND_LNK)
		return;
	if (!fs_read_inode(d->c->fs, ino, &in) && !(in.i_flags & EXT4_ENCRYPT_FL))
		entry_problem(d, E4R_PR_ENTRY_UNENCRYPTED, ino, name, len, E4R_NONE, E4R_NONE);
}

/*
 * The target of an entry: DOTS is 0 for an ordinary entry, 1 for '.' and
 * 2 for '..' in their places (their inode number, file type and the inode
 * they name are checked like any entry's; links, the root and a second
 * parent are the business of ordinary entries).
 */
static void check_entry_target(struct dir_walk *d, struct ext2_dir_entry *de, const char *name, int len,
			      int dots)
{
	struct check_ctx *c = d->c;
	ext2_ino_t ino = fs_dirent_inode(de);
	int ft = fs_dirent_file_type(de), kind, want;

	if (!ino_in_range(c, ino)) {
		entry_problem(d, E4R_PR_ENTRY_BAD_INODE, ino, name, len, E4R_NONE, E4R_NONE);
		return;
	}
	if (c->kind[ino] == KIND_NONE && in_bad_itable_block(c->fs, ino)) {
		entry_problem(d, E4R_PR_ENTRY_BB_INODE, ino, name, len, E4R_NONE, E4R_NONE);
		return;
	}
	if (ino == EXT2_ROOT_INO && !dots) {
		entry_problem(d, E4R_PR_ENTRY_ROOT, ino, name, len, E4R_NONE, E4R_NONE);
		return;
	}
	if (!ext2fs_test_inode_bitmap2(c->inode_used, ino)) {
		entry_problem(d, in_unused_area(d, ino) ? E4R_PR_ENTRY_UNINIT_INODE :
			      E4R_PR_ENTRY_UNUSED_INODE, ino, name, len, E4R_NONE, E4R_NONE);
		return;
	}
	/* an inode in use behind the mark (the scan read it: no group checksums) */
	if (in_unused_area(d, ino))
		entry_problem(d, E4R_PR_ENTRY_UNINIT_INODE, ino, name, len, E4R_NONE, E4R_NONE);
	kind = c->kind[ino];
	if (kind == KIND_BAD) {
		if (!dots)
			entry_problem(d, E4R_PR_ENTRY_BAD_TARGET, ino, name, len, E4R_NONE, E4R_NONE);
		return;
	}
	want = ext2fs_has_feature_filetype(c->fs->super) ? kind_to_ft[kind] : 0;
	/* e2fsck -n says nothing of a type left unset (it would set it): a warning */
	if (ft != want)
		entry_problem(d, ft || !want ? E4R_PR_ENTRY_FILETYPE : E4R_PR_ENTRY_FILETYPE_UNSET,
			      ino, name, len, (uint64_t)want, ft);
	if (dots)
		return;
	if (d->flags & EXT4_ENCRYPT_FL)
		check_encrypted_target(d, ino, kind, name, len);
	if (kind == KIND_DIR) {
		struct check_dir *sub = check_find_dir(c, ino);
		/*
		 * A link to the directory itself is one to its '.' (e2fsck's
		 * "link to '.'"), whichever directory the scan reaches first: read
		 * before the directory is found elsewhere, it would be taken for
		 * its parent, and the entry that is its one link judged a second.
		 */
		if (ino == d->ino) {
			entry_problem(d, E4R_PR_DIR_HARDLINK, ino, name, len, d->ino, E4R_NONE);
			return;
		}
		if (sub && sub->parent) {
			entry_problem(d, E4R_PR_DIR_HARDLINK, ino, name, len, sub->parent, E4R_NONE);
			return;
		}
		if (sub)
			sub->parent = d->ino;
	}
	check_nlink_add_found(c, ino);
	return;
}

#define BYTES_OF(b)	(0x0101010101010101ull * (uint8_t)(b))

/* Some byte of V is zero (a byte wrongly flagged lies above a zero one: whether any is, is exact). */
static int has_zero_byte(uint64_t v)
{
	return ((v - BYTES_OF(1)) & ~v & BYTES_OF(0x80)) != 0;
}

static int bad_name(const struct dir_walk *d, const char *name, int len)
{
	int i;

	if (len == 0)
		return 1;
	if (d->flags & EXT4_ENCRYPT_FL)
		return 0;
	/* eight bytes at a time: a zero byte, or one equal to '/' (zero after the xor) */
	for (i = 0; i + 8 <= len; i += 8) {
		uint64_t v;

		memcpy(&v, name + i, sizeof(v));
		if (has_zero_byte(v) || has_zero_byte(v ^ (BYTES_OF('/'))))
			return 1;
	}
	for (; i < len; i++)
		if (name[i] == '/' || name[i] == '\0')
			return 1;
	return 0;
}

/* Names in a casefolded directory must be valid in the filesystem's encoding, if it is strict. */
static int bad_encoding(const struct dir_walk *d, const char *name, int len)
{
	char *pos = NULL;
	ext2_filsys fs = d->c->fs;

	/* e2fsck -n lets invalid sequences be unless the encoding is strict */
	if (!(d->flags & EXT4_CASEFOLD_FL) || !fs->encoding || (d->flags & EXT4_ENCRYPT_FL) ||
	    !(fs->super->s_encoding_flags & EXT4_ENC_STRICT_MODE_FL))
		return 0;
	return ext2fs_check_encoded_name(fs->encoding, (char *)name, len, &pos) > 0;
}

/*
 * '.' and '..' must open block 0; N is the entry's index in the block.
 * Returns DOT_SLOT_OK for a right name (its target is checked as a dot
 * entry's), DOT_SLOT_RENAMED for an entry in use under another name, and 0
 * for an empty slot.
 */
enum { DOT_SLOT_EMPTY, DOT_SLOT_OK, DOT_SLOT_RENAMED };

static int check_dot_entries(struct dir_walk *d, struct ext2_dir_entry *de, const char *name,
			     int len, int n)
{
	/*
	 * A slot in use under another name is, as in e2fsck, the dot entry with
	 * a damaged name: the repair writes the name back over it (and the
	 * inode: the directory itself, or the parent), never removes it. So it
	 * is no ordinary entry (no link to the root or a second parent).
	 */
	int renamed = fs_dirent_inode(de) ? DOT_SLOT_RENAMED : DOT_SLOT_EMPTY;

	if (n == 0) {
		if (!is_dot(name, len)) {
			dir_problem(d, E4R_PR_NO_DOT, E4R_NONE, E4R_NONE);
			return renamed;
		}
		/* e2fsck reads the byte after the name (the padding: rec_len is at least 12) */
		if (name[1] != '\0')
			dir_problem(d, E4R_PR_DOT_NOT_TERMINATED, 0, (unsigned char)name[1]);
		if (fs_dirent_inode(de) != d->ino)
			dir_problem(d, E4R_PR_BAD_DOT, d->ino, fs_dirent_inode(de));
		return DOT_SLOT_OK;
	}
	if (!is_dotdot(name, len)) {
		dir_problem(d, E4R_PR_NO_DOTDOT, E4R_NONE, E4R_NONE);
		return renamed;
	}
	if (name[2] != '\0')
		dir_problem(d, E4R_PR_DOTDOT_NOT_TERMINATED, 0, (unsigned char)name[2]);
	if (d->dir)
		d->dir->dotdot = fs_dirent_inode(de);
	return DOT_SLOT_OK;
}

static void count_dotdot(struct check_ctx *c, ext2_ino_t ino)
{
	if (ino && ino <= c->inodes)
		check_nlink_add_found(c, ino);
}

/* A hash of a name for the duplicate search: eight bytes per multiply. */
static uint32_t name_hash(const char *name, unsigned len)
{
	uint64_t h = len * 0x9e3779b97f4a7c15ull, v;
	unsigned i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&v, name + i, sizeof(v));
		h = (h ^ v) * 0xff51afd7ed558ccdull;
	}
	if (i < len) {
		for (v = 0; i < len; i++)
			v = v << 8 | (unsigned char)name[i];
		h = (h ^ v) * 0xff51afd7ed558ccdull;
	}
	/*
	 * A product's low bits see only the factors' low bits (the names' first
	 * bytes, often alike): fold the high half down, then mix again.
	 */
	h ^= h >> 32;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 29;
	return (uint32_t)h;
}

/*
 * Two entries of one block with the same name (as e2fsck, which compares
 * within a block: folded in a casefolded directory). SEEN has room for
 * every entry of the block.
 */
static void check_duplicate(struct dir_walk *d, struct ext2_dir_entry *de, const char *name,
			    unsigned len)
{
	const struct ext2fs_nls_table *fold = (d->flags & EXT4_CASEFOLD_FL) && !(d->flags & EXT4_ENCRYPT_FL) ?
					      d->c->fs->encoding : NULL;
	size_t i;

	if (!d->seen)
		return;
	/*
	 * Byte-equal names meet in a hash table: a block of short names holds
	 * hundreds, and comparing each with all before it was pass 2's main cost.
	 */
	if (!fold && d->slots) {
		uint32_t h = name_hash(name, len), mask = d->nslots - 1;

		for (h &= mask; d->slots[h]; h = (h + 1) & mask) {
			const struct seen_name *o = &d->seen[d->slots[h] - 1];

			if (o->len == len && !memcmp(o->name, name, len)) {
				entry_problem(d, E4R_PR_ENTRY_DUPLICATE, fs_dirent_inode(de), name,
					      (int)len, E4R_NONE, E4R_NONE);
				return;
			}
		}
		d->seen[d->nseen].name = name;
		d->seen[d->nseen++].len = len;
		d->slots[h] = (uint32_t)d->nseen;
		return;
	}
	for (i = 0; i < d->nseen; i++) {
		const struct seen_name *o = &d->seen[i];
		int same = fold ? !ext2fs_casefold_cmp(fold, (const unsigned char *)o->name, o->len,
						       (const unsigned char *)name, len) :
				  o->len == len && !memcmp(o->name, name, len);

		if (same) {
			entry_problem(d, E4R_PR_ENTRY_DUPLICATE, fs_dirent_inode(de), name, (int)len,
				      E4R_NONE, E4R_NONE);
			return;
		}
	}
	d->seen[d->nseen].name = name;
	d->seen[d->nseen++].len = len;
}

/*
 * Room in SCR for the names of a region of N entries at most. Without
 * memory the duplicates go unchecked (no SEEN) or are searched linearly
 * (no SLOTS); the rest is not affected.
 */
static void grow_scratch(struct dir_scratch *scr, size_t n)
{
	uint32_t want = 16;

	if (n > scr->seen_cap) {
		free(scr->seen);
		scr->seen = malloc(n * sizeof(*scr->seen));
		scr->seen_cap = scr->seen ? n : 0;
	}
	while (want < 2 * n)
		want *= 2;
	if (want > scr->slots_cap) {
		free(scr->slots);
		scr->slots = malloc(want * sizeof(*scr->slots));
		scr->slots_cap = scr->slots ? want : 0;
	}
}

/*
 * Parse the entries in BUF[0..LEN) (a block without its tail, or an inline
 * area). DOTS: 2 when the region must start with '.' and '..', else 0.
 * BASE: where the region starts in what a finding's offset counts from (an
 * inline directory's areas start 4 and 60 bytes into its inline data).
 * A corrupt entry is salvaged in BUF (the caller's copy) as the repair will
 * salvage it, and the entries after it are read on: they keep their links.
 */
static void parse_entries(struct dir_walk *d, char *buf, unsigned len, int dots, unsigned base)
{
	struct check_ctx *c = d->c;
	unsigned off = 0, prev = FS_SALVAGE_NO_PREV, budget = len / 4 + 2;
	int n = 0;

	grow_scratch(d->scr, len / FS_DIRENT_MIN + 1);
	d->seen = d->scr->seen;
	d->nseen = 0;
	d->slots = d->scr->slots;
	d->nslots = d->scr->slots_cap;
	if (d->slots)
		memset(d->slots, 0, d->nslots * sizeof(*d->slots));
	while (off < len) {
		struct ext2_dir_entry *de = (struct ext2_dir_entry *)(buf + off);
		unsigned rec_len;
		int name_len;
		const char *name = de->name;
		ext2_ino_t ino;
		int slot;

		if (fs_dirent_corrupt(c->fs, buf, len, off) || fs_dirent_rec_len(c->fs, de, &rec_len)) {
			dir_problem(d, E4R_PR_DIR_CORRUPT, E4R_NONE, base + off);
			if (!budget--)
				break;
			off = fs_dirent_salvage(c->fs, buf, len, off, prev);
			continue;
		}
		name_len = (int)fs_dirent_name_len(de);
		ino = fs_dirent_inode(de);
		slot = n < dots ? check_dot_entries(d, de, name, name_len, n) : DOT_SLOT_EMPTY;
		if (slot == DOT_SLOT_RENAMED) {
			/*
			 * e2fsck -n counts a renamed '..' slot's link as it counts
			 * '..' (and leaves '.' uncounted); pass 3 finds the parent
			 * unset. Its name and target go unchecked: the repair
			 * writes over both.
			 */
			if (n == 1)
				count_dotdot(c, ino);
		} else if (slot == DOT_SLOT_OK) {
			if (n == 1)
				count_dotdot(c, ino);
			/* a wrong '.' is BAD_DOT's alone; '..' 0 is for pass 3 to set */
			if (n == 0 ? ino == d->ino : ino != 0)
				check_entry_target(d, de, name, name_len, n + 1);
		} else if (ino) {
			/* A bad name still names its inode: count the link. */
			if (bad_name(d, name, name_len))
				entry_problem(d, E4R_PR_ENTRY_NAME, ino, name, name_len, E4R_NONE, E4R_NONE);
			else if ((d->flags & EXT4_ENCRYPT_FL) && name_len < ENCRYPTED_NAME_MIN)
				entry_problem(d, E4R_PR_ENTRY_ENCRYPTED_SHORT, ino, name, name_len,
					      ENCRYPTED_NAME_MIN, name_len);
			else if (bad_encoding(d, name, name_len))
				entry_problem(d, E4R_PR_ENTRY_ENCODING, ino, name, name_len, E4R_NONE, E4R_NONE);
			int in_range = ino_in_range(c, ino);

			if (is_dot(name, name_len) || is_dotdot(name, name_len))
				entry_problem(d, E4R_PR_ENTRY_DOT_NAME, ino, name, name_len, E4R_NONE, E4R_NONE);
			else
				check_entry_target(d, de, name, name_len, 0);
			/* as in e2fsck, a name without a valid inode number is no part of the leaf's hashes */
			if (d->ht && in_range)
				check_htree_entry(c, d->ht, d->lblk, de, off, rec_len);
			if (in_range)
				check_duplicate(d, de, name, (unsigned)name_len);
		}
		n++;
		prev = off;
		off += rec_len;
	}
	d->seen = NULL;
	d->slots = NULL;
}

/* The checksum tail at the end of a leaf block, if the block has one. */
static int has_dirent_tail(ext2_filsys fs, const char *buf)
{
	return fs_dirent_is_tail((const struct ext2_dir_entry_tail *)(buf + fs->blocksize -
								      FS_DIRENT_TAIL_SIZE));
}

static void check_dir_block(struct dir_walk *d, char *buf)
{
	ext2_filsys fs = d->c->fs;
	unsigned len = fs->blocksize;
	int kind = d->ht ? check_htree_block(d->c, d->ht, d->lblk, d->blk, buf) : HTREE_NONE;
	int csum_ok = !d->csum || check_dir_block_csum_ok(fs, d->ino, d->inode, buf);

	if (!csum_ok)
		dir_problem(d, E4R_PR_DIR_CSUM, d->lblk, E4R_NONE);
	if (kind == HTREE_NODE)
		return;		/* interior index nodes hold no entries */
	/*
	 * An htree root's '..' spans the block, good root or bad: its end may
	 * still hold the leaf tail the block had before it was indexed. A
	 * leaf's entries leave room for the tail, unless its checksum fails
	 * for want of one (e2fsck's rule: a block whose checksum libext2fs
	 * accepts otherwise, an index block of a directory no longer indexed,
	 * gets no such leave).
	 */
	if (d->csum && !(d->ht && d->lblk == 0) && (csum_ok || has_dirent_tail(fs, buf)))
		len -= FS_DIRENT_TAIL_SIZE;
	parse_entries(d, buf, len, d->lblk == 0 ? 2 : 0, 0);
}

static void check_inline_dir(struct dir_walk *d, struct ext2_inode_large *in)
{
	struct check_ctx *c = d->c;
	size_t size = 0;
	char *buf = NULL;
	/* libext2fs leaves an inline directory's i_block as on disk (it holds entries) */
	uint32_t parent = ext2fs_le32_to_cpu(in->i_block[0]);

	d->blk = E4R_NONE;
	if (d->dir)
		d->dir->dotdot = parent;
	count_dotdot(c, parent);
	if (ext2fs_inline_data_size(c->fs, d->ino, &size) || size < INLINE_PARENT_SIZE ||
	    !(buf = calloc(1, size + 4)) ||
	    ext2fs_inline_data_get(c->fs, d->ino, (struct ext2_inode *)in, buf, &size)) {
		dir_problem(d, E4R_PR_DIR_CORRUPT, E4R_NONE, 0);
		free(buf);
		return;
	}
	/*
	 * e2fsck's rule: entries fill a multiple of 4 bytes, and past i_block
	 * there is room for one at least. Its repair cuts a too-short tail off
	 * or pads the size up to 4 (zeros): the entries are read as it leaves them.
	 */
	if ((size & 3) || (size > INLINE_IBLOCK_SIZE && size < INLINE_IBLOCK_SIZE + FS_DIRENT_MIN)) {
		size_t want = check_inline_dir_size(size);

		dir_problem(d, E4R_PR_INLINE_DIR_SIZE, want, size);
		size = want;
	}
	parse_entries(d, buf + INLINE_PARENT_SIZE,
		      (size < INLINE_IBLOCK_SIZE ? size : INLINE_IBLOCK_SIZE) - INLINE_PARENT_SIZE, 0,
		      INLINE_PARENT_SIZE);
	if (size > INLINE_IBLOCK_SIZE)
		parse_entries(d, buf + INLINE_IBLOCK_SIZE, size - INLINE_IBLOCK_SIZE, 0,
			      INLINE_IBLOCK_SIZE);
	free(buf);
}

size_t check_inline_dir_size(size_t size)
{
	if (size > INLINE_IBLOCK_SIZE && size < INLINE_IBLOCK_SIZE + FS_DIRENT_MIN)
		return INLINE_IBLOCK_SIZE;
	return (size + 3) & ~(size_t)3;
}

/*
 * e2fsck's pass 2 leaves a largedir directory's holes (past block 0)
 * alone, as the kernel may punch them: filling one would allocate a block
 * per missing block. Its pass 1 turns largedir on when it sets a
 * directory's size to 2 GiB or more, as our size repair does through the
 * same libext2fs call, so a hole up to block 2^19 is left then too.
 */
int check_dir_holes_kept(ext2_filsys fs)
{
	return ext2fs_has_feature_largedir(fs->super) && !ext2fs_has_feature_inline_data(fs->super);
}

/* The directory's blocks are C->dblocks[first..end), in logical order from pass 1. */
static void check_one_dir(struct dir_walk *d, size_t first, size_t end, char *buf,
			  struct check_dirread *ahead)
{
	struct check_ctx *c = d->c;
	int holes_ok = check_dir_holes_kept(c->fs);
	uint32_t expect = 0;
	size_t i;

	for (i = first; i < end; i++) {
		d->blk = c->dblocks[i].blk;
		d->lblk = c->dblocks[i].lblk;
		if (d->lblk > expect && !(holes_ok && expect > 0)) {
			d->blk = E4R_NONE;
			/* FOUND: where the gap ends (the repair fills all of it) */
			dir_problem(d, E4R_PR_DIR_HOLE, expect, d->lblk);
			d->blk = c->dblocks[i].blk;
			if (expect == 0)
				dir_problem(d, E4R_PR_NO_DOT, E4R_NONE, E4R_NONE);
		}
		expect = d->lblk + 1;
		if (check_dirread_block(ahead, c->fs, i, d->blk, buf))
			dir_problem(d, E4R_PR_DIR_READ, E4R_NONE, E4R_NONE);
		else
			check_dir_block(d, buf);
		/* per directory block, as e2fsck's pass 2: I is the block's place in pass 1's list */
		check_progress(c, E4R_PASS_DIRS, i + 1, c->ndblocks);
	}
}

errcode_t check_dirs(struct check_ctx *c)
{
	ext2_filsys fs = c->fs;
	int isize = EXT2_INODE_SIZE(fs->super);
	struct ext2_inode_large *in = calloc(1, isize < (int)sizeof(*in) ? sizeof(*in) : (size_t)isize);
	char *buf = malloc(fs->blocksize);
	struct dir_scratch scr = { 0 };
	struct check_dirread *ahead = NULL;
	size_t di, bi = 0;
	errcode_t err = 0;

	if (!in || !buf) {
		err = ENOMEM;
		goto out;
	}
	/* the descriptors do not change while pass 2 reads */
	scr.unused_from = malloc(fs->group_desc_count * sizeof(*scr.unused_from));
	for (dgrp_t g = 0; scr.unused_from && g < fs->group_desc_count; g++)
		scr.unused_from[g] = unused_from(fs, g);
	ahead = check_dirread_start(c);
	check_progress(c, E4R_PASS_DIRS, 0, c->ndblocks);
	for (di = 0; di < c->ndirs; di++) {
		struct dir_walk d = { .c = c, .scr = &scr, .ino = c->dirs[di].ino, .dir = &c->dirs[di],
				      .csum = ext2fs_has_feature_metadata_csum(fs->super) };
		struct check_htree_map ht;
		size_t end;

		while (bi < c->ndblocks && c->dblocks[bi].ino < d.ino)
			bi++;
		for (end = bi; end < c->ndblocks && c->dblocks[end].ino == d.ino; end++)
			;
		if (fs_read_inode_full(fs, d.ino, (struct ext2_inode *)in, isize))
			continue;
		d.flags = in->i_flags;
		if (d.dir->encrypt_dropped)
			d.flags &= ~EXT4_ENCRYPT_FL;
		d.inode = (const struct ext2_inode *)in;
		/* the directory's own '.' counts once toward its links */
		count_dotdot(c, d.ino);
		/* A directory pass 1 found broken still has the blocks it collected before. */
		if (in->i_flags & EXT4_INLINE_DATA_FL) {
			/* an index has no root to read in an inline directory (e2fsck: a bad root) */
			if ((in->i_flags & EXT2_INDEX_FL) && ext2fs_has_feature_dir_index(fs->super)) {
				struct check_finding f = check_finding_init(E4R_PR_HTREE_ROOT);

				f.dir = d.ino;
				check_report(c, &f);
			}
			check_inline_dir(&d, in);
		}
		else if ((in->i_flags & EXT2_INDEX_FL) && ext2fs_has_feature_dir_index(fs->super)) {
			/* no data blocks collected: dblocks may be NULL (no offset on it) */
			err = check_htree_setup(c, d.ino, d.flags, end > bi ? c->dblocks + bi : NULL,
						end - bi, &ht);
			if (err)
				goto out;
			d.ht = &ht;
			check_one_dir(&d, bi, end, buf, ahead);
			check_htree_finish(c, &ht);
			check_htree_free(&ht);
		} else {
			check_one_dir(&d, bi, end, buf, ahead);
		}
		bi = end;
	}
	/* files past 2 GiB need the feature; e2fsck asks once, at the end of pass 2 */
	if (c->large_files && !ext2fs_has_feature_large_file(fs->super))
		check_report_ino(c, E4R_PR_LARGE_FILE_FEATURE, E4R_NONE, E4R_NONE, E4R_NONE,
				 c->large_files);
	/* nor has a revision 0 superblock room for it: e2fsck says so again here */
	if (c->large_files && fs->super->s_rev_level == EXT2_GOOD_OLD_REV)
		check_report_ino(c, E4R_PR_SB_REV_LEVEL, E4R_NONE, E4R_NONE, E4R_NONE, E4R_NONE);
	check_progress(c, E4R_PASS_DIRS, c->ndblocks, c->ndblocks);
	err = check_nlink_error(c);
out:
	free(scr.seen);
	free(scr.slots);
	free(scr.unused_from);
	check_dirread_stop(ahead);
	free(in);
	free(buf);
	return err;
}
