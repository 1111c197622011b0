/* The undo file of a checker run with repairs: e2undo FILE IMAGE gives the input back. */
#include "config.h"

#include <sys/stat.h>

#include "fs/image.h"
#include "fs/ioerr_io.h"
#include "fs/open.h"
#include "util/e4r_err.h"

errcode_t fs_undo_io(const char *image, const char *undo_file, int may_exist, io_manager *io)
{
	struct stat st;
	errcode_t err;

	/* an image registered in memory is read and written through its own manager, never as a file */
	*io = fs_image_io(image, NULL);
	if (!undo_file)
		return 0;
	/* Never over a file someone else made; the journal replay of this run may have made it. */
	if (!may_exist && stat(undo_file, &st) == 0)
		return E4R_UNDO_EXISTS;
	err = set_undo_io_backing_manager(*io);
	if (!err)
		err = set_undo_io_backup_file((char *)undo_file);
	if (!err)
		*io = undo_io_manager;
	return err;
}
