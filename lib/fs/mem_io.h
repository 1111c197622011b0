/* An io manager over images held in memory: for fuzzing and tests, no file involved. */
#ifndef E4R_MEM_IO_H
#define E4R_MEM_IO_H

#include <stddef.h>
#include <ext2fs/ext2fs.h>

/*
 * Images are registered by name; fs_image_open() and the replay engine
 * open a registered name through fs_mem_io_manager instead of the unix one,
 * so every subcommand can run on a buffer. Nothing is registered in a normal
 * run of e4recover. A read past the end of the buffer is a short read (as for
 * a truncated file); a write past the end is refused with E4R_MEM_IO_BOUNDS
 * and counted, so a test can assert that nothing was written outside.
 */
extern io_manager fs_mem_io_manager;

/* Register BUF (LEN bytes, owned by the caller) as NAME; replaces an earlier NAME. */
errcode_t fs_mem_image_add(const char *name, unsigned char *buf, size_t len);
void fs_mem_image_remove(const char *name);
/* 1 and its size when NAME is a registered image, else 0. */
int fs_mem_image_find(const char *name, uint64_t *bytes);

struct fs_mem_io_stats {
	unsigned long	writes;		/* write calls that reached the buffer */
	unsigned long	refused;	/* writes that reached past the end */
};
/* What has been done to NAME since it was registered. */
int fs_mem_image_stats(const char *name, struct fs_mem_io_stats *st);

/*
 * Have FN(ARG, OFFSET, LENGTH) called after every write that reaches NAME's
 * buffer, until NAME is registered again (FN NULL: none). A fuzz target
 * reusing one buffer learns which bytes it must clear for the next image.
 * Returns 0 when NAME is not registered.
 */
typedef void (*fs_mem_write_fn)(void *arg, uint64_t off, uint64_t len);
int fs_mem_image_watch(const char *name, fs_mem_write_fn fn, void *arg);

#endif
