/* The JBD2 on-disk format: constants and block layouts, all big-endian. */
#ifndef E4R_JBD_FORMAT_H
#define E4R_JBD_FORMAT_H

#include <stdint.h>
#include <endian.h>
#include <stddef.h>
#include <string.h>

/*
 * Every multi-byte field on disk is big-endian. The structs below describe
 * the bytes exactly (no padding is introduced: every field is naturally
 * aligned; the offsets are checked at the end of this file); field types are
 * jbd_be*_t, so a field can only be read through jbd_be16/32/64() and written
 * through jbd_to_be16/32/64(). Code works on host-order values everywhere
 * else.
 *
 * Journal blocks are byte buffers, and a tag or a field may sit at any
 * offset in them: copy the struct out (jbd_load) before reading its fields,
 * and back (jbd_store) after writing them, never cast a pointer into a
 * block (a tag at offset 22 is not aligned for its be32 fields).
 */
typedef uint16_t jbd_be16_t;
typedef uint32_t jbd_be32_t;
typedef uint64_t jbd_be64_t;

static inline uint16_t jbd_be16(jbd_be16_t v) { return be16toh(v); }
static inline uint32_t jbd_be32(jbd_be32_t v) { return be32toh(v); }
static inline uint64_t jbd_be64(jbd_be64_t v) { return be64toh(v); }
static inline jbd_be16_t jbd_to_be16(uint16_t v) { return htobe16(v); }
static inline jbd_be32_t jbd_to_be32(uint32_t v) { return htobe32(v); }
static inline jbd_be64_t jbd_to_be64(uint64_t v) { return htobe64(v); }

/* The fast-commit area alone is little-endian (it is ext4's, not jbd2's). */
typedef uint16_t jbd_le16_t;
typedef uint32_t jbd_le32_t;

static inline uint16_t jbd_le16(jbd_le16_t v) { return le16toh(v); }
static inline uint32_t jbd_le32(jbd_le32_t v) { return le32toh(v); }

/* Copy an on-disk struct out of a block buffer, or into it. */
#define jbd_load(obj, src)	memcpy((obj), (src), sizeof(*(obj)))
#define jbd_store(dst, obj)	memcpy((dst), (obj), sizeof(*(obj)))

#define JBD_MAGIC			0xC03B3998U

/* h_blocktype */
#define JBD_DESCRIPTOR_BLOCK		1
#define JBD_COMMIT_BLOCK		2
#define JBD_SUPERBLOCK_V1		3
#define JBD_SUPERBLOCK_V2		4
#define JBD_REVOKE_BLOCK		5
#define JBD_FC_BLOCK			6	/* kernel-internal; never on disk as a header */

/* Every journal block but a data block starts with this. */
struct jbd_header {
	jbd_be32_t h_magic;		/* 0x00 JBD_MAGIC */
	jbd_be32_t h_blocktype;		/* 0x04 JBD_*_BLOCK */
	jbd_be32_t h_sequence;		/* 0x08 the transaction ID */
};
#define JBD_HEADER_SIZE			sizeof(struct jbd_header)

/* Feature flags (valid only in a v2 superblock). */
#define JBD_FEATURE_COMPAT_CHECKSUM		0x00000001U	/* "v1": crc32 in the commit */

#define JBD_FEATURE_INCOMPAT_REVOKE		0x00000001U
#define JBD_FEATURE_INCOMPAT_64BIT		0x00000002U
#define JBD_FEATURE_INCOMPAT_ASYNC_COMMIT	0x00000004U
#define JBD_FEATURE_INCOMPAT_CSUM_V2		0x00000008U
#define JBD_FEATURE_INCOMPAT_CSUM_V3		0x00000010U
#define JBD_FEATURE_INCOMPAT_FAST_COMMIT	0x00000020U

#define JBD_KNOWN_COMPAT	JBD_FEATURE_COMPAT_CHECKSUM
#define JBD_KNOWN_INCOMPAT	(JBD_FEATURE_INCOMPAT_REVOKE | \
				 JBD_FEATURE_INCOMPAT_64BIT | \
				 JBD_FEATURE_INCOMPAT_ASYNC_COMMIT | \
				 JBD_FEATURE_INCOMPAT_CSUM_V2 | \
				 JBD_FEATURE_INCOMPAT_CSUM_V3 | \
				 JBD_FEATURE_INCOMPAT_FAST_COMMIT)
#define JBD_KNOWN_ROCOMPAT	0U

/* s_checksum_type and h_chksum_type */
#define JBD_CRC32_CHKSUM		1
#define JBD_MD5_CHKSUM			2
#define JBD_SHA1_CHKSUM			3
#define JBD_CRC32C_CHKSUM		4
#define JBD_CRC32_CHKSUM_SIZE		4
#define JBD_CHECKSUM_BYTES		(32 / sizeof(uint32_t))	/* h_chksum[] slots */

#define JBD_USERS_MAX			48
#define JBD_USERS_SIZE			(JBD_USERS_MAX * 16)
#define JBD_SUPERBLOCK_SIZE		1024
#define JBD_MIN_JOURNAL_BLOCKS		1024
#define JBD_DEFAULT_FC_BLOCKS		256

struct jbd_superblock {
	struct jbd_header s_header;		/* 0x00 */
	jbd_be32_t s_blocksize;			/* 0x0C */
	jbd_be32_t s_maxlen;			/* 0x10 total blocks in the journal */
	jbd_be32_t s_first;			/* 0x14 first block of the log */
	jbd_be32_t s_sequence;			/* 0x18 first commit ID expected */
	jbd_be32_t s_start;			/* 0x1C first block of the log; 0 = clean */
	jbd_be32_t s_errno;			/* 0x20 */
	/* v2 superblock from here on */
	jbd_be32_t s_feature_compat;		/* 0x24 */
	jbd_be32_t s_feature_incompat;		/* 0x28 */
	jbd_be32_t s_feature_ro_compat;		/* 0x2C */
	uint8_t  s_uuid[16];			/* 0x30 */
	jbd_be32_t s_nr_users;			/* 0x40 */
	jbd_be32_t s_dynsuper;			/* 0x44 */
	jbd_be32_t s_max_transaction;		/* 0x48 */
	jbd_be32_t s_max_trans_data;		/* 0x4C */
	uint8_t  s_checksum_type;		/* 0x50 */
	uint8_t  s_padding2[3];			/* 0x51 */
	jbd_be32_t s_num_fc_blks;			/* 0x54 */
	jbd_be32_t s_head;			/* 0x58 */
	jbd_be32_t s_padding[40];			/* 0x5C */
	jbd_be32_t s_checksum;			/* 0xFC */
	uint8_t  s_users[JBD_USERS_SIZE];	/* 0x100 */
};

/* Descriptor tags. */
#define JBD_FLAG_ESCAPE			1	/* first 4 bytes were the magic */
#define JBD_FLAG_SAME_UUID		2	/* no UUID follows this tag */
#define JBD_FLAG_DELETED		4	/* never written by jbd2 */
#define JBD_FLAG_LAST_TAG		8

/*
 * Descriptor tags follow the descriptor's header; a 16-byte UUID follows
 * every tag without SAME_UUID. Without CSUM_V3 a tag is struct
 * jbd_block_tag cut short: 8 bytes (up to t_flags), 12 with 64BIT, and
 * CSUM_V2 adds 2 bytes of padding after it (see jbd_tag_bytes()).
 */
struct jbd_block_tag {
	jbd_be32_t t_blocknr;		/* 0x00 */
	jbd_be16_t t_checksum;		/* 0x04 low 16 bits of the crc32c (v2 only) */
	jbd_be16_t t_flags;		/* 0x06 JBD_FLAG_* */
	jbd_be32_t t_blocknr_high;	/* 0x08 only with 64BIT */
};

/* With CSUM_V3: always 16 bytes. */
struct jbd_block_tag3 {
	jbd_be32_t t_blocknr;		/* 0x00 */
	jbd_be32_t t_flags;		/* 0x04 JBD_FLAG_*, in the low 16 bits */
	jbd_be32_t t_blocknr_high;	/* 0x08 only with 64BIT */
	jbd_be32_t t_checksum;		/* 0x0C crc32c(seed, sequence, block) */
};
#define JBD_UUID_SIZE			16

/* v2/v3 descriptor and revoke blocks end in this. */
struct jbd_block_tail {
	jbd_be32_t t_checksum;		/* crc32c(seed, the block with this field zero) */
};
#define JBD_TAIL_SIZE			sizeof(struct jbd_block_tail)

/* A revoke block: this header, then be32 records (be64 with 64BIT) up to r_count. */
struct jbd_revoke_header {
	struct jbd_header r_header;	/* 0x00 */
	jbd_be32_t r_count;		/* 0x0C bytes used, including this header */
};
#define JBD_REVOKE_HEADER_SIZE		sizeof(struct jbd_revoke_header)

struct jbd_commit_header {
	struct jbd_header h_header;	/* 0x00 */
	uint8_t  h_chksum_type;		/* 0x0C v1: JBD_CRC32_CHKSUM */
	uint8_t  h_chksum_size;		/* 0x0D v1: JBD_CRC32_CHKSUM_SIZE */
	uint8_t  h_padding[2];		/* 0x0E */
	jbd_be32_t h_chksum[JBD_CHECKSUM_BYTES]; /* 0x10 v1: crc32 of the transaction; v2/v3: [0] of this block */
	jbd_be64_t h_commit_sec;	/* 0x30 */
	jbd_be32_t h_commit_nsec;	/* 0x38 */
};
/* The bytes of the header on disk (the struct is padded to 64 for h_commit_sec's alignment). */
#define JBD_COMMIT_HEADER_SIZE		(offsetof(struct jbd_commit_header, h_commit_nsec) + sizeof(jbd_be32_t))

/* Fast-commit tags: little-endian TLVs {le16 tag, le16 len, value}. */
#define JBD_FC_TAG_ADD_RANGE		1
#define JBD_FC_TAG_DEL_RANGE		2
#define JBD_FC_TAG_CREAT		3
#define JBD_FC_TAG_LINK			4
#define JBD_FC_TAG_UNLINK		5
#define JBD_FC_TAG_INODE		6
#define JBD_FC_TAG_PAD			7
#define JBD_FC_TAG_TAIL			8
#define JBD_FC_TAG_HEAD			9

/* Every fast-commit tag starts with this; fc_len value bytes follow. */
struct jbd_fc_tl {
	jbd_le16_t fc_tag;		/* 0x00 JBD_FC_TAG_* */
	jbd_le16_t fc_len;		/* 0x02 */
};
#define JBD_FC_TLV_HEADER_SIZE		sizeof(struct jbd_fc_tl)

/* The values of the tags. */
struct jbd_fc_head {
	jbd_le32_t fc_features;		/* 0x00 */
	jbd_le32_t fc_tid;		/* 0x04 */
};

struct jbd_fc_tail {
	jbd_le32_t fc_tid;		/* 0x00 */
	jbd_le32_t fc_crc;		/* 0x04 crc32c of the tags since the last tail, this one's tl and tid */
};

/* ADD_RANGE: an inode and one ext4_extent. */
struct jbd_fc_add_range {
	jbd_le32_t fc_ino;		/* 0x00 */
	jbd_le32_t ee_block;		/* 0x04 first logical block */
	jbd_le16_t ee_len;		/* 0x08 above JBD_FC_EXT_INIT_MAX_LEN: unwritten */
	jbd_le16_t ee_start_hi;		/* 0x0A */
	jbd_le32_t ee_start_lo;		/* 0x0C */
};

struct jbd_fc_del_range {
	jbd_le32_t fc_ino;		/* 0x00 */
	jbd_le32_t fc_lblk;		/* 0x04 */
	jbd_le32_t fc_len;		/* 0x08 */
};

/* CREAT, LINK, UNLINK: the name follows. */
struct jbd_fc_dentry_info {
	jbd_le32_t fc_parent_ino;	/* 0x00 */
	jbd_le32_t fc_ino;		/* 0x04 */
};

/* INODE: the raw inode follows. */
struct jbd_fc_inode {
	jbd_le32_t fc_ino;		/* 0x00 */
};

/* The on-disk offsets (the kernel's include/linux/jbd2.h has the same layout). */
#define JBD_AT(type, field, off) \
	_Static_assert(offsetof(struct type, field) == (off), #type "." #field " at " #off)
JBD_AT(jbd_header, h_magic, 0x00);
JBD_AT(jbd_header, h_blocktype, 0x04);
JBD_AT(jbd_header, h_sequence, 0x08);
_Static_assert(sizeof(struct jbd_header) == 12, "jbd_header size");

JBD_AT(jbd_superblock, s_header, 0x00);
JBD_AT(jbd_superblock, s_blocksize, 0x0C);
JBD_AT(jbd_superblock, s_maxlen, 0x10);
JBD_AT(jbd_superblock, s_first, 0x14);
JBD_AT(jbd_superblock, s_sequence, 0x18);
JBD_AT(jbd_superblock, s_start, 0x1C);
JBD_AT(jbd_superblock, s_errno, 0x20);
JBD_AT(jbd_superblock, s_feature_compat, 0x24);
JBD_AT(jbd_superblock, s_feature_incompat, 0x28);
JBD_AT(jbd_superblock, s_feature_ro_compat, 0x2C);
JBD_AT(jbd_superblock, s_uuid, 0x30);
JBD_AT(jbd_superblock, s_nr_users, 0x40);
JBD_AT(jbd_superblock, s_dynsuper, 0x44);
JBD_AT(jbd_superblock, s_max_transaction, 0x48);
JBD_AT(jbd_superblock, s_max_trans_data, 0x4C);
JBD_AT(jbd_superblock, s_checksum_type, 0x50);
JBD_AT(jbd_superblock, s_padding2, 0x51);
JBD_AT(jbd_superblock, s_num_fc_blks, 0x54);
JBD_AT(jbd_superblock, s_head, 0x58);
JBD_AT(jbd_superblock, s_padding, 0x5C);
JBD_AT(jbd_superblock, s_checksum, 0xFC);
JBD_AT(jbd_superblock, s_users, 0x100);
_Static_assert(sizeof(struct jbd_superblock) == JBD_SUPERBLOCK_SIZE, "jbd_superblock size");

JBD_AT(jbd_block_tag, t_blocknr, 0x00);
JBD_AT(jbd_block_tag, t_checksum, 0x04);
JBD_AT(jbd_block_tag, t_flags, 0x06);
JBD_AT(jbd_block_tag, t_blocknr_high, 0x08);
_Static_assert(sizeof(struct jbd_block_tag) == 12, "jbd_block_tag size");

JBD_AT(jbd_block_tag3, t_blocknr, 0x00);
JBD_AT(jbd_block_tag3, t_flags, 0x04);
JBD_AT(jbd_block_tag3, t_blocknr_high, 0x08);
JBD_AT(jbd_block_tag3, t_checksum, 0x0C);
_Static_assert(sizeof(struct jbd_block_tag3) == 16, "jbd_block_tag3 size");

JBD_AT(jbd_block_tail, t_checksum, 0x00);
_Static_assert(sizeof(struct jbd_block_tail) == 4, "jbd_block_tail size");

JBD_AT(jbd_revoke_header, r_header, 0x00);
JBD_AT(jbd_revoke_header, r_count, 0x0C);
_Static_assert(sizeof(struct jbd_revoke_header) == 16, "jbd_revoke_header size");

JBD_AT(jbd_commit_header, h_header, 0x00);
JBD_AT(jbd_commit_header, h_chksum_type, 0x0C);
JBD_AT(jbd_commit_header, h_chksum_size, 0x0D);
JBD_AT(jbd_commit_header, h_padding, 0x0E);
JBD_AT(jbd_commit_header, h_chksum, 0x10);
JBD_AT(jbd_commit_header, h_commit_sec, 0x30);
JBD_AT(jbd_commit_header, h_commit_nsec, 0x38);
_Static_assert(JBD_COMMIT_HEADER_SIZE == 60, "jbd_commit_header bytes on disk");

JBD_AT(jbd_fc_tl, fc_tag, 0x00);
JBD_AT(jbd_fc_tl, fc_len, 0x02);
_Static_assert(sizeof(struct jbd_fc_tl) == 4, "jbd_fc_tl size");
JBD_AT(jbd_fc_head, fc_features, 0x00);
JBD_AT(jbd_fc_head, fc_tid, 0x04);
_Static_assert(sizeof(struct jbd_fc_head) == 8, "jbd_fc_head size");
JBD_AT(jbd_fc_tail, fc_tid, 0x00);
JBD_AT(jbd_fc_tail, fc_crc, 0x04);
_Static_assert(sizeof(struct jbd_fc_tail) == 8, "jbd_fc_tail size");
JBD_AT(jbd_fc_add_range, fc_ino, 0x00);
JBD_AT(jbd_fc_add_range, ee_block, 0x04);
JBD_AT(jbd_fc_add_range, ee_len, 0x08);
JBD_AT(jbd_fc_add_range, ee_start_hi, 0x0A);
JBD_AT(jbd_fc_add_range, ee_start_lo, 0x0C);
_Static_assert(sizeof(struct jbd_fc_add_range) == 16, "jbd_fc_add_range size");
JBD_AT(jbd_fc_del_range, fc_ino, 0x00);
JBD_AT(jbd_fc_del_range, fc_lblk, 0x04);
JBD_AT(jbd_fc_del_range, fc_len, 0x08);
_Static_assert(sizeof(struct jbd_fc_del_range) == 12, "jbd_fc_del_range size");
JBD_AT(jbd_fc_dentry_info, fc_parent_ino, 0x00);
JBD_AT(jbd_fc_dentry_info, fc_ino, 0x04);
_Static_assert(sizeof(struct jbd_fc_dentry_info) == 8, "jbd_fc_dentry_info size");
JBD_AT(jbd_fc_inode, fc_ino, 0x00);
_Static_assert(sizeof(struct jbd_fc_inode) == 4, "jbd_fc_inode size");
#undef JBD_AT

/*
 * One descriptor tag in host order, whatever its format (INCOMPAT: the
 * journal's incompat features). checksum is 32 bits with CSUM_V3, 16 with
 * CSUM_V2, 0 otherwise; blocknr's high half is read only with 64BIT.
 */
struct jbd_tag {
	uint64_t	blocknr;
	uint16_t	flags;
	uint32_t	checksum;
};

static inline void jbd_tag_decode(const void *p, uint32_t incompat, struct jbd_tag *t)
{
	int has_high = !!(incompat & JBD_FEATURE_INCOMPAT_64BIT);

	if (incompat & JBD_FEATURE_INCOMPAT_CSUM_V3) {
		struct jbd_block_tag3 d;

		jbd_load(&d, p);
		t->blocknr = jbd_be32(d.t_blocknr);
		if (has_high)
			t->blocknr |= (uint64_t)jbd_be32(d.t_blocknr_high) << 32;
		t->flags = (uint16_t)jbd_be32(d.t_flags);
		t->checksum = jbd_be32(d.t_checksum);
	} else {
		struct jbd_block_tag d = { 0 };

		/* Only the bytes this format has: 8, or 12 with 64BIT. */
		memcpy(&d, p, has_high ? sizeof(d) : offsetof(struct jbd_block_tag, t_blocknr_high));
		t->blocknr = jbd_be32(d.t_blocknr);
		if (has_high)
			t->blocknr |= (uint64_t)jbd_be32(d.t_blocknr_high) << 32;
		t->flags = jbd_be16(d.t_flags);
		t->checksum = (incompat & JBD_FEATURE_INCOMPAT_CSUM_V2) ? jbd_be16(d.t_checksum) : 0;
	}
}

/* Write tag T at P, in the format INCOMPAT says; bytes the format does not have are left alone. */
static inline void jbd_tag_encode(void *p, uint32_t incompat, const struct jbd_tag *t)
{
	if (incompat & JBD_FEATURE_INCOMPAT_CSUM_V3) {
		struct jbd_block_tag3 d = {
			.t_blocknr = jbd_to_be32((uint32_t)t->blocknr),
			.t_flags = jbd_to_be32(t->flags),
			.t_blocknr_high = jbd_to_be32((uint32_t)(t->blocknr >> 32)),
			.t_checksum = jbd_to_be32(t->checksum),
		};
		jbd_store(p, &d);
	} else {
		struct jbd_block_tag d;

		memcpy(&d, p, offsetof(struct jbd_block_tag, t_blocknr_high));
		d.t_blocknr = jbd_to_be32((uint32_t)t->blocknr);
		if (incompat & JBD_FEATURE_INCOMPAT_CSUM_V2)
			d.t_checksum = jbd_to_be16((uint16_t)t->checksum);
		d.t_flags = jbd_to_be16(t->flags);
		d.t_blocknr_high = jbd_to_be32((uint32_t)(t->blocknr >> 32));
		memcpy(p, &d, (incompat & JBD_FEATURE_INCOMPAT_64BIT) ? sizeof(d) :
			      offsetof(struct jbd_block_tag, t_blocknr_high));
	}
}

/* Where a tag keeps its checksum, and how many bytes (big-endian) it has: v3 4, v2 2. */
static inline unsigned jbd_tag_csum_offset(uint32_t incompat)
{
	return (incompat & JBD_FEATURE_INCOMPAT_CSUM_V3) ? offsetof(struct jbd_block_tag3, t_checksum) :
							    offsetof(struct jbd_block_tag, t_checksum);
}

static inline unsigned jbd_tag_csum_size(uint32_t incompat)
{
	return (incompat & JBD_FEATURE_INCOMPAT_CSUM_V3) ? sizeof(jbd_be32_t) : sizeof(jbd_be16_t);
}

/* Which checksum scheme a journal uses. */
enum jbd_csum_version {
	JBD_CSUM_NONE = 0,
	JBD_CSUM_V1 = 1,
	JBD_CSUM_V2 = 2,
	JBD_CSUM_V3 = 3,
};

#endif
