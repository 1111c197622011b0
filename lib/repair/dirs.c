/* Checker repairs of pass 2 and 3 findings: directory entries, '.' and '..', block checksums, lost+found. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/ctx.h"
#include "check/csum.h"
#include "fs/dirent.h"
#include "fs/inode.h"
#include "fs/dirent_salvage.h"
#include "fs/dirwalk.h"
#include "util/nomem.h"
#include "repair/repair.h"

#define DX_TAIL_SIZE		8
#define INLINE_IBLOCK_SIZE	60	/* i_block: 4 bytes of parent, then entries */
#define INLINE_PARENT_SIZE	4
#define LPF_NAME		"lost+found"

static const int kind_to_ft[] = {
	[KIND_NONE] = 0, [KIND_REG] = EXT2_FT_REG_FILE, [KIND_DIR] = EXT2_FT_DIR,
	[KIND_CHR] = EXT2_FT_CHRDEV, [KIND_BLK] = EXT2_FT_BLKDEV, [KIND_FIFO] = EXT2_FT_FIFO,
	[KIND_SOCK] = EXT2_FT_SOCK, [KIND_LNK] = EXT2_FT_SYMLINK, [KIND_BAD] = 0,
};

/*
 * The blocks here are read and written raw (io_channel), so as on disk:
 * every entry field goes through fs/dirent.h's little-endian accessors.
 */
static int has_tail(ext2_filsys fs, const char *buf)
{
	return fs_dirent_is_tail((const struct ext2_dir_entry_tail *)(buf + fs->blocksize -
								      FS_DIRENT_TAIL_SIZE));
}

/* The space an entry needs: header and name, rounded to 4. */
static unsigned entry_need(struct ext2_dir_entry *de)
{
	return (FS_DIRENT_HEADER + fs_dirent_name_len(de) + 3) & ~3u;
}

/*
 * Walk the entries of a leaf block to its end (without the tail); *PREV_OFF
 * and *LAST_OFF get the offsets of the entry before OFF and of the last one.
 * Returns 0 when the chain of rec_len reaches END exactly.
 */
static int walk_block(ext2_filsys fs, char *buf, unsigned end, unsigned *last_off,
		      unsigned *before_last)
{
	unsigned off = 0, rec_len;

	*last_off = 0;
	*before_last = FS_SALVAGE_NO_PREV;
	while (off < end) {
		struct ext2_dir_entry *de = (struct ext2_dir_entry *)(buf + off);

		if (end - off < FS_DIRENT_HEADER || !fs_dirent_rec_len_ok(fs, de, end - off, &rec_len))
			return -1;
		if (off)
			*before_last = *last_off;
		*last_off = off;
		off += rec_len;
	}
	return 0;
}

/*
 * Make room for a checksum tail: where the entries end at the tail's place
 * (END, the end the checker read them to, left it: a salvage kept to it)
 * the tail goes there, over what lies past them, as e2fsck puts it;
 * otherwise the last entry is shortened.
 */
static errcode_t insert_tail(ext2_filsys fs, char *buf, unsigned end)
{
	unsigned last, before, rec_len, need, tail_at = fs->blocksize - FS_DIRENT_TAIL_SIZE;
	struct ext2_dir_entry *de;

	if (end == tail_at && !walk_block(fs, buf, tail_at, &last, &before)) {
		fs_dirent_init_tail((struct ext2_dir_entry_tail *)(buf + tail_at));
		return 0;
	}
	if (walk_block(fs, buf, fs->blocksize, &last, &before))
		return EXT2_ET_DIR_CORRUPTED;
	de = (struct ext2_dir_entry *)(buf + last);
	fs_dirent_rec_len(fs, de, &rec_len);
	/*
	 * An unused last entry too short to give up the tail's bytes (a tail
	 * whose type was damaged reads as one): the entry before takes it.
	 */
	if (!fs_dirent_inode(de) && before != FS_SALVAGE_NO_PREV &&
	    rec_len < FS_DIRENT_MIN + FS_DIRENT_TAIL_SIZE) {
		unsigned before_len;

		de = (struct ext2_dir_entry *)(buf + before);
		fs_dirent_rec_len(fs, de, &before_len);
		rec_len += before_len;
		fs_dirent_set_rec_len(fs, rec_len, de);
		last = before;
	}
	need = fs_dirent_inode(de) || last == 0 ? entry_need(de) : FS_DIRENT_MIN;
	if (need < FS_DIRENT_MIN)
		need = FS_DIRENT_MIN;
	if (rec_len < need + FS_DIRENT_TAIL_SIZE)
		return EXT2_ET_DIR_NO_SPACE_FOR_CSUM;
	fs_dirent_set_rec_len(fs, rec_len - FS_DIRENT_TAIL_SIZE, de);
	fs_dirent_init_tail((struct ext2_dir_entry_tail *)(buf + fs->blocksize - FS_DIRENT_TAIL_SIZE));
	return 0;
}

static int is_dx_node(ext2_filsys fs, char *buf)
{
	struct ext2_dir_entry *de = (struct ext2_dir_entry *)buf;
	unsigned rec_len = 0;

	fs_dirent_rec_len(fs, de, &rec_len);
	return fs_dirent_inode(de) == 0 && rec_len == fs->blocksize && fs_dirent_name_len(de) == 0;
}

/* An interior node as e2fsck tells one: the empty entry, and the limit a node has. */
static int is_sound_dx_node(ext2_filsys fs, char *buf)
{
	struct ext2_dx_countlimit cl;

	memcpy(&cl, buf + FS_DIRENT_HEADER, sizeof(cl));
	return is_dx_node(fs, buf) &&
	       ext2fs_le16_to_cpu(cl.limit) == (fs->blocksize - FS_DIRENT_HEADER - DX_TAIL_SIZE) /
					       sizeof(struct ext2_dx_entry);
}

/*
 * Write directory block BUF with its checksum, adding the tail a leaf lacks
 * when there is room (END: where the checker read its entries to, as
 * insert_tail takes it).
 */
static errcode_t dblock_write_end(struct check_ctx *c, ext2_ino_t dir, blk64_t blk, char *buf, unsigned end)
{
	ext2_filsys fs = c->fs;
	struct ext2_inode in;
	errcode_t err = 0, werr;

	if (ext2fs_has_feature_metadata_csum(fs->super)) {
		int indexed = !fs_read_inode(fs, dir, &in) && (in.i_flags & EXT2_INDEX_FL);

		if (!has_tail(fs, buf) && !(indexed && is_sound_dx_node(fs, buf)))
			err = insert_tail(fs, buf, end);
		if (!err)
			err = ext2fs_dir_block_csum_set(fs, dir, (struct ext2_dir_entry *)buf);
	}
	/* a block still corrupt elsewhere gets its checksum once that is mended */
	if (err && err != EXT2_ET_DIR_NO_SPACE_FOR_CSUM && err != EXT2_ET_DIR_CORRUPTED)
		return err;
	/*
	 * without room for a checksum the entries are still worth writing; the
	 * write's own error as it is (the overlay holding the round may be out
	 * of memory, which must drop the round, not read as a failed repair)
	 */
	werr = io_channel_write_blk64(fs->io, blk, 1, buf);
	return werr ? werr : err;
}

/* The same, for a block whose entries may run to its end */
static errcode_t dblock_write(struct check_ctx *c, ext2_ino_t dir, blk64_t blk, char *buf)
{
	return dblock_write_end(c, dir, blk, buf, c->fs->blocksize);
}

/*
 * Directory block BLK into *BUF (the caller frees it). No block to read
 * (none, or outside the filesystem) is EXT2_ET_UNIMPLEMENTED, a repair not
 * made; out of memory and the read's own errors are operational and say so,
 * never a block that could not be mended.
 */
static errcode_t dblock_read(struct check_ctx *c, blk64_t blk, char **buf)
{
	errcode_t err;

	*buf = NULL;
	if (blk == E4R_NONE || check_out_of_fs(c->fs, blk, 1))
		return EXT2_ET_UNIMPLEMENTED;
	if (!(*buf = malloc(c->fs->blocksize)))
		return EXT2_ET_NO_MEMORY;
	err = io_channel_read_blk64(c->fs->io, blk, 1, *buf);
	if (err) {
		free(*buf);
		*buf = NULL;
	}
	return err;
}

/* The end of the entries of a leaf block: before the tail when it has one. */
static unsigned leaf_end(ext2_filsys fs, const char *buf)
{
	return ext2fs_has_feature_metadata_csum(fs->super) && has_tail(fs, buf) ?
	       fs->blocksize - FS_DIRENT_TAIL_SIZE : fs->blocksize;
}

static blk64_t first_block(struct check_ctx *c, ext2_ino_t dir);

/*
 * The end of the entries the checker read in block BLK of DIR: an htree
 * root's '..' spans the whole block (a stale leaf tail may lie under it).
 */
static unsigned entries_end(struct check_ctx *c, ext2_ino_t dir, blk64_t blk, const char *buf)
{
	struct ext2_inode in;

	if (ext2fs_has_feature_dir_index(c->fs->super) && blk == first_block(c, dir) &&
	    !fs_read_inode(c->fs, dir, &in) && (in.i_flags & EXT2_INDEX_FL))
		return c->fs->blocksize;
	/* as the checker: a block whose checksum holds without a tail leaves room for one */
	if (ext2fs_has_feature_metadata_csum(c->fs->super) && !has_tail(c->fs, buf) &&
	    check_dir_block_csum_ok(c->fs, dir, NULL, buf))
		return c->fs->blocksize - FS_DIRENT_TAIL_SIZE;
	return leaf_end(c->fs, buf);
}

/*
 * A corrupt entry in an inline directory: both areas (i_block after the
 * parent, and system.data) are salvaged as the checker read them. Inline
 * data that cannot be read at all (FOUND is no entry's offset) clears the
 * directory, as e2fsck truncates it to nothing: the entries that name it
 * go next round, the files it held come back through lost+found.
 */
static errcode_t salvage_inline_dir(struct check_ctx *c, const struct check_finding *f)
{
	ext2_filsys fs = c->fs;
	ext2_ino_t dir = (ext2_ino_t)f->dir;
	size_t size = 0;
	unsigned mended;
	char *buf;
	errcode_t err;

	if (f->found == E4R_NONE || f->found < INLINE_PARENT_SIZE)
		return repair_inode_clear(c, dir);
	err = ext2fs_inline_data_size(fs, dir, &size);
	if (err || size < INLINE_PARENT_SIZE)
		return repair_inode_clear(c, dir);
	buf = malloc(size);
	if (!buf)
		return ENOMEM;
	err = ext2fs_inline_data_get(fs, dir, NULL, buf, &size);
	if (!err) {
		size_t ib = size < INLINE_IBLOCK_SIZE ? size : INLINE_IBLOCK_SIZE;

		mended = fs_dirent_salvage_all(fs, buf + INLINE_PARENT_SIZE,
					       (unsigned)(ib - INLINE_PARENT_SIZE));
		if (size > INLINE_IBLOCK_SIZE)
			mended += fs_dirent_salvage_all(fs, buf + INLINE_IBLOCK_SIZE,
							(unsigned)(size - INLINE_IBLOCK_SIZE));
		/* nothing left to mend: an earlier finding of the directory salvaged it */
		if (mended)
			err = ext2fs_inline_data_set(fs, dir, NULL, buf, size);
	}
	free(buf);
	return err;
}

/* INLINE_DIR_SIZE: the size e2fsck gives it (a tail too short cut, or zeros to 4 bytes), then i_size. */
static errcode_t resize_inline_dir(struct check_ctx *c, ext2_ino_t dir)
{
	ext2_filsys fs = c->fs;
	struct ext2_inode in;
	size_t size = 0, want;
	char *buf;
	errcode_t err;

	err = ext2fs_inline_data_size(fs, dir, &size);
	if (err || size < INLINE_PARENT_SIZE)
		return err ? err : EXT2_ET_UNIMPLEMENTED;
	want = check_inline_dir_size(size);
	if (want == size)
		return 0;	/* an earlier repair made it right */
	buf = calloc(1, size > want ? size : want);
	if (!buf)
		return ENOMEM;
	err = ext2fs_inline_data_get(fs, dir, NULL, buf, &size);
	if (!err)
		err = ext2fs_inline_data_set(fs, dir, NULL, buf, want);
	/* no room for the padding in the inode: e2fsck cuts 4 bytes instead */
	if (err == EXT2_ET_INLINE_DATA_NO_SPACE) {
		want -= 4;
		err = ext2fs_inline_data_set(fs, dir, NULL, buf, want);
	}
	free(buf);
	if (!err)
		err = fs_read_inode(fs, dir, &in);
	if (!err && EXT2_I_SIZE(&in) != want) {
		err = ext2fs_inode_size_set(fs, &in, want);
		if (!err)
			err = ext2fs_write_inode(fs, dir, &in);
	}
	return err;
}

static void make_dot(ext2_filsys fs, struct ext2_dir_entry *de, unsigned rec_len, int dots,
		     ext2_ino_t ino, int last);
static ext2_ino_t parent_of(struct check_ctx *c, ext2_ino_t dir);

/* Is DE a '.' (DOTS 1) or '..' (2) entry? */
static int is_dots(const struct ext2_dir_entry *de, unsigned dots)
{
	return fs_dirent_inode(de) && fs_dirent_name_len(de) == dots && de->name[0] == '.' &&
	       (dots == 1 || de->name[1] == '.');
}

/* Block 0's second entry, after a first of FIRST bytes, when its record length is sane. */
static struct ext2_dir_entry *second_entry(ext2_filsys fs, char *buf, unsigned first, unsigned end,
					   unsigned *len)
{
	struct ext2_dir_entry *dd = (struct ext2_dir_entry *)(buf + first);

	/* its header must lie inside the entries before its length is read */
	if (first + FS_DIRENT_MIN > end || !fs_dirent_rec_len_ok(fs, dd, end - first, len))
		return NULL;
	return dd;
}

/*
 * A directory's block 0 just salvaged: its first two entries become '.'
 * and '..' where they are not, as e2fsck's pass 2 makes them right after
 * its salvage (the next round would find them missing and mend them after
 * this round's reconnections had been made through the block without them).
 */
static void dots_after_salvage(struct check_ctx *c, ext2_ino_t dir, char *buf, unsigned end)
{
	ext2_filsys fs = c->fs;
	struct ext2_dir_entry *de = (struct ext2_dir_entry *)buf, *dd;
	unsigned rec_len, len2;

	if (!fs_dirent_rec_len_ok(fs, de, end, &rec_len))
		return;
	if (!is_dots(de, 1)) {
		make_dot(fs, de, rec_len, 1, dir, 0);
		fs_dirent_rec_len(fs, de, &rec_len);
	}
	dd = second_entry(fs, buf, rec_len, end, &len2);
	if (dd && !is_dots(dd, 2))
		make_dot(fs, dd, len2, 2, parent_of(c, dir), 1);
}

/*
 * DIR_CSUM: a new checksum. DIR_CORRUPT: the block's corrupt entries are
 * salvaged (fs/dirent_salvage.h) as the checker read past them, keeping the
 * entries after each; the block's other corrupt entries go with the first
 * finding, so a later one finds nothing to do.
 */
/*
 * An htree root whose '.' record length alone is wrong: '..' at byte 12
 * still spans the rest of the block and the index behind it still reads
 * (its info, its limit). The length goes back to 12, which is what the
 * index's checksum covered: a salvage as a leaf would find no room for a
 * leaf's tail and write nothing, where e2fsck splits '.' and rebuilds.
 */
static int root_dot_mended(ext2_filsys fs, char *buf)
{
	struct ext2_dir_entry *dot = (struct ext2_dir_entry *)buf, *dotdot;
	struct ext2_dx_root_info *info = (struct ext2_dx_root_info *)(buf + 24);
	struct ext2_dx_countlimit cl;
	unsigned rec, tail = ext2fs_has_feature_metadata_csum(fs->super) ? DX_TAIL_SIZE : 0;

	dotdot = (struct ext2_dir_entry *)(buf + FS_DIRENT_MIN);
	memcpy(&cl, buf + 32, sizeof(cl));
	if (fs_dirent_name_len(dot) != 1 || dot->name[0] != '.' || fs_dirent_name_len(dotdot) != 2 ||
	    memcmp(dotdot->name, "..", 2) || fs_dirent_rec_len(fs, dotdot, &rec) ||
	    rec != fs->blocksize - FS_DIRENT_MIN || info->reserved_zero || info->info_length != 8 ||
	    info->indirect_levels > 2 ||
	    ext2fs_le16_to_cpu(cl.limit) != (fs->blocksize - 32 - tail) / sizeof(struct ext2_dx_entry))
		return 0;
	if (!fs_dirent_rec_len(fs, dot, &rec) && rec == FS_DIRENT_MIN)
		return 0;
	fs_dirent_set_rec_len(fs, FS_DIRENT_MIN, dot);
	return 1;
}

errcode_t repair_dir_block(struct check_ctx *c, const struct check_finding *f)
{
	char *buf;
	unsigned end;
	errcode_t err;

	if (f->code == E4R_PR_INLINE_DIR_SIZE && f->dir != E4R_NONE && f->dir <= c->inodes)
		return resize_inline_dir(c, (ext2_ino_t)f->dir);
	if (f->code == E4R_PR_DIR_CORRUPT && f->blk == E4R_NONE && f->dir != E4R_NONE &&
	    f->dir <= c->inodes)
		return salvage_inline_dir(c, f);
	err = dblock_read(c, f->blk, &buf);
	if (err)
		return err;
	if (f->code == E4R_PR_DIR_CORRUPT && f->dir != E4R_NONE && f->dir <= c->inodes &&
	    f->blk == first_block(c, (ext2_ino_t)f->dir) && root_dot_mended(c->fs, buf)) {
		err = ext2fs_has_feature_metadata_csum(c->fs->super) ?
		      ext2fs_dir_block_csum_set(c->fs, (ext2_ino_t)f->dir, (struct ext2_dir_entry *)buf) : 0;
		if (!err)
			err = io_channel_write_blk64(c->fs->io, f->blk, 1, buf);
		free(buf);
		return err;
	}
	/* the end the checker read the entries to, taken before the salvage changes the block */
	end = entries_end(c, (ext2_ino_t)f->dir, f->blk, buf);
	if (f->code == E4R_PR_DIR_CORRUPT && !fs_dirent_salvage_all(c->fs, buf, end)) {
		free(buf);
		return 0;
	}
	if (f->code == E4R_PR_DIR_CORRUPT && f->dir != E4R_NONE && f->dir <= c->inodes &&
	    f->blk == first_block(c, (ext2_ino_t)f->dir))
		dots_after_salvage(c, (ext2_ino_t)f->dir, buf, end);
	err = dblock_write_end(c, (ext2_ino_t)f->dir, f->blk, buf, end);
	free(buf);
	return err;
}

/* Directory DIR's logical block 0, as pass 1 found it. */
static blk64_t first_block(struct check_ctx *c, ext2_ino_t dir)
{
	size_t i;

	for (i = 0; i < c->ndblocks; i++)
		if (c->dblocks[i].ino == dir && c->dblocks[i].lblk == 0)
			return c->dblocks[i].blk;
	return E4R_NONE;
}

/* The name the finding gives matches this entry (names may hold NULs: compare what we have). */
static int entry_matches(const struct check_finding *f, struct ext2_dir_entry *de)
{
	size_t len = f->name ? strlen(f->name) : 0;
	unsigned nl = fs_dirent_name_len(de);

	if (f->ino != E4R_NONE && fs_dirent_inode(de) != f->ino)
		return 0;
	if (f->code == E4R_PR_ENTRY_NAME)
		/* the name was cut at its first NUL: it must still be the bad one (hard links share INO) */
		return nl >= len && memcmp(de->name, f->name ? f->name : "", len) == 0 &&
		       (nl == 0 || memchr(de->name, '\0', nl) || memchr(de->name, '/', nl));
	/* (the finding keeps a name up to its first NUL: an encrypted one may hold NULs) */
	return strnlen(de->name, nl) == len && memcmp(de->name, f->name ? f->name : "", len) == 0;
}

/*
 * The next name to try for a duplicate, in place in NAME (*LEN bytes, room
 * for ROOM): "name~0" the first time, then the number after the '~' counts
 * up ("name~1", ...), as e2fsck renames. The suffix stays within the bytes
 * the entry's record already has for its name (rounded to 4), overwriting
 * the name's last characters when it must.
 */
static void next_unique_name(char *name, unsigned *len, unsigned room)
{
	unsigned l = *len, i = l, newlen;

	while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
		i--;
	if (i == l || i < 2 || name[i - 1] != '~') {
		/* no suffix yet: two bytes more when the padding has them, else within it */
		newlen = ((l - 1) & 3) < 2 ? l + 2 : (l + 3) & ~3u;
		if (newlen > room)
			newlen = room;
		if (newlen < 2)
			newlen = 2;
		name[newlen - 2] = '~';
		name[newlen - 1] = '0';
		*len = newlen;
		return;
	}
	/* count up the digits after the '~'; all nines: the '~' moves left for one more digit */
	for (i = l; i > 0 && name[i - 1] != '~'; i--) {
		if (name[i - 1] != '9') {
			name[i - 1]++;
			return;
		}
		name[i - 1] = '0';
	}
	if (i >= 2) {
		name[i - 2] = '~';
		name[i - 1] = '1';
	}
}

/* NAME (LEN bytes) is already an entry of directory DIR, or of BUF[0..END) (the block being mended). */
static int name_taken(struct check_ctx *c, ext2_ino_t dir, const char *buf, unsigned end,
		      const char *name, unsigned len)
{
	ext2_ino_t ino = 0;
	unsigned off = 0, rec_len;

	while (off + FS_DIRENT_HEADER <= end) {
		const struct ext2_dir_entry *de = (const struct ext2_dir_entry *)(buf + off);

		if (!fs_dirent_rec_len_ok(c->fs, de, end - off, &rec_len))
			break;
		if (fs_dirent_inode(de) && fs_dirent_name_len(de) == len && !memcmp(de->name, name, len))
			return 1;
		off += rec_len;
	}
	return ext2fs_lookup(c->fs, dir, name, (int)len, NULL, &ino) != EXT2_ET_FILE_NOT_FOUND;
}

/*
 * An entry before DE in BUF holds DE's name (folded in a casefolded
 * directory, as the checker compares): DE is the second of a duplicate.
 * SAME_INO: that entry names DE's inode too.
 */
static struct ext2_dir_entry *earlier_same_name(struct check_ctx *c, ext2_ino_t dir, char *buf,
						unsigned end, struct ext2_dir_entry *de, int *same_ino)
{
	const struct ext2fs_nls_table *fold = NULL;
	unsigned nl = fs_dirent_name_len(de), off = 0, len;
	struct ext2_inode in;
	struct ext2_dir_entry *found = NULL;

	if (!fs_read_inode(c->fs, dir, &in) && (in.i_flags & EXT4_CASEFOLD_FL) &&
	    !(in.i_flags & EXT4_ENCRYPT_FL))
		fold = c->fs->encoding;
	*same_ino = 0;
	while (buf + off < (char *)de && off + FS_DIRENT_HEADER <= end) {
		struct ext2_dir_entry *o = (struct ext2_dir_entry *)(buf + off);
		unsigned onl = fs_dirent_name_len(o);

		if (fs_dirent_rec_len(c->fs, o, &len) || len < FS_DIRENT_MIN || len > end - off)
			break;
		if (fs_dirent_inode(o) &&
		    (fold ? !ext2fs_casefold_cmp(fold, (const unsigned char *)o->name, (int)onl,
						 (const unsigned char *)de->name, (int)nl) :
			    onl == nl && !memcmp(o->name, de->name, nl))) {
			if (!found)
				found = o;
			if (fs_dirent_inode(o) == fs_dirent_inode(de))
				*same_ino = 1;
		}
		off += len;
	}
	return found;
}

/*
 * A duplicate name (E4R_PR_ENTRY_DUPLICATE): a second entry for the same
 * inode goes (one link is enough), an entry for another inode is renamed
 * as e2fsck renames it, keeping the file where it was: of the two, the one
 * naming the lower inode number (e2fsck sorts equal names by inode, higher
 * first, and renames the later). The name of an encrypted directory is
 * ciphertext: such an entry is removed instead.
 * Returns 1 when one of the pair was renamed, 0 when DE is to be removed.
 */
static int rename_duplicate(struct check_ctx *c, const struct check_finding *f, char *buf,
			    unsigned end, struct ext2_dir_entry *de)
{
	unsigned nl, rec_len, len, room, tries;
	struct ext2_dir_entry *first;
	struct ext2_inode in;
	char name[EXT2_NAME_LEN + 1];
	int same_ino;

	if (fs_read_inode(c->fs, (ext2_ino_t)f->dir, &in) || (in.i_flags & EXT4_ENCRYPT_FL))
		return 0;
	first = earlier_same_name(c, (ext2_ino_t)f->dir, buf, end, de, &same_ino);
	/* an earlier entry of the same name and inode: this one is a second link, dropped */
	if (!first || same_ino)
		return 0;
	if (fs_dirent_inode(first) < fs_dirent_inode(de))
		de = first;
	nl = fs_dirent_name_len(de);
	if (nl == 0 || fs_dirent_rec_len(c->fs, de, &rec_len))
		return 0;
	room = rec_len - FS_DIRENT_HEADER;
	if (room > EXT2_NAME_LEN)
		room = EXT2_NAME_LEN;
	memcpy(name, de->name, nl);
	len = nl;
	for (tries = 0; tries < 10000; tries++) {
		next_unique_name(name, &len, room);
		if (!name_taken(c, (ext2_ino_t)f->dir, buf, end, name, len)) {
			memcpy(de->name, name, len);
			fs_dirent_set_name_len(de, len);
			return 1;
		}
	}
	return 0;
}

/* DE has an entry of its name before it: the one of a duplicate pair to mend. */
static int is_second(struct check_ctx *c, const struct check_finding *f, char *buf, unsigned end,
		     struct ext2_dir_entry *de)
{
	int same_ino;

	return earlier_same_name(c, (ext2_ino_t)f->dir, buf, end, de, &same_ino) != NULL;
}

/*
 * Mend the entry F names among the entries BUF[0..END): remove it (the one
 * before takes its space; the first of the region becomes unused), or
 * correct its file type or name. FIRST: the region opens the directory's
 * block 0, whose '.' and '..' keep their places. Returns 1 when it changed.
 */
static int mend_entry(struct check_ctx *c, const struct check_finding *f, char *buf, unsigned end,
		      int first)
{
	ext2_filsys fs = c->fs;
	struct ext2_dir_entry *prev = NULL;
	unsigned off = 0, rec_len;
	int retype = f->code == E4R_PR_ENTRY_FILETYPE || f->code == E4R_PR_ENTRY_FILETYPE_UNSET;

	while (off + FS_DIRENT_HEADER <= end) {
		struct ext2_dir_entry *de = (struct ext2_dir_entry *)(buf + off);
		unsigned i, nl = fs_dirent_name_len(de);
		int remove = 1, dot, dotdot;

		if (!fs_dirent_rec_len_ok(fs, de, end - off, &rec_len))
			break;
		dot = first && off == 0 && nl == 1 && de->name[0] == '.';
		/* block 0's '..' keeps its place: pass 3 gives it the parent */
		dotdot = first && prev == (struct ext2_dir_entry *)buf && nl == 2 &&
			 de->name[0] == '.' && de->name[1] == '.';
		/*
		 * A '.' or '..' in the wrong place is never the one in its
		 * place: a '..' this round wrote there over another entry
		 * has the same name and inode as the misplaced one after it.
		 */
		if (!fs_dirent_inode(de) || !entry_matches(f, de) ||
		    (dot && !retype && f->code != E4R_PR_ENTRY_NAME) ||
		    (dotdot && f->code == E4R_PR_ENTRY_DOT_NAME) ||
		    (f->code == E4R_PR_ENTRY_DUPLICATE && !is_second(c, f, buf, end, de))) {
			prev = de;
			off += rec_len;
			continue;
		}
		if (retype) {
			fs_dirent_set_file_type(de, (int)f->expected);
			remove = 0;
		} else if (f->code == E4R_PR_ENTRY_NAME) {
			/* like e2fsck: the bad characters become '.'; an empty name cannot be mended */
			for (i = 0; i < nl; i++)
				if (de->name[i] == '/' || de->name[i] == '\0')
					de->name[i] = '.';
			remove = nl == 0;
		} else if (f->code == E4R_PR_ENTRY_DUPLICATE) {
			remove = !rename_duplicate(c, f, buf, end, de);
		}
		if (remove && prev && !dotdot) {
			unsigned prev_len;
			fs_dirent_rec_len(fs, prev, &prev_len);
			fs_dirent_set_rec_len(fs, prev_len + rec_len, prev);
		} else if (remove) {
			fs_dirent_set_inode(de, 0);
		}
		return 1;
	}
	return 0;
}

/* An entry of an inline directory: its parent field (4 bytes), then entries in i_block and in system.data. */
static errcode_t repair_inline_entry(struct check_ctx *c, const struct check_finding *f)
{
	ext2_filsys fs = c->fs;
	ext2_ino_t dir = (ext2_ino_t)f->dir;
	size_t size = 0;
	char *buf;
	errcode_t err;
	int changed;

	err = ext2fs_inline_data_size(fs, dir, &size);
	if (err)
		return err;
	if (size < INLINE_PARENT_SIZE || !(buf = malloc(size)))
		return EXT2_ET_UNIMPLEMENTED;
	err = ext2fs_inline_data_get(fs, dir, NULL, buf, &size);
	if (!err) {
		size_t ib = size < INLINE_IBLOCK_SIZE ? size : INLINE_IBLOCK_SIZE;

		changed = mend_entry(c, f, buf + INLINE_PARENT_SIZE, (unsigned)(ib - INLINE_PARENT_SIZE), 0);
		if (!changed && size > INLINE_IBLOCK_SIZE)
			changed = mend_entry(c, f, buf + INLINE_IBLOCK_SIZE,
					     (unsigned)(size - INLINE_IBLOCK_SIZE), 0);
		err = changed ? ext2fs_inline_data_set(fs, dir, NULL, buf, size) : EXT2_ET_UNIMPLEMENTED;
	}
	free(buf);
	return err;
}

/* Entry findings: remove the entry, or correct its file type or name. */
errcode_t repair_dir_entry(struct check_ctx *c, const struct check_finding *f)
{
	char *buf;
	errcode_t err = EXT2_ET_UNIMPLEMENTED;

	if (f->blk == E4R_NONE && f->dir != E4R_NONE && f->dir <= c->inodes)
		return repair_inline_entry(c, f);
	err = dblock_read(c, f->blk, &buf);
	if (err)
		return err;
	err = EXT2_ET_UNIMPLEMENTED;
	if (mend_entry(c, f, buf, entries_end(c, (ext2_ino_t)f->dir, f->blk, buf),
		       f->blk == first_block(c, (ext2_ino_t)f->dir)))
		err = dblock_write(c, (ext2_ino_t)f->dir, f->blk, buf);
	free(buf);
	return err;
}

/* Overwrite the entry at DE as '.' or '..' naming INO; room left over becomes an empty entry. */
static void make_dot(ext2_filsys fs, struct ext2_dir_entry *de, unsigned rec_len, int dots,
		     ext2_ino_t ino, int last)
{
	fs_dirent_set_inode(de, ino);
	memset(de->name, 0, 4);		/* e2fsck wants the name NUL-padded */
	fs_dirent_set_name_len(de, (unsigned)dots);
	fs_dirent_set_file_type(de, ext2fs_has_feature_filetype(fs->super) ? EXT2_FT_DIR : 0);
	memcpy(de->name, "..", (size_t)dots);
	/* '.' keeps 12 bytes; '..' (or a last entry) may keep the rest */
	if (!last && rec_len >= 2 * FS_DIRENT_MIN) {
		struct ext2_dir_entry *rest = (struct ext2_dir_entry *)((char *)de + FS_DIRENT_MIN);
		fs_dirent_set_rec_len(fs, FS_DIRENT_MIN, de);
		memset(rest, 0, FS_DIRENT_HEADER);
		fs_dirent_set_rec_len(fs, rec_len - FS_DIRENT_MIN, rest);
	}
}

static ext2_ino_t parent_of(struct check_ctx *c, ext2_ino_t dir)
{
	struct check_dir *d = check_find_dir(c, dir);

	return d && d->parent ? d->parent : EXT2_ROOT_INO;
}

/* NO_DOT, BAD_DOT, NO_DOTDOT and the two padding findings: mend the first two entries of block 0. */
errcode_t repair_dot(struct check_ctx *c, const struct check_finding *f)
{
	ext2_filsys fs = c->fs;
	ext2_ino_t dir = (ext2_ino_t)f->dir;
	blk64_t blk = first_block(c, dir);
	char *buf;
	struct ext2_dir_entry *de;
	unsigned rec_len, end;
	errcode_t err = dblock_read(c, blk, &buf);

	if (err)
		return err;
	/* an htree root's '..' spans the block, as the checker read it */
	end = entries_end(c, dir, blk, buf);
	de = (struct ext2_dir_entry *)buf;
	if (!fs_dirent_rec_len_ok(fs, de, end, &rec_len)) {
		free(buf);
		return EXT2_ET_DIR_CORRUPTED;
	}
	if (f->code == E4R_PR_BAD_DOT) {
		fs_dirent_set_inode(de, dir);
	} else if (f->code == E4R_PR_DOT_NOT_TERMINATED) {
		/* the rest of the entry stays: its inode and type have findings of their own */
		if (fs_dirent_name_len(de) == 1 && de->name[0] == '.')
			de->name[1] = '\0';
	} else if (f->code == E4R_PR_NO_DOT) {
		make_dot(fs, de, rec_len, 1, dir, 0);
	} else {
		unsigned len2;
		struct ext2_dir_entry *dd = second_entry(fs, buf, rec_len, end, &len2);

		if (!dd) {
			free(buf);
			return EXT2_ET_DIR_CORRUPTED;
		}
		if (f->code == E4R_PR_DOTDOT_NOT_TERMINATED) {
			if (fs_dirent_name_len(dd) == 2 && dd->name[0] == '.' && dd->name[1] == '.')
				dd->name[2] = '\0';
		} else {
			make_dot(fs, dd, len2, 2, parent_of(c, dir), 1);
		}
	}
	err = dblock_write(c, dir, blk, buf);
	free(buf);
	return err;
}

/* Point DIR's '..' at PARENT (block 0's second entry, or an inline directory's parent field). */
errcode_t repair_dotdot(struct check_ctx *c, ext2_ino_t dir, ext2_ino_t parent)
{
	ext2_filsys fs = c->fs;
	struct ext2_inode in;
	struct ext2_dir_entry *de;
	unsigned rec_len, end;
	blk64_t blk;
	char *buf;
	errcode_t err;

	if (!parent || parent > c->inodes)
		return EINVAL;
	err = fs_read_inode(fs, dir, &in);
	if (err)
		return err;
	if (in.i_flags & EXT4_INLINE_DATA_FL) {
		/* an inline directory's i_block stays as on disk in libext2fs's inode */
		in.i_block[0] = ext2fs_cpu_to_le32(parent);
		return ext2fs_write_inode(fs, dir, &in);
	}
	blk = first_block(c, dir);
	if (blk == E4R_NONE)
		err = ext2fs_bmap2(fs, dir, &in, NULL, 0, 0, NULL, &blk);
	if (!err)
		err = dblock_read(c, blk, &buf);
	if (err)
		return err;
	end = leaf_end(fs, buf);
	de = (struct ext2_dir_entry *)buf;
	err = EXT2_ET_DIR_CORRUPTED;
	/* a record length off the 4-byte grid is a corrupt block: pass 2's salvage mends it first */
	if (fs_dirent_rec_len(fs, de, &rec_len) || rec_len % 4) {
		free(buf);
		return err;
	}
	if (rec_len >= FS_DIRENT_MIN && rec_len + FS_DIRENT_MIN <= end) {
		struct ext2_dir_entry *dd = (struct ext2_dir_entry *)(buf + rec_len);

		if (fs_dirent_name_len(dd) == 2 && dd->name[0] == '.' && dd->name[1] == '.') {
			fs_dirent_set_inode(dd, parent);
			err = dblock_write(c, dir, blk, buf);
		}
	} else if (rec_len >= 2 * FS_DIRENT_MIN && rec_len <= end && fs_dirent_name_len(de) == 1 &&
		   de->name[0] == '.') {
		/* '.' over the whole block, no '..' (e2fsck splits it): '..' takes the rest */
		struct ext2_dir_entry *dd = (struct ext2_dir_entry *)(buf + FS_DIRENT_MIN);

		fs_dirent_set_rec_len(fs, FS_DIRENT_MIN, de);
		memset(dd, 0, FS_DIRENT_HEADER);
		fs_dirent_set_rec_len(fs, rec_len - FS_DIRENT_MIN, dd);
		make_dot(fs, dd, rec_len - FS_DIRENT_MIN, 2, parent, 1);
		err = dblock_write(c, dir, blk, buf);
	}
	free(buf);
	return err;
}

/*
 * /lost+found, made (like e2fsck, as an ordinary directory) when it is
 * missing; a lost+found that is not a directory is unlinked first (the
 * file it was goes into the new one as unattached). Without room for it,
 * lost files go into the root directory, as e2fsck offers.
 */
static errcode_t get_lost_found(struct check_ctx *c, ext2_ino_t *lpf)
{
	ext2_filsys fs = c->fs;
	struct ext2_inode in;
	errcode_t err;
	int umask, no_inline;

	/* the one this round already links into (no lookup in the root per entry) */
	if (c->lpf_dir && !fs_read_inode(fs, c->lpf_dir, &in) && LINUX_S_ISDIR(in.i_mode) &&
	    in.i_links_count) {
		*lpf = c->lpf_dir;
		return 0;
	}
	/*
	 * A root this round cleared (no blocks left to it) takes nothing: the
	 * next round makes it again first, as e2fsck's pass 3 does, and then
	 * lost+found in it.
	 */
	if (fs_read_inode(fs, EXT2_ROOT_INO, &in) || !LINUX_S_ISDIR(in.i_mode) ||
	    !in.i_links_count || in.i_dtime)
		return EXT2_ET_NO_DIRECTORY;
	*lpf = 0;
	/*
	 * out of memory is no missing lost+found: a second one would be made
	 * (libext2fs's lookup says "not found" when its walk could not start);
	 * the root's other errors read as before, as no lost+found to use
	 */
	err = fs_lookup(fs, EXT2_ROOT_INO, LPF_NAME, lpf);
	if (util_no_memory(err))
		return err;
	/* no room for it earlier in the run: the root, without trying again */
	if ((err || !*lpf) && c->lpf_no_space) {
		*lpf = EXT2_ROOT_INO;
		return 0;
	}
	if (!err && *lpf) {
		if (*lpf <= c->inodes && !fs_read_inode(fs, *lpf, &in) && LINUX_S_ISDIR(in.i_mode) &&
		    in.i_links_count)
			return 0;
		err = ext2fs_unlink(fs, EXT2_ROOT_INO, LPF_NAME, *lpf, 0);
		if (err)
			return err;
		*lpf = 0;
	}
	/* a new directory: its inode, block and the root's count are checked again */
	c->recheck = 1;
	/* mode 0700, as e2fsck and mke2fs make it: what is lost stays the owner's */
	umask = fs->umask;
	fs->umask = 077;
	/*
	 * libext2fs makes it inline on an inline_data filesystem; inodes of
	 * 128 bytes (a revision 0 superblock, which check leaves) have no room
	 * for the system.data attribute an inline directory needs, and the
	 * next check would take its size away, clear it, and make it again
	 * every round. Such a filesystem gets it with a block, as e2fsck
	 * always makes it.
	 */
	no_inline = ext2fs_has_feature_inline_data(fs->super) &&
		    EXT2_INODE_SIZE(fs->super) <= EXT2_GOOD_OLD_INODE_SIZE;
	if (no_inline)
		ext2fs_clear_feature_inline_data(fs->super);
	err = ext2fs_mkdir(fs, EXT2_ROOT_INO, 0, LPF_NAME);
	/*
	 * A full root: libext2fs has written the new inode but not linked or
	 * counted it; with room made, the retry takes the same inode again.
	 */
	if (err == EXT2_ET_DIR_NO_SPACE) {
		err = ext2fs_expand_dir(fs, EXT2_ROOT_INO);
		if (!err)
			err = ext2fs_mkdir(fs, EXT2_ROOT_INO, 0, LPF_NAME);
	}
	if (no_inline)
		ext2fs_set_feature_inline_data(fs->super);
	fs->umask = umask;
	/*
	 * Said once, as e2fsck says "Cannot allocate space for /lost+found"
	 * once a run; the checks that follow no longer ask for one.
	 */
	if (err == EXT2_ET_BLOCK_ALLOC_FAIL || err == EXT2_ET_INODE_ALLOC_FAIL ||
	    err == EXT2_ET_DIR_NO_SPACE) {
		c->lpf_no_space = 1;
		*lpf = EXT2_ROOT_INO;
		return check_report_ino(c, E4R_PR_LPF_NO_SPACE, E4R_NONE, E4R_NONE, E4R_NONE, (uint64_t)err);
	}
	if (err)
		return err;
	err = fs_lookup(fs, EXT2_ROOT_INO, LPF_NAME, lpf);
	return !err && !*lpf ? EXT2_ET_FILE_NOT_FOUND : err;
}

/*
 * Put the entry NAME -> INO (file type FT) into the leaf block BUF: into an
 * unused entry big enough, or into the slack after an entry. Returns 1 when
 * it went in, 0 when the block has no room (or its chain of entries is broken).
 */
static int block_add_entry(ext2_filsys fs, char *buf, const char *name, ext2_ino_t ino, int ft)
{
	unsigned end = leaf_end(fs, buf), off = 0, rec_len, len = (unsigned)strlen(name);
	unsigned need = (FS_DIRENT_HEADER + len + 3) & ~3u;

	while (off < end) {
		struct ext2_dir_entry *de = (struct ext2_dir_entry *)(buf + off), *ne;
		unsigned used;

		if (end - off < FS_DIRENT_HEADER || !fs_dirent_rec_len_ok(fs, de, end - off, &rec_len))
			return 0;
		used = fs_dirent_inode(de) ? entry_need(de) : 0;
		if (rec_len >= used + need) {
			if (used) {
				fs_dirent_set_rec_len(fs, used, de);
				ne = (struct ext2_dir_entry *)(buf + off + used);
				fs_dirent_set_rec_len(fs, rec_len - used, ne);
			} else {
				ne = de;
			}
			fs_dirent_set_inode(ne, ino);
			ne->name_len = 0;
			fs_dirent_set_name_len(ne, len);
			fs_dirent_set_file_type(ne, ft);
			memcpy(ne->name, name, len);
			return 1;
		}
		off += rec_len;
	}
	return 0;
}

/*
 * lost+found (inode LPF, now IN) grew from BEFORE 512-byte units: its owner's
 * quota is charged the new blocks as pass 1 would charge them, so that the
 * round's quota check sees them. With clusters the charge is not a simple
 * sum of blocks: the filesystem is checked again instead.
 */
static void lpf_charge(struct check_ctx *c, ext2_ino_t lpf, struct ext2_inode *in, blk64_t before)
{
	struct ext2_inode_large big = { 0 };
	blk64_t after = ext2fs_get_stat_i_blocks(c->fs, in);

	if (ext2fs_has_feature_bigalloc(c->fs->super) || after < before) {
		c->recheck = 1;
		return;
	}
	memcpy(&big, in, sizeof(*in));
	check_quota_charge(c, lpf, &big, (after - before) * 512, 0);
	c->quota_changed = 1;
}

/*
 * Link NAME -> INO into the linear directory LPF from the block of the last
 * entry on (c->lpf_lblk), adding a block at the end when all are full: each
 * entry reads one or two blocks, not the whole directory. *DONE is 0 when
 * the directory is not one this handles (indexed, inline): ext2fs_link then.
 */
static errcode_t lpf_append(struct check_ctx *c, ext2_ino_t lpf, const char *name, ext2_ino_t ino,
			    int ft, int *done)
{
	ext2_filsys fs = c->fs;
	struct ext2_inode in;
	uint32_t lblk, nblocks;
	blk64_t before;
	errcode_t err;
	int expanded = 0;

	*done = 0;
	err = fs_read_inode(fs, lpf, &in);
	if (err || !LINUX_S_ISDIR(in.i_mode) ||
	    (in.i_flags & (EXT2_INDEX_FL | EXT4_INLINE_DATA_FL | EXT4_ENCRYPT_FL)))
		return 0;
	if (c->lpf_dir != lpf) {
		c->lpf_dir = lpf;
		c->lpf_lblk = 0;
	}
	for (;;) {
		nblocks = (uint32_t)(EXT2_I_SIZE(&in) / fs->blocksize);
		for (lblk = c->lpf_lblk; lblk < nblocks; lblk++) {
			blk64_t blk = 0;
			char *buf;
			int added;

			/*
			 * A block that cannot be mapped or read is passed over for
			 * the next, but out of memory or an I/O error ends the
			 * round: it is no full block, and no reason to grow
			 * lost+found.
			 */
			err = ext2fs_bmap2(fs, lpf, &in, NULL, 0, lblk, NULL, &blk);
			if (util_no_memory(err))
				return err;
			if (err || !blk)
				continue;
			err = dblock_read(c, blk, &buf);
			if (err == EXT2_ET_UNIMPLEMENTED)
				continue;
			if (err)
				return err;
			added = block_add_entry(fs, buf, name, ino, ft);
			/* a leaf with its tail (the usual lost+found): checksum with the CPU's crc32c */
			if (added && ext2fs_has_feature_metadata_csum(fs->super) &&
			    !check_dir_leaf_csum_set(fs, lpf, buf))
				err = io_channel_write_blk64(fs->io, blk, 1, buf);
			else if (added)
				err = dblock_write(c, lpf, blk, buf);
			free(buf);
			if (added) {
				c->lpf_lblk = lblk;
				*done = 1;
				return err;
			}
		}
		/* every block from the cursor on is full: one more at the end (once) */
		if (expanded)
			return 0;
		c->lpf_lblk = nblocks;
		before = ext2fs_get_stat_i_blocks(fs, (struct ext2_inode *)&in);
		err = ext2fs_expand_dir(fs, lpf);
		if (!err)
			err = fs_read_inode(fs, lpf, &in);
		if (err)
			return err;
		lpf_charge(c, lpf, &in, before);
		expanded = 1;
	}
}

/*
 * Put INO into /lost+found as "#INO" (INO 0: only make sure lost+found
 * exists). A directory's '..' then names lost+found. Link counts are the
 * next round's to correct.
 */
errcode_t repair_reconnect(struct check_ctx *c, ext2_ino_t ino, int is_dir)
{
	ext2_filsys fs = c->fs;
	ext2_ino_t lpf;
	char name[32];
	int kind = ino && ino <= c->inodes ? c->kind[ino] : KIND_NONE;
	int ft = ext2fs_has_feature_filetype(fs->super) ? kind_to_ft[kind] : 0;
	int done = 0;
	errcode_t err = get_lost_found(c, &lpf);

	if (err || !ino)
		return err;
	if (ino == lpf)
		return EINVAL;
	snprintf(name, sizeof(name), "#%u", ino);
	err = lpf_append(c, lpf, name, ino, ft, &done);
	if (err || done)
		goto linked;
	/* libext2fs links (an indexed or inline lost+found): what it changed is checked again */
	c->recheck = 1;
	err = ext2fs_link(fs, lpf, name, ino, ft);
	if (err == EXT2_ET_DIR_NO_SPACE) {
		err = ext2fs_expand_dir(fs, lpf);
		if (!err)
			err = ext2fs_link(fs, lpf, name, ino, ft);
	}
linked:
	if (!err && is_dir)
		err = repair_dotdot(c, ino, lpf);
	/* one entry names it now: the round compares its count again (repair_round) */
	if (!err && !is_dir && ino <= c->inodes) {
		check_nlink_add_found(c, ino);
		err = check_nlink_error(c);
	}
	return err;
}

/* A hole in a directory, blocks LBLK..END-1: empty blocks fill it (the kernel reads every block up to i_size). */
errcode_t repair_dir_hole(struct check_ctx *c, ext2_ino_t dir, uint64_t lblk, uint64_t end)
{
	ext2_filsys fs = c->fs;
	struct ext2_inode in;
	blk64_t blk;
	char *buf = NULL;
	errcode_t err;

	if (!dir || dir > c->inodes || lblk == E4R_NONE || lblk > UINT32_MAX)
		return EINVAL;
	/* the whole gap, as e2fsck allocates each missing block: one block when its end is unknown */
	if (end == E4R_NONE || end <= lblk || end > (uint64_t)UINT32_MAX + 1)
		end = lblk + 1;
	/*
	 * The round's size repair (earlier: e2fsck's pass 1) may have turned
	 * largedir on, setting a directory's size to 2 GiB or more; e2fsck's
	 * pass 2 then fills no hole past block 0, and neither does this.
	 */
	if (lblk > 0 && check_dir_holes_kept(fs))
		return 0;
	err = ext2fs_new_dir_block(fs, 0, 0, &buf);
	for (; !err && lblk < end; lblk++) {
		blk = 0;
		err = fs_read_inode(fs, dir, &in);
		if (!err)
			err = ext2fs_bmap2(fs, dir, &in, NULL, BMAP_ALLOC, lblk, NULL, &blk);
		if (!err && !blk)
			err = EXT2_ET_BLOCK_ALLOC_FAIL;
		if (!err)
			err = ext2fs_write_dir_block4(fs, blk, buf, 0, dir);
	}
	ext2fs_free_mem(&buf);
	return err;
}

/*
 * Under metadata_csum, the blocks an htree index leaves behind once its
 * flag is gone must read as leaves with a checksum tail: the root's '..'
 * and each node's empty entry stop short of the tail. Returns 0 when the
 * block needed nothing or was rewritten.
 */
static errcode_t deindex_block(struct check_ctx *c, ext2_ino_t dir, blk64_t blk, uint32_t lblk)
{
	ext2_filsys fs = c->fs;
	unsigned end = fs->blocksize - FS_DIRENT_TAIL_SIZE, len;
	char *buf;
	struct ext2_dir_entry *de;
	errcode_t err = dblock_read(c, blk, &buf);

	if (err)
		return err;
	/* (the root may end in a stale leaf tail from before it was indexed: rec_len decides) */
	de = (struct ext2_dir_entry *)buf;
	if (lblk == 0) {
		/* '.' of 12 bytes, then '..' over the rest of the block */
		if (fs_dirent_rec_len(fs, de, &len) || len != FS_DIRENT_MIN)
			goto out;
		de = (struct ext2_dir_entry *)(buf + FS_DIRENT_MIN);
		if (fs_dirent_rec_len(fs, de, &len) || len != fs->blocksize - FS_DIRENT_MIN)
			goto out;
		fs_dirent_set_rec_len(fs, end - FS_DIRENT_MIN, de);
	} else {
		if (!is_dx_node(fs, buf))
			goto out;
		fs_dirent_set_rec_len(fs, end, de);
	}
	fs_dirent_init_tail((struct ext2_dir_entry_tail *)(buf + end));
	err = ext2fs_dir_block_csum_set(fs, dir, (struct ext2_dir_entry *)buf);
	if (!err && io_channel_write_blk64(fs->io, blk, 1, buf))
		err = EIO;
out:
	free(buf);
	return err;
}

/*
 * A bad htree index: the directory goes on without it, read linearly (its
 * entries are all in the leaves; the root and nodes read as empty entries).
 * e2fsck rebuilds the index instead; a linear directory is as valid.
 */
errcode_t repair_htree_deindex(struct check_ctx *c, ext2_ino_t dir)
{
	ext2_filsys fs = c->fs;
	errcode_t err = 0, flag_err;
	struct ext2_inode in;
	size_t i;

	/*
	 * Once per directory: the first of its findings in a round takes the
	 * index away. Each later one would read every block of it again to
	 * change nothing (a fuzzed directory of 2,600 garbage blocks had one
	 * finding per block: 6.8 million reads).
	 */
	if (!fs_read_inode(fs, dir, &in) && !(in.i_flags & EXT2_INDEX_FL))
		return 0;
	if (ext2fs_has_feature_metadata_csum(fs->super))
		for (i = 0; i < c->ndblocks && !err; i++)
			if (c->dblocks[i].ino == dir)
				err = deindex_block(c, dir, c->dblocks[i].blk, c->dblocks[i].lblk);
	/* the flag goes even when a block could not be mended: its own finding comes next round */
	flag_err = repair_htree_flag(c, dir);
	return flag_err ? flag_err : err;
}
