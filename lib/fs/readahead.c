/* Reading runs of blocks ahead of their use, in a second thread (see readahead.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs/held_io.h"
#include "fs/ioerr_io.h"
#include "fs/readahead.h"
#include "fs/wrap_io.h"

/*
 * The ring: chunk number N (counted from 0 over all runs) is read into slot
 * N % nslots. Counters, under the lock: FILLED chunks the reader has read,
 * GIVEN chunks the caller gave back (the reader waits while
 * filled - given == nslots). TAKEN is the caller's alone. A slot's fields
 * and data belong to the reader until FILLED passes it, then to the caller
 * until GIVEN passes it: the lock orders every hand-over.
 */
struct fs_readahead {
	int		fd;
	unsigned	blocksize;
	struct fs_run	*runs;
	size_t		nruns;
	unsigned	chunk;		/* blocks per chunk at most */
	unsigned	nslots;
	struct fs_chunk	*slots;
	struct fs_readahead_work work;
	pthread_t	thread;
	pthread_mutex_t	lock;
	pthread_cond_t	room;		/* the reader waits for a slot */
	pthread_cond_t	ready;		/* the caller waits for a chunk */
	uint64_t	filled, given;
	int		waiting;	/* the reader waits for room */
	int		finished;	/* the reader read its last chunk, or one failed */
	int		stop;		/* the caller wants the reader gone */
	uint64_t	taken;
};

/*
 * The channel the filesystem reads through is the plain read-only one:
 * the error-noting manager straight over the unix manager (through the
 * run's one open of the image, held_io.h, or not), nothing open for
 * writing. Returns the file's name, or NULL.
 */
static const char *plain_channel(ext2_filsys fs)
{
	io_channel io = fs_held_base(fs->io), inner;

	if (!io || io->manager != fs_ioerr_io_manager || (fs->flags & EXT2_FLAG_RW) ||
	    (fs->flags & EXT2_FLAG_IMAGE_FILE))
		return NULL;
	inner = fs_wrap_inner(io);
	if (!inner || inner->manager != unix_io_manager || inner->block_size != (int)fs->blocksize)
		return NULL;
	return inner->name;
}

/* COUNT blocks from BLK into DATA, all of them or an error (a short read is EXT2_ET_SHORT_READ). */
static errcode_t read_blocks(struct fs_readahead *r, blk64_t blk, unsigned count, char *data)
{
	size_t want = (size_t)count * r->blocksize, got = 0;
	uint64_t at;

	/* past what an off_t reaches: the channel will fail it too */
	if (blk > (uint64_t)INT64_MAX / r->blocksize - count)
		return EINVAL;
	at = blk * r->blocksize;
	while (got < want) {
		ssize_t n = pread(r->fd, data + got, want - got, (off_t)(at + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n == 0)
			return EXT2_ET_SHORT_READ;
		got += (size_t)n;
	}
	return 0;
}

static void *reader(void *arg)
{
	struct fs_readahead *r = arg;
	uint64_t seq = 0;
	size_t run = 0;
	blk64_t off = 0;
	errcode_t err = 0;

	while (run < r->nruns && !err) {
		struct fs_chunk *s;
		blk64_t left = r->runs[run].count - off;

		if (!left) {
			run++;
			off = 0;
			continue;
		}
		pthread_mutex_lock(&r->lock);
		/*
		 * With the ring full, the reader sleeps until half of it is
		 * free again: one wake-up per half ring, not per chunk given back
		 */
		if (r->filled - r->given >= r->nslots) {
			r->waiting = 1;
			while (!r->stop && r->filled - r->given > r->nslots / 2)
				pthread_cond_wait(&r->room, &r->lock);
			r->waiting = 0;
		}
		if (r->stop) {
			pthread_mutex_unlock(&r->lock);
			break;
		}
		pthread_mutex_unlock(&r->lock);
		s = &r->slots[seq % r->nslots];
		s->run = run;
		s->offset = off;
		s->blk = r->runs[run].start + off;
		s->count = left < r->chunk ? (unsigned)left : r->chunk;
		err = s->err = read_blocks(r, s->blk, s->count, s->data);
		if (!err && r->work.fn)
			r->work.fn(r->work.arg, s);
		off += s->count;
		seq++;
		pthread_mutex_lock(&r->lock);
		r->filled = seq;
		pthread_cond_signal(&r->ready);
		pthread_mutex_unlock(&r->lock);
	}
	pthread_mutex_lock(&r->lock);
	r->finished = 1;
	pthread_cond_signal(&r->ready);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

static void free_reader(struct fs_readahead *r)
{
	unsigned i;

	if (r->slots)
		for (i = 0; i < r->nslots; i++) {
			free(r->slots[i].data);
			free(r->slots[i].extra);
		}
	free(r->slots);
	free(r->runs);
	if (r->fd >= 0)
		close(r->fd);
	free(r);
}

errcode_t fs_readahead_start(ext2_filsys fs, const struct fs_run *runs, size_t nruns,
			     unsigned chunk, unsigned slots, const struct fs_readahead_work *work,
			     struct fs_readahead **out)
{
	const char *name = plain_channel(fs);
	struct fs_readahead *r;
	unsigned i;
	int e;

	*out = NULL;
	if (!name || !chunk || !slots)
		return EXT2_ET_OP_NOT_SUPPORTED;
	r = calloc(1, sizeof(*r));
	if (!r)
		return EXT2_ET_NO_MEMORY;
	r->fd = -1;
	r->blocksize = fs->blocksize;
	r->chunk = chunk;
	r->nslots = slots;
	r->nruns = nruns;
	r->runs = malloc((nruns ? nruns : 1) * sizeof(*runs));
	r->slots = calloc(slots, sizeof(*r->slots));
	if (!r->runs || !r->slots)
		goto nomem;
	if (nruns)
		memcpy(r->runs, runs, nruns * sizeof(*runs));
	if (work)
		r->work = *work;
	for (i = 0; i < slots; i++) {
		if (!(r->slots[i].data = malloc((size_t)chunk * fs->blocksize)))
			goto nomem;
		if (r->work.extra && !(r->slots[i].extra = malloc(r->work.extra)))
			goto nomem;
	}
	r->fd = open(name, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		e = errno;
		free_reader(r);
		return e;
	}
	/* the reader goes through the file in order: let the kernel read far ahead */
	(void)posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->room, NULL);
	pthread_cond_init(&r->ready, NULL);
	e = pthread_create(&r->thread, NULL, reader, r);
	if (e) {
		pthread_cond_destroy(&r->ready);
		pthread_cond_destroy(&r->room);
		pthread_mutex_destroy(&r->lock);
		free_reader(r);
		return e;
	}
	*out = r;
	return 0;
nomem:
	free_reader(r);
	return EXT2_ET_NO_MEMORY;
}

int fs_readahead_next(struct fs_readahead *r, struct fs_chunk *chunk)
{
	pthread_mutex_lock(&r->lock);
	while (r->filled <= r->taken && !r->finished)
		pthread_cond_wait(&r->ready, &r->lock);
	if (r->filled <= r->taken) {
		pthread_mutex_unlock(&r->lock);
		return 1;
	}
	pthread_mutex_unlock(&r->lock);
	*chunk = r->slots[r->taken % r->nslots];
	r->taken++;
	return 0;
}

void fs_readahead_give_back(struct fs_readahead *r)
{
	pthread_mutex_lock(&r->lock);
	if (r->given < r->taken)
		r->given++;
	if (r->waiting && r->filled - r->given <= r->nslots / 2)
		pthread_cond_signal(&r->room);
	pthread_mutex_unlock(&r->lock);
}

void fs_readahead_stop(struct fs_readahead *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->stop = 1;
	pthread_cond_signal(&r->room);
	pthread_mutex_unlock(&r->lock);
	pthread_join(r->thread, NULL);
	pthread_cond_destroy(&r->ready);
	pthread_cond_destroy(&r->room);
	pthread_mutex_destroy(&r->lock);
	free_reader(r);
}
