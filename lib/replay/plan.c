/* The replay plan (which transactions and block versions a policy writes) and writing it home. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "replay/plan.h"
#include "fs/writeback.h"
#include "util/e4r_err.h"

/* Blocks read and written per batch when writing home (bounded memory). */
#define REPLAY_BATCH_BLOCKS	2048
/*
 * Bytes per write call home. Not a whole run: a buffered write of 2 MiB or
 * more lets the kernel put large folios in the page cache, and on the
 * virtual machine this was measured on (free page reporting), copying into
 * them cost 1.5-2.0 s per GiB against 0.3-0.6 s for calls of 64 KiB-1 MiB;
 * below 64 KiB the per-call cost grows again.
 */
#define REPLAY_WRITE_BYTES	(256U << 10)
/* Transaction-level failures of one transaction put to the hook; more are refused unasked. */
#define MAX_ASKED		8

static const char *const policy_names[] = {
	[JBD_POLICY_STOP]	= "stop",
	[JBD_POLICY_SKIP_BLOCK]	= "skip-block",
	[JBD_POLICY_SKIP_TXN]	= "skip-transaction",
	[JBD_POLICY_ALL]	= "all",
	[JBD_POLICY_AUTO]	= "auto",
	[JBD_POLICY_ASK]	= "ask",
	[JBD_POLICY_NONE]	= "none",
};

const char *replay_policy_name(enum replay_policy p)
{
	return (unsigned)p < sizeof(policy_names) / sizeof(*policy_names) ? policy_names[p] : "?";
}

int replay_policy_parse(const char *name, enum replay_policy *out)
{
	for (unsigned i = 0; i < sizeof(policy_names) / sizeof(*policy_names); i++)
		if (!strcmp(name, policy_names[i])) {
			*out = (enum replay_policy)i;
			return 0;
		}
	return -1;
}

const char *replay_txn_fate_name(enum replay_txn_fate f)
{
	switch (f) {
	case JBD_TXN_REPLAYED:		return "replayed";
	case JBD_TXN_UNCOMMITTED:	return "uncommitted";
	case JBD_TXN_PAST_END:		return "past_replay_end";
	case JBD_TXN_SKIPPED:		return "skipped";
	case JBD_TXN_RECOVERY_FAILS:	return "recovery_fails";
	case JBD_TXN_NOT_REPLAYING:	return "policy_none";
	case JBD_TXN_OLD:		return "old";
	}
	return "?";
}

const char *replay_block_fate_name(enum replay_block_fate f)
{
	switch (f) {
	case JBD_BLK_REPLAYED:		return "replayed";
	case JBD_BLK_CORRECTED:		return "corrected";
	case JBD_BLK_TXN:		return "transaction_not_replayed";
	case JBD_BLK_REVOKED:		return "revoked";
	case JBD_BLK_CSUM:		return "checksum_bad";
	case JBD_BLK_OUT_OF_FS:		return "outside_filesystem";
	}
	return "?";
}

/* Anything in transaction T a policy must decide on: a failed checksum, or a revoke count too large. */
static int txn_fails(const struct jbd_scan *s, unsigned t)
{
	return jbd_txn_failures(s, t, JBD_FAILS_ALL) != 0;
}

/* A failure of a checksum in transaction T (a structure fault has none to fail). */
static int txn_csum_fails(const struct jbd_scan *s, unsigned t)
{
	struct jbd_failure_iter it;
	struct jbd_failure f;

	jbd_failures_init(&it, s, t, JBD_FAILS_ALL);
	while (jbd_failures_next(&it, &f))
		if (f.csum)
			return 1;
	return 0;
}

static errcode_t record_decision(struct replay_plan *p, unsigned *cap,
				 const struct jbd_failure *f, enum replay_decision d)
{
	if (p->ndecisions == *cap) {
		unsigned ncap = *cap ? *cap * 2 : 16;
		void *n = realloc(p->decisions, ncap * sizeof(*p->decisions));
		if (!n)
			return EXT2_ET_NO_MEMORY;
		p->decisions = n;
		*cap = ncap;
	}
	p->decisions[p->ndecisions++] = (struct replay_txn_decision){ *f, d };
	return 0;
}

struct planner {
	const struct jbd_journal	*j;
	const struct jbd_scan		*s;
	struct replay_plan		*p;
	const struct replay_hooks	*hooks;
	unsigned			decision_cap;
	int				unresolved;	/* a failure was replayed or left out unproven */
	int				resolved;	/* auto: a failure the diagnosis vouched for */
};

static enum replay_decision ask(struct planner *pl, const struct jbd_failure *f, errcode_t *err)
{
	enum replay_decision d = JBD_DECIDE_REFUSE;

	if (pl->hooks && pl->hooks->decide)
		d = pl->hooks->decide(pl->hooks->arg, f);
	if (pl->hooks && pl->hooks->error && (*err = pl->hooks->error(pl->hooks->arg)))
		return JBD_DECIDE_REFUSE;
	*err = record_decision(pl->p, &pl->decision_cap, f, d);
	/*
	 * A correction and a skip are proven whoever chose them (ask offers
	 * them only where auto would make them); as is, only auto's (a benign
	 * leak): a person's "as it is" replays what no proof vouches for.
	 */
	if (d != JBD_DECIDE_CORRECTED && d != JBD_DECIDE_SKIP &&
	    !(d == JBD_DECIDE_AS_IS && pl->p->policy == JBD_POLICY_AUTO))
		pl->unresolved = 1;
	else
		pl->resolved = 1;
	return d;
}

/* The stop policy: what e2fsck's scan decided (jbd_scan computes it). */
static void fates_stop(struct planner *pl)
{
	const struct jbd_scan *s = pl->s;

	for (unsigned t = 0; t < s->nlive; t++) {
		if (!s->txns[t].committed)
			continue;
		if (s->stop_error)
			pl->p->txn_fate[t] = JBD_TXN_RECOVERY_FAILS;
		else if (!jbd_tid_lt(s->txns[t].sequence, s->stop_end))
			pl->p->txn_fate[t] = JBD_TXN_PAST_END;
	}
	pl->p->as_stop = 1;
	pl->p->recovery_error = s->stop_error;
	pl->p->has_failed_commit = s->has_failed_commit;
	pl->p->failed_commit = s->failed_commit;
}

/*
 * Ask and auto: each transaction-level failure goes to the hook; a refusal
 * ends the replay before that transaction. Returns 1 when auto must fall
 * back to stop (a refusal, and nothing the diagnosis could vouch for).
 */
static int fates_decided(struct planner *pl, errcode_t *err)
{
	const struct jbd_scan *s = pl->s;
	int ended = 0, refused = 0, resolved = 0;

	*err = 0;
	for (unsigned t = 0; t < s->nlive && !*err; t++) {
		struct jbd_failure_iter it;
		struct jbd_failure f;
		unsigned n = 0;

		if (!s->txns[t].committed)
			continue;
		if (ended) {
			pl->p->txn_fate[t] = JBD_TXN_PAST_END;
			continue;
		}
		jbd_failures_init(&it, s, t, JBD_FAILS_TXN);
		while (jbd_failures_next(&it, &f) && ++n <= MAX_ASKED) {
			enum replay_decision d = ask(pl, &f, err);
			if (*err)
				break;
			if (d == JBD_DECIDE_REFUSE) {
				if (!pl->p->has_failed_commit) {
					pl->p->has_failed_commit = 1;
					pl->p->failed_commit = s->txns[t].sequence;
				}
				pl->p->txn_fate[t] = JBD_TXN_PAST_END;
				ended = refused = 1;
				break;
			}
			resolved = 1;
			if (d == JBD_DECIDE_SKIP) {
				/* Wholly superseded: nothing of it is needed, so its other failures do not matter. */
				pl->p->txn_fate[t] = JBD_TXN_SKIPPED;
				break;
			}
		}
		/* More failures than we ask about: treat the rest as refused. */
		if (!ended && n > MAX_ASKED) {
			pl->p->txn_fate[t] = JBD_TXN_PAST_END;
			ended = refused = 1;
		}
	}
	return pl->p->policy == JBD_POLICY_AUTO && refused && !resolved;
}

static errcode_t txn_fates(struct planner *pl)
{
	const struct jbd_scan *s = pl->s;
	struct replay_plan *p = pl->p;
	errcode_t err = 0;

	for (unsigned t = 0; t < s->ntxns; t++) {
		const struct jbd_scan_txn *x = &s->txns[t];
		if (x->old)
			p->txn_fate[t] = JBD_TXN_OLD;
		else if (!x->committed)
			p->txn_fate[t] = JBD_TXN_UNCOMMITTED;
		else {
			p->txn_fate[t] = JBD_TXN_REPLAYED;
			if (txn_fails(s, t))
				p->checksum_failures = 1;
			if (txn_csum_fails(s, t))
				p->csum_mismatches = 1;
		}
	}
	switch (p->policy) {
	case JBD_POLICY_NONE:
		for (unsigned t = 0; t < s->nlive; t++)
			if (p->txn_fate[t] == JBD_TXN_REPLAYED)
				p->txn_fate[t] = JBD_TXN_NOT_REPLAYING;
		break;
	case JBD_POLICY_STOP:
		fates_stop(pl);
		break;
	case JBD_POLICY_SKIP_TXN:
		for (unsigned t = 0; t < s->nlive; t++)
			if (p->txn_fate[t] == JBD_TXN_REPLAYED && txn_fails(s, t))
				p->txn_fate[t] = JBD_TXN_SKIPPED;
		pl->unresolved = p->checksum_failures;
		break;
	case JBD_POLICY_SKIP_BLOCK:
	case JBD_POLICY_ALL:
		pl->unresolved = p->checksum_failures;
		break;
	case JBD_POLICY_AUTO:
		if (!pl->hooks || !pl->hooks->decide) {
			fates_stop(pl);
			break;
		}
		/* fall through */
	case JBD_POLICY_ASK:
		if (fates_decided(pl, &err) && !err) {
			/* Auto with nothing proven: exactly what stop does. */
			for (unsigned t = 0; t < s->nlive; t++)
				if (s->txns[t].committed)
					p->txn_fate[t] = JBD_TXN_REPLAYED;
			p->has_failed_commit = 0;
			fates_stop(pl);
		}
		break;
	}
	return err;
}

static int use_revokes(void *arg, unsigned t)
{
	const struct replay_plan *p = arg;

	return p->txn_fate[t] == JBD_TXN_REPLAYED;
}

/* The fate of block B of transaction T whose transaction is replayed. */
static enum replay_block_fate block_fate(struct planner *pl, const struct jbd_revoke_table *rt,
				      uint64_t fs_blocks, unsigned t, unsigned b, errcode_t *err)
{
	const struct jbd_scan_txn *x = &pl->s->txns[t];
	const struct jbd_scan_block *blk = &x->blocks[b];
	struct replay_plan *p = pl->p;
	struct jbd_failure f = { .kind = JBD_FAIL_BLOCK, .txn = t, .index = b, .sequence = x->sequence,
				 .jblk = blk->jblk, .fs_block = blk->fs_block, .csum = &blk->csum };

	*err = 0;
	if (jbd_revoke_test(rt, blk->fs_block, x->sequence, &p->blk_revoker[p->blk_base[t] + b]))
		return JBD_BLK_REVOKED;
	if (blk->fs_block >= fs_blocks)
		return JBD_BLK_OUT_OF_FS;
	if (!jbd_csum_bad(&blk->csum))
		return JBD_BLK_REPLAYED;
	switch (p->policy) {
	case JBD_POLICY_ALL:
		return JBD_BLK_REPLAYED;
	case JBD_POLICY_AUTO:
		if (!pl->hooks || !pl->hooks->decide)
			return JBD_BLK_CSUM;
		/* fall through */
	case JBD_POLICY_ASK:
		switch (ask(pl, &f, err)) {
		case JBD_DECIDE_AS_IS:		return JBD_BLK_REPLAYED;
		case JBD_DECIDE_CORRECTED:	return JBD_BLK_CORRECTED;
		default:			return JBD_BLK_CSUM;
		}
	default:
		return JBD_BLK_CSUM;
	}
}

static int cmp_write(const void *a, const void *b)
{
	const struct replay_write *x = a, *y = b;

	if (x->fs_block != y->fs_block)
		return x->fs_block < y->fs_block ? -1 : 1;
	/* Same block: log order (the scan's transaction index, then block index) decides. */
	if (x->txn != y->txn)
		return x->txn < y->txn ? -1 : 1;
	return x->blk < y->blk ? -1 : x->blk > y->blk;
}

/* Keep the newest version of each block: the last one in log order. */
static void keep_newest(struct replay_plan *p)
{
	size_t i, out = 0;

	qsort(p->writes, p->nwrites, sizeof(*p->writes), cmp_write);
	for (i = 0; i < p->nwrites; i++) {
		if (out && p->writes[out - 1].fs_block == p->writes[i].fs_block) {
			p->writes[out - 1] = p->writes[i];
			p->superseded++;
		} else {
			p->writes[out++] = p->writes[i];
		}
	}
	p->nwrites = out;
}

static errcode_t block_fates(struct planner *pl, uint64_t fs_blocks)
{
	const struct jbd_scan *s = pl->s;
	struct replay_plan *p = pl->p;
	struct jbd_revoke_table rt;
	size_t nblocks = 0;
	errcode_t err;

	err = jbd_revoke_build(s, use_revokes, p, &rt);
	if (err)
		return err;
	for (unsigned t = 0; t < s->ntxns; t++)
		if (p->txn_fate[t] == JBD_TXN_REPLAYED)
			nblocks += s->txns[t].nblocks;
	p->writes = calloc(nblocks ? nblocks : 1, sizeof(*p->writes));
	if (!p->writes) {
		err = EXT2_ET_NO_MEMORY;
		goto out;
	}
	for (unsigned t = 0; t < s->ntxns && !err; t++) {
		const struct jbd_scan_txn *x = &s->txns[t];
		for (unsigned b = 0; b < x->nblocks && !err; b++) {
			enum replay_block_fate f = JBD_BLK_TXN;

			const unsigned char *content = NULL;

			if (p->txn_fate[t] == JBD_TXN_REPLAYED)
				f = block_fate(pl, &rt, fs_blocks, t, b, &err);
			if (jbd_fate_writes(f) && pl->hooks && pl->hooks->content) {
				content = pl->hooks->content(pl->hooks->arg, t, b);
				if (content)
					f = JBD_BLK_CORRECTED;
			}
			p->blk_fate[p->blk_base[t] + b] = f;
			if (f == JBD_BLK_CSUM)
				p->csum_skipped++;
			if (f == JBD_BLK_OUT_OF_FS)
				p->out_of_fs++;
			if (!jbd_fate_writes(f))
				continue;
			p->writes[p->nwrites++] = (struct replay_write){
				.fs_block = x->blocks[b].fs_block,
				.jblk = x->blocks[b].jblk,
				.sequence = x->sequence,
				.txn = t, .blk = b,
				.escaped = !!(x->blocks[b].flags & JBD_FLAG_ESCAPE),
				.content = content,
			};
		}
	}
	if (!err)
		keep_newest(p);
out:
	jbd_revoke_free(&rt);
	return err;
}

/* The journal's s_sequence after recovery, as e2fsck leaves it. */
static uint32_t sequence_after(const struct jbd_journal *j, const struct replay_plan *p)
{
	if (p->as_stop) {
		/* A failed recovery (bad tail, bad count, a block's checksum) leaves it as it was. */
		if (p->recovery_error || p->csum_skipped)
			return j->sequence;
		return p->s->stop_end + 1;
	}
	/* Past every ID of the live log, so none of its commit blocks can match again. */
	return p->s->end_sequence + 1;
}

errcode_t replay_plan_build(const struct jbd_journal *j, const struct jbd_scan *s,
			  enum replay_policy policy, uint64_t fs_blocks,
			  const struct replay_hooks *hooks, struct replay_plan **out)
{
	struct replay_plan *p;
	struct planner pl = { 0 };
	size_t nblocks = 0;
	errcode_t err;

	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return EXT2_ET_NO_MEMORY;
	p->policy = policy;
	p->s = s;
	p->txn_fate = calloc(s->ntxns ? s->ntxns : 1, sizeof(*p->txn_fate));
	p->blk_base = calloc(s->ntxns ? s->ntxns : 1, sizeof(*p->blk_base));
	for (unsigned t = 0; t < s->ntxns; t++) {
		if (p->blk_base)
			p->blk_base[t] = nblocks;
		nblocks += s->txns[t].nblocks;
	}
	p->blk_fate = calloc(nblocks ? nblocks : 1, sizeof(*p->blk_fate));
	p->blk_revoker = calloc(nblocks ? nblocks : 1, sizeof(*p->blk_revoker));
	if (!p->txn_fate || !p->blk_base || !p->blk_fate || !p->blk_revoker) {
		err = EXT2_ET_NO_MEMORY;
		goto fail;
	}
	pl.j = j;
	pl.s = s;
	pl.p = p;
	pl.hooks = hooks;
	pl.decision_cap = 0;
	err = txn_fates(&pl);
	if (!err)
		err = block_fates(&pl, fs_blocks);
	if (err)
		goto fail;
	if (policy == JBD_POLICY_AUTO && !pl.resolved && !p->as_stop) {
		/* Auto, and the diagnosis vouched for nothing: stop's bookkeeping, exactly. */
		fates_stop(&pl);
	}
	if (!p->as_stop && pl.unresolved && !p->has_failed_commit) {
		/* A failure was replayed anyway or left out: record it as e2fsck records a corrupt one. */
		for (unsigned t = 0; t < s->nlive; t++)
			if (s->txns[t].committed && txn_fails(s, t)) {
				p->has_failed_commit = 1;
				p->failed_commit = s->txns[t].sequence;
				break;
			}
	}
	p->new_sequence = sequence_after(j, p);
	*out = p;
	return 0;
fail:
	replay_plan_free(p);
	return err;
}

void replay_plan_free(struct replay_plan *p)
{
	if (!p)
		return;
	free(p->txn_fate);
	free(p->blk_base);
	free(p->blk_fate);
	free(p->blk_revoker);
	free(p->writes);
	free(p->decisions);
	free(p);
}

int replay_log_has_failures(const struct jbd_scan *s)
{
	for (unsigned t = 0; t < s->nlive; t++)
		if (s->txns[t].committed && txn_fails(s, t))
			return 1;
	return 0;
}

unsigned replay_plan_txn_replayed(const struct replay_plan *p, unsigned txn)
{
	unsigned n = 0;

	for (unsigned b = 0; b < p->s->txns[txn].nblocks; b++) {
		enum replay_block_fate f = jbd_plan_block_fate(p, txn, b);
		n += jbd_fate_writes(f);
	}
	return n;
}

void replay_plan_left_out(const struct replay_plan *p, unsigned *txns, unsigned *blocks)
{
	*txns = *blocks = 0;
	for (unsigned t = 0; t < p->s->nlive; t++) {
		if (!p->s->txns[t].committed)
			continue;
		switch (p->txn_fate[t]) {
		case JBD_TXN_PAST_END:
		case JBD_TXN_SKIPPED:
		case JBD_TXN_RECOVERY_FAILS:
			(*txns)++;
			break;
		case JBD_TXN_REPLAYED:
			for (unsigned b = 0; b < p->s->txns[t].nblocks; b++) {
				enum replay_block_fate f = jbd_plan_block_fate(p, t, b);
				*blocks += f == JBD_BLK_CSUM || f == JBD_BLK_OUT_OF_FS;
			}
			break;
		default:
			break;
		}
	}
}

int replay_plan_fs_invalid(const struct replay_plan *p)
{
	/*
	 * e2fsck -y answers "Ignore error?" for a home outside the device and
	 * leaves the filesystem valid; stop matches that (we still refuse the
	 * write and report it). The other policies ask for a full check.
	 */
	return p->recovery_error || p->csum_skipped || (p->out_of_fs && !p->as_stop);
}

/* ---- writing home ---- */

/*
 * Runs of a batch that one journal read fills: writes i .. i+len (consecutive
 * homes, so consecutive slots of the batch buffer) whose copies follow each
 * other in the log.
 */
struct read_run {
	size_t		slot;
	uint32_t	jblk;
	uint32_t	len;
};

static int cmp_run_jblk(const void *a, const void *b)
{
	uint32_t x = ((const struct read_run *)a)->jblk, y = ((const struct read_run *)b)->jblk;

	return x < y ? -1 : x > y;
}

errcode_t replay_write_content(struct jbd_journal *j, const struct replay_write *w, unsigned char *buf)
{
	if (w->content) {
		memcpy(buf, w->content, j->blocksize);
	} else {
		errcode_t err = jbd_journal_read(j, w->jblk, 1, buf);
		if (err)
			return err;
	}
	if (w->escaped) {
		jbd_be32_t magic = jbd_to_be32(JBD_MAGIC);
		memcpy(buf, &magic, sizeof(magic));
	}
	return 0;
}

/*
 * Read the journal copies of writes[0..n) into buf (slot i for write i).
 * A journal of large transactions logs runs of blocks in home order: each
 * run of writes whose copies also follow each other in the log is one read,
 * straight into its slots (no staging copy); the runs are read in log order.
 */
static errcode_t read_batch(struct jbd_journal *j, const struct replay_write *w, size_t n,
			    struct read_run *runs, unsigned char *buf)
{
	size_t bs = j->blocksize, nruns = 0;
	errcode_t err;

	for (size_t i = 0; i < n;) {
		uint32_t len = 1;

		if (!w[i].content)
			while (i + len < n && !w[i + len].content && w[i + len].jblk == w[i].jblk + len)
				len++;
		runs[nruns++] = (struct read_run){ .slot = i, .jblk = w[i].jblk, .len = len };
		i += len;
	}
	qsort(runs, nruns, sizeof(*runs), cmp_run_jblk);
	for (size_t r = 0; r < nruns; r++) {
		const struct replay_write *x = &w[runs[r].slot];
		unsigned char *dst = buf + runs[r].slot * bs;

		if (x->content)
			err = replay_write_content(j, x, dst);
		else
			err = jbd_journal_read(j, runs[r].jblk, runs[r].len, dst);
		if (err)
			return err;
	}
	/* Unescape after the reads (a content write did it already). */
	for (size_t i = 0; i < n; i++)
		if (w[i].escaped && !w[i].content) {
			jbd_be32_t magic = jbd_to_be32(JBD_MAGIC);
			memcpy(buf + i * bs, &magic, sizeof(magic));
		}
	return 0;
}

errcode_t replay_write_blocks(struct jbd_journal *j, const struct replay_plan *p,
				  io_channel fs_io, int wb_fd, uint64_t *written)
{
	size_t bs = j->blocksize, done = 0, batch;
	size_t max_run = REPLAY_WRITE_BYTES / bs ? REPLAY_WRITE_BYTES / bs : 1;
	unsigned char *buf;
	struct read_run *runs;
	errcode_t err = 0;

	*written = 0;
	if (!p->nwrites)
		return 0;
	/* Room for the writes there are, not a whole batch: most replays write a few blocks. */
	batch = p->nwrites < REPLAY_BATCH_BLOCKS ? p->nwrites : REPLAY_BATCH_BLOCKS;
	buf = malloc(batch * bs);
	runs = malloc(batch * sizeof(*runs));
	if (!buf || !runs) {
		err = EXT2_ET_NO_MEMORY;
		goto out;
	}
	while (done < p->nwrites) {
		const struct replay_write *w = p->writes + done;
		size_t n = p->nwrites - done;

		if (n > batch)
			n = batch;
		err = read_batch(j, w, n, runs, buf);
		if (err)
			goto out;
		/* Writes are sorted by home block: each run of consecutive homes is one write (up to max_run). */
		for (size_t i = 0; i < n;) {
			size_t run = 1;
			while (i + run < n && run < max_run && w[i + run].fs_block == w[i].fs_block + run)
				run++;
			err = io_channel_write_blk64(fs_io, w[i].fs_block, (int)run, buf + i * bs);
			if (err)
				goto out;
			*written += run;
			i += run;
		}
		/* The disk starts on this batch while the next is read: the flush below has less to wait for. */
		fs_writeback_start(wb_fd, w[0].fs_block * bs, (w[n - 1].fs_block - w[0].fs_block + 1) * bs);
		jbd_progress(j, JBD_PROGRESS_WRITE, done + n, p->nwrites);
		done += n;
	}
	err = io_channel_flush(fs_io);
out:
	free(buf);
	free(runs);
	return err;
}
