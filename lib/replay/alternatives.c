/* What each other replay policy would write differently from a plan, and what those blocks hold. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "replay/alternatives.h"
#include "util/sorted.h"

static const enum replay_policy alt_policies[REPLAY_MAX_ALTS] = {
	JBD_POLICY_SKIP_BLOCK, JBD_POLICY_SKIP_TXN, JBD_POLICY_ALL,
};

int replay_plan_fell_back(const struct replay_plan *p)
{
	return p->policy == JBD_POLICY_AUTO && p->checksum_failures &&
	       (p->has_failed_commit || p->csum_skipped || p->recovery_error);
}

static const struct replay_write *find_write(const struct replay_plan *p, uint64_t blk)
{
	size_t i = util_find_key(UTIL_SORTED(p->writes, p->nwrites, fs_block), blk);

	return i < p->nwrites ? &p->writes[i] : NULL;
}

/* What BLK holds after plan P: the version it writes, or the home block as it is. */
static errcode_t content_after(struct jbd_journal *j, const struct replay_write *w, uint64_t blk,
			       unsigned char *buf)
{
	if (w)
		return replay_write_content(j, w, buf);
	return io_channel_read_blk64(j->fs->io, blk, 1, buf);
}

static int same_version(const struct replay_write *a, const struct replay_write *b)
{
	if (!a || !b)
		return !a && !b;
	return a->jblk == b->jblk && a->content == b->content;
}

static errcode_t add_block(struct replay_alt *alt, size_t *cap, const struct replay_write *bw,
			   const struct replay_write *aw, uint64_t blk)
{
	struct replay_alt_block *b;

	if (alt->nblocks == *cap) {
		size_t ncap = *cap ? *cap * 2 : 32;
		void *n = realloc(alt->blocks, ncap * sizeof(*alt->blocks));
		if (!n)
			return EXT2_ET_NO_MEMORY;
		alt->blocks = n;
		*cap = ncap;
	}
	b = &alt->blocks[alt->nblocks++];
	memset(b, 0, sizeof(*b));
	b->fs_block = blk;
	b->base_writes = bw != NULL;
	b->alt_writes = aw != NULL;
	b->base_seq = bw ? bw->sequence : 0;
	b->alt_seq = aw ? aw->sequence : 0;
	return 0;
}

/* Every home block either plan writes, and whose final content the two disagree on. */
static errcode_t compare(struct jbd_journal *j, const struct replay_plan *base, struct replay_alt *alt,
			 unsigned char *x, unsigned char *y)
{
	const struct replay_plan *p = alt->plan;
	size_t i = 0, k = 0, cap = 0;
	errcode_t err = 0;

	while (!err && (i < base->nwrites || k < p->nwrites)) {
		const struct replay_write *bw = NULL, *aw = NULL;
		uint64_t blk;

		if (k >= p->nwrites || (i < base->nwrites && base->writes[i].fs_block <= p->writes[k].fs_block))
			blk = base->writes[i].fs_block;
		else
			blk = p->writes[k].fs_block;
		if (i < base->nwrites && base->writes[i].fs_block == blk)
			bw = &base->writes[i++];
		if (k < p->nwrites && p->writes[k].fs_block == blk)
			aw = &p->writes[k++];
		if (same_version(bw, aw))
			continue;
		err = content_after(j, bw, blk, x);
		if (!err)
			err = content_after(j, aw, blk, y);
		if (!err && memcmp(x, y, j->blocksize))
			err = add_block(alt, &cap, bw, aw, blk);
	}
	return err;
}

/* Name the block, and say which inodes its difference concerns. */
static errcode_t detail(struct jbd_journal *j, struct fs_decode *dec, const struct replay_plan *base,
			struct replay_alt *alt, struct replay_alt_block *b, unsigned char *x, unsigned char *y)
{
	ext2_filsys fs = j->fs;
	unsigned isize = EXT2_INODE_SIZE(fs->super), n = 0, max = 0;
	errcode_t err;

	err = fs_decode_lookup(dec, b->fs_block, &b->info);
	if (!err)
		err = content_after(j, find_write(base, b->fs_block), b->fs_block, x);
	if (!err)
		err = content_after(j, find_write(alt->plan, b->fs_block), b->fs_block, y);
	if (err)
		return err;
	if (b->info.kind == E4R_KIND_INODE_TABLE)
		max = j->blocksize / isize;
	else if (b->info.kind == E4R_KIND_INODE_BITMAP)
		max = fs->super->s_inodes_per_group;
	if (max) {
		b->inodes = calloc(max, sizeof(*b->inodes));
		if (!b->inodes)
			return EXT2_ET_NO_MEMORY;
	}
	if (b->info.kind == E4R_KIND_INODE_TABLE) {
		for (unsigned i = 0; i < max; i++)
			if (memcmp(x + i * isize, y + i * isize, isize) && b->info.ino_first + i <= b->info.ino_last)
				b->inodes[n++] = b->info.ino_first + i;
	} else if (b->info.kind == E4R_KIND_INODE_BITMAP || b->info.kind == E4R_KIND_BLOCK_BITMAP) {
		unsigned bits = b->info.kind == E4R_KIND_INODE_BITMAP ? fs->super->s_inodes_per_group :
									  j->blocksize * 8;
		if (bits > j->blocksize * 8)
			bits = j->blocksize * 8;
		for (unsigned i = 0; i < bits; i++) {
			if (!((x[i / 8] ^ y[i / 8]) & (1U << (i % 8))))
				continue;
			b->nbits++;
			if (b->inodes)
				b->inodes[n++] = (ext2_ino_t)(b->info.group * fs->super->s_inodes_per_group + i + 1);
		}
	}
	b->ninodes = n;
	if (b->info.kind == E4R_KIND_DIRECTORY && b->info.inode &&
	    ext2fs_get_pathname(fs, b->info.inode, 0, &b->path))
		b->path = NULL;	/* a damaged tree only costs the name */
	return 0;
}

static void txn_counts(const struct jbd_scan *s, const struct replay_plan *base, struct replay_alt *alt)
{
	for (unsigned t = 0; t < s->nlive; t++) {
		int in_base = base->txn_fate[t] == JBD_TXN_REPLAYED;
		int in_alt = alt->plan->txn_fate[t] == JBD_TXN_REPLAYED;
		alt->txns_more += in_alt && !in_base;
		alt->txns_fewer += in_base && !in_alt;
	}
}

errcode_t replay_alternatives(struct jbd_journal *j, const struct jbd_scan *s, const struct replay_plan *base,
			      struct replay_alts **out)
{
	uint64_t fs_blocks = ext2fs_blocks_count(j->fs->super);
	struct replay_alts *a = calloc(1, sizeof(*a));
	unsigned char *x = malloc(j->blocksize), *y = malloc(j->blocksize);
	struct fs_decode *dec = NULL;
	errcode_t err = 0;

	*out = NULL;
	if (!a || !x || !y) {
		err = EXT2_ET_NO_MEMORY;
		goto out;
	}
	for (unsigned i = 0; i < REPLAY_MAX_ALTS && !err; i++) {
		struct replay_alt *alt = &a->alt[a->nalts];
		alt->policy = alt_policies[i];
		err = replay_plan_build(j, s, alt->policy, fs_blocks, NULL, &alt->plan);
		if (err)
			break;
		a->nalts++;
		txn_counts(s, base, alt);
		err = compare(j, base, alt, x, y);
	}
	if (!err)
		err = fs_decode_new(j->fs, &dec);
	for (unsigned i = 0; i < a->nalts && !err; i++)
		for (size_t b = 0; b < a->alt[i].nblocks && !err; b++)
			err = fs_decode_want(dec, a->alt[i].blocks[b].fs_block);
	for (unsigned i = 0; i < a->nalts && !err; i++)
		for (size_t b = 0; b < a->alt[i].nblocks && !err; b++)
			err = detail(j, dec, base, &a->alt[i], &a->alt[i].blocks[b], x, y);
	if (!err)
		a->decode_partial = fs_decode_partial(dec);
out:
	fs_decode_free(dec);
	free(x);
	free(y);
	if (err) {
		replay_alternatives_free(a);
		return err;
	}
	*out = a;
	return 0;
}

void replay_alternatives_free(struct replay_alts *a)
{
	if (!a)
		return;
	for (unsigned i = 0; i < a->nalts; i++) {
		for (size_t b = 0; b < a->alt[i].nblocks; b++) {
			free(a->alt[i].blocks[b].inodes);
			ext2fs_free_mem(&a->alt[i].blocks[b].path);
		}
		free(a->alt[i].blocks);
		replay_plan_free(a->alt[i].plan);
	}
	free(a);
}
