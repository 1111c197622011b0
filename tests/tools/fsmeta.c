/*
 * fsmeta: where an image's metadata lies, and resealing its checksums after a
 * deliberate damage. The differential tester (tests/difftest) needs both.
 *
 *   fsmeta map IMAGE
 *	one line per object: the filesystem's geometry, each group's bitmaps and
 *	inode table, each in-use inode (byte offset, mode, flags, xattr block),
 *	and each metadata block an inode owns (extent nodes, indirect blocks,
 *	directory blocks told apart as htree root, htree node or leaf, xattr
 *	blocks), and the journal superblock. The tester picks its targets there.
 *
 *   fsmeta reach IMAGE
 *	every inode reachable from the root, once: inode number, mode, size, a
 *	CRC32C of its content (a file's data, a symlink's target) and one path.
 *	Comparing two repairs of one image shows which inodes each kept.
 *
 *   fsmeta reseal IMAGE OBJECT...
 *	recompute the checksum of each OBJECT after its bytes were changed, so
 *	that a damage tests the checker's structural checks rather than only its
 *	checksum checks: sb, gd:G, bbitmap:G, ibitmap:G, inode:N, dir:BLK:INO
 *	(leaf or htree node), extent:BLK:INO, xattr:BLK, jsb:BLK. Exit 1 when the
 *	image cannot be opened that far (the damage then stays unsealed).
 *
 * libext2fs computes the checksums (the oracle's own library); the bytes are
 * read and written directly, so nothing but the object itself is rewritten.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ext2fs/ext2fs.h>

static int img_fd = -1;

static int read_at(void *buf, size_t len, uint64_t off)
{
	return pread(img_fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

static int write_at(const void *buf, size_t len, uint64_t off)
{
	return pwrite(img_fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

static errcode_t open_fs(const char *path, int rw, ext2_filsys *fs)
{
	int flags = EXT2_FLAG_64BITS | EXT2_FLAG_IGNORE_CSUM_ERRORS |
		    EXT2_FLAG_IGNORE_SB_ERRORS | EXT2_FLAG_SKIP_MMP;

	(void)rw;
	return ext2fs_open(path, flags, 0, 0, unix_io_manager, fs);
}

/* ---- map ---- */

static uint64_t inode_offset(ext2_filsys fs, ext2_ino_t ino)
{
	dgrp_t g = (ino - 1) / fs->super->s_inodes_per_group;
	uint64_t idx = (ino - 1) % fs->super->s_inodes_per_group;

	return (uint64_t)ext2fs_inode_table_loc(fs, g) * fs->blocksize +
	       idx * EXT2_INODE_SIZE(fs->super);
}

static void map_extents(ext2_filsys fs, ext2_ino_t ino)
{
	ext2_extent_handle_t h;
	struct ext2fs_extent e;
	struct ext2_extent_info info;
	errcode_t err;
	int op = EXT2_EXTENT_ROOT;

	if (ext2fs_extent_open(fs, ino, &h))
		return;
	while (!(err = ext2fs_extent_get(h, op, &e))) {
		op = EXT2_EXTENT_NEXT;
		if (e.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT)
			continue;
		if (ext2fs_extent_get_info(h, &info))
			break;
		/* An index entry: its child is an extent node one level down. */
		if (!(e.e_flags & EXT2_EXTENT_FLAGS_LEAF))
			printf("blk %u extent %llu %d\n", ino, (unsigned long long)e.e_pblk,
			       info.max_depth - info.curr_level - 1);
	}
	ext2fs_extent_free(h);
}

struct block_walk {
	ext2_ino_t ino;
	int is_dir;
	int data_shown;
};

static int map_block(ext2_filsys fs, blk64_t *blk, e2_blkcnt_t cnt, blk64_t ref,
		     int ref_off, void *arg)
{
	struct block_walk *w = arg;

	(void)fs; (void)ref; (void)ref_off;
	if (cnt == BLOCK_COUNT_IND)
		printf("blk %u ind %llu\n", w->ino, (unsigned long long)*blk);
	else if (cnt == BLOCK_COUNT_DIND)
		printf("blk %u dind %llu\n", w->ino, (unsigned long long)*blk);
	else if (cnt == BLOCK_COUNT_TIND)
		printf("blk %u tind %llu\n", w->ino, (unsigned long long)*blk);
	else if (cnt >= 0 && w->is_dir)
		printf("blk %u dir %llu %lld\n", w->ino, (unsigned long long)*blk, (long long)cnt);
	else if (cnt >= 0 && w->data_shown++ < 2)
		printf("blk %u data %llu %lld\n", w->ino, (unsigned long long)*blk, (long long)cnt);
	return 0;
}

/* The htree's interior: a dx node is a directory block that an index entry names. */
static void map_htree_level(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *inode,
			    char *buf, unsigned entries_off, int levels_left)
{
	uint16_t count;
	unsigned i;
	char *child;

	if (levels_left <= 0 || entries_off + 4 > fs->blocksize)
		return;
	memcpy(&count, buf + entries_off + 2, 2);
	child = malloc(fs->blocksize);
	if (!child)
		return;
	for (i = 0; i < count && entries_off + 8 * i + 8 <= fs->blocksize; i++) {
		uint32_t lblk;
		blk64_t pblk = 0;

		memcpy(&lblk, buf + entries_off + 8 * i + 4, 4);
		lblk &= 0x0fffffff;
		if (ext2fs_bmap2(fs, ino, inode, NULL, 0, lblk, NULL, &pblk) || !pblk)
			continue;
		printf("blk %u dxnode %llu %u\n", ino, (unsigned long long)pblk, lblk);
		if (read_at(child, fs->blocksize, pblk * fs->blocksize) == 0)
			map_htree_level(fs, ino, inode, child, 8, levels_left - 1);
	}
	free(child);
}

static void map_htree(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *inode)
{
	blk64_t root = 0;
	char *buf = malloc(fs->blocksize);

	if (!buf)
		return;
	if (!ext2fs_bmap2(fs, ino, inode, NULL, 0, 0, NULL, &root) && root &&
	    read_at(buf, fs->blocksize, root * fs->blocksize) == 0) {
		unsigned info_len = (unsigned char)buf[0x1d];
		int levels = (unsigned char)buf[0x1e];

		printf("blk %u dxroot %llu 0\n", ino, (unsigned long long)root);
		map_htree_level(fs, ino, inode, buf, 0x18 + info_len, levels);
	}
	free(buf);
}

static int map_image(const char *path)
{
	ext2_filsys fs;
	ext2_inode_scan scan;
	struct ext2_inode_large inode;
	ext2_ino_t ino;
	dgrp_t g;
	errcode_t err = open_fs(path, 0, &fs);

	if (err) {
		fprintf(stderr, "fsmeta: %s: %s\n", path, error_message(err));
		return 1;
	}
	printf("fs blocksize %u groups %u inodes_per_group %u inode_size %u first_ino %u "
	       "desc_size %u first_data_block %u blocks %llu csum %d\n",
	       fs->blocksize, fs->group_desc_count, fs->super->s_inodes_per_group,
	       EXT2_INODE_SIZE(fs->super), EXT2_FIRST_INO(fs->super), EXT2_DESC_SIZE(fs->super),
	       fs->super->s_first_data_block, (unsigned long long)ext2fs_blocks_count(fs->super),
	       ext2fs_has_feature_metadata_csum(fs->super));
	for (g = 0; g < fs->group_desc_count; g++) {
		/* The descriptor's byte offset in the primary table. */
		unsigned per = fs->blocksize / EXT2_DESC_SIZE(fs->super);
		blk64_t desc_blk = ext2fs_descriptor_block_loc2(fs, fs->super->s_first_data_block,
								 g / per);
		printf("group %u bbitmap %llu ibitmap %llu itable %llu desc %llu flags %u\n", g,
		       (unsigned long long)ext2fs_block_bitmap_loc(fs, g),
		       (unsigned long long)ext2fs_inode_bitmap_loc(fs, g),
		       (unsigned long long)ext2fs_inode_table_loc(fs, g),
		       (unsigned long long)(desc_blk * fs->blocksize +
					    (g % per) * EXT2_DESC_SIZE(fs->super)),
		       ext2fs_bg_flags(fs, g));
	}
	if ((err = ext2fs_read_bitmaps(fs)) ||
	    (err = ext2fs_open_inode_scan(fs, 0, &scan))) {
		fprintf(stderr, "fsmeta: %s: %s\n", path, error_message(err));
		ext2fs_close_free(&fs);
		return 1;
	}
	while (!ext2fs_get_next_inode_full(scan, &ino, (struct ext2_inode *)&inode,
					   sizeof(inode)) && ino) {
		struct block_walk w = { ino, LINUX_S_ISDIR(inode.i_mode), 0 };

		if (!ext2fs_test_inode_bitmap2(fs->inode_map, ino) ||
		    (!inode.i_links_count && ino >= EXT2_FIRST_INO(fs->super)) ||
		    (ino < EXT2_FIRST_INO(fs->super) && !inode.i_mode && !inode.i_block[0]))
			continue;
		printf("ino %u off %llu mode %o flags %#x links %u size %llu acl %llu extra %u\n",
		       ino, (unsigned long long)inode_offset(fs, ino), inode.i_mode,
		       inode.i_flags, inode.i_links_count,
		       (unsigned long long)EXT2_I_SIZE(&inode),
		       (unsigned long long)ext2fs_file_acl_block(fs, (struct ext2_inode *)&inode),
		       EXT2_INODE_SIZE(fs->super) > 128 ? inode.i_extra_isize : 0);
		if (ext2fs_file_acl_block(fs, (struct ext2_inode *)&inode))
			printf("blk %u xattr %llu\n", ino, (unsigned long long)
			       ext2fs_file_acl_block(fs, (struct ext2_inode *)&inode));
		if (inode.i_flags & EXT4_INLINE_DATA_FL)
			continue;
		if (!ext2fs_inode_has_valid_blocks2(fs, (struct ext2_inode *)&inode))
			continue;
		if (inode.i_flags & EXT4_EXTENTS_FL)
			map_extents(fs, ino);
		ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY, NULL, map_block, &w);
		if (LINUX_S_ISDIR(inode.i_mode) && (inode.i_flags & EXT2_INDEX_FL))
			map_htree(fs, ino, (struct ext2_inode *)&inode);
	}
	ext2fs_close_inode_scan(scan);
	if (ext2fs_has_feature_journal(fs->super) && fs->super->s_journal_inum) {
		blk64_t jsb = 0;
		struct ext2_inode ji;

		if (!ext2fs_read_inode(fs, fs->super->s_journal_inum, &ji) &&
		    !ext2fs_bmap2(fs, fs->super->s_journal_inum, &ji, NULL, 0, 0, NULL, &jsb))
			printf("jsb %llu\n", (unsigned long long)jsb);
	}
	ext2fs_close_free(&fs);
	return 0;
}

/* ---- reach ---- */

struct reach {
	ext2_filsys fs;
	char *seen;		/* one byte per inode: listed already */
	char path[4096];
};

static uint32_t content_crc(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *inode)
{
	ext2_file_t f;
	char buf[65536];
	unsigned got;
	uint32_t crc = 0;
	uint64_t left = EXT2_I_SIZE(inode);

	if (LINUX_S_ISLNK(inode->i_mode) && ext2fs_is_fast_symlink(inode))
		return ext2fs_crc32c_le(0, (unsigned char *)inode->i_block,
					left < sizeof(inode->i_block) ? left : sizeof(inode->i_block));
	if (ext2fs_file_open2(fs, ino, inode, 0, &f))
		return 0xffffffff;
	/* A huge sparse file: its first megabytes say enough. */
	if (left > (64u << 20))
		left = 64u << 20;
	while (left && !ext2fs_file_read(f, buf, sizeof(buf), &got) && got) {
		crc = ext2fs_crc32c_le(crc, (unsigned char *)buf, got);
		left -= got < left ? got : left;
	}
	ext2fs_file_close(f);
	return crc;
}

static void reach_dir(struct reach *r, ext2_ino_t dir);

static int reach_entry(struct ext2_dir_entry *de, int off, int bs, char *buf, void *arg)
{
	struct reach *r = arg;
	ext2_ino_t ino = de->inode;
	int len = ext2fs_dirent_name_len(de);
	struct ext2_inode_large inode;
	size_t at = strlen(r->path);

	(void)off; (void)bs; (void)buf;
	if (!ino || ino > r->fs->super->s_inodes_count || r->seen[ino] ||
	    (len == 1 && de->name[0] == '.') || (len == 2 && !memcmp(de->name, "..", 2)))
		return 0;
	r->seen[ino] = 1;
	if (at + len + 2 >= sizeof(r->path))
		return 0;
	r->path[at] = '/';
	memcpy(r->path + at + 1, de->name, len);
	r->path[at + 1 + len] = 0;
	memset(&inode, 0, sizeof(inode));
	if (!ext2fs_read_inode_full(r->fs, ino, (struct ext2_inode *)&inode, sizeof(inode))) {
		printf("%u %o %llu %08x ", ino, inode.i_mode,
		       (unsigned long long)EXT2_I_SIZE(&inode),
		       LINUX_S_ISREG(inode.i_mode) || LINUX_S_ISLNK(inode.i_mode) ?
		       content_crc(r->fs, ino, (struct ext2_inode *)&inode) : 0);
		/* Names may hold any byte but '/' and NUL: print them escaped. */
		for (const unsigned char *p = (unsigned char *)r->path; *p; p++)
			printf(*p > ' ' && *p < 0x7f && *p != '\\' ? "%c" : "\\x%02x", *p);
		printf("\n");
		if (LINUX_S_ISDIR(inode.i_mode))
			reach_dir(r, ino);
	}
	r->path[at] = 0;
	return 0;
}

static void reach_dir(struct reach *r, ext2_ino_t dir)
{
	ext2fs_dir_iterate(r->fs, dir, 0, NULL, reach_entry, r);
}

static int reach_image(const char *path)
{
	struct reach r = { 0 };
	errcode_t err = open_fs(path, 0, &r.fs);

	if (err) {
		fprintf(stderr, "fsmeta: %s: %s\n", path, error_message(err));
		return 1;
	}
	r.seen = calloc((size_t)r.fs->super->s_inodes_count + 1, 1);
	if (!r.seen) {
		ext2fs_close_free(&r.fs);
		return 1;
	}
	r.seen[EXT2_ROOT_INO] = 1;
	reach_dir(&r, EXT2_ROOT_INO);
	free(r.seen);
	ext2fs_close_free(&r.fs);
	return 0;
}

/* ---- reseal ---- */

static int reseal_sb(void)
{
	struct ext2_super_block sb;

	if (read_at(&sb, sizeof(sb), 1024))
		return -1;
	if (!(sb.s_feature_ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM))
		return 0;
	sb.s_checksum = ext2fs_crc32c_le(~0U, (unsigned char *)&sb,
					 offsetof(struct ext2_super_block, s_checksum));
	return write_at(&sb, sizeof(sb), 1024);
}

static int reseal_jsb(uint64_t blk, unsigned bs)
{
	unsigned char buf[1024];
	uint32_t c;

	if (read_at(buf, sizeof(buf), blk * bs))
		return -1;
	/* Only a v3 (csum v2/v3) journal superblock carries a checksum. */
	if (!(buf[0x2b] & 0x18))
		return 0;
	memset(buf + 0xfc, 0, 4);
	c = ext2fs_crc32c_le(~0U, buf, sizeof(buf));
	buf[0xfc] = c >> 24; buf[0xfd] = c >> 16; buf[0xfe] = c >> 8; buf[0xff] = c;
	return write_at(buf, sizeof(buf), blk * bs);
}

/* Write back the primary descriptor block holding group g (in memory already fixed). */
static int write_desc_block(ext2_filsys fs, dgrp_t g)
{
	unsigned per = fs->blocksize / EXT2_DESC_SIZE(fs->super);
	blk64_t blk = ext2fs_descriptor_block_loc2(fs, fs->super->s_first_data_block, g / per);

	return write_at((char *)fs->group_desc + (size_t)(g / per) * fs->blocksize,
			fs->blocksize, blk * fs->blocksize);
}

static int reseal_bitmap(ext2_filsys fs, dgrp_t g, int inode_bitmap)
{
	char *buf = malloc(fs->blocksize);
	blk64_t blk = inode_bitmap ? ext2fs_inode_bitmap_loc(fs, g) : ext2fs_block_bitmap_loc(fs, g);
	int rc = -1;

	if (buf && read_at(buf, fs->blocksize, blk * fs->blocksize) == 0) {
		if (inode_bitmap)
			ext2fs_inode_bitmap_csum_set(fs, g, buf, EXT2_INODES_PER_GROUP(fs->super) / 8);
		else
			ext2fs_block_bitmap_csum_set(fs, g, buf, EXT2_CLUSTERS_PER_GROUP(fs->super) / 8);
		ext2fs_group_desc_csum_set(fs, g);
		rc = write_desc_block(fs, g);
	}
	free(buf);
	return rc;
}

static int reseal_inode(ext2_filsys fs, ext2_ino_t ino)
{
	unsigned size = EXT2_INODE_SIZE(fs->super);
	struct ext2_inode_large *inode = calloc(1, size > sizeof(*inode) ? size : sizeof(*inode));
	uint64_t off = inode_offset(fs, ino);
	int rc = -1;

	if (inode && read_at(inode, size, off) == 0 && !ext2fs_inode_csum_set(fs, ino, inode))
		rc = write_at(inode, size, off);
	free(inode);
	return rc;
}

static int reseal_block(ext2_filsys fs, const char *kind, uint64_t blk, ext2_ino_t ino)
{
	char *buf = malloc(fs->blocksize);
	errcode_t err = 1;
	int rc = -1;

	if (!buf || read_at(buf, fs->blocksize, blk * fs->blocksize)) {
		free(buf);
		return -1;
	}
	if (!strcmp(kind, "dir"))
		err = ext2fs_dir_block_csum_set(fs, ino, (struct ext2_dir_entry *)buf);
	else if (!strcmp(kind, "extent")) {
		struct ext3_extent_header *eh = (struct ext3_extent_header *)buf;

		/*
		 * libext2fs puts the checksum after eh_max entries: a damaged
		 * eh_max would have it written past the block. Such a node is
		 * left as damaged, its checksum as it was.
		 */
		if (12u * (ext2fs_le16_to_cpu(eh->eh_max) + 1) + 4 > fs->blocksize) {
			free(buf);
			return 0;
		}
		err = ext2fs_extent_block_csum_set(fs, ino, eh);
	}
	else if (!strcmp(kind, "xattr"))
		err = ext2fs_ext_attr_block_csum_set(fs, 0, blk, (struct ext2_ext_attr_header *)buf);
	if (!err)
		rc = write_at(buf, fs->blocksize, blk * fs->blocksize);
	free(buf);
	return rc;
}

static int reseal(const char *path, int nobj, char **objs)
{
	ext2_filsys fs = NULL;
	int i, rc = 0;

	for (i = 0; i < nobj && rc == 0; i++) {
		char kind[16];
		unsigned long long a = 0, b = 0;
		int n = sscanf(objs[i], "%15[a-z]:%llu:%llu", kind, &a, &b);

		if (n < 1) {
			fprintf(stderr, "fsmeta: bad object '%s'\n", objs[i]);
			return 2;
		}
		if (!strcmp(kind, "sb")) {
			rc = reseal_sb();
			continue;
		}
		if (!fs && open_fs(path, 1, &fs)) {
			fprintf(stderr, "fsmeta: %s: cannot open to reseal %s\n", path, objs[i]);
			return 1;
		}
		if (!ext2fs_has_feature_metadata_csum(fs->super) && strcmp(kind, "gd") &&
		    strcmp(kind, "jsb"))
			continue;
		if (!strcmp(kind, "jsb"))
			rc = reseal_jsb(a, fs->blocksize);
		else if (!strcmp(kind, "gd") && a < fs->group_desc_count) {
			ext2fs_group_desc_csum_set(fs, (dgrp_t)a);
			rc = write_desc_block(fs, (dgrp_t)a);
		} else if ((!strcmp(kind, "bbitmap") || !strcmp(kind, "ibitmap")) &&
			   a < fs->group_desc_count)
			rc = reseal_bitmap(fs, (dgrp_t)a, kind[0] == 'i');
		else if (!strcmp(kind, "inode") && a >= 1 && a <= fs->super->s_inodes_count)
			rc = reseal_inode(fs, (ext2_ino_t)a);
		else if (n == 3 || !strcmp(kind, "xattr"))
			rc = reseal_block(fs, kind, a, (ext2_ino_t)b);
		else
			rc = -1;
	}
	if (fs)
		ext2fs_free(fs);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[1], "map") && strcmp(argv[1], "reach") &&
			 strcmp(argv[1], "reseal"))) {
		fprintf(stderr, "usage: fsmeta map|reach IMAGE | fsmeta reseal IMAGE OBJECT...\n");
		return 2;
	}
	add_error_table(&et_ext2_error_table);
	img_fd = open(argv[2], strcmp(argv[1], "reseal") ? O_RDONLY : O_RDWR);
	if (img_fd < 0) {
		fprintf(stderr, "fsmeta: %s: %s\n", argv[2], strerror(errno));
		return 2;
	}
	if (!strcmp(argv[1], "map"))
		return map_image(argv[2]);
	if (!strcmp(argv[1], "reach"))
		return reach_image(argv[2]);
	return reseal(argv[2], argc - 3, argv + 3);
}
