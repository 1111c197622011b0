/* Finding and loading a filesystem's JBD2 journal (internal inode or external device). */
#ifndef E4R_JBD_JOURNAL_H
#define E4R_JBD_JOURNAL_H

#include <ext2fs/ext2fs.h>
#include "jbd/format.h"

/* What a long walk over the journal is doing, for the progress callback. */
enum jbd_progress {
	JBD_PROGRESS_SCAN = 0,		/* reading the live log: blocks visited of the log area */
	JBD_PROGRESS_SCAN_OLD,		/* reading past its end for old transactions (--all) */
	JBD_PROGRESS_WRITE,		/* a replay writing blocks home: written of planned */
};

/* Told DONE of TOTAL as a walk goes; the front end draws it (lib/ never prints). */
typedef void (*jbd_progress_fn)(void *arg, enum jbd_progress what, uint64_t done, uint64_t total);

/*
 * A loaded journal. Block numbers called "journal blocks" (jblk) count from
 * the journal's own block 0 (its superblock); map[] turns them into blocks
 * of the device behind io. All fields are host order.
 */
struct jbd_journal {
	ext2_filsys	fs;		/* the filesystem the journal belongs to */
	io_channel	io;		/* where the journal lives: fs->io, or the external device */
	int		external;	/* 1 when io is an external journal device */
	char		*device;	/* the external device found by its UUID (NULL: given, or internal) */
	int		from_backup;	/* 1 when the inode's block map came from s_jnl_blocks */
	blk64_t		*map;		/* map[jblk] = block on io, for jblk < total_len */
	uint32_t	total_len;	/* blocks mapped: the inode's size, or the external device's length */
	uint32_t	sb_block;	/* journal block of the superblock: 0 internal; 1 or 2 external
					   (an external journal's block numbers are the device's) */

	uint32_t	blocksize;
	uint32_t	maxlen;		/* s_maxlen */
	uint32_t	first;		/* s_first */
	uint32_t	last;		/* end of the log area: maxlen, or maxlen - fc_blocks */
	uint32_t	fc_blocks;	/* fast-commit blocks (0 without FAST_COMMIT) */
	uint32_t	sequence;	/* s_sequence */
	uint32_t	start;		/* s_start (0: nothing to recover) */
	int32_t		errno_;		/* s_errno */
	int		format;		/* 1 (v1 superblock) or 2 */
	uint32_t	compat, incompat, ro_compat;
	uint8_t		uuid[16];
	uint8_t		checksum_type;	/* s_checksum_type */

	enum jbd_csum_version csum;	/* which checksum scheme the log uses */
	uint32_t	csum_seed;	/* crc32c(~0, uuid) for v2/v3 */
	unsigned	tag_bytes;	/* size of one descriptor tag */
	int		sb_csum_ok;	/* v2/v3: 1 match, 0 mismatch; -1 not checksummed */
	uint32_t	sb_csum_stored, sb_csum_computed;

	unsigned char	raw_sb[JBD_SUPERBLOCK_SIZE];	/* the superblock as read */

	jbd_progress_fn	progress;	/* set by the caller after opening; may be NULL */
	void		*progress_arg;
};

/* Tell J's progress callback, if it has one. */
void jbd_progress(const struct jbd_journal *j, enum jbd_progress what, uint64_t done, uint64_t total);

/*
 * Find and load FS's journal. EXTERNAL_PATH, if not NULL, is the external
 * journal device; without it an external journal is looked for by the UUID
 * the superblock names (E4R_JOURNAL_EXTERNAL_NEEDED when no device has it;
 * never for an image in memory, for which no device is probed).
 * The superblock is validated as strictly as e2fsck does; a failure is a
 * named E4R_JSB_* / E4R_JOURNAL_* error. A journal superblock checksum
 * mismatch is NOT an error here: it is recorded in sb_csum_ok and the
 * caller decides (e2fsck offers to reset the journal).
 */
errcode_t jbd_journal_open(ext2_filsys fs, const char *external_path, struct jbd_journal **out);

/*
 * Whether PATH, given as IMAGE's external journal device, can be one: the
 * error of its open (an operational error: the device is not there), or
 * E4R_JOURNAL_PATH_UNUSED when IMAGE's superblock names no journal UUID
 * (its journal is internal, or it has none: the option contradicts it). 0 otherwise, and when IMAGE itself
 * does not open: the command's own open says why. Whether the device is the
 * journal the superblock names is jbd_journal_open's to say.
 */
errcode_t jbd_journal_path_check(const char *image, const char *path);
void jbd_journal_close(struct jbd_journal *j);

/* Read COUNT journal blocks starting at JBLK (no wrapping) into BUF; coalesces contiguous runs. */
errcode_t jbd_journal_read(struct jbd_journal *j, uint32_t jblk, unsigned count, void *buf);

/*
 * Read the journal blocks JBLKS[0..N) into BUF, block i at i * blocksize:
 * one read per run of entries that follow each other in the log (a message
 * or a transaction is mostly one run), not one per block.
 */
errcode_t jbd_journal_read_list(struct jbd_journal *j, const uint32_t *jblks, unsigned n, void *buf);

/* Write the journal superblock back from raw_sb, recomputing its checksum (v2/v3). */
errcode_t jbd_journal_write_super(struct jbd_journal *j);

/* Size of a descriptor tag for these incompat features. */
unsigned jbd_tag_bytes(uint32_t incompat);

/* Next block in the log after JBLK, wrapping from last back to first. */
static inline uint32_t jbd_log_next(const struct jbd_journal *j, uint32_t jblk)
{
	jblk++;
	if (jblk >= j->last)
		jblk -= j->last - j->first;
	return jblk;
}

#endif
