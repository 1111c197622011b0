/*
 * Directory entries in a block as read from the disk, in place. ext4 stores
 * them little-endian; libext2fs's dirent helpers (ext2fs_get_rec_len,
 * ext2fs_dirent_name_len, ...) want the host order its own directory reads
 * produce, so a raw block read through io_channel goes through these.
 * The entry on disk: inode (le32), rec_len (le16), name_len (u8),
 * file_type (u8), the name; struct ext2_dir_entry reads the last two as one
 * le16, name_len in its low byte.
 */
#ifndef E4R_FS_DIRENT_H
#define E4R_FS_DIRENT_H

#include <string.h>
#include <ext2fs/ext2fs.h>

#define FS_DIRENT_TAIL_SIZE	12
#define FS_DIRENT_TAIL_FT	0xDE	/* the tail's file type, in the name_len word's high byte */

static inline ext2_ino_t fs_dirent_inode(const struct ext2_dir_entry *de)
{
	return ext2fs_le32_to_cpu(de->inode);
}

static inline void fs_dirent_set_inode(struct ext2_dir_entry *de, ext2_ino_t ino)
{
	de->inode = ext2fs_cpu_to_le32(ino);
}

static inline unsigned fs_dirent_name_len(const struct ext2_dir_entry *de)
{
	return ext2fs_le16_to_cpu(de->name_len) & 0xff;
}

static inline int fs_dirent_file_type(const struct ext2_dir_entry *de)
{
	return ext2fs_le16_to_cpu(de->name_len) >> 8;
}

static inline void fs_dirent_set_name_len(struct ext2_dir_entry *de, unsigned len)
{
	de->name_len = ext2fs_cpu_to_le16((ext2fs_le16_to_cpu(de->name_len) & 0xff00) | (len & 0xff));
}

static inline void fs_dirent_set_file_type(struct ext2_dir_entry *de, int type)
{
	de->name_len = ext2fs_cpu_to_le16((ext2fs_le16_to_cpu(de->name_len) & 0xff) |
					  ((unsigned)type & 0xff) << 8);
}

/*
 * rec_len, decoded as libext2fs's ext2fs_get_rec_len does; never an error
 * (the return keeps the callers' shape). Decoded here rather than through
 * libext2fs: pass 2 decodes every entry several times, and a call per
 * entry was a measurable part of it. Below 64 KiB blocks the field is the
 * length; a 64 KiB block cannot store 65536 in 16 bits, so there 0 and
 * 0xffff mean the whole block and the two low bits (always 0 in a length,
 * a multiple of 4) carry bits 16 and 17.
 */
static inline errcode_t fs_dirent_rec_len(ext2_filsys fs, const struct ext2_dir_entry *de,
					  unsigned *len)
{
	unsigned v = ext2fs_le16_to_cpu(de->rec_len);

	if (fs->blocksize < 65536)
		*len = v;
	else if (v == 0 || v == 0xffff)
		*len = fs->blocksize;
	else
		*len = (v & 0xfffc) | ((v & 3) << 16);
	return 0;
}

static inline errcode_t fs_dirent_set_rec_len(ext2_filsys fs, unsigned len, struct ext2_dir_entry *de)
{
	struct ext2_dir_entry host = { 0 };
	errcode_t err = ext2fs_set_rec_len(fs, len, &host);

	if (!err)
		de->rec_len = ext2fs_cpu_to_le16(host.rec_len);
	return err;
}

#define FS_DIRENT_HEADER	8	/* inode, rec_len, name_len, file_type */
#define FS_DIRENT_MIN		12	/* the header and a name of up to four bytes */

/*
 * Does the entry at DE have a record length a walk can step by, with ROOM
 * bytes left in the block: at least the smallest entry, on the 4-byte grid
 * (past one off it, every later entry is misaligned), inside the room?
 * The length goes to *LEN either way.
 */
static inline int fs_dirent_rec_len_ok(ext2_filsys fs, const struct ext2_dir_entry *de,
				       unsigned room, unsigned *len)
{
	fs_dirent_rec_len(fs, de, len);
	return *len >= FS_DIRENT_MIN && *len % 4 == 0 && *len <= room;
}

/*
 * The entry at OFF of BUF[0..END) cannot be read: no room for its header, a
 * record length a walk cannot step by, or a name longer than its record.
 * OFF at END or past it is no entry, and no corrupt one. (Inline: the
 * salvage and the search for sound entries after a corrupt one both ask,
 * and the fuzz build traces one of them and not the other.)
 */
static inline int fs_dirent_corrupt(ext2_filsys fs, const char *buf, unsigned end, unsigned off)
{
	const struct ext2_dir_entry *de = (const struct ext2_dir_entry *)(buf + off);
	unsigned rec_len;

	if (off >= end)
		return 0;
	if (end - off < FS_DIRENT_HEADER)
		return 1;
	return !fs_dirent_rec_len_ok(fs, de, end - off, &rec_len) ||
	       fs_dirent_name_len(de) + FS_DIRENT_HEADER > rec_len;
}

/* The checksum tail at the end of a leaf block: a fake entry, inode 0, 12 bytes, type 0xDE. */
static inline int fs_dirent_is_tail(const struct ext2_dir_entry_tail *t)
{
	return t->det_reserved_zero1 == 0 &&
	       ext2fs_le16_to_cpu(t->det_rec_len) == FS_DIRENT_TAIL_SIZE &&
	       ext2fs_le16_to_cpu(t->det_reserved_name_len) == FS_DIRENT_TAIL_FT << 8;
}

/* A fresh tail (checksum 0: set it with ext2fs_dir_block_csum_set, which reads disk order). */
static inline void fs_dirent_init_tail(struct ext2_dir_entry_tail *t)
{
	memset(t, 0, sizeof(*t));
	t->det_rec_len = ext2fs_cpu_to_le16(FS_DIRENT_TAIL_SIZE);
	t->det_reserved_name_len = ext2fs_cpu_to_le16(FS_DIRENT_TAIL_FT << 8);
}

#endif
