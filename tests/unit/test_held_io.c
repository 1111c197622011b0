/*
 * One open of the image per check (lib/fs/held_io.c): a whole session, with
 * a journal to replay, an undo file, a backup superblock to choose and
 * repairs, opens the image through the base io manager once; the result is
 * e2fsck-clean (e2fsck -fn, the oracle) and e2undo gives the input back.
 * And the holders themselves: two at different block sizes read what the
 * image holds whatever the other set, closing them leaves the base open,
 * and each counts only what it wrote.
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
#include "fsck/session.h"
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

static int sh(const char *cmd)
{
	char full[2048];

	snprintf(full, sizeof(full), "PATH=/sbin:/usr/sbin:$PATH; { %s; } >/dev/null 2>&1", cmd);
	return system(full);
}

static int session(const char *img, enum check_repair_mode mode, const char *undo, struct fsck_session *s)
{
	struct fsck_session_opts o = { .image = img, .undo_file = undo, .policy = JBD_POLICY_STOP };

	o.check.repair = mode;
	o.check.force = 1;
	counted = img;
	opens = 0;
	return fsck_session_run(&o, s);
}

/*
 * A damaged image with a journal to replay: wrong free counts in group 0,
 * a file with a wrong link count, and a transaction debugfs wrote into the
 * log (the image needs recovery).
 */
static int make_damaged(const char *dir, const char *img)
{
	char cmd[1536];

	snprintf(cmd, sizeof(cmd),
		 "mke2fs -q -F -t ext4 -O metadata_csum %s 16M && head -c 8192 /dev/urandom > %s/d && "
		 "printf '%%s\\n' 'write %s/d f' 'sif f links_count 5' 'set_bg 0 free_blocks_count 17' "
		 "'set_bg 0 checksum calc' 'jo -c' 'jw -b 5000,5001 %s/d' 'jc' | debugfs -w -f - %s",
		 img, dir, dir, dir, img);
	return sh(cmd);
}

static void check_session_opens(const char *dir)
{
	struct fsck_session s;
	char img[256], orig[256], undo[256], cmd[1100];

	snprintf(img, sizeof(img), "%s/d.img", dir);
	snprintf(orig, sizeof(orig), "%s/orig.img", dir);
	snprintf(undo, sizeof(undo), "%s/d.undo", dir);
	if (make_damaged(dir, img)) {
		fprintf(stderr, "mke2fs or debugfs not available: session part skipped\n");
		return;
	}
	snprintf(cmd, sizeof(cmd), "cp %s %s", img, orig);
	CHECK_EQ(sh(cmd), 0);

	/* -n: found, not fixed, one open */
	CHECK_EQ(session(img, E4R_REPAIR_NONE, NULL, &s), 4);
	CHECK_EQ(opens, 1);
	fsck_session_free(&s);

	/* -y with an undo file: the replay, the undo file, the repairs; one open */
	CHECK_EQ(session(img, E4R_REPAIR_YES, undo, &s), 1);
	CHECK_EQ(opens, 1);
	CHECK(s.journal.replayed && s.result && s.result->fixed > 0 && s.result->left == 0);
	fsck_session_free(&s);
	snprintf(cmd, sizeof(cmd), "e2fsck -fn %s", img);
	CHECK_EQ(sh(cmd), 0);
	/* and nothing left for a second check, which opens it once too */
	CHECK_EQ(session(img, E4R_REPAIR_YES, NULL, &s), 0);
	CHECK_EQ(opens, 1);
	fsck_session_free(&s);
	/* e2undo restores the input from the one undo file of replay and repairs */
	snprintf(cmd, sizeof(cmd), "e2undo %s %s && cmp %s %s", undo, img, img, orig);
	CHECK_EQ(sh(cmd), 0);
	unlink(undo);

	/* primary descriptors pointing outside their group: a backup's are read and written back */
	snprintf(cmd, sizeof(cmd), "printf '%%s\\n' 'set_bg 0 inode_table 3' 'set_bg 0 checksum calc' | "
		 "debugfs -w -f - %s", img);
	CHECK_EQ(sh(cmd), 0);
	CHECK_EQ(session(img, E4R_REPAIR_YES, NULL, &s), 1);
	CHECK_EQ(opens, 1);
	CHECK(s.backup_sb != 0);
	fsck_session_free(&s);
	snprintf(cmd, sizeof(cmd), "e2fsck -fn %s", img);
	CHECK_EQ(sh(cmd), 0);

	/* held no longer: a step after the session opens the path again */
	opens = 0;
	{
		ext2_filsys fs = NULL;

		CHECK_EQ(fs_image_open(img, 0, NULL, &fs), 0);
		CHECK(opens >= 1);
		if (fs)
			ext2fs_close_free(&fs);
	}
	counted = NULL;
	/* a missing image: nothing held, the open says why, as before */
	snprintf(cmd, sizeof(cmd), "%s/missing.img", dir);
	CHECK_EQ(session(cmd, E4R_REPAIR_YES, NULL, &s), 8);
	CHECK(s.stopped == FSCK_STAGE_OPEN && s.err != 0);
	fsck_session_free(&s);
	unlink(img);
	unlink(orig);
	snprintf(cmd, sizeof(cmd), "%s/d", dir);
	unlink(cmd);
}

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
	check_session_opens(dir);
	rmdir(dir);
	return unit_done("test_held_io");
}
