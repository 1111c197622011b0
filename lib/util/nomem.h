/*
 * Out of memory, however it was said. lib/ reports it as ENOMEM and, through
 * libext2fs, as EXT2_ET_NO_MEMORY; a test for one of them alone lets the
 * other pass for damage (a pass that could not run read as a filesystem
 * with no root). Every "is this the end of the run" test asks this.
 */
#ifndef E4R_UTIL_NOMEM_H
#define E4R_UTIL_NOMEM_H

#include <errno.h>
#include <ext2fs/ext2fs.h>

static inline int util_no_memory(errcode_t err)
{
	return err == ENOMEM || err == EXT2_ET_NO_MEMORY;
}

#endif
