/* Diagnosis of journal checksum failures: locate, prove, and name the cause of each one. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "diag/diagnose.h"
#include "diag/overwrite.h"
#include "diag/structure.h"
#include "jbd/failure.h"
#include "jbd/revoke.h"
#include "util/array.h"
#include "util/crc.h"
#include "util/e4r_err.h"
#include "util/nomem.h"
#include "util/sorted.h"

/* A unique fit is taken as the intended content when fewer chance fits are expected. */
#define AUTO_MAX_CHANCE		0.2
/* Fits are evidence of flips only when fewer than this many are expected by chance. */
#define FLIP_MAX_CHANCE		1.0
/* Skip the pair search where more chance fits than this are expected. */
#define MAX_PAIR_FITS		16.0
/* Bursts are evidence only when this unlikely by chance. */
#define BURST_MAX_CHANCE	1e-3
/* Sequences tried around a tag's own when asking whether its block is stale. */
#define STALE_SEQ_WINDOW	4096
/* Bytes of a message read per journal read when recomputing its checksum. */
#define MSG_CHUNK_BYTES		(1U << 20)
/* Where the commit header's fields are in the commit block. */
#define COMMIT_TYPE_OFFSET	offsetof(struct jbd_commit_header, h_chksum_type)
#define COMMIT_SIZE_OFFSET	offsetof(struct jbd_commit_header, h_chksum_size)
#define COMMIT_CSUM_OFFSET	offsetof(struct jbd_commit_header, h_chksum)

/*
 * The message a checksum covers: PREFIX bytes (a tag's big-endian
 * sequence), then whole journal blocks, with HOLE bytes of the first block
 * counted as zero. The stored value sits at STORED_JBLK:STORED_OFF.
 */
struct msg {
	enum diag_crc_alg	alg;
	uint32_t	init;
	unsigned	prefix;
	unsigned char	prefix_bytes[4];
	uint32_t	prefix_jblk;		/* where the prefix is kept (descriptor header) */
	uint32_t	*jblks;
	unsigned	nblocks;
	unsigned	hole_off, hole_len;
	uint32_t	stored, mask;
	uint32_t	stored_jblk;
	unsigned	stored_off, stored_len;	/* big-endian, 4 or 2 bytes */
};

struct diag {
	struct jbd_journal	*j;
	const struct jbd_scan	*s;
	struct diag_report	*d;
	size_t			cap;		/* findings d has room for */
	unsigned char		*buf;		/* one block */
	unsigned char		*chunk;		/* chunk_blocks blocks of a message (msg_crc) */
	unsigned		chunk_blocks;
	struct fs_decode	*dec;
	struct diag_crc_cache	*cache;		/* syndrome tables: every tag has the same shape */
	uint32_t		seq_syn[32];	/* tag checksums: syndrome of each bit of the sequence */
	struct diag_log_hashes	*hashes;	/* every block of the live log, hashed when first needed */
};

static uint64_t msg_bytes(const struct jbd_journal *j, const struct msg *m)
{
	return m->prefix + (uint64_t)m->nblocks * j->blocksize;
}

/* The checksum over M with message bits BITS[0..N) (sorted) flipped. */
static errcode_t msg_crc(struct diag *dg, const struct msg *m, const uint64_t *bits, unsigned n, uint32_t *out)
{
	struct jbd_journal *j = dg->j;
	unsigned char pre[4];
	uint32_t c = m->init;
	unsigned k = 0;
	errcode_t err;

	memcpy(pre, m->prefix_bytes, 4);
	for (; k < n && bits[k] / 8 < m->prefix; k++)
		pre[bits[k] / 8] ^= (unsigned char)(1U << (bits[k] & 7));
	if (m->prefix)
		c = m->alg == CRC_ALG_CRC32C ? util_crc32c(c, pre, m->prefix) : util_crc32_be(c, pre, m->prefix);
	/* A v1 message is a whole transaction (tens of MiB): read it in chunks, each a few reads. */
	for (unsigned b = 0; b < m->nblocks; b += dg->chunk_blocks) {
		unsigned nb = m->nblocks - b < dg->chunk_blocks ? m->nblocks - b : dg->chunk_blocks;
		uint64_t base = m->prefix + (uint64_t)b * j->blocksize;
		size_t bytes = (size_t)nb * j->blocksize;

		err = jbd_journal_read_list(j, m->jblks + b, nb, dg->chunk);
		if (err)
			return err;
		for (; k < n && bits[k] / 8 < base + bytes; k++)
			dg->chunk[bits[k] / 8 - base] ^= (unsigned char)(1U << (bits[k] & 7));
		if (b == 0 && m->hole_len)
			memset(dg->chunk + m->hole_off, 0, m->hole_len);
		c = m->alg == CRC_ALG_CRC32C ? util_crc32c(c, dg->chunk, bytes) :
					       util_crc32_be(c, dg->chunk, bytes);
	}
	*out = c;
	return 0;
}

/* Where message bit BIT, or stored bit J, is on disk. */
static void map_bit(const struct jbd_journal *j, const struct msg *m, uint64_t bit, struct diag_flip *f)
{
	if (bit / 8 < m->prefix) {
		f->place = JBD_FLIP_SEQUENCE;
		f->jblk = m->prefix_jblk;
		/* h_sequence, big-endian like the prefix */
		f->byte = offsetof(struct jbd_header, h_sequence) + (uint32_t)(bit / 8);
	} else {
		uint64_t byte = bit / 8 - m->prefix;
		f->place = JBD_FLIP_CONTENT;
		f->jblk = m->jblks[byte / j->blocksize];
		f->byte = (uint32_t)(byte % j->blocksize);
	}
	f->bit = (uint8_t)(bit & 7);
}

static void map_stored(const struct msg *m, unsigned sbit, struct diag_flip *f)
{
	f->place = JBD_FLIP_STORED;
	f->jblk = m->stored_jblk;
	f->byte = m->stored_off + (m->stored_len - 1 - sbit / 8);
	f->bit = (uint8_t)(sbit & 7);
}

/* Turn a crc pattern into journal places, and prove it by recomputing. */
static errcode_t make_candidate(struct diag *dg, const struct msg *m, const struct diag_crc_pattern *p,
				struct diag_candidate *c, int verify)
{
	uint32_t crc;
	errcode_t err;

	memset(c, 0, sizeof(*c));
	for (unsigned i = 0; i < p->nbits && c->nflips < CRC_PATTERN_MAX_BITS; i++)
		map_bit(dg->j, m, p->bit[i], &c->flip[c->nflips++]);
	for (unsigned b = 0; b < 32 && c->nflips < CRC_PATTERN_MAX_BITS; b++)
		if (p->stored & (1U << b))
			map_stored(m, b, &c->flip[c->nflips++]);
	c->weight = p->weight;
	c->span = p->span;
	if (!verify)
		return 0;
	err = msg_crc(dg, m, p->bit, p->nbits, &crc);
	if (err)
		return err;
	c->verified = ((crc ^ m->stored ^ p->stored) & m->mask) == 0;
	return 0;
}

static errcode_t new_finding(struct diag *dg, enum diag_object obj, unsigned ti, int bi,
			     uint32_t jblk, const struct jbd_csum *cs, struct diag_finding **out)
{
	struct diag_report *d = dg->d;
	const struct jbd_scan_txn *t = &dg->s->txns[ti];
	struct diag_finding *f;
	errcode_t err;

	err = util_grow_from((void **)&d->findings, &dg->cap, d->nfindings + 1, sizeof(*d->findings), 8);
	if (err)
		return err;
	f = &d->findings[d->nfindings++];
	memset(f, 0, sizeof(*f));
	f->object = obj;
	f->txn = ti;
	f->sequence = t->sequence;
	f->block = bi;
	f->jblk = jblk;
	f->csum = *cs;
	f->csum_bits = 32;
	f->cause = JBD_CAUSE_UNEXPLAINED;
	f->action = JBD_AUTO_STOP;
	f->problem = 1;
	f->commit_sec = t->commit_sec;
	f->async_commit = !!(dg->j->incompat & JBD_FEATURE_INCOMPAT_ASYNC_COMMIT);
	if (bi >= 0)
		f->fs_block = t->blocks[bi].fs_block;
	*out = f;
	return 0;
}

/* ---- the bit-flip search ---- */

/* Pairs of bits in one journal block. */
static double j_pairs_per_block(const struct jbd_journal *j)
{
	double bits = (double)j->blocksize * 8;

	return bits * bits / 2;
}

static errcode_t search_flips(struct diag *dg, struct diag_finding *f, const struct msg *m, uint32_t computed)
{
	struct diag_crc_search q = { 0 };
	struct diag_crc_result *r = malloc(sizeof(*r));
	errcode_t err;

	if (!r)
		return EXT2_ET_NO_MEMORY;
	q.alg = m->alg;
	q.nbytes = msg_bytes(dg->j, m);
	q.syndrome = m->stored ^ computed;
	q.mask = m->mask;
	q.hole_start = m->hole_len ? m->prefix + m->hole_off : 0;
	q.hole_len = m->hole_len;
	q.max_gap = (uint64_t)dg->j->blocksize * 8;
	q.pair_segment = m->nblocks > 1 ? dg->j->blocksize : 0;
	/* Past ~2 Mbit even a 3-bit burst fits by chance more often than BURST_MAX_CHANCE. */
	q.max_burst = q.nbytes * 8 * 2 / 4294967296.0 < BURST_MAX_CHANCE ? CRC_PATTERN_MAX_BITS : 0;
	q.cache = dg->cache;
	/* Pairs within a block of a long v1 transaction fit any syndrome many times over. */
	q.skip_pairs = (double)m->nblocks * j_pairs_per_block(dg->j) / 4294967296.0 > MAX_PAIR_FITS;
	err = diag_crc_locate(&q, r);
	if (err == E4R_LIMIT)
		err = 0;	/* a transaction too long to search: no fit, said by searched = 0 */
	if (err || !r->searched)
		goto out;
	f->searched = (int)r->searched;
	f->weight = r->weight;
	f->burst = r->burst;
	f->nfits = r->count;
	f->chance = r->chance;
	/* Each proof rereads the message: only worth it when the fits can mean something. */
	for (unsigned i = 0; i < r->ncand && i < JBD_DIAG_MAX_CAND; i++) {
		err = make_candidate(dg, m, &r->cand[i], &f->cand[f->ncand],
				     r->chance < FLIP_MAX_CHANCE || m->nblocks <= 1);
		if (err)
			goto out;
		f->ncand++;
	}
	f->proven = r->count == 1 && f->ncand == 1 && f->cand[0].verified &&
		    (!r->burst || r->chance < BURST_MAX_CHANCE);
out:
	free(r);
	return err;
}

/*
 * Light fits that are evidence of flipped bits: not what any syndrome gets
 * (pairs in a long v1 transaction, or with 16 bits, fit almost anything).
 */
static int flips_found(const struct diag_finding *f)
{
	return f->weight && f->chance < FLIP_MAX_CHANCE && (!f->burst || f->chance < BURST_MAX_CHANCE);
}

/*
 * Keep the corrected block of a proven fit. A fit whose flips span two
 * blocks has no one block to hand over: then auto stops instead.
 */
static errcode_t keep_correction(struct diag *dg, struct diag_finding *f)
{
	const struct diag_candidate *c = &f->cand[0];
	uint32_t jblk = 0;
	int have = 0;
	errcode_t err;

	for (unsigned i = 0; i < c->nflips; i++) {
		if (c->flip[i].place != JBD_FLIP_CONTENT)
			continue;
		if (have && c->flip[i].jblk != jblk) {
			f->action = JBD_AUTO_STOP;
			return 0;
		}
		jblk = c->flip[i].jblk;
		have = 1;
	}
	if (!have)
		return 0;	/* only the stored value was hit: the content is right as it is */
	f->corrected = malloc(dg->j->blocksize);
	if (!f->corrected)
		return EXT2_ET_NO_MEMORY;
	err = jbd_journal_read(dg->j, jblk, 1, f->corrected);
	if (err)
		return err;
	for (unsigned i = 0; i < c->nflips; i++)
		if (c->flip[i].place == JBD_FLIP_CONTENT)
			f->corrected[c->flip[i].byte] ^= (unsigned char)(1U << c->flip[i].bit);
	f->corrected_jblk = jblk;
	return 0;
}

/* ---- stale evidence ---- */

/* A descriptor that names another journal's UUID after its first tag (the scan keeps it). */
static int desc_uuid_mismatch(const struct diag *dg, const struct jbd_scan_desc *d)
{
	if (!d->has_uuid)
		return 0;
	/* Writers of internal journals (debugfs, ext4) may leave it zero: no evidence then. */
	for (unsigned i = 0; i < JBD_UUID_SIZE; i++)
		if (d->uuid[i])
			return memcmp(d->uuid, dg->j->uuid, JBD_UUID_SIZE) != 0;
	return 0;
}

static void txn_stale_evidence(struct diag *dg, struct diag_finding *f)
{
	const struct jbd_scan_txn *t = &dg->s->txns[f->txn];

	for (unsigned i = 0; i < t->ndescs; i++)
		if (desc_uuid_mismatch(dg, &t->descs[i]))
			f->uuid_mismatch = 1;
	for (unsigned i = f->txn; i-- > 0;) {
		const struct jbd_scan_txn *p = &dg->s->txns[i];
		if (!p->committed)
			continue;
		f->prev_commit_sec = p->commit_sec;
		if (t->commit_jblk && t->commit_sec < p->commit_sec)
			f->time_backwards = 1;
		break;
	}
}

/*
 * Does the tag checksum match the block under another sequence (an older
 * tag)? Changing the sequence by DELTA changes the checksum by the XOR of
 * the syndromes of DELTA's bits: no block needs rereading.
 */
static void tag_stale_sequence(struct diag *dg, struct diag_finding *f, uint32_t full_computed)
{
	if (f->csum_bits != 32)
		return;	/* 16 bits would match thousands of sequences by chance */
	for (int64_t k = -STALE_SEQ_WINDOW; k <= STALE_SEQ_WINDOW; k++) {
		uint32_t seq2 = f->sequence + (uint32_t)k, delta = f->sequence ^ seq2, c = full_computed;
		if (!k)
			continue;
		/*
		 * The set bits only: testing all 32 for each of the 8,192
		 * sequences cost more than the rest of a diagnosis.
		 */
		for (; delta; delta &= delta - 1)
			c ^= dg->seq_syn[__builtin_ctz(delta)];
		if (c == f->csum.stored) {
			f->has_stale_sequence = 1;
			f->stale_sequence = seq2;
			return;
		}
	}
}

/* Bit B of the (host-order) sequence is message bit (3 - B/8) * 8 + B%8 of a tag's checksum. */
static void init_seq_syndromes(struct diag *dg)
{
	uint64_t nbytes = 4 + (uint64_t)dg->j->blocksize;

	for (unsigned b = 0; b < 32; b++)
		dg->seq_syn[b] = diag_crc_bit_syndrome(CRC_ALG_CRC32C, nbytes, (3 - b / 8) * 8 + b % 8);
}

/* ---- torn commits ---- */

static int last_commit(const struct jbd_scan *s, unsigned ti)
{
	for (unsigned i = ti + 1; i < s->nlive; i++)
		if (s->txns[i].committed)
			return 0;
	return 1;
}

static unsigned bad_tags(const struct jbd_scan_txn *t)
{
	unsigned n = 0;

	for (unsigned i = 0; i < t->nblocks; i++)
		n += t->blocks[i].csum.state == JBD_CSUM_BAD;
	return n;
}

/* v2/v3: only the commit header reached the disk (a torn sector): the kernel's partial test. */
static int partial_commit(struct diag *dg, const struct jbd_scan_txn *t)
{
	struct jbd_journal *j = dg->j;
	uint32_t c;

	if (jbd_journal_read(j, t->commit_jblk, 1, dg->buf))
		return 0;
	memset(dg->buf + COMMIT_CSUM_OFFSET, 0, sizeof(jbd_be32_t));
	memset(dg->buf + JBD_COMMIT_HEADER_SIZE, 0, j->blocksize - JBD_COMMIT_HEADER_SIZE);
	c = util_crc32c(j->csum_seed, dg->buf, j->blocksize);
	return c == t->commit_csum.stored;
}

/* ---- the leak (unjournaled modification) ---- */

static int is_bitmap(const struct fs_block_info *bi)
{
	return bi->kind == E4R_KIND_INODE_BITMAP || bi->kind == E4R_KIND_BLOCK_BITMAP;
}

/* What bit I of a bitmap block of group G stands for. */
static uint64_t leak_object(ext2_filsys fs, const struct fs_block_info *bi, uint32_t i)
{
	if (bi->kind == E4R_KIND_INODE_BITMAP)
		return (uint64_t)bi->group * fs->super->s_inodes_per_group + i + 1;
	return fs->super->s_first_data_block +
	       ((uint64_t)bi->group * fs->super->s_clusters_per_group + i) *
	       EXT2FS_CLUSTER_RATIO(fs);
}

struct versions {
	unsigned char	*before;	/* NULL if unknown */
	int		before_home;
	unsigned char	**later;
	uint32_t	*later_seq;
	unsigned	nlater;
};

static void versions_free(struct versions *v)
{
	free(v->before);
	for (unsigned i = 0; i < v->nlater; i++)
		free(v->later[i]);
	free(v->later);
	free(v->later_seq);
}

static errcode_t read_copy(struct diag *dg, uint32_t jblk, unsigned char **out)
{
	*out = malloc(dg->j->blocksize);
	if (!*out)
		return EXT2_ET_NO_MEMORY;
	return jbd_journal_read(dg->j, jblk, 1, *out);
}

/* The other versions of FS_BLOCK: the one before transaction TI, and the later committed ones. */
static errcode_t gather_versions(struct diag *dg, unsigned ti, uint64_t fs_block, struct versions *v)
{
	const struct jbd_scan *s = dg->s;
	errcode_t err;

	memset(v, 0, sizeof(*v));
	v->later = calloc(s->nlive, sizeof(*v->later));
	v->later_seq = calloc(s->nlive, sizeof(*v->later_seq));
	if (!v->later || !v->later_seq)
		return EXT2_ET_NO_MEMORY;
	for (unsigned i = 0; i < s->nlive; i++) {
		const struct jbd_scan_txn *t = &s->txns[i];
		if (i == ti || !t->committed)
			continue;
		for (unsigned b = 0; b < t->nblocks; b++) {
			if (t->blocks[b].fs_block != fs_block)
				continue;
			if (i < ti) {
				free(v->before);
				err = read_copy(dg, t->blocks[b].jblk, &v->before);
			} else if (!v->nlater || v->later_seq[v->nlater - 1] != t->sequence) {
				v->later_seq[v->nlater] = t->sequence;
				err = read_copy(dg, t->blocks[b].jblk, &v->later[v->nlater++]);
			} else {
				err = 0;
			}
			if (err)
				return err;
		}
	}
	if (!v->before && v->nlater) {
		v->before = malloc(dg->j->blocksize);
		if (!v->before)
			return EXT2_ET_NO_MEMORY;
		err = io_channel_read_blk64(dg->j->fs->io, fs_block, 1, v->before);
		if (err)
			return err;
		v->before_home = 1;
	}
	return 0;
}

/*
 * Try the leak hypothesis for block BI of the transaction, sitting at
 * BLOCK_OFFSET of message M: on success fill f->leak, prove it by
 * recomputing, and return 1.
 */
static errcode_t try_leak(struct diag *dg, struct diag_finding *f, const struct msg *m, unsigned bi,
			  uint64_t block_offset, uint32_t computed, int *found)
{
	const struct jbd_scan_txn *t = &dg->s->txns[f->txn];
	struct fs_block_info info;
	struct versions v;
	unsigned char *logged = NULL;
	uint64_t bits[JBD_LEAK_MAX_BITS];
	uint32_t crc;
	errcode_t err;

	*found = 0;
	if (!dg->dec || fs_decode_lookup(dg->dec, t->blocks[bi].fs_block, &info) || !is_bitmap(&info))
		return 0;
	err = gather_versions(dg, f->txn, t->blocks[bi].fs_block, &v);
	if (err || !v.nlater)
		goto out;
	err = read_copy(dg, t->blocks[bi].jblk, &logged);
	if (err)
		goto out;
	if (!diag_leak_find(logged, v.before, (const unsigned char *const *)v.later, v.later_seq, v.nlater,
			   dg->j->blocksize, m->alg, msg_bytes(dg->j, m), block_offset,
			   m->stored ^ computed, m->mask, &f->leak))
		goto out;
	for (unsigned i = 0; i < f->leak.nbits; i++) {
		bits[i] = (block_offset + f->leak.bit[i] / 8) * 8 + (f->leak.bit[i] & 7);
		f->leak.object[i] = leak_object(dg->j->fs, &info, f->leak.bit[i]);
	}
	qsort(bits, f->leak.nbits, sizeof(bits[0]), util_cmp_u64);
	err = msg_crc(dg, m, bits, f->leak.nbits, &crc);
	if (err)
		goto out;
	if (((crc ^ m->stored) & m->mask) == 0) {
		*found = 1;
		f->leak.before_from_home = v.before_home;
		f->block = (int)bi;
		f->fs_block = t->blocks[bi].fs_block;
		f->info = info;
	} else {
		memset(&f->leak, 0, sizeof(f->leak));
	}
out:
	free(logged);
	versions_free(&v);
	return err;
}

/* The later transactions that set the leaked bits are all replayed (committed, checksum good). */
static int leak_benign(const struct diag *dg, const struct diag_finding *f)
{
	for (unsigned i = 0; i < f->leak.nbits; i++)
		for (unsigned k = 0; k < dg->s->nlive; k++) {
			const struct jbd_scan_txn *t = &dg->s->txns[k];
			if (t->sequence == f->leak.set_by[i] &&
			    (!t->committed || t->commit_csum.state == JBD_CSUM_BAD))
				return 0;
		}
	return 1;
}

/* 1 when every finding of transaction TXN is resolved: a benign leak or a proven correction. */
static int txn_resolved(const struct diag *dg, unsigned txn)
{
	int any = 0;

	for (unsigned i = 0; i < dg->d->nfindings; i++) {
		const struct diag_finding *g = &dg->d->findings[i];
		if (g->txn != txn)
			continue;
		if (g->action != JBD_AUTO_REPLAY_AS_IS_BENIGN_LEAK && g->action != JBD_AUTO_REPLAY_CORRECTED)
			return 0;
		any = 1;
	}
	return any;
}

/* A setter of leaked bits that is committed and sound, or whose own failures are all resolved. */
static int setter_ok(const struct diag *dg, uint32_t seq)
{
	for (unsigned k = 0; k < dg->s->nlive; k++) {
		const struct jbd_scan_txn *t = &dg->s->txns[k];
		if (t->sequence != seq)
			continue;
		if (!t->committed)
			return 0;
		return t->commit_csum.state != JBD_CSUM_BAD || txn_resolved(dg, k);
	}
	return 0;
}

/*
 * The 2012 bug leaks into transaction after transaction: each one's extra
 * bits are set by the next, whose own commit fails for the same reason, up to
 * the last one, which is sound. Walk back from the end: a leak is benign when
 * every transaction that sets its bits is sound or itself only benignly
 * leaked into. Bounded: each round settles at least one finding or stops.
 */
static void resolve_leak_chains(struct diag *dg)
{
	for (unsigned round = 0; round <= dg->d->nfindings; round++) {
		int changed = 0;

		for (unsigned i = dg->d->nfindings; i-- > 0;) {
			struct diag_finding *f = &dg->d->findings[i];
			int ok = f->leak.nbits > 0;

			if (f->cause != JBD_CAUSE_UNJOURNALED || f->action != JBD_AUTO_STOP)
				continue;
			for (unsigned b = 0; ok && b < f->leak.nbits; b++)
				ok = setter_ok(dg, f->leak.set_by[b]);
			if (ok) {
				f->action = JBD_AUTO_REPLAY_AS_IS_BENIGN_LEAK;
				changed = 1;
			}
		}
		if (!changed)
			break;
	}
}

/* ---- deciding ---- */

/*
 * A located flip in a descriptor's tags changed what the scan parsed: the
 * replay cannot use it. Returns JBD_STOP_NONE when the correction is safe,
 * else why not.
 */
static enum diag_stop_reason correction_unsafe(struct diag *dg, const struct diag_finding *f)
{
	const struct jbd_scan_txn *t = &dg->s->txns[f->txn];
	const struct diag_candidate *c = &f->cand[0];

	for (unsigned i = 0; i < c->nflips; i++) {
		if (c->flip[i].place == JBD_FLIP_SEQUENCE)
			return JBD_STOP_FLIP_IN_SEQUENCE;
		if (c->flip[i].place != JBD_FLIP_CONTENT)
			continue;
		for (unsigned d = 0; d < t->ndescs; d++)
			if (t->descs[d].jblk == c->flip[i].jblk &&
			    c->flip[i].byte < JBD_HEADER_SIZE + (t->descs[d].ntags + 1) * dg->j->tag_bytes +
					      JBD_UUID_SIZE)
				return JBD_STOP_FLIP_IN_TAGS;
	}
	return JBD_STOP_NONE;
}

/* Flips of the proven fit in more than one journal block (keep_correction then stops). */
static int flips_span_blocks(const struct diag_finding *f)
{
	const struct diag_candidate *c = &f->cand[0];
	uint32_t jblk = 0;
	int have = 0;

	for (unsigned i = 0; i < c->nflips; i++) {
		if (c->flip[i].place != JBD_FLIP_CONTENT)
			continue;
		if (have && c->flip[i].jblk != jblk)
			return 1;
		jblk = c->flip[i].jblk;
		have = 1;
	}
	return 0;
}

/* Why auto stops at F, from what the tests above found (once every action is final). */
static enum diag_stop_reason stop_reason(struct diag *dg, const struct diag_finding *f)
{
	enum diag_stop_reason r;

	if (f->action != JBD_AUTO_STOP)
		return JBD_STOP_NONE;
	switch (f->cause) {
	case JBD_CAUSE_STALE:		return JBD_STOP_STALE;
	case JBD_CAUSE_TORN_COMMIT:	return JBD_STOP_TORN;
	case JBD_CAUSE_UNJOURNALED:	return JBD_STOP_LEAK_UNSOUND;
	case JBD_CAUSE_UNEXPLAINED:	return JBD_STOP_UNEXPLAINED;
	case JBD_CAUSE_FILLED:
	case JBD_CAUSE_MISDIRECTED:
	case JBD_CAUSE_TORN_WRITE:	return JBD_STOP_OVERWRITTEN;
	case JBD_CAUSE_REVOKE_COUNT:
	case JBD_CAUSE_DESCRIPTOR_TAGS:
	case JBD_CAUSE_COMMIT_HEADER:	return JBD_STOP_STRUCTURE;
	case JBD_CAUSE_BIT_FLIP:	break;
	}
	if (!f->proven || f->chance >= AUTO_MAX_CHANCE || !f->ncand)
		return JBD_STOP_NOT_PROVEN;
	r = correction_unsafe(dg, f);
	if (r != JBD_STOP_NONE)
		return r;
	return flips_span_blocks(f) ? JBD_STOP_FLIP_SPANS_BLOCKS : JBD_STOP_NOT_PROVEN;
}

static void decide_flip(struct diag *dg, struct diag_finding *f)
{
	f->cause = JBD_CAUSE_BIT_FLIP;
	if (f->proven && f->chance < AUTO_MAX_CHANCE && correction_unsafe(dg, f) == JBD_STOP_NONE)
		f->action = JBD_AUTO_REPLAY_CORRECTED;
	else
		f->action = JBD_AUTO_STOP;
}

/* Another cause explains the mismatch: the search's fits are not offered as flipped bits. */
static void not_flips(struct diag_finding *f)
{
	f->ncand = 0;
	f->proven = 0;
	f->weight = 0;
	f->nfits = 0;
	f->burst = 0;
	f->chance = 0;
}

/* An overwrite or structural cause is final: nothing the search may find can be the intended content. */
static void overwritten(struct diag_finding *f, enum diag_cause cause)
{
	f->cause = cause;
	f->action = JBD_AUTO_STOP;
	not_flips(f);
}

/*
 * Tested before any flip search: a stored checksum all ones or all zeros
 * (overwritten, not flipped: a fit of many bits that happens to explain it
 * is chance, and no writer stores a checksum a flip away from either).
 * Sets *FOUND when it is the cause.
 */
static void filled_tests(struct diag_finding *f, uint32_t mask, int *found)
{
	*found = diag_fill_value(f->csum.stored, mask, &f->fill_byte);
	if (*found) {
		f->fill_field = JBD_FILL_STORED_CSUM;
		overwritten(f, JBD_CAUSE_FILLED);
	}
}

/* A single flipped bit, proven and unlikely by chance: the one fit that beats an overwrite. */
static int light_proof(const struct diag_finding *f)
{
	return f->proven && f->weight == 1 && f->chance < AUTO_MAX_CHANCE;
}

/*
 * After the search, unless it proved a single flip or found the block
 * stale: a block all ones or all zeros (a legitimate block may be all
 * zeros, an empty inode table block, and a flip in its stored checksum is
 * then what the proof finds); a block equal to
 * another block (misdirected or stale), or the intended content (a version
 * whose content makes its checksum match) up to a sector boundary. Either
 * is evidence against flips; the single proven flip goes first because
 * blocks of equal content are logged legitimately (a stored checksum
 * flipped in one of them is not a misdirected write). BI is the logged
 * block (-1 for the other objects; torn writes are looked for in logged
 * blocks only). Sets *FOUND when one of them is the cause.
 */
static errcode_t overwrite_tests(struct diag *dg, struct diag_finding *f, int bi, int *found)
{
	struct jbd_journal *j = dg->j;
	uint8_t byte;
	int hit = 0;
	errcode_t err;

	*found = 0;
	/* a single proven flip, or a checksum that matches an earlier use of the log, explains it better */
	if (light_proof(f) || f->time_backwards || f->uuid_mismatch || f->has_stale_sequence)
		return 0;
	if ((err = jbd_journal_read(j, f->jblk, 1, dg->buf)))
		return err;
	if (diag_fill_block(dg->buf, j->blocksize, &byte)) {
		f->fill_field = JBD_FILL_BLOCK;
		f->fill_byte = byte;
		overwritten(f, JBD_CAUSE_FILLED);
		*found = 1;
		return 0;
	}
	err = diag_match_find(j, dg->s, &dg->hashes, f->txn, bi, f->jblk, dg->buf, &f->match, &hit);
	if (err)
		return err;
	if (hit) {
		overwritten(f, JBD_CAUSE_MISDIRECTED);
		*found = 1;
		return 0;
	}
	if (bi < 0)
		return 0;
	err = diag_torn_find(j, dg->s, f->txn, (unsigned)bi, dg->buf, f, &hit);
	if (!err && hit) {
		overwritten(f, JBD_CAUSE_TORN_WRITE);
		*found = 1;
	}
	return err;
}

/*
 * The order of the tests: a leak explains the mismatch exactly with bits a
 * later transaction sets; positive evidence of staleness or a torn commit
 * comes before a light fit (random damage gets a weight-2 fit in a 4 KiB
 * block one time in eight); then the fit; then nothing.
 */
static void decide(struct diag *dg, struct diag_finding *f, int leak)
{
	const struct jbd_scan_txn *t = &dg->s->txns[f->txn];

	f->last_commit = last_commit(dg->s, f->txn);
	f->bad_tags = bad_tags(t);
	if (f->cause != JBD_CAUSE_UNEXPLAINED)
		return;	/* an overwrite or a structural fault, found before any search (overwritten) */
	if (leak) {
		f->cause = JBD_CAUSE_UNJOURNALED;
		f->action = leak_benign(dg, f) ? JBD_AUTO_REPLAY_AS_IS_BENIGN_LEAK : JBD_AUTO_STOP;
		return;
	}
	if (f->proven && f->weight == 1 && f->chance < AUTO_MAX_CHANCE) {
		decide_flip(dg, f);
		return;
	}
	if (f->time_backwards || f->uuid_mismatch || f->has_stale_sequence) {
		f->cause = JBD_CAUSE_STALE;
		f->problem = !t->committed || f->time_backwards ? 0 : 1;
		return;
	}
	/*
	 * A torn commit and a heavier fit: one cause, not both. The partial
	 * test holds for any damage past the header (jbd2 leaves those bytes
	 * zero), so it cannot tell a tear from flips there; a weight-1 proven
	 * fit was taken above, as it always was. A heavier fit is the kind that
	 * turns up by chance, so the torn commit wins, auto stops as it did,
	 * and the fit is not offered as flips.
	 */
	if (f->partial_commit || (f->async_commit && f->last_commit && !flips_found(f))) {
		f->cause = JBD_CAUSE_TORN_COMMIT;
		not_flips(f);
		return;
	}
	if (flips_found(f))
		decide_flip(dg, f);
}

/* ---- the objects ---- */

/* Where block BI's tag keeps its checksum: the scan recorded where its tag is. */
static void stored_place(const struct diag *dg, const struct jbd_scan_block *b, struct msg *m)
{
	m->stored_jblk = b->desc_jblk;
	m->stored_off = b->tag_off + jbd_tag_csum_offset(dg->j->incompat);
	m->stored_len = jbd_tag_csum_size(dg->j->incompat);
}

static errcode_t diag_data(struct diag *dg, unsigned ti, unsigned bi)
{
	struct jbd_journal *j = dg->j;
	const struct jbd_scan_txn *t = &dg->s->txns[ti];
	const struct jbd_scan_block *b = &t->blocks[bi];
	struct diag_finding *f;
	uint32_t jblk = b->jblk, seq = jbd_to_be32(t->sequence), full;
	struct msg m = { 0 };
	int leak = 0, found = 0;
	errcode_t err;

	err = new_finding(dg, JBD_OBJ_DATA, ti, (int)bi, b->jblk, &b->csum, &f);
	if (err)
		return err;
	f->csum_bits = j->csum == JBD_CSUM_V3 ? 32 : 16;
	if (dg->dec)
		fs_decode_lookup(dg->dec, b->fs_block, &f->info);
	filled_tests(f, j->csum == JBD_CSUM_V3 ? 0xFFFFFFFFU : 0xFFFFU, &found);
	if (found) {
		decide(dg, f, 0);
		return 0;
	}
	m.alg = CRC_ALG_CRC32C;
	m.init = j->csum_seed;
	m.prefix = 4;
	memcpy(m.prefix_bytes, &seq, 4);
	m.prefix_jblk = b->desc_jblk;
	m.jblks = &jblk;
	m.nblocks = 1;
	m.stored = b->csum.stored;
	m.mask = j->csum == JBD_CSUM_V3 ? 0xFFFFFFFFU : 0xFFFFU;
	stored_place(dg, b, &m);
	err = msg_crc(dg, &m, NULL, 0, &full);
	if (err)
		return err;
	err = search_flips(dg, f, &m, full);
	if (!err)
		err = try_leak(dg, f, &m, bi, 4, full, &leak);
	if (err)
		return err;
	txn_stale_evidence(dg, f);
	f->uuid_mismatch = desc_uuid_mismatch(dg, &t->descs[b->desc]);
	tag_stale_sequence(dg, f, full);
	if (!leak && (err = overwrite_tests(dg, f, (int)bi, &found)))
		return err;
	decide(dg, f, leak);
	if (f->action == JBD_AUTO_REPLAY_CORRECTED)
		err = keep_correction(dg, f);
	return err;
}

/* One v2/v3 block checksummed whole, with its own 4-byte checksum at HOLE_OFF counted as zero. */
static void hole_msg(const struct jbd_journal *j, struct msg *m, uint32_t *jblk, unsigned hole_off,
		     uint32_t stored)
{
	memset(m, 0, sizeof(*m));
	m->alg = CRC_ALG_CRC32C;
	m->init = j->csum_seed;
	m->jblks = jblk;
	m->nblocks = 1;
	m->hole_off = hole_off;
	m->hole_len = 4;
	m->stored = stored;
	m->mask = 0xFFFFFFFFU;
	m->stored_jblk = *jblk;
	m->stored_off = hole_off;
	m->stored_len = 4;
}

/* A v2/v3 descriptor or revoke tail: the whole block with the tail counted as zero. */
static errcode_t diag_tail(struct diag *dg, unsigned ti, enum diag_object obj, unsigned index,
			   uint32_t jblk, const struct jbd_csum *cs)
{
	struct diag_finding *f;
	struct msg m = { 0 };
	int found;
	errcode_t err;

	err = new_finding(dg, obj, ti, -1, jblk, cs, &f);
	if (err)
		return err;
	filled_tests(f, 0xFFFFFFFFU, &found);
	if (found) {
		decide(dg, f, 0);
		return 0;
	}
	hole_msg(dg->j, &m, &jblk, dg->j->blocksize - JBD_TAIL_SIZE + offsetof(struct jbd_block_tail, t_checksum),
		 cs->stored);
	err = search_flips(dg, f, &m, cs->computed);
	if (err)
		return err;
	txn_stale_evidence(dg, f);
	if (obj == JBD_OBJ_DESCRIPTOR)
		f->uuid_mismatch = desc_uuid_mismatch(dg, &dg->s->txns[ti].descs[index]);
	if ((err = overwrite_tests(dg, f, -1, &found)))
		return err;
	decide(dg, f, 0);
	if (f->action == JBD_AUTO_REPLAY_CORRECTED)
		err = keep_correction(dg, f);
	return err;
}

/* A v2/v3 commit block: the whole block with h_chksum[0] counted as zero. */
static errcode_t diag_commit(struct diag *dg, unsigned ti)
{
	const struct jbd_scan_txn *t = &dg->s->txns[ti];
	uint32_t jblk = t->commit_jblk;
	struct diag_finding *f;
	struct msg m = { 0 };
	int found = 0;
	errcode_t err;

	err = new_finding(dg, JBD_OBJ_COMMIT, ti, -1, jblk, &t->commit_csum, &f);
	if (err)
		return err;
	/*
	 * A commit block cannot hold another block's content and still be read
	 * as this transaction's commit; its tear is the partial test below. A
	 * commit whose time went backwards is where an older log begins (the
	 * normal end of this one): whatever its header holds, it is stale.
	 */
	txn_stale_evidence(dg, f);
	if (!f->time_backwards)
		filled_tests(f, 0xFFFFFFFFU, &found);
	if (!found && !f->time_backwards && (t->commit_sec == UINT64_MAX || t->commit_nsec == UINT32_MAX)) {
		/* no clock gives either; nanoseconds stay below 10^9 */
		f->fill_field = JBD_FILL_COMMIT_TIME;
		f->fill_byte = 0xff;
		overwritten(f, JBD_CAUSE_FILLED);
		found = 1;
	}
	if (found) {
		decide(dg, f, 0);
		return 0;
	}
	if (t->commit_header_bad && !f->time_backwards) {
		diag_commit_header(t, f);
		overwritten(f, JBD_CAUSE_COMMIT_HEADER);
		decide(dg, f, 0);
		return 0;
	}
	hole_msg(dg->j, &m, &jblk, COMMIT_CSUM_OFFSET, t->commit_csum.stored);
	err = search_flips(dg, f, &m, t->commit_csum.computed);
	if (err)
		return err;
	f->partial_commit = partial_commit(dg, t);
	decide(dg, f, 0);
	return 0;
}

/* v1's message: each descriptor, then the blocks it tags, in log order. */
static errcode_t v1_layout(const struct jbd_scan_txn *t, uint32_t **out, unsigned *n)
{
	uint32_t *jb = malloc((t->ndescs + t->nblocks + 1) * sizeof(*jb));
	unsigned k = 0;

	if (!jb)
		return EXT2_ET_NO_MEMORY;
	for (unsigned d = 0; d < t->ndescs; d++) {
		jb[k++] = t->descs[d].jblk;
		for (unsigned b = 0; b < t->nblocks; b++)
			if (t->blocks[b].desc_jblk == t->descs[d].jblk)
				jb[k++] = t->blocks[b].jblk;
	}
	*out = jb;
	*n = k;
	return 0;
}

/* Index in the v1 message of block BI of T. */
static unsigned v1_index(const struct msg *m, const struct jbd_scan_block *b)
{
	for (unsigned i = 0; i < m->nblocks; i++)
		if (m->jblks[i] == b->jblk)
			return i;
	return 0;
}

/* v1 with a checksum that matches but a commit header that does not say crc32/4. */
static int v1_header_flip(struct diag *dg, struct diag_finding *f, const struct jbd_scan_txn *t)
{
	uint8_t dt = t->commit_csum_type ^ JBD_CRC32_CHKSUM, ds = t->commit_csum_size ^ JBD_CRC32_CHKSUM_SIZE;
	struct diag_candidate *c = &f->cand[0];

	if (t->commit_csum.stored != t->commit_csum.computed ||
	    __builtin_popcount(dt) + __builtin_popcount(ds) > 2)
		return 0;
	memset(c, 0, sizeof(*c));
	for (unsigned b = 0; b < 8; b++) {
		if (dt & (1U << b))
			c->flip[c->nflips++] = (struct diag_flip){ t->commit_jblk, COMMIT_TYPE_OFFSET, (uint8_t)b,
								  JBD_FLIP_CONTENT };
		if (ds & (1U << b))
			c->flip[c->nflips++] = (struct diag_flip){ t->commit_jblk, COMMIT_SIZE_OFFSET, (uint8_t)b,
								  JBD_FLIP_CONTENT };
	}
	c->weight = c->nflips;
	c->verified = 1;
	f->ncand = 1;
	f->nfits = 1;
	f->weight = c->weight;
	f->proven = 1;
	f->searched = CRC_SEARCHED_1 | CRC_SEARCHED_2;
	return 1;
}

/* v1: the failing object is the transaction; name the data block the located flips are in. */
static void name_located_block(struct diag *dg, struct diag_finding *f, const struct jbd_scan_txn *t)
{
	const struct diag_candidate *c = &f->cand[0];

	if (f->block >= 0 || !f->ncand || !c->nflips || c->flip[0].place != JBD_FLIP_CONTENT)
		return;
	for (unsigned i = 1; i < c->nflips; i++)
		if (c->flip[i].place != JBD_FLIP_CONTENT || c->flip[i].jblk != c->flip[0].jblk)
			return;
	for (unsigned b = 0; b < t->nblocks; b++)
		if (t->blocks[b].jblk == c->flip[0].jblk) {
			f->block = (int)b;
			f->fs_block = t->blocks[b].fs_block;
			if (dg->dec)
				fs_decode_lookup(dg->dec, f->fs_block, &f->info);
		}
}

static errcode_t diag_v1(struct diag *dg, unsigned ti)
{
	const struct jbd_scan_txn *t = &dg->s->txns[ti];
	struct diag_finding *f;
	struct msg m = { 0 };
	int leak = 0;
	errcode_t err;

	err = new_finding(dg, JBD_OBJ_TRANSACTION, ti, -1, t->commit_jblk, &t->commit_csum, &f);
	if (err)
		return err;
	if (v1_header_flip(dg, f, t)) {
		decide(dg, f, 0);
		return 0;
	}
	txn_stale_evidence(dg, f);
	if (!f->time_backwards &&
	    (t->commit_header_bad || diag_fill_value(f->csum.stored, 0xFFFFFFFFU, &f->fill_byte))) {
		if (t->commit_header_bad) {
			/* the header is what is at fault, not the checksum over the transaction */
			f->object = JBD_OBJ_COMMIT;
			diag_commit_header(t, f);
			overwritten(f, JBD_CAUSE_COMMIT_HEADER);
		} else {
			f->fill_field = JBD_FILL_STORED_CSUM;
			overwritten(f, JBD_CAUSE_FILLED);
		}
		decide(dg, f, 0);
		return 0;
	}
	err = v1_layout(t, &m.jblks, &m.nblocks);
	if (err)
		return err;
	m.alg = CRC_ALG_CRC32_BE;
	m.init = ~0U;
	m.stored = t->commit_csum.stored;
	m.mask = 0xFFFFFFFFU;
	m.stored_jblk = t->commit_jblk;
	m.stored_off = COMMIT_CSUM_OFFSET;
	m.stored_len = 4;
	if (m.nblocks)
		err = search_flips(dg, f, &m, t->commit_csum.computed);
	for (unsigned b = 0; !err && !leak && b < t->nblocks && m.nblocks; b++)
		err = try_leak(dg, f, &m, b, (uint64_t)v1_index(&m, &t->blocks[b]) * dg->j->blocksize,
			       t->commit_csum.computed, &leak);
	if (!err) {
		decide(dg, f, leak);
		if (f->cause == JBD_CAUSE_BIT_FLIP)
			name_located_block(dg, f, t);
		if (f->action == JBD_AUTO_REPLAY_CORRECTED)
			err = keep_correction(dg, f);
	}
	free(m.jblks);
	return err;
}

/* ---- faults of the log's structure ---- */

/* A finding for a structural fault: no checksum of its own to explain (CS as the scan found it). */
static errcode_t structure_finding(struct diag *dg, enum diag_object obj, unsigned ti, uint32_t jblk,
				   const struct jbd_csum *cs, struct diag_finding **out)
{
	const struct jbd_scan_txn *t = &dg->s->txns[ti];
	errcode_t err = new_finding(dg, obj, ti, -1, jblk, cs, out);

	if (err)
		return err;
	/*
	 * A fault of the structure is no checksum failure auto is asked about:
	 * a transaction that committed, before the point where the stop policy
	 * ends (auto replays at least that far) of a log e2fsck recovers, is
	 * replayed as found; of the rest auto replays nothing for this fault.
	 */
	(*out)->action = t->committed && !dg->s->stop_error && jbd_tid_lt(t->sequence, dg->s->stop_end) ?
			 JBD_AUTO_REPLAY : JBD_AUTO_STOP;
	(*out)->last_commit = last_commit(dg->s, ti);
	(*out)->bad_tags = bad_tags(t);
	return 0;
}

/*
 * Every live transaction's structural faults, committed or not: each is
 * damage even where e2fsck passes over it. A commit header whose checksum
 * fails was explained with that failure (diag_commit, diag_v1).
 */
static errcode_t diag_structure(struct diag *dg, unsigned ti)
{
	const struct jbd_scan_txn *t = &dg->s->txns[ti];
	struct diag_finding *f;
	errcode_t err = 0;

	for (unsigned r = 0; !err && r < t->nrevokes; r++) {
		if (!t->revokes[r].count_bad)
			continue;
		err = structure_finding(dg, JBD_OBJ_REVOKE, ti, t->revokes[r].jblk, &t->revokes[r].tail, &f);
		if (!err)
			diag_revoke_count(dg->j, &t->revokes[r], f);
	}
	for (unsigned d = 0; !err && d < t->ndescs; d++) {
		if (!t->descs[d].no_last_tag)
			continue;
		err = structure_finding(dg, JBD_OBJ_DESCRIPTOR, ti, t->descs[d].jblk, &t->descs[d].tail, &f);
		if (!err)
			err = diag_descriptor_tags(dg->j, t, d, f);
	}
	if (!err && t->committed && t->commit_header_bad && !jbd_csum_bad(&t->commit_csum)) {
		err = structure_finding(dg, JBD_OBJ_COMMIT, ti, t->commit_jblk, &t->commit_csum, &f);
		if (!err)
			diag_commit_header(t, f);
	}
	return err;
}

/* ---- the whole log ---- */

/* Committed transactions, and the stale one the live log may end at. */
static int txn_diagnosed(const struct jbd_scan *s, unsigned ti)
{
	const struct jbd_scan_txn *t = &s->txns[ti];

	if (t->committed)
		return 1;
	return s->end_reason == JBD_END_STALE && ti + 1 == s->nlive && t->commit_jblk;
}

/*
 * The commit of the stale transaction the live log ends at is no failure
 * of the log (jbd_failures_next leaves it out), but the diagnosis explains
 * it: it is why the log ends there.
 */
static int stale_commit_bad(const struct jbd_scan_txn *t)
{
	return !t->committed && t->commit_jblk && jbd_csum_bad(&t->commit_csum);
}

/* Name what the failing transactions' blocks are (bitmaps matter for leaks). */
static errcode_t build_decoder(struct diag *dg)
{
	const struct jbd_scan *s = dg->s;
	errcode_t err = fs_decode_new(dg->j->fs, &dg->dec);

	if (err)
		return err;
	for (unsigned ti = 0; ti < s->nlive; ti++) {
		const struct jbd_scan_txn *t = &s->txns[ti];
		if (!txn_diagnosed(s, ti) ||
		    (!jbd_txn_failures(s, ti, JBD_FAILS_ALL) && !stale_commit_bad(t)))
			continue;
		for (unsigned b = 0; b < t->nblocks; b++) {
			err = fs_decode_want(dg->dec, t->blocks[b].fs_block);
			if (err)
				return err;
		}
	}
	return 0;
}

static errcode_t diag_txn(struct diag *dg, unsigned ti)
{
	const struct jbd_scan_txn *t = &dg->s->txns[ti];
	struct jbd_failure_iter it;
	struct jbd_failure f;
	errcode_t err = 0;

	if (dg->j->csum == JBD_CSUM_V1)
		return t->commit_csum.state == JBD_CSUM_BAD ? diag_v1(dg, ti) : 0;
	jbd_failures_init(&it, dg->s, ti, JBD_FAILS_ALL);
	while (!err && jbd_failures_next(&it, &f)) {
		switch (f.kind) {
		case JBD_FAIL_DESC_TAIL:
			err = diag_tail(dg, ti, JBD_OBJ_DESCRIPTOR, f.index, f.jblk, f.csum);
			break;
		case JBD_FAIL_REVOKE_TAIL:
			err = diag_tail(dg, ti, JBD_OBJ_REVOKE, f.index, f.jblk, f.csum);
			break;
		case JBD_FAIL_BLOCK:
			err = diag_data(dg, ti, f.index);
			break;
		case JBD_FAIL_COMMIT:
			err = diag_commit(dg, ti);
			break;
		case JBD_FAIL_REVOKE_COUNT:
			/* No checksum to explain; a flipped count shows as its tail's failure. */
			break;
		}
	}
	if (!err && stale_commit_bad(t))
		err = diag_commit(dg, ti);
	return err;
}

errcode_t diag_journal(struct jbd_journal *j, const struct jbd_scan *s, struct diag_report **out)
{
	struct diag dg = { 0 };
	errcode_t err = 0;

	*out = NULL;
	dg.j = j;
	dg.s = s;
	dg.d = calloc(1, sizeof(*dg.d));
	dg.buf = malloc(j->blocksize);
	dg.chunk_blocks = MSG_CHUNK_BYTES / j->blocksize ? MSG_CHUNK_BYTES / j->blocksize : 1;
	dg.chunk = malloc((size_t)dg.chunk_blocks * j->blocksize);
	if (!dg.d || !dg.buf || !dg.chunk) {
		err = EXT2_ET_NO_MEMORY;
		goto out;
	}
	dg.d->ntxns = s->ntxns;
	err = diag_crc_cache_new(&dg.cache);
	if (err)
		goto out;
	if (j->csum == JBD_CSUM_V2 || j->csum == JBD_CSUM_V3)
		init_seq_syndromes(&dg);
	/*
	 * Without names for the blocks, everything but the leak test still
	 * works: an unreadable group table is no reason to stop. No memory is:
	 * the leak test's findings would go missing with nothing to say so.
	 */
	err = build_decoder(&dg);
	if (util_no_memory(err))
		goto out;
	if (err) {
		fs_decode_free(dg.dec);
		dg.dec = NULL;
		err = 0;
	}
	for (unsigned ti = 0; !err && ti < s->nlive; ti++)
		if (txn_diagnosed(s, ti))
			err = diag_txn(&dg, ti);
	for (unsigned ti = 0; !err && ti < s->nlive; ti++)
		err = diag_structure(&dg, ti);
	if (!err)
		resolve_leak_chains(&dg);
	for (unsigned i = 0; !err && i < dg.d->nfindings; i++) {
		struct diag_finding *f = &dg.d->findings[i];
		f->stop_reason = stop_reason(&dg, f);
		f->correction_proven = f->cause == JBD_CAUSE_BIT_FLIP && f->proven && f->chance < AUTO_MAX_CHANCE;
	}
	for (unsigned i = 0; i < dg.d->nfindings; i++)
		dg.d->problems += dg.d->findings[i].problem;
out:
	diag_crc_cache_free(dg.cache);
	diag_log_hashes_free(dg.hashes);
	fs_decode_free(dg.dec);
	free(dg.buf);
	free(dg.chunk);
	if (err) {
		diag_free(dg.d);
		return err;
	}
	*out = dg.d;
	return 0;
}

void diag_free(struct diag_report *d)
{
	if (!d)
		return;
	for (unsigned i = 0; i < d->nfindings; i++)
		free(d->findings[i].corrected);
	free(d->findings);
	free(d);
}

enum diag_action diag_txn_action(const struct diag_report *d, unsigned txn)
{
	enum diag_action a = JBD_AUTO_REPLAY;

	for (unsigned i = 0; i < d->nfindings; i++)
		if (d->findings[i].txn == txn && d->findings[i].action > a)
			a = d->findings[i].action;
	return a;
}

const unsigned char *diag_block(const struct diag_report *d, const struct jbd_scan *s,
					 unsigned txn, unsigned block)
{
	if (txn >= s->ntxns || block >= s->txns[txn].nblocks)
		return NULL;
	for (unsigned i = 0; i < d->nfindings; i++) {
		const struct diag_finding *f = &d->findings[i];
		if (f->txn == txn && f->corrected && f->action == JBD_AUTO_REPLAY_CORRECTED &&
		    f->corrected_jblk == s->txns[txn].blocks[block].jblk)
			return f->corrected;
	}
	return NULL;
}

const char *diag_cause_name(enum diag_cause c)
{
	switch (c) {
	case JBD_CAUSE_BIT_FLIP:	return "bit_flip";
	case JBD_CAUSE_STALE:		return "stale";
	case JBD_CAUSE_TORN_COMMIT:	return "torn_commit";
	case JBD_CAUSE_UNJOURNALED:	return "unjournaled_modification";
	case JBD_CAUSE_UNEXPLAINED:	return "unexplained";
	case JBD_CAUSE_FILLED:		return "filled";
	case JBD_CAUSE_MISDIRECTED:	return "misdirected_write";
	case JBD_CAUSE_TORN_WRITE:	return "torn_write";
	case JBD_CAUSE_REVOKE_COUNT:	return "revoke_count";
	case JBD_CAUSE_DESCRIPTOR_TAGS:	return "descriptor_tags";
	case JBD_CAUSE_COMMIT_HEADER:	return "commit_header";
	}
	return "unknown";
}

const char *diag_object_name(enum diag_object o)
{
	switch (o) {
	case JBD_OBJ_DATA:		return "data";
	case JBD_OBJ_DESCRIPTOR:	return "descriptor";
	case JBD_OBJ_REVOKE:		return "revoke";
	case JBD_OBJ_COMMIT:		return "commit";
	case JBD_OBJ_TRANSACTION:	return "transaction";
	}
	return "unknown";
}

const char *diag_action_name(enum diag_action a)
{
	switch (a) {
	case JBD_AUTO_REPLAY:			return "replay";
	case JBD_AUTO_REPLAY_CORRECTED:		return "replay_corrected";
	case JBD_AUTO_REPLAY_AS_IS_BENIGN_LEAK:	return "replay_as_is_benign_leak";
	case JBD_AUTO_STOP:			return "stop";
	}
	return "unknown";
}

const char *diag_stop_reason_name(enum diag_stop_reason r)
{
	switch (r) {
	case JBD_STOP_NONE:			return "none";
	case JBD_STOP_UNEXPLAINED:		return "unexplained";
	case JBD_STOP_NOT_PROVEN:		return "flip_not_proven";
	case JBD_STOP_FLIP_IN_TAGS:		return "flip_in_descriptor_tags";
	case JBD_STOP_FLIP_IN_SEQUENCE:		return "flip_in_sequence";
	case JBD_STOP_FLIP_SPANS_BLOCKS:	return "flips_span_blocks";
	case JBD_STOP_STALE:			return "stale";
	case JBD_STOP_TORN:			return "torn_commit";
	case JBD_STOP_LEAK_UNSOUND:		return "leak_setter_not_replayed";
	case JBD_STOP_OVERWRITTEN:		return "overwritten";
	case JBD_STOP_STRUCTURE:		return "log_structure";
	}
	return "unknown";
}

const char *diag_flip_place_name(enum diag_flip_place p)
{
	switch (p) {
	case JBD_FLIP_CONTENT:	return "content";
	case JBD_FLIP_STORED:	return "stored_checksum";
	case JBD_FLIP_SEQUENCE:	return "sequence";
	}
	return "unknown";
}
