/* Faults of the log's structure, named as such: revoke counts, descriptor tags, commit headers. */
#ifndef E4R_DIAG_STRUCTURE_H
#define E4R_DIAG_STRUCTURE_H

#include "diag/diagnose.h"

/* Revoke block R's count past the block: the evidence into F (cause JBD_CAUSE_REVOKE_COUNT). */
void diag_revoke_count(const struct jbd_journal *j, const struct jbd_scan_revoke *r, struct diag_finding *f);

/*
 * Descriptor D of T has no last tag: its tags ran to the block's end. The
 * evidence into F (cause JBD_CAUSE_DESCRIPTOR_TAGS): how many tags were
 * read, and whether one of them claims a block of T's own log (a
 * descriptor, revoke or commit block of T, unescaped), which no writer
 * tags: then the tag count cannot be, and the scan read that block as data.
 */
errcode_t diag_descriptor_tags(struct jbd_journal *j, const struct jbd_scan_txn *t, unsigned d,
			       struct diag_finding *f);

/* T's commit header, whose checksum type and size the features do not allow: the evidence into F. */
void diag_commit_header(const struct jbd_scan_txn *t, struct diag_finding *f);

#endif
