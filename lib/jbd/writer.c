/* The journal writer: transactions, commit blocks with v1/v2/v3 checksums, checkpoint, wrap. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/crc.h"
#include "util/e4r_err.h"
#include "fs/bitmaps.h"
#include "fs/image.h"
#include "fs/open.h"
#include "util/array.h"
#include "jbd/writer_int.h"

#define JW_HASH_SIZE	65536U

/* ---- pending frees and revokes ---- */

int jbd_writer_pending_free(struct jbd_writer *w, blk64_t blk)
{
	unsigned i;
	struct jbd_wtxn *ts[2] = { w->running, w->committing };

	for (int k = 0; k < 2; k++)
		for (i = 0; ts[k] && i < ts[k]->nfreed; i++)
			if (ts[k]->freed[i] == blk)
				return 1;
	return 0;
}

void jbd_writer_for_each_pending_free(struct jbd_writer *w, int committing,
				      void (*fn)(blk64_t blk, void *priv), void *priv)
{
	struct jbd_wtxn *ts[2] = { w->running, committing ? w->committing : NULL };

	for (int k = 0; k < 2; k++)
		for (unsigned i = 0; ts[k] && i < ts[k]->nfreed; i++)
			fn(ts[k]->freed[i], priv);
}

static errcode_t txn_add_blk(blk64_t **arr, unsigned *n, unsigned *cap, blk64_t blk)
{
	errcode_t err = util_grow((void **)arr, cap, *n + 1, sizeof(**arr));

	if (!err)
		(*arr)[(*n)++] = blk;
	return err;
}

/*
 * A block was freed: it may not be reused until this transaction commits,
 * a journaled copy still in the log is revoked, and a copy dirty in this
 * very transaction is forgotten (jbd2_journal_forget).
 */
static void block_freed(struct jbd_writer *w, blk64_t blk)
{
	struct jbd_wtxn *t = w->running;
	struct jbd_wbuf *b = jbd_wbuf_lookup(w, blk);
	unsigned i;

	(void)txn_add_blk(&t->freed, &t->nfreed, &t->capfreed, blk);
	if (!b)
		return;
	if (b->dirty_tid == t->tid) {
		for (i = 0; i < t->n; i++)
			if (t->bufs[i].buf == b)
				t->bufs[i].forgotten = 1;
		b->dirty_tid = 0;
	}
	if (b->in_log || b->inflight)
		(void)txn_add_blk(&t->revokes, &t->nrev, &t->caprev, blk);
	/*
	 * Its content is now nobody's: a new owner's first write must reach the
	 * log even when it happens to leave the bytes as they are (a new
	 * directory block like the one just emptied), as a fresh buffer would.
	 */
	b->reborn = 1;
}

static void alloc_stats(ext2_filsys fs, blk64_t blk, int inuse)
{
	struct jbd_writer *w = fs->priv_data;

	if (inuse < 0)
		block_freed(w, blk);
}

/* ---- journal blocks ---- */

static uint32_t log_space_used(struct jbd_writer *w)
{
	struct jbd_journal *j = w->journal;
	uint32_t len = j->last - j->first;

	return (w->head + len - w->tail) % len;
}

static errcode_t log_write(struct jbd_writer *w, uint32_t jblk, const void *buf)
{
	w->journal_blocks_written++;
	return jbd_bdev_write(&w->bdev, w->journal->map[jblk], buf);
}

/* The journal superblock as we keep it: features, tail, sequence. */
static errcode_t write_jsb(struct jbd_writer *w, uint32_t start, uint32_t sequence)
{
	struct jbd_journal *j = w->journal;
	struct jbd_superblock *sb = (void *)j->raw_sb;
	unsigned char *blk;
	errcode_t err;

	sb->s_start = jbd_to_be32(start);
	sb->s_sequence = jbd_to_be32(sequence);
	sb->s_feature_compat = jbd_to_be32(w->compat);
	sb->s_feature_incompat = jbd_to_be32(w->incompat);
	if (w->opt.csum == JBD_CSUM_V2 || w->opt.csum == JBD_CSUM_V3) {
		sb->s_checksum_type = JBD_CRC32C_CHKSUM;
		sb->s_checksum = 0;
		sb->s_checksum = jbd_to_be32(util_crc32c(~0U, j->raw_sb, JBD_SUPERBLOCK_SIZE));
	} else {
		sb->s_checksum_type = 0;
		sb->s_checksum = 0;
	}
	err = ext2fs_get_memzero(w->blocksize, &blk);
	if (err)
		return err;
	err = io_channel_read_blk64(w->raw, j->map[0], 1, blk);
	if (!err) {
		memcpy(blk, j->raw_sb, JBD_SUPERBLOCK_SIZE);
		err = log_write(w, 0, blk);
	}
	ext2fs_free_mem(&blk);
	w->log_live = start != 0;
	return err;
}

static int csum_v23(const struct jbd_writer *w)
{
	return w->opt.csum == JBD_CSUM_V2 || w->opt.csum == JBD_CSUM_V3;
}

/* The bytes a logged block has in the journal (escaped, or frozen). */
static const unsigned char *tbuf_source(const struct jbd_wtbuf *tb)
{
	return tb->frozen ? tb->frozen : tb->buf->data;
}

/* Revoke blocks: records of be32, or be64 with 64BIT; a new block when one is full. */
static errcode_t plan_revokes(struct jbd_writer *w, struct jbd_wtxn *t)
{
	unsigned rec = (w->incompat & JBD_FEATURE_INCOMPAT_64BIT) ? sizeof(jbd_be64_t) : sizeof(jbd_be32_t);
	unsigned limit = w->blocksize - (csum_v23(w) ? JBD_TAIL_SIZE : 0);
	unsigned per = (limit - JBD_REVOKE_HEADER_SIZE) / rec;
	unsigned i, nblk = t->nrev ? (t->nrev + per - 1) / per : 0;
	errcode_t err;

	t->nrevblk = nblk;
	if (!nblk)
		return 0;
	err = ext2fs_get_memzero((size_t)nblk * w->blocksize, &t->revblks);
	if (err)
		return err;
	for (i = 0; i < nblk; i++) {
		unsigned char *blk = t->revblks + (size_t)i * w->blocksize;
		struct jbd_revoke_header h;
		unsigned k, off = sizeof(h);

		for (k = i * per; k < t->nrev && k < (i + 1) * per; k++, off += rec) {
			if (rec == sizeof(jbd_be64_t)) {
				jbd_be64_t v = jbd_to_be64(t->revokes[k]);

				jbd_store(blk + off, &v);
			} else {
				jbd_be32_t v = jbd_to_be32((uint32_t)t->revokes[k]);

				jbd_store(blk + off, &v);
			}
		}
		jbd_log_header(blk, JBD_REVOKE_BLOCK, t->tid);
		jbd_load(&h, blk);
		h.r_count = jbd_to_be32(off);
		jbd_store(blk, &h);
		jbd_log_tail_csum(&w->fmt, blk);
	}
	return 0;
}

/* Escape blocks that start with the journal magic (their log copy is frozen, zeroed magic). */
static errcode_t prepare_escapes(struct jbd_writer *w, struct jbd_wtxn *t)
{
	unsigned i;

	for (i = 0; i < t->nlogged; i++) {
		struct jbd_wtbuf *tb = &t->bufs[t->logged[i]];
		jbd_be32_t magic = jbd_to_be32(JBD_MAGIC);
		errcode_t err;

		tb->buf->inflight = tb;
		if (memcmp(tb->buf->data, &magic, 4))
			continue;
		err = ext2fs_get_mem(w->blocksize, &tb->frozen);
		if (err)
			return err;
		memcpy(tb->frozen, tb->buf->data, w->blocksize);
		memset(tb->frozen, 0, 4);
		tb->escaped = 1;
	}
	return 0;
}

/* Descriptor blocks with their tags, and the v1 checksum, as commit.c computes them now. */
static errcode_t plan_descriptors(struct jbd_writer *w, struct jbd_wtxn *t)
{
	struct jbd_log_entry *e;
	errcode_t err = ext2fs_get_array(t->nlogged ? t->nlogged : 1, sizeof(*e), &e);

	if (err)
		return err;
	for (unsigned i = 0; i < t->nlogged; i++) {
		struct jbd_wtbuf *tb = &t->bufs[t->logged[i]];

		e[i].blk = tb->buf->blk;
		e[i].data = tbuf_source(tb);
		e[i].escaped = tb->escaped;
	}
	err = jbd_log_descriptors(&w->fmt, t->tid, e, t->nlogged, &t->descs, &t->desc_end, &t->ndesc,
				  &t->v1_crc);
	ext2fs_free_mem(&e);
	return err;
}

/* ---- transactions ---- */

static errcode_t txn_new(struct jbd_writer *w)
{
	struct jbd_wtxn *t;
	errcode_t err = ext2fs_get_memzero(sizeof(*t), &t);

	if (err)
		return err;
	t->tid = w->next_tid++;
	w->running = t;
	return 0;
}

static void txn_free(struct jbd_wtxn *t)
{
	if (!t)
		return;
	for (unsigned i = 0; i < t->n; i++)
		ext2fs_free_mem(&t->bufs[i].frozen);
	ext2fs_free_mem(&t->bufs);
	ext2fs_free_mem(&t->revokes);
	ext2fs_free_mem(&t->freed);
	ext2fs_free_mem(&t->descs);
	ext2fs_free_mem(&t->desc_end);
	ext2fs_free_mem(&t->logged);
	ext2fs_free_mem(&t->revblks);
	ext2fs_free_mem(&t);
}

static uint32_t txn_log_blocks(const struct jbd_wtxn *t)
{
	return t->nrevblk + t->ndesc + t->nlogged + 1;
}

/* Flush what libext2fs keeps in memory (bitmaps, descriptors, superblock) into the running transaction. */
static errcode_t flush_fs_metadata(struct jbd_writer *w)
{
	ext2_filsys fs = w->fs;
	errcode_t err = ext2fs_write_bitmaps(fs);

	if (err)
		return err;
	fs->flags |= EXT2_FLAG_MASTER_SB_ONLY | EXT2_FLAG_DIRTY;
	return ext2fs_flush2(fs, 0);
}

errcode_t jbd_writer_commit_start(struct jbd_writer *w)
{
	struct jbd_wtxn *t;
	uint32_t len = w->journal->last - w->journal->first;
	errcode_t err;

	err = jbd_writer_commit_finish(w);
	if (!err)
		err = flush_fs_metadata(w);
	if (err)
		return err;
	t = w->running;
	if (!t->n && !t->nrev && !t->nfreed)
		return 0;	/* nothing to commit: jbd2 does not commit empty transactions */
	err = ext2fs_get_memzero((t->n + 1) * sizeof(unsigned), &t->logged);
	if (err)
		return err;
	for (unsigned i = 0; i < t->n; i++) {
		t->bufs[i].buf->dirty_tid = 0;
		if (!t->bufs[i].forgotten)
			t->logged[t->nlogged++] = i;
	}
	err = prepare_escapes(w, t);
	if (!err)
		err = plan_revokes(w, t);
	if (!err)
		err = plan_descriptors(w, t);
	if (err)
		return err;
	if (txn_log_blocks(t) >= len)
		return E4R_WRITE_TXN_TOO_BIG;
	if (log_space_used(w) + txn_log_blocks(t) >= len) {
		err = jbd_writer_checkpoint(w);
		if (err)
			return err;
	}
	/*
	 * The next running transaction before T commits: were its allocation
	 * to fail after, T would be both running and committing, and freed
	 * twice.
	 */
	err = txn_new(w);
	if (err)
		return err;
	t->jstart = w->head;
	for (unsigned i = 0; i < txn_log_blocks(t); i++)
		w->head = jbd_log_next(w->journal, w->head);
	w->committing = t;
	return 0;
}

int jbd_writer_running_full(const struct jbd_writer *w)
{
	uint32_t len = w->journal->last - w->journal->first;

	/* j_max_transaction_buffers: a handle that would pass it forces a commit first. */
	return w->running->n + w->running->nrev / 128 + 32 > len / 4;
}

static errcode_t write_txn_log(struct jbd_writer *w, struct jbd_wtxn *t)
{
	unsigned char *commit;
	uint32_t jblk = t->jstart, commit_jblk;
	unsigned i, d, k = 0;
	errcode_t err;

	err = ext2fs_get_mem(w->blocksize, &commit);
	if (err)
		return err;
	/* The commit block's place in the log is after everything else. */
	commit_jblk = t->jstart;
	for (i = 0; i + 1 < txn_log_blocks(t); i++)
		commit_jblk = jbd_log_next(w->journal, commit_jblk);
	jbd_log_commit_block(&w->fmt, t->tid, t->v1_crc, commit);
	/* Async commit: the commit block may reach the disk before the rest. */
	if (w->opt.async_commit)
		err = log_write(w, commit_jblk, commit);
	for (i = 0; !err && i < t->nrevblk; i++, jblk = jbd_log_next(w->journal, jblk))
		err = log_write(w, jblk, t->revblks + (size_t)i * w->blocksize);
	for (d = 0; !err && d < t->ndesc; d++) {
		err = log_write(w, jblk, t->descs + (size_t)d * w->blocksize);
		jblk = jbd_log_next(w->journal, jblk);
		for (; !err && k < t->desc_end[d]; k++, jblk = jbd_log_next(w->journal, jblk))
			err = log_write(w, jblk, tbuf_source(&t->bufs[t->logged[k]]));
	}
	if (!err)
		err = jbd_bdev_flush(&w->bdev);
	if (!err && !w->opt.async_commit)
		err = log_write(w, commit_jblk, commit);
	ext2fs_free_mem(&commit);
	return err;
}

/* Did T log B (not forgotten)? */
static int logged_by(const struct jbd_wtxn *t, const struct jbd_wbuf *b)
{
	for (unsigned i = 0; i < t->nlogged; i++)
		if (t->bufs[t->logged[i]].buf == b)
			return 1;
	return 0;
}

/* After the commit block: the logged copies wait for checkpoint, freed blocks become reusable. */
static errcode_t txn_committed(struct jbd_writer *w, struct jbd_wtxn *t)
{
	unsigned i;
	errcode_t err;

	for (i = 0; i < t->nlogged; i++) {
		struct jbd_wtbuf *tb = &t->bufs[t->logged[i]];
		struct jbd_wbuf *b = tb->buf;

		if (!b->ckpt) {
			err = ext2fs_get_mem(w->blocksize, &b->ckpt);
			if (err)
				return err;
		}
		memcpy(b->ckpt, tbuf_source(tb), w->blocksize);
		if (tb->escaped)
			memcpy(b->ckpt, b->data, 4);
		b->inflight = NULL;
		b->in_log = 1;
	}
	for (i = 0; i < t->nfreed; i++) {
		struct jbd_wbuf *b = jbd_wbuf_lookup(w, t->freed[i]);

		if (!b)
			continue;
		/*
		 * The revoke covers every older copy: none is written home, even
		 * when the block was allocated again since (jbd2_journal_forget
		 * leaves nothing to checkpoint). Only this transaction's own copy,
		 * logged after a reuse within it, stays.
		 */
		if (!logged_by(t, b))
			ext2fs_free_mem(&b->ckpt);
		/* Still free (not reallocated since): no buffer needed either. */
		if (!b->dirty_tid && !b->inflight && !ext2fs_test_block_bitmap2(w->fs->block_map, t->freed[i]))
			jbd_wbuf_drop(w, t->freed[i]);
	}
	return 0;
}

errcode_t jbd_writer_commit_finish(struct jbd_writer *w)
{
	struct jbd_wtxn *t = w->committing;
	errcode_t err = 0;

	if (!t)
		return 0;
	if (!w->log_live)
		err = write_jsb(w, t->jstart, t->tid);	/* first commit after a clean journal */
	if (!err)
		err = write_txn_log(w, t);
	if (!err)
		err = txn_committed(w, t);
	if (err)
		return err;
	w->commits++;
	w->committing = NULL;
	txn_free(t);
	return 0;
}

errcode_t jbd_writer_commit_sync(struct jbd_writer *w)
{
	errcode_t err = jbd_writer_commit_start(w);

	return err ? err : jbd_writer_commit_finish(w);
}

static int cmp_blk(const void *a, const void *b)
{
	blk64_t x = (*(struct jbd_wbuf *const *)a)->blk, y = (*(struct jbd_wbuf *const *)b)->blk;

	return x < y ? -1 : x > y;
}

errcode_t jbd_writer_checkpoint(struct jbd_writer *w)
{
	struct jbd_wbuf **list = NULL, *b;
	unsigned n = 0, cap = 0, h;
	errcode_t err = 0;

	for (h = 0; h < w->hash_size; h++)
		for (b = w->hash[h]; b && !err; b = b->next) {
			b->in_log = 0;
			if (!b->ckpt)
				continue;
			err = util_grow((void **)&list, &cap, n + 1, sizeof(*list));
			if (!err)
				list[n++] = b;
		}
	if (!err && n)	/* no list at all when nothing waits for a checkpoint */
		qsort(list, n, sizeof(*list), cmp_blk);
	for (unsigned i = 0; !err && i < n; i++) {
		err = jbd_bdev_write(&w->bdev, list[i]->blk, list[i]->ckpt);
		ext2fs_free_mem(&list[i]->ckpt);
	}
	ext2fs_free_mem(&list);
	if (!err)
		err = jbd_bdev_flush(&w->bdev);
	if (err)
		return err;
	w->tail = w->head;
	w->tail_tid = w->running->tid;
	w->checkpoints++;
	/* The log is empty; jbd2 records its head as the new tail. */
	return w->log_live ? write_jsb(w, w->tail, w->tail_tid) : 0;
}

/* ---- data ---- */

errcode_t jbd_writer_write_data(struct jbd_writer *w, blk64_t blk, const void *buf)
{
	jbd_wbuf_drop(w, blk);
	return jbd_bdev_write(&w->bdev, blk, buf);
}

errcode_t jbd_writer_read_data(struct jbd_writer *w, blk64_t blk, void *buf)
{
	return jbd_bdev_read(&w->bdev, blk, buf);
}

/* ---- session ---- */

static void choose_features(struct jbd_writer *w)
{
	struct jbd_journal *j = w->journal;

	w->compat = j->compat & ~JBD_FEATURE_COMPAT_CHECKSUM;
	w->incompat = j->incompat & ~(JBD_FEATURE_INCOMPAT_CSUM_V2 | JBD_FEATURE_INCOMPAT_CSUM_V3 |
				      JBD_FEATURE_INCOMPAT_ASYNC_COMMIT);
	w->incompat |= JBD_FEATURE_INCOMPAT_REVOKE;
	if (ext2fs_has_feature_64bit(w->fs->super))
		w->incompat |= JBD_FEATURE_INCOMPAT_64BIT;
	if (w->opt.async_commit)
		w->incompat |= JBD_FEATURE_INCOMPAT_ASYNC_COMMIT;
	if (w->opt.csum == JBD_CSUM_V1)
		w->compat |= JBD_FEATURE_COMPAT_CHECKSUM;
	else if (w->opt.csum == JBD_CSUM_V2)
		w->incompat |= JBD_FEATURE_INCOMPAT_CSUM_V2;
	else if (w->opt.csum == JBD_CSUM_V3)
		w->incompat |= JBD_FEATURE_INCOMPAT_CSUM_V3;
	w->tag_bytes = jbd_tag_bytes(w->incompat);
	w->csum_seed = util_crc32c(~0U, j->uuid, JBD_UUID_SIZE);
	w->fmt.blocksize = w->blocksize;
	w->fmt.incompat = w->incompat;
	w->fmt.csum = w->opt.csum;
	w->fmt.seed = w->csum_seed;
	w->fmt.tag_bytes = w->tag_bytes;
	w->fmt.uuid = j->uuid;
}

/* Write the superblock home, as ext4_commit_super does (not journaled). */
static errcode_t write_super_direct(struct jbd_writer *w)
{
	errcode_t err;

	w->direct = 1;
	w->fs->flags |= EXT2_FLAG_SUPER_ONLY | EXT2_FLAG_DIRTY;
	err = ext2fs_flush2(w->fs, 0);
	w->fs->flags &= ~EXT2_FLAG_SUPER_ONLY;
	w->direct = 0;
	return err;
}

static errcode_t journal_setup(struct jbd_writer *w)
{
	ext2_filsys fs = w->fs;
	errcode_t err;

	if (!ext2fs_has_feature_journal(fs->super))
		return E4R_NO_JOURNAL;
	if (ext2fs_has_feature_journal_needs_recovery(fs->super))
		return E4R_WRITE_NEEDS_RECOVERY;
	w->blocksize = fs->blocksize;
	/* One clock per session: the superblock's s_wtime then changes only once, and
	 * the same operations log the same blocks on every run (--crash-after repeats). */
	if (!fs->now)
		fs->now = time(NULL);
	err = io_channel_set_blksize(w->raw, fs->blocksize);
	if (!err)
		err = fs_read_bitmaps(fs);
	if (!err)
		err = jbd_journal_open(fs, NULL, &w->journal);
	if (err)
		return err;
	if (w->journal->external)
		return E4R_IMAGE_UNSUPPORTED;
	if (w->journal->start)
		return E4R_WRITE_NEEDS_RECOVERY;
	jbd_bdev_init(&w->bdev, w->raw, w->blocksize);
	w->bdev.crash_after = w->opt.crash_after;
	w->bdev.torn_bytes = w->opt.torn_bytes;
	choose_features(w);
	/* jbd2 starts after the sequence a clean journal records, at the log's first block. */
	w->next_tid = w->journal->sequence + 1;
	w->head = w->tail = w->journal->first;
	w->tail_tid = w->next_tid;
	fs->priv_data = w;
	ext2fs_set_block_alloc_stats_callback(fs, alloc_stats, NULL);
	err = txn_new(w);
	/* "Mount": journal features, then needs_recovery in the superblock. */
	if (!err)
		err = write_jsb(w, 0, w->journal->sequence);
	if (!err) {
		ext2fs_set_feature_journal_needs_recovery(fs->super);
		err = write_super_direct(w);
	}
	return err;
}

errcode_t jbd_writer_open(const char *image, const struct jbd_writer_options *opt, struct jbd_writer **out)
{
	struct jbd_writer *w;
	errcode_t err = ext2fs_get_memzero(sizeof(*w), &w);

	*out = NULL;
	if (err)
		return err;
	w->opt = *opt;
	w->hash_size = JW_HASH_SIZE;
	/* Never under a live kernel: its own journal and caches would be overwritten. */
	err = fs_mount_point(image, NULL, 0);
	if (!err)
		err = ext2fs_get_memzero(w->hash_size * sizeof(*w->hash), &w->hash);
	if (!err) {
		jbd_writer_io_set_target(w);
		err = fs_image_open(image, E4R_OPEN_RW, jbd_writer_io_manager, &w->fs);
		jbd_writer_io_set_target(NULL);
	}
	if (!err)
		err = journal_setup(w);
	if (err) {
		jbd_writer_abandon(w);
		return err;
	}
	*out = w;
	return 0;
}

errcode_t jbd_writer_close_clean(struct jbd_writer *w)
{
	errcode_t err = jbd_writer_commit_sync(w);

	if (!err)
		err = jbd_writer_checkpoint(w);
	if (!err)
		err = write_jsb(w, 0, w->tail_tid);	/* jbd2_mark_journal_empty */
	if (!err) {
		ext2fs_clear_feature_journal_needs_recovery(w->fs->super);
		err = write_super_direct(w);
	}
	if (!err)
		err = jbd_bdev_flush(&w->bdev);
	return err;
}

void jbd_writer_abandon(struct jbd_writer *w)
{
	if (!w)
		return;
	if (w->fs) {
		w->fs->flags &= ~(EXT2_FLAG_DIRTY | EXT2_FLAG_BB_DIRTY | EXT2_FLAG_IB_DIRTY);
		w->fs->priv_data = NULL;
		ext2fs_free(w->fs);
	}
	txn_free(w->running);
	txn_free(w->committing);
	if (w->journal)
		jbd_journal_close(w->journal);
	for (unsigned h = 0; w->hash && h < w->hash_size; h++)
		while (w->hash[h]) {
			struct jbd_wbuf *b = w->hash[h];

			w->hash[h] = b->next;
			jbd_wbuf_free(b);
		}
	ext2fs_free_mem(&w->hash);
	ext2fs_free_mem(&w);
}
