/* Damage that overwrote a block rather than flipping bits in it: filled fields, misdirected and torn writes. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "diag/overwrite.h"
#include "util/crc.h"

/*
 * A torn write is told from flipped bits by how much differs: a flip
 * search covers bursts up to CRC_PATTERN_MAX_BITS, so a tear must change
 * more bits than that to be called one.
 */
#define TORN_MIN_BITS	(CRC_PATTERN_MAX_BITS + 1)

int diag_fill_value(uint32_t v, uint32_t mask, uint8_t *byte)
{
	if ((v & mask) == 0) {
		*byte = 0x00;
		return 1;
	}
	if ((v & mask) == mask) {
		*byte = 0xff;
		return 1;
	}
	return 0;
}

/* BLK is one byte repeated: *BYTE. */
static int uniform(const unsigned char *blk, unsigned size, uint8_t *byte)
{
	*byte = blk[0];
	return size && !memcmp(blk, blk + 1, size - 1);
}

int diag_fill_block(const unsigned char *blk, unsigned size, uint8_t *byte)
{
	return uniform(blk, size, byte) && (*byte == 0x00 || *byte == 0xff);
}

/* ---- misdirected writes ---- */

struct log_block {
	uint32_t	jblk;
	uint32_t	hash;
	uint32_t	sequence;
	uint64_t	fs_block;	/* a logged copy's home */
	int		is_copy;
};

struct diag_log_hashes {
	struct log_block	*b;
	unsigned		n;
	/*
	 * The home blocks of one transaction's tags, hashed once: the findings
	 * come transaction by transaction, and a transaction whose blocks all
	 * fail would read every home once per block otherwise.
	 */
	int			home_txn;	/* whose homes home_hash holds; -1 none */
	uint32_t		*home_hash;	/* [its nblocks]; 0 for a home outside the filesystem */
};

void diag_log_hashes_free(struct diag_log_hashes *h)
{
	if (!h)
		return;
	free(h->b);
	free(h->home_hash);
	free(h);
}

static uint32_t block_hash(const struct jbd_journal *j, const unsigned char *blk)
{
	return util_crc32c(~0U, blk, j->blocksize);
}

static void add(struct diag_log_hashes *h, uint32_t jblk, uint32_t seq, uint64_t fs_block, int is_copy)
{
	h->b[h->n++] = (struct log_block){ .jblk = jblk, .sequence = seq, .fs_block = fs_block, .is_copy = is_copy };
}

/* Every block of the live log: descriptors, logged copies, revoke and commit blocks. */
static errcode_t hash_log(struct jbd_journal *j, const struct jbd_scan *s, struct diag_log_hashes **out)
{
	struct diag_log_hashes *h = calloc(1, sizeof(*h));
	unsigned char *buf = malloc(j->blocksize);
	size_t n = 0;
	errcode_t err = 0;

	if (!h || !buf) {
		err = EXT2_ET_NO_MEMORY;
		goto out;
	}
	for (unsigned i = 0; i < s->nlive; i++)
		n += s->txns[i].ndescs + s->txns[i].nblocks + s->txns[i].nrevokes + 1;
	h->home_txn = -1;
	h->b = calloc(n ? n : 1, sizeof(*h->b));
	if (!h->b) {
		err = EXT2_ET_NO_MEMORY;
		goto out;
	}
	for (unsigned i = 0; i < s->nlive; i++) {
		const struct jbd_scan_txn *t = &s->txns[i];

		for (unsigned d = 0; d < t->ndescs; d++)
			add(h, t->descs[d].jblk, t->sequence, 0, 0);
		for (unsigned b = 0; b < t->nblocks; b++)
			add(h, t->blocks[b].jblk, t->sequence, t->blocks[b].fs_block, 1);
		for (unsigned r = 0; r < t->nrevokes; r++)
			add(h, t->revokes[r].jblk, t->sequence, 0, 0);
		if (t->commit_jblk)
			add(h, t->commit_jblk, t->sequence, 0, 0);
	}
	for (unsigned i = 0; i < h->n; i++) {
		err = jbd_journal_read(j, h->b[i].jblk, 1, buf);
		if (err)
			goto out;
		h->b[i].hash = block_hash(j, buf);
	}
out:
	free(buf);
	if (err) {
		diag_log_hashes_free(h);
		return err;
	}
	*out = h;
	return 0;
}

/* Hash the homes of transaction TI's tags into H (kept for its next findings). */
static errcode_t hash_homes(struct jbd_journal *j, const struct jbd_scan *s, unsigned ti,
			    struct diag_log_hashes *h, unsigned char *buf)
{
	const struct jbd_scan_txn *t = &s->txns[ti];
	errcode_t err;

	if (h->home_txn == (int)ti)
		return 0;
	free(h->home_hash);
	h->home_txn = -1;
	h->home_hash = calloc(t->nblocks ? t->nblocks : 1, sizeof(*h->home_hash));
	if (!h->home_hash)
		return EXT2_ET_NO_MEMORY;
	for (unsigned b = 0; b < t->nblocks; b++) {
		if (t->blocks[b].fs_block >= ext2fs_blocks_count(j->fs->super))
			continue;
		if ((err = io_channel_read_blk64(j->fs->io, t->blocks[b].fs_block, 1, buf)))
			return err;
		h->home_hash[b] = block_hash(j, buf);
	}
	h->home_txn = (int)ti;
	return 0;
}

errcode_t diag_match_find(struct jbd_journal *j, const struct jbd_scan *s, struct diag_log_hashes **hashes,
			  unsigned ti, int bi, uint32_t jblk, const unsigned char *content,
			  struct diag_match *out, int *found)
{
	const struct jbd_scan_txn *t = &s->txns[ti];
	uint64_t home = bi >= 0 ? t->blocks[bi].fs_block : UINT64_MAX;
	uint32_t hash = block_hash(j, content);
	unsigned char *buf;
	uint8_t byte;
	errcode_t err = 0;

	*found = 0;
	if (uniform(content, j->blocksize, &byte))
		return 0;
	if (!*hashes && (err = hash_log(j, s, hashes)))
		return err;
	buf = malloc(j->blocksize);
	if (!buf)
		return EXT2_ET_NO_MEMORY;
	for (unsigned i = 0; i < (*hashes)->n && !*found; i++) {
		const struct log_block *b = &(*hashes)->b[i];

		if (b->jblk == jblk || b->hash != hash || (b->is_copy && b->fs_block == home))
			continue;
		if ((err = jbd_journal_read(j, b->jblk, 1, buf)))
			goto out;
		if (memcmp(buf, content, j->blocksize))
			continue;
		*out = (struct diag_match){ .kind = JBD_MATCH_LOGGED, .jblk = b->jblk, .sequence = b->sequence,
					    .fs_block = b->fs_block, .is_copy = b->is_copy };
		*found = 1;
	}
	/* The homes of the transaction's other tags: a block written to the log in another's place. */
	if (!*found && (err = hash_homes(j, s, ti, *hashes, buf)))
		goto out;
	for (unsigned b = 0; b < t->nblocks && !*found; b++) {
		uint64_t fsb = t->blocks[b].fs_block;

		if (fsb == home || fsb >= ext2fs_blocks_count(j->fs->super) || (*hashes)->home_hash[b] != hash)
			continue;
		if ((err = io_channel_read_blk64(j->fs->io, fsb, 1, buf)))
			goto out;
		if (block_hash(j, buf) != hash || memcmp(buf, content, j->blocksize))
			continue;
		*out = (struct diag_match){ .kind = JBD_MATCH_HOME, .sequence = t->sequence, .fs_block = fsb };
		*found = 1;
	}
out:
	free(buf);
	return err;
}

/* ---- torn writes ---- */

/* The v2/v3 tag checksum of CONTENT logged by transaction SEQ, as the tag stores it. */
static uint32_t tag_csum(const struct jbd_journal *j, uint32_t seq, const unsigned char *content)
{
	jbd_be32_t be = jbd_to_be32(seq);
	uint32_t c = util_crc32c(j->csum_seed, &be, sizeof(be));

	c = util_crc32c(c, content, j->blocksize);
	return j->csum == JBD_CSUM_V3 ? c : c & 0xFFFF;
}

/*
 * CONTENT against INTENDED sector by sector: 1 when they differ in one
 * run of whole sectors that reaches an end of the block and leaves at least
 * one sector equal, by at least TORN_MIN_BITS bits.
 */
static int torn_shape(const unsigned char *content, const unsigned char *intended, unsigned size,
		      unsigned *sector, int *new_first)
{
	unsigned n = size / DIAG_SECTOR_SIZE, first = n, last = 0, bits = 0;

	if (n < 2)
		return 0;
	for (unsigned k = 0; k < n; k++) {
		const unsigned char *a = content + (size_t)k * DIAG_SECTOR_SIZE;
		const unsigned char *b = intended + (size_t)k * DIAG_SECTOR_SIZE;

		if (!memcmp(a, b, DIAG_SECTOR_SIZE))
			continue;
		if (first == n)
			first = k;
		else if (k != last + 1)
			return 0;	/* equal sectors between differing ones: not one tear */
		last = k;
		for (unsigned i = 0; i < DIAG_SECTOR_SIZE; i++)
			bits += (unsigned)__builtin_popcount(a[i] ^ b[i]);
	}
	if (first == n || bits < TORN_MIN_BITS)
		return 0;
	if (first > 0 && last == n - 1) {
		*sector = first;
		*new_first = 1;
		return 1;
	}
	if (first == 0 && last < n - 1) {
		*sector = last + 1;
		*new_first = 0;
		return 1;
	}
	return 0;
}

errcode_t diag_torn_find(struct jbd_journal *j, const struct jbd_scan *s, unsigned ti, unsigned bi,
			 const unsigned char *content, struct diag_finding *f, int *found)
{
	const struct jbd_scan_txn *t = &s->txns[ti];
	const struct jbd_scan_block *me = &t->blocks[bi];
	unsigned char *buf = malloc(j->blocksize);
	errcode_t err = 0;

	*found = 0;
	if (!buf)
		return EXT2_ET_NO_MEMORY;
	if (j->csum != JBD_CSUM_V2 && j->csum != JBD_CSUM_V3)
		goto out;
	for (unsigned i = 0; i < s->nlive && !*found; i++) {
		const struct jbd_scan_txn *x = &s->txns[i];

		for (unsigned b = 0; b < x->nblocks && !*found; b++) {
			if (x->blocks[b].fs_block != me->fs_block || x->blocks[b].jblk == me->jblk)
				continue;
			if ((err = jbd_journal_read(j, x->blocks[b].jblk, 1, buf)))
				goto out;
			if (tag_csum(j, t->sequence, buf) != me->csum.stored ||
			    !torn_shape(content, buf, j->blocksize, &f->torn_sector, &f->torn_new_first))
				continue;
			f->torn_intended = (struct diag_match){ .kind = JBD_MATCH_LOGGED, .jblk = x->blocks[b].jblk,
								.sequence = x->sequence, .fs_block = me->fs_block,
								.is_copy = 1 };
			*found = 1;
		}
	}
	if (!*found && me->fs_block < ext2fs_blocks_count(j->fs->super)) {
		if ((err = io_channel_read_blk64(j->fs->io, me->fs_block, 1, buf)))
			goto out;
		if (tag_csum(j, t->sequence, buf) == me->csum.stored &&
		    torn_shape(content, buf, j->blocksize, &f->torn_sector, &f->torn_new_first)) {
			f->torn_intended = (struct diag_match){ .kind = JBD_MATCH_HOME, .sequence = t->sequence,
								.fs_block = me->fs_block };
			*found = 1;
		}
	}
	if (*found)
		f->sectors = j->blocksize / DIAG_SECTOR_SIZE;
out:
	free(buf);
	return err;
}
