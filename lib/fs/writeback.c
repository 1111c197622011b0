/* Starting the write-back of an image's dirty pages early (sync_file_range, Linux). */
#include "config.h"

#include <fcntl.h>
#include <unistd.h>

#include "fs/mem_io.h"
#include "fs/writeback.h"

int fs_writeback_open(const char *image)
{
#ifdef SYNC_FILE_RANGE_WRITE
	if (!image || fs_mem_image_find(image, NULL))
		return -1;
	return open(image, O_RDONLY | O_CLOEXEC);
#else
	(void)image;
	return -1;
#endif
}

void fs_writeback_start(int fd, uint64_t off, uint64_t len)
{
#ifdef SYNC_FILE_RANGE_WRITE
	/* Only a hint: an error changes nothing (the caller's flush still writes everything). */
	if (fd >= 0)
		(void)sync_file_range(fd, (off_t)off, (off_t)len, SYNC_FILE_RANGE_WRITE);
#else
	(void)fd;
	(void)off;
	(void)len;
#endif
}

void fs_writeback_close(int fd)
{
	if (fd >= 0)
		close(fd);
}
