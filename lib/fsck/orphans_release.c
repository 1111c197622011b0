/* Orphans released before the check, as e2fsck does (found wrong: check/orphan.c; mended: repair/orphan.c). */
/*
 * Orphans: files deleted or truncated while open, which a crash left for
 * the next mount (or fsck) to finish. Finishing them is routine, not a
 * repair: e2fsck does it before it decides whether to check, clears the
 * list, and still calls the filesystem clean. Every orphan is looked at
 * before the first is released: anything odd (a link out of range, a
 * loop, an inode or block already free, an orphan block failing its
 * checksum) and nothing is, the filesystem is marked not valid, and the
 * full check names what is wrong.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fs/bitmaps.h"
#include "fs/guard_io.h"
#include "fs/inode.h"
#include "fsck/orphans_release.h"
#include "util/array.h"

#define ORPHAN_BLOCK_MAGIC	0x0b10ca04

struct blocks_ok {
	blk64_t		first;		/* logical blocks from here on are freed */
	int		bad;		/* one of them is out of range or already free */
};

static int check_block(ext2_filsys fs, blk64_t *blk, e2_blkcnt_t cnt, blk64_t ref, int off, void *arg)
{
	struct blocks_ok *b = arg;

	(void)ref;
	(void)off;
	if (cnt >= 0 && (blk64_t)cnt < b->first)
		return 0;
	if (*blk < fs->super->s_first_data_block || *blk >= ext2fs_blocks_count(fs->super) ||
	    !ext2fs_test_block_bitmap2(fs->block_map, *blk)) {
		b->bad = 1;
		return BLOCK_ABORT;
	}
	return 0;
}

/* 1 when every block the release would free is in the filesystem and marked in use. */
static int blocks_releasable(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *in, blk64_t first)
{
	struct blocks_ok b = { first, 0 };

	if (!ext2fs_inode_has_valid_blocks2(fs, in) || (in->i_flags & EXT4_INLINE_DATA_FL))
		return 1;
	if (ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY, NULL, check_block, &b))
		return 0;
	return !b.bad;
}

/* The inode's xattr block loses this reference; freed with its last one. */
static errcode_t release_xattr_block(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *in)
{
	blk64_t blk = ext2fs_file_acl_block(fs, in);
	__u32 count = 0;
	errcode_t err;

	if (!blk)
		return 0;
	if (blk < fs->super->s_first_data_block || blk >= ext2fs_blocks_count(fs->super))
		return EXT2_ET_BAD_EA_BLOCK_NUM;
	err = ext2fs_adjust_ea_refcount3(fs, blk, NULL, -1, &count, ino);
	if (err)
		return err;
	if (count == 0)
		ext2fs_block_alloc_stats2(fs, blk, -1);
	ext2fs_file_acl_block_set(fs, in, 0);
	return 0;
}

static errcode_t note(struct fsck_orphans *o, ext2_ino_t ino, const struct ext2_inode *in, int truncated)
{
	errcode_t err = util_grow((void **)&o->list, &o->cap, o->n + 1, sizeof(*o->list));

	if (err)
		return err;
	o->list[o->n++] = (struct fsck_orphan){
		.ino = ino, .mode = in->i_mode, .uid = inode_uid(*in), .gid = inode_gid(*in),
		.size = EXT2_I_SIZE(in), .truncated = truncated,
	};
	return 0;
}

/* An inode that may be released: in use, with every block it would free in use too. */
static errcode_t orphan_sound(ext2_filsys fs, ext2_ino_t ino, int *sound, ext2_ino_t *next)
{
	struct ext2_inode in;
	errcode_t err = fs_read_inode(fs, ino, &in);

	*sound = 0;
	*next = 0;
	if (err)
		return err;
	*next = in.i_dtime;
	*sound = ext2fs_test_inode_bitmap2(fs->inode_map, ino) && in.i_mode &&
		 blocks_releasable(fs, ino, &in, in.i_links_count ? (EXT2_I_SIZE(&in) + fs->blocksize - 1) /
						     fs->blocksize : 0);
	return 0;
}

/* Finish one orphan found sound: an unlinked inode is deleted, a linked one cut to its size. */
static errcode_t release_one(ext2_filsys fs, ext2_ino_t ino, struct fsck_orphans *o)
{
	struct ext2_inode_large big;
	struct ext2_inode *in = (struct ext2_inode *)&big;
	int unlinked;
	blk64_t first;
	errcode_t err;

	memset(&big, 0, sizeof(big));
	err = fs_read_inode_full(fs, ino, in, sizeof(big));
	if (err)
		return err;
	unlinked = in->i_links_count == 0;
	first = unlinked ? 0 : (EXT2_I_SIZE(in) + fs->blocksize - 1) / fs->blocksize;
	err = note(o, ino, in, !unlinked);
	if (!err && ext2fs_inode_has_valid_blocks2(fs, in) && !(in->i_flags & EXT4_INLINE_DATA_FL))
		err = ext2fs_punch(fs, ino, in, NULL, first, ~0ULL);
	if (err)
		return err;
	if (unlinked) {
		/* A bad xattr block is left to the full check (the inode is released anyway). */
		if (release_xattr_block(fs, ino, in))
			o->failed = 1;
		in->i_dtime = (uint32_t)time(NULL);
		ext2fs_inode_alloc_stats2(fs, ino, -1, LINUX_S_ISDIR(in->i_mode));
	} else {
		in->i_dtime = 0;
	}
	return ext2fs_write_inode_full(fs, ino, in, sizeof(big));
}

/* Within the count and the groups' inode tables (a forged count is the check's to mend). */
static int ino_in_range(ext2_filsys fs, ext2_ino_t ino)
{
	return ino >= EXT2_FIRST_INODE(fs->super) && ino <= fs->super->s_inodes_count &&
	       ino <= (uint64_t)fs->super->s_inodes_per_group * fs->group_desc_count;
}

/* The inodes to release, gathered and checked before anything is written. */
struct gather {
	ext2_ino_t		*ino;
	unsigned		n, cap;
	ext2fs_inode_bitmap	seen;
	int			bad;
};

static errcode_t gather_one(ext2_filsys fs, struct gather *g, ext2_ino_t ino, ext2_ino_t *next)
{
	int sound;
	errcode_t err;

	*next = 0;
	if (!ino_in_range(fs, ino) || ext2fs_test_inode_bitmap2(g->seen, ino)) {
		g->bad = 1;
		return 0;
	}
	ext2fs_mark_inode_bitmap2(g->seen, ino);
	err = orphan_sound(fs, ino, &sound, next);
	if (!err && !sound)
		g->bad = 1;
	if (!err && sound)
		err = util_grow((void **)&g->ino, &g->cap, g->n + 1, sizeof(*g->ino));
	if (!err && sound)
		g->ino[g->n++] = ino;
	return err;
}

/* The classic list: s_last_orphan, then each inode's dtime. */
static errcode_t gather_list(ext2_filsys fs, ext2_ino_t ino, struct gather *g)
{
	ext2_ino_t next;
	errcode_t err = 0;

	for (; !err && ino && !g->bad; ino = next)
		err = gather_one(fs, g, ino, &next);
	return err;
}

/* The orphan file's blocks: a valid tail each, and the inodes their slots list. */
static errcode_t gather_file(ext2_filsys fs, struct gather *g, blk64_t **blocks, unsigned *nblocks)
{
	ext2_ino_t file = fs->super->s_orphan_file_inum, next;
	int per = ext2fs_inodes_per_orphan_block(fs), i;
	struct ext2_inode in;
	uint64_t lblk, n;
	unsigned cap = 0;
	uint32_t slot;
	char *buf = NULL;
	errcode_t err;

	if (!file || file > fs->super->s_inodes_count ||
	    file > (uint64_t)fs->super->s_inodes_per_group * fs->group_desc_count ||
	    fs_read_inode(fs, file, &in) ||
	    !LINUX_S_ISREG(in.i_mode)) {
		g->bad = 1;
		return 0;
	}
	err = ext2fs_get_mem(fs->blocksize, &buf);
	if (err)
		return err;
	n = EXT2_I_SIZE(&in) / fs->blocksize;
	for (lblk = 0; lblk < n && !err && !g->bad; lblk++) {
		struct ext4_orphan_block_tail *tail = ext2fs_orphan_block_tail(fs, buf);
		blk64_t blk = 0;
		int used = 0;

		if (ext2fs_bmap2(fs, file, &in, NULL, 0, lblk, NULL, &blk) || !blk ||
		    blk >= ext2fs_blocks_count(fs->super) || io_channel_read_blk64(fs->io, blk, 1, buf) ||
		    ext2fs_le32_to_cpu(tail->ob_magic) != ORPHAN_BLOCK_MAGIC ||
		    (ext2fs_has_feature_metadata_csum(fs->super) &&
		     !ext2fs_orphan_file_block_csum_verify(fs, file, blk, buf))) {
			g->bad = 1;
			break;
		}
		for (i = 0; i < per && !err && !g->bad; i++) {
			memcpy(&slot, buf + 4 * i, sizeof(slot));
			slot = ext2fs_le32_to_cpu(slot);
			if (slot) {
				err = gather_one(fs, g, slot, &next);
				used = 1;
			}
		}
		if (!err && used)
			err = util_grow((void **)blocks, &cap, *nblocks + 1, sizeof(**blocks));
		if (!err && used)
			(*blocks)[(*nblocks)++] = blk;
	}
	ext2fs_free_mem(&buf);
	return err;
}

/* Write each orphan file block that listed inodes empty, with a valid tail. */
static errcode_t empty_file_blocks(ext2_filsys fs, const blk64_t *blocks, unsigned n)
{
	ext2_ino_t file = fs->super->s_orphan_file_inum;
	struct ext2_inode in;
	char *buf = NULL;
	errcode_t err;

	if (!n)
		return 0;
	err = fs_read_inode(fs, file, &in);
	if (!err)
		err = ext2fs_get_mem(fs->blocksize, &buf);
	for (unsigned b = 0; b < n && !err; b++) {
		struct ext4_orphan_block_tail *tail = ext2fs_orphan_block_tail(fs, buf);

		err = io_channel_read_blk64(fs->io, blocks[b], 1, buf);
		if (err)
			break;
		memset(buf, 0, (char *)tail - buf);
		if (ext2fs_has_feature_metadata_csum(fs->super))
			tail->ob_checksum = ext2fs_cpu_to_le32(
				ext2fs_do_orphan_file_block_csum(fs, file, in.i_generation, blocks[b], buf));
		err = io_channel_write_blk64(fs->io, blocks[b], 1, buf);
	}
	if (buf)
		ext2fs_free_mem(&buf);
	return err;
}

errcode_t fsck_orphans_release(ext2_filsys fs, struct fsck_orphans *o)
{
	struct ext2_super_block *sb = fs->super;
	ext2_ino_t head = sb->s_last_orphan;
	int file = ext2fs_has_feature_orphan_file(sb) && ext2fs_has_feature_orphan_present(sb);
	struct gather g = { 0 };
	blk64_t *blocks = NULL;
	unsigned nblocks = 0;
	errcode_t err;

	memset(o, 0, sizeof(*o));
	if (!head && !file)
		return 0;
	/* Errors: the orphans cannot be trusted; the full check that state calls for judges them. */
	if (sb->s_state & EXT2_ERROR_FS) {
		o->dropped = 1;
		return 0;
	}
	err = fs_read_bitmaps(fs);
	if (!err)
		err = ext2fs_allocate_inode_bitmap(fs, "orphans", &g.seen);
	if (!err && file)
		err = gather_file(fs, &g, &blocks, &nblocks);
	if (!err && !g.bad && head)
		err = gather_list(fs, head, &g);
	if (err || g.bad) {
		/*
		 * Anything odd and nothing is released: the check names what is
		 * wrong (a loop, a link out of range...) and its repairs decide.
		 */
		o->failed = g.bad;
		goto out;
	}
	for (unsigned i = 0; i < g.n && !err; i++)
		err = release_one(fs, g.ino[i], o);
	if (!err)
		err = empty_file_blocks(fs, blocks, nblocks);
	if (err)
		goto out;
	if (head) {
		sb->s_last_orphan = 0;
		ext2fs_mark_super_dirty(fs);
	}
	/* A flag over a clean orphan file is not ours to clear: the check reports it, as e2fsck. */
	if (file && nblocks) {
		ext2fs_clear_feature_orphan_present(sb);
		ext2fs_mark_super_dirty(fs);
	}
	o->changed = head || nblocks;
	o->quota = o->n && ext2fs_has_feature_quota(sb);
out:
	if (!err && (o->failed || o->quota)) {
		sb->s_state &= ~EXT2_VALID_FS;
		ext2fs_mark_super_dirty(fs);
		o->changed = 1;
	}
	/*
	 * On disk before the check reads it: the passes read bitmaps and
	 * verify checksums there, and must see the released inodes as free.
	 */
	if (!err && o->changed) {
		fs_guard_bitmaps(1);	/* the write guard's window for bitmap blocks */
		err = ext2fs_write_bitmaps(fs);
		fs_guard_bitmaps(0);
	}
	if (!err && o->changed)
		err = ext2fs_flush(fs);
	if (g.seen)
		ext2fs_free_inode_bitmap(g.seen);
	free(g.ino);
	free(blocks);
	return err;
}

void fsck_orphans_free(struct fsck_orphans *o)
{
	free(o->list);
	o->list = NULL;
	o->n = o->cap = 0;
}
