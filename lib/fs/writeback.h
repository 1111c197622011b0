/* Starting the write-back of an image's dirty pages early (a hint to the kernel, never a write). */
#ifndef E4R_FS_WRITEBACK_H
#define E4R_FS_WRITEBACK_H

#include <stdint.h>

/*
 * A descriptor of IMAGE to pass to fs_writeback_start, or -1 when there is
 * nothing to hint (an image held in memory, a system without the call, a
 * path that does not open). Opened read-only: it never writes.
 */
int fs_writeback_open(const char *image);

/*
 * Ask the kernel to start writing the dirty pages of bytes [OFF, OFF+LEN)
 * to the disk now, without waiting. A long run of writes followed by one
 * flush otherwise leaves the whole flush to wait for at the end; started
 * early, the disk works while the caller goes on. Does nothing for FD -1.
 */
void fs_writeback_start(int fd, uint64_t off, uint64_t len);

void fs_writeback_close(int fd);

#endif
