/*
 * Test helper: build fast-commit areas the way ext4's writer lays them out
 * (TLVs, crc32c from 0 reset at each TAIL, TAIL padded to the block's end).
 * Define BS (block size) and NBLK (blocks in the area) before including.
 */
#ifndef E4R_FC_BUILD_H
#define E4R_FC_BUILD_H

#include <string.h>
#include "jbd/fc.h"
#include "util/crc.h"

struct area {
	unsigned char	buf[BS * NBLK];
	size_t		off;
	uint32_t	crc;
};

static inline void put16(unsigned char *p, unsigned v) { p[0] = v; p[1] = v >> 8; }
static inline void put32(unsigned char *p, uint32_t v) { put16(p, v & 0xffff); put16(p + 2, v >> 16); }

/* Append one TLV, crc'ed as the writer does. */
static inline unsigned char *tlv(struct area *a, unsigned tag, unsigned len, const void *val)
{
	unsigned char *p = a->buf + a->off;

	put16(p, tag);
	put16(p + 2, len);
	if (val)
		memcpy(p + 4, val, len);
	a->crc = util_crc32c(a->crc, p, 4 + len);
	a->off += 4 + len;
	return p;
}

/* TAIL: its len runs to the end of the block; the crc covers its header and tid. */
static inline void tail(struct area *a, uint32_t tid, int break_crc)
{
	unsigned char *p = a->buf + a->off;
	size_t room = BS - (a->off % BS);

	put16(p, JBD_FC_TAG_TAIL);
	put16(p + 2, room - 4);
	put32(p + 4, tid);
	a->crc = util_crc32c(a->crc, p, 8);
	put32(p + 8, a->crc ^ (break_crc ? 1 : 0));
	a->crc = 0;
	a->off += room;
}

static inline void head(struct area *a, uint32_t features, uint32_t tid)
{
	unsigned char v[8];
	put32(v, features);
	put32(v + 4, tid);
	tlv(a, JBD_FC_TAG_HEAD, 8, v);
}

static inline void dentry(struct area *a, unsigned tag, uint32_t parent, uint32_t ino, const char *name)
{
	unsigned char v[8 + 255];
	put32(v, parent);
	put32(v + 4, ino);
	memcpy(v + 8, name, strlen(name));
	tlv(a, tag, 8 + strlen(name), v);
}

static inline void add_range(struct area *a, uint32_t ino, uint32_t lblk, unsigned len, uint64_t pblk)
{
	unsigned char v[16];
	put32(v, ino);
	put32(v + 4, lblk);
	put16(v + 8, len);
	put16(v + 10, pblk >> 32);
	put32(v + 12, (uint32_t)pblk);
	tlv(a, JBD_FC_TAG_ADD_RANGE, 16, v);
}

static inline void inode_raw(struct area *a, uint32_t ino, const void *raw, unsigned len)
{
	unsigned char v[4 + 1024];
	put32(v, ino);
	memcpy(v + 4, raw, len);
	tlv(a, JBD_FC_TAG_INODE, 4 + len, v);
}

/* A raw inode for an INODE tag: extent-mapped with an empty block map (ADD_RANGE tags fill it). */
static inline void raw_inode(unsigned char *raw, unsigned len, unsigned mode, unsigned size, unsigned links)
{
	memset(raw, 0, len);
	put16(raw + 0x00, mode);		/* i_mode */
	put32(raw + 0x04, size);		/* i_size */
	put32(raw + 0x08, 1700000000);		/* i_atime, ctime, mtime */
	put32(raw + 0x0C, 1700000000);
	put32(raw + 0x10, 1700000000);
	put16(raw + 0x1A, links);		/* i_links_count */
	put32(raw + 0x20, EXT4_EXTENTS_FL);	/* i_flags */
	put16(raw + 0x80, 32);			/* i_extra_isize */
}

static inline void inode_tag(struct area *a, uint32_t ino)
{
	unsigned char raw[256];
	memset(raw, 0xA5, sizeof(raw));
	inode_raw(a, ino, raw, sizeof(raw));
}

#endif
