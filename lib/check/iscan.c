/* Pass 1's walk over the inode tables: libext2fs's scan, read ahead in a thread where that is the same (see iscan.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check/csum.h"
#include "check/iscan.h"
#include "fs/readahead.h"

/* Chunks of this many bytes, this many read ahead: pass 1 never waits, and RSS grows by 1 MiB. */
#define CHUNK_BYTES	(256u * 1024)
#define SLOTS		4

struct check_iscan {
	ext2_filsys		fs;
	ext2_inode_scan		scan;		/* libext2fs's: after a fall back, or from the start */
	check_iscan_group_fn	done;
	void			*arg;
	struct ext2_inode_large	*copy;		/* the inode libext2fs's scan copies out */
	unsigned		isize;
	ext2_ino_t		skip;		/* inodes libext2fs's scan returns again after a fall back */

	/* Reading ahead (RA not NULL): where the walk is. */
	struct fs_readahead	*ra;
	dgrp_t			*run_group;	/* the group of each run (fixed while the reader runs) */
	dgrp_t			ahead_groups;	/* groups before this one are all read ahead or passed by */
	dgrp_t			group;
	ext2_ino_t		left;		/* its inodes still to return */
	ext2_ino_t		pos;		/* its inodes returned */
	int			ahead;		/* its table is read ahead: as run RUN */
	size_t			run, next_run;
	int			held;		/* CHUNK is ours */
	struct fs_chunk		chunk;
	/* the garbage verdict of the table block the walk is in (group, block in its table) */
	dgrp_t			verdict_group;
	blk64_t			verdict_blk;
	int			insane;
};

/*
 * How many inodes libext2fs's scan returns of group G, and how many inode
 * table blocks it reads for them. With group descriptor checksums it passes
 * by a group whose inodes were never initialised and stops before the
 * unused end of a table (bg_itable_unused); 0: the group is passed by.
 */
static ext2_ino_t group_inodes(ext2_filsys fs, dgrp_t g, blk64_t *blocks)
{
	ext2_ino_t n = EXT2_INODES_PER_GROUP(fs->super), unused;
	unsigned isize = EXT2_INODE_SIZE(fs->super);

	*blocks = fs->inode_blocks_per_group;
	if (!ext2fs_has_group_desc_csum(fs))
		return n;
	if (ext2fs_bg_flags_test(fs, g, EXT2_BG_INODE_UNINIT))
		return 0;
	unused = ext2fs_bg_itable_unused(fs, g);
	n = n > unused ? n - unused : 0;
	*blocks = ((uint64_t)n + fs->blocksize / isize - 1) * isize / fs->blocksize;
	return n;
}

/*
 * Inodes may be handed out in place, and read beside libext2fs, with the
 * same answers: no byte swapping, no checksum errors from the scan (the
 * checker verifies them), no bad blocks list (which blanks parts of the
 * tables), inodes at least as large as the structure callers read.
 */
static int ahead_possible(ext2_filsys fs)
{
	unsigned isize = EXT2_INODE_SIZE(fs->super);

#ifdef WORDS_BIGENDIAN
	return 0;
#endif
	if (!(fs->flags & EXT2_FLAG_IGNORE_CSUM_ERRORS) ||
	    (fs->flags & (EXT2_FLAG_SWAP_BYTES | EXT2_FLAG_SWAP_BYTES_READ)))
		return 0;
	if (fs->badblocks && ext2fs_u32_list_count(fs->badblocks))
		return 0;
	if (isize < sizeof(struct ext2_inode_large) || isize > fs->blocksize || (isize & (isize - 1)))
		return 0;
	return fs->group_desc_count > 0 && EXT2_INODES_PER_GROUP(fs->super) > 0;
}

/* libext2fs's test of a block-mapped file, directory or symlink in use: most of i_block outside the filesystem. */
static int block_map_insane(ext2_filsys fs, const struct ext2_inode_large *in)
{
	unsigned i, bad = 0;

	if (in->i_flags & (EXT4_INLINE_DATA_FL | EXT4_EXTENTS_FL) || !in->i_links_count)
		return 0;
	if (!LINUX_S_ISREG(in->i_mode) && !LINUX_S_ISLNK(in->i_mode) && !LINUX_S_ISDIR(in->i_mode))
		return 0;
	if (LINUX_S_ISLNK(in->i_mode) && EXT2_I_SIZE(in) <= sizeof(in->i_block))
		return 0;	/* a fast symlink holds its target there */
	for (i = 0; i < EXT2_N_BLOCKS; i++)
		bad += in->i_block[i] && (in->i_block[i] < fs->super->s_first_data_block ||
					  in->i_block[i] >= ext2fs_blocks_count(fs->super));
	return bad > EXT2_N_BLOCKS / 2;
}

/*
 * The verdict libext2fs's scan gives a block of the inode table when asked
 * to warn of garbage (e2fsck asks): the block is garbage once more than half
 * of its inodes, counted in order, fail their checksum or have an extent
 * header or block map that cannot be one. Every inode of such a block is
 * then garbage, the sound ones too. N inodes from FIRST at DATA; CSUMS:
 * their checksum verdicts, or NULL to compute them.
 */
static int block_insane(ext2_filsys fs, ext2_ino_t first, const char *data, unsigned n,
			const unsigned char *csums, unsigned isize)
{
	unsigned per_block = fs->blocksize / isize, bad = 0, i;

	if (per_block < 2)
		return 0;
	for (i = 0; i < n; i++) {
		const struct ext2_inode_large *in = (const struct ext2_inode_large *)(data + (size_t)i * isize);
		int csum_ok = csums ? csums[i] : check_inode_csum_ok(fs, first + i, in);

		if (!csum_ok ||
		    ((in->i_flags & EXT4_EXTENTS_FL) && ext2fs_extent_header_verify((void *)in->i_block,
										    sizeof(in->i_block))) ||
		    (!(in->i_flags & EXT4_EXTENTS_FL) && block_map_insane(fs, in)))
			bad++;
		if (bad > per_block / 2)
			return 1;
	}
	return 0;
}

/*
 * The reader's work on a chunk of inodes: each one's checksum verdict, one
 * byte each in the chunk's extra room (as check_inode_csum_ok answers it on
 * the inode as read). It reads the chunk and, of the filesystem, only what
 * no pass of a read-only check changes (features, inode size, seed).
 */
static void verify_csums(void *arg, struct fs_chunk *chunk)
{
	const struct check_iscan *s = arg;
	ext2_filsys fs = s->fs;
	size_t n = (size_t)chunk->count * fs->blocksize / s->isize, i;
	ext2_ino_t first = (ext2_ino_t)(s->run_group[chunk->run] * EXT2_INODES_PER_GROUP(fs->super)) +
			   (ext2_ino_t)(chunk->offset * (fs->blocksize / s->isize)) + 1;

	for (i = 0; i < n; i++)
		chunk->extra[i] = (unsigned char)check_inode_csum_ok(
			fs, first + (ext2_ino_t)i,
			(const struct ext2_inode_large *)(chunk->data + i * s->isize));
}

/*
 * The runs of blocks to read: each group's table as far as the scan reads
 * it, in group order, up to the first group whose table cannot be read
 * ahead (none, or too short for its inodes): the walk falls back to
 * libext2fs's scan there, which gives its error.
 */
static errcode_t start_ahead(struct check_iscan *s)
{
	ext2_filsys fs = s->fs;
	struct fs_run *runs = malloc(fs->group_desc_count * sizeof(*runs));
	size_t n = 0;
	unsigned chunk = CHUNK_BYTES / fs->blocksize;
	struct fs_readahead_work work = { verify_csums, s, 0 };
	dgrp_t g;
	errcode_t err;

	if (!chunk)
		chunk = 1;
	work.extra = (size_t)chunk * fs->blocksize / s->isize;
	s->run_group = malloc(fs->group_desc_count * sizeof(*s->run_group));
	if (!runs || !s->run_group) {
		free(runs);
		return EXT2_ET_NO_MEMORY;
	}
	for (g = 0; g < fs->group_desc_count; g++) {
		blk64_t blocks, at = ext2fs_inode_table_loc(fs, g);
		ext2_ino_t inodes = group_inodes(fs, g, &blocks);

		if (!inodes)
			continue;
		if (!at || blocks * fs->blocksize < (uint64_t)inodes * s->isize)
			break;
		runs[n].start = at;
		runs[n].count = blocks;
		s->run_group[n] = g;
		n++;
	}
	s->ahead_groups = g;
	/* the checksums are worth the reader's time only where the checker verifies them */
	err = n ? fs_readahead_start(fs, runs, n, chunk, SLOTS,
				     ext2fs_has_feature_metadata_csum(fs->super) ? &work : NULL,
				     &s->ra) :
		  EXT2_ET_OP_NOT_SUPPORTED;
	free(runs);
	return err;
}

static void give_back(struct check_iscan *s)
{
	if (s->held)
		fs_readahead_give_back(s->ra);
	s->held = 0;
}

static void enter_group(struct check_iscan *s, dgrp_t g)
{
	blk64_t blocks;

	give_back(s);
	s->group = g;
	s->pos = 0;
	s->left = group_inodes(s->fs, g, &blocks);
	s->ahead = s->left && g < s->ahead_groups;
	if (s->ahead)
		s->run = s->next_run++;
}

/* libext2fs's next inode, its garbage verdict taken out of the error it comes as */
static errcode_t scan_next(struct check_iscan *s, ext2_ino_t *ino, int *garbage)
{
	errcode_t err = ext2fs_get_next_inode_full(s->scan, ino, (struct ext2_inode *)s->copy, s->isize);

	*garbage = err == EXT2_ET_INODE_IS_GARBAGE;
	return *garbage ? 0 : err;
}

static errcode_t slow_next(struct check_iscan *s, ext2_ino_t *ino, struct ext2_inode_large **inode,
			   int *csum, int *garbage)
{
	errcode_t err;

	*inode = s->copy;
	*csum = -1;
	for (; s->skip; s->skip--)
		if ((err = scan_next(s, ino, garbage)))
			return err;
	return scan_next(s, ino, garbage);
}

/*
 * From here on libext2fs's scan: from the start of the group the walk is
 * in, passing over the inodes of it already returned (it reads their blocks
 * again, and returns the first error where it would have).
 */
static errcode_t fall_back(struct check_iscan *s, ext2_ino_t *ino, struct ext2_inode_large **inode,
			   int *csum, int *garbage)
{
	errcode_t err;

	fs_readahead_stop(s->ra);
	s->ra = NULL;
	s->held = 0;
	s->skip = s->pos;
	if (s->group && (err = ext2fs_inode_scan_goto_blockgroup(s->scan, (int)s->group)))
		return err;
	return slow_next(s, ino, inode, csum, garbage);
}

static errcode_t ahead_next(struct check_iscan *s, ext2_ino_t *ino, struct ext2_inode_large **inode,
			    int *csum, int *garbage)
{
	ext2_filsys fs = s->fs;
	uint64_t byte;
	blk64_t blk;
	errcode_t err;

	while (!s->left) {
		if (s->done && (err = s->done(fs, s->scan, s->group, s->arg)))
			return err;
		if (s->group + 1 >= fs->group_desc_count) {
			*ino = 0;
			return 0;
		}
		enter_group(s, s->group + 1);
	}
	if (!s->ahead)
		return fall_back(s, ino, inode, csum, garbage);
	byte = (uint64_t)s->pos * s->isize;
	blk = byte / fs->blocksize;
	if (!s->held || blk >= s->chunk.offset + s->chunk.count) {
		give_back(s);
		/* a chunk that failed is read again through the channel, by libext2fs */
		if (fs_readahead_next(s->ra, &s->chunk) || s->chunk.err ||
		    s->chunk.run != s->run || s->chunk.offset != blk)
			return fall_back(s, ino, inode, csum, garbage);
		s->held = 1;
	}
	if (s->verdict_group != s->group || s->verdict_blk != blk) {
		unsigned per_block = fs->blocksize / s->isize;
		ext2_ino_t first = (ext2_ino_t)(blk * per_block), n = s->pos + s->left - first;
		size_t at = (size_t)(blk - s->chunk.offset) * fs->blocksize;

		s->verdict_group = s->group;
		s->verdict_blk = blk;
		s->insane = block_insane(fs, (ext2_ino_t)(s->group * EXT2_INODES_PER_GROUP(fs->super)) + first + 1,
					 s->chunk.data + at, n < per_block ? n : per_block,
					 s->chunk.extra ? s->chunk.extra + at / s->isize : NULL, s->isize);
	}
	*garbage = s->insane;
	byte -= s->chunk.offset * fs->blocksize;
	*inode = (struct ext2_inode_large *)(s->chunk.data + byte);
	*csum = s->chunk.extra ? s->chunk.extra[byte / s->isize] : -1;
	s->pos++;
	s->left--;
	/* in the scan's own arithmetic */
	*ino = (ext2_ino_t)(s->group * EXT2_INODES_PER_GROUP(fs->super)) + s->pos;
	return 0;
}

errcode_t check_iscan_open(ext2_filsys fs, int slow, check_iscan_group_fn done, void *arg,
			   struct check_iscan **out)
{
	struct check_iscan *s = calloc(1, sizeof(*s));
	size_t isize = EXT2_INODE_SIZE(fs->super);
	errcode_t err;

	*out = NULL;
	if (!s)
		return EXT2_ET_NO_MEMORY;
	s->fs = fs;
	s->isize = isize;
	s->done = done;
	s->arg = arg;
	s->copy = calloc(1, isize < sizeof(*s->copy) ? sizeof(*s->copy) : isize);
	if (!s->copy) {
		free(s);
		return EXT2_ET_NO_MEMORY;
	}
	/* always: it reads the bad blocks list (as before), and is the fall back */
	err = ext2fs_open_inode_scan(fs, 0, &s->scan);
	if (err) {
		free(s->copy);
		free(s);
		return err;
	}
	if (done)
		ext2fs_set_inode_callback(s->scan, done, arg);
	/*
	 * e2fsck's pass 1 asks for the garbage verdict, on every filesystem:
	 * without checksums only the extent headers and block maps count
	 */
	s->verdict_group = (dgrp_t)-1;
	ext2fs_inode_scan_flags(s->scan, EXT2_SF_WARN_GARBAGE_INODES, 0);
	/* anything that keeps the reader from starting leaves libext2fs's scan to do it all */
	if (!slow && ahead_possible(fs) && start_ahead(s) == 0)
		enter_group(s, 0);
	*out = s;
	return 0;
}

errcode_t check_iscan_next(struct check_iscan *s, ext2_ino_t *ino, struct ext2_inode_large **inode,
			   int *csum, int *garbage)
{
	*garbage = 0;
	return s->ra ? ahead_next(s, ino, inode, csum, garbage) : slow_next(s, ino, inode, csum, garbage);
}

int check_iscan_fast(const struct check_iscan *s)
{
	return s->ra != NULL;
}

void check_iscan_close(struct check_iscan *s)
{
	if (!s)
		return;
	fs_readahead_stop(s->ra);
	ext2fs_close_inode_scan(s->scan);
	free(s->run_group);
	free(s->copy);
	free(s);
}
