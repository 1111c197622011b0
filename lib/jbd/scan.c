/* Walking the journal log: transactions, their blocks and every checksum, as e2fsck's scan pass sees them. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jbd/scan.h"
#include "util/array.h"
#include "util/crc.h"
#include "util/e4r_err.h"
#include "util/nomem.h"

/*
 * Journal blocks read per I/O: the scan is sequential, so read big windows;
 * but most logs are short, so the window starts small and doubles while the
 * scan goes on reading (a short log costs no megabytes of reading and copying).
 */
#define SCAN_WINDOW_FIRST	16
#define SCAN_WINDOW_BLOCKS	1024
/*
 * And at most this many bytes: a bigger buffer is mapped afresh by malloc
 * on every scan (glibc's mmap threshold, and the sanitizers' allocator past
 * its pools), and its pages fault in one by one; a check that reads the whole
 * log (JBD_SCAN_OLD) paid that on every run. Reads of 128 KiB still stream.
 */
#define SCAN_WINDOW_BYTES	(128u << 10)

struct window {
	struct jbd_journal *j;
	uint32_t	start;		/* first journal block held */
	uint32_t	count;		/* blocks held */
	uint32_t	next;		/* blocks the next read asks for */
	uint32_t	cap;		/* blocks buf has room for */
	unsigned char	*buf;
};

static errcode_t window_get(struct window *w, uint32_t jblk, const unsigned char **out)
{
	errcode_t err;
	uint32_t n;

	if (jblk >= w->start && jblk < w->start + w->count) {
		*out = w->buf + (size_t)(jblk - w->start) * w->j->blocksize;
		return 0;
	}
	if (!w->next)
		w->next = SCAN_WINDOW_FIRST;
	else if (w->count && jblk == w->start + w->count && w->next < SCAN_WINDOW_BLOCKS)
		w->next *= 2;	/* read on where the last window ended: the scan goes on */
	n = w->next;
	if (n > SCAN_WINDOW_BYTES / w->j->blocksize)
		n = SCAN_WINDOW_BYTES > w->j->blocksize ? SCAN_WINDOW_BYTES / w->j->blocksize : 1;
	if (jblk + n > w->j->maxlen)
		n = w->j->maxlen - jblk;
	if (n > w->cap || !w->buf) {
		/*
		 * A fresh buffer, not realloc: the read below fills it, so
		 * copying the old window across would be wasted.
		 */
		uint32_t room = n > 1 ? n : 1;

		free(w->buf);
		w->count = 0;
		w->cap = 0;
		if (!(w->buf = malloc((size_t)room * w->j->blocksize)))
			return EXT2_ET_NO_MEMORY;
		w->cap = room;
	}
	err = jbd_journal_read(w->j, jblk, n, w->buf);
	if (err) {
		/* Fall back to the one block, so one bad sector does not hide the rest. */
		w->count = 0;
		err = jbd_journal_read(w->j, jblk, 1, w->buf);
		if (err)
			return err;
		n = 1;
	}
	w->start = jblk;
	w->count = n;
	*out = w->buf;
	return 0;
}

/*
 * Growable arrays: every object the scan records is bounded by the log's
 * length. They start at 8, not 64: each transaction has arrays of its own
 * (descriptors, blocks, revoke blocks and records), most of them short, and
 * a log holds thousands of transactions.
 */
#define SCAN_FIRST_CAP	8

static errcode_t grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	return util_grow_from(arr, cap, need, elem, SCAN_FIRST_CAP);
}

/*
 * A transaction's revoke records at their exact size, once it is read: a
 * journal of millions of records would otherwise keep up to twice their memory.
 */
static void fit_revoked(struct jbd_scan_txn *t, size_t *cap)
{
	void *p;

	if (!t->nrevoked || (cap && *cap == t->nrevoked))
		return;
	p = realloc(t->revoked, (size_t)t->nrevoked * sizeof(*t->revoked));
	if (!p)
		return;
	t->revoked = p;
	if (cap)
		*cap = t->nrevoked;
}

struct txn_caps {
	size_t descs, blocks, revokes, revoked;
};

struct scanner {
	struct jbd_journal	*j;
	struct jbd_scan		*s;
	struct window		w;
	size_t			txn_cap;
	struct txn_caps		*caps;		/* parallel to s->txns */
	unsigned		csum_size;	/* tail bytes in descriptor/revoke blocks */
	uint32_t		walked;		/* blocks visited, against loops */
	uint32_t		log_len;	/* blocks in the log area */
	int			old;		/* in scan_old: its own progress, by its budget */
};

/* The header every non-data journal block starts with, in host order. */
struct header {
	uint32_t	magic, type, sequence;
};

static void read_header(const unsigned char *blk, struct header *h)
{
	struct jbd_header d;

	jbd_load(&d, blk);
	h->magic = jbd_be32(d.h_magic);
	h->type = jbd_be32(d.h_blocktype);
	h->sequence = jbd_be32(d.h_sequence);
}

static int has_v1(const struct jbd_journal *j)
{
	return j->csum == JBD_CSUM_V1;
}

static int has_v23(const struct jbd_journal *j)
{
	return j->csum == JBD_CSUM_V2 || j->csum == JBD_CSUM_V3;
}

/* crc32c(seed, block) with the 4 bytes at OFF counted as zero. */
static uint32_t csum_with_hole(const struct jbd_journal *j, const unsigned char *blk, unsigned off)
{
	static const unsigned char zero[sizeof(jbd_be32_t)];
	uint32_t c = util_crc32c(j->csum_seed, blk, off);

	c = util_crc32c(c, zero, sizeof(zero));
	return util_crc32c(c, blk + off + sizeof(zero), j->blocksize - off - sizeof(zero));
}

static void tail_csum(const struct jbd_journal *j, const unsigned char *blk, struct jbd_csum *c)
{
	struct jbd_block_tail tail;
	unsigned off = j->blocksize - sizeof(tail);

	if (!has_v23(j)) {
		c->state = JBD_CSUM_NA;
		return;
	}
	jbd_load(&tail, blk + off);
	c->stored = jbd_be32(tail.t_checksum);
	c->computed = csum_with_hole(j, blk, off + offsetof(struct jbd_block_tail, t_checksum));
	c->state = c->stored == c->computed ? JBD_CSUM_OK : JBD_CSUM_BAD;
}

/*
 * The UUID after a descriptor's first tag, when that tag has one: a writer
 * names its journal there, so the diagnosis can tell a descriptor left by
 * another journal.
 */
static void first_uuid(const struct jbd_journal *j, const unsigned char *blk, struct jbd_scan_desc *d)
{
	struct jbd_tag tag;
	unsigned off = JBD_HEADER_SIZE;

	if (off + j->tag_bytes + JBD_UUID_SIZE > j->blocksize)
		return;
	jbd_tag_decode(blk + off, j->incompat, &tag);
	if (tag.flags & JBD_FLAG_SAME_UUID)
		return;
	d->has_uuid = 1;
	memcpy(d->uuid, blk + off + j->tag_bytes, JBD_UUID_SIZE);
}

static errcode_t new_txn(struct scanner *sc, uint32_t seq, uint32_t jblk, int old, struct jbd_scan_txn **out)
{
	struct jbd_scan *s = sc->s;
	size_t cap = sc->txn_cap;
	errcode_t err;

	if (s->ntxns)
		fit_revoked(&s->txns[s->ntxns - 1], &sc->caps[s->ntxns - 1].revoked);
	err = grow((void **)&s->txns, &sc->txn_cap, s->ntxns + 1, sizeof(*s->txns));
	if (err)
		return err;
	if (sc->txn_cap != cap) {
		size_t ccap = cap;
		err = grow((void **)&sc->caps, &ccap, sc->txn_cap, sizeof(*sc->caps));
		if (err)
			return err;
	}
	*out = &s->txns[s->ntxns++];
	(*out)->sequence = seq;
	(*out)->first_jblk = jblk;
	(*out)->old = old;
	(*out)->commit_csum.state = JBD_CSUM_NA;
	return 0;
}

/*
 * Parse the descriptor at JBLK (already in BLK) into T, its data blocks
 * following from *next. Returns the number of tags; *next moves past them.
 * v1: *crc is continued over the descriptor and the data blocks.
 */
static errcode_t parse_descriptor(struct scanner *sc, struct jbd_scan_txn *t, struct txn_caps *caps,
				  uint32_t jblk, const unsigned char *blk, uint32_t *next, uint32_t *crc)
{
	struct jbd_journal *j = sc->j;
	struct jbd_scan_desc *d;
	unsigned char *copy;
	unsigned off = JBD_HEADER_SIZE, limit = j->blocksize - sc->csum_size;
	errcode_t err;

	err = grow((void **)&t->descs, &caps->descs, t->ndescs + 1, sizeof(*t->descs));
	if (err)
		return err;
	d = &t->descs[t->ndescs++];
	d->jblk = jblk;
	tail_csum(j, blk, &d->tail);
	first_uuid(j, blk, d);

	/* The window may move while data blocks are read: work on a copy. */
	copy = malloc(j->blocksize);
	if (!copy)
		return EXT2_ET_NO_MEMORY;
	memcpy(copy, blk, j->blocksize);
	if (has_v1(j))
		*crc = util_crc32_be(*crc, copy, j->blocksize);

	while (off + j->tag_bytes <= limit) {
		const unsigned char *data;
		struct jbd_scan_block *b;
		struct jbd_tag tag;

		jbd_tag_decode(copy + off, j->incompat, &tag);
		err = grow((void **)&t->blocks, &caps->blocks, t->nblocks + 1, sizeof(*t->blocks));
		if (err)
			goto out;
		b = &t->blocks[t->nblocks++];
		b->fs_block = tag.blocknr;
		b->jblk = *next;
		b->desc_jblk = jblk;
		b->desc = t->ndescs - 1;
		b->tag_off = off;
		b->flags = tag.flags;
		b->csum.state = JBD_CSUM_NA;
		d->ntags++;

		if (has_v1(j) || has_v23(j)) {
			err = window_get(&sc->w, *next, &data);
			if (err)
				goto out;
			if (has_v1(j))
				*crc = util_crc32_be(*crc, data, j->blocksize);
			if (has_v23(j)) {
				jbd_be32_t seq = jbd_to_be32(t->sequence);
				uint32_t c = util_crc32c(j->csum_seed, &seq, sizeof(seq));

				c = util_crc32c(c, data, j->blocksize);
				b->csum.stored = tag.checksum;
				/* v2 keeps the low 16 bits of the crc32c. */
				b->csum.computed = j->csum == JBD_CSUM_V3 ? c : c & 0xFFFF;
				b->csum.state = b->csum.stored == b->csum.computed ? JBD_CSUM_OK : JBD_CSUM_BAD;
			}
		}
		*next = jbd_log_next(j, *next);
		sc->walked++;
		if (!sc->old)
			jbd_progress(j, JBD_PROGRESS_SCAN, sc->walked, sc->log_len);

		off += j->tag_bytes;
		if (!(tag.flags & JBD_FLAG_SAME_UUID))
			off += JBD_UUID_SIZE;
		if (tag.flags & JBD_FLAG_LAST_TAG)
			break;
	}
	/* jbd2 marks the last tag of every descriptor it writes, a full one too */
	if (!err && (!d->ntags || !(t->blocks[t->nblocks - 1].flags & JBD_FLAG_LAST_TAG)))
		d->no_last_tag = 1;
out:
	free(copy);
	return err;
}

static errcode_t parse_revoke(struct scanner *sc, struct jbd_scan_txn *t, struct txn_caps *caps,
			      uint32_t jblk, const unsigned char *blk)
{
	struct jbd_journal *j = sc->j;
	struct jbd_scan_revoke *r;
	unsigned rec = (j->incompat & JBD_FEATURE_INCOMPAT_64BIT) ? 8 : 4;
	struct jbd_revoke_header h;
	unsigned off, end;
	errcode_t err;

	err = grow((void **)&t->revokes, &caps->revokes, t->nrevokes + 1, sizeof(*t->revokes));
	if (err)
		return err;
	r = &t->revokes[t->nrevokes++];
	r->jblk = jblk;
	jbd_load(&h, blk);
	r->r_count = jbd_be32(h.r_count);
	tail_csum(j, blk, &r->tail);
	r->first = t->nrevoked;
	end = r->r_count;
	if (end > j->blocksize - sc->csum_size) {
		/* e2fsck refuses the whole recovery; record it and read nothing. */
		r->count_bad = 1;
		return 0;
	}
	for (off = sizeof(h); off + rec <= end; off += rec) {
		jbd_be64_t r64;
		jbd_be32_t r32;

		err = grow((void **)&t->revoked, &caps->revoked, t->nrevoked + 1, sizeof(*t->revoked));
		if (err)
			return err;
		if (rec == sizeof(r64)) {
			jbd_load(&r64, blk + off);
			t->revoked[t->nrevoked++] = jbd_be64(r64);
		} else {
			jbd_load(&r32, blk + off);
			t->revoked[t->nrevoked++] = jbd_be32(r32);
		}
		r->count++;
	}
	return 0;
}

static void commit_info(struct jbd_journal *j, struct jbd_scan_txn *t, uint32_t jblk,
			const unsigned char *blk, uint32_t v1crc)
{
	struct jbd_commit_header c;

	jbd_load(&c, blk);
	t->committed = 1;
	t->commit_jblk = jblk;
	t->commit_csum_type = c.h_chksum_type;
	t->commit_csum_size = c.h_chksum_size;
	t->commit_sec = jbd_be64(c.h_commit_sec);
	t->commit_nsec = jbd_be32(c.h_commit_nsec);
	if (has_v1(j))
		t->commit_header_bad = !(t->commit_csum_type == JBD_CRC32_CHKSUM &&
					 t->commit_csum_size == JBD_CRC32_CHKSUM_SIZE) &&
				       !(t->commit_csum_type == 0 && t->commit_csum_size == 0);
	else
		t->commit_header_bad = t->commit_csum_type != 0 || t->commit_csum_size != 0;
	if (has_v1(j)) {
		t->commit_csum.stored = jbd_be32(c.h_chksum[0]);
		t->commit_csum.computed = v1crc;
		/* A commit written without a checksum (type, size and sum 0) is accepted. */
		if ((t->commit_csum_type == JBD_CRC32_CHKSUM &&
		     t->commit_csum_size == JBD_CRC32_CHKSUM_SIZE &&
		     t->commit_csum.stored == v1crc) ||
		    (t->commit_csum_type == 0 && t->commit_csum_size == 0 &&
		     t->commit_csum.stored == 0))
			t->commit_csum.state = JBD_CSUM_OK;
		else
			t->commit_csum.state = JBD_CSUM_BAD;
	} else if (has_v23(j)) {
		t->commit_csum.stored = jbd_be32(c.h_chksum[0]);
		t->commit_csum.computed = csum_with_hole(j, blk, offsetof(struct jbd_commit_header, h_chksum));
		t->commit_csum.state = t->commit_csum.stored == t->commit_csum.computed ?
			JBD_CSUM_OK : JBD_CSUM_BAD;
	} else {
		t->commit_csum.state = JBD_CSUM_NA;
	}
}

/*
 * e2fsck's scan-pass decisions for one commit (its recovery.c, as
 * REFERENCE.md records it). Returns 1 when the live log ends at this
 * commit (stale data), 0 to go on. Sets *stop_walk when e2fsck stops
 * walking; we still walk on for the other policies.
 */
struct e2fsck_state {
	uint64_t	last_commit_time;
	int		need_check_commit_time;	/* a bad descriptor/revoke tail was seen */
	int		end_set;
	uint32_t	end_transaction;
	int		stopped;		/* e2fsck stopped walking */
};

static int e2fsck_commit(struct jbd_journal *j, struct jbd_scan *s, struct e2fsck_state *st,
			 const struct jbd_scan_txn *t)
{
	if (st->stopped)
		return 0;
	if (st->need_check_commit_time) {
		if (t->commit_sec >= st->last_commit_time) {
			/* "Journal checksum error found": recovery fails as a whole. */
			s->stop_error = E4R_SCAN_BAD_CSUM;
			st->stopped = 1;
			return 0;
		}
		return 1;	/* stale: the log ends here, successfully */
	}
	if (has_v1(j) && st->end_set) {
		/* v1 async: a commit after a bad one proves corruption. */
		s->failed_commit = st->end_transaction;
		s->has_failed_commit = 1;
		st->stopped = 1;
		return 0;
	}
	if (t->commit_csum.state == JBD_CSUM_BAD) {
		if (t->commit_sec < st->last_commit_time)
			return 1;
		st->end_set = 1;
		st->end_transaction = t->sequence;
		if (!(j->incompat & JBD_FEATURE_INCOMPAT_ASYNC_COMMIT)) {
			s->failed_commit = t->sequence;
			s->has_failed_commit = 1;
			st->stopped = 1;
			return 0;
		}
	}
	st->last_commit_time = t->commit_sec;
	return 0;
}

static errcode_t scan_live(struct scanner *sc)
{
	struct jbd_journal *j = sc->j;
	struct jbd_scan *s = sc->s;
	struct e2fsck_state st = { 0 };
	struct jbd_scan_txn *t = NULL;
	uint32_t next = j->start, seq = j->sequence, crc = ~0U;
	errcode_t err;

	for (;;) {
		const unsigned char *blk;
		struct header h;
		uint32_t jblk = next, type;

		if (sc->walked > sc->log_len) {
			s->end_reason = JBD_END_WRAPPED;
			break;
		}
		err = window_get(&sc->w, jblk, &blk);
		/* No memory for the window is no end of the log: the scan cannot go on, it ends the run */
		if (util_no_memory(err))
			return err;
		if (err) {
			s->end_reason = JBD_END_IO;
			s->end_error = err;
			break;
		}
		read_header(blk, &h);
		if (h.magic != JBD_MAGIC) {
			s->end_reason = JBD_END_NO_MAGIC;
			break;
		}
		if (h.sequence != seq) {
			s->end_reason = JBD_END_SEQUENCE;
			break;
		}
		type = h.type;
		if (type != JBD_DESCRIPTOR_BLOCK && type != JBD_COMMIT_BLOCK && type != JBD_REVOKE_BLOCK) {
			s->end_reason = JBD_END_UNKNOWN_TYPE;
			break;
		}
		if (!t) {
			err = new_txn(sc, seq, jblk, 0, &t);
			if (err)
				return err;
		}
		next = jbd_log_next(j, next);
		sc->walked++;
		jbd_progress(j, JBD_PROGRESS_SCAN, sc->walked, sc->log_len);

		if (type == JBD_DESCRIPTOR_BLOCK) {
			err = parse_descriptor(sc, t, &sc->caps[t - s->txns], jblk, blk, &next, &crc);
			if (util_no_memory(err))
				return err;
			if (err) {
				s->end_reason = JBD_END_IO;
				s->end_error = err;
				break;
			}
			if (t->descs[t->ndescs - 1].tail.state == JBD_CSUM_BAD && !st.stopped)
				st.need_check_commit_time = 1;
		} else if (type == JBD_REVOKE_BLOCK) {
			err = parse_revoke(sc, t, &sc->caps[t - s->txns], jblk, blk);
			if (err)
				return err;
			if (t->revokes[t->nrevokes - 1].tail.state == JBD_CSUM_BAD && !st.stopped)
				st.need_check_commit_time = 1;
		} else {
			commit_info(j, t, jblk, blk, crc);
			crc = ~0U;
			if (e2fsck_commit(j, s, &st, t)) {
				/* Stale: this commit and all after it belong to an older log. */
				t->committed = 0;
				s->end_reason = JBD_END_STALE;
				next = jblk;
				break;
			}
			t = NULL;
			seq++;
		}
	}
	s->end_jblk = next;
	s->end_sequence = seq;
	s->nlive = s->ntxns;
	s->stop_end = st.end_set ? st.end_transaction : seq;
	if (s->end_reason == JBD_END_STALE && !st.end_set)
		s->stop_end = seq;

	/* A bad revoke count in a transaction e2fsck replays fails its revoke pass. */
	if (!s->stop_error) {
		for (unsigned i = 0; i < s->nlive; i++) {
			const struct jbd_scan_txn *x = &s->txns[i];
			if ((int32_t)(x->sequence - s->stop_end) >= 0)
				break;
			for (unsigned r = 0; r < x->nrevokes; r++)
				if (x->revokes[r].count_bad)
					s->stop_error = E4R_SCAN_REVOKE_COUNT;
		}
	}
	return 0;
}

/*
 * Old transactions past the end: what an earlier lap of the log left. We
 * parse anything with the magic, taking each block's own sequence, until
 * we come back to where the live log started.
 */
static errcode_t scan_old(struct scanner *sc)
{
	struct jbd_journal *j = sc->j;
	struct jbd_scan *s = sc->s;
	struct jbd_scan_txn *t = NULL;
	uint32_t next = s->end_jblk, stop = j->start ? j->start : s->end_jblk, crc = ~0U;
	uint32_t budget = sc->log_len;
	errcode_t err;

	while (budget--) {
		const unsigned char *blk;
		struct header h;
		uint32_t jblk = next, type, seq;

		jbd_progress(j, JBD_PROGRESS_SCAN_OLD, sc->log_len - budget, sc->log_len);
		err = window_get(&sc->w, jblk, &blk);
		/* as in scan_live: an unreadable block ends the old log, no memory ends the run */
		if (util_no_memory(err))
			return err;
		if (err)
			break;
		next = jbd_log_next(j, next);
		read_header(blk, &h);
		if (h.magic != JBD_MAGIC)
			goto skip;
		type = h.type;
		seq = h.sequence;
		if (type != JBD_DESCRIPTOR_BLOCK && type != JBD_COMMIT_BLOCK && type != JBD_REVOKE_BLOCK)
			goto skip;
		if (!t || t->sequence != seq) {
			crc = ~0U;
			err = new_txn(sc, seq, jblk, 1, &t);
			if (err)
				return err;
		}
		if (type == JBD_DESCRIPTOR_BLOCK) {
			uint32_t before = next;
			err = parse_descriptor(sc, t, &sc->caps[t - s->txns], jblk, blk, &next, &crc);
			if (err)
				return err;
			/* Do not let the data blocks carry us past the live log's start twice. */
			uint32_t used = next >= before ? next - before : next + (j->last - j->first) - before;
			budget = used > budget ? 0 : budget - used;
		} else if (type == JBD_REVOKE_BLOCK) {
			err = parse_revoke(sc, t, &sc->caps[t - s->txns], jblk, blk);
			if (err)
				return err;
		} else {
			commit_info(j, t, jblk, blk, crc);
			t = NULL;
		}
skip:
		if (next == stop)
			break;
	}
	return 0;
}

errcode_t jbd_scan_log(struct jbd_journal *j, int flags, struct jbd_scan **out)
{
	struct scanner sc = { 0 };
	struct jbd_scan *s;
	errcode_t err;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return EXT2_ET_NO_MEMORY;
	sc.j = j;
	sc.s = s;
	sc.w.j = j;
	sc.csum_size = has_v23(j) ? JBD_TAIL_SIZE : 0;
	sc.log_len = j->last > j->first ? j->last - j->first : 0;
	s->end_sequence = j->sequence;
	s->stop_end = j->sequence;
	if (j->start == 0) {
		s->end_reason = JBD_END_CLEAN;
		s->end_jblk = j->first;
		err = 0;
	} else {
		err = scan_live(&sc);
	}
	if (!err && (flags & JBD_SCAN_OLD) && sc.log_len) {
		sc.old = 1;
		err = scan_old(&sc);
	}
	free(sc.caps);
	free(sc.w.buf);
	if (!err && s->ntxns)
		fit_revoked(&s->txns[s->ntxns - 1], NULL);
	if (err) {
		jbd_scan_free(s);
		return err;
	}
	*out = s;
	return 0;
}

void jbd_scan_free(struct jbd_scan *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < s->ntxns; i++) {
		free(s->txns[i].descs);
		free(s->txns[i].blocks);
		free(s->txns[i].revokes);
		free(s->txns[i].revoked);
	}
	free(s->txns);
	free(s);
}

unsigned jbd_scan_structure_faults(const struct jbd_scan *s)
{
	unsigned n = 0;

	for (unsigned i = 0; i < s->nlive; i++) {
		const struct jbd_scan_txn *t = &s->txns[i];

		for (unsigned r = 0; r < t->nrevokes; r++)
			n += t->revokes[r].count_bad;
		for (unsigned d = 0; d < t->ndescs; d++)
			n += t->descs[d].no_last_tag;
		n += t->committed && t->commit_header_bad;
	}
	return n;
}

const char *jbd_scan_end_name(enum jbd_scan_end reason)
{
	switch (reason) {
	case JBD_END_CLEAN:		return "clean";
	case JBD_END_NO_MAGIC:		return "no_magic";
	case JBD_END_SEQUENCE:		return "sequence_mismatch";
	case JBD_END_UNKNOWN_TYPE:	return "unknown_block_type";
	case JBD_END_STALE:		return "stale_transaction";
	case JBD_END_BAD_BLOCK:		return "bad_block";
	case JBD_END_WRAPPED:		return "wrapped";
	case JBD_END_IO:		return "io_error";
	case JBD_END_LIMIT:		return "limit";
	}
	return "unknown";
}
