/*
 * jbd/logwrite.c against e2fsck and our own replay: a transaction that
 * jbd_log_commit writes into the empty journal of an image made by mke2fs
 * (with every checksum scheme, 32- and 64-bit tags, one block that starts
 * with the journal magic and must be escaped, and more blocks than one
 * descriptor tags) is replayed by e2fsck -E journal_only and by
 * replay_image: every block lands home as it was given, and the log is
 * empty after. jbd_log_blocks_needed is checked against the blocks written,
 * jbd_log_capacity against jbd_log_holds.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jbd/journal.h"
#include "jbd/logwrite.h"
#include "replay/image.h"
#include "util/e4r_err.h"
#include "unit.h"

#define NBLOCKS	300	/* more than one 1 KiB descriptor holds (at most 62 tags) */

static int sh(const char *cmd)
{
	char full[1024];

	snprintf(full, sizeof(full), "PATH=/sbin:/usr/sbin:$PATH %s >/dev/null 2>&1", cmd);
	return system(full);
}

/* Give IMG's journal checksum scheme CSUM (the superblock's features, rewritten with its checksum). */
static errcode_t set_journal_csum(ext2_filsys fs, enum jbd_csum_version csum)
{
	struct jbd_journal *j = NULL;
	struct jbd_superblock *sb;
	uint32_t compat, incompat;
	errcode_t err = jbd_journal_open(fs, NULL, &j);

	if (err)
		return err;
	sb = (void *)j->raw_sb;
	compat = jbd_be32(sb->s_feature_compat) & ~JBD_FEATURE_COMPAT_CHECKSUM;
	incompat = jbd_be32(sb->s_feature_incompat) & ~(JBD_FEATURE_INCOMPAT_CSUM_V2 | JBD_FEATURE_INCOMPAT_CSUM_V3);
	if (ext2fs_has_feature_64bit(fs->super))
		incompat |= JBD_FEATURE_INCOMPAT_64BIT;
	if (csum == JBD_CSUM_V1)
		compat |= JBD_FEATURE_COMPAT_CHECKSUM;
	else if (csum == JBD_CSUM_V2)
		incompat |= JBD_FEATURE_INCOMPAT_CSUM_V2;
	else if (csum == JBD_CSUM_V3)
		incompat |= JBD_FEATURE_INCOMPAT_CSUM_V3;
	sb->s_feature_compat = jbd_to_be32(compat);
	sb->s_feature_incompat = jbd_to_be32(incompat | JBD_FEATURE_INCOMPAT_REVOKE);
	sb->s_checksum_type = csum >= JBD_CSUM_V2 ? JBD_CRC32C_CHKSUM : 0;
	j->csum = csum;
	err = jbd_journal_write_super(j);
	jbd_journal_close(j);
	return err;
}

/*
 * Commit NBLOCKS blocks of seeded bytes (the first starting with the
 * journal magic) to free blocks of IMG; *BLKS and *DATA say what and
 * where. Returns 0 when the transaction is in the log.
 */
static int commit_blocks(const char *img, enum jbd_csum_version csum, blk64_t *blks, unsigned char **data,
			 uint32_t *state)
{
	ext2_filsys fs = NULL;
	struct jbd_journal *j = NULL;
	struct jbd_log_entry e[NBLOCKS];
	struct jbd_logfmt f;
	blk64_t goal;
	uint32_t before;
	unsigned i, k;
	int ok = 0;

	if (ext2fs_open(img, EXT2_FLAG_RW | EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &fs))
		return -1;
	CHECK(ext2fs_read_bitmaps(fs) == 0);
	CHECK(set_journal_csum(fs, csum) == 0);
	CHECK(jbd_journal_open(fs, NULL, &j) == 0);
	if (!j)
		goto out;
	CHECK_EQ(j->csum, csum);
	*data = malloc((size_t)NBLOCKS * fs->blocksize);
	goal = fs->super->s_first_data_block;
	for (i = 0; *data && i < NBLOCKS; i++) {
		unsigned char *d = *data + (size_t)i * fs->blocksize;

		CHECK(ext2fs_new_block2(fs, goal, NULL, &blks[i]) == 0);
		ext2fs_mark_block_bitmap2(fs->block_map, blks[i]);
		goal = blks[i] + 1;
		for (k = 0; k < fs->blocksize; k++)
			d[k] = (unsigned char)unit_xorshift(state);
		e[i].blk = blks[i];
		e[i].data = d;
		e[i].escaped = 0;
	}
	if (!*data)
		goto out;
	/* the magic, as a block that begins like a journal block: its log copy is escaped */
	{
		jbd_be32_t magic = jbd_to_be32(JBD_MAGIC);

		memcpy(*data, &magic, sizeof(magic));
	}
	CHECK(jbd_log_needs_escape(*data));
	/* the kernel and e2fsck replay only what the superblock says needs recovery */
	ext2fs_set_feature_journal_needs_recovery(fs->super);
	ext2fs_mark_super_dirty(fs);
	fs->flags &= ~(EXT2_FLAG_IB_DIRTY | EXT2_FLAG_BB_DIRTY);
	CHECK(ext2fs_flush(fs) == 0);
	before = j->sequence;
	CHECK(jbd_log_commit(j, e, NBLOCKS) == 0);
	CHECK_EQ(j->start, j->first);
	/* the blocks the transaction took end where the next free log block is: no commit block past */
	jbd_logfmt_of(j, &f);
	{
		unsigned long need = jbd_log_blocks_needed(&f, NBLOCKS);
		unsigned char *blk = malloc(j->blocksize);
		struct jbd_header h;

		CHECK(blk && jbd_journal_read(j, j->first + (uint32_t)need - 1, 1, blk) == 0);
		if (blk) {
			jbd_load(&h, blk);
			CHECK_EQ(jbd_be32(h.h_blocktype), JBD_COMMIT_BLOCK);
			CHECK_EQ(jbd_be32(h.h_sequence), before);
		}
		free(blk);
	}
	/* a log too small for the transaction is refused before anything is written */
	{
		uint32_t last = j->last;

		j->start = 0;
		j->last = j->first + (uint32_t)jbd_log_blocks_needed(&f, NBLOCKS) - 1;
		CHECK_EQ(jbd_log_commit(j, e, NBLOCKS), E4R_WRITE_TXN_TOO_BIG);
		/* the capacity is the bound jbd_log_holds draws, on logs around this one's length */
		CHECK(jbd_log_capacity(j, blks[NBLOCKS - 1]) < NBLOCKS);
		for (j->last = j->first + 3; j->last < j->first + 2 * NBLOCKS; j->last += 7) {
			unsigned long cap = jbd_log_capacity(j, blks[NBLOCKS - 1]);

			CHECK(jbd_log_holds(j, cap, blks[NBLOCKS - 1]));
			CHECK(!jbd_log_holds(j, cap + 1, blks[NBLOCKS - 1]));
		}
		j->last = j->first + (uint32_t)jbd_log_blocks_needed(&f, NBLOCKS);
		CHECK(jbd_log_capacity(j, blks[NBLOCKS - 1]) >= NBLOCKS);
		/* past 2^32 only with 64-bit tags */
		if (!(f.incompat & JBD_FEATURE_INCOMPAT_64BIT))
			CHECK_EQ(jbd_log_capacity(j, (blk64_t)1 << 32), 0);
		j->last = last;
		j->start = j->first;
	}
	ok = 1;
out:
	jbd_journal_close(j);
	fs->flags &= ~(EXT2_FLAG_DIRTY | EXT2_FLAG_IB_DIRTY | EXT2_FLAG_BB_DIRTY);
	ext2fs_close_free(&fs);
	return ok ? 0 : -1;
}

/* Every block home as given, the log empty and needs_recovery gone. */
static void check_replayed(const char *img, const blk64_t *blks, const unsigned char *data, const char *who)
{
	ext2_filsys fs = NULL;
	struct jbd_journal *j = NULL;
	unsigned char *blk;
	unsigned i, bad = 0;

	CHECK(ext2fs_open(img, EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &fs) == 0);
	if (!fs)
		return;
	blk = malloc(fs->blocksize);
	for (i = 0; blk && i < NBLOCKS; i++) {
		CHECK(io_channel_read_blk64(fs->io, blks[i], 1, blk) == 0);
		bad += memcmp(blk, data + (size_t)i * fs->blocksize, fs->blocksize) != 0;
	}
	if (bad)
		fprintf(stderr, "%s: %u of %d blocks not as committed\n", who, bad, NBLOCKS);
	CHECK_EQ(bad, 0);
	CHECK(!ext2fs_has_feature_journal_needs_recovery(fs->super));
	CHECK(jbd_journal_open(fs, NULL, &j) == 0);
	if (j)
		CHECK_EQ(j->start, 0);
	jbd_journal_close(j);
	free(blk);
	ext2fs_close_free(&fs);
}

static void one(const char *dir, const char *mkfs_opts, enum jbd_csum_version csum, uint32_t seed)
{
	char img[256], copy[256], cmd[768];
	blk64_t blks[NBLOCKS];
	unsigned char *data = NULL;
	struct replay_opts ro = { .policy = JBD_POLICY_STOP };
	struct replay_result *r = NULL;

	snprintf(img, sizeof(img), "%s/j.img", dir);
	snprintf(copy, sizeof(copy), "%s/ours.img", dir);
	snprintf(cmd, sizeof(cmd), "mke2fs -q -F -t ext4 %s %s 16M", mkfs_opts, img);
	CHECK(sh(cmd) == 0);
	if (commit_blocks(img, csum, blks, &data, &seed) == 0) {
		snprintf(cmd, sizeof(cmd), "cp %s %s", img, copy);
		CHECK(sh(cmd) == 0);
		snprintf(cmd, sizeof(cmd), "e2fsck -E journal_only -p %s", img);
		CHECK(sh(cmd) == 0);
		check_replayed(img, blks, data, "e2fsck");
		CHECK(replay_image(copy, &ro, &r) == 0);
		replay_free(r);
		check_replayed(copy, blks, data, "replay_image");
	}
	free(data);
	unlink(img);
	unlink(copy);
}

/*
 * The descriptors of N blocks in every tag format, N across several
 * descriptors' worth: walking each as a replay does (a UUID after a tag
 * without SAME_UUID, up to the tag flagged LAST), every block is tagged
 * once, in order, inside its block and before the v2/v3 tail, and the
 * blocks they take are what jbd_log_blocks_needed says. Under the
 * sanitizers a descriptor written past its buffer fails here too (a v1
 * journal of 1 KiB blocks once overran it by one block at 122 tags).
 */
static void descriptor_layout(void)
{
	static const unsigned sizes[] = { 1024, 4096 };
	static const struct { enum jbd_csum_version csum; uint32_t incompat; } kinds[] = {
		{ JBD_CSUM_NONE, 0 }, { JBD_CSUM_NONE, JBD_FEATURE_INCOMPAT_64BIT },
		{ JBD_CSUM_V1, 0 }, { JBD_CSUM_V2, JBD_FEATURE_INCOMPAT_CSUM_V2 },
		{ JBD_CSUM_V3, JBD_FEATURE_INCOMPAT_CSUM_V3 | JBD_FEATURE_INCOMPAT_64BIT },
	};
	static const uint8_t uuid[16] = { 1, 2, 3 };
	unsigned char *data = calloc(1, 4096);
	struct jbd_log_entry *e = calloc(1100, sizeof(*e));

	CHECK(data && e);
	for (unsigned k = 0; data && e && k < 1100; k++)
		e[k] = (struct jbd_log_entry){ 1000 + k, data, 0 };
	for (unsigned z = 0; data && e && z < sizeof(sizes) / sizeof(*sizes); z++)
		for (unsigned q = 0; q < sizeof(kinds) / sizeof(*kinds); q++) {
			struct jbd_logfmt f = { sizes[z], kinds[q].incompat, kinds[q].csum, 7,
						jbd_tag_bytes(kinds[q].incompat), uuid };
			unsigned tail = f.csum == JBD_CSUM_V2 || f.csum == JBD_CSUM_V3 ? 4 : 0;

			for (unsigned n = 1; n <= 1100; n += n < 300 ? 1 : 37) {
				unsigned char *descs = NULL;
				unsigned *ends = NULL, nd = 0, seen = 0;
				uint32_t crc;

				if (jbd_log_descriptors(&f, 5, e, n, &descs, &ends, &nd, &crc)) {
					CHECK(0);
					continue;
				}
				for (unsigned d = 0; d < nd; d++) {
					const unsigned char *b = descs + (size_t)d * f.blocksize;
					unsigned off = 12, last = 0;
					struct jbd_tag t;

					while (!last && off + f.tag_bytes + tail <= f.blocksize) {
						jbd_tag_decode(b + off, f.incompat, &t);
						off += f.tag_bytes + (t.flags & JBD_FLAG_SAME_UUID ? 0 : 16);
						last = t.flags & JBD_FLAG_LAST_TAG;
						if (t.blocknr != 1000 + seen++)
							CHECK(0);
					}
					CHECK(last && off + tail <= f.blocksize && ends[d] == seen);
				}
				CHECK(seen == n);
				CHECK(jbd_log_blocks_needed(&f, n) == nd + n + 1);
				free(descs);
				free(ends);
			}
		}
	free(e);
	free(data);
}

int main(void)
{
	char dir[] = "/tmp/e4r-unit-logwrite-XXXXXX";
	static const enum jbd_csum_version kinds[] = { JBD_CSUM_NONE, JBD_CSUM_V1, JBD_CSUM_V2, JBD_CSUM_V3 };
	unsigned i;

	initialize_e4r_error_table();
	initialize_ext2_error_table();
	descriptor_layout();
	CHECK(mkdtemp(dir) != NULL);
	if (sh("mke2fs -V") != 0) {
		fprintf(stderr, "mke2fs not available: skipped\n");
		rmdir(dir);
		return unit_done("test_jbd_logwrite");
	}
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		one(dir, "-b 1024 -O 64bit", kinds[i], 1 + i);
		one(dir, "-b 4096 -O ^64bit", kinds[i], 11 + i);
	}
	rmdir(dir);
	return unit_done("test_jbd_logwrite");
}
