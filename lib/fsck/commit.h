/*
 * A repair round reaches the disk whole or not at all. While it runs, its
 * writes are held by the overlay (fs/overlay_io.h); at its end
 * fsck_commit_round writes them as one transaction of the filesystem's own
 * journal (jbd/logwrite.h) and then home, so that a power cut leaves either
 * the state before the round or, after any replay (the kernel's mount,
 * e2fsck's, ours), the state after it. A round larger than the log takes
 * several transactions, the first saying "not clean" and the last
 * carrying the round's superblock. Where no journal can be used the
 * blocks go home directly: a cut can then land between them, but a round
 * that cannot finish still writes nothing (fsck_commit_drop).
 */
#ifndef E4R_FSCK_COMMIT_H
#define E4R_FSCK_COMMIT_H

#include <ext2fs/ext2fs.h>

#include "check/check.h"

/* Hold FS's writes from now on (FS opened through fs_overlay_io). */
errcode_t fsck_commit_begin(ext2_filsys fs);

/*
 * End a round: libext2fs's metadata held in memory (bitmaps, descriptors,
 * superblock) joins the round's other writes, and all of them reach the
 * disk as one transaction, or directly (N, when not NULL, counts which, and why).
 * FINAL: the run's last writes; the earlier ones leave the filesystem marked
 * not clean (the last set its state). A failure after the transaction was
 * committed sets N->in_log: the round is not dropped, the next replay ends it.
 */
errcode_t fsck_commit_round(ext2_filsys fs, struct check_commits *n, int final);

/*
 * A round that cannot finish: nothing it wrote reaches the disk, and the
 * superblock on the disk (the state before the round) is marked with
 * errors, so that the next check, a preen too, checks fully. FS's memory
 * holds the dropped round: it must be closed without writing
 * (fsck_commit_close_dropped).
 */
errcode_t fsck_commit_drop(ext2_filsys fs);

/*
 * fsck_commit_drop, and R says so: round ROUND (from 1; 0 for the last
 * writes) was dropped for ERR.
 */
void fsck_commit_drop_round(ext2_filsys fs, struct check_result *r, unsigned round, errcode_t err);

/* Close FS after fsck_commit_drop: nothing more is written. */
void fsck_commit_close_dropped(ext2_filsys *fs);

#endif
