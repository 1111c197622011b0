/* Parsing the journal's fast-commit area with the kernel's and e2fsck's scan rules (ext4_fc_replay_scan). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "jbd/fc.h"
#include "util/array.h"
#include "util/crc.h"
#include "util/e4r_err.h"

/* The only HEAD feature bits any kernel defines: none. */
#define JBD_FC_SUPPORTED_FEATURES	0U

/* The tag and length at P. */
static void read_tl(const unsigned char *p, unsigned *tag, unsigned *len)
{
	struct jbd_fc_tl tl;

	jbd_load(&tl, p);
	*tag = jbd_le16(tl.fc_tag);
	*len = jbd_le16(tl.fc_len);
}

struct fc_parser {
	struct jbd_fc		*fc;
	unsigned		cap;		/* tags allocated */
	unsigned		blocksize;
	struct jbd_fc_limits	lim;
	uint32_t		crc;		/* running crc32c since the last TAIL */
	int			done;		/* the scan stopped */
};

/* The kernel's ext4_fc_value_len_isvalid(): is LEN a possible length for TAG? */
static int value_len_valid(const struct fc_parser *p, unsigned tag, unsigned len)
{
	switch (tag) {
	case JBD_FC_TAG_ADD_RANGE:
		return len == JBD_FC_ADD_RANGE_SIZE;
	case JBD_FC_TAG_DEL_RANGE:
		return len == JBD_FC_DEL_RANGE_SIZE;
	case JBD_FC_TAG_CREAT:
	case JBD_FC_TAG_LINK:
	case JBD_FC_TAG_UNLINK:
		return len > JBD_FC_DENTRY_SIZE && len - JBD_FC_DENTRY_SIZE <= JBD_FC_NAME_MAX;
	case JBD_FC_TAG_INODE:
		return len >= JBD_FC_INODE_HDR_SIZE + JBD_FC_GOOD_OLD_INODE &&
		       (!p->lim.inode_size || len - JBD_FC_INODE_HDR_SIZE <= p->lim.inode_size);
	case JBD_FC_TAG_PAD:
		return 1;
	case JBD_FC_TAG_TAIL:
		return len >= JBD_FC_TAIL_MIN_SIZE;
	case JBD_FC_TAG_HEAD:
		return len == JBD_FC_HEAD_SIZE;
	}
	return 0;
}

static int known_tag(unsigned tag)
{
	return tag >= JBD_FC_TAG_ADD_RANGE && tag <= JBD_FC_TAG_HEAD;
}

/* End the scan. A damaged tag before any complete fast commit fails the whole recovery (kernel: -ECANCELED / -EFSBADCRC). */
static void stop_at(struct fc_parser *p, enum jbd_fc_stop why, uint32_t jblk, unsigned off,
		    uint16_t tag, uint16_t len, errcode_t err_if_none)
{
	struct jbd_fc *fc = p->fc;

	fc->stop = why;
	fc->stop_jblk = jblk;
	fc->stop_offset = off;
	fc->stop_tag = tag;
	fc->stop_len = len;
	fc->stop_error = fc->ncommitted ? 0 : err_if_none;
	p->done = 1;
}

static errcode_t new_tag(struct fc_parser *p, struct jbd_fc_tag **out)
{
	struct jbd_fc *fc = p->fc;
	errcode_t err = util_grow((void **)&fc->tags, &p->cap, fc->ntags + 1, sizeof(*fc->tags));

	if (err)
		return err;
	*out = &fc->tags[fc->ntags];
	memset(*out, 0, sizeof(**out));
	return 0;
}

static int ino_ok(const struct fc_parser *p, uint32_t ino)
{
	return ino >= 1 && (!p->lim.inodes_count || ino <= p->lim.inodes_count);
}

static void decode_range(const struct fc_parser *p, struct jbd_fc_tag *t, const unsigned char *v)
{
	unsigned ee_len;

	if (t->tag == JBD_FC_TAG_DEL_RANGE) {
		struct jbd_fc_del_range d;

		jbd_load(&d, v);
		t->ino = jbd_le32(d.fc_ino);
		t->lblk = jbd_le32(d.fc_lblk);
		t->nblocks = jbd_le32(d.fc_len);
	} else {
		struct jbd_fc_add_range a;

		jbd_load(&a, v);
		t->ino = jbd_le32(a.fc_ino);
		t->lblk = jbd_le32(a.ee_block);
		ee_len = jbd_le16(a.ee_len);
		t->unwritten = ee_len > JBD_FC_EXT_INIT_MAX_LEN;
		t->nblocks = t->unwritten ? ee_len - JBD_FC_EXT_INIT_MAX_LEN : ee_len;
		t->pblk = ((uint64_t)jbd_le16(a.ee_start_hi) << 32) | jbd_le32(a.ee_start_lo);
	}
	if (!ino_ok(p, t->ino))
		t->value_error = E4R_FC_BAD_INODE;
	else if ((uint64_t)t->lblk + t->nblocks > ((uint64_t)1 << 32))
		t->value_error = E4R_FC_BAD_RANGE;
	else if (t->tag == JBD_FC_TAG_ADD_RANGE &&
		 (!t->nblocks || !t->pblk ||
		  (p->lim.blocks_count && t->pblk + t->nblocks > p->lim.blocks_count)))
		t->value_error = E4R_FC_BAD_RANGE;
}

static errcode_t decode_dentry(const struct fc_parser *p, struct jbd_fc_tag *t, const unsigned char *v)
{
	struct jbd_fc_dentry_info d;

	jbd_load(&d, v);
	t->parent = jbd_le32(d.fc_parent_ino);
	t->ino = jbd_le32(d.fc_ino);
	t->name_len = t->len - JBD_FC_DENTRY_SIZE;	/* 1..255: checked by value_len_valid */
	t->name = malloc(t->name_len + 1);
	if (!t->name)
		return EXT2_ET_NO_MEMORY;
	memcpy(t->name, v + JBD_FC_DENTRY_SIZE, t->name_len);
	t->name[t->name_len] = 0;
	if (!ino_ok(p, t->parent) || !ino_ok(p, t->ino))
		t->value_error = E4R_FC_BAD_INODE;
	return 0;
}

static errcode_t decode_inode(const struct fc_parser *p, struct jbd_fc_tag *t, const unsigned char *v)
{
	struct jbd_fc_inode in;

	jbd_load(&in, v);
	t->ino = jbd_le32(in.fc_ino);
	t->raw_inode_len = t->len - JBD_FC_INODE_HDR_SIZE;
	t->raw_inode = malloc(t->raw_inode_len);
	if (!t->raw_inode)
		return EXT2_ET_NO_MEMORY;
	memcpy(t->raw_inode, v + JBD_FC_INODE_HDR_SIZE, t->raw_inode_len);
	if (!ino_ok(p, t->ino))
		t->value_error = E4R_FC_BAD_INODE;
	return 0;
}

/* HEAD: features and tid must match, else the area is stale or unusable. Returns 1 if the scan goes on. */
static int check_head(struct fc_parser *p, struct jbd_fc_tag *t, const unsigned char *v)
{
	struct jbd_fc_head h;

	jbd_load(&h, v);
	t->features = jbd_le32(h.fc_features);
	t->tid = jbd_le32(h.fc_tid);
	if (t->features & ~JBD_FC_SUPPORTED_FEATURES) {
		stop_at(p, JBD_FC_STOP_HEAD_FEATURES, t->jblk, t->offset, t->tag, t->len, E4R_FC_FEATURES);
		p->fc->stop_error = E4R_FC_FEATURES;	/* the kernel fails even after good fast commits */
		return 0;
	}
	if (t->tid != p->fc->expected_tid) {
		stop_at(p, JBD_FC_STOP_HEAD_TID, t->jblk, t->offset, t->tag, t->len, 0);
		return 0;
	}
	return 1;
}

/* TAIL: a matching tid and crc commit every tag so far, itself included (the kernel's count). */
static void check_tail(struct fc_parser *p, struct jbd_fc_tag *t, const unsigned char *cur)
{
	struct jbd_fc *fc = p->fc;
	struct jbd_fc_tail tail;

	jbd_load(&tail, cur + JBD_FC_TLV_HEADER_SIZE);
	t->tid = jbd_le32(tail.fc_tid);
	t->crc_stored = jbd_le32(tail.fc_crc);
	/* The tail's own crc covers its header and tid only. */
	t->crc_computed = util_crc32c(p->crc, cur, JBD_FC_TLV_HEADER_SIZE + offsetof(struct jbd_fc_tail, fc_crc));
	p->crc = 0;
	t->crc_ok = t->tid == fc->expected_tid && t->crc_stored == t->crc_computed;
	if (!t->crc_ok) {
		stop_at(p, JBD_FC_STOP_BAD_TAIL, t->jblk, t->offset, t->tag, t->len, E4R_FC_BAD_CRC);
		return;
	}
	fc->ncommitted = fc->ntags;
}

/* Decode the tag at CUR (its length already validated). Returns 0, or ENOMEM. */
static errcode_t parse_tag(struct fc_parser *p, const unsigned char *cur, uint32_t jblk, unsigned off)
{
	struct jbd_fc_tag *t;
	const unsigned char *v = cur + JBD_FC_TLV_HEADER_SIZE;
	unsigned tag, len;
	errcode_t err;
	int counted = 1;

	err = new_tag(p, &t);
	if (err)
		return err;
	read_tl(cur, &tag, &len);
	t->tag = tag;
	t->len = len;
	t->jblk = jblk;
	t->offset = off;
	switch (t->tag) {
	case JBD_FC_TAG_ADD_RANGE:
	case JBD_FC_TAG_DEL_RANGE:
		decode_range(p, t, v);
		break;
	case JBD_FC_TAG_CREAT:
	case JBD_FC_TAG_LINK:
	case JBD_FC_TAG_UNLINK:
		err = decode_dentry(p, t, v);
		break;
	case JBD_FC_TAG_INODE:
		err = decode_inode(p, t, v);
		break;
	case JBD_FC_TAG_HEAD:
		counted = check_head(p, t, v);
		break;
	}
	p->fc->ntags++;		/* even on ENOMEM, so jbd_fc_free frees its copies */
	if (err)
		return err;
	if (t->tag != JBD_FC_TAG_TAIL && counted)
		p->crc = util_crc32c(p->crc, cur, JBD_FC_TLV_HEADER_SIZE + t->len);
	if (t->tag == JBD_FC_TAG_TAIL)
		check_tail(p, t, cur);
	return 0;
}

/* One block of the area: walk its TLVs as the kernel does. Returns 0 or ENOMEM; p->done ends the scan. */
static errcode_t parse_block(struct fc_parser *p, const unsigned char *blk, uint32_t index)
{
	struct jbd_fc *fc = p->fc;
	uint32_t jblk = fc->first_jblk + index;
	unsigned off = 0, tag, len;
	errcode_t err;

	if (index == 0) {
		read_tl(blk, &tag, &len);
		if (p->blocksize < JBD_FC_TLV_HEADER_SIZE || tag != JBD_FC_TAG_HEAD) {
			stop_at(p, JBD_FC_STOP_NO_HEAD, jblk, 0, tag, len, 0);
			return 0;
		}
	}
	while (!p->done && off + JBD_FC_TLV_HEADER_SIZE <= p->blocksize) {
		read_tl(blk + off, &tag, &len);
		if (len > p->blocksize - off - JBD_FC_TLV_HEADER_SIZE || !value_len_valid(p, tag, len)) {
			stop_at(p, known_tag(tag) ? JBD_FC_STOP_BAD_LENGTH : JBD_FC_STOP_UNKNOWN_TAG,
				jblk, off, tag, len, E4R_FC_CANCELED);
			return 0;
		}
		if (fc->ntags >= JBD_FC_MAX_TAGS) {
			stop_at(p, JBD_FC_STOP_LIMIT, jblk, off, tag, len, E4R_FC_TOO_MANY_TAGS);
			return 0;
		}
		err = parse_tag(p, blk + off, jblk, off);
		if (err)
			return err;
		off += JBD_FC_TLV_HEADER_SIZE + len;
	}
	return 0;
}

static errcode_t fc_new(uint32_t first_jblk, uint32_t nblocks, unsigned blocksize, uint32_t expected_tid,
			const struct jbd_fc_limits *lim, struct fc_parser *p)
{
	memset(p, 0, sizeof(*p));
	p->fc = calloc(1, sizeof(*p->fc));
	if (!p->fc)
		return EXT2_ET_NO_MEMORY;
	p->fc->first_jblk = first_jblk;
	p->fc->nblocks = nblocks;
	p->fc->expected_tid = expected_tid;
	p->fc->stop = JBD_FC_STOP_AREA_END;
	p->fc->stop_jblk = first_jblk + nblocks;
	p->blocksize = blocksize;
	if (lim)
		p->lim = *lim;
	return 0;
}

static void fc_finish(struct fc_parser *p)
{
	unsigned i;

	for (i = 0; i < p->fc->ncommitted; i++)
		p->fc->tags[i].committed = 1;
}

errcode_t jbd_fc_parse(const void *area, uint32_t nblocks, unsigned blocksize, uint32_t first_jblk,
		       uint32_t expected_tid, const struct jbd_fc_limits *lim, struct jbd_fc **out)
{
	struct fc_parser p;
	errcode_t err;
	uint32_t i;

	*out = NULL;
	err = fc_new(first_jblk, nblocks, blocksize, expected_tid, lim, &p);
	if (err)
		return err;
	for (i = 0; i < nblocks && !p.done; i++) {
		err = parse_block(&p, (const unsigned char *)area + (size_t)i * blocksize, i);
		if (err) {
			jbd_fc_free(p.fc);
			return err;
		}
	}
	fc_finish(&p);
	*out = p.fc;
	return 0;
}

errcode_t jbd_fc_scan(struct jbd_journal *j, uint32_t expected_tid, struct jbd_fc **out)
{
	struct jbd_fc_limits lim;
	struct fc_parser p;
	unsigned char *buf;
	uint32_t first, n, i;
	errcode_t err;

	*out = NULL;
	if (!(j->incompat & JBD_FEATURE_INCOMPAT_FAST_COMMIT) || !j->fc_blocks)
		return E4R_FC_NOT_ENABLED;
	/* Block j->last itself is never used: the area is [last + 1, maxlen). */
	first = j->last + 1;
	n = first < j->maxlen ? j->maxlen - first : 0;
	lim.inode_size = EXT2_INODE_SIZE(j->fs->super);
	lim.inodes_count = j->fs->super->s_inodes_count;
	lim.blocks_count = ext2fs_blocks_count(j->fs->super);
	buf = malloc(j->blocksize);
	if (!buf)
		return EXT2_ET_NO_MEMORY;
	err = fc_new(first, n, j->blocksize, expected_tid, &lim, &p);
	for (i = 0; !err && i < n && !p.done; i++) {
		if (jbd_journal_read(j, first + i, 1, buf)) {
			stop_at(&p, JBD_FC_STOP_IO, first + i, 0, 0, 0, E4R_SCAN_IO);
			p.fc->stop_error = E4R_SCAN_IO;		/* a read error fails recovery in any case */
			break;
		}
		err = parse_block(&p, buf, i);
	}
	free(buf);
	if (err) {
		jbd_fc_free(p.fc);
		return err;
	}
	fc_finish(&p);
	*out = p.fc;
	return 0;
}

void jbd_fc_free(struct jbd_fc *fc)
{
	unsigned i;

	if (!fc)
		return;
	for (i = 0; i < fc->ntags; i++) {
		free(fc->tags[i].raw_inode);
		free(fc->tags[i].name);
	}
	free(fc->tags);
	free(fc);
}

const char *jbd_fc_tag_name(unsigned tag)
{
	static const char *const names[] = {
		[JBD_FC_TAG_ADD_RANGE]	= "add_range",
		[JBD_FC_TAG_DEL_RANGE]	= "del_range",
		[JBD_FC_TAG_CREAT]	= "create",
		[JBD_FC_TAG_LINK]	= "link",
		[JBD_FC_TAG_UNLINK]	= "unlink",
		[JBD_FC_TAG_INODE]	= "inode",
		[JBD_FC_TAG_PAD]	= "pad",
		[JBD_FC_TAG_TAIL]	= "tail",
		[JBD_FC_TAG_HEAD]	= "head",
	};

	return known_tag(tag) ? names[tag] : "unknown";
}

const char *jbd_fc_stop_name(enum jbd_fc_stop stop)
{
	static const char *const names[] = {
		[JBD_FC_STOP_AREA_END]		= "area_end",
		[JBD_FC_STOP_NO_HEAD]		= "no_head",
		[JBD_FC_STOP_HEAD_TID]		= "head_tid",
		[JBD_FC_STOP_HEAD_FEATURES]	= "head_features",
		[JBD_FC_STOP_BAD_LENGTH]	= "bad_length",
		[JBD_FC_STOP_UNKNOWN_TAG]	= "unknown_tag",
		[JBD_FC_STOP_BAD_TAIL]		= "bad_tail",
		[JBD_FC_STOP_IO]		= "io_error",
		[JBD_FC_STOP_LIMIT]		= "limit",
	};

	return (unsigned)stop < sizeof(names) / sizeof(names[0]) ? names[stop] : "unknown";
}
