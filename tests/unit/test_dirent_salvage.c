/*
 * Unit test: fs/dirent_salvage.h mends a directory block with one damaged
 * entry so that libext2fs walks it again (ext2fs_dir_iterate2 refuses a
 * block whose record lengths do not chain: the oracle), a second salvage
 * finds nothing (the fix holds), and a damaged record length loses no other
 * entry's name. The damages come from a fixed seed, so a failure replays.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs/dirent.h"
#include "fs/image.h"
#include "fs/dirent_salvage.h"
#include "util/e4r_err.h"
#include "unit.h"

#define NAMES	30

static uint32_t rng_state = 0x9e3779b9u;	/* fixed seed */

static uint32_t rnd(void)
{
	return unit_xorshift(&rng_state);
}

struct seen {
	int	found[NAMES];
};

static int note_name(struct ext2_dir_entry *de, int offset, int blocksize, char *buf, void *priv)
{
	struct seen *s = priv;
	unsigned nl = ext2fs_dirent_name_len(de);
	int n;

	(void)offset; (void)blocksize; (void)buf;
	if (de->inode && nl == 7 && sscanf(de->name, "name-%2d", &n) == 1 && n >= 0 && n < NAMES)
		s->found[n] = 1;
	return 0;
}

/* The offsets of the entries of BUF[0..END) (a sound block), at most MAX. */
static int entry_offsets(ext2_filsys fs, const char *buf, unsigned end, unsigned *offs, int max)
{
	unsigned off = 0, len;
	int n = 0;

	while (off < end && n < max) {
		offs[n++] = off;
		if (fs_dirent_rec_len(fs, (const struct ext2_dir_entry *)(buf + off), &len) || len < 12)
			break;
		off += len;
	}
	return n;
}

static void run_cases(ext2_filsys fs, ext2_ino_t dir, blk64_t blk)
{
	char *orig = malloc(fs->blocksize), *buf = malloc(fs->blocksize);
	unsigned offs[64];
	int i, n;

	CHECK(orig && buf);
	if (!orig || !buf)
		goto out;
	CHECK_EQ(io_channel_read_blk64(fs->io, blk, 1, orig), 0);
	n = entry_offsets(fs, orig, fs->blocksize, offs, 64);
	CHECK(n >= NAMES + 2);
	for (i = 0; i < 300; i++) {
		unsigned kind = rnd() % 3, k = 2 + rnd() % (unsigned)(n - 2), off = offs[k], j;
		struct ext2_dir_entry *de = (struct ext2_dir_entry *)(buf + off);
		struct seen s = { { 0 } };
		unsigned mended;

		memcpy(buf, orig, fs->blocksize);
		if (kind == 0) {
			de->rec_len = ext2fs_cpu_to_le16((uint16_t)rnd());
		} else if (kind == 1) {
			fs_dirent_set_name_len(de, rnd() & 0xff);
		} else {
			/* a few bytes of garbage somewhere after '..' */
			unsigned at = 24 + (rnd() % (fs->blocksize - 40)) / 4 * 4, len = 4 + rnd() % 13;

			for (j = 0; j < len && at + j < fs->blocksize; j++)
				buf[at + j] = (char)rnd();
		}
		mended = fs_dirent_salvage_all(fs, buf, fs->blocksize);
		CHECK_EQ(fs_dirent_salvage_all(fs, buf, fs->blocksize), 0);
		CHECK_EQ(io_channel_write_blk64(fs->io, blk, 1, buf), 0);
		/* libext2fs walks the block again (it stops at a record that does not chain) */
		CHECK_EQ(ext2fs_dir_iterate(fs, dir, 0, NULL, note_name, &s), 0);
		/* a bad record length costs at most the entry that had it */
		if (kind == 0 && mended)
			for (j = 0; j < NAMES; j++)
				if (!s.found[j] && j + 2 != k) {
					fprintf(stderr, "case %d: rec_len of entry %u lost name-%02u\n", i, k, j);
					CHECK(s.found[j]);
				}
	}
	CHECK_EQ(io_channel_write_blk64(fs->io, blk, 1, orig), 0);
out:
	free(orig);
	free(buf);
}

int main(void)
{
	char dir[] = "/tmp/e4r-unit-salvage-XXXXXX", img[256], cmd[1024];
	ext2_filsys fs = NULL;
	ext2_ino_t ino = 0;
	blk64_t blk = 0;
	int i, len;

	initialize_e4r_error_table();
	initialize_ext2_error_table();
	CHECK(mkdtemp(dir) != NULL);
	snprintf(img, sizeof(img), "%s/s.img", dir);
	len = snprintf(cmd, sizeof(cmd),
		       "PATH=/sbin:/usr/sbin:$PATH; mke2fs -q -F -t ext4 -b 1024 -O ^metadata_csum %s 4M "
		       ">/dev/null 2>&1 && printf 'mkdir d\\ncd d\\n", img);
	for (i = 0; i < NAMES; i++)
		len += snprintf(cmd + len, sizeof(cmd) - (size_t)len, "mknod name-%02d p\\n", i);
	snprintf(cmd + len, sizeof(cmd) - (size_t)len, "' | debugfs -w -f - %s >/dev/null 2>&1", img);
	if (system(cmd) != 0) {
		fprintf(stderr, "mke2fs/debugfs not available: skipped\n");
		goto out;
	}
	CHECK_EQ(fs_image_open(img, E4R_OPEN_RW, NULL, &fs), 0);
	if (!fs)
		goto out;
	CHECK_EQ(ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, "/d", &ino), 0);
	CHECK_EQ(ext2fs_bmap2(fs, ino, NULL, NULL, 0, 0, NULL, &blk), 0);
	if (ino && blk)
		run_cases(fs, ino, blk);
	ext2fs_close_free(&fs);
out:
	unlink(img);
	rmdir(dir);
	return unit_done("test_dirent_salvage");
}
