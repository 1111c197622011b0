/* Unit test: fs_image_open names what is wrong with a bad image. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fs/image.h"
#include "util/e4r_err.h"
#include "unit.h"

static void write_file(const char *path, size_t size, int byte)
{
	FILE *f = fopen(path, "wb");
	for (size_t i = 0; i < size; i++)
		fputc(byte, f);
	fclose(f);
}

int main(void)
{
	char dir[] = "/tmp/e4r-unit-XXXXXX";
	char path[256], cmd[512];
	ext2_filsys fs;

	initialize_e4r_error_table();
	CHECK(mkdtemp(dir) != NULL);

	CHECK_EQ(fs_image_open("/nonexistent/e4r", 0, NULL, &fs), ENOENT);
	CHECK(fs == NULL);
	CHECK_EQ(fs_image_open(dir, 0, NULL, &fs), EISDIR);

	snprintf(path, sizeof(path), "%s/empty", dir);
	write_file(path, 0, 0);
	CHECK_EQ(fs_image_open(path, 0, NULL, &fs), E4R_IMAGE_NOT_EXT);

	snprintf(path, sizeof(path), "%s/zeros", dir);
	write_file(path, 65536, 0);
	CHECK_EQ(fs_image_open(path, 0, NULL, &fs), E4R_IMAGE_NOT_EXT);

	snprintf(path, sizeof(path), "%s/short", dir);
	write_file(path, 1500, 0);
	CHECK_EQ(fs_image_open(path, 0, NULL, &fs), E4R_IMAGE_TRUNCATED);

	/* A real image opens; cut to half its size, it is truncated. */
	snprintf(path, sizeof(path), "%s/fs.img", dir);
	snprintf(cmd, sizeof(cmd), "mke2fs -q -F -t ext4 %s 4M >/dev/null 2>&1", path);
	CHECK(system(cmd) == 0);
	CHECK_EQ(fs_image_open(path, 0, NULL, &fs), 0);
	CHECK(fs != NULL);
	if (fs) {
		CHECK_EQ(ext2fs_blocks_count(fs->super) * fs->blocksize, 4 << 20);
		ext2fs_close_free(&fs);
	}
	CHECK(truncate(path, 2 << 20) == 0);
	CHECK_EQ(fs_image_open(path, 0, NULL, &fs), E4R_IMAGE_TRUNCATED);
	CHECK_EQ(fs_image_open(path, E4R_OPEN_NO_SIZE_CHECK, NULL, &fs), 0);
	if (fs)
		ext2fs_close_free(&fs);

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	return unit_done("test_image");
}
