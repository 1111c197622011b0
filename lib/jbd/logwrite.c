/* Writing JBD2 log blocks and committing a transaction into an empty log (see logwrite.h). */
#include "config.h"

#include <string.h>
#include <time.h>

#include "jbd/logwrite.h"
#include "util/crc.h"
#include "util/e4r_err.h"

void jbd_logfmt_of(const struct jbd_journal *j, struct jbd_logfmt *f)
{
	f->blocksize = j->blocksize;
	f->incompat = j->incompat;
	f->csum = j->csum;
	f->seed = j->csum_seed;
	f->tag_bytes = j->tag_bytes;
	f->uuid = j->uuid;
}

static int csum_v23(const struct jbd_logfmt *f)
{
	return f->csum == JBD_CSUM_V2 || f->csum == JBD_CSUM_V3;
}

void jbd_log_header(unsigned char *blk, uint32_t type, uint32_t tid)
{
	struct jbd_header h = {
		.h_magic = jbd_to_be32(JBD_MAGIC),
		.h_blocktype = jbd_to_be32(type),
		.h_sequence = jbd_to_be32(tid),
	};

	jbd_store(blk, &h);
}

void jbd_log_tail_csum(const struct jbd_logfmt *f, unsigned char *blk)
{
	struct jbd_block_tail tail = { 0 };
	unsigned char *at = blk + f->blocksize - sizeof(tail);

	if (!csum_v23(f))
		return;
	jbd_store(at, &tail);
	tail.t_checksum = jbd_to_be32(util_crc32c(f->seed, blk, f->blocksize));
	jbd_store(at, &tail);
}

int jbd_log_needs_escape(const unsigned char *data)
{
	jbd_be32_t magic = jbd_to_be32(JBD_MAGIC);

	return !memcmp(data, &magic, sizeof(magic));
}

static void put_tag(const struct jbd_logfmt *f, unsigned char *p, const struct jbd_log_entry *e,
		    uint32_t tid, unsigned flags)
{
	struct jbd_tag tag = { .blocknr = e->blk, .flags = (uint16_t)flags };

	memset(p, 0, f->tag_bytes);
	if (csum_v23(f)) {
		jbd_be32_t seq = jbd_to_be32(tid);

		tag.checksum = util_crc32c(f->seed, &seq, sizeof(seq));
		tag.checksum = util_crc32c(tag.checksum, e->data, f->blocksize);
	}
	jbd_tag_encode(p, f->incompat, &tag);
}

static void set_last_tag(const struct jbd_logfmt *f, unsigned char *p)
{
	struct jbd_tag tag;

	jbd_tag_decode(p, f->incompat, &tag);
	tag.flags |= JBD_FLAG_LAST_TAG;
	jbd_tag_encode(p, f->incompat, &tag);
}

/*
 * Tags every descriptor holds, as jbd_log_descriptors fills it: the first
 * tag carries the UUID, and a tag goes in only while the room left after it
 * keeps 16 bytes and the tail free (jbd2's commit keeps the same margin).
 */
static unsigned tags_per_descriptor(const struct jbd_logfmt *f)
{
	unsigned csum_size = csum_v23(f) ? JBD_TAIL_SIZE : 0;
	unsigned need = f->tag_bytes + 16 + csum_size, n = 1;
	unsigned room = f->blocksize - JBD_HEADER_SIZE;

	if (room < f->tag_bytes + JBD_UUID_SIZE)
		return 1;
	for (room -= f->tag_bytes + JBD_UUID_SIZE; room >= need; room -= f->tag_bytes)
		n++;
	return n;
}

errcode_t jbd_log_descriptors(const struct jbd_logfmt *f, uint32_t tid, const struct jbd_log_entry *e,
			      unsigned n, unsigned char **descs, unsigned **desc_end, unsigned *ndesc,
			      uint32_t *v1_crc)
{
	unsigned csum_size = csum_v23(f) ? JBD_TAIL_SIZE : 0;
	unsigned per = tags_per_descriptor(f);
	unsigned max, i = 0, d = 0;
	errcode_t err;

	*descs = NULL;
	*desc_end = NULL;
	/* every descriptor but the last is full */
	max = (n + per - 1) / per + 1;
	err = ext2fs_get_memzero((size_t)max * f->blocksize, descs);
	if (!err)
		err = ext2fs_get_memzero(max * sizeof(unsigned), desc_end);
	if (err) {
		ext2fs_free_mem(descs);
		return err;
	}
	*v1_crc = ~0U;
	while (i < n) {
		unsigned char *blk = *descs + (size_t)d * f->blocksize, *tag = NULL;
		unsigned off = JBD_HEADER_SIZE, space = f->blocksize - JBD_HEADER_SIZE, first = i;

		jbd_log_header(blk, JBD_DESCRIPTOR_BLOCK, tid);
		for (;;) {
			unsigned flags = (e[i].escaped ? JBD_FLAG_ESCAPE : 0) |
					 (i != first ? JBD_FLAG_SAME_UUID : 0);

			tag = blk + off;
			put_tag(f, tag, &e[i], tid, flags);
			off += f->tag_bytes;
			space -= f->tag_bytes;
			if (i == first) {
				memcpy(blk + off, f->uuid, JBD_UUID_SIZE);
				off += JBD_UUID_SIZE;
				space -= JBD_UUID_SIZE;
			}
			i++;
			if (i == n || space < f->tag_bytes + 16 + csum_size)
				break;
		}
		set_last_tag(f, tag);
		jbd_log_tail_csum(f, blk);
		if (f->csum == JBD_CSUM_V1) {
			*v1_crc = util_crc32_be(*v1_crc, blk, f->blocksize);
			for (unsigned k = first; k < i; k++)
				*v1_crc = util_crc32_be(*v1_crc, e[k].data, f->blocksize);
		}
		(*desc_end)[d++] = i;
	}
	*ndesc = d;
	return 0;
}

void jbd_log_commit_block(const struct jbd_logfmt *f, uint32_t tid, uint32_t v1_crc, unsigned char *blk)
{
	struct jbd_commit_header c;
	struct timespec ts;

	memset(blk, 0, f->blocksize);
	jbd_log_header(blk, JBD_COMMIT_BLOCK, tid);
	jbd_load(&c, blk);
	clock_gettime(CLOCK_REALTIME, &ts);
	c.h_commit_sec = jbd_to_be64((uint64_t)ts.tv_sec);
	c.h_commit_nsec = jbd_to_be32((uint32_t)ts.tv_nsec);
	if (f->csum == JBD_CSUM_V1) {
		c.h_chksum_type = JBD_CRC32_CHKSUM;
		c.h_chksum_size = JBD_CRC32_CHKSUM_SIZE;
		c.h_chksum[0] = jbd_to_be32(v1_crc);
	}
	/* The struct's alignment padding is past the header: store only the header's bytes. */
	memcpy(blk, &c, JBD_COMMIT_HEADER_SIZE);
	if (csum_v23(f)) {
		c.h_chksum[0] = jbd_to_be32(util_crc32c(f->seed, blk, f->blocksize));
		memcpy(blk, &c, JBD_COMMIT_HEADER_SIZE);
	}
}

unsigned long jbd_log_blocks_needed(const struct jbd_logfmt *f, unsigned long n)
{
	unsigned long per = tags_per_descriptor(f);

	/* the descriptors, the blocks and the commit block: exact, every descriptor but the last full */
	return (n + per - 1) / per + n + 1;
}

int jbd_log_holds(const struct jbd_journal *j, unsigned long n, blk64_t max_blk)
{
	struct jbd_logfmt f;

	jbd_logfmt_of(j, &f);
	/* a block past 2^32 cannot be tagged without the 64BIT feature */
	if (!(f.incompat & JBD_FEATURE_INCOMPAT_64BIT) && max_blk > UINT32_MAX)
		return 0;
	return jbd_log_blocks_needed(&f, n) <= j->last - j->first;
}

unsigned long jbd_log_capacity(const struct jbd_journal *j, blk64_t max_blk)
{
	struct jbd_logfmt f;
	unsigned long room = j->last > j->first ? j->last - j->first : 0;
	unsigned long per, n;

	jbd_logfmt_of(j, &f);
	if (!(f.incompat & JBD_FEATURE_INCOMPAT_64BIT) && max_blk > UINT32_MAX)
		return 0;
	/* a descriptor, a block and the commit block at the least */
	if (room < 3)
		return 0;
	per = tags_per_descriptor(&f);
	/* n blocks, ceil(n / per) descriptors and a commit block: start from the estimate, step to the bound */
	n = (room - 1) / (per + 1) * per;
	while (n && jbd_log_blocks_needed(&f, n) > room)
		n--;
	while (jbd_log_blocks_needed(&f, n + 1) <= room)
		n++;
	return n;
}

/* Write BUF to journal block JBLK. */
static errcode_t log_put(struct jbd_journal *j, uint32_t jblk, const void *buf)
{
	return io_channel_write_blk64(j->io, j->map[jblk], 1, buf);
}

/*
 * E[0..N) as the log holds them: the entries whose block starts with the
 * journal magic point into *COPIES, escaped. Free *OUT and *COPIES.
 */
static errcode_t escaped_copies(const struct jbd_logfmt *f, const struct jbd_log_entry *e, unsigned n,
				struct jbd_log_entry **out, unsigned char **copies)
{
	unsigned i, m = 0;
	errcode_t err;

	for (i = 0; i < n; i++)
		m += jbd_log_needs_escape(e[i].data);
	if ((err = ext2fs_get_array(n ? n : 1, sizeof(**out), out)))
		return err;
	if (m && (err = ext2fs_get_array(m, f->blocksize, copies))) {
		ext2fs_free_mem(out);
		return err;
	}
	for (i = 0, m = 0; i < n; i++) {
		(*out)[i] = e[i];
		if (!jbd_log_needs_escape(e[i].data))
			continue;
		unsigned char *c = *copies + (size_t)m++ * f->blocksize;

		memcpy(c, e[i].data, f->blocksize);
		memset(c, 0, sizeof(jbd_be32_t));
		(*out)[i].data = c;
		(*out)[i].escaped = 1;
	}
	return 0;
}

errcode_t jbd_log_commit(struct jbd_journal *j, const struct jbd_log_entry *e, unsigned n)
{
	struct jbd_superblock *sb = (void *)j->raw_sb;
	struct jbd_logfmt f;
	unsigned char *descs = NULL, *commit = NULL;
	unsigned char *copies = NULL;
	struct jbd_log_entry *le = NULL;
	unsigned *desc_end = NULL, ndesc = 0, d, k = 0;
	uint32_t v1_crc, jblk = j->first, tid = j->sequence;
	blk64_t max = 0;
	errcode_t err;

	jbd_logfmt_of(j, &f);
	if (j->start)
		return E4R_WRITE_NEEDS_RECOVERY;
	for (k = 0; k < n; k++)
		if (e[k].blk > max)
			max = e[k].blk;
	if (!jbd_log_holds(j, n, max))
		return E4R_WRITE_TXN_TOO_BIG;
	/* blocks that start with the journal magic go into the log with it zeroed, and flagged */
	if ((err = escaped_copies(&f, e, n, &le, &copies)))
		return err;
	e = le;
	k = 0;
	err = jbd_log_descriptors(&f, tid, e, n, &descs, &desc_end, &ndesc, &v1_crc);
	if (!err)
		err = ext2fs_get_mem(f.blocksize, &commit);
	for (d = 0; !err && d < ndesc; d++) {
		err = log_put(j, jblk++, descs + (size_t)d * f.blocksize);
		for (; !err && k < desc_end[d]; k++)
			err = log_put(j, jblk++, e[k].data);
	}
	/* the commit block only after everything it vouches for is on the disk */
	if (!err)
		err = io_channel_flush(j->io);
	if (!err) {
		jbd_log_commit_block(&f, tid, v1_crc, commit);
		err = log_put(j, jblk, commit);
	}
	if (!err)
		err = io_channel_flush(j->io);
	/* then the superblock that says the log holds it: before this, no replay sees it */
	if (!err) {
		sb->s_start = jbd_to_be32(j->first);
		sb->s_sequence = jbd_to_be32(tid);
		err = jbd_journal_write_super(j);
	}
	if (!err)
		j->start = j->first;
	ext2fs_free_mem(&descs);
	ext2fs_free_mem(&desc_end);
	ext2fs_free_mem(&commit);
	ext2fs_free_mem(&le);
	ext2fs_free_mem(&copies);
	return err;
}

errcode_t jbd_log_checkpointed(struct jbd_journal *j)
{
	struct jbd_superblock *sb = (void *)j->raw_sb;
	errcode_t err;

	if (!j->start)
		return 0;
	sb->s_start = 0;
	sb->s_sequence = jbd_to_be32(j->sequence + 1);
	err = jbd_journal_write_super(j);
	if (!err) {
		j->start = 0;
		j->sequence++;
	}
	return err;
}
