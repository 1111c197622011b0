/*
 * ext4 directory-index name hashes, written from the format's description:
 * the name is cut into chunks (32 bytes for half-MD4, 16 for TEA), each
 * packed big-end-first into 32-bit words padded with the remaining length,
 * and folded into a 4-word state that starts from the filesystem's seed.
 */
#include "config.h"

#include <string.h>

#include "util/dirhash.h"

#define ROL32(x, s)	(((x) << (s)) | ((x) >> (32 - (s))))

/* MD4's round constants; half-MD4 keeps MD4's three rounds over 8 words. */
#define MD4_K2		0x5a827999u
#define MD4_K3		0x6ed9eba1u
#define TEA_DELTA	0x9e3779b9u
#define TEA_ROUNDS	16

static const uint32_t default_start[4] = { 0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u };

/*
 * Pack up to NWORDS*4 bytes of the LEFT bytes at P into NWORDS words: each
 * byte shifts in at the bottom, four per word, the first byte ending up
 * highest; words not filled start from (and are) the pad, which repeats the
 * byte count LEFT (before it is cut to the chunk) in every byte.
 *
 * With signed bytes a byte above 127 is added as a negative number: it
 * borrows 1 from the byte above it, so a word is its unsigned value less
 * the high bits of its bytes shifted up one (the borrow out of the top
 * byte of a full word falls off the 32 bits, as a byte at a time it does).
 */
static inline __attribute__((always_inline)) void
pack_chunk(const unsigned char *p, unsigned left, uint32_t *w, unsigned nwords, int is_unsigned)
{
	uint32_t pad = left;
	unsigned take = left < nwords * 4 ? left : nwords * 4;
	unsigned i = 0, k = 0, r;

	pad |= pad << 8;
	pad |= pad << 16;
	/* the pad first, in every word (NWORDS is a constant where this is inlined) */
	for (unsigned j = 0; j < nwords; j++)
		w[j] = pad;
	for (; i + 4 <= take; i += 4) {
		uint32_t v = (uint32_t)p[i] << 24 | (uint32_t)p[i + 1] << 16 | (uint32_t)p[i + 2] << 8 | p[i + 3];

		w[k++] = is_unsigned ? v : v - ((v & 0x00808080u) << 1);
	}
	r = take - i;
	if (k < nwords) {
		uint32_t v = 0, word;

		for (unsigned j = 0; j < r; j++)
			v = v << 8 | p[i + j];
		/* r is 0..3 here: the pad's bytes stay above the last bytes of the name */
		word = pad << (8 * r) | v;
		if (!is_unsigned && r)
			word -= (v & (0x80808080u >> (8 * (4 - r)))) << 1;
		w[k] = word;
	}
}

#define MD4_F(x, y, z)	((z) ^ ((x) & ((y) ^ (z))))
#define MD4_G(x, y, z)	(((x) & (y)) + (((x) ^ (y)) & (z)))
#define MD4_H(x, y, z)	((x) ^ (y) ^ (z))
#define MD4_STEP(f, a, b, c, d, x, s)	((a) += f((b), (c), (d)) + (x), (a) = ROL32((a), (s)))

static void half_md4(uint32_t st[4], const uint32_t in[8])
{
	uint32_t a = st[0], b = st[1], c = st[2], d = st[3];

	MD4_STEP(MD4_F, a, b, c, d, in[0], 3);
	MD4_STEP(MD4_F, d, a, b, c, in[1], 7);
	MD4_STEP(MD4_F, c, d, a, b, in[2], 11);
	MD4_STEP(MD4_F, b, c, d, a, in[3], 19);
	MD4_STEP(MD4_F, a, b, c, d, in[4], 3);
	MD4_STEP(MD4_F, d, a, b, c, in[5], 7);
	MD4_STEP(MD4_F, c, d, a, b, in[6], 11);
	MD4_STEP(MD4_F, b, c, d, a, in[7], 19);

	MD4_STEP(MD4_G, a, b, c, d, in[1] + MD4_K2, 3);
	MD4_STEP(MD4_G, d, a, b, c, in[3] + MD4_K2, 5);
	MD4_STEP(MD4_G, c, d, a, b, in[5] + MD4_K2, 9);
	MD4_STEP(MD4_G, b, c, d, a, in[7] + MD4_K2, 13);
	MD4_STEP(MD4_G, a, b, c, d, in[0] + MD4_K2, 3);
	MD4_STEP(MD4_G, d, a, b, c, in[2] + MD4_K2, 5);
	MD4_STEP(MD4_G, c, d, a, b, in[4] + MD4_K2, 9);
	MD4_STEP(MD4_G, b, c, d, a, in[6] + MD4_K2, 13);

	MD4_STEP(MD4_H, a, b, c, d, in[3] + MD4_K3, 3);
	MD4_STEP(MD4_H, d, a, b, c, in[7] + MD4_K3, 9);
	MD4_STEP(MD4_H, c, d, a, b, in[2] + MD4_K3, 11);
	MD4_STEP(MD4_H, b, c, d, a, in[6] + MD4_K3, 15);
	MD4_STEP(MD4_H, a, b, c, d, in[1] + MD4_K3, 3);
	MD4_STEP(MD4_H, d, a, b, c, in[5] + MD4_K3, 9);
	MD4_STEP(MD4_H, c, d, a, b, in[0] + MD4_K3, 11);
	MD4_STEP(MD4_H, b, c, d, a, in[4] + MD4_K3, 15);

	st[0] += a;
	st[1] += b;
	st[2] += c;
	st[3] += d;
}

/* TEA's 16 rounds over the first two state words, keyed by the 4 input words. */
static void tea(uint32_t st[4], const uint32_t in[4])
{
	uint32_t x = st[0], y = st[1], sum = 0;

	for (int r = 0; r < TEA_ROUNDS; r++) {
		sum += TEA_DELTA;
		x += ((y << 4) + in[0]) ^ (y + sum) ^ ((y >> 5) + in[1]);
		y += ((x << 4) + in[2]) ^ (x + sum) ^ ((x >> 5) + in[3]);
	}
	st[0] += x;
	st[1] += y;
}

/* The legacy hash: a two-word recurrence over the bytes, no seed. */
static uint32_t legacy(const unsigned char *p, unsigned len, int is_unsigned)
{
	uint32_t h0 = 0x12a3fe2du, h1 = 0x37abe8f9u;

	for (unsigned i = 0; i < len; i++) {
		uint32_t ch = is_unsigned ? (uint32_t)p[i] : (uint32_t)(int32_t)(signed char)p[i];
		uint32_t h = h1 + (h0 ^ (ch * 7152373u));

		if (h & 0x80000000u)
			h -= 0x7fffffffu;
		h1 = h0;
		h0 = h;
	}
	return h0 << 1;
}

int util_dirhash(int version, const char *name, unsigned len, const uint32_t seed[4],
		 uint32_t *hash, uint32_t *minor)
{
	const unsigned char *p = (const unsigned char *)name;
	uint32_t st[4], in[8];
	uint32_t major, low = 0;
	int is_unsigned = version >= UTIL_HASH_LEGACY_UNSIGNED;
	unsigned left;

	if (seed && (seed[0] | seed[1] | seed[2] | seed[3]))
		memcpy(st, seed, sizeof(st));
	else
		memcpy(st, default_start, sizeof(st));

	switch (version) {
	case UTIL_HASH_LEGACY:
	case UTIL_HASH_LEGACY_UNSIGNED:
		major = legacy(p, len, is_unsigned);
		break;
	case UTIL_HASH_HALF_MD4:
	case UTIL_HASH_HALF_MD4_UNSIGNED:
		for (left = len; left > 0; left -= left < 32 ? left : 32, p += 32) {
			pack_chunk(p, left, in, 8, is_unsigned);
			half_md4(st, in);
		}
		major = st[1];
		low = st[2];
		break;
	case UTIL_HASH_TEA:
	case UTIL_HASH_TEA_UNSIGNED:
		for (left = len; left > 0; left -= left < 16 ? left : 16, p += 16) {
			pack_chunk(p, left, in, 4, is_unsigned);
			tea(st, in);
		}
		major = st[0];
		low = st[1];
		break;
	default:
		return -1;
	}
	/* bit 0 is the collision flag in index entries, and ~1 marks the end of the directory */
	major &= ~1u;
	if (major == 0xfffffffeu)
		major = 0xfffffffcu;
	*hash = major;
	if (minor)
		*minor = low;
	return 0;
}
