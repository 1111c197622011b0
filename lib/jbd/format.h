/* The JBD2 on-disk format: constants and block layouts, all big-endian. */
#ifndef E4R_JBD_FORMAT_H
#define E4R_JBD_FORMAT_H

#include <stdint.h>
#include <endian.h>

/*
 * Every multi-byte field on disk is big-endian. The structs below describe
 * the bytes exactly (no padding is introduced: every field is naturally
 * aligned); field types are jbd_be*_t; code converts at the boundary with
 * jbd_be16/32/64() and works on
 * host-order values everywhere else.
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

#define JBD_MAGIC			0xC03B3998U

/* h_blocktype */
#define JBD_DESCRIPTOR_BLOCK		1
#define JBD_COMMIT_BLOCK		2
#define JBD_SUPERBLOCK_V1		3
#define JBD_SUPERBLOCK_V2		4
#define JBD_REVOKE_BLOCK		5
#define JBD_FC_BLOCK			6	/* kernel-internal; never on disk as a header */

struct jbd_header {
	jbd_be32_t h_magic;
	jbd_be32_t h_blocktype;
	jbd_be32_t h_sequence;
};
#define JBD_HEADER_SIZE			12

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
#define JBD_SB_CHECKSUM_OFFSET		0xFC

/* Descriptor tags. */
#define JBD_FLAG_ESCAPE			1	/* first 4 bytes were the magic */
#define JBD_FLAG_SAME_UUID		2	/* no UUID follows this tag */
#define JBD_FLAG_DELETED		4	/* never written by jbd2 */
#define JBD_FLAG_LAST_TAG		8

/* Without CSUM_V3: 8 bytes, +2 with CSUM_V2 (t_checksum and padding), +4 with 64BIT. */
struct jbd_block_tag {
	jbd_be32_t t_blocknr;
	jbd_be16_t t_checksum;		/* low 16 bits of the crc32c (v2) */
	jbd_be16_t t_flags;
	jbd_be32_t t_blocknr_high;	/* only with 64BIT */
};

/* With CSUM_V3: always 16 bytes. */
struct jbd_block_tag3 {
	jbd_be32_t t_blocknr;
	jbd_be32_t t_flags;		/* low 16 bits used; read as be16 at +6 */
	jbd_be32_t t_blocknr_high;
	jbd_be32_t t_checksum;
};
#define JBD_TAG_FLAGS_OFFSET		6	/* be16 flags, in every tag format */
#define JBD_UUID_SIZE			16

/* v2/v3 descriptor and revoke blocks end in this. */
struct jbd_block_tail {
	jbd_be32_t t_checksum;
};
#define JBD_TAIL_SIZE			4

struct jbd_revoke_header {
	struct jbd_header r_header;
	jbd_be32_t r_count;		/* bytes used, including this 16-byte header */
};
#define JBD_REVOKE_HEADER_SIZE		16

struct jbd_commit_header {
	struct jbd_header h_header;	/* 0x00 */
	uint8_t  h_chksum_type;		/* 0x0C */
	uint8_t  h_chksum_size;		/* 0x0D */
	uint8_t  h_padding[2];		/* 0x0E */
	jbd_be32_t h_chksum[JBD_CHECKSUM_BYTES]; /* 0x10 */
	jbd_be64_t h_commit_sec;		/* 0x30 */
	jbd_be32_t h_commit_nsec;		/* 0x38 */
};
#define JBD_COMMIT_HEADER_SIZE		60

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
#define JBD_FC_TLV_HEADER_SIZE		4

_Static_assert(sizeof(struct jbd_superblock) == JBD_SUPERBLOCK_SIZE, "journal superblock layout");
_Static_assert(sizeof(struct jbd_block_tag3) == 16, "tag3 layout");
_Static_assert(sizeof(struct jbd_commit_header) == 64, "commit header layout (60 bytes + alignment)");

/* Which checksum scheme a journal uses. */
enum jbd_csum_version {
	JBD_CSUM_NONE = 0,
	JBD_CSUM_V1 = 1,
	JBD_CSUM_V2 = 2,
	JBD_CSUM_V3 = 3,
};

#endif
