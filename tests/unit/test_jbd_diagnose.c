/* Unit test: the replay engine's view of a diagnosis: actions and corrected blocks, against the data debugfs logged. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/crc.h"
#include "fs/image.h"
#include "diag/diagnose.h"
#include "util/e4r_err.h"
#include "unit.h"

#define BS 1024

static char dir[] = "/tmp/e4r-unit-diag-XXXXXX";
static unsigned char data[3 * BS];

static int sh(const char *cmd)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "cd %s && PATH=/sbin:/usr/sbin:$PATH %s >/dev/null 2>&1", dir, cmd);
	return system(buf);
}

/* Journal block JBLK's block in IMG (debugfs's block map of the journal inode). */
static unsigned long jblk_phys(const char *img, unsigned jblk)
{
	char cmd[512];
	unsigned long phys = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "PATH=/sbin:/usr/sbin:$PATH debugfs -R 'bmap <8> %u' %s/%s 2>/dev/null",
		 jblk, dir, img);
	p = popen(cmd, "r");
	CHECK(p && fscanf(p, "%lu", &phys) == 1);
	if (p)
		pclose(p);
	return phys;
}

static void write_jblk(const char *img, unsigned jblk, const unsigned char *buf)
{
	char path[256];
	unsigned long phys = jblk_phys(img, jblk);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, img);
	f = fopen(path, "r+b");
	CHECK(f != NULL);
	if (!f)
		return;
	fseek(f, (long)(phys * BS), SEEK_SET);
	CHECK(fwrite(buf, 1, BS, f) == BS);
	fclose(f);
}

/* Flip BIT of BYTE in journal block JBLK of IMG. */
static void flip_jblk(const char *img, unsigned jblk, unsigned byte, unsigned bit)
{
	char path[256];
	unsigned long phys = jblk_phys(img, jblk);
	FILE *f;
	int c;

	snprintf(path, sizeof(path), "%s/%s", dir, img);
	f = fopen(path, "r+b");
	CHECK(f != NULL);
	if (!f)
		return;
	fseek(f, (long)(phys * BS + byte), SEEK_SET);
	c = fgetc(f);
	fseek(f, (long)(phys * BS + byte), SEEK_SET);
	fputc(c ^ (1 << bit), f);
	fclose(f);
}

struct loaded {
	ext2_filsys		fs;
	struct jbd_journal	*j;
	struct jbd_scan		*s;
	struct diag_report	*d;
};

static int load(const char *img, struct loaded *l)
{
	char path[256];

	memset(l, 0, sizeof(*l));
	snprintf(path, sizeof(path), "%s/%s", dir, img);
	if (fs_image_open(path, 0, NULL, &l->fs) || jbd_journal_open(l->fs, NULL, &l->j) ||
	    jbd_scan_log(l->j, 0, &l->s) || diag_journal(l->j, l->s, &l->d))
		return -1;
	return 0;
}

static void unload(struct loaded *l)
{
	diag_free(l->d);
	jbd_scan_free(l->s);
	if (l->j)
		jbd_journal_close(l->j);
	if (l->fs)
		ext2fs_close_free(&l->fs);
}

int main(void)
{
	struct loaded l;
	char cmd[512];

	initialize_e4r_error_table();
	CHECK(mkdtemp(dir) != NULL);
	srand(5);
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)rand();
	snprintf(cmd, sizeof(cmd), "%s/data", dir);
	FILE *f = fopen(cmd, "wb");
	CHECK(f && fwrite(data, 1, sizeof(data), f) == sizeof(data));
	if (f)
		fclose(f);
	/* T1: descriptor 1, data 2-4 (fs blocks 100-102), commit 5; T2: descriptor 6, data 7, commit 8. */
	CHECK(sh("mke2fs -q -F -t ext4 -O metadata_csum fs.img 16M") == 0);
	snprintf(cmd, sizeof(cmd), "printf 'jo -c\\njw -b 100,101,102 %s/data\\njc\\njo -c\\njw -b 200 %s/data\\njc\\n' "
		 "| debugfs -w -f - fs.img", dir, dir);
	CHECK(sh(cmd) == 0);

	/* Intact: nothing found, every transaction replays as is. */
	CHECK(load("fs.img", &l) == 0);
	CHECK(l.d && l.d->nfindings == 0);
	CHECK(l.s && l.s->nlive == 2);
	if (l.d && l.s && l.s->nlive == 2) {
		CHECK_EQ(diag_txn_action(l.d, 0), JBD_AUTO_REPLAY);
		CHECK(diag_block(l.d, l.s, 0, 1) == NULL);
	}
	unload(&l);

	/* One bit in fs block 101's copy: the corrected block is what debugfs logged. */
	CHECK(sh("cp fs.img flip.img") == 0);
	flip_jblk("flip.img", 3, 333, 5);
	CHECK(load("flip.img", &l) == 0);
	if (l.d && l.s && l.s->nlive == 2) {
		const unsigned char *c = diag_block(l.d, l.s, 0, 1);
		CHECK_EQ(l.d->nfindings, 1);
		CHECK_EQ(diag_txn_action(l.d, 0), JBD_AUTO_REPLAY_CORRECTED);
		CHECK_EQ(diag_txn_action(l.d, 1), JBD_AUTO_REPLAY);
		CHECK(c != NULL);
		CHECK(c && memcmp(c, data + BS, BS) == 0);
		CHECK(diag_block(l.d, l.s, 0, 0) == NULL);	/* untouched: replay the copy */
		CHECK(diag_block(l.d, l.s, 5, 0) == NULL);	/* out of range */
	}
	unload(&l);

	/* Damage no light pattern explains (a garbled run of 12 bytes): stop, nothing corrected. */
	CHECK(sh("cp fs.img garbled.img") == 0);
	for (unsigned i = 0; i < 12; i++)
		flip_jblk("garbled.img", 7, 500 + i, (i * 3) & 7);
	CHECK(load("garbled.img", &l) == 0);
	if (l.d && l.s && l.s->nlive == 2) {
		CHECK_EQ(l.d->nfindings, 1);
		CHECK_EQ(l.d->findings[0].cause, JBD_CAUSE_UNEXPLAINED);
		CHECK_EQ(diag_txn_action(l.d, 1), JBD_AUTO_STOP);
		CHECK(diag_block(l.d, l.s, 1, 0) == NULL);
	}
	unload(&l);

	/*
	 * A stale tag: T2's tag for journal block 7 rewritten with the checksum
	 * the block would have had in transaction 1 (and the descriptor's tail
	 * fixed to match), as if the descriptor came from an older lap.
	 */
	CHECK(sh("cp fs.img stale.img") == 0);
	CHECK(load("stale.img", &l) == 0);
	if (l.j) {
		unsigned char desc[BS], blk[BS];
		uint32_t seq = jbd_to_be32(1), c, tail;

		CHECK(jbd_journal_read(l.j, 6, 1, desc) == 0);
		CHECK(jbd_journal_read(l.j, 7, 1, blk) == 0);
		c = util_crc32c(util_crc32c(l.j->csum_seed, &seq, 4), blk, BS);
		c = jbd_to_be32(c);
		memcpy(desc + JBD_HEADER_SIZE + offsetof(struct jbd_block_tag3, t_checksum), &c, 4);	/* tag 0's */
		memset(desc + BS - 4, 0, 4);
		tail = jbd_to_be32(util_crc32c(l.j->csum_seed, desc, BS));
		memcpy(desc + BS - 4, &tail, 4);
		write_jblk("stale.img", 6, desc);
	}
	unload(&l);
	CHECK(load("stale.img", &l) == 0);
	if (l.d && l.d->nfindings == 1) {
		const struct diag_finding *f = &l.d->findings[0];
		CHECK_EQ(f->object, JBD_OBJ_DATA);
		CHECK_EQ(f->jblk, 7);
		CHECK_EQ(f->has_stale_sequence, 1);
		CHECK_EQ(f->stale_sequence, 1);
		CHECK_EQ(f->cause, JBD_CAUSE_STALE);
		CHECK_EQ(f->action, JBD_AUTO_STOP);
	} else {
		CHECK(!"one finding for the stale tag");
	}
	unload(&l);

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	return unit_done("test_jbd_diagnose");
}
