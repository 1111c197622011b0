/* Presenting what a filesystem block is, for the subcommands that name blocks. */
#ifndef E4R_DESCRIBE_H
#define E4R_DESCRIBE_H

#include <stddef.h>
#include "fs/decode.h"
#include "json.h"

/* "inode_bitmap of group 3", "data of inode 12 (block 4)", ... into BUF. */
void describe_block(const struct fs_block_info *bi, char *buf, size_t len);
/* The "kind" member and the fields that go with it, inside the current JSON object. */
void json_block_info(struct json *js, const struct fs_block_info *bi);

#endif
