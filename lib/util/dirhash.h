/*
 * The htree name hashes of ext3/ext4 directories without casefolding:
 * legacy, half-MD4 and TEA, each with signed or unsigned name bytes.
 * libext2fs has them too (ext2fs_dirhash2); pass 2 hashes every name of
 * every htree leaf, and a call into the library costs more than the hash.
 */
#ifndef E4R_UTIL_DIRHASH_H
#define E4R_UTIL_DIRHASH_H

#include <stdint.h>

/* The on-disk hash versions (dx_root's hash_version; +3 when the superblock says unsigned). */
enum {
	UTIL_HASH_LEGACY = 0,
	UTIL_HASH_HALF_MD4 = 1,
	UTIL_HASH_TEA = 2,
	UTIL_HASH_LEGACY_UNSIGNED = 3,
	UTIL_HASH_HALF_MD4_UNSIGNED = 4,
	UTIL_HASH_TEA_UNSIGNED = 5,
};

/*
 * The major hash (low bit clear, never the end-of-directory value) and the
 * minor hash of LEN bytes of NAME under VERSION and SEED (the superblock's
 * s_hash_seed in CPU order; all zeros means the default start). MINOR may
 * be NULL. Returns 0, or -1 for a version not listed above (SipHash and
 * casefolded names are the library's).
 */
int util_dirhash(int version, const char *name, unsigned len, const uint32_t seed[4],
		 uint32_t *hash, uint32_t *minor);

#endif
