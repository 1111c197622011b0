/* Decoding and encoding the fuzz targets' sparse image format (see sparse_image.h). */
#include <stdlib.h>
#include <string.h>

#include "sparse_image.h"
#include "util/bytes.h"

static uint32_t get32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = v, p[1] = v >> 8, p[2] = v >> 16, p[3] = v >> 24;
}

void sparse_dirty_mark(unsigned char *dirty, uint64_t off, uint64_t len)
{
	uint64_t u, end;

	if (!len || off >= SPARSE_MAX_BYTES)
		return;
	end = len > SPARSE_MAX_BYTES - off ? SPARSE_MAX_BYTES : off + len;
	for (u = off / SPARSE_UNIT; u < (end + SPARSE_UNIT - 1) / SPARSE_UNIT; u++)
		dirty[u / 8] |= 1u << (u % 8);
}

/* Zero every unit of BUF that DIRTY marks, and forget the marks. */
static void clear_dirty(unsigned char *buf, unsigned char *dirty)
{
	for (size_t i = 0; i < SPARSE_DIRTY_BYTES; i++) {
		if (!dirty[i])
			continue;
		for (unsigned b = 0; b < 8; b++)
			if (dirty[i] & (1u << b))
				memset(buf + (i * 8 + b) * SPARSE_UNIT, 0, SPARSE_UNIT);
		dirty[i] = 0;
	}
}

int sparse_image_decode(const uint8_t *data, size_t size, unsigned char *buf, size_t cap,
			unsigned char *dirty, struct sparse_image *img)
{
	uint32_t blocks;
	size_t pos;

	memset(img, 0, sizeof(*img));
	if (size < SPARSE_HEADER || memcmp(data, SPARSE_MAGIC, 4))
		return -1;
	img->block_size = 1024u << (data[4] % 3);
	img->options = data[5];
	blocks = get32(data + 8);
	if (blocks > SPARSE_MAX_BYTES / img->block_size)
		blocks = SPARSE_MAX_BYTES / img->block_size;
	if (blocks < SPARSE_MIN_BLOCKS)
		blocks = SPARSE_MIN_BLOCKS;
	img->len = (size_t)blocks * img->block_size;
	if (img->len > cap)
		return -1;
	img->buf = buf;
	clear_dirty(buf, dirty);
	for (pos = SPARSE_HEADER; pos + 4 < size; pos += 4 + img->block_size) {
		size_t n = size - pos - 4;
		uint32_t blk = get32(data + pos) % blocks;

		if (n > img->block_size)
			n = img->block_size;
		memcpy(img->buf + (size_t)blk * img->block_size, data + pos + 4, n);
		sparse_dirty_mark(dirty, (uint64_t)blk * img->block_size, n);
	}
	return 0;
}

int sparse_image_encode(const unsigned char *image, size_t len, unsigned bs, unsigned options,
			unsigned char **out, size_t *out_len)
{
	size_t blocks = len / bs, used = 0, pos;
	unsigned shift;
	unsigned char *o;

	for (shift = 0; shift < 3 && (1024u << shift) != bs; shift++)
		;
	if (shift == 3 || blocks > SPARSE_MAX_BYTES / bs)
		return -1;
	for (size_t b = 0; b < blocks; b++)
		used += !util_is_zero(image + b * bs, bs);
	o = malloc(SPARSE_HEADER + used * (4 + bs));
	if (!o)
		return -1;
	memcpy(o, SPARSE_MAGIC, 4);
	o[4] = shift, o[5] = options, o[6] = o[7] = 0;
	put32(o + 8, blocks);
	pos = SPARSE_HEADER;
	for (size_t b = 0; b < blocks; b++) {
		if (util_is_zero(image + b * bs, bs))
			continue;
		put32(o + pos, b);
		memcpy(o + pos + 4, image + b * bs, bs);
		pos += 4 + bs;
	}
	*out = o;
	*out_len = pos;
	return 0;
}
