/*
 * Checker, after pass 5: quota usage. Pass 1 charges every inode's blocks
 * and itself to its user, group and project; here each quota file (the
 * hidden inodes the superblock names) is read and every record's usage
 * compared with what was charged, as e2fsck does.
 *
 * The quota file format (v2, "vfsv1"), from the quota tools' documentation:
 * a header (magic per quota type, version), an info block (grace times,
 * flags, the file's size in 1 KiB quota blocks, free lists), then a radix
 * tree of depth 4 over the 32-bit id, one byte of the id per level, rooted
 * at quota block 1. Each tree block is 256 little-endian 32-bit references;
 * the last level refers to data blocks: a 16-byte header, then records of
 * 72 bytes each (id, limits, inodes in use, bytes in use, grace times).
 * A record of all zero bytes is a free slot.
 *
 * Fills in nothing for later passes: reads the usage pass 1 charged (c->quota).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/ctx.h"
#include "fs/inode.h"
#include "util/bytes.h"
#include "util/e4r_err.h"
#include "util/hashtab.h"
#include "util/nomem.h"

#define QT_BLOCK		1024u	/* quota blocks are 1 KiB whatever the filesystem's */
#define QT_ROOT			1u
#define QT_DEPTH		4
#define QT_REFS			(QT_BLOCK / 4)
#define QT_DATA_HEADER		16u
#define QT_ENTRY_SIZE		72u	/* version 1 records */
#define QT_ENTRY_INODES		24u	/* offsets in a record (64-bit counts) */
#define QT_ENTRY_SPACE		48u
/* version 0 records (e2fsck 1.47 reads them so): 32-bit limits and inode count, 64-bit space */
#define QT_R0_ENTRY_SIZE	48u
#define QT_R0_ENTRY_INODES	12u
#define QT_R0_ENTRY_SPACE	24u
#define QT_INFO_BLOCKS		(8u + 12u)	/* dqi_blocks: after the 8-byte header and three fields */
#define QT_INFO_FREE_BLK	(QT_INFO_BLOCKS + 4u)	/* the free lists' first blocks follow it */
#define QT_INFO_FREE_ENTRY	(QT_INFO_BLOCKS + 8u)
#define QT_MAX_VERSION		1u

static const uint32_t qt_magic[E4R_QUOTA_TYPES] = { 0xd9c01f11, 0xd9c01927, 0xd9c03f14 };

/* One id's usage; a table of them per quota type (open addressing on the id). */
struct qt_usage {
	uint32_t	id;
	uint8_t		used, seen;
	uint64_t	space, inodes;
};

struct qt_table {
	struct qt_usage	*slot;
	size_t		n, cap;		/* cap: a power of two, or 0 */
	struct qt_usage	*last;		/* the slot found last: inodes in a row mostly share their ids */
};

struct check_quota {
	struct qt_table	usage[E4R_QUOTA_TYPES];
	int		active[E4R_QUOTA_TYPES];	/* the type has a quota file to compare with */
	errcode_t	err;				/* ENOMEM while charging */
};

static uint32_t le32(const unsigned char *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

static size_t qt_hash(uint32_t id)
{
	return (uint32_t)(id * 2654435761u);
}

static size_t qt_slot_hash(const void *slot, const void *arg)
{
	(void)arg;
	return qt_hash(((const struct qt_usage *)slot)->id);
}

static const struct util_hashtab_kind qt_kind = {
	UTIL_HASHTAB_SLOT(struct qt_usage, used), 64, qt_slot_hash
};

/* qt_lookup past the slot found last. */
static struct qt_usage *qt_search(struct qt_table *t, uint32_t id, int create)
{
	size_t i, cap = t->cap;

	if (create && util_hashtab_room((void **)&t->slot, &t->cap, t->n + 1, &qt_kind, NULL))
		return NULL;
	if (t->cap != cap)
		t->last = NULL;		/* it pointed into the old table */
	if (!t->cap)
		return NULL;
	for (i = qt_hash(id) & (t->cap - 1); t->slot[i].used; i = (i + 1) & (t->cap - 1))
		if (t->slot[i].id == id)
			return t->last = &t->slot[i];
	if (!create)
		return NULL;
	t->slot[i].used = 1;
	t->slot[i].id = id;
	t->n++;
	return t->last = &t->slot[i];
}

/* The slot for ID, created empty when CREATE (NULL when absent, or out of memory). */
static inline struct qt_usage *qt_lookup(struct qt_table *t, uint32_t id, int create)
{
	if (t->last && t->last->id == id)
		return t->last;
	return qt_search(t, id, create);
}

uint32_t *check_quota_inump(struct ext2_super_block *sb, int type)
{
	return type == 0 ? &sb->s_usr_quota_inum : type == 1 ? &sb->s_grp_quota_inum :
	       &sb->s_prj_quota_inum;
}

/* e2fsck's rule: a quota inode may not be one of the other reserved inodes, nor out of range. */
static int quota_ino_valid(ext2_filsys fs, ext2_ino_t ino)
{
	switch (ino) {
	case EXT2_BAD_INO: case EXT2_ROOT_INO: case EXT2_BOOT_LOADER_INO: case EXT2_UNDEL_DIR_INO:
	case EXT2_RESIZE_INO: case EXT2_JOURNAL_INO: case EXT2_EXCLUDE_INO: case EXT4_REPLICA_INO:
		return 0;
	default:
		return ino <= fs->super->s_inodes_count;
	}
}

/* The reserved inode a user or group quota file lives in (the project one has none). */
static ext2_ino_t quota_reserved_ino(int type)
{
	return type == 0 ? EXT4_USR_QUOTA_INO : type == 1 ? EXT4_GRP_QUOTA_INO : 0;
}

int check_is_quota_ino(struct check_ctx *c, ext2_ino_t ino)
{
	const struct ext2_super_block *sb = c->fs->super;

	/* the fields check_quota_inump names, one per quota type */
	return ino && (ino == sb->s_usr_quota_inum || ino == sb->s_grp_quota_inum ||
		       ino == sb->s_prj_quota_inum);
}

/*
 * An inode no directory names: the reserved ones, the quota files and the
 * orphan file while their features say so.
 */
int check_hidden_ino(struct check_ctx *c, ext2_ino_t ino)
{
	struct ext2_super_block *sb = c->fs->super;

	if (ino < c->first_ino && ino != EXT2_ROOT_INO)
		return 1;
	if (ext2fs_has_feature_quota(sb) && check_is_quota_ino(c, ino))
		return 1;
	return ext2fs_has_feature_orphan_file(sb) && ino == sb->s_orphan_file_inum;
}

errcode_t check_quota_setup(struct check_ctx *c)
{
	ext2_filsys fs = c->fs;
	int t, active[E4R_QUOTA_TYPES] = { 0 }, any = 0;

	/*
	 * Judged with the feature or without it, as e2fsck judges them: a
	 * field left naming the root makes every entry that names the root
	 * bad (an inode number a quota file holds), feature or not.
	 */
	for (t = 0; t < E4R_QUOTA_TYPES; t++) {
		ext2_ino_t ino = *check_quota_inump(fs->super, t);
		struct check_finding f;

		if (!ino)
			continue;
		if (!quota_ino_valid(fs, ino)) {
			f = check_finding_init(ext2fs_has_feature_quota(fs->super) ?
					       E4R_PR_QUOTA_INODE_INVALID_FEATURE :
					       E4R_PR_QUOTA_INODE_INVALID);
			f.ino = ino;
			f.name = (char *)check_quota_type_name(t);
			check_report(c, &f);
			continue;
		}
		/*
		 * The user or group field naming the other one's reserved inode:
		 * that file is read as this type's on every mount. The field goes
		 * back to this type's own reserved inode (E4R_FIX_QUOTA_INODE_HOME).
		 */
		if (ext2fs_has_feature_quota(fs->super) && quota_reserved_ino(t) &&
		    quota_reserved_ino(t) != ino &&
		    (ino == EXT4_USR_QUOTA_INO || ino == EXT4_GRP_QUOTA_INO)) {
			f = check_finding_init(E4R_PR_QUOTA_INODE_OTHER_TYPE);
			f.ino = ino;
			f.name = (char *)check_quota_type_name(t);
			f.expected = quota_reserved_ino(t);
			check_report(c, &f);
			continue;
		}
		active[t] = 1;
		any = 1;
	}
	if (!any || !ext2fs_has_feature_quota(fs->super))
		return 0;
	c->quota = calloc(1, sizeof(*c->quota));
	if (!c->quota)
		return ENOMEM;
	memcpy(c->quota->active, active, sizeof(active));
	return 0;
}

void check_quota_charge(struct check_ctx *c, ext2_ino_t ino, const struct ext2_inode_large *in,
			uint64_t bytes, uint64_t inodes)
{
	struct check_quota *q = c->quota;
	unsigned isize = EXT2_INODE_SIZE(c->fs->super);
	uint32_t id[E4R_QUOTA_TYPES];
	int t;

	/* Hidden inodes (quota files, the orphan file) and xattr value inodes are charged to nobody. */
	if (!q || (ino < c->first_ino && ino != EXT2_ROOT_INO) || check_is_quota_ino(c, ino) ||
	    ino == c->fs->super->s_orphan_file_inum || (in->i_flags & EXT4_EA_INODE_FL))
		return;
	id[0] = inode_uid(*in);
	id[1] = inode_gid(*in);
	id[2] = 0;
	if (isize > EXT2_GOOD_OLD_INODE_SIZE &&
	    inode_includes(EXT2_GOOD_OLD_INODE_SIZE + in->i_extra_isize, i_projid) &&
	    EXT2_GOOD_OLD_INODE_SIZE + (unsigned)in->i_extra_isize <= isize)
		id[2] = inode_projid(*in);
	for (t = 0; t < E4R_QUOTA_TYPES; t++) {
		struct qt_usage *u;

		if (!q->active[t])
			continue;
		u = qt_lookup(&q->usage[t], id[t], 1);
		if (!u) {
			q->err = ENOMEM;
			return;
		}
		u->space += bytes;
		u->inodes += inodes;
	}
}

/* Reading one quota file: its tree, the blocks already visited (a set, like the usage table). */
struct qt_reader {
	struct check_ctx	*c;
	int			type;
	ext2_ino_t		ino;
	ext2_file_t		file;
	struct ext2_inode	inode;		/* read once, for ext2fs_bmap2 per block */
	uint64_t		size;		/* i_size */
	uint32_t		nblocks;	/* dqi_blocks: references must be below */
	struct qt_table		visited;
	uint32_t		version;	/* the header's, when it is one we do not know */
	int			r0;		/* a version 0 file: its records are laid out otherwise */
	unsigned char		buf[QT_DEPTH + 1][QT_BLOCK];
};

/* Read quota block BLK into BUF; past the end of the file reads zeros, as the kernel's does. */
static errcode_t qt_read(struct qt_reader *r, uint32_t blk, unsigned char *buf)
{
	uint64_t off = (uint64_t)blk * QT_BLOCK;
	unsigned got = 0;
	errcode_t err;

	ext2_filsys fs = r->c->fs;
	blk64_t pblk = 0;

	memset(buf, 0, QT_BLOCK);
	if (off >= r->size)
		return 0;
	/*
	 * A block the file maps outside the filesystem (pass 1 names the
	 * mapping) makes the file unreadable, as for e2fsck; read through,
	 * it would look like a failing device and stop the whole check.
	 */
	err = ext2fs_bmap2(fs, r->ino, &r->inode, NULL, 0, off / fs->blocksize, NULL, &pblk);
	if (!err && pblk && (pblk < fs->super->s_first_data_block || pblk >= ext2fs_blocks_count(fs->super)))
		err = EXT2_ET_BAD_BLOCK_NUM;
	if (!err)
		err = ext2fs_file_llseek(r->file, off, EXT2_SEEK_SET, NULL);
	if (!err)
		err = ext2fs_file_read(r->file, buf, QT_BLOCK, &got);
	return err;
}

static void report_usage(struct qt_reader *r, enum check_problem code, uint32_t id,
			 uint64_t expected, uint64_t found)
{
	struct check_finding f = check_finding_init(code);

	f.ino = r->ino;
	f.name = (char *)check_quota_type_name(r->type);
	f.qid = id;
	f.expected = expected;
	f.found = found;
	check_report(r->c, &f);
}

/* Compare every record of a data block with the usage charged in pass 1. */
static void qt_data_block(struct qt_reader *r, const unsigned char *b)
{
	struct qt_table *t = &r->c->quota->usage[r->type];
	unsigned off, size = r->r0 ? QT_R0_ENTRY_SIZE : QT_ENTRY_SIZE;

	for (off = QT_DATA_HEADER; off + size <= QT_BLOCK; off += size) {
		const unsigned char *e = b + off;
		uint32_t id = le32(e);
		uint64_t space = le64(e + (r->r0 ? QT_R0_ENTRY_SPACE : QT_ENTRY_SPACE));
		uint64_t inodes = r->r0 ? le32(e + QT_R0_ENTRY_INODES) : le64(e + QT_ENTRY_INODES);
		struct qt_usage *u;

		if (util_is_zero(e, size))
			continue;	/* a free slot */
		u = qt_lookup(t, id, 0);
		if (u)
			u->seen = 1;
		if (space != (u ? u->space : 0))
			report_usage(r, E4R_PR_QUOTA_SPACE, id, u ? u->space : 0, space);
		if (inodes != (u ? u->inodes : 0))
			report_usage(r, E4R_PR_QUOTA_INODES, id, u ? u->inodes : 0, inodes);
	}
}

/* Walk the subtree at quota block BLK, DEPTH levels below the root (QT_DEPTH: a data block). */
static errcode_t qt_walk(struct qt_reader *r, uint32_t blk, int depth)
{
	unsigned char *b = r->buf[depth];
	struct qt_usage *v;
	errcode_t err;
	unsigned i;

	if (blk >= r->nblocks)
		return E4R_QUOTA_BAD_REF;
	if (qt_lookup(&r->visited, blk, 0))
		return 0;	/* a data block holds many ids; a tree block seen twice adds nothing */
	v = qt_lookup(&r->visited, blk, 1);
	if (!v)
		return ENOMEM;
	err = qt_read(r, blk, b);
	if (err)
		return err;
	if (depth == QT_DEPTH) {
		qt_data_block(r, b);
		return 0;
	}
	for (i = 0; i < QT_REFS; i++) {
		uint32_t ref = le32(b + 4 * i);

		if (ref && (err = qt_walk(r, ref, depth + 1)))
			return err;
	}
	return 0;
}

static errcode_t qt_compare(struct qt_reader *r)
{
	ext2_filsys fs = r->c->fs;
	struct ext2_inode *in = &r->inode;
	unsigned char *hdr = r->buf[0];
	errcode_t err;

	err = fs_read_inode(fs, r->ino, in);
	if (err)
		return err;
	if (!LINUX_S_ISREG(in->i_mode))
		return E4R_QUOTA_NOT_FILE;
	r->size = EXT2_I_SIZE(in);
	err = ext2fs_file_open2(fs, r->ino, in, 0, &r->file);
	if (err)
		return err;
	r->nblocks = QT_BLOCK;	/* the header block itself may be read */
	err = qt_read(r, 0, hdr);
	if (err)
		return err;
	/*
	 * Free lists pointing past the blocks the file claims (a header read
	 * as zeroes claims none) keep e2fsck from opening the file whatever its
	 * magic: it writes the file anew, as the repair of a bad file does
	 */
	r->nblocks = le32(hdr + QT_INFO_BLOCKS);
	if (le32(hdr + QT_INFO_FREE_BLK) >= r->nblocks || le32(hdr + QT_INFO_FREE_ENTRY) >= r->nblocks)
		return E4R_QUOTA_BAD_REF;
	if (le32(hdr) != qt_magic[r->type])
		return E4R_QUOTA_BAD_HEADER;
	/* the right magic under a version e2fsck cannot open: it writes the file anew */
	if (le32(hdr + 4) > QT_MAX_VERSION) {
		r->version = le32(hdr + 4);
		return E4R_QUOTA_BAD_HEADER;
	}
	r->r0 = le32(hdr + 4) == 0;
	return qt_walk(r, QT_ROOT, 0);
}

errcode_t check_quota(struct check_ctx *c)
{
	struct check_quota *q = c->quota;
	int t;

	if (!q)
		return 0;
	if (q->err)
		return q->err;
	for (t = 0; t < E4R_QUOTA_TYPES; t++) {
		struct qt_reader *r;
		errcode_t err;
		uint32_t version;
		size_t i;

		if (!q->active[t])
			continue;
		/* a compare again after repairs (repair/) marks the ids the file holds anew */
		for (i = 0; i < q->usage[t].cap; i++)
			q->usage[t].slot[i].seen = 0;
		r = calloc(1, sizeof(*r));
		if (!r)
			return ENOMEM;
		r->c = c;
		r->type = t;
		r->ino = *check_quota_inump(c->fs->super, t);
		err = qt_compare(r);
		version = r->version;
		if (r->file)
			ext2fs_file_close(r->file);
		free(r->visited.slot);
		free(r);
		if (util_no_memory(err))
			return err;
		if (err) {
			int code = err != E4R_QUOTA_BAD_HEADER ? E4R_PR_QUOTA_FILE_BAD :
				   version ? E4R_PR_QUOTA_VERSION : E4R_PR_QUOTA_HEADER;
			struct check_finding f = check_finding_init(code);

			f.ino = *check_quota_inump(c->fs->super, t);
			f.name = (char *)check_quota_type_name(t);
			f.found = code == E4R_PR_QUOTA_VERSION ? version : (uint64_t)err;
			f.expected = code == E4R_PR_QUOTA_VERSION ? QT_MAX_VERSION : E4R_NONE;
			check_report(c, &f);
			continue;
		}
		/* Ids that own inodes but have no record in the file. */
		for (i = 0; i < q->usage[t].cap; i++) {
			struct qt_usage *u = &q->usage[t].slot[i];
			struct check_finding f;

			if (!u->used || u->seen)
				continue;
			f = check_finding_init(E4R_PR_QUOTA_MISSING);
			f.ino = *check_quota_inump(c->fs->super, t);
			f.name = (char *)check_quota_type_name(t);
			f.qid = u->id;
			f.expected = u->space;
			f.found = u->inodes;
			check_report(c, &f);
		}
	}
	return 0;
}

errcode_t check_quota_each(struct check_ctx *c, int type,
			   errcode_t (*fn)(void *arg, uint32_t id, uint64_t space, uint64_t inodes),
			   void *arg)
{
	struct check_quota *q = c->quota;
	size_t i;
	errcode_t err;

	if (!q || type < 0 || type >= E4R_QUOTA_TYPES || !q->active[type])
		return EINVAL;
	if (q->err)
		return q->err;	/* the count is incomplete */
	for (i = 0; i < q->usage[type].cap; i++) {
		const struct qt_usage *u = &q->usage[type].slot[i];

		if (u->used && (err = fn(arg, u->id, u->space, u->inodes)))
			return err;
	}
	return 0;
}

void check_quota_free(struct check_ctx *c)
{
	int t;

	if (!c->quota)
		return;
	for (t = 0; t < E4R_QUOTA_TYPES; t++)
		free(c->quota->usage[t].slot);
	free(c->quota);
	c->quota = NULL;
}

const char *check_quota_type_name(int type)
{
	static const char *const names[E4R_QUOTA_TYPES] = { "user", "group", "project" };

	return type >= 0 && type < E4R_QUOTA_TYPES ? names[type] : "unknown";
}
