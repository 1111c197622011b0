/*
 * Repairs of quota usage: the usage pass 1 counted goes into the quota file
 * (e2fsck's answer to a usage mismatch is to write what it counted), and a
 * quota inode number that cannot be one stops being used.
 *
 * The file (v2, "vfsv1"; check/quota.c says more): 1 KiB quota blocks, a
 * header and info in block 0, a radix tree of depth 4 on the id from block
 * 1, data blocks of 72-byte records under it. A record is changed in
 * place; a missing one goes into a free slot of its id's data block, or
 * into a new data block appended to the file (with any tree block missing
 * on its path), the file's block count in the info growing with it.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/ctx.h"
#include "repair/repair.h"

#define QT_BLOCK		1024u
#define QT_ROOT			1u
#define QT_DEPTH		4
#define QT_DATA_HEADER		16u
#define QT_ENTRY_SIZE		72u
#define QT_ENTRIES		((QT_BLOCK - QT_DATA_HEADER) / QT_ENTRY_SIZE)
#define QT_ENTRY_INODES		24u
#define QT_ENTRY_SPACE		48u
#define QT_ENTRY_ITIME		64u
#define QT_DATA_COUNT		8u	/* dqdh_entries: after the two free-list links */
#define QT_INFO_BLOCKS		(8u + 12u)

static const uint32_t qt_magic[E4R_QUOTA_TYPES] = { 0xd9c01f11, 0xd9c01927, 0xd9c03f14 };

static uint32_t get32(const unsigned char *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = v >> 24;
}

static void put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

/* The quota type whose superblock inode is INO; -1 when none. */
static int quota_type_of(struct ext2_super_block *sb, uint64_t ino)
{
	int t;

	for (t = 0; t < E4R_QUOTA_TYPES; t++)
		if (ino != E4R_NONE && *check_quota_inump(sb, t) == ino)
			return t;
	return -1;
}

/*
 * A quota inode that is a reserved inode or out of range: e2fsck clears the
 * superblock's reference, and the type is no longer tracked.
 */
errcode_t repair_quota_inode_off(struct check_ctx *c, const struct e4r_finding *f)
{
	int t = quota_type_of(c->fs->super, f->ino);

	if (t < 0)
		return EINVAL;
	*check_quota_inump(c->fs->super, t) = 0;
	ext2fs_mark_super_dirty(c->fs);
	return 0;
}

struct qt_file {
	ext2_file_t	file;
	uint64_t	size;
	uint32_t	nblocks;	/* dqi_blocks */
	int		grown;
	uint32_t	fill;		/* a data block made here that has room (0: none) */
	unsigned	fill_count;	/* its records */
};

static errcode_t qt_io(struct qt_file *q, uint32_t blk, unsigned char *buf, int write)
{
	unsigned done = 0;
	errcode_t err;

	if (!write)
		memset(buf, 0, QT_BLOCK);
	if (!write && (uint64_t)blk * QT_BLOCK >= q->size)
		return 0;	/* past the end reads zeros */
	err = ext2fs_file_llseek(q->file, (uint64_t)blk * QT_BLOCK, EXT2_SEEK_SET, NULL);
	if (err)
		return err;
	err = write ? ext2fs_file_write(q->file, buf, QT_BLOCK, &done) :
		      ext2fs_file_read(q->file, buf, QT_BLOCK, &done);
	if (!err && write && done != QT_BLOCK)
		err = EXT2_ET_SHORT_WRITE;
	return err;
}

/* A new quota block at the end of the file, written from BUF. */
static errcode_t qt_append(struct qt_file *q, unsigned char *buf, uint32_t *blk)
{
	errcode_t err;

	if (q->nblocks == UINT32_MAX)
		return EXT2_ET_TOOSMALL;
	*blk = q->nblocks;
	err = qt_io(q, *blk, buf, 1);
	if (err)
		return err;
	q->nblocks++;
	q->grown = 1;
	if (q->size < (uint64_t)q->nblocks * QT_BLOCK)
		q->size = (uint64_t)q->nblocks * QT_BLOCK;	/* what it holds now reads back */
	return 0;
}

static int entry_free(const unsigned char *e)
{
	unsigned k;

	for (k = 0; k < QT_ENTRY_SIZE && !e[k]; k++)
		;
	return k == QT_ENTRY_SIZE;
}

/* What to write: one field of a record found, or a whole new record's usage. */
struct qt_change {
	uint32_t	id;
	int		missing;	/* a new record: SPACE and INODES */
	unsigned	field;		/* else: the offset of the one field to set */
	uint64_t	value, space, inodes;
};

/* Write the change into record E; an all-zero record would read as a free slot. */
static void set_usage(unsigned char *e, const struct qt_change *ch)
{
	put32(e, ch->id);
	if (ch->missing) {
		put64(e + QT_ENTRY_SPACE, ch->space);
		put64(e + QT_ENTRY_INODES, ch->inodes);
	} else {
		put64(e + ch->field, ch->value);
	}
	if (entry_free(e))
		put64(e + QT_ENTRY_ITIME, 1);	/* the kernel's mark of a used record */
}

static errcode_t qt_new_tree_block(struct qt_file *q, uint32_t *blk)
{
	unsigned char *nb = calloc(1, QT_BLOCK);
	errcode_t err;

	if (!nb)
		return ENOMEM;
	err = qt_append(q, nb, blk);
	free(nb);
	return err;
}

/*
 * A record for an id whose path ends in an empty slot: into the data block
 * this repair last made while it has room (the last free slot stays free,
 * as above), else into a new one. *BLK: the block that holds it.
 */
static errcode_t qt_new_record(struct qt_file *q, const struct qt_change *ch, uint32_t *blk)
{
	unsigned char *nb = calloc(1, QT_BLOCK);
	unsigned off = QT_DATA_HEADER, count = 0;
	errcode_t err;

	if (!nb)
		return ENOMEM;
	if (q->fill && q->fill_count + 1 < QT_ENTRIES) {
		err = qt_io(q, q->fill, nb, 0);
		if (err)
			goto out;
		count = nb[QT_DATA_COUNT] | nb[QT_DATA_COUNT + 1] << 8;
		for (off = QT_DATA_HEADER; off + QT_ENTRY_SIZE <= QT_BLOCK; off += QT_ENTRY_SIZE)
			if (entry_free(nb + off))
				break;
	}
	if (!q->fill || q->fill_count + 1 >= QT_ENTRIES || off + QT_ENTRY_SIZE > QT_BLOCK) {
		memset(nb, 0, QT_BLOCK);
		off = QT_DATA_HEADER;
		count = 0;
		q->fill = 0;
	}
	set_usage(nb + off, ch);
	count++;
	nb[QT_DATA_COUNT] = count & 0xff;
	nb[QT_DATA_COUNT + 1] = count >> 8;
	if (q->fill) {
		err = qt_io(q, q->fill, nb, 1);
		*blk = q->fill;
	} else {
		err = qt_append(q, nb, blk);
		q->fill = *blk;
	}
	q->fill_count = count;
out:
	free(nb);
	return err;
}

/*
 * Find ID's record along the tree (creating the path when MISSING) and set
 * its usage. BUF holds one quota block at a time.
 */
static errcode_t qt_set(struct qt_file *q, const struct qt_change *ch, unsigned char *buf)
{
	uint32_t id = ch->id;
	int missing = ch->missing;
	uint32_t blk = QT_ROOT, parent = 0, ref;
	unsigned slot = 0, off;
	errcode_t err;
	int depth;

	for (depth = 0; depth <= QT_DEPTH; depth++) {
		if (depth > 0) {
			/* the reference at PARENT's SLOT leads here; a missing one is made */
			if ((err = qt_io(q, parent, buf, 0)))
				return err;
			ref = get32(buf + 4 * slot);
			if (!ref) {
				if (!missing)
					return EXT2_ET_EA_KEY_NOT_FOUND;
				err = depth == QT_DEPTH ? qt_new_record(q, ch, &ref) :
							  qt_new_tree_block(q, &ref);
				if (err)
					return err;
				put32(buf + 4 * slot, ref);
				if ((err = qt_io(q, parent, buf, 1)))
					return err;
				if (depth == QT_DEPTH)
					return 0;
			} else if (ref >= q->nblocks) {
				return EXT2_ET_BAD_BLOCK_NUM;
			}
			blk = ref;
		}
		if (depth == QT_DEPTH)
			break;
		parent = blk;
		slot = (id >> (8 * (QT_DEPTH - 1 - depth))) & 0xff;
	}
	/* the data block for ID */
	if ((err = qt_io(q, blk, buf, 0)))
		return err;
	for (off = QT_DATA_HEADER; off + QT_ENTRY_SIZE <= QT_BLOCK; off += QT_ENTRY_SIZE)
		if (!entry_free(buf + off) && get32(buf + off) == id)
			break;
	if (off + QT_ENTRY_SIZE > QT_BLOCK) {
		unsigned count = buf[QT_DATA_COUNT] | buf[QT_DATA_COUNT + 1] << 8;

		/* a new record goes into a free slot; the last free one would leave a full
		 * block on the kernel's list of blocks with room: not taken */
		if (!missing || count + 1 >= QT_ENTRIES)
			return EXT2_ET_EA_KEY_NOT_FOUND;
		for (off = QT_DATA_HEADER; off + QT_ENTRY_SIZE <= QT_BLOCK; off += QT_ENTRY_SIZE)
			if (entry_free(buf + off))
				break;
		if (off + QT_ENTRY_SIZE > QT_BLOCK)
			return EXT2_ET_EA_KEY_NOT_FOUND;
		count++;
		buf[QT_DATA_COUNT] = count & 0xff;
		buf[QT_DATA_COUNT + 1] = count >> 8;
	}
	set_usage(buf + off, ch);
	return qt_io(q, blk, buf, 1);
}

errcode_t repair_quota_usage(struct check_ctx *c, const struct e4r_finding *f)
{
	ext2_filsys fs = c->fs;
	int t = quota_type_of(fs->super, f->ino);
	struct qt_file q = { 0 };
	unsigned char *buf;
	struct ext2_inode in;
	struct qt_change ch;
	errcode_t err, err2;
	int missing = f->code == E4R_PR_QUOTA_MISSING;

	if (t < 0 || f->qid == E4R_NONE || f->qid > UINT32_MAX || f->expected == E4R_NONE)
		return EINVAL;
	if (!fs->block_map || !fs->inode_map) {
		err = ext2fs_read_bitmaps(fs);
		if (err)
			return err;
	}
	err = ext2fs_read_inode(fs, (ext2_ino_t)f->ino, &in);
	if (err)
		return err;
	if (!LINUX_S_ISREG(in.i_mode))
		return EINVAL;
	buf = malloc(QT_BLOCK);
	if (!buf)
		return ENOMEM;
	err = ext2fs_file_open2(fs, (ext2_ino_t)f->ino, &in, EXT2_FILE_WRITE, &q.file);
	if (err)
		goto out;
	q.size = EXT2_I_SIZE(&in);
	err = qt_io(&q, 0, buf, 0);
	if (err)
		goto close;
	if (get32(buf) != qt_magic[t]) {
		err = EXT2_ET_BAD_MAGIC;
		goto close;
	}
	q.nblocks = get32(buf + QT_INFO_BLOCKS);
	/* a block count past the file's end would grow it by as much, mostly holes */
	if (q.nblocks < QT_ROOT + 1 ||
	    (uint64_t)q.nblocks * QT_BLOCK > (q.size + fs->blocksize - 1) / fs->blocksize * fs->blocksize) {
		err = EXT2_ET_BAD_BLOCK_NUM;
		goto close;
	}
	ch.id = (uint32_t)f->qid;
	ch.missing = missing;
	ch.field = f->code == E4R_PR_QUOTA_SPACE ? QT_ENTRY_SPACE : QT_ENTRY_INODES;
	ch.value = f->expected;
	ch.space = f->expected;		/* a missing record's finding: bytes expected, inodes found */
	ch.inodes = f->found;
	err = qt_set(&q, &ch, buf);
	if (!err && q.grown) {
		/* the info's block count follows the file */
		err = qt_io(&q, 0, buf, 0);
		if (!err) {
			put32(buf + QT_INFO_BLOCKS, q.nblocks);
			err = qt_io(&q, 0, buf, 1);
		}
	}
close:
	err2 = ext2fs_file_close(q.file);
	if (!err)
		err = err2;
out:
	free(buf);
	return err;
}

#define QT_VERSION		1u
#define QT_INFO			8u	/* after magic and version */
#define QT_DEFAULT_GRACE	604800u	/* a week, the quota tools' default */

struct qt_rewrite {
	struct qt_file	*q;
	unsigned char	*buf;
};

static errcode_t add_usage(void *arg, uint32_t id, uint64_t space, uint64_t inodes)
{
	struct qt_rewrite *w = arg;
	struct qt_change ch = { .id = id, .missing = 1, .space = space, .inodes = inodes };

	return qt_set(w->q, &ch, w->buf);
}

/*
 * A quota file that cannot be read, or whose header is not one we know:
 * e2fsck writes the whole file again from the usage it counted. So here:
 * the file's blocks are freed, a header (grace times kept when the old
 * header is ours), an empty root and one record per id charged in pass 1
 * are written. Limits the old file held are lost with it, as they are
 * when e2fsck cannot read them. This allocates: it runs after the rebuild.
 */
errcode_t repair_quota_rewrite(struct check_ctx *c, const struct e4r_finding *f)
{
	ext2_filsys fs = c->fs;
	int t = quota_type_of(fs->super, f->ino);
	ext2_ino_t ino = (ext2_ino_t)f->ino;
	uint32_t bgrace = QT_DEFAULT_GRACE, igrace = QT_DEFAULT_GRACE;
	struct qt_file q = { 0 };
	struct qt_rewrite w = { &q, NULL };
	struct ext2_inode in;
	unsigned char *buf;
	errcode_t err, err2;

	if (t < 0 || ino < 1 || ino > c->inodes)
		return EINVAL;
	if (!fs->block_map || !fs->inode_map) {
		err = ext2fs_read_bitmaps(fs);
		if (err)
			return err;
	}
	buf = calloc(1, QT_BLOCK);
	if (!buf)
		return ENOMEM;
	w.buf = buf;
	err = ext2fs_read_inode(fs, ino, &in);
	if (err)
		goto out;
	if (LINUX_S_ISREG(in.i_mode) && !ext2fs_file_open2(fs, ino, &in, 0, &q.file)) {
		q.size = EXT2_I_SIZE(&in);
		if (!qt_io(&q, 0, buf, 0) && get32(buf) == qt_magic[t] && get32(buf + 4) <= QT_VERSION) {
			bgrace = get32(buf + QT_INFO);
			igrace = get32(buf + QT_INFO + 4);
		}
		ext2fs_file_close(q.file);
		q.file = NULL;
	}
	if (!ext2fs_test_inode_bitmap2(c->inode_bad, ino) && LINUX_S_ISREG(in.i_mode)) {
		/* Free the old blocks (the rebuilt bitmap counts them used), then start empty. */
		err = ext2fs_punch(fs, ino, &in, NULL, 0, ~0ULL);
		if (!err)
			err = ext2fs_read_inode(fs, ino, &in);
		if (err)
			goto out;
	} else {
		/*
		 * A map pass 1 found broken is not walked: it is dropped, and the
		 * next round's bitmap rebuild frees what it held. libext2fs
		 * starts an empty extent tree in a zeroed i_block.
		 */
		memset(in.i_block, 0, sizeof(in.i_block));
		in.i_flags &= ~(EXT4_EXTENTS_FL | EXT4_INLINE_DATA_FL);
		if (ext2fs_has_feature_extents(fs->super))
			in.i_flags |= EXT4_EXTENTS_FL;
		ext2fs_iblk_set(fs, &in, 0);
	}
	in.i_mode = LINUX_S_IFREG | 0600;
	in.i_links_count = 1;
	in.i_dtime = 0;
	err = ext2fs_inode_size_set(fs, &in, 0);
	if (!err)
		err = ext2fs_write_inode(fs, ino, &in);
	if (!err)
		err = ext2fs_file_open2(fs, ino, &in, EXT2_FILE_WRITE, &q.file);
	if (err)
		goto out;
	q.size = 0;
	q.nblocks = 0;
	memset(buf, 0, QT_BLOCK);
	err = qt_append(&q, buf, &(uint32_t){ 0 });		/* block 0: the header, below */
	if (!err)
		err = qt_append(&q, buf, &(uint32_t){ 0 });	/* block 1: the empty root */
	if (!err)
		err = check_quota_each(c, t, add_usage, &w);
	if (!err) {
		memset(buf, 0, QT_BLOCK);
		put32(buf, qt_magic[t]);
		put32(buf + 4, QT_VERSION);
		put32(buf + QT_INFO, bgrace);
		put32(buf + QT_INFO + 4, igrace);
		put32(buf + QT_INFO_BLOCKS, q.nblocks);	/* flags and both free lists: 0 */
		err = qt_io(&q, 0, buf, 1);
	}
	err2 = ext2fs_file_close(q.file);
	if (!err)
		err = err2;
out:
	free(buf);
	return err;
}
