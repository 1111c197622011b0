/*
 * Journal-assisted repair: for a damaged metadata block (an inode
 * table block, a directory or htree block, an extent node, an xattr block),
 * the newest copy the journal still holds whose checksums verify, whose
 * structure passes and whose every reference fits the rest of the
 * filesystem. Runs after pass 2, so the passes have already said which
 * blocks are damaged; this pass only offers the copy (E4R_PR_JOURNAL_COPY),
 * the repair writes it.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/ctx.h"
#include "fs/dirent.h"
#include "jbd/copies.h"
#include "util/array.h"
#include "util/nomem.h"

/* Steps of one extent walk: more than any sane tree of this filesystem has. */
#define MAX_EXTENT_STEPS	(1u << 20)

struct cand {
	enum check_jcopy_kind	kind;
	blk64_t			blk;
	ext2_ino_t		owner;		/* the directory, the extent tree's or the xattr block's inode; 0: inode table */
	dgrp_t			group;		/* inode table: its group */
	const struct jbd_copy	*copy;
	unsigned char		*data;
	uint32_t		*inos;		/* inode table: the inodes to bring back */
	unsigned		ninos;
	unsigned		entries, extents;
	int			dropped;
};

struct kind_of {
	ext2_ino_t	ino;
	int		kind;
};

struct jc {
	struct check_ctx	*c;
	ext2_filsys		fs;
	struct jbd_journal	*j;
	struct jbd_copies	*idx;
	unsigned		bs;
	struct cand		*v;
	size_t			n, cap;
	ext2fs_inode_bitmap	suspect;	/* inodes whose blocks a candidate brings back */
	ext2fs_block_bitmap	others;		/* blocks the other inodes claim */
	struct kind_of		*kinds;		/* kinds of the inodes brought back */
	size_t			nkinds, kinds_cap;
	unsigned char		*cur;		/* the block as it is now */
	struct check_keys	restored;	/* blocks earlier rounds wrote from the journal */
};

static errcode_t add_cand(struct jc *x, const struct cand *cd)
{
	if (util_grow_from((void **)&x->v, &x->cap, x->n + 1, sizeof(*x->v), 8))
		return ENOMEM;
	x->v[x->n++] = *cd;
	return 0;
}

static int has_cand(const struct jc *x, blk64_t blk)
{
	for (size_t i = 0; i < x->n; i++)
		if (x->v[i].blk == blk)
			return 1;
	return 0;
}

/* The kind pass 1 gave INO, or the kind of the inode a candidate brings back. */
static int kind_now(const struct jc *x, ext2_ino_t ino)
{
	for (size_t i = 0; i < x->nkinds; i++)
		if (x->kinds[i].ino == ino)
			return x->kinds[i].kind;
	return x->c->kind[ino];
}

/* --- inodes --------------------------------------------------------------- */

/* Does the on-disk inode bitmap say INO is in use? (A copy never brings back a deleted file.) */
static int in_use_on_disk(struct jc *x, ext2_ino_t ino, const unsigned char *bitmap)
{
	unsigned idx = (ino - 1) % x->fs->super->s_inodes_per_group;

	return (bitmap[idx / 8] >> (idx % 8)) & 1;
}

/* An inode of a copy that may be brought back: its checksum, a mode, links, no dtime. */
static int inode_sane(struct jc *x, ext2_ino_t ino, const unsigned char *raw)
{
	struct ext2_inode_large *in = (struct ext2_inode_large *)raw;
	int kind = check_inode_kind(ext2fs_le16_to_cpu(in->i_mode));

	if (ext2fs_has_feature_metadata_csum(x->fs->super) &&
	    !ext2fs_inode_csum_verify(x->fs, ino, in))
		return 0;
	if (kind == KIND_BAD || !in->i_links_count || in->i_dtime)
		return 0;
	if (ext2fs_le32_to_cpu(in->i_flags) & EXT4_EXTENTS_FL) {
		const struct ext3_extent_header *eh = (const void *)in->i_block;
		if (ext2fs_le16_to_cpu(eh->eh_magic) != EXT3_EXT_MAGIC ||
		    ext2fs_le16_to_cpu(eh->eh_entries) > ext2fs_le16_to_cpu(eh->eh_max))
			return 0;
	}
	return 1;
}

/*
 * Reads copy CP into BUF if it may be offered at all: every checksum that
 * covers it verified, and no later committed transaction revokes its block.
 */
static int read_offerable(struct jc *x, const struct jbd_copy *cp, unsigned char *buf)
{
	return cp->csum_ok && !cp->revoked && !jbd_copies_read(x->j, cp, buf);
}

/*
 * Was BLK written from the journal by an earlier round of this run? Then
 * no copy is offered again: what the rounds since changed there was a
 * repair of what the copy brought back (an encrypt flag whose attribute
 * is gone), and restoring it again would undo that repair, round after
 * round, until the limit.
 */
static int pick_restored(const struct check_finding *f, const void *arg, uint64_t *blk)
{
	const struct check_ctx *c = arg;

	if (f->code != E4R_PR_JOURNAL_COPY || !f->fixed || f->round == c->round)
		return 0;
	*blk = f->blk;
	return 1;
}

static int restored_before(const struct jc *x, blk64_t blk)
{
	return check_keys_has(&x->restored, blk);
}

static errcode_t find_inode_table_block(struct jc *x, dgrp_t g, blk64_t blk, unsigned char *bitmap)
{
	ext2_filsys fs = x->fs;
	unsigned isz = EXT2_INODE_SIZE(fs->super), per = x->bs / isz;
	ext2_ino_t first = g * fs->super->s_inodes_per_group +
			   (ext2_ino_t)(blk - ext2fs_inode_table_loc(fs, g)) * per + 1;
	uint32_t damaged[x->bs / EXT2_GOOD_OLD_INODE_SIZE];
	unsigned nd = 0, i;
	size_t at, count;
	struct cand cd = { 0 };

	if (restored_before(x, blk) || io_channel_read_blk64(fs->io, blk, 1, x->cur))
		return 0;
	for (i = 0; i < per; i++) {
		ext2_ino_t ino = first + i;
		struct ext2_inode_large *in = (struct ext2_inode_large *)(x->cur + i * isz);

		if (ino > x->c->inodes || !in_use_on_disk(x, ino, bitmap))
			continue;
		if ((ext2fs_has_feature_metadata_csum(fs->super) && !ext2fs_inode_csum_verify(fs, ino, in)) ||
		    ext2fs_test_inode_bitmap2(x->c->inode_bad, ino))
			damaged[nd++] = ino;
	}
	if (!nd)
		return 0;
	jbd_copies_find(x->idx, blk, &at, &count);
	/*
	 * An inode that some copy holds as it is now was restored already, or
	 * its copy has the same fault: no copy is offered for it (else two
	 * copies could be written in turn, round after round).
	 */
	if (!(cd.data = malloc(x->bs)))
		return ENOMEM;
	for (size_t k = at; k < at + count; k++) {
		const struct jbd_copy *cp = &x->idx->v[k];
		unsigned kept = 0;

		if (!read_offerable(x, cp, cd.data))
			continue;
		for (i = 0; i < nd; i++)
			if (memcmp(cd.data + (damaged[i] - first) * isz, x->cur + (damaged[i] - first) * isz, isz))
				damaged[kept++] = damaged[i];
		nd = kept;
	}
	if (!nd) {
		free(cd.data);
		return 0;
	}
	for (size_t k = at; k < at + count; k++) {
		const struct jbd_copy *cp = &x->idx->v[k];
		unsigned good = 0;

		if (!read_offerable(x, cp, cd.data))
			continue;
		for (i = 0; i < nd; i++)
			good += inode_sane(x, damaged[i], cd.data + (damaged[i] - first) * isz);
		if (!good)
			continue;
		cd.inos = calloc(good, sizeof(*cd.inos));
		if (!cd.inos) {
			free(cd.data);
			return ENOMEM;
		}
		for (i = 0; i < nd; i++)
			if (inode_sane(x, damaged[i], cd.data + (damaged[i] - first) * isz))
				cd.inos[cd.ninos++] = damaged[i];
		cd.kind = E4R_JCOPY_INODES;
		cd.blk = blk;
		cd.group = g;
		cd.copy = cp;
		return add_cand(x, &cd);
	}
	free(cd.data);
	return 0;
}

/* Inode table blocks the journal holds a copy of, with inodes in use that are damaged now. */
static errcode_t find_inode_tables(struct jc *x)
{
	ext2_filsys fs = x->fs;
	unsigned char *bitmap = malloc(x->bs);
	errcode_t err = 0;

	if (!bitmap)
		return ENOMEM;
	for (dgrp_t g = 0; g < fs->group_desc_count && !err; g++) {
		blk64_t itb = ext2fs_inode_table_loc(fs, g);
		size_t at, count;

		if (!itb || ext2fs_bg_flags_test(fs, g, EXT2_BG_INODE_UNINIT) ||
		    itb + fs->inode_blocks_per_group > ext2fs_blocks_count(fs->super))
			continue;
		/* the copies are sorted by block: AT is the first at or after the table */
		jbd_copies_find(x->idx, itb, &at, &count);
		if (at >= x->idx->n || x->idx->v[at].fs_block >= itb + fs->inode_blocks_per_group)
			continue;
		if (io_channel_read_blk64(fs->io, ext2fs_inode_bitmap_loc(fs, g), 1, bitmap))
			continue;
		while (at < x->idx->n && x->idx->v[at].fs_block < itb + fs->inode_blocks_per_group && !err) {
			blk64_t blk = x->idx->v[at].fs_block;

			err = find_inode_table_block(x, g, blk, bitmap);
			while (at < x->idx->n && x->idx->v[at].fs_block == blk)
				at++;
		}
	}
	free(bitmap);
	return err;
}

/* --- extent nodes and directory blocks ------------------------------------ */

/* An extent node of inode INO that passes: header, entry count, order, checksum. */
static int extent_node_ok(struct jc *x, ext2_ino_t ino, unsigned char *data, unsigned *extents)
{
	struct ext3_extent_header *eh = (struct ext3_extent_header *)data;
	unsigned max = (x->bs - sizeof(*eh)) / sizeof(struct ext3_extent);
	unsigned n = ext2fs_le16_to_cpu(eh->eh_entries), depth = ext2fs_le16_to_cpu(eh->eh_depth);
	uint32_t prev = 0;

	if (ext2fs_le16_to_cpu(eh->eh_magic) != EXT3_EXT_MAGIC || ext2fs_le16_to_cpu(eh->eh_max) != max ||
	    n == 0 || n > max || depth > 5)
		return 0;
	if (ext2fs_has_feature_metadata_csum(x->fs->super) && !ext2fs_extent_block_csum_verify(x->fs, ino, eh))
		return 0;
	for (unsigned i = 0; i < n; i++) {
		const struct ext3_extent *e = (const struct ext3_extent *)(eh + 1) + i;
		uint32_t lblk = ext2fs_le32_to_cpu(e->ee_block);

		if (i && lblk <= prev)
			return 0;
		if (!depth && !ext2fs_le16_to_cpu(e->ee_len))
			return 0;
		prev = lblk;
	}
	*extents = n;
	return 1;
}

/* Is an entry naming INO of file type FT consistent with the inodes as they are (or come back)? */
static int entry_consistent(struct jc *x, ext2_ino_t dir, const struct ext2_dir_entry *de)
{
	ext2_ino_t ino = fs_dirent_inode(de);
	unsigned len = fs_dirent_name_len(de);
	int kind, ft = fs_dirent_file_type(de);

	if (ino > x->c->inodes || (ino < x->c->first_ino && ino != EXT2_ROOT_INO))
		return 0;
	kind = kind_now(x, ino);
	if (kind == KIND_NONE || kind == KIND_BAD)
		return 0;
	if (len == 1 && de->name[0] == '.')
		return ino == dir;
	if (len == 2 && de->name[0] == '.' && de->name[1] == '.')
		return kind == KIND_DIR;
	/* the file types and our kinds are numbered alike (1 regular ... 7 symlink) */
	return !ext2fs_has_feature_filetype(x->fs->super) || ft == kind;
}

/* A directory block of DIR that passes: checksum, the entries' chain, every name consistent. */
static int dir_block_ok(struct jc *x, ext2_ino_t dir, unsigned char *data, unsigned *entries)
{
	ext2_filsys fs = x->fs;
	int csum = ext2fs_has_feature_metadata_csum(fs->super);
	unsigned off = 0, limit = x->bs, rec, n = 0;
	struct ext2_dir_entry *de = (struct ext2_dir_entry *)data;

	if (csum && !ext2fs_dir_block_csum_verify(fs, dir, de))
		return 0;
	if (fs_dirent_rec_len(fs, de, &rec))
		return 0;
	/* an htree node: one empty entry over the block, then the index (its checksum verified) */
	if (!fs_dirent_inode(de) && rec == x->bs && !fs_dirent_name_len(de)) {
		*entries = 0;
		return 1;
	}
	/*
	 * An htree root: '.' (12 bytes), then '..' over the rest of the block,
	 * the index inside it (its checksum, in the index's own tail, verified).
	 */
	if (rec == 12 && fs_dirent_name_len(de) == 1) {
		struct ext2_dir_entry *dd = (struct ext2_dir_entry *)(data + 12);
		unsigned rec2;

		/* (an empty linear block looks the same without checksums: it has no other entry) */
		if (!fs_dirent_rec_len(fs, dd, &rec2) && rec2 == x->bs - 12 && fs_dirent_name_len(dd) == 2) {
			*entries = 0;
			return entry_consistent(x, dir, de) && entry_consistent(x, dir, dd);
		}
	}
	if (csum) {
		if (!fs_dirent_is_tail((struct ext2_dir_entry_tail *)(data + x->bs - FS_DIRENT_TAIL_SIZE)))
			return 0;
		limit -= FS_DIRENT_TAIL_SIZE;
	}
	while (off < limit) {
		de = (struct ext2_dir_entry *)(data + off);
		if (fs_dirent_rec_len(fs, de, &rec) || rec < 12 || rec % 4 || off + rec > limit ||
		    fs_dirent_name_len(de) + 8 > rec)
			return 0;
		if (fs_dirent_inode(de)) {
			unsigned len = fs_dirent_name_len(de);

			if (!len || !entry_consistent(x, dir, de))
				return 0;
			if (!(len == 1 && de->name[0] == '.') &&
			    !(len == 2 && de->name[0] == '.' && de->name[1] == '.'))
				n++;
		}
		off += rec;
	}
	*entries = n;
	return 1;
}

/* Is INO named by an entry of COPY (a block that passed dir_block_ok: its chain is whole)? */
static int copy_names(struct jc *x, const unsigned char *copy, unsigned limit, ext2_ino_t ino)
{
	unsigned off = 0, rec;

	while (off + 8 <= limit) {
		const struct ext2_dir_entry *de = (const struct ext2_dir_entry *)(copy + off);

		if (fs_dirent_rec_len(x->fs, de, &rec) || rec < 8)
			return 0;
		if (fs_dirent_inode(de) == ino && fs_dirent_name_len(de))
			return 1;
		off += rec;
	}
	return 0;
}

/* An inode number a live entry could hold: a file this round found in use. */
static int names_live_file(struct jc *x, ext2_ino_t ino)
{
	return ino && ino <= x->c->inodes && ino >= x->c->first_ino &&
	       kind_now(x, ino) != KIND_NONE && kind_now(x, ino) != KIND_BAD;
}

/*
 * Does a copy name every file the block names now? The journal may hold
 * only an older version of a block: when the log wrapped, the copies of
 * the transactions that wrote it last were overwritten, and the newest
 * copy left predates names made since. Restoring it would unlink those
 * files (their empty inodes then cleared as unattached), where e2fsck
 * keeps the block. So every file an entry of the current block names must
 * be named in the copy too, by any name (the damage may be in the name).
 * Past an entry the damage broke, the block is searched 4 bytes at a time
 * for entries as a salvage would find them, the broken one included if its
 * record and file type still fit: a stray match only makes the copy
 * refused, which leaves the block to the repairs e2fsck makes.
 */
static int dir_copy_covers(struct jc *x, const unsigned char *cur, const unsigned char *copy)
{
	ext2_filsys fs = x->fs;
	unsigned limit = x->bs, off = 0, rec;

	if (ext2fs_has_feature_metadata_csum(fs->super))
		limit -= FS_DIRENT_TAIL_SIZE;
	while (off + 8 <= limit) {
		const struct ext2_dir_entry *de = (const struct ext2_dir_entry *)(cur + off);
		ext2_ino_t ino = fs_dirent_inode(de);
		unsigned len = fs_dirent_name_len(de);
		int chained = !fs_dirent_rec_len(fs, de, &rec) && rec >= 12 && rec % 4 == 0 && off + rec <= limit;
		int whole = chained && len + 8 <= rec;

		/*
		 * Past a break only what reads as an entry counts: a record that
		 * fits, a file type that is the file's. Index entries (hash,
		 * block) hold small numbers that read as inodes in use. (The kind
		 * is looked up only for a number in range.)
		 */
		if (names_live_file(x, ino) &&
		    (whole ? len != 0 : chained && (!ext2fs_has_feature_filetype(fs->super) ||
						    fs_dirent_file_type(de) == kind_now(x, ino))) &&
		    !copy_names(x, copy, limit, ino))
			return 0;
		off += whole ? rec : 4;
	}
	return 1;
}

/* An xattr block at BLK that passes: checksum, header, entries (the refcount is judged later). */
static int xattr_block_ok(struct jc *x, ext2_ino_t ino, blk64_t blk, unsigned char *data)
{
	if (ext2fs_has_feature_metadata_csum(x->fs->super) &&
	    !ext2fs_ext_attr_block_csum_verify(x->fs, ino, blk, (struct ext2_ext_attr_header *)data))
		return 0;
	return check_xattr_block_sound(x->fs, (const char *)data);
}

static errcode_t find_block(struct jc *x, enum check_jcopy_kind kind, blk64_t blk, ext2_ino_t owner)
{
	struct cand cd = { 0 };
	size_t at, count;
	int have_cur;

	if (has_cand(x, blk) || restored_before(x, blk))
		return 0;
	jbd_copies_find(x->idx, blk, &at, &count);
	/* the block as it is now, read once for all its copies */
	if (!count)
		return 0;
	have_cur = !io_channel_read_blk64(x->fs->io, blk, 1, x->cur);
	if (!(cd.data = malloc(x->bs)))
		return ENOMEM;
	for (size_t k = at; k < at + count; k++) {
		const struct jbd_copy *cp = &x->idx->v[k];
		int ok;

		if (!read_offerable(x, cp, cd.data))
			continue;
		/*
		 * A copy equal to the block as it is now: restored already, or the
		 * copy has the same fault. Nothing older is offered then (two copies
		 * could otherwise be written in turn, round after round).
		 */
		if (have_cur && !memcmp(x->cur, cd.data, x->bs))
			break;
		ok = kind == E4R_JCOPY_DIR ? dir_block_ok(x, owner, cd.data, &cd.entries) &&
					     (!have_cur || dir_copy_covers(x, x->cur, cd.data)) :
		     kind == E4R_JCOPY_XATTR ? xattr_block_ok(x, owner, blk, cd.data) :
					       extent_node_ok(x, owner, cd.data, &cd.extents);
		if (!ok)
			continue;
		cd.kind = kind;
		cd.blk = blk;
		cd.owner = owner;
		cd.copy = cp;
		return add_cand(x, &cd);
	}
	free(cd.data);
	return 0;
}

int check_jcopy_damaged_block(const struct check_finding *f, enum check_jcopy_kind *kind, uint64_t *owner)
{
	if (f->blk == E4R_NONE)
		return 0;
	switch (f->code) {
	case E4R_PR_EXTENT_CSUM:
	case E4R_PR_EXTENT_HEADER:
	case E4R_PR_EXTENT_NODE:
		*kind = E4R_JCOPY_EXTENTS;
		*owner = f->ino;
		return 1;
	case E4R_PR_EA_BLOCK:
	case E4R_PR_EA_ENTRY_BOUNDS:
	case E4R_PR_EA_ENTRY_NAME:
	case E4R_PR_EA_ENTRY_VALUE:
	case E4R_PR_EA_ENTRY_HASH:
		*kind = E4R_JCOPY_XATTR;
		*owner = f->ino;
		return 1;
	case E4R_PR_DIR_CSUM:
	case E4R_PR_DIR_CORRUPT:
		*kind = E4R_JCOPY_DIR;
		*owner = f->dir;
		return 1;
	default:
		return 0;
	}
}

/* The blocks this round's passes found damaged: extent nodes and xattr blocks (pass 1), directory blocks (pass 2). */
static errcode_t find_damaged_blocks(struct jc *x, enum check_jcopy_kind want)
{
	struct check_result *r = x->c->res;
	errcode_t err = 0;

	for (size_t i = 0; i < r->count && !err; i++) {
		const struct check_finding *f = &r->findings[i];
		enum check_jcopy_kind kind;
		uint64_t owner;

		if (f->round != x->c->round || !check_jcopy_damaged_block(f, &kind, &owner) || kind != want ||
		    check_out_of_fs(x->fs, f->blk, 1))
			continue;
		if (owner != E4R_NONE && owner && owner <= x->c->inodes)
			err = find_block(x, kind, f->blk, (ext2_ino_t)owner);
	}
	return err;
}

/* --- the references a copy adds ------------------------------------------- */

static int claim_ok(struct jc *x, blk64_t blk, blk64_t len)
{
	if (!len || check_out_of_fs(x->fs, blk, len))
		return 0;
	return ext2fs_test_block_bitmap_range2(x->c->meta, blk, len) &&
	       ext2fs_test_block_bitmap_range2(x->others, blk, len);
}

static int mark_other(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref_blk,
		      int ref_offset, void *priv)
{
	struct jc *x = priv;

	(void)blockcnt; (void)ref_blk; (void)ref_offset;
	if (!check_out_of_fs(fs, *blocknr, 1))
		ext2fs_mark_block_bitmap2(x->others, *blocknr);
	return 0;
}

/* Every block claimed by an inode in use that no candidate brings back. */
static errcode_t build_others(struct jc *x)
{
	errcode_t err = ext2fs_allocate_block_bitmap(x->fs, "claimed by others", &x->others);

	if (err)
		return err;
	for (ext2_ino_t ino = 1; ino <= x->c->inodes; ino++) {
		if (!ext2fs_test_inode_bitmap2(x->c->inode_used, ino) || ext2fs_test_inode_bitmap2(x->suspect, ino))
			continue;
		/* an inode that cannot be walked (inline data, broken) claims nothing here */
		ext2fs_block_iterate3(x->fs, ino, BLOCK_FLAG_READ_ONLY, NULL, mark_other, x);
	}
	return 0;
}

/* Claim a range for a candidate: 0 when another inode or the metadata has it. */
static int claim(struct jc *x, blk64_t blk, blk64_t len)
{
	if (!claim_ok(x, blk, len))
		return 0;
	ext2fs_mark_block_bitmap_range2(x->others, blk, len);
	return 1;
}

/* The blocks inode INO of a copy claims (data, tree nodes, xattr block), all free for it. */
static int inode_claims_ok(struct jc *x, ext2_ino_t ino, struct ext2_inode_large *in)
{
	ext2_filsys fs = x->fs;
	uint32_t flags = ext2fs_le32_to_cpu(in->i_flags);
	blk64_t acl = ext2fs_file_acl_block(fs, (struct ext2_inode *)in);
	int kind = check_inode_kind(ext2fs_le16_to_cpu(in->i_mode));

	if (acl && check_out_of_fs(fs, acl, 1))
		return 0;
	if (flags & EXT4_INLINE_DATA_FL)
		return 1;
	if (kind == KIND_LNK && EXT2_I_SIZE(in) < sizeof(in->i_block))
		return 1;	/* a fast symlink: the target is in i_block */
	if (kind == KIND_CHR || kind == KIND_BLK || kind == KIND_FIFO || kind == KIND_SOCK)
		return 1;
	if (flags & EXT4_EXTENTS_FL) {
		ext2_extent_handle_t h;
		struct ext2fs_extent e;
		int op = EXT2_EXTENT_ROOT, ok = 1;
		unsigned steps = 0;

		if (ext2fs_extent_open2(fs, ino, (struct ext2_inode *)in, &h))
			return 0;
		while (ok && steps++ < MAX_EXTENT_STEPS) {
			errcode_t err = ext2fs_extent_get(h, op, &e);

			op = EXT2_EXTENT_NEXT;
			if (err == EXT2_ET_EXTENT_NO_NEXT)
				break;
			if (err) {
				ok = 0;
				break;
			}
			if (e.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT)
				continue;
			ok = claim(x, e.e_pblk, (e.e_flags & EXT2_EXTENT_FLAGS_LEAF) ? e.e_len : 1);
		}
		ext2fs_extent_free(h);
		return ok;
	}
	/* a block map: its direct blocks and the indirect blocks themselves */
	for (unsigned i = 0; i < EXT2_N_BLOCKS; i++) {
		blk64_t b = ext2fs_le32_to_cpu(in->i_block[i]);
		if (b && !claim(x, b, 1))
			return 0;
	}
	return 1;
}

/* An extent node's entries: leaves' data and children's blocks, all free for it. */
static int node_claims_ok(struct jc *x, const unsigned char *data)
{
	const struct ext3_extent_header *eh = (const void *)data;
	unsigned n = ext2fs_le16_to_cpu(eh->eh_entries);

	for (unsigned i = 0; i < n; i++) {
		if (eh->eh_depth) {
			const struct ext3_extent_idx *ix = (const struct ext3_extent_idx *)(eh + 1) + i;
			blk64_t b = ext2fs_le32_to_cpu(ix->ei_leaf) |
				    ((blk64_t)ext2fs_le16_to_cpu(ix->ei_leaf_hi) << 32);
			if (!claim(x, b, 1))
				return 0;
		} else {
			const struct ext3_extent *e = (const struct ext3_extent *)(eh + 1) + i;
			unsigned len = ext2fs_le16_to_cpu(e->ee_len);
			blk64_t b = ext2fs_le32_to_cpu(e->ee_start) |
				    ((blk64_t)ext2fs_le16_to_cpu(e->ee_start_hi) << 32);

			if (len > EXT_INIT_MAX_LEN)
				len -= EXT_INIT_MAX_LEN;	/* unwritten */
			if (!claim(x, b, len))
				return 0;
		}
	}
	return 1;
}

static errcode_t check_claims(struct jc *x)
{
	ext2_filsys fs = x->fs;
	unsigned isz = EXT2_INODE_SIZE(fs->super);
	int need = 0;
	errcode_t err;

	for (size_t i = 0; i < x->n; i++)
		need |= x->v[i].kind != E4R_JCOPY_DIR;
	if (!need)
		return 0;
	err = ext2fs_allocate_inode_bitmap(fs, "brought back", &x->suspect);
	if (err)
		return err;
	for (size_t i = 0; i < x->n; i++) {
		struct cand *cd = &x->v[i];
		if (cd->kind == E4R_JCOPY_EXTENTS)
			ext2fs_mark_inode_bitmap2(x->suspect, cd->owner);
		for (unsigned k = 0; k < cd->ninos; k++)
			ext2fs_mark_inode_bitmap2(x->suspect, cd->inos[k]);
	}
	if ((err = build_others(x)))
		return err;
	for (size_t i = 0; i < x->n; i++) {
		struct cand *cd = &x->v[i];
		ext2_ino_t first;
		unsigned kept = 0;

		if (cd->kind == E4R_JCOPY_EXTENTS) {
			cd->dropped = !node_claims_ok(x, cd->data);
			continue;
		}
		if (cd->kind != E4R_JCOPY_INODES)
			continue;
		first = cd->group * fs->super->s_inodes_per_group +
			(ext2_ino_t)(cd->blk - ext2fs_inode_table_loc(fs, cd->group)) * (x->bs / isz) + 1;
		for (unsigned k = 0; k < cd->ninos; k++)
			if (inode_claims_ok(x, cd->inos[k],
					    (struct ext2_inode_large *)(cd->data + (cd->inos[k] - first) * isz)))
				cd->inos[kept++] = cd->inos[k];
		cd->ninos = kept;
		cd->dropped = !kept;
	}
	return 0;
}

/* Kinds of the inodes the inode table copies bring back: the entries of a directory copy may name them. */
static errcode_t note_kinds(struct jc *x)
{
	unsigned isz = EXT2_INODE_SIZE(x->fs->super);

	for (size_t i = 0; i < x->n; i++) {
		struct cand *cd = &x->v[i];
		ext2_ino_t first;

		if (cd->kind != E4R_JCOPY_INODES || cd->dropped)
			continue;
		first = cd->group * x->fs->super->s_inodes_per_group +
			(ext2_ino_t)(cd->blk - ext2fs_inode_table_loc(x->fs, cd->group)) * (x->bs / isz) + 1;
		for (unsigned k = 0; k < cd->ninos; k++) {
			const struct ext2_inode_large *in =
				(const void *)(cd->data + (cd->inos[k] - first) * isz);

			if (util_grow_from((void **)&x->kinds, &x->kinds_cap, x->nkinds + 1,
					   sizeof(*x->kinds), 8))
				return ENOMEM;
			x->kinds[x->nkinds].ino = cd->inos[k];
			x->kinds[x->nkinds++].kind = check_inode_kind(ext2fs_le16_to_cpu(in->i_mode));
		}
	}
	return 0;
}

/*
 * An xattr block copy's refcount must be the number of inodes in use that
 * name the block now (an inode a table copy brings back is counted as the
 * disk has it): else the copy is from before a share changed. One scan of
 * the inode tables serves every xattr candidate.
 */
static errcode_t check_xattr_refs(struct jc *x)
{
	ext2_inode_scan scan;
	struct ext2_inode_large *in;
	unsigned isz = EXT2_INODE_SIZE(x->fs->super);
	uint32_t *refs;
	ext2_ino_t ino;
	size_t need = 0;
	errcode_t err;

	for (size_t i = 0; i < x->n; i++)
		need += x->v[i].kind == E4R_JCOPY_XATTR;
	if (!need)
		return 0;
	if (!(refs = calloc(x->n, sizeof(*refs))))
		return ENOMEM;
	if (!(in = malloc(isz))) {
		free(refs);
		return ENOMEM;
	}
	err = ext2fs_open_inode_scan(x->fs, 0, &scan);
	if (err)
		goto out;
	ext2fs_inode_scan_flags(scan, EXT2_SF_SKIP_MISSING_ITABLE, 0);
	for (;;) {
		blk64_t acl;

		err = ext2fs_get_next_inode_full(scan, &ino, (struct ext2_inode *)in, isz);
		/* an inode that fails its checksum still names what it names */
		if (err == EXT2_ET_INODE_CSUM_INVALID || err == EXT2_ET_INODE_IS_GARBAGE)
			err = 0;
		if (err || !ino)
			break;
		if (ino > x->c->inodes || !ext2fs_test_inode_bitmap2(x->c->inode_used, ino))
			continue;
		if (!(acl = ext2fs_file_acl_block(x->fs, (struct ext2_inode *)in)))
			continue;
		for (size_t i = 0; i < x->n; i++)
			if (x->v[i].kind == E4R_JCOPY_XATTR && x->v[i].blk == acl)
				refs[i]++;
	}
	ext2fs_close_inode_scan(scan);
	if (err)
		goto out;
	for (size_t i = 0; i < x->n; i++) {
		const struct ext2_ext_attr_header *h = (const void *)x->v[i].data;

		if (x->v[i].kind == E4R_JCOPY_XATTR)
			x->v[i].dropped = ext2fs_le32_to_cpu(h->h_refcount) != refs[i];
	}
out:
	free(in);
	free(refs);
	/* a table that cannot be scanned offers no xattr copy */
	if (err && !util_no_memory(err)) {
		for (size_t i = 0; i < x->n; i++)
			if (x->v[i].kind == E4R_JCOPY_XATTR)
				x->v[i].dropped = 1;
		err = 0;
	}
	return err;
}

/* --- findings ------------------------------------------------------------- */

static errcode_t report(struct jc *x, struct cand *cd)
{
	struct check_finding f = check_finding_init(E4R_PR_JOURNAL_COPY);
	struct check_jcopy *jc = calloc(1, sizeof(*jc));
	size_t before = x->c->res->count;
	errcode_t err;

	if (!jc)
		return ENOMEM;
	jc->kind = cd->kind;
	jc->sequence = cd->copy->sequence;
	jc->commit_sec = cd->copy->commit_sec;
	jc->commit_nsec = cd->copy->commit_nsec;
	jc->jblk = cd->copy->jblk;
	jc->live = cd->copy->live;
	jc->entries = cd->entries;
	jc->inodes = cd->ninos;
	jc->extents = cd->extents;
	jc->data = cd->data;
	jc->inos = cd->inos;
	cd->data = NULL;
	cd->inos = NULL;
	f.blk = cd->blk;
	f.found = jc->sequence;
	if (cd->kind == E4R_JCOPY_INODES)
		f.group = cd->group;
	else if (cd->kind == E4R_JCOPY_DIR)
		f.dir = cd->owner;
	else
		f.ino = cd->owner;
	f.jcopy = jc;
	err = check_report(x->c, &f);
	if (err || x->c->res->count == before) {
		/* not kept (over the limit): the copy goes with it */
		free(jc->data);
		free(jc->inos);
		free(jc);
	}
	return err;
}

/* Did this round find a damaged block of a kind a copy restores? (Else the journal is not read.) */
static int round_found_damage(struct check_ctx *c)
{
	const struct check_result *r = c->res;
	ext2_ino_t first;

	if (!ext2fs_find_first_set_inode_bitmap2(c->inode_bad, 1, c->inodes, &first))
		return 1;
	for (size_t i = r->count; i-- > 0 && r->findings[i].round == c->round;) {
		switch (r->findings[i].code) {
		case E4R_PR_INODE_CSUM:
		case E4R_PR_EXTENT_CSUM:
		case E4R_PR_EXTENT_HEADER:
		case E4R_PR_EXTENT_NODE:
		case E4R_PR_DIR_CSUM:
		case E4R_PR_DIR_CORRUPT:
		case E4R_PR_EA_BLOCK:
		case E4R_PR_EA_ENTRY_BOUNDS:
		case E4R_PR_EA_ENTRY_NAME:
		case E4R_PR_EA_ENTRY_VALUE:
		case E4R_PR_EA_ENTRY_HASH:
			return 1;
		default:
			break;
		}
	}
	return 0;
}

errcode_t check_journal_copies(struct check_ctx *c)
{
	ext2_filsys fs = c->fs;
	struct jc x = { .c = c, .fs = fs, .bs = fs->blocksize };
	struct jbd_scan *s = NULL;
	errcode_t err;

	if (!ext2fs_has_feature_journal(fs->super) || !round_found_damage(c))
		return 0;
	/* a journal that cannot be read holds no copies; pass 0 says what is wrong with it */
	if (jbd_journal_open(fs, c->opts ? c->opts->journal_path : NULL, &x.j))
		return 0;
	if (x.j->blocksize != fs->blocksize || jbd_scan_log(x.j, JBD_SCAN_OLD, &s) ||
	    jbd_copies_build(s, &x.idx)) {
		err = 0;
		goto out;
	}
	err = ENOMEM;
	if (!(x.cur = malloc(x.bs)) || check_keys_collect(c->res, 0, pick_restored, c, &x.restored))
		goto out;
	/* directory copies are judged against the inodes as the other copies leave them */
	if ((err = find_inode_tables(&x)) || (err = find_damaged_blocks(&x, E4R_JCOPY_EXTENTS)) ||
	    (err = check_claims(&x)) || (err = note_kinds(&x)) ||
	    (err = find_damaged_blocks(&x, E4R_JCOPY_DIR)) || (err = find_damaged_blocks(&x, E4R_JCOPY_XATTR)) ||
	    (err = check_xattr_refs(&x)))
		goto out;
	for (size_t i = 0; i < x.n && !err; i++)
		if (!x.v[i].dropped)
			err = report(&x, &x.v[i]);
out:
	for (size_t i = 0; i < x.n; i++) {
		free(x.v[i].data);
		free(x.v[i].inos);
	}
	free(x.v);
	free(x.kinds);
	free(x.cur);
	check_keys_free(&x.restored);
	if (x.others)
		ext2fs_free_block_bitmap(x.others);
	if (x.suspect)
		ext2fs_free_inode_bitmap(x.suspect);
	jbd_copies_free(x.idx);
	jbd_scan_free(s);
	if (x.j)
		jbd_journal_close(x.j);
	return err;
}
