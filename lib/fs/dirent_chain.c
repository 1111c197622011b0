/*
 * Where sound directory entries start again after a corrupt one: a scan of
 * every 4-byte offset of the region, from its end back.
 *
 * Its own file so that the fuzz build can leave it untraced
 * (fuzz/coverage-ignore.txt): a fuzzed image is often a directory of
 * hundreds of garbage blocks, each scanned whole, and in fuzz_check's
 * profile on a grown corpus the comparisons of this loop, every one traced
 * for libFuzzer, were a quarter of all samples. Its branches follow garbage
 * bytes; what it finds steers the salvage, whose branches stay traced.
 */
#include "config.h"

#include <string.h>

#include "fs/dirent.h"
#include "fs/dirent_salvage.h"

unsigned fs_dirent_chain_start(ext2_filsys fs, const char *buf, unsigned end, unsigned first)
{
	/* chains[n / 4]: sound entries from offset n chain to END (blocks are at most 64 KiB) */
	unsigned char chains[EXT2_MAX_BLOCK_SIZE / 4 + 1];
	unsigned n, len, found = 0;

	if (end % 4 || first >= end || end < FS_DIRENT_HEADER || end > EXT2_MAX_BLOCK_SIZE || !first)
		return 0;
	memset(chains, 0, end / 4 + 1);
	chains[end / 4] = 1;
	/*
	 * The last 4 bytes cannot hold an entry's header. N stays a multiple
	 * of 4 and FIRST is above 0, so the loop ends before N would wrap.
	 */
	for (n = end - FS_DIRENT_HEADER; n >= first; n -= 4) {
		/*
		 * Where the record would end is asked first: at nearly every
		 * offset of a garbage block it ends past END or nowhere a
		 * chain starts, and the entry is never read.
		 */
		if (fs_dirent_rec_len(fs, (const struct ext2_dir_entry *)(buf + n), &len) ||
		    len > end - n || !chains[(n + len) / 4])
			continue;
		if (!fs_dirent_corrupt(fs, buf, end, n) &&
		    fs_dirent_inode((const struct ext2_dir_entry *)(buf + n)) <= fs->super->s_inodes_count) {
			chains[n / 4] = 1;
			found = n;
		}
	}
	return found;
}
