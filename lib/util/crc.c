/* CRC32C (SSE4.2 instruction when present, libext2fs otherwise) and table-driven (slice-by-8) CRC32 big-endian. */
#include "config.h"

#include <pthread.h>
#include <string.h>
#include <ext2fs/ext2fs.h>

#include "util/crc.h"

/* Polynomial of CRC-32 (IEEE 802.3), processed MSB first. */
#define E4R_CRC32_BE_POLY	0x04C11DB7U

uint32_t util_crc32c_sw(uint32_t crc, const void *buf, size_t len)
{
	return ext2fs_crc32c_le(crc, buf, len);
}

#if defined(__x86_64__) || defined(__i386__)
#define E4R_HAVE_X86_CRC 1

/*
 * The crc32 instruction takes 3 cycles to give its result but can start a
 * new one every cycle: one chain of instructions over a buffer runs at a
 * third of the speed three independent chains reach. Long buffers are
 * therefore cut into three stripes, each its own chain (the second and
 * third started from 0), and the three registers joined: a register
 * carried over N more bytes is its register carried over N zero bytes xor
 * the register of those bytes started from 0, and carrying over zero bytes
 * is linear in the register, so it is four table lookups (one per byte of
 * the register), in tables built once with the instruction.
 *
 * Two stripe sizes: 1360 bytes makes a 4 KiB block one round with one join
 * (journal blocks, directory blocks, bitmaps); 64 bytes pays from 192
 * bytes, a 256-byte inode, and takes what is left of longer inputs.
 */
#define CRC_STRIPE_LONG		1360
#define CRC_STRIPE_SHORT	64

/* shift_long[k][v], shift_short[k][v]: the register (v << 8k) after a stripe of zero bytes. */
static uint32_t shift_long[4][256];
static uint32_t shift_short[4][256];

__attribute__((target("sse4.2")))
static uint32_t crc32c_serial(uint32_t crc, const unsigned char *p, size_t len)
{
#ifdef __x86_64__
	uint64_t c64 = crc;

	while (len >= 8) {
		uint64_t v;

		memcpy(&v, p, sizeof(v));
		c64 = __builtin_ia32_crc32di(c64, v);
		p += 8;
		len -= 8;
	}
	crc = (uint32_t)c64;
#endif
	while (len >= 4) {
		uint32_t v;

		memcpy(&v, p, sizeof(v));
		crc = __builtin_ia32_crc32si(crc, v);
		p += 4;
		len -= 4;
	}
	while (len--)
		crc = __builtin_ia32_crc32qi(crc, *p++);
	return crc;
}

__attribute__((target("sse4.2")))
static void shift_init(void)
{
	static const unsigned char zero[CRC_STRIPE_LONG];

	for (unsigned b = 0; b < 4; b++)
		for (unsigned v = 0; v < 256; v++) {
			shift_long[b][v] = crc32c_serial((uint32_t)v << (8 * b), zero, CRC_STRIPE_LONG);
			shift_short[b][v] = crc32c_serial((uint32_t)v << (8 * b), zero, CRC_STRIPE_SHORT);
		}
}

/* The register C after a stripe of zero bytes, by the stripe's table T. */
static inline uint32_t shift_stripe(uint32_t t[4][256], uint32_t c)
{
	return t[0][c & 0xff] ^ t[1][(c >> 8) & 0xff] ^ t[2][(c >> 16) & 0xff] ^ t[3][c >> 24];
}

#ifdef __x86_64__
/* Three chains over *P's next 3 x STRIPE bytes, joined; *P and *LEN move past them. */
__attribute__((target("sse4.2")))
static inline uint32_t crc32c_3way(uint32_t crc, const unsigned char **p, size_t *len,
				   size_t stripe, uint32_t t[4][256])
{
	const unsigned char *q = *p;
	uint64_t a = crc, b = 0, c = 0;

	for (size_t i = 0; i < stripe; i += 8) {
		uint64_t va, vb, vc;

		memcpy(&va, q + i, sizeof(va));
		memcpy(&vb, q + stripe + i, sizeof(vb));
		memcpy(&vc, q + 2 * stripe + i, sizeof(vc));
		a = __builtin_ia32_crc32di(a, va);
		b = __builtin_ia32_crc32di(b, vb);
		c = __builtin_ia32_crc32di(c, vc);
	}
	*p = q + 3 * stripe;
	*len -= 3 * stripe;
	return shift_stripe(t, shift_stripe(t, (uint32_t)a) ^ (uint32_t)b) ^ (uint32_t)c;
}
#endif

__attribute__((target("sse4.2")))
static uint32_t crc32c_hw(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

#ifdef __x86_64__
	while (len >= 3 * CRC_STRIPE_LONG)
		crc = crc32c_3way(crc, &p, &len, CRC_STRIPE_LONG, shift_long);
	while (len >= 3 * CRC_STRIPE_SHORT)
		crc = crc32c_3way(crc, &p, &len, CRC_STRIPE_SHORT, shift_short);
#endif
	return crc32c_serial(crc, p, len);
}
#endif

/* -1 not probed yet, then 0 or 1. */
static int hw_state = -1;

int util_crc32c_hw_available(void)
{
	if (hw_state < 0) {
#ifdef E4R_HAVE_X86_CRC
		__builtin_cpu_init();
		/* the tables first: a state of 1 promises them */
		if (__builtin_cpu_supports("sse4.2"))
			shift_init();
		hw_state = __builtin_cpu_supports("sse4.2") ? 1 : 0;
#else
		hw_state = 0;
#endif
	}
	return hw_state;
}

uint32_t util_crc32c(uint32_t crc, const void *buf, size_t len)
{
#ifdef E4R_HAVE_X86_CRC
	if (util_crc32c_hw_available())
		return crc32c_hw(crc, buf, len);
#endif
	return util_crc32c_sw(crc, buf, len);
}

/*
 * Slice-by-8 tables: be_table[k][b] is the CRC contribution of byte B
 * followed by K zero bytes, so 8 bytes cost 8 independent lookups instead
 * of 8 dependent shift-and-lookup steps (diagnose runs this over whole v1
 * transactions, tens of MiB, once per candidate it proves).
 */
static uint32_t be_table[8][256];
static pthread_once_t be_once = PTHREAD_ONCE_INIT;

static void crc32_be_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i << 24;
		for (int k = 0; k < 8; k++)
			c = (c & 0x80000000U) ? (c << 1) ^ E4R_CRC32_BE_POLY : c << 1;
		be_table[0][i] = c;
	}
	for (int k = 1; k < 8; k++)
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t prev = be_table[k - 1][i];
			be_table[k][i] = (prev << 8) ^ be_table[0][prev >> 24];
		}
}

uint32_t util_crc32_be_bytewise(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	pthread_once(&be_once, crc32_be_init);
	while (len--)
		crc = (crc << 8) ^ be_table[0][(crc >> 24) ^ *p++];
	return crc;
}

uint32_t util_crc32_be(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	pthread_once(&be_once, crc32_be_init);
	while (len >= 8) {
		/* The first four bytes meet the register, MSB first; the last four only the tables. */
		uint32_t x = crc ^ ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);

		crc = be_table[7][x >> 24] ^ be_table[6][(x >> 16) & 0xFF] ^
		      be_table[5][(x >> 8) & 0xFF] ^ be_table[4][x & 0xFF] ^
		      be_table[3][p[4]] ^ be_table[2][p[5]] ^ be_table[1][p[6]] ^ be_table[0][p[7]];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc << 8) ^ be_table[0][(crc >> 24) ^ *p++];
	return crc;
}
