/*
 * One open of an image shared by every open of its name (lib/fs/held_io.c):
 * two holders at different block sizes read what the image holds whatever
 * the other set, closing them leaves the base open, and each counts what
 * was written from its own open.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs/held_io.h"
#include "fs/image.h"
#include "fs/ioerr_io.h"
#include "fs/wrap_io.h"
#include "util/e4r_err.h"
#include "unit.h"

static const char *counted;	/* the image whose opens are counted */
static int opens;

/* The base manager the I/O error noter sits on: unix, with its opens of COUNTED counted. */
static struct struct_io_manager counting_manager;

static errcode_t counting_open(const char *name, int flags, io_channel *out)
{
	if (counted && strcmp(name, counted) == 0)
		opens++;
	return fs_wrap_open(&counting_manager, unix_io_manager, name, flags, NULL, out);
}

static struct struct_io_manager counting_manager =
	FS_WRAP_MANAGER("test: counting opens", counting_open, fs_wrap_read_blk64,
			fs_wrap_write_blk64, fs_wrap_write_byte, fs_wrap_zeroout);

/* Holders: their own block sizes over one base, the base kept open, their own counts. */
static void check_holders(const char *dir)
{
	char img[256], a[4096], b[1024], want[4096];
	io_channel h1 = NULL, h2 = NULL, base;
	io_stats st = NULL;
	int fd, i;

	snprintf(img, sizeof(img), "%s/h.img", dir);
	fd = open(img, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	for (i = 0; i < (int)sizeof(want); i++)
		want[i] = (char)(i * 7 + 3);
	for (i = 0; i < 16 && fd >= 0; i++)
		CHECK(pwrite(fd, want, sizeof(want), (off_t)i * sizeof(want)) == (ssize_t)sizeof(want));
	if (fd >= 0)
		close(fd);
	counted = img;
	opens = 0;
	CHECK_EQ(fs_held_open(img, 1), 0);
	CHECK_EQ(opens, 1);
	CHECK(fs_image_io(img, NULL) == fs_held_io);
	CHECK_EQ(fs_held_io->open(img, IO_FLAG_RW, &h1), 0);
	CHECK_EQ(fs_held_io->open(img, 0, &h2), 0);
	CHECK_EQ(opens, 1);
	if (!h1 || !h2)
		return;
	base = fs_held_base(h1);
	CHECK(base != h1 && base == fs_held_base(h2));
	CHECK_EQ(io_channel_set_blksize(h1, 4096), 0);
	CHECK_EQ(io_channel_set_blksize(h2, 1024), 0);
	/* h1 reads 4 KiB blocks although h2 set the base to 1 KiB last */
	CHECK_EQ(io_channel_read_blk64(h1, 3, 1, a), 0);
	CHECK(memcmp(a, want, sizeof(a)) == 0);
	CHECK_EQ(io_channel_read_blk64(h2, 5, 1, b), 0);
	CHECK(memcmp(b, want + 1024, sizeof(b)) == 0);
	/* a write through h1 is what h2 reads, through the one cache */
	memset(a, 0x5a, sizeof(a));
	CHECK_EQ(io_channel_write_blk64(h1, 2, 1, a), 0);
	CHECK_EQ(io_channel_read_blk64(h2, 9, 1, b), 0);
	CHECK(b[0] == 0x5a && b[1023] == 0x5a);
	io_channel_close(h1);
	/* the base stays open for h2 and later holders; what h1 wrote is on the disk */
	CHECK_EQ(io_channel_read_blk64(h2, 8, 1, b), 0);
	CHECK(b[0] == 0x5a);
	fd = open(img, O_RDONLY);
	CHECK(fd >= 0 && pread(fd, a, sizeof(a), 2 * 4096) == (ssize_t)sizeof(a) && a[100] == 0x5a);
	if (fd >= 0)
		close(fd);
	io_channel_close(h2);
	/* a new holder counts from its open: nothing yet, then its one block */
	CHECK_EQ(fs_held_io->open(img, IO_FLAG_RW, &h1), 0);
	if (h1) {
		CHECK_EQ(h1->manager->get_stats(h1, &st), 0);
		CHECK(st && st->bytes_written == 0);
		CHECK_EQ(io_channel_write_blk64(h1, 0, 1, a), 0);
		CHECK_EQ(io_channel_flush(h1), 0);
		CHECK_EQ(h1->manager->get_stats(h1, &st), 0);
		CHECK(st && st->bytes_written == 1024);
		io_channel_close(h1);
	}
	CHECK_EQ(opens, 1);
	CHECK_EQ(fs_held_close(), 0);
	CHECK(fs_image_io(img, NULL) != fs_held_io);
	/* a holder of the image held read-only cannot write */
	CHECK_EQ(fs_held_open(img, 0), 0);
	CHECK_EQ(fs_held_io->open(img, IO_FLAG_RW, &h1), EXT2_ET_RO_FILSYS);
	CHECK_EQ(fs_held_close(), 0);
	counted = NULL;
	unlink(img);
}

int main(void)
{
	char dir[] = "/tmp/e4r-unit-held-XXXXXX";

	initialize_e4r_error_table();
	initialize_ext2_error_table();
	fs_set_base_io(&counting_manager);
	CHECK(mkdtemp(dir) != NULL);
	check_holders(dir);
	rmdir(dir);
	return unit_done("test_held_io");
}
