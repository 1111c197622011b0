/* Opening a filesystem image with errors that say what is wrong with it. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>

#include "fs/held_io.h"
#include "fs/image.h"
#include "fs/ioerr_io.h"
#include "fs/mem_io.h"
#include "util/e4r_err.h"

io_manager fs_image_io(const char *image, io_manager io)
{
	/* the run's one open of the image (held_io.h), whatever reaches it underneath */
	if (fs_held_image(image) && (!io || io == unix_io_manager))
		return fs_held_io;
	if (fs_mem_image_find(image, NULL) && (!io || io == unix_io_manager))
		return fs_mem_io_manager;
	/* through the manager that notes which block failed, over the base */
	return io && io != unix_io_manager ? io : fs_ioerr_io_manager;
}

/* Translate libext2fs's open errors into what they mean for a user's image. */
static errcode_t explain_open_error(errcode_t err)
{
	switch (err) {
	case EXT2_ET_BAD_MAGIC:
		return E4R_IMAGE_NOT_EXT;
	case EXT2_ET_SHORT_READ:
		return E4R_IMAGE_TRUNCATED;
	default:
		return err;
	}
}

/*
 * Refuse, before libext2fs sees it, a superblock that claims more than the
 * image holds. libext2fs sizes its group descriptor table from the block
 * count; with EXT2_FLAG_IGNORE_SB_ERRORS (the checker's second try) a forged
 * count makes it allocate and clear gigabytes before anyone looks at the
 * image's size. A superblock that is not ext at all is left to libext2fs.
 */
static errcode_t precheck_size(const char *image, io_manager io, uint64_t bytes, int flags,
				uint64_t sb_offset)
{
	struct ext2_super_block sb;
	io_channel ch;
	uint64_t blocks, groups, bpg, inodes;
	unsigned log, isize;
	errcode_t err;

	err = io->open(image, 0, &ch);
	if (err)
		return 0;	/* libext2fs will say why */
	io_channel_set_blksize(ch, SUPERBLOCK_OFFSET);
	err = io_channel_read_blk64(ch, sb_offset / SUPERBLOCK_OFFSET, -SUPERBLOCK_SIZE, &sb);
	io_channel_close(ch);
#ifdef WORDS_BIGENDIAN
	ext2fs_swap_super(&sb);
#endif
	if (err || sb.s_magic != EXT2_SUPER_MAGIC)
		return 0;
	log = sb.s_log_block_size;
	if (log > EXT2_MAX_BLOCK_LOG_SIZE - EXT2_MIN_BLOCK_LOG_SIZE)
		return 0;	/* libext2fs rejects it */
	blocks = ext2fs_blocks_count(&sb);
	if (!(flags & E4R_OPEN_NO_SIZE_CHECK) &&
	    blocks > bytes >> (EXT2_MIN_BLOCK_LOG_SIZE + log))
		return E4R_IMAGE_TRUNCATED;
	/*
	 * Group 0 starts at block 1 with 1 KiB blocks (the boot block before
	 * it; bigalloc's clusters of one block too) and at block 0 otherwise:
	 * mke2fs writes nothing else and e2fsck
	 * aborts on anything else. libext2fs sizes its bitmaps from this field
	 * and corrupts its heap reading them when it is forged (fuzz_check).
	 */
	if (sb.s_first_data_block !=
	    (log == 0 && (!ext2fs_has_feature_bigalloc(&sb) || sb.s_log_cluster_size == log) ?
	     1u : 0u))
		return E4R_IMAGE_BAD_FIRST_DATA_BLOCK;
	/*
	 * Told to ignore superblock errors, libext2fs divides by the blocks'
	 * count of descriptors: a 64bit descriptor size of 0 or past a block
	 * (e2fsck dies of SIGFPE on either) stays refused
	 */
	if ((flags & E4R_OPEN_IGNORE_SB_ERRORS) && ext2fs_has_feature_64bit(&sb) &&
	    (sb.s_desc_size == 0 || sb.s_desc_size > (EXT2_MIN_BLOCK_SIZE << log)))
		return EXT2_ET_BAD_DESC_SIZE;
	/* Even without the size check, the descriptor table must fit in the image. */
	bpg = sb.s_blocks_per_group;
	groups = 0;	/* libext2fs refuses these geometries itself */
	if (bpg && blocks > sb.s_first_data_block)
		groups = (blocks - sb.s_first_data_block + bpg - 1) / bpg;
	if (groups > bytes / EXT2_MIN_DESC_SIZE)
		return E4R_IMAGE_TRUNCATED;
	/*
	 * Every inode has its place in an inode table inside the filesystem,
	 * and a group's inodes fit its one-block bitmap; counts past that would
	 * size libext2fs's bitmaps and the checker's per-inode arrays (gigabytes
	 * for a forged 2^32 in either the total or the per-group count).
	 */
	isize = sb.s_rev_level == EXT2_GOOD_OLD_REV ? EXT2_GOOD_OLD_INODE_SIZE : sb.s_inode_size;
	if (!isize)
		isize = EXT2_GOOD_OLD_INODE_SIZE;
	inodes = (uint64_t)sb.s_inodes_per_group * groups;
	/*
	 * A check that ignores superblock errors sizes nothing from an inode
	 * count that is not the groups': read-only it stops at it, repairing it
	 * sets it to the groups' first (as e2fsck does both)
	 */
	if (inodes < sb.s_inodes_count && !(flags & E4R_OPEN_IGNORE_SB_ERRORS))
		inodes = sb.s_inodes_count;
	if (sb.s_inodes_per_group > (8u << (EXT2_MIN_BLOCK_LOG_SIZE + log)) ||
	    inodes > (blocks << (EXT2_MIN_BLOCK_LOG_SIZE + log)) / isize)
		return E4R_IMAGE_TOO_MANY_INODES;
	return 0;
}

errcode_t fs_image_precheck(const char *image, blk64_t superblock, unsigned blocksize, int flags)
{
	uint64_t bytes;

	if (fs_image_size(image, &bytes))
		return 0;	/* the open will say why */
	return precheck_size(image, fs_image_io(image, NULL), bytes, flags,
			     superblock ? superblock * (uint64_t)blocksize : SUPERBLOCK_OFFSET);
}

errcode_t fs_image_open(const char *image, int flags, io_manager io, ext2_filsys *fsp)
{
	struct stat st;
	uint64_t bytes;
	ext2_filsys fs = NULL;
	errcode_t err;
	int oflags = EXT2_FLAG_64BITS | EXT2_FLAG_SKIP_MMP | EXT2_FLAG_IGNORE_CSUM_ERRORS;

	*fsp = NULL;
	if (!fs_mem_image_find(image, NULL)) {
		if (stat(image, &st) < 0)
			return errno;
		if (S_ISDIR(st.st_mode))
			return EISDIR;
		if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
			return E4R_IMAGE_NOT_EXT;
	}
	err = fs_image_size(image, &bytes);
	if (err)
		return err;
	/* The primary superblock ends at byte 2048: anything shorter cannot be ext. */
	if (bytes < 2048)
		return bytes == 0 ? E4R_IMAGE_NOT_EXT : E4R_IMAGE_TRUNCATED;

	/* the raw image: a wrapping manager (undo, fault injection) must not see this read */
	err = precheck_size(image, fs_image_io(image, NULL), bytes, flags, SUPERBLOCK_OFFSET);
	if (err)
		return err;
	if (flags & E4R_OPEN_RW) {
		oflags |= EXT2_FLAG_RW;
		/* Writing to a device: O_EXCL, so the kernel refuses while it has it mounted. */
		if (!fs_mem_image_find(image, NULL) && S_ISBLK(st.st_mode))
			oflags |= EXT2_FLAG_EXCLUSIVE;
	}
	if (flags & E4R_OPEN_IGNORE_SB_ERRORS)
		oflags |= EXT2_FLAG_IGNORE_SB_ERRORS;
	err = ext2fs_open2(image, NULL, oflags, 0, 0, fs_image_io(image, io), &fs);
	if (err)
		return explain_open_error(err);

	if (!(flags & E4R_OPEN_NO_SIZE_CHECK)) {
		uint64_t want = ext2fs_blocks_count(fs->super) * (uint64_t)fs->blocksize;
		if (bytes < want) {
			ext2fs_close_free(&fs);
			return E4R_IMAGE_TRUNCATED;
		}
	}
	*fsp = fs;
	return 0;
}
