/* Parsing the journal's fast-commit area: its tags, which of them a valid TAIL commits, and why the scan stops. */
#ifndef E4R_JBD_FC_H
#define E4R_JBD_FC_H

#include <stdint.h>
#include "jbd/journal.h"

/* Sizes of the tag values as ext4 writes them (all little-endian). */
#define JBD_FC_HEAD_SIZE	sizeof(struct jbd_fc_head)
#define JBD_FC_TAIL_MIN_SIZE	sizeof(struct jbd_fc_tail)	/* the writer pads it to the block's end */
#define JBD_FC_ADD_RANGE_SIZE	sizeof(struct jbd_fc_add_range)
#define JBD_FC_DEL_RANGE_SIZE	sizeof(struct jbd_fc_del_range)
#define JBD_FC_DENTRY_SIZE	sizeof(struct jbd_fc_dentry_info)	/* then the name */
#define JBD_FC_INODE_HDR_SIZE	sizeof(struct jbd_fc_inode)	/* then the raw inode */
#define JBD_FC_NAME_MAX		255
#define JBD_FC_GOOD_OLD_INODE	128	/* smallest raw inode a tag may carry */
#define JBD_FC_EXT_INIT_MAX_LEN	32768	/* ee_len above this marks an unwritten extent */

/* Where and why the scan of the area stopped (the kernel's and e2fsck's scan rules). */
enum jbd_fc_stop {
	JBD_FC_STOP_AREA_END = 0,	/* walked the whole area */
	JBD_FC_STOP_NO_HEAD,		/* the area does not start with HEAD: no fast commits */
	JBD_FC_STOP_HEAD_TID,		/* a HEAD of another transaction: a stale area */
	JBD_FC_STOP_HEAD_FEATURES,	/* a HEAD with feature bits nobody defines */
	JBD_FC_STOP_BAD_LENGTH,		/* a length past the block, or wrong for its tag */
	JBD_FC_STOP_UNKNOWN_TAG,
	JBD_FC_STOP_BAD_TAIL,		/* a TAIL whose tid or crc does not match */
	JBD_FC_STOP_IO,			/* a block could not be read */
	JBD_FC_STOP_LIMIT,		/* more tags than JBD_FC_MAX_TAGS */
};

/* More than a default 256-block area of 4 KiB blocks can hold, even of empty PADs. */
#define JBD_FC_MAX_TAGS		(1U << 18)

/* One decoded TLV, host order. Fields a tag does not carry are 0. */
struct jbd_fc_tag {
	uint16_t	tag;		/* JBD_FC_TAG_* */
	uint16_t	len;		/* value length as on disk */
	uint32_t	jblk;		/* journal block holding it */
	unsigned	offset;		/* byte offset of its header in that block */
	int		committed;	/* a valid TAIL covers it */

	uint32_t	ino;		/* ADD_RANGE, DEL_RANGE, dentries, INODE */
	uint32_t	parent;		/* dentries */
	char		*name;		/* dentries: a copy, name_len bytes and a NUL */
	unsigned	name_len;
	uint32_t	lblk, nblocks;	/* ADD_RANGE (actual length), DEL_RANGE */
	uint64_t	pblk;		/* ADD_RANGE */
	int		unwritten;	/* ADD_RANGE: the extent is unwritten */
	unsigned char	*raw_inode;	/* INODE: a copy of the raw inode (raw_inode_len bytes) */
	unsigned	raw_inode_len;
	uint32_t	features;	/* HEAD */
	uint32_t	tid;		/* HEAD, TAIL */
	uint32_t	crc_stored;	/* TAIL */
	uint32_t	crc_computed;	/* TAIL: crc32c (init 0) since the previous TAIL */
	int		crc_ok;		/* TAIL: tid and crc both match */
	errcode_t	value_error;	/* E4R_FC_BAD_INODE / E4R_FC_BAD_RANGE: a value outside the filesystem */
};

/* The filesystem's bounds the values are checked against (0 disables a check). */
struct jbd_fc_limits {
	unsigned	inode_size;	/* largest raw inode an INODE tag may carry */
	uint32_t	inodes_count;
	uint64_t	blocks_count;
};

struct jbd_fc {
	uint32_t		first_jblk;	/* the area: journal blocks [first_jblk, first_jblk + nblocks) */
	uint32_t		nblocks;
	uint32_t		expected_tid;

	struct jbd_fc_tag	*tags;		/* in area order, up to where the scan stopped */
	unsigned		ntags;
	unsigned		ncommitted;	/* tags[0 .. ncommitted) are committed (kernel: fc_replay_num_tags) */

	enum jbd_fc_stop	stop;
	uint32_t		stop_jblk;	/* where the scan stopped */
	unsigned		stop_offset;
	uint16_t		stop_tag, stop_len;	/* the TLV header found there */
	/*
	 * What the kernel and e2fsck make of the stop: 0 when it is a normal
	 * end; E4R_FC_* when recovery as a whole fails (a bad tag before any
	 * fast commit was complete, unsupported HEAD features, a read error).
	 */
	errcode_t		stop_error;
};

/*
 * Scan J's fast-commit area (journal blocks [last + 1, maxlen)). EXPECTED_TID
 * is the first transaction the full-commit replay does not replay (the log
 * scan's stop_end): HEAD and every TAIL must carry it. Values are checked
 * against J's filesystem. A damaged area is not an error: it is described in
 * the result. Errors are ENOMEM and a journal without fast commits.
 */
errcode_t jbd_fc_scan(struct jbd_journal *j, uint32_t expected_tid, struct jbd_fc **out);

/* The same scan over an area already in memory (NBLOCKS blocks of BLOCKSIZE bytes). */
errcode_t jbd_fc_parse(const void *area, uint32_t nblocks, unsigned blocksize, uint32_t first_jblk,
		       uint32_t expected_tid, const struct jbd_fc_limits *lim, struct jbd_fc **out);

void jbd_fc_free(struct jbd_fc *fc);

/* Short English names for JSON: "add_range", ... and "area_end", ... */
const char *jbd_fc_tag_name(unsigned tag);
const char *jbd_fc_stop_name(enum jbd_fc_stop stop);

#endif
