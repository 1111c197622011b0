/*
 * A channel over another channel: every operation passes through to the
 * inner channel unless the wrapping io manager watches it. The write guard,
 * the I/O error noter and the tests' fault injector are such managers; each
 * is declared with FS_WRAP_MANAGER, naming its own functions only for the
 * operations it watches (its writes, say), so none repeats the plumbing.
 */
#ifndef E4R_FS_WRAP_IO_H
#define E4R_FS_WRAP_IO_H

#include <ext2fs/ext2fs.h>

/*
 * Open NAME through INNER and wrap it in a channel of manager SELF. PRIV is
 * the wrapping manager's own state for this channel (freed with free() at
 * the last close; may be NULL).
 */
errcode_t fs_wrap_open(io_manager self, io_manager inner, const char *name, int flags, void *priv,
		       io_channel *out);

/*
 * Wrap IN, a channel already open, in a channel of manager SELF named NAME:
 * the new channel holds the reference to IN the caller had (closed with it
 * at its last close). On failure IN is left to the caller.
 */
errcode_t fs_wrap_channel(io_manager self, io_channel in, const char *name, void *priv,
			  io_channel *out);

/* The wrapped channel, and the wrapping manager's state. */
io_channel fs_wrap_inner(io_channel ch);
void *fs_wrap_priv(io_channel ch);

/* The pass-through operations. */
errcode_t fs_wrap_close(io_channel ch);
errcode_t fs_wrap_set_blksize(io_channel ch, int blksize);
errcode_t fs_wrap_read_blk(io_channel ch, unsigned long block, int count, void *data);
errcode_t fs_wrap_read_blk64(io_channel ch, unsigned long long block, int count, void *data);
errcode_t fs_wrap_write_blk(io_channel ch, unsigned long block, int count, const void *data);
errcode_t fs_wrap_write_blk64(io_channel ch, unsigned long long block, int count, const void *data);
errcode_t fs_wrap_write_byte(io_channel ch, unsigned long offset, int size, const void *data);
errcode_t fs_wrap_flush(io_channel ch);
errcode_t fs_wrap_set_option(io_channel ch, const char *option, const char *arg);
errcode_t fs_wrap_get_stats(io_channel ch, io_stats *stats);
errcode_t fs_wrap_zeroout(io_channel ch, unsigned long long block, unsigned long long count);

/*
 * A manager named NAME that opens with OPEN (which calls fs_wrap_open) and
 * passes everything through but the four operations it names: a watching
 * manager gives its own for what it watches and fs_wrap_'s for the rest.
 * The 32-bit block calls go through the manager's 64-bit ones. A NULL
 * ZEROOUT makes libext2fs zero with plain writes, which the manager sees.
 */
#define FS_WRAP_MANAGER(NAME, OPEN, READ_BLK64, WRITE_BLK64, WRITE_BYTE, ZEROOUT) {	\
	.magic		= EXT2_ET_MAGIC_IO_MANAGER,					\
	.name		= (NAME),							\
	.open		= (OPEN),							\
	.close		= fs_wrap_close,						\
	.set_blksize	= fs_wrap_set_blksize,						\
	.read_blk	= fs_wrap_read_blk,						\
	.write_blk	= fs_wrap_write_blk,						\
	.flush		= fs_wrap_flush,						\
	.write_byte	= (WRITE_BYTE),							\
	.set_option	= fs_wrap_set_option,						\
	.get_stats	= fs_wrap_get_stats,						\
	.read_blk64	= (READ_BLK64),							\
	.write_blk64	= (WRITE_BLK64),						\
	.discard	= NULL,		/* e4recover never discards */			\
	.zeroout	= (ZEROOUT),							\
}

#endif
