/* Presenting what a filesystem block is (fs_decode's answer), as text and as JSON. */
#include "config.h"

#include <stdio.h>

#include "describe.h"
#include "i18n.h"

/* "inode bitmap of group 3", "data block of inode 12 (block 4)", ...: words, JSON keeps the names. */
void describe_block(const struct fs_block_info *bi, char *buf, size_t len)
{
	const char *kind = _(fs_block_kind_text(bi->kind));

	switch (bi->kind) {
	case E4R_KIND_SUPERBLOCK:
	case E4R_KIND_GROUP_DESC:
		snprintf(buf, len, _("%s%s%s of group %u"), kind, bi->backup ? _(" backup") : "",
			 bi->reserved ? _(" (reserved)") : "", bi->group);
		break;
	case E4R_KIND_BLOCK_BITMAP:
	case E4R_KIND_INODE_BITMAP:
		snprintf(buf, len, _("%s of group %u"), kind, bi->group);
		break;
	case E4R_KIND_INODE_TABLE:
		snprintf(buf, len, _("%s of group %u, inodes %u-%u"), kind, bi->group,
			 bi->ino_first, bi->ino_last);
		break;
	case E4R_KIND_DIRECTORY:
	case E4R_KIND_DATA:
		snprintf(buf, len, _("%s of inode %u (block %llu)"), kind, bi->inode,
			 (unsigned long long)bi->lblk);
		break;
	case E4R_KIND_EXTENT_TREE:
	case E4R_KIND_INDIRECT:
	case E4R_KIND_XATTR:
		snprintf(buf, len, _("%s of inode %u"), kind, bi->inode);
		break;
	default:
		snprintf(buf, len, "%s%s", kind, bi->allocated == 0 ? _(" (free)") : "");
	}
}

void json_block_info(struct json *js, const struct fs_block_info *bi)
{
	json_string(js, "kind", fs_block_kind_name(bi->kind));
	switch (bi->kind) {
	case E4R_KIND_SUPERBLOCK:
	case E4R_KIND_GROUP_DESC:
		json_uint(js, "group", bi->group);
		json_bool(js, "backup", bi->backup);
		if (bi->reserved)
			json_bool(js, "reserved", 1);
		break;
	case E4R_KIND_BLOCK_BITMAP:
	case E4R_KIND_INODE_BITMAP:
		json_uint(js, "group", bi->group);
		break;
	case E4R_KIND_INODE_TABLE:
		json_uint(js, "group", bi->group);
		json_uint(js, "inode_first", bi->ino_first);
		json_uint(js, "inode_last", bi->ino_last);
		break;
	case E4R_KIND_DIRECTORY:
	case E4R_KIND_DATA:
		json_uint(js, "inode", bi->inode);
		json_uint(js, "logical_block", bi->lblk);
		break;
	case E4R_KIND_EXTENT_TREE:
	case E4R_KIND_INDIRECT:
	case E4R_KIND_XATTR:
		json_uint(js, "inode", bi->inode);
		break;
	default:
		break;
	}
	json_tristate(js, "allocated", bi->allocated);
}
