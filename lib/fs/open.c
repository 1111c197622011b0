/*
 * Where a checker run with repairs reads the superblock and group
 * descriptors from: the primary copy, or (as e2fsck does when the primary
 * descriptors point outside their groups) the first backup that is sound.
 * The repairs then write the primary back from it.
 */
#include "config.h"

#include <stdio.h>

#include "fs/open.h"
#include "fs/mem_io.h"
#include "util/e4r_err.h"
#include "util/nomem.h"
#include "fs/image.h"

/* The backup groups tried: sparse_super keeps copies in groups 1, 3, 5, 7, 9... */
static const dgrp_t backup_groups[] = { 1, 3, 5, 7, 9, 25, 27 };

/*
 * Every group's bitmaps and table inside the filesystem. ext2fs_check_desc
 * adds the table's length to its start unchecked: a start near 2^64 wraps
 * past its test, and it then asks its bitmap about blocks 2^64-1 and 0
 * (fuzz_check). Such a start is no sound place, whatever it would say.
 */
static int places_inside(ext2_filsys fs)
{
	blk64_t first = fs->super->s_first_data_block, count = ext2fs_blocks_count(fs->super);
	dgrp_t g;

	for (g = 0; g < fs->group_desc_count; g++) {
		blk64_t it = ext2fs_inode_table_loc(fs, g), bb = ext2fs_block_bitmap_loc(fs, g);
		blk64_t ib = ext2fs_inode_bitmap_loc(fs, g);

		if (it < first || it >= count || count - it < fs->inode_blocks_per_group ||
		    bb < first || bb >= count || ib < first || ib >= count)
			return 0;
	}
	return 1;
}

/*
 * *SOUND: FS's descriptors place everything inside their groups. Returns 0,
 * or the out-of-memory error of ext2fs_check_desc (its bitmap): no verdict
 * on the descriptors, and no reason to read a backup instead.
 */
static errcode_t descriptors_sound(ext2_filsys fs, int *sound)
{
	errcode_t err;

	*sound = 0;
	if (!places_inside(fs))
		return 0;
	err = ext2fs_check_desc(fs);
	if (util_no_memory(err))
		return err;
	*sound = !err;
	return 0;
}

int fs_super_csum_bad(ext2_filsys fs)
{
	return ext2fs_has_feature_metadata_csum(fs->super) &&
	       !ext2fs_superblock_csum_verify(fs, fs->super);
}

int fs_journal_uuid_set(const struct ext2_super_block *sb)
{
	for (size_t i = 0; i < sizeof(sb->s_journal_uuid); i++)
		if (sb->s_journal_uuid[i])
			return 1;
	return 0;
}

/*
 * *SOUND (and *superblock, *blocksize set) when the superblock at SB with
 * block size BS opens with sound descriptors. Returns 0, or an out-of-memory
 * error: a backup that could not be read for lack of memory is neither sound
 * nor unsound, and the search must not go on to the next one.
 */
static errcode_t backup_sound(const char *image, int flags, blk64_t sb, unsigned bs,
			      blk64_t *superblock, unsigned *blocksize, int *sound)
{
	ext2_filsys b = NULL;
	errcode_t err;

	*sound = 0;
	err = fs_image_precheck(image, sb, bs, E4R_OPEN_NO_SIZE_CHECK);
	if (!err)
		err = ext2fs_open2(image, NULL, flags, (int)sb, bs, fs_image_io(image, NULL), &b);
	if (err)
		return util_no_memory(err) ? err : 0;
	err = descriptors_sound(b, sound);
	ext2fs_close_free(&b);
	if (*sound) {
		*superblock = sb;
		*blocksize = bs;
	}
	return err;
}

/*
 * The geometry a refused primary superblock still gives (its magic, block
 * size, blocks per group and first data block look sane): e2fsck looks
 * for the backups where those put them before trying mke2fs's defaults,
 * so a filesystem made with small groups finds its backups too.
 */
static int primary_geometry(const char *image, unsigned *bs, uint32_t *bpg, uint32_t *first, errcode_t *err)
{
	io_manager io = fs_image_io(image, NULL);
	struct ext2_super_block sb;
	io_channel ch = NULL;
	int ok = 0;

	*err = 0;
	if (!io)
		return 0;
	/* a channel that could not be opened for lack of memory gives no geometry, nor a reason to guess one */
	if ((*err = io->open(image, 0, &ch))) {
		if (!util_no_memory(*err))
			*err = 0;
		return 0;
	}
	if (!io_channel_set_blksize(ch, SUPERBLOCK_OFFSET) &&
	    !io_channel_read_blk64(ch, 1, -(int)sizeof(sb), &sb)) {
#ifdef WORDS_BIGENDIAN
		ext2fs_swap_super(&sb);
#endif
		if (sb.s_magic == EXT2_SUPER_MAGIC && sb.s_log_block_size <= 6) {
			*bs = 1024u << sb.s_log_block_size;
			*bpg = sb.s_blocks_per_group;
			*first = sb.s_first_data_block;
			ok = *bpg >= 8 && *bpg <= 8 * *bs && *bpg % 8 == 0 && *first == (*bs == 1024);
		}
	}
	io_channel_close(ch);
	return ok;
}

/* *FOUND (and *SUPERBLOCK, *BLOCKSIZE set) when a backup at groups of BPG blocks from FIRST is sound. */
static errcode_t backup_in_groups(const char *image, int flags, unsigned bs, uint32_t bpg, uint32_t first,
				  dgrp_t groups, blk64_t *superblock, unsigned *blocksize, int *found)
{
	errcode_t err = 0;

	*found = 0;
	for (size_t i = 0; !err && !*found && i < sizeof(backup_groups) / sizeof(backup_groups[0]) &&
			   backup_groups[i] < groups; i++)
		err = backup_sound(image, flags, (blk64_t)backup_groups[i] * bpg + first, bs, superblock,
				   blocksize, found);
	return err;
}

errcode_t fs_pick_super(const char *image, blk64_t *superblock, unsigned *blocksize)
{
	ext2_filsys fs = NULL;
	int flags = EXT2_FLAG_64BITS | EXT2_FLAG_SKIP_MMP | EXT2_FLAG_IGNORE_CSUM_ERRORS;
	uint32_t bpg, first;
	dgrp_t groups;
	unsigned bs;
	int found = 0, sound;
	errcode_t err;

	*superblock = 0;
	*blocksize = 0;
	/*
	 * Out of memory anywhere here is returned, with no backup chosen: a
	 * primary that could not be read for want of memory is no bad primary,
	 * and a backup read instead would have the repairs write its
	 * descriptors (and the bitmaps' padding, the checksums) over a sound one.
	 */
	/* without IGNORE_SB_ERRORS: libext2fs divides by a zero descriptor size with it */
	err = fs_image_open(image, E4R_OPEN_NO_SIZE_CHECK, NULL, &fs);
	if (util_no_memory(err))
		return err;
	if (err) {
		/*
		 * The primary superblock itself is refused: try where its own
		 * geometry puts the backups (the group count unknown, every
		 * group the list names), then where the first backup is with
		 * the default geometry of each block size (as e2fsck does);
		 * nothing found leaves the error to the real open.
		 */
		if (primary_geometry(image, &bs, &bpg, &first, &err))
			err = backup_in_groups(image, flags, bs, bpg, first, (dgrp_t)-1, superblock, blocksize,
					       &found);
		for (bs = 1024; !err && !found && bs <= 65536; bs *= 2)
			err = backup_sound(image, flags, (blk64_t)bs * 8 + (bs == 1024), bs, superblock, blocksize,
					   &found);
		goto out;
	}
	/*
	 * e2fsck tries the backups for a primary whose checksum fails too: the
	 * damage that broke the checksum may be in a field that changes the
	 * layout (sparse_super cleared), which no later pass would notice.
	 */
	if ((err = descriptors_sound(fs, &sound)) || (sound && !fs_super_csum_bad(fs))) {
		ext2fs_close_free(&fs);
		return err;
	}
	bpg = fs->super->s_blocks_per_group;
	first = fs->super->s_first_data_block;
	groups = fs->group_desc_count;
	bs = fs->blocksize;
	ext2fs_close_free(&fs);
	err = backup_in_groups(image, flags, bs, bpg, first, groups, superblock, blocksize, &found);
out:
	if (err) {
		*superblock = 0;
		*blocksize = 0;
	}
	return err;
}

errcode_t fs_open_backup(const char *image, blk64_t superblock, unsigned blocksize,
				io_manager io, int rw, ext2_filsys *fsp)
{
	int flags = EXT2_FLAG_64BITS | EXT2_FLAG_SKIP_MMP | EXT2_FLAG_IGNORE_CSUM_ERRORS |
		    (rw ? EXT2_FLAG_RW : 0);
	/* a backup's claims are checked like the primary's (fs_image_open) */
	errcode_t err = fs_image_precheck(image, superblock, blocksize, 0);

	if (!err)
		err = ext2fs_open2(image, NULL, flags, (int)superblock, blocksize, io, fsp);
	if (err || !rw)
		return err;
	/* Every copy is written from this one on close, the primary first. */
	(*fsp)->flags &= ~EXT2_FLAG_MASTER_SB_ONLY;
	ext2fs_mark_super_dirty(*fsp);
	return 0;
}

errcode_t fs_mount_point(const char *image, char *mnt, size_t len)
{
	char where[4096] = "";
	int flags = 0;

	if (mnt && len)
		mnt[0] = '\0';
	/*
	 * libext2fs matches the image against every mount: a device by its
	 * number, a regular file through the loop devices whose backing file
	 * it is. An image registered in memory is never mounted.
	 */
	if (fs_mem_image_find(image, NULL) ||
	    ext2fs_check_mount_point(image, &flags, where, (int)sizeof(where)))
		return 0;	/* cannot tell (no /proc/mounts): as e2fsck, go on */
	if (!(flags & EXT2_MF_MOUNTED))
		return 0;
	if (mnt && len)
		snprintf(mnt, len, "%s", where[0] ? where : "?");
	return E4R_FS_MOUNTED;
}

errcode_t fs_not_mounted(const char *image)
{
	return fs_mount_point(image, NULL, 0) ? E4R_CHECK_MOUNTED : 0;
}
