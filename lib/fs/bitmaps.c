/* Bitmap loads that keep libext2fs quiet on damaged descriptors (fs/bitmaps.h). */
#include "config.h"

#include <stdarg.h>
#include <et/com_err.h>

#include "fs/bitmaps.h"

typedef void (*com_err_fn)(const char *, long, const char *, va_list);

/* The hook in place before a load (the process's, or com_err's default). */
static com_err_fn outer_hook;

int fs_bitmap_range_warning(long code)
{
	return (code >= EXT2_ET_BAD_BLOCK_MARK && code <= EXT2_ET_BAD_INODE_TEST) ||
	       (code >= EXT2_ET_BAD_GENERIC_MARK && code <= EXT2_ET_BAD_GENERIC_TEST);
}

static void drop_range_warnings(const char *whoami, long code, const char *fmt, va_list ap)
{
	if (!fs_bitmap_range_warning(code))
		outer_hook(whoami, code, fmt, ap);
}

static errcode_t load_quietly(ext2_filsys fs, errcode_t (*load)(ext2_filsys))
{
	errcode_t err;

	outer_hook = set_com_err_hook(drop_range_warnings);
	err = load(fs);
	set_com_err_hook(outer_hook);
	return err;
}

errcode_t fs_read_bitmaps(ext2_filsys fs)
{
	return load_quietly(fs, ext2fs_read_bitmaps);
}

errcode_t fs_read_block_bitmap(ext2_filsys fs)
{
	return load_quietly(fs, ext2fs_read_block_bitmap);
}
