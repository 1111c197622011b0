/* Damage that overwrote a block rather than flipping bits in it: filled fields, misdirected and torn writes. */
#ifndef E4R_DIAG_OVERWRITE_H
#define E4R_DIAG_OVERWRITE_H

#include "diag/diagnose.h"

/* A write tears at the device's sector boundaries, 512 bytes apart. */
#define DIAG_SECTOR_SIZE	512

/* 1 when V, within MASK, is all ones or all zeros; *BYTE says which (0xff or 0x00). */
int diag_fill_value(uint32_t v, uint32_t mask, uint8_t *byte);

/* 1 when BLK (SIZE bytes) is all ones or all zeros; *BYTE says which. */
int diag_fill_block(const unsigned char *blk, unsigned size, uint8_t *byte);

/*
 * The crc32c of every block of the live log of S, read once and kept for
 * every finding after (NULL until the first match asked for).
 */
struct diag_log_hashes;
void diag_log_hashes_free(struct diag_log_hashes *h);

/*
 * Does CONTENT, the journal block JBLK of transaction TI of S (its logged
 * block BI, or -1 for a descriptor, revoke or commit block), equal another
 * block: another block of the live log (other than a logged copy of the
 * same home, which is another version of it, not another block), or the
 * home block of another tag of the transaction? Content of one repeated
 * byte matches too much to be evidence and is never matched. Fills *OUT
 * and returns 1 when it does (hashes compared first, then the bytes).
 */
errcode_t diag_match_find(struct jbd_journal *j, const struct jbd_scan *s, struct diag_log_hashes **hashes,
			  unsigned ti, int bi, uint32_t jblk, const unsigned char *content,
			  struct diag_match *out, int *found);

/*
 * Is CONTENT, logged block BI of transaction TI (v2/v3), a torn write? Each
 * other version of its home (the live log's other copies, the home block)
 * whose content makes the block's tag checksum match is the intended
 * content: the block is torn when it equals that version up to a sector
 * boundary and differs from it in every sector after (or the other way
 * round), by more bits than a flip search looks for. Fills F's torn_*
 * fields and sets *FOUND.
 */
errcode_t diag_torn_find(struct jbd_journal *j, const struct jbd_scan *s, unsigned ti, unsigned bi,
			 const unsigned char *content, struct diag_finding *f, int *found);

#endif
