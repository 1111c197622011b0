/* img2seed: turn an image file into a fuzz seed (sparse_image.h). Usage: img2seed IMAGE BLOCKSIZE OPTIONS OUT */
#include <stdio.h>
#include <stdlib.h>

#include "sparse_image.h"

int main(int argc, char **argv)
{
	unsigned char *img, *seed;
	size_t seed_len;
	long len;
	FILE *in, *out;

	if (argc != 5) {
		fprintf(stderr, "usage: img2seed IMAGE BLOCKSIZE OPTIONS OUT\n");
		return 16;
	}
	in = fopen(argv[1], "rb");
	if (!in || fseek(in, 0, SEEK_END) || (len = ftell(in)) < 0 || fseek(in, 0, SEEK_SET)) {
		perror(argv[1]);
		return 8;
	}
	img = malloc(len ? len : 1);
	if (!img || fread(img, 1, len, in) != (size_t)len) {
		fprintf(stderr, "img2seed: cannot read %s\n", argv[1]);
		return 8;
	}
	fclose(in);
	if (sparse_image_encode(img, len, strtoul(argv[2], NULL, 0), strtoul(argv[3], NULL, 0),
				&seed, &seed_len)) {
		fprintf(stderr, "img2seed: %s is too big (at most %u bytes) or the block size is not 1024, 2048 or 4096\n",
			argv[1], SPARSE_MAX_BYTES);
		return 8;
	}
	out = fopen(argv[4], "wb");
	if (!out || fwrite(seed, 1, seed_len, out) != seed_len || fclose(out)) {
		perror(argv[4]);
		return 8;
	}
	free(img);
	free(seed);
	return 0;
}
