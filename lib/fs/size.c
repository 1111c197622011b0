/*
 * The size of an image, apart from opening it: the I/O error noter asks it
 * too (a read past the end is not the device failing), and it must not
 * depend on the opener that uses the noter.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>

#include "fs/image.h"
#include "fs/mem_io.h"

/* The image held open for a run (held_io.c) and its size: many ask, and it does not change meanwhile. */
static struct {
	char		*path;
	uint64_t	bytes;
} kept;

static errcode_t measure(const char *path, uint64_t *bytes);

errcode_t fs_image_size_keep(const char *path)
{
	uint64_t bytes;
	errcode_t err;

	free(kept.path);
	kept.path = NULL;
	if (!path)
		return 0;
	if ((err = measure(path, &bytes)))
		return err;
	if (!(kept.path = strdup(path)))
		return EXT2_ET_NO_MEMORY;
	kept.bytes = bytes;
	return 0;
}

errcode_t fs_image_size(const char *path, uint64_t *bytes)
{
	if (kept.path && strcmp(path, kept.path) == 0) {
		*bytes = kept.bytes;
		return 0;
	}
	return measure(path, bytes);
}

static errcode_t measure(const char *path, uint64_t *bytes)
{
	struct stat st;
	int fd;

	if (fs_mem_image_find(path, bytes))
		return 0;
	fd = open(path, O_RDONLY);

	if (fd < 0)
		return errno;
	if (fstat(fd, &st) < 0) {
		errcode_t err = errno;
		close(fd);
		return err;
	}
	if (S_ISBLK(st.st_mode)) {
		uint64_t sz = 0;
		if (ioctl(fd, BLKGETSIZE64, &sz) < 0) {
			errcode_t err = errno;
			close(fd);
			return err;
		}
		*bytes = sz;
	} else {
		*bytes = (uint64_t)st.st_size;
	}
	close(fd);
	return 0;
}
