/* Opening a filesystem to check or repair it: refusing mounted ones, backup superblocks, undo files. */
#ifndef E4R_FS_OPEN_H
#define E4R_FS_OPEN_H

#include <ext2fs/ext2fs.h>

/*
 * The io manager for a run with repairs on IMAGE: with UNDO_FILE, libext2fs's undo
 * manager keeps every block's first content there (E4R_UNDO_EXISTS when the
 * file exists, unless MAY_EXIST: this run's journal replay made it).
 */
errcode_t fs_undo_io(const char *image, const char *undo_file, int may_exist, io_manager *io);

/*
 * Before a run with repairs: when IMAGE's primary group descriptors are not
 * sound (ext2fs_check_desc) or its superblock checksum fails, and a backup
 * is sound, *SUPERBLOCK and *BLOCKSIZE name that backup for ext2fs_open2;
 * otherwise both are 0. Returns 0, or out of memory (util_no_memory): then
 * nothing was judged and both are 0; the run must end, not open the primary.
 */
errcode_t fs_pick_super(const char *image, blk64_t *superblock, unsigned *blocksize);

/* FS has metadata_csum and its superblock's checksum does not match. */
int fs_super_csum_bad(ext2_filsys fs);

/*
 * SB names a journal by UUID (s_journal_uuid not all zero): an external
 * journal, whatever s_journal_inum says; e2fsck reads it so too.
 */
int fs_journal_uuid_set(const struct ext2_super_block *sb);

/*
 * E4R_FS_MOUNTED when IMAGE is mounted: a device (a loop device too) in
 * the mount table, or a regular file that backs a mounted loop device.
 * MNT (LEN bytes, may be NULL) then names the mount point. 0 when it is
 * not mounted or when that cannot be told (no mount table), as e2fsck.
 */
errcode_t fs_mount_point(const char *image, char *mnt, size_t len);

/* E4R_CHECK_MOUNTED when IMAGE is mounted (repairs must not run then), else 0. */
errcode_t fs_not_mounted(const char *image);

/*
 * Open IMAGE from the backup superblock fs_pick_super chose: read-write (RW;
 * every copy, the primary first, is written on close) or read-only.
 */
errcode_t fs_open_backup(const char *image, blk64_t superblock, unsigned blocksize,
				io_manager io, int rw, ext2_filsys *fsp);

#endif
