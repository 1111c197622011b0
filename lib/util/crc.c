/* CRC32C (SSE4.2 instruction when present, libext2fs otherwise) and table-driven CRC32 big-endian. */
#include "config.h"

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
 * therefore cut into pieces of three strides, each stride its own chain
 * (the second and third started from 0), and the three registers joined:
 * a register carried over N more bytes is its register carried over N
 * zero bytes xor the register of those bytes started from 0, and carrying
 * over zero bytes is linear in the register, so it is four table lookups
 * (one per byte of the register) in SHIFT_TAB, built once with the
 * instruction. A stride of 64 bytes pays from 192 bytes: a 256-byte
 * inode, any block.
 */
#define CRC_STRIDE	64

static uint32_t shift_tab[4][256];	/* a register with one byte set, after CRC_STRIDE zero bytes */

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
	static const unsigned char zero[CRC_STRIDE];

	for (unsigned b = 0; b < 4; b++)
		for (unsigned v = 0; v < 256; v++)
			shift_tab[b][v] = crc32c_serial((uint32_t)v << (8 * b), zero, CRC_STRIDE);
}

/* The register C after CRC_STRIDE zero bytes. */
static inline uint32_t shift_stride(uint32_t c)
{
	return shift_tab[0][c & 0xff] ^ shift_tab[1][(c >> 8) & 0xff] ^
	       shift_tab[2][(c >> 16) & 0xff] ^ shift_tab[3][c >> 24];
}

__attribute__((target("sse4.2")))
static uint32_t crc32c_hw(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

#ifdef __x86_64__
	while (len >= 3 * CRC_STRIDE) {
		uint64_t a = crc, b = 0, c = 0;

		for (unsigned i = 0; i < CRC_STRIDE; i += 8) {
			uint64_t va, vb, vc;

			memcpy(&va, p + i, sizeof(va));
			memcpy(&vb, p + CRC_STRIDE + i, sizeof(vb));
			memcpy(&vc, p + 2 * CRC_STRIDE + i, sizeof(vc));
			a = __builtin_ia32_crc32di(a, va);
			b = __builtin_ia32_crc32di(b, vb);
			c = __builtin_ia32_crc32di(c, vc);
		}
		crc = shift_stride(shift_stride((uint32_t)a) ^ (uint32_t)b) ^ (uint32_t)c;
		p += 3 * CRC_STRIDE;
		len -= 3 * CRC_STRIDE;
	}
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

static uint32_t crc32_be_table[256];
static int crc32_be_table_ready;

static void crc32_be_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i << 24;
		for (int k = 0; k < 8; k++)
			c = (c & 0x80000000U) ? (c << 1) ^ E4R_CRC32_BE_POLY : c << 1;
		crc32_be_table[i] = c;
	}
	crc32_be_table_ready = 1;
}

uint32_t util_crc32_be(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	if (!crc32_be_table_ready)
		crc32_be_init();
	while (len--)
		crc = (crc << 8) ^ crc32_be_table[(crc >> 24) ^ *p++];
	return crc;
}
