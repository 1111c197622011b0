/*
 * The journal writer's block cache: the kernel's buffer_head with its
 * journal_head. Every change to a cached block goes through
 * jbd_wbuf_modify(), which takes write access in the running transaction
 * first, as jbd2 does; the one path that does not is a caller writing into
 * jbd_writer_cached()'s live content (the simulator's 2012 leak).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/e4r_err.h"
#include "jbd/writer_int.h"

static unsigned buf_hash(struct jbd_writer *w, blk64_t blk)
{
	return (unsigned)((blk * 0x9E3779B97F4A7C15ULL) >> 40) & (w->hash_size - 1);
}

struct jbd_wbuf *jbd_wbuf_lookup(struct jbd_writer *w, blk64_t blk)
{
	struct jbd_wbuf *b;

	for (b = w->hash[buf_hash(w, blk)]; b; b = b->next)
		if (b->blk == blk)
			return b;
	return NULL;
}

errcode_t jbd_wbuf_get(struct jbd_writer *w, blk64_t blk, struct jbd_wbuf **out)
{
	struct jbd_wbuf *b = jbd_wbuf_lookup(w, blk);
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

void jbd_wbuf_free(struct jbd_wbuf *b)
{
	ext2fs_free_mem(&b->data);
	ext2fs_free_mem(&b->ckpt);
	ext2fs_free_mem(&b);
}

/* Forget a cached block that no transaction needs any more. */
void jbd_wbuf_drop(struct jbd_writer *w, blk64_t blk)
{
	struct jbd_wbuf **pp = &w->hash[buf_hash(w, blk)], *b;

	for (; (b = *pp); pp = &b->next) {
		if (b->blk != blk)
			continue;
		if (b->dirty_tid || b->inflight)
			return;
		*pp = b->next;
		jbd_wbuf_free(b);
		return;
	}
}

/* do_get_write_access: protect what a committing transaction still has to write. */
static errcode_t get_write_access(struct jbd_writer *w, struct jbd_wbuf *b)
{
	struct jbd_wtxn *t = w->running;
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

errcode_t jbd_wbuf_modify(struct jbd_writer *w, struct jbd_wbuf *b, unsigned off,
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

unsigned char *jbd_writer_cached(struct jbd_writer *w, blk64_t blk)
{
	struct jbd_wbuf *b = jbd_wbuf_lookup(w, blk);

	return b ? b->data : NULL;
}

int jbd_writer_commit_reads_live(struct jbd_writer *w, blk64_t blk)
{
	struct jbd_wbuf *b = jbd_wbuf_lookup(w, blk);

	return b && b->inflight && !b->inflight->frozen;
}

errcode_t jbd_writer_get_write_access(struct jbd_writer *w, blk64_t blk)
{
	struct jbd_wbuf *b = jbd_wbuf_lookup(w, blk);

	return b ? get_write_access(w, b) : 0;
}
