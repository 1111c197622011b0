/*
 * Repairs of quota: a quota inode number that cannot be one stops being
 * used, and a quota file whose usage is wrong, lacks an id, cannot be read
 * or has a header we do not know is written again whole, as e2fsck does:
 * the usage pass 1 counted, with the limits and grace times the old file
 * gave each id where it can be read.
 *
 * The file (v2, "vfsv1"; check/quota.c says more): 1 KiB quota blocks, a
 * header and info in block 0, a radix tree of depth 4 on the id from block
 * 1, data blocks of 72-byte records under it (a 16-byte header first).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/ctx.h"
#include "fs/bitmaps.h"
#include "fs/inode.h"
#include "repair/repair.h"
#include "util/array.h"
#include "util/bytes.h"
#include "util/nomem.h"

#define QT_BLOCK		1024u
#define QT_ROOT			1u
#define QT_DEPTH		4
#define QT_REFS			(QT_BLOCK / 4)
#define QT_DATA_HEADER		16u
#define QT_ENTRY_SIZE		72u
#define QT_ENTRIES		((QT_BLOCK - QT_DATA_HEADER) / QT_ENTRY_SIZE)
#define QT_ENTRY_IHARD		8u	/* offsets in a record: limits, usage, grace times */
#define QT_ENTRY_ISOFT		16u
#define QT_ENTRY_INODES		24u
#define QT_ENTRY_BHARD		32u
#define QT_ENTRY_BSOFT		40u
#define QT_ENTRY_SPACE		48u
#define QT_ENTRY_BTIME		56u
#define QT_ENTRY_ITIME		64u
/* a version 0 file's records: 32-bit limits and inode count (read, never written) */
#define QT_R0_ENTRY_SIZE	48u
#define QT_DATA_COUNT		8u	/* dqdh_entries: after the two free-list links */
#define QT_VERSION		1u
#define QT_INFO			8u	/* after magic and version: grace times, flags, blocks... */
#define QT_INFO_BLOCKS		(QT_INFO + 12u)
#define QT_DEFAULT_GRACE	604800u	/* a week, the quota tools' default */
#define QT_MAX_OLD_BLOCKS	(1u << 20)	/* an old file larger than 1 GiB: its limits are not read */

static const uint32_t qt_magic[E4R_QUOTA_TYPES] = { 0xd9c01f11, 0xd9c01927, 0xd9c03f14 };

static uint32_t get32(const unsigned char *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p)
{
	return get32(p) | (uint64_t)get32(p + 4) << 32;
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
errcode_t repair_quota_inode_off(struct check_ctx *c, const struct check_finding *f)
{
	int t = quota_type_of(c->fs->super, f->ino);

	if (t < 0)
		return EINVAL;
	*check_quota_inump(c->fs->super, t) = 0;
	ext2fs_mark_super_dirty(c->fs);
	return 0;
}

/*
 * A user or group field naming the other type's reserved inode: it names
 * its own type's reserved inode again, whose file the usage compare of the
 * next round reads (and rewrites if it must).
 */
errcode_t repair_quota_inode_home(struct check_ctx *c, const struct check_finding *f)
{
	/* both fields may name the same inode: the type is the one whose home F->expected is */
	int t = f->expected == EXT4_USR_QUOTA_INO ? 0 : f->expected == EXT4_GRP_QUOTA_INO ? 1 : -1;

	if (t < 0 || f->ino == E4R_NONE || *check_quota_inump(c->fs->super, t) != f->ino)
		return EINVAL;
	*check_quota_inump(c->fs->super, t) = (ext2_ino_t)f->expected;
	ext2fs_mark_super_dirty(c->fs);
	return 0;
}

static int entry_free(const unsigned char *e)
{
	return util_is_zero(e, QT_ENTRY_SIZE);
}

/* One quota file open through libext2fs, read or written by quota block. */
struct qt_file {
	ext2_file_t	file;
	uint64_t	size;
	uint32_t	nblocks;	/* dqi_blocks */
	uint32_t	fill;		/* the data block last made, while it has room (0: none) */
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
	if (q->size < (uint64_t)q->nblocks * QT_BLOCK)
		q->size = (uint64_t)q->nblocks * QT_BLOCK;	/* what it holds now reads back */
	return 0;
}

/* Record REC into the data block last made while it has room, else a new one; *BLK: where. */
static errcode_t qt_new_record(struct qt_file *q, const unsigned char *rec, uint32_t *blk)
{
	unsigned char *nb = calloc(1, QT_BLOCK);
	unsigned off = QT_DATA_HEADER, count = 0;
	errcode_t err = 0;

	if (!nb)
		return ENOMEM;
	/* the last free slot stays free: a full block on the kernel's list of blocks with room is an error */
	if (q->fill && q->fill_count + 1 < QT_ENTRIES) {
		err = qt_io(q, q->fill, nb, 0);
		if (err)
			goto out;
		count = q->fill_count;
		off = QT_DATA_HEADER + count * QT_ENTRY_SIZE;
	} else {
		q->fill = 0;
	}
	memcpy(nb + off, rec, QT_ENTRY_SIZE);
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

/* Insert REC (its id unique in the new file) along its path, making the tree blocks it lacks. */
static errcode_t qt_insert(struct qt_file *q, const unsigned char *rec, unsigned char *buf)
{
	uint32_t id = get32(rec), blk = QT_ROOT, ref;
	unsigned char *zero;
	errcode_t err;
	int depth;

	for (depth = 0; depth < QT_DEPTH; depth++) {
		unsigned slot = (id >> (8 * (QT_DEPTH - 1 - depth))) & 0xff;

		if ((err = qt_io(q, blk, buf, 0)))
			return err;
		ref = get32(buf + 4 * slot);
		if (!ref) {
			if (depth == QT_DEPTH - 1) {
				err = qt_new_record(q, rec, &ref);
			} else {
				zero = calloc(1, QT_BLOCK);
				err = zero ? qt_append(q, zero, &ref) : ENOMEM;
				free(zero);
			}
			if (err)
				return err;
			/* the block read above may have been the fill block: read it again */
			if ((err = qt_io(q, blk, buf, 0)))
				return err;
			put32(buf + 4 * slot, ref);
			if ((err = qt_io(q, blk, buf, 1)))
				return err;
		} else if (depth == QT_DEPTH - 1) {
			return EEXIST;	/* ids are unique: cannot happen */
		}
		blk = ref;
	}
	return 0;
}

/* The old file's records, sorted by id: the limits and grace times the new one keeps. */
struct qt_old {
	unsigned char	*rec;		/* n records of QT_ENTRY_SIZE */
	size_t		n, cap;
	uint8_t		*seen;		/* [old nblocks] tree blocks visited */
	uint8_t		*used;		/* [n] charged in pass 1 (written with its usage) */
	int		r0;		/* the old file is version 0: its records are converted */
};

/* A version 0 record R0 as a version 1 record REC (the grace times and limits kept). */
static void r0_to_r1(const unsigned char *r0, unsigned char *rec)
{
	memset(rec, 0, QT_ENTRY_SIZE);
	memcpy(rec, r0, 4);					/* the id */
	put64(rec + QT_ENTRY_IHARD, get32(r0 + 4));
	put64(rec + QT_ENTRY_ISOFT, get32(r0 + 8));
	put64(rec + QT_ENTRY_INODES, get32(r0 + 12));
	put64(rec + QT_ENTRY_BHARD, get32(r0 + 16));
	put64(rec + QT_ENTRY_BSOFT, get32(r0 + 20));
	put64(rec + QT_ENTRY_SPACE, get64(r0 + 24));
	put64(rec + QT_ENTRY_BTIME, get64(r0 + 32));
	put64(rec + QT_ENTRY_ITIME, get64(r0 + 40));
}

static errcode_t old_walk(struct qt_file *q, struct qt_old *o, uint32_t blk, int depth)
{
	unsigned char buf[QT_BLOCK];
	errcode_t err;
	unsigned i, size = o->r0 ? QT_R0_ENTRY_SIZE : QT_ENTRY_SIZE;

	if (blk >= q->nblocks || o->seen[blk])
		return 0;	/* a bad or repeated reference adds nothing */
	o->seen[blk] = 1;
	if ((err = qt_io(q, blk, buf, 0)))
		return err;
	if (depth < QT_DEPTH) {
		for (i = 0; i < QT_REFS; i++)
			if (get32(buf + 4 * i) && (err = old_walk(q, o, get32(buf + 4 * i), depth + 1)))
				return err;
		return 0;
	}
	for (i = QT_DATA_HEADER; i + size <= QT_BLOCK; i += size) {
		unsigned k;

		for (k = 0; k < size && !buf[i + k]; k++)
			;
		if (k == size)
			continue;	/* a free slot */
		if (util_grow_from((void **)&o->rec, &o->cap, o->n + 1, QT_ENTRY_SIZE, 64))
			return ENOMEM;
		if (o->r0)
			r0_to_r1(buf + i, o->rec + o->n++ * QT_ENTRY_SIZE);
		else
			memcpy(o->rec + o->n++ * QT_ENTRY_SIZE, buf + i, QT_ENTRY_SIZE);
	}
	return 0;
}

static int rec_cmp(const void *a, const void *b)
{
	uint32_t x = get32(a), y = get32(b);

	return x < y ? -1 : x > y;
}

/* Read what the old file holds, if its header is ours; grace times into *BGRACE, *IGRACE. */
static errcode_t old_read(struct check_ctx *c, ext2_ino_t ino, int t, struct qt_old *o,
			  uint32_t *bgrace, uint32_t *igrace)
{
	ext2_filsys fs = c->fs;
	struct qt_file q = { 0 };
	unsigned char hdr[QT_BLOCK];
	struct ext2_inode in;
	errcode_t err = 0;
	size_t i, j;

	if (fs_read_inode(fs, ino, &in) || !LINUX_S_ISREG(in.i_mode) ||
	    ext2fs_test_inode_bitmap2(c->inode_bad, ino) ||
	    ext2fs_file_open2(fs, ino, &in, 0, &q.file))
		return 0;	/* nothing to keep */
	q.size = EXT2_I_SIZE(&in);
	if (qt_io(&q, 0, hdr, 0) || get32(hdr) != qt_magic[t] || get32(hdr + 4) > QT_VERSION)
		goto out;
	o->r0 = get32(hdr + 4) == 0;
	*bgrace = get32(hdr + QT_INFO);
	*igrace = get32(hdr + QT_INFO + 4);
	q.nblocks = get32(hdr + QT_INFO_BLOCKS);
	if ((uint64_t)q.nblocks * QT_BLOCK > q.size + fs->blocksize)
		q.nblocks = (uint32_t)((q.size + QT_BLOCK - 1) / QT_BLOCK);	/* nothing past the end */
	if (q.nblocks > QT_MAX_OLD_BLOCKS)
		goto out;
	o->seen = calloc(q.nblocks + 1, 1);
	if (!o->seen) {
		err = ENOMEM;
		goto out;
	}
	o->seen[0] = 1;	/* the header is no tree block */
	err = old_walk(&q, o, QT_ROOT, 0);
	if (err && !util_no_memory(err))
		err = 0;	/* what could be read is kept */
	if (!err && o->n) {
		qsort(o->rec, o->n, QT_ENTRY_SIZE, rec_cmp);
		for (i = j = 1; i < o->n; i++)	/* one record per id: the first */
			if (get32(o->rec + i * QT_ENTRY_SIZE) != get32(o->rec + (j - 1) * QT_ENTRY_SIZE))
				memmove(o->rec + j++ * QT_ENTRY_SIZE, o->rec + i * QT_ENTRY_SIZE,
					QT_ENTRY_SIZE);
		o->n = j;
		o->used = calloc(o->n, 1);
		if (!o->used)
			err = ENOMEM;
	}
out:
	ext2fs_file_close(q.file);
	return err;
}

struct qt_rewrite {
	struct qt_file	*q;
	struct qt_old	*old;
	unsigned char	*buf;
};

/* One id charged in pass 1: its old record's limits, the usage counted. */
static errcode_t add_usage(void *arg, uint32_t id, uint64_t space, uint64_t inodes)
{
	struct qt_rewrite *w = arg;
	unsigned char rec[QT_ENTRY_SIZE] = { 0 }, key[4];
	unsigned char *old = NULL;

	put32(key, id);
	if (w->old->n)
		old = bsearch(key, w->old->rec, w->old->n, QT_ENTRY_SIZE, rec_cmp);
	if (old) {
		memcpy(rec, old, QT_ENTRY_SIZE);
		w->old->used[(old - w->old->rec) / QT_ENTRY_SIZE] = 1;
	}
	put32(rec, id);
	put64(rec + QT_ENTRY_SPACE, space);
	put64(rec + QT_ENTRY_INODES, inodes);
	if (entry_free(rec))
		put64(rec + QT_ENTRY_ITIME, 1);	/* the kernel's mark of a used record */
	return qt_insert(w->q, rec, w->buf);
}

/*
 * Give INO an empty regular file. A sound one keeps its blocks (*KEPT set):
 * the new records are written over them and what is left past the new end
 * is freed after; a block freed in a round stays taken until the round is
 * committed, so on a full filesystem the file could not be written again
 * into blocks it had just given up. When pass 1 found the map broken, the
 * blocks are dropped.
 */
static errcode_t qt_empty(struct check_ctx *c, ext2_ino_t ino, int *kept)
{
	ext2_filsys fs = c->fs;
	struct ext2_inode in;
	errcode_t err = fs_read_inode(fs, ino, &in);

	*kept = 0;
	if (err)
		return err;
	if (!ext2fs_test_inode_bitmap2(c->inode_bad, ino) && LINUX_S_ISREG(in.i_mode) &&
	    !(in.i_flags & EXT4_INLINE_DATA_FL)) {
		*kept = 1;	/* the size alone goes: nothing past it is read back */
	} else {
		/* not walked; the next round's bitmap rebuild frees what it held */
		memset(in.i_block, 0, sizeof(in.i_block));
		in.i_flags &= ~(EXT4_EXTENTS_FL | EXT4_INLINE_DATA_FL);
		if (ext2fs_has_feature_extents(fs->super))
			in.i_flags |= EXT4_EXTENTS_FL;	/* libext2fs starts a tree in a zeroed i_block */
		ext2fs_iblk_set(fs, &in, 0);
	}
	in.i_mode = LINUX_S_IFREG | 0600;
	in.i_links_count = 1;
	in.i_dtime = 0;
	err = ext2fs_inode_size_set(fs, &in, 0);
	if (!err)
		err = ext2fs_write_inode(fs, ino, &in);
	return err;
}

/*
 * Write quota file F->ino again: header, empty root, one record per id
 * charged in pass 1, then the old records of ids not charged that still
 * hold a limit or a grace time (their usage zero). This allocates: it runs
 * after the bitmaps are rebuilt.
 */
errcode_t repair_quota_rewrite(struct check_ctx *c, const struct check_finding *f)
{
	ext2_filsys fs = c->fs;
	int t = quota_type_of(fs->super, f->ino);
	ext2_ino_t ino = (ext2_ino_t)f->ino;
	uint32_t bgrace = QT_DEFAULT_GRACE, igrace = QT_DEFAULT_GRACE, blk;
	struct qt_file q = { 0 };
	struct qt_old old = { 0 };
	struct qt_rewrite w = { &q, &old, NULL };
	struct ext2_inode in;
	unsigned char *buf;
	errcode_t err, err2;
	int kept = 0;
	size_t i;

	if (t < 0 || ino < 1 || ino > c->inodes)
		return EINVAL;
	if (!fs->block_map || !fs->inode_map) {
		err = fs_read_bitmaps(fs);
		if (err)
			return err;
	}
	buf = calloc(1, QT_BLOCK);
	if (!buf)
		return ENOMEM;
	w.buf = buf;
	err = old_read(c, ino, t, &old, &bgrace, &igrace);
	if (!err)
		err = qt_empty(c, ino, &kept);
	if (!err)
		err = fs_read_inode(fs, ino, &in);
	if (!err)
		err = ext2fs_file_open2(fs, ino, &in, EXT2_FILE_WRITE, &q.file);
	if (err)
		goto out;
	memset(buf, 0, QT_BLOCK);
	err = qt_append(&q, buf, &blk);			/* block 0: the header, written last */
	if (!err)
		err = qt_append(&q, buf, &blk);		/* block 1: the root, empty */
	if (!err)
		err = check_quota_each(c, t, add_usage, &w);
	/* ids no inode is charged to: kept only for a limit (no usage, so no grace time runs) */
	for (i = 0; !err && i < old.n; i++) {
		unsigned char *r = old.rec + i * QT_ENTRY_SIZE;

		if (old.used[i] || !(get64(r + QT_ENTRY_IHARD) | get64(r + QT_ENTRY_ISOFT) |
				     get64(r + QT_ENTRY_BHARD) | get64(r + QT_ENTRY_BSOFT)))
			continue;
		put64(r + QT_ENTRY_SPACE, 0);
		put64(r + QT_ENTRY_INODES, 0);
		put64(r + QT_ENTRY_BTIME, 0);
		put64(r + QT_ENTRY_ITIME, 0);
		err = qt_insert(&q, r, buf);
	}
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
	/* the old file's blocks past the new end: the rebuilt bitmap counts them used, freed here */
	if (!err && kept && !(err = fs_read_inode(fs, ino, &in)))
		err = ext2fs_punch(fs, ino, &in, NULL,
				   (q.size + fs->blocksize - 1) / fs->blocksize, ~0ULL);
out:
	free(old.rec);
	free(old.seen);
	free(old.used);
	free(buf);
	return err;
}
