/* Inode, directory leaf and extent node checksums with the hardware crc32c (see csum.h). */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "check/csum.h"
#include "fs/dirent.h"
#include "fs/inode.h"
#include "util/bytes.h"
#include "util/crc.h"

/* Offsets in the on-disk inode (struct ext2_inode_large). */
#define I_CSUM_LO	offsetof(struct ext2_inode_large, osd2.linux2.l_i_checksum_lo)
#define I_EXTRA_ISIZE	offsetof(struct ext2_inode_large, i_extra_isize)
#define I_CSUM_HI	offsetof(struct ext2_inode_large, i_checksum_hi)
/* i_extra_isize must reach past i_checksum_hi for the high half to exist. */
#define I_CSUM_HI_EXTRA	(I_CSUM_HI + 2 - EXT2_GOOD_OLD_INODE_SIZE)

static uint16_t le16_at(const void *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return ext2fs_le16_to_cpu(v);
}

static uint32_t le32_at(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return ext2fs_le32_to_cpu(v);
}

/* The seed every per-inode checksum starts from: the filesystem's, then the inode number and generation. */
static uint32_t inode_seed(ext2_filsys fs, ext2_ino_t ino, uint32_t gen_le)
{
	/* the two fields one after the other: one call, the same crc as two */
	uint32_t both[2] = { ext2fs_cpu_to_le32(ino), gen_le };

	return util_crc32c(fs->csum_seed, both, sizeof(both));
}

/* Inodes up to this size are checksummed over a copy (mke2fs makes 128 to 1024 bytes). */
#define INODE_COPY_MAX	1024

/* The crc of inode P from CRC on, its checksum fields read as zeros: in pieces around them. */
static uint32_t inode_crc_pieces(uint32_t crc, const unsigned char *p, size_t size, int has_hi)
{
	static const uint8_t zero[2];

	crc = util_crc32c(crc, p, I_CSUM_LO);
	crc = util_crc32c(crc, zero, 2);
	if (!has_hi)
		return util_crc32c(crc, p + I_CSUM_LO + 2, size - (I_CSUM_LO + 2));
	crc = util_crc32c(crc, p + I_CSUM_LO + 2, I_CSUM_HI - (I_CSUM_LO + 2));
	crc = util_crc32c(crc, zero, 2);
	return util_crc32c(crc, p + I_CSUM_HI + 2, size - (I_CSUM_HI + 2));
}

/*
 * The whole checksum from the filesystem's seed over a copy: the inode
 * number and generation, then the inode with the fields zeroed. One long
 * run, where util_crc32c is fast (it interleaves runs of 192 bytes and
 * more), and one call per inode, not one for the seed and one for the rest.
 */
static uint32_t inode_crc_copy(ext2_filsys fs, ext2_ino_t ino, uint32_t gen_le,
			       const unsigned char *p, size_t size, int has_hi)
{
	unsigned char copy[8 + INODE_COPY_MAX];
	uint32_t ino_le = ext2fs_cpu_to_le32(ino);

	memcpy(copy, &ino_le, 4);
	memcpy(copy + 4, &gen_le, 4);
	memcpy(copy + 8, p, size);
	memset(copy + 8 + I_CSUM_LO, 0, 2);
	if (has_hi)
		memset(copy + 8 + I_CSUM_HI, 0, 2);
	return util_crc32c(fs->csum_seed, copy, 8 + size);
}

int check_inode_csum_ok(ext2_filsys fs, ext2_ino_t ino, const struct ext2_inode_large *in)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t size = EXT2_INODE_SIZE(fs->super);
	int has_hi = size > EXT2_GOOD_OLD_INODE_SIZE && le16_at(p + I_EXTRA_ISIZE) >= I_CSUM_HI_EXTRA;
	uint32_t gen_le, crc, stored = le16_at(p + I_CSUM_LO);

	if (!ext2fs_has_feature_metadata_csum(fs->super))
		return 1;
	memcpy(&gen_le, &in->i_generation, sizeof(gen_le));
	/* the whole inode, with the checksum's own bytes read as zeros */
	if (size <= INODE_COPY_MAX)
		crc = inode_crc_copy(fs, ino, gen_le, p, size, has_hi);
	else
		crc = inode_crc_pieces(inode_seed(fs, ino, gen_le), p, size, has_hi);
	if (has_hi)
		stored |= (uint32_t)le16_at(p + I_CSUM_HI) << 16;
	else
		crc &= 0xffff;
	if (crc == stored)
		return 1;
	/* as libext2fs: an inode never written (its first 128 bytes all zero) is not a mismatch */
	return util_is_zero(p, EXT2_GOOD_OLD_INODE_SIZE);
}

/*
 * The generation of INO as stored (little-endian): from IN when the caller
 * holds the inode (a read per block was a pread per block on a large
 * filesystem), else from libext2fs's inode cache; -1 if unreadable.
 */
static int generation_le(ext2_filsys fs, ext2_ino_t ino, const struct ext2_inode *in,
			 uint32_t *gen_le)
{
	struct ext2_inode read;

	if (!in) {
		if (fs_read_inode(fs, ino, &read))
			return -1;
		in = &read;
	}
	*gen_le = ext2fs_cpu_to_le32(in->i_generation);
	return 0;
}

/*
 * 1 when the chain of entries of BUF ends exactly at a well-formed tail in
 * the block's last 12 bytes: the leaf layout, whose checksum covers the
 * bytes before the tail.
 */
static int leaf_with_tail(ext2_filsys fs, const char *buf)
{
	unsigned top = fs->blocksize - FS_DIRENT_TAIL_SIZE, off = 0, rec_len;
	const struct ext2_dir_entry_tail *t = (const struct ext2_dir_entry_tail *)(buf + top);

	while (off < top) {
		if (fs_dirent_rec_len(fs, (const struct ext2_dir_entry *)(buf + off), &rec_len) ||
		    rec_len < 8 || rec_len % 4)
			return 0;
		off += rec_len;
	}
	return off == top && fs_dirent_is_tail(t);
}

int check_dir_block_csum_ok(ext2_filsys fs, ext2_ino_t ino, const struct ext2_inode *in,
			    const char *buf)
{
	uint32_t gen_le, crc;

	if (!ext2fs_has_feature_metadata_csum(fs->super))
		return 1;
	if (!leaf_with_tail(fs, buf) || generation_le(fs, ino, in, &gen_le))
		return ext2fs_dir_block_csum_verify(fs, ino, (struct ext2_dir_entry *)buf);
	crc = util_crc32c(inode_seed(fs, ino, gen_le), buf, fs->blocksize - FS_DIRENT_TAIL_SIZE);
	return crc == le32_at(buf + fs->blocksize - 4);
}

int check_dir_leaf_csum_set(ext2_filsys fs, ext2_ino_t ino, char *buf)
{
	uint32_t gen_le, crc;

	if (!leaf_with_tail(fs, buf) || generation_le(fs, ino, NULL, &gen_le))
		return -1;
	crc = ext2fs_cpu_to_le32(util_crc32c(inode_seed(fs, ino, gen_le), buf,
					     fs->blocksize - FS_DIRENT_TAIL_SIZE));
	memcpy(buf + fs->blocksize - 4, &crc, sizeof(crc));
	return 0;
}

int check_extent_block_csum_ok(ext2_filsys fs, ext2_ino_t ino, const struct ext2_inode *in,
			       const char *buf)
{
	const struct ext3_extent_header *eh = (const struct ext3_extent_header *)buf;
	size_t tail = sizeof(*eh) + sizeof(struct ext3_extent) * (size_t)ext2fs_le16_to_cpu(eh->eh_max);
	uint32_t gen_le, crc;

	if (!ext2fs_has_feature_metadata_csum(fs->super))
		return 1;
	if (tail + sizeof(uint32_t) > fs->blocksize || generation_le(fs, ino, in, &gen_le))
		return ext2fs_extent_block_csum_verify(fs, ino, (struct ext3_extent_header *)buf);
	crc = util_crc32c(inode_seed(fs, ino, gen_le), buf, tail);
	return crc == le32_at(buf + tail);
}
