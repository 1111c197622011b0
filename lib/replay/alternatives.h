/* What each other replay policy would write differently from a plan, block by block, and what those blocks hold. */
#ifndef E4R_REPLAY_ALTERNATIVES_H
#define E4R_REPLAY_ALTERNATIVES_H

#include "replay/plan.h"
#include "fs/decode.h"

/* One home block whose content after the replay would differ. */
struct replay_alt_block {
	uint64_t		fs_block;
	int			base_writes, alt_writes;	/* whether each plan writes it */
	uint32_t		base_seq, alt_seq;		/* the transaction of the version written */
	struct fs_block_info	info;
	/*
	 * Inode tables: the inodes whose on-disk inode differs; inode bitmaps:
	 * the inodes whose bit differs. Block bitmaps: nbits differing bits.
	 */
	ext2_ino_t		*inodes;
	unsigned		ninodes;
	unsigned		nbits;
	char			*path;		/* directories: the directory's path before the replay, or NULL */
};

struct replay_alt {
	enum replay_policy	policy;
	struct replay_plan	*plan;
	unsigned		txns_more;	/* transactions it replays that the base plan does not */
	unsigned		txns_fewer;	/* and the other way round */
	struct replay_alt_block	*blocks;	/* sorted by fs_block */
	size_t			nblocks;
};

#define REPLAY_MAX_ALTS	3

struct replay_alts {
	struct replay_alt	alt[REPLAY_MAX_ALTS];	/* skip-block, skip-transaction, all */
	unsigned		nalts;
	int			decode_partial;	/* some owners may be missing (fs_decode_partial) */
};

/*
 * Plan every other policy that replays something (skip-block,
 * skip-transaction, all) over S, and compare each with BASE: the blocks
 * whose content after the replay would differ (the version each plan
 * writes, or the home block as it is where a plan writes nothing there),
 * named, with the inodes they concern. Reads the journal and home blocks
 * through J; call it before the base plan is written. Pure otherwise.
 */
errcode_t replay_alternatives(struct jbd_journal *j, const struct jbd_scan *s, const struct replay_plan *base,
			      struct replay_alts **out);
void replay_alternatives_free(struct replay_alts *a);

/* 1 when an auto plan left something out that another policy would write (worth showing the alternatives). */
int replay_plan_fell_back(const struct replay_plan *p);

#endif
