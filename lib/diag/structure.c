/*
 * Faults of the log's structure, named as such rather than as checksum
 * errors. The scan records each (jbd/scan.c): a revoke block's r_count
 * past the block (e2fsck fails the whole recovery), a descriptor without a
 * last tag (e2fsck reads tags to the block's end, so the blocks after it
 * are taken as data; jbd2 marks the last tag of every descriptor it
 * writes), a commit header whose checksum type and size the journal's
 * features do not allow (jbd2 writes crc32 and 4 with v1, zeros otherwise).
 */
#include "config.h"

#include <stdlib.h>

#include "diag/structure.h"

void diag_revoke_count(const struct jbd_journal *j, const struct jbd_scan_revoke *r, struct diag_finding *f)
{
	unsigned tail = (j->csum == JBD_CSUM_V2 || j->csum == JBD_CSUM_V3) ? JBD_TAIL_SIZE : 0;

	f->structure = 1;
	f->cause = JBD_CAUSE_REVOKE_COUNT;
	f->r_count = r->r_count;
	f->r_count_max = j->blocksize - tail;
}

/* BLK is a block of transaction SEQ's own log: the magic, a log block type, its sequence. */
static int own_log_block(const unsigned char *blk, uint32_t seq)
{
	struct jbd_header h;
	uint32_t type;

	jbd_load(&h, blk);
	type = jbd_be32(h.h_blocktype);
	return jbd_be32(h.h_magic) == JBD_MAGIC && jbd_be32(h.h_sequence) == seq &&
	       (type == JBD_DESCRIPTOR_BLOCK || type == JBD_COMMIT_BLOCK || type == JBD_REVOKE_BLOCK);
}

errcode_t diag_descriptor_tags(struct jbd_journal *j, const struct jbd_scan_txn *t, unsigned d,
			       struct diag_finding *f)
{
	unsigned char *buf = malloc(j->blocksize);
	errcode_t err = 0;

	if (!buf)
		return EXT2_ET_NO_MEMORY;
	f->structure = 1;
	f->cause = JBD_CAUSE_DESCRIPTOR_TAGS;
	f->ntags = t->descs[d].ntags;
	for (unsigned b = 0; b < t->nblocks && !f->claims_log_block; b++) {
		const struct jbd_scan_block *x = &t->blocks[b];

		/* an escaped block had the magic: its own header says nothing */
		if (x->desc != d || (x->flags & JBD_FLAG_ESCAPE))
			continue;
		if ((err = jbd_journal_read(j, x->jblk, 1, buf)))
			break;
		if (own_log_block(buf, t->sequence)) {
			f->claims_log_block = 1;
			f->claimed_jblk = x->jblk;
		}
	}
	free(buf);
	return err;
}

void diag_commit_header(const struct jbd_scan_txn *t, struct diag_finding *f)
{
	f->structure = 1;
	f->cause = JBD_CAUSE_COMMIT_HEADER;
	f->header_type = t->commit_csum_type;
	f->header_size = t->commit_csum_size;
}
