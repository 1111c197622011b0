/*
 * shutdown DIR: stop the ext4 filesystem mounted at DIR as a power cut would.
 *
 * Tests need images the kernel left mid-journal. The EXT4_IOC_SHUTDOWN ioctl
 * with the "no log flush" mode marks the filesystem shut down and aborts the
 * journal without writing anything more: what is on the device afterwards is
 * what a crash at that instant would have left, and an unmount cannot clean it.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <sys/ioctl.h>

/* From the kernel's ext4 user interface (not exported by every libc's headers). */
#ifndef EXT4_IOC_SHUTDOWN
#define EXT4_IOC_SHUTDOWN _IOR('X', 125, uint32_t)
#endif
#define SHUTDOWN_NO_LOG_FLUSH 2u

int main(int argc, char **argv)
{
	uint32_t mode = SHUTDOWN_NO_LOG_FLUSH;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: %s MOUNTED-DIRECTORY\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (ioctl(fd, EXT4_IOC_SHUTDOWN, &mode) != 0) {
		fprintf(stderr, "%s: shutdown ioctl: %s\n", argv[1], strerror(errno));
		close(fd);
		return 1;
	}
	close(fd);
	return 0;
}
