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
 * Decode DATA into BUF (CAP bytes, at least SPARSE_MAX_BYTES: a fuzz target
 * reuses one buffer, since a fresh mapping per input costs more than the run).
 * Returns 0, or -1 when DATA is no sparse image.
 */
int sparse_image_decode(const uint8_t *data, size_t size, unsigned char *buf, size_t cap,
			struct sparse_image *img);

/* Encode LEN bytes of IMAGE (block size BS) into *OUT (malloc'd, *OUT_LEN bytes). Returns 0 or -1. */
int sparse_image_encode(const unsigned char *image, size_t len, unsigned bs, unsigned options,
			unsigned char **out, size_t *out_len);

#endif
