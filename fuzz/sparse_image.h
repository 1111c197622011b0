/*
 * The fuzz targets' input format: a small image given as its non-zero blocks.
 *
 * A whole image as fuzz input wastes nearly every mutation on zeros; listing
 * only the blocks that hold something keeps the input small and the
 * mutations on metadata and journal blocks. Any byte string decodes to some
 * image (sizes are clamped), so the fuzzer never wastes inputs on a parser.
 *
 *   header:  "E4RS", u8 block-size shift (1024 << (n % 3)), u8 options for
 *            the target, u16 unused, u32 blocks in the image (little-endian)
 *   records: u32 block number (modulo the image's blocks), then one block
 *            of data (a short last record is padded with zeros)
 */
#ifndef E4R_SPARSE_IMAGE_H
#define E4R_SPARSE_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#define SPARSE_MAGIC		"E4RS"
#define SPARSE_HEADER		12
#define SPARSE_MAX_BYTES	(8u << 20)	/* bigger images only slow the fuzzer down */
#define SPARSE_MIN_BLOCKS	2

struct sparse_image {
	unsigned char	*buf;
	size_t		len;
	unsigned	block_size;
	unsigned	options;	/* the header's options byte, for the target to interpret */
};

/*
 * The units in which a reused decode buffer is tracked: one bit of a dirty
 * map per SPARSE_UNIT bytes (the smallest block size), set where a byte may
 * be non-zero.
 */
#define SPARSE_UNIT		1024u
#define SPARSE_DIRTY_BYTES	(SPARSE_MAX_BYTES / SPARSE_UNIT / 8)

/* Set the bits of DIRTY for the bytes [OFF, OFF + LEN) of the buffer. */
void sparse_dirty_mark(unsigned char *dirty, uint64_t off, uint64_t len);

/*
 * Decode DATA into BUF (CAP bytes, at least SPARSE_MAX_BYTES: a fuzz target
 * reuses one buffer, since a fresh mapping per input costs more than the run).
 * DIRTY (SPARSE_DIRTY_BYTES) says where BUF may hold something from before:
 * only those units are cleared, not the whole image (a 3 MiB memset per run
 * was a good part of a target's time), and the units decoded into are marked.
 * Returns 0, or -1 when DATA is no sparse image.
 */
int sparse_image_decode(const uint8_t *data, size_t size, unsigned char *buf, size_t cap,
			unsigned char *dirty, struct sparse_image *img);

/* Encode LEN bytes of IMAGE (block size BS) into *OUT (malloc'd, *OUT_LEN bytes). Returns 0 or -1. */
int sparse_image_encode(const unsigned char *image, size_t len, unsigned bs, unsigned options,
			unsigned char **out, size_t *out_len);

#endif
