/* Finding, validating and reading a filesystem's JBD2 journal (internal inode or external device). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <blkid.h>

#include "fs/inode.h"
#include "util/crc.h"
#include "util/e4r_err.h"
#include "util/nomem.h"
#include "fs/image.h"
#include "fs/mem_io.h"
#include "fs/open.h"
#include "jbd/journal.h"

/* The largest journal we build a block map for (map[] costs 8 bytes a block). */
#define JBD_MAXLEN_LIMIT	(1U << 27)
/* Number of s_jnl_blocks[] slots that copy i_block[]; then i_size_high, i_size. */
#define JNL_BACKUP_IBLOCKS	EXT2_N_BLOCKS
#define JNL_BACKUP_SIZE_HIGH	15
#define JNL_BACKUP_SIZE_LOW	16

unsigned jbd_tag_bytes(uint32_t incompat)
{
	unsigned sz;

	if (incompat & JBD_FEATURE_INCOMPAT_CSUM_V3)
		return sizeof(struct jbd_block_tag3);
	sz = sizeof(struct jbd_block_tag);	/* 12: includes blocknr_high */
	if (incompat & JBD_FEATURE_INCOMPAT_CSUM_V2)
		sz += sizeof(uint16_t);		/* historical padding */
	if (incompat & JBD_FEATURE_INCOMPAT_64BIT)
		return sz;
	return sz - sizeof(uint32_t);
}

/* Fill map[] from an extent-mapped inode: a walk of the leaves is much faster than bmap per block. */
static errcode_t map_extents(struct jbd_journal *j, struct ext2_inode *inode, uint32_t nblocks)
{
	ext2_extent_handle_t h = NULL;
	struct ext2fs_extent ext;
	errcode_t err;
	int op = EXT2_EXTENT_ROOT;

	err = ext2fs_extent_open2(j->fs, EXT2_JOURNAL_INO, inode, &h);
	if (err)
		return err;
	for (;;) {
		err = ext2fs_extent_get(h, op, &ext);
		op = EXT2_EXTENT_NEXT_LEAF;
		if (err == EXT2_ET_EXTENT_NO_NEXT) {
			err = 0;
			break;
		}
		if (err)
			goto out;
		if (!(ext.e_flags & EXT2_EXTENT_FLAGS_LEAF))
			continue;
		for (uint64_t i = 0; i < ext.e_len; i++) {
			uint64_t l = ext.e_lblk + i;
			if (l >= nblocks)
				break;
			if (!(ext.e_flags & EXT2_EXTENT_FLAGS_UNINIT))
				j->map[l] = ext.e_pblk + i;
		}
	}
out:
	ext2fs_extent_free(h);
	return err;
}

static errcode_t map_indirect(struct jbd_journal *j, struct ext2_inode *inode, uint32_t nblocks)
{
	char *buf = NULL;
	errcode_t err;

	err = ext2fs_get_mem(3 * j->fs->blocksize, &buf);
	if (err)
		return err;
	for (uint32_t l = 0; l < nblocks; l++) {
		blk64_t phys = 0;
		err = ext2fs_bmap2(j->fs, EXT2_JOURNAL_INO, inode, buf, 0, l, NULL, &phys);
		if (err)
			break;
		j->map[l] = phys;
	}
	ext2fs_free_mem(&buf);
	return err;
}

/*
 * How many of the inode's NBLOCKS the log uses: like the kernel (jbd2's
 * load_superblock), a journal superblock whose s_maxlen is smaller than the
 * inode wins; the blocks past it need not be mapped.
 */
static uint64_t used_blocks(struct jbd_journal *j, uint64_t nblocks)
{
	ext2_filsys fs = j->fs;
	const struct jbd_superblock *sb;
	char *buf;
	uint64_t used = nblocks;

	if (j->map[0] < fs->super->s_first_data_block || j->map[0] >= ext2fs_blocks_count(fs->super) ||
	    ext2fs_get_mem(fs->blocksize, &buf))
		return used;
	sb = (const void *)buf;
	if (!io_channel_read_blk64(fs->io, j->map[0], 1, buf) &&
	    jbd_be32(sb->s_header.h_magic) == JBD_MAGIC && jbd_be32(sb->s_maxlen) &&
	    jbd_be32(sb->s_maxlen) < used)
		used = jbd_be32(sb->s_maxlen);
	ext2fs_free_mem(&buf);
	return used;
}

/* Build map[] for the journal inode INODE; every block the log uses must be mapped inside the fs. */
static errcode_t map_inode(struct jbd_journal *j, struct ext2_inode *inode)
{
	ext2_filsys fs = j->fs;
	uint64_t size = EXT2_I_SIZE(inode);
	uint64_t nblocks = size / fs->blocksize, used, mapped;
	errcode_t err;

	if (!inode->i_links_count || !LINUX_S_ISREG(inode->i_mode))
		return E4R_JOURNAL_INODE_BAD;
	if (nblocks < JBD_MIN_JOURNAL_BLOCKS)
		return E4R_JOURNAL_TOO_SHORT;
	/*
	 * A size past the filesystem is forged or damaged: map no more than the
	 * filesystem holds (map[] is sized from it); s_maxlen decides the rest.
	 */
	if (nblocks > ext2fs_blocks_count(fs->super))
		nblocks = ext2fs_blocks_count(fs->super);
	if (nblocks > JBD_MAXLEN_LIMIT)
		return E4R_JOURNAL_TOO_LONG;
	/*
	 * e2fsck wants every byte of i_size mapped: a size that ends inside a
	 * block past the last full one needs that block too, although the log
	 * (whole blocks) never uses it; unmapped, the inode is no journal.
	 */
	mapped = nblocks;
	if (size % fs->blocksize && nblocks < ext2fs_blocks_count(fs->super))
		mapped++;
	free(j->map);
	j->map = calloc(mapped, sizeof(*j->map));
	if (!j->map)
		return ENOMEM;
	j->total_len = (uint32_t)nblocks;
	if (inode->i_flags & EXT4_EXTENTS_FL)
		err = map_extents(j, inode, (uint32_t)mapped);
	else
		err = map_indirect(j, inode, (uint32_t)mapped);
	if (err)
		return err;
	if (mapped > nblocks && !j->map[nblocks])
		return E4R_JOURNAL_INODE_BAD;
	used = used_blocks(j, nblocks);
	/*
	 * A hole reads as block 0, which on 4 KiB blocks is no lower than
	 * s_first_data_block: named apart. e2fsck's load stops at the first
	 * hole and calls the inode no journal.
	 */
	for (uint64_t l = 0; l < used; l++)
		if (!j->map[l] || j->map[l] < fs->super->s_first_data_block ||
		    j->map[l] >= ext2fs_blocks_count(fs->super))
			return E4R_JOURNAL_INODE_BAD;
	j->total_len = (uint32_t)used;
	return 0;
}

/* The journal inode as the superblock's backup (s_jnl_blocks) describes it. */
static int backup_inode(ext2_filsys fs, struct ext2_inode *inode)
{
	struct ext2_super_block *sb = fs->super;

	if (sb->s_jnl_backup_type != EXT3_JNL_BACKUP_BLOCKS)
		return 0;
	memset(inode, 0, sizeof(*inode));
	memcpy(inode->i_block, sb->s_jnl_blocks, JNL_BACKUP_IBLOCKS * sizeof(uint32_t));
	inode->i_size_high = sb->s_jnl_blocks[JNL_BACKUP_SIZE_HIGH];
	inode->i_size = sb->s_jnl_blocks[JNL_BACKUP_SIZE_LOW];
	inode->i_links_count = 1;
	inode->i_mode = LINUX_S_IFREG | 0600;
	/* The copy of i_block[] is an extent tree when it starts with the extent magic. */
	uint16_t magic;
	memcpy(&magic, inode->i_block, sizeof(magic));
	if (ext2fs_le16_to_cpu(magic) == EXT3_EXT_MAGIC)
		inode->i_flags |= EXT4_EXTENTS_FL;
	return 1;
}

static errcode_t open_internal(struct jbd_journal *j)
{
	ext2_filsys fs = j->fs;
	struct ext2_inode inode;
	errcode_t err;

	j->io = fs->io;
	err = fs_read_inode(fs, fs->super->s_journal_inum, &inode);
	if (!err)
		err = map_inode(j, &inode);
	/*
	 * The backup of the map stands in for an inode that is no journal, never
	 * for one that could not be read for lack of memory: that would call a
	 * sound journal inode bad, and a repair would rebuild it.
	 */
	if (util_no_memory(err))
		return err;
	if (err && backup_inode(fs, &inode)) {
		errcode_t err2 = map_inode(j, &inode);
		if (util_no_memory(err2))
			return err2;
		if (!err2) {
			j->from_backup = 1;
			err = 0;
		}
	}
	return err;
}

/*
 * The device that carries the external journal's UUID, as e2fsck finds it:
 * libblkid (udev's links, else a probe of the block devices, loop devices
 * included; no cache file read or written). NULL when none does.
 */
static char *find_by_uuid(ext2_filsys fs, const uint8_t *u)
{
	blkid_cache cache = NULL;
	char uuid[37];
	char *dev;

	/*
	 * An image held in memory (a fuzz run) has no device beside it: a
	 * probe would read the machine's disks on every run, and make what
	 * the run finds depend on them.
	 */
	if (fs_mem_image_find(fs->device_name, NULL))
		return NULL;
	snprintf(uuid, sizeof(uuid), "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
	if (blkid_get_cache(&cache, "/dev/null") < 0)
		return NULL;
	dev = blkid_evaluate_tag("UUID", uuid, &cache);
	blkid_put_cache(cache);
	return dev;
}

static errcode_t open_external(struct jbd_journal *j, const char *path)
{
	ext2_filsys fs = j->fs;
	struct ext2_super_block esb;
	uint64_t blocks, dev_bytes;
	errcode_t err;

	/*
	 * Not O_EXCL: a replay holds the journal open while it opens it again
	 * to finish. The filesystem's own mount check guards the device.
	 */
	err = fs_image_io(path, NULL)->open(path, (fs->flags & EXT2_FLAG_RW) ? IO_FLAG_RW : 0, &j->io);
	if (err)
		return err;
	j->external = 1;
	/* The ext2 superblock of the journal device is at byte 1024 whatever the block size. */
	io_channel_set_blksize(j->io, SUPERBLOCK_OFFSET);
	err = io_channel_read_blk64(j->io, 1, -SUPERBLOCK_SIZE, &esb);
	if (err)
		return err;
#ifdef WORDS_BIGENDIAN
	ext2fs_swap_super(&esb);
#endif
	if (esb.s_magic != EXT2_SUPER_MAGIC ||
	    !ext2fs_has_feature_journal_dev(&esb) ||
	    memcmp(esb.s_uuid, fs->super->s_journal_uuid, sizeof(esb.s_uuid)) ||
	    EXT2_BLOCK_SIZE(&esb) != fs->blocksize)
		return E4R_JOURNAL_EXTERNAL_BAD;
	io_channel_set_blksize(j->io, fs->blocksize);
	blocks = ext2fs_blocks_count(&esb);
	if (blocks > JBD_MAXLEN_LIMIT ||
	    (!fs_image_size(path, &dev_bytes) && blocks > dev_bytes / fs->blocksize))
		return E4R_JOURNAL_TOO_LONG;
	/* An external journal's block numbers are the device's own. */
	j->sb_block = ext2fs_journal_sb_start(fs->blocksize);
	j->total_len = (uint32_t)blocks;
	j->map = calloc(blocks, sizeof(*j->map));
	if (!j->map)
		return ENOMEM;
	for (uint64_t b = 0; b < blocks; b++)
		j->map[b] = b;
	return 0;
}

static void sb_checksum(struct jbd_journal *j)
{
	unsigned char tmp[JBD_SUPERBLOCK_SIZE];
	const struct jbd_superblock *sb = (const void *)j->raw_sb;

	memcpy(tmp, j->raw_sb, sizeof(tmp));
	memset(tmp + offsetof(struct jbd_superblock, s_checksum), 0, sizeof(sb->s_checksum));
	j->sb_csum_stored = jbd_be32(sb->s_checksum);
	j->sb_csum_computed = util_crc32c(~0U, tmp, sizeof(tmp));
	j->sb_csum_ok = j->sb_csum_stored == j->sb_csum_computed;
}

/* The feature and checksum checks e2fsck makes before it trusts a v2 superblock. */
static errcode_t check_features(struct jbd_journal *j)
{
	uint32_t v2 = j->incompat & JBD_FEATURE_INCOMPAT_CSUM_V2;
	uint32_t v3 = j->incompat & JBD_FEATURE_INCOMPAT_CSUM_V3;
	uint32_t v1 = j->compat & JBD_FEATURE_COMPAT_CHECKSUM;

	if (j->incompat & ~JBD_KNOWN_INCOMPAT)
		return E4R_JSB_UNKNOWN_INCOMPAT;
	if (j->ro_compat & ~JBD_KNOWN_ROCOMPAT)
		return E4R_JSB_UNKNOWN_ROCOMPAT;
	if ((v2 && v3) || (v1 && (v2 || v3)))
		return E4R_JSB_CSUM_CONFLICT;
	if (v2 || v3) {
		if (j->checksum_type != JBD_CRC32C_CHKSUM)
			return E4R_JSB_CSUM_TYPE;
		j->csum = v3 ? JBD_CSUM_V3 : JBD_CSUM_V2;
		j->csum_seed = util_crc32c(~0U, j->uuid, JBD_UUID_SIZE);
		sb_checksum(j);
	} else if (v1) {
		j->csum = JBD_CSUM_V1;
	}
	return 0;
}

static errcode_t parse_super(struct jbd_journal *j)
{
	const struct jbd_superblock *sb = (const void *)j->raw_sb;
	uint32_t type = jbd_be32(sb->s_header.h_blocktype);
	errcode_t err;

	if (jbd_be32(sb->s_header.h_magic) != JBD_MAGIC)
		return E4R_JSB_BAD_MAGIC;
	if (type != JBD_SUPERBLOCK_V1 && type != JBD_SUPERBLOCK_V2)
		return E4R_JSB_BAD_TYPE;
	j->format = type == JBD_SUPERBLOCK_V1 ? 1 : 2;
	j->blocksize = jbd_be32(sb->s_blocksize);
	j->maxlen = jbd_be32(sb->s_maxlen);
	j->first = jbd_be32(sb->s_first);
	j->sequence = jbd_be32(sb->s_sequence);
	j->start = jbd_be32(sb->s_start);
	j->errno_ = (int32_t)jbd_be32(sb->s_errno);
	j->sb_csum_ok = -1;
	j->csum = JBD_CSUM_NONE;
	if (j->format == 2) {
		j->compat = jbd_be32(sb->s_feature_compat);
		j->incompat = jbd_be32(sb->s_feature_incompat);
		j->ro_compat = jbd_be32(sb->s_feature_ro_compat);
		memcpy(j->uuid, sb->s_uuid, JBD_UUID_SIZE);
		j->checksum_type = sb->s_checksum_type;
		err = check_features(j);
		if (err)
			return err;
	}
	j->tag_bytes = jbd_tag_bytes(j->incompat);
	if (j->blocksize != j->fs->blocksize)
		return E4R_JSB_BAD_BLOCKSIZE;
	/* e2fsck and the kernel accept a log shorter than the inode, never a longer one. */
	if (j->maxlen > j->total_len || j->maxlen <= j->sb_block + 1)
		return E4R_JSB_BAD_MAXLEN;
	if (j->first <= j->sb_block || j->first >= j->maxlen)
		return E4R_JSB_BAD_FIRST;
	j->last = j->maxlen;
	if (j->incompat & JBD_FEATURE_INCOMPAT_FAST_COMMIT) {
		uint32_t fc = jbd_be32(sb->s_num_fc_blks);
		if (!fc)
			fc = JBD_DEFAULT_FC_BLOCKS;
		if (fc >= j->maxlen || j->maxlen - fc < JBD_MIN_JOURNAL_BLOCKS ||
		    j->maxlen - fc <= j->first)
			return E4R_JSB_FC_BLOCKS;
		j->fc_blocks = fc;
		j->last = j->maxlen - fc;
	}
	if (j->start && (j->start < j->first || j->start >= j->last))
		return E4R_JSB_BAD_START;
	return 0;
}

static errcode_t read_super(struct jbd_journal *j)
{
	unsigned char *blk;
	errcode_t err;

	err = ext2fs_get_mem(j->fs->blocksize, &blk);
	if (err)
		return err;
	err = io_channel_read_blk64(j->io, j->map[j->sb_block], 1, blk);
	if (!err)
		memcpy(j->raw_sb, blk, JBD_SUPERBLOCK_SIZE);
	ext2fs_free_mem(&blk);
	return err;
}

errcode_t jbd_journal_open(ext2_filsys fs, const char *external_path, struct jbd_journal **out)
{
	struct jbd_journal *j;
	errcode_t err;

	*out = NULL;
	if (!ext2fs_has_feature_journal(fs->super))
		return E4R_NO_JOURNAL;
	j = calloc(1, sizeof(*j));
	if (!j)
		return ENOMEM;
	j->fs = fs;
	if (fs->super->s_journal_inum)
		err = open_internal(j);
	else if (!fs_journal_uuid_set(fs->super))
		err = E4R_NO_JOURNAL;
	else if (external_path)
		err = open_external(j, external_path);
	else if (!(j->device = find_by_uuid(fs, fs->super->s_journal_uuid)))
		err = E4R_JOURNAL_EXTERNAL_NEEDED;
	else
		err = open_external(j, j->device);
	if (!err)
		err = read_super(j);
	if (!err)
		err = parse_super(j);
	if (err) {
		jbd_journal_close(j);
		return err;
	}
	*out = j;
	return 0;
}

errcode_t jbd_journal_path_check(const char *image, const char *path)
{
	ext2_filsys fs = NULL;
	io_channel io = NULL;
	errcode_t err;
	int internal;

	err = fs_image_io(path, NULL)->open(path, 0, &io);
	if (err)
		return err;
	io_channel_close(io);
	if (fs_image_open(image, E4R_OPEN_NO_SIZE_CHECK | E4R_OPEN_IGNORE_SB_ERRORS,
			  fs_image_io(image, NULL), &fs))
		return 0;
	/*
	 * No journal UUID: the device would be read in place of the inode's
	 * journal, or of none. With one, e2fsck loads the device whatever the
	 * inode number or the has_journal flag say, and so does the check.
	 */
	internal = !fs_journal_uuid_set(fs->super);
	ext2fs_close_free(&fs);
	return internal ? E4R_JOURNAL_PATH_UNUSED : 0;
}

void jbd_progress(const struct jbd_journal *j, enum jbd_progress what, uint64_t done, uint64_t total)
{
	if (j->progress)
		j->progress(j->progress_arg, what, done, total);
}

void jbd_journal_close(struct jbd_journal *j)
{
	if (!j)
		return;
	if (j->external && j->io)
		io_channel_close(j->io);
	free(j->device);
	free(j->map);
	free(j);
}

errcode_t jbd_journal_read(struct jbd_journal *j, uint32_t jblk, unsigned count, void *buf)
{
	unsigned char *p = buf;
	errcode_t err;

	if ((uint64_t)jblk + count > j->total_len)
		return E4R_JOURNAL_TOO_SHORT;
	while (count) {
		unsigned run = 1;
		while (run < count && j->map[jblk + run] == j->map[jblk] + run)
			run++;
		err = io_channel_read_blk64(j->io, j->map[jblk], run, p);
		if (err)
			return err;
		p += (size_t)run * j->blocksize;
		jblk += run;
		count -= run;
	}
	return 0;
}

errcode_t jbd_journal_read_list(struct jbd_journal *j, const uint32_t *jblks, unsigned n, void *buf)
{
	unsigned char *p = buf;
	errcode_t err;

	for (unsigned i = 0; i < n;) {
		unsigned run = 1;

		while (i + run < n && jblks[i + run] == jblks[i] + run)
			run++;
		err = jbd_journal_read(j, jblks[i], run, p + (size_t)i * j->blocksize);
		if (err)
			return err;
		i += run;
	}
	return 0;
}

errcode_t jbd_journal_write_super(struct jbd_journal *j)
{
	struct jbd_superblock *sb = (void *)j->raw_sb;
	unsigned char *blk;
	errcode_t err;

	if (j->csum == JBD_CSUM_V2 || j->csum == JBD_CSUM_V3) {
		sb->s_checksum = 0;
		sb->s_checksum = jbd_to_be32(util_crc32c(~0U, j->raw_sb, JBD_SUPERBLOCK_SIZE));
	}
	err = ext2fs_get_mem(j->blocksize, &blk);
	if (err)
		return err;
	err = io_channel_read_blk64(j->io, j->map[j->sb_block], 1, blk);
	if (!err) {
		memcpy(blk, j->raw_sb, JBD_SUPERBLOCK_SIZE);
		err = io_channel_write_blk64(j->io, j->map[j->sb_block], 1, blk);
	}
	if (!err)
		err = io_channel_flush(j->io);
	ext2fs_free_mem(&blk);
	return err;
}
