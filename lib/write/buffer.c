/*
 * The journal writer's block cache: the kernel's buffer_head with its
 * journal_head. Every change to a cached block goes through
 * write_buf_modify(), which takes write access in the running transaction
 * first, as jbd2 does; the 2012 leak is the one path that does not.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/e4r_err.h"
#include "write/journal_int.h"

static unsigned buf_hash(struct write_journal *w, blk64_t blk)
{
	return (unsigned)((blk * 0x9E3779B97F4A7C15ULL) >> 40) & (w->hash_size - 1);
}

struct write_buf *write_buf_lookup(struct write_journal *w, blk64_t blk)
{
	struct write_buf *b;

	for (b = w->hash[buf_hash(w, blk)]; b; b = b->next)
		if (b->blk == blk)
			return b;
	return NULL;
}

errcode_t write_buf_get(struct write_journal *w, blk64_t blk, struct write_buf **out)
{
	struct write_buf *b = write_buf_lookup(w, blk);
	errcode_t err;
	unsigned h;

	if (b) {
		*out = b;
		return 0;
	}
	if (blk >= ext2fs_blocks_count(w->fs->super))
		return E4R_REPLAY_OUT_OF_FS;
	err = ext2fs_get_memzero(sizeof(*b), &b);
	if (!err)
		err = ext2fs_get_mem(w->blocksize, &b->data);
	if (!err)
		err = io_channel_read_blk64(w->raw, blk, 1, b->data);
	if (err) {
		if (b)
			ext2fs_free_mem(&b->data);
		ext2fs_free_mem(&b);
		return err;
	}
	b->blk = blk;
	h = buf_hash(w, blk);
	b->next = w->hash[h];
	w->hash[h] = b;
	*out = b;
	return 0;
}

void write_buf_free(struct write_buf *b)
{
	ext2fs_free_mem(&b->data);
	ext2fs_free_mem(&b->ckpt);
	ext2fs_free_mem(&b);
}

/* Forget a cached block that no transaction needs any more. */
void write_buf_drop(struct write_journal *w, blk64_t blk)
{
	struct write_buf **pp = &w->hash[buf_hash(w, blk)], *b;

	for (; (b = *pp); pp = &b->next) {
		if (b->blk != blk)
			continue;
		if (b->dirty_tid || b->inflight)
			return;
		*pp = b->next;
		write_buf_free(b);
		return;
	}
}

/* do_get_write_access: protect what a committing transaction still has to write. */
static errcode_t get_write_access(struct write_journal *w, struct write_buf *b)
{
	struct write_txn *t = w->running;
	errcode_t err;

	if (b->inflight && !b->inflight->frozen) {
		err = ext2fs_get_mem(w->blocksize, &b->inflight->frozen);
		if (err)
			return err;
		memcpy(b->inflight->frozen, b->data, w->blocksize);
	}
	if (b->dirty_tid == t->tid)
		return 0;
	err = util_grow((void **)&t->bufs, &t->cap, t->n + 1, sizeof(*t->bufs));
	if (err)
		return err;
	memset(&t->bufs[t->n], 0, sizeof(t->bufs[t->n]));
	t->bufs[t->n++].buf = b;
	b->dirty_tid = t->tid;
	return 0;
}

errcode_t write_buf_modify(struct write_journal *w, struct write_buf *b, unsigned off,
			const void *src, unsigned len)
{
	errcode_t err;

	if (!b->reborn && !memcmp(b->data + off, src, len))
		return 0;	/* libext2fs rewrites unchanged blocks (all bitmaps, all descriptors) */
	err = get_write_access(w, b);
	if (!err) {
		memcpy(b->data + off, src, len);
		b->reborn = 0;
	}
	return err;
}

int write_leak_bit_unjournaled(struct write_journal *w, blk64_t blk, unsigned bit)
{
	struct write_buf *b = write_buf_lookup(w, blk);
	int leaked;

	if (!b)
		return 0;
	leaked = b->inflight && !b->inflight->frozen;
	ext2fs_set_bit(bit, b->data);		/* test_and_set_bit on b_data, no write access yet */
	(void)get_write_access(w, b);	/* the late get_write_access at got: */
	return leaked;
}

