/*
 * Unit test: fs/dirent.h reads a raw directory block (as on disk,
 * little-endian) exactly as libext2fs decodes the same block into host
 * order (ext2fs_read_dir_block4), the oracle on any host; and its setters
 * write back the bytes that were there.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs/dirent.h"
#include "fs/image.h"
#include "util/e4r_err.h"
#include "unit.h"

/* Walk block BLK of directory DIR raw and as libext2fs decodes it, entry by entry. */
static void compare_block(ext2_filsys fs, ext2_ino_t dir, blk64_t blk, int *tails)
{
	char *raw = malloc(fs->blocksize), *host = malloc(fs->blocksize), *again = malloc(fs->blocksize);
	unsigned off = 0, entries = 0;

	CHECK(raw && host && again);
	if (!raw || !host || !again)
		goto out;
	CHECK_EQ(io_channel_read_blk64(fs->io, blk, 1, raw), 0);
	CHECK_EQ(ext2fs_read_dir_block4(fs, blk, host, 0, dir), 0);
	memcpy(again, raw, fs->blocksize);
	while (off + 8 <= fs->blocksize) {
		struct ext2_dir_entry *r = (struct ext2_dir_entry *)(raw + off);
		struct ext2_dir_entry *h = (struct ext2_dir_entry *)(host + off);
		struct ext2_dir_entry *a = (struct ext2_dir_entry *)(again + off);
		unsigned rlen = 0, hlen = 0;

		CHECK_EQ(fs_dirent_rec_len(fs, r, &rlen), 0);
		CHECK_EQ(ext2fs_get_rec_len(fs, h, &hlen), 0);
		CHECK_EQ(rlen, hlen);
		CHECK_EQ(fs_dirent_inode(r), h->inode);
		CHECK_EQ(fs_dirent_name_len(r), ext2fs_dirent_name_len(h));
		CHECK_EQ(fs_dirent_file_type(r), ext2fs_dirent_file_type(h));
		if (off + FS_DIRENT_TAIL_SIZE == fs->blocksize &&
		    fs_dirent_is_tail((struct ext2_dir_entry_tail *)r)) {
			struct ext2_dir_entry_tail fresh;

			(*tails)++;
			/* a fresh tail is the same bytes but for the checksum */
			fs_dirent_init_tail(&fresh);
			fresh.det_checksum = ((struct ext2_dir_entry_tail *)r)->det_checksum;
			CHECK(memcmp(&fresh, r, sizeof(fresh)) == 0);
		} else {
			entries++;
		}
		/* the setters write back what was read */
		fs_dirent_set_inode(a, fs_dirent_inode(r));
		fs_dirent_set_name_len(a, fs_dirent_name_len(r));
		fs_dirent_set_file_type(a, fs_dirent_file_type(r));
		CHECK_EQ(fs_dirent_set_rec_len(fs, rlen, a), 0);
		if (rlen < 8)
			break;
		off += rlen;
	}
	CHECK_EQ(off, fs->blocksize);
	CHECK(entries > 0);
	CHECK(blk != 0);
	CHECK(memcmp(raw, again, fs->blocksize) == 0);
out:
	free(raw);
	free(host);
	free(again);
}

static void check_image(const char *img, int want_tails)
{
	/* /a's second block (expand_dir) is one empty entry over the whole block: 64 KiB encoded */
	const char *dirs[] = { "/", "/a", "/lost+found", "/a" };
	const blk64_t lblks[] = { 0, 0, 0, 1 };
	ext2_filsys fs;
	int tails = 0;
	size_t i;

	CHECK_EQ(fs_image_open(img, 0, NULL, &fs), 0);
	if (!fs)
		return;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		ext2_ino_t ino = 0;
		blk64_t blk = 0;

		CHECK_EQ(ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, dirs[i], &ino), 0);
		CHECK_EQ(ext2fs_bmap2(fs, ino, NULL, NULL, 0, lblks[i], NULL, &blk), 0);
		if (ino && blk)
			compare_block(fs, ino, blk, &tails);
	}
	CHECK_EQ(tails, want_tails ? 4 : 0);
	ext2fs_close_free(&fs);
}

/*
 * fs_dirent_rec_len decodes without libext2fs: every stored value, at a
 * block size below 64 KiB and at 64 KiB (the encoded form), decodes as
 * ext2fs_get_rec_len decodes it. Only the block size of the filesystem
 * is read, so a bare struct stands for one.
 */
static void compare_rec_len_decoding(void)
{
	static const unsigned sizes[] = { 1024, 4096, 65536 };
	struct struct_ext2_filsys fs;
	size_t i;
	unsigned v, mismatches = 0;

	memset(&fs, 0, sizeof(fs));
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		fs.blocksize = sizes[i];
		for (v = 0; v <= 0xffff; v++) {
			struct ext2_dir_entry raw = { 0 }, host = { 0 };
			unsigned mine = 0, theirs = 0;

			raw.rec_len = ext2fs_cpu_to_le16(v);
			host.rec_len = v;
			if (fs_dirent_rec_len(&fs, &raw, &mine) ||
			    ext2fs_get_rec_len(&fs, &host, &theirs) || mine != theirs)
				mismatches++;
		}
	}
	CHECK_EQ(mismatches, 0);
}

int main(void)
{
	char dir[] = "/tmp/e4r-unit-dirent-XXXXXX", img[256], cmd[768];
	int csum;

	initialize_e4r_error_table();
	initialize_ext2_error_table();
	compare_rec_len_decoding();
	CHECK(mkdtemp(dir) != NULL);
	snprintf(img, sizeof(img), "%s/d.img", dir);
	for (csum = 0; csum < 2; csum++) {
		/* 1 KiB blocks with checksum tails, 64 KiB blocks (rec_len's encoded form) without */
		snprintf(cmd, sizeof(cmd),
			 "PATH=/sbin:/usr/sbin:$PATH; mke2fs -q -F -t ext4 -b %d -O %s %s %s >/dev/null 2>&1 && "
			 "printf 'mkdir a\\nmknod a/p p\\nsymlink a/s /x\\nmkdir a/longer-directory-name\\nexpand_dir a\\n' | "
			 "debugfs -w -f - %s >/dev/null 2>&1",
			 csum ? 1024 : 65536, csum ? "metadata_csum" : "^metadata_csum", img,
			 csum ? "8M" : "16M", img);
		if (system(cmd) != 0) {
			fprintf(stderr, "mke2fs/debugfs not available: skipped\n");
			break;
		}
		check_image(img, csum);
	}
	unlink(img);
	rmdir(dir);
	return unit_done("test_dirent");
}
