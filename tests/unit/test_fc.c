/*
 * Unit test: the fast-commit parser on areas built here the way ext4's
 * writer lays them out (TLVs, crc32c from 0 reset at each TAIL, TAIL padded
 * to the block's end), then damaged: stale HEAD, bad tail, lengths past the
 * block, out-of-range values, an area full of empty PADs.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "jbd/fc.h"
#include "util/crc.h"
#include "util/e4r_err.h"
#include "unit.h"

#define BS	1024
#define NBLK	8
#define FIRST	100	/* journal block of the area's first block */

#include "fc_build.h"

static const struct jbd_fc_limits lim = { 256, 1024, 65536 };

/* Two fast commits: block 0 (HEAD, inode, range, create), block 1 (del, link, unlink, pad). */
static void build_two(struct area *a, uint32_t tid, int break_second)
{
	unsigned char del[12];

	memset(a, 0, sizeof(*a));
	head(a, 0, tid);
	inode_tag(a, 12);
	add_range(a, 12, 0, 32768 + 3, 0x100000200ULL);
	dentry(a, JBD_FC_TAG_CREAT, 2, 12, "f1");
	tail(a, tid, 0);
	put32(del, 12); put32(del + 4, 7); put32(del + 8, 2);
	tlv(a, JBD_FC_TAG_DEL_RANGE, 12, del);
	dentry(a, JBD_FC_TAG_LINK, 2, 12, "hard");
	dentry(a, JBD_FC_TAG_UNLINK, 2, 12, "f1");
	tlv(a, JBD_FC_TAG_PAD, 6, NULL);
	tail(a, tid, break_second);
}

static struct jbd_fc *parse(const struct area *a, uint32_t tid)
{
	struct jbd_fc *fc = NULL;
	CHECK_EQ(jbd_fc_parse(a->buf, NBLK, BS, FIRST, tid, &lim, &fc), 0);
	return fc;
}

static void test_good(void)
{
	struct area a;
	struct jbd_fc *fc;

	build_two(&a, 7, 0);
	fc = parse(&a, 7);
	CHECK_EQ(fc->ntags, 10);
	CHECK_EQ(fc->ncommitted, 10);
	/* Block 2 is zeroes: tag 0 is unknown, a normal end after good fast commits. */
	CHECK_EQ(fc->stop, JBD_FC_STOP_UNKNOWN_TAG);
	CHECK_EQ(fc->stop_jblk, FIRST + 2);
	CHECK_EQ(fc->stop_error, 0);
	CHECK_EQ(fc->tags[0].tag, JBD_FC_TAG_HEAD);
	CHECK_EQ(fc->tags[0].tid, 7);
	CHECK_EQ(fc->tags[1].ino, 12);
	CHECK_EQ(fc->tags[1].raw_inode_len, 256);
	CHECK_EQ(fc->tags[1].raw_inode[0], 0xA5);
	CHECK_EQ(fc->tags[2].nblocks, 3);
	CHECK_EQ(fc->tags[2].unwritten, 1);
	CHECK_EQ(fc->tags[2].pblk, 0x100000200ULL);
	CHECK_EQ(fc->tags[2].value_error, E4R_FC_BAD_RANGE);	/* past the 65536 blocks */
	CHECK(!strcmp(fc->tags[3].name, "f1"));
	CHECK_EQ(fc->tags[3].parent, 2);
	CHECK_EQ(fc->tags[4].tag, JBD_FC_TAG_TAIL);
	CHECK_EQ(fc->tags[4].crc_ok, 1);
	CHECK_EQ(fc->tags[4].jblk, FIRST);
	CHECK_EQ(fc->tags[5].tag, JBD_FC_TAG_DEL_RANGE);
	CHECK_EQ(fc->tags[5].jblk, FIRST + 1);
	CHECK_EQ(fc->tags[5].offset, 0);
	CHECK_EQ(fc->tags[5].lblk, 7);
	CHECK_EQ(fc->tags[5].nblocks, 2);
	CHECK(!strcmp(fc->tags[6].name, "hard"));
	CHECK_EQ(fc->tags[8].tag, JBD_FC_TAG_PAD);
	CHECK_EQ(fc->tags[9].committed, 1);
	jbd_fc_free(fc);
}

static void test_tails(void)
{
	struct area a;
	struct jbd_fc *fc;

	/* A bad second tail: the first fast commit stands, the scan stops quietly. */
	build_two(&a, 7, 1);
	fc = parse(&a, 7);
	CHECK_EQ(fc->ncommitted, 5);
	CHECK_EQ(fc->ntags, 10);
	CHECK_EQ(fc->stop, JBD_FC_STOP_BAD_TAIL);
	CHECK_EQ(fc->stop_error, 0);
	CHECK_EQ(fc->tags[9].crc_ok, 0);
	CHECK_EQ(fc->tags[5].committed, 0);
	CHECK_EQ(fc->tags[4].committed, 1);
	jbd_fc_free(fc);

	/* A bad first tail fails recovery (kernel: -EFSBADCRC). */
	memset(&a, 0, sizeof(a));
	head(&a, 0, 7);
	inode_tag(&a, 12);
	tail(&a, 7, 1);
	fc = parse(&a, 7);
	CHECK_EQ(fc->ncommitted, 0);
	CHECK_EQ(fc->stop_error, E4R_FC_BAD_CRC);
	jbd_fc_free(fc);

	/* A tail of another tid is as bad as a bad crc. */
	memset(&a, 0, sizeof(a));
	head(&a, 0, 7);
	tail(&a, 8, 0);
	fc = parse(&a, 7);
	CHECK_EQ(fc->stop, JBD_FC_STOP_BAD_TAIL);
	CHECK_EQ(fc->stop_error, E4R_FC_BAD_CRC);
	jbd_fc_free(fc);
}

static void test_heads(void)
{
	struct area a;
	struct jbd_fc *fc;

	/* Stale area: HEAD of an older tid. Shown, not counted, no error. */
	build_two(&a, 7, 0);
	fc = parse(&a, 9);
	CHECK_EQ(fc->ntags, 1);
	CHECK_EQ(fc->ncommitted, 0);
	CHECK_EQ(fc->stop, JBD_FC_STOP_HEAD_TID);
	CHECK_EQ(fc->stop_error, 0);
	jbd_fc_free(fc);

	/* No HEAD at all: no fast commits. */
	memset(&a, 0, sizeof(a));
	fc = parse(&a, 7);
	CHECK_EQ(fc->ntags, 0);
	CHECK_EQ(fc->stop, JBD_FC_STOP_NO_HEAD);
	CHECK_EQ(fc->stop_error, 0);
	jbd_fc_free(fc);

	/* Unknown HEAD features: recovery fails. */
	memset(&a, 0, sizeof(a));
	head(&a, 1, 7);
	fc = parse(&a, 7);
	CHECK_EQ(fc->stop, JBD_FC_STOP_HEAD_FEATURES);
	CHECK_EQ(fc->stop_error, E4R_FC_FEATURES);
	jbd_fc_free(fc);
}

static void test_hostile(void)
{
	struct area a;
	struct jbd_fc *fc;
	unsigned char *p, del[12];
	size_t i;

	/* A length past the block, before any commit: recovery fails, nothing read past the block. */
	memset(&a, 0, sizeof(a));
	head(&a, 0, 7);
	p = tlv(&a, JBD_FC_TAG_PAD, 0, NULL);
	put16(p + 2, 0xFFFF);
	fc = parse(&a, 7);
	CHECK_EQ(fc->stop, JBD_FC_STOP_BAD_LENGTH);
	CHECK_EQ(fc->stop_offset, 12);
	CHECK_EQ(fc->stop_error, E4R_FC_CANCELED);
	CHECK_EQ(fc->ntags, 1);
	jbd_fc_free(fc);

	/* The same in the last block of the area: a TLV may not run off the area's end either. */
	memset(&a, 0, sizeof(a));
	head(&a, 0, 7);
	tail(&a, 7, 0);
	for (i = 1; i < NBLK; i++) {
		a.off = i * BS;
		tlv(&a, JBD_FC_TAG_PAD, BS - 4, NULL);
	}
	a.off = (NBLK - 1) * BS;
	p = tlv(&a, JBD_FC_TAG_PAD, 16, NULL);
	put16(p + 2 + 16 + 4, BS - 20 - 4 + 1);	/* next header's len: one byte past the block */
	put16(p + 16 + 4, JBD_FC_TAG_PAD);
	fc = parse(&a, 7);
	CHECK_EQ(fc->stop, JBD_FC_STOP_BAD_LENGTH);
	CHECK_EQ(fc->stop_jblk, FIRST + NBLK - 1);
	CHECK_EQ(fc->ncommitted, 2);
	CHECK_EQ(fc->stop_error, 0);
	jbd_fc_free(fc);

	/* Wrong lengths for their tag: a 300-byte name, an inode larger than the fs's, a short range. */
	memset(&a, 0, sizeof(a));
	head(&a, 0, 7);
	tlv(&a, JBD_FC_TAG_CREAT, 8 + 256, NULL);
	fc = parse(&a, 7);
	CHECK_EQ(fc->stop, JBD_FC_STOP_BAD_LENGTH);
	jbd_fc_free(fc);
	memset(&a, 0, sizeof(a));
	head(&a, 0, 7);
	tlv(&a, JBD_FC_TAG_INODE, 4 + 512, NULL);
	fc = parse(&a, 7);
	CHECK_EQ(fc->stop, JBD_FC_STOP_BAD_LENGTH);
	jbd_fc_free(fc);
	memset(&a, 0, sizeof(a));
	head(&a, 0, 7);
	tlv(&a, JBD_FC_TAG_ADD_RANGE, 12, NULL);
	fc = parse(&a, 7);
	CHECK_EQ(fc->stop, JBD_FC_STOP_BAD_LENGTH);
	jbd_fc_free(fc);

	/* Values outside the filesystem are decoded and flagged, not trusted. */
	memset(&a, 0, sizeof(a));
	head(&a, 0, 7);
	dentry(&a, JBD_FC_TAG_CREAT, 2, 5000, "x");
	dentry(&a, JBD_FC_TAG_LINK, 0, 12, "y");
	inode_tag(&a, 0xFFFFFFFF);
	add_range(&a, 12, 0xFFFFFFFF, 2, 100);
	add_range(&a, 12, 0, 1, 100);
	tail(&a, 7, 0);
	fc = parse(&a, 7);
	CHECK_EQ(fc->ncommitted, 7);
	CHECK_EQ(fc->tags[1].value_error, E4R_FC_BAD_INODE);
	CHECK_EQ(fc->tags[2].value_error, E4R_FC_BAD_INODE);
	CHECK_EQ(fc->tags[3].value_error, E4R_FC_BAD_INODE);
	CHECK_EQ(fc->tags[4].value_error, E4R_FC_BAD_RANGE);
	CHECK_EQ(fc->tags[5].value_error, 0);
	jbd_fc_free(fc);

	/* Huge counts: a DEL_RANGE past logical block 2^32 - 1, an empty ADD_RANGE; the whole file is fine. */
	memset(&a, 0, sizeof(a));
	head(&a, 0, 7);
	put32(del, 12); put32(del + 4, 2); put32(del + 8, 0xFFFFFFFF);
	tlv(&a, JBD_FC_TAG_DEL_RANGE, 12, del);
	put32(del, 12); put32(del + 4, 0); put32(del + 8, 0xFFFFFFFF);
	tlv(&a, JBD_FC_TAG_DEL_RANGE, 12, del);
	add_range(&a, 12, 0, 0, 100);
	add_range(&a, 12, 0xFFFFFFFF, 1, 100);
	add_range(&a, 12, 0, 32768 + 32767, 40000);	/* unwritten, the largest length */
	tail(&a, 7, 0);
	fc = parse(&a, 7);
	CHECK_EQ(fc->ncommitted, 7);
	CHECK_EQ(fc->tags[1].value_error, E4R_FC_BAD_RANGE);
	CHECK_EQ(fc->tags[2].value_error, 0);
	CHECK_EQ(fc->tags[2].nblocks, 0xFFFFFFFF);
	CHECK_EQ(fc->tags[3].value_error, E4R_FC_BAD_RANGE);
	CHECK_EQ(fc->tags[4].value_error, 0);
	CHECK_EQ(fc->tags[5].value_error, E4R_FC_BAD_RANGE);	/* 32767 blocks from 40000 pass the 65536 */
	CHECK_EQ(fc->tags[5].unwritten, 1);
	CHECK_EQ(fc->tags[5].nblocks, 32767);
	jbd_fc_free(fc);

	/* Unknown tag after a good commit: a quiet stop. */
	memset(&a, 0, sizeof(a));
	head(&a, 0, 7);
	tail(&a, 7, 0);
	tlv(&a, 77, 4, NULL);
	fc = parse(&a, 7);
	CHECK_EQ(fc->stop, JBD_FC_STOP_UNKNOWN_TAG);
	CHECK_EQ(fc->stop_tag, 77);
	CHECK_EQ(fc->stop_error, 0);
	jbd_fc_free(fc);
}

/* An area of empty PADs: bounded by JBD_FC_MAX_TAGS, not by memory. */
static void test_many(void)
{
	uint32_t n = JBD_FC_MAX_TAGS / (4096 / 4) + 4, i;
	unsigned char *buf = calloc(n, 4096);
	struct jbd_fc *fc = NULL;

	put16(buf, JBD_FC_TAG_HEAD);
	put16(buf + 2, 8);
	for (i = 3; i < 4096 * n; i += 4)
		buf[i - 3] = JBD_FC_TAG_PAD;	/* tag 7, len 0 */
	put16(buf, JBD_FC_TAG_HEAD);
	put16(buf + 2, 8);
	memset(buf + 4, 0, 8);
	CHECK_EQ(jbd_fc_parse(buf, n, 4096, 0, 0, &lim, &fc), 0);
	CHECK_EQ(fc->stop, JBD_FC_STOP_LIMIT);
	CHECK_EQ(fc->ntags, JBD_FC_MAX_TAGS);
	CHECK_EQ(fc->stop_error, E4R_FC_TOO_MANY_TAGS);
	jbd_fc_free(fc);
	free(buf);
}

int main(void)
{
	test_good();
	test_tails();
	test_heads();
	test_hostile();
	test_many();
	CHECK(!strcmp(jbd_fc_tag_name(JBD_FC_TAG_CREAT), "create"));
	CHECK(!strcmp(jbd_fc_tag_name(0), "unknown"));
	CHECK(!strcmp(jbd_fc_stop_name(JBD_FC_STOP_BAD_TAIL), "bad_tail"));
	return unit_done("test_fc");
}
