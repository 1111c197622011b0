/*
 * Unit test: the allocators (lib/alloc) on a plain ext2_filsys, with no journal writer
 * behind them (no hooks): fresh mke2fs images, ext4 with and without flex_bg and an
 * ext2 without a journal. What they give must be free before (libext2fs's view of the
 * image as mke2fs left it, and debugfs's) and in use once the filesystem is written
 * back (debugfs testb / testi); a goal in a group with room is served from that group;
 * a file's inode lies in its directory's group (flex group) while that has room; the
 * hooks are heard: a block a journal says is pending free is not given, and the bug
 * injection hook sees the inode bitmap block and bit of the inode taken.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc/alloc.h"
#include "util/e4r_err.h"
#include "unit.h"

#define MAX_TAKEN	1024

/* Everything taken from one image, to be asked about with debugfs. */
struct taken {
	blk64_t		blk[MAX_TAKEN];
	unsigned	nblk;
	ext2_ino_t	ino[64];
	unsigned	nino;
};

static void take_block(struct taken *t, blk64_t b)
{
	unsigned i = 0;

	while (i < t->nblk && t->blk[i] != b)
		i++;
	CHECK_EQ(i, t->nblk);	/* never the same block twice */
	if (t->nblk < MAX_TAKEN)
		t->blk[t->nblk++] = b;
}

/*
 * Ask debugfs about every block and inode taken: *USED counts the blocks and inodes it
 * reports in use, *FREE those it reports free. Returns -1 when debugfs cannot be run.
 */
static int debugfs_count(const char *dir, const char *img, const struct taken *t, unsigned *used,
			 unsigned *freed)
{
	char cmds[256], cmd[768], line[256];
	FILE *f;

	snprintf(cmds, sizeof(cmds), "%s/cmds", dir);
	f = fopen(cmds, "w");
	if (!f)
		return -1;
	for (unsigned i = 0; i < t->nblk; i++)
		fprintf(f, "testb %llu\n", (unsigned long long)t->blk[i]);
	for (unsigned i = 0; i < t->nino; i++)
		fprintf(f, "testi <%u>\n", t->ino[i]);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "PATH=/sbin:/usr/sbin:$PATH debugfs -f %s %s 2>/dev/null", cmds, img);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	*used = *freed = 0;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "marked in use"))
			(*used)++;
		else if (strstr(line, "not in use"))
			(*freed)++;
	}
	unlink(cmds);
	return pclose(f) == 0 ? 0 : -1;
}

/* A goal in each group: once the group's buddy is loaded, a group with room serves it. */
static void goals_by_group(struct alloc_ctx *a, ext2_filsys pristine, struct taken *t)
{
	ext2_filsys fs = a->fs;

	for (dgrp_t g = 0; g < fs->group_desc_count; g++) {
		blk64_t goal = ext2fs_group_first_block2(fs, g) + ext2fs_group_blocks_count(fs, g) / 2;
		blk64_t pick = 0, b = 0;
		int room = ext2fs_bg_free_blocks_count(fs, g) > 0;

		/*
		 * On a fresh mount mballoc's cheap passes skip groups whose buddy is not
		 * loaded yet (as the kernel does), so a first request may be served further
		 * on; it loads the goal's group. A pick marks nothing, and the allocation
		 * that follows takes the block it named.
		 */
		CHECK_EQ(alloc_block_pick(a, goal, &pick), 0);
		CHECK_EQ(alloc_block_pick(a, goal, &pick), 0);
		CHECK(!ext2fs_test_block_bitmap2(fs->block_map, pick));
		CHECK_EQ(alloc_block(a, goal, &b), 0);
		CHECK_EQ(b, pick);
		if (room)
			CHECK_EQ(ext2fs_group_of_blk2(fs, b), g);
		/* free as mke2fs left it, in use in the allocator's filesystem now */
		CHECK(!ext2fs_test_block_bitmap2(pristine->block_map, b));
		CHECK(ext2fs_test_block_bitmap2(fs->block_map, b));
		take_block(t, b);
		/* a second goal in the group, its buddy loaded: served there too */
		CHECK_EQ(alloc_block(a, goal + 1, &b), 0);
		if (room && ext2fs_bg_free_blocks_count(fs, g))
			CHECK_EQ(ext2fs_group_of_blk2(fs, b), g);
		CHECK(!ext2fs_test_block_bitmap2(pristine->block_map, b));
		CHECK(ext2fs_test_block_bitmap2(fs->block_map, b));
		take_block(t, b);
	}
}

/* Many single blocks from seeded goals, and a few data runs: all free before, all distinct. */
static void random_goals(struct alloc_ctx *a, ext2_filsys pristine, struct taken *t)
{
	ext2_filsys fs = a->fs;
	blk64_t first = fs->super->s_first_data_block, n = ext2fs_blocks_count(fs->super) - first;
	blk64_t free_before = ext2fs_free_blocks_count(fs->super);
	unsigned got_total = 0;
	uint32_t seed = 0x9e3779b9;

	for (int i = 0; i < 300; i++) {
		blk64_t b = 0;

		CHECK_EQ(alloc_block(a, first + unit_xorshift(&seed) % n, &b), 0);
		CHECK(!ext2fs_test_block_bitmap2(pristine->block_map, b));
		CHECK(ext2fs_test_block_bitmap2(fs->block_map, b));
		take_block(t, b);
		got_total++;
	}
	/* data requests: a run of up to LEN contiguous free blocks, marked */
	for (int i = 0; i < 8; i++) {
		struct alloc_mb_req r = { 0 };
		blk64_t start = 0;
		unsigned got = 0;

		r.goal = first + unit_xorshift(&seed) % n;
		r.len = 1 + unit_xorshift(&seed) % 32;
		r.data = 1;
		r.mark = 1;
		r.lend = r.isize = r.len;	/* a closed file of LEN blocks, written whole */
		r.ino = 100 + i;
		CHECK_EQ(alloc_mb(a, &r, &start, &got), 0);
		CHECK(got >= 1 && got <= r.len);
		for (unsigned k = 0; k < got; k++) {
			CHECK(!ext2fs_test_block_bitmap2(pristine->block_map, start + k));
			CHECK(ext2fs_test_block_bitmap2(fs->block_map, start + k));
			take_block(t, start + k);
		}
		got_total += got;
	}
	/* the superblock's count follows (the allocator's own counters are approximate) */
	CHECK_EQ(ext2fs_free_blocks_count(fs->super), free_before - got_total);
}

/* Inodes: directories spread by Orlov, files in their directory's group while it has room. */
static void inodes(struct alloc_ctx *a, ext2_filsys pristine, struct taken *t)
{
	ext2_filsys fs = a->fs;
	unsigned ipg = fs->super->s_inodes_per_group;
	unsigned flex = ext2fs_has_feature_flex_bg(fs->super) ? 1U << fs->super->s_log_groups_per_flex : 1;
	ext2_ino_t dirs[4];
	char name[16];

	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "d%d", i);
		CHECK_EQ(alloc_inode(a, EXT2_ROOT_INO, 1, name, &dirs[i]), 0);
		t->ino[t->nino++] = dirs[i];
	}
	for (int i = 0; i < 16; i++) {
		ext2_ino_t parent = i < 8 ? EXT2_ROOT_INO : dirs[i % 4], ino = 0;
		dgrp_t pg = (parent - 1) / ipg;

		CHECK_EQ(alloc_inode(a, parent, 0, NULL, &ino), 0);
		/* find_group_other: the parent's group, or with flex_bg the first of its flex group with room */
		CHECK_EQ((ino - 1) / ipg / flex, pg / flex);
		t->ino[t->nino++] = ino;
	}
	for (unsigned i = 0; i < t->nino; i++) {
		ext2_ino_t ino = t->ino[i];

		CHECK(ino >= EXT2_FIRST_INODE(fs->super) && ino <= fs->super->s_inodes_count);
		CHECK(!ext2fs_test_inode_bitmap2(pristine->inode_map, ino));
		CHECK(ext2fs_test_inode_bitmap2(fs->inode_map, ino));
		for (unsigned k = 0; k < i; k++)
			if (t->ino[k] == ino)
				CHECK_EQ(k, i);	/* never the same inode twice */
	}
}

/* The hooks a journal writer fills: one pending free, and a recorder of the leak hook. */
struct hook_state {
	blk64_t		pending;
	unsigned	calls;
	blk64_t		leak_blk;
	unsigned	leak_bit;
};

static void one_pending(void *arg, void (*fn)(blk64_t blk, void *priv), void *priv)
{
	struct hook_state *h = arg;

	h->calls++;
	fn(h->pending, priv);
}

static void record_leak(void *arg, blk64_t blk, unsigned bit)
{
	struct hook_state *h = arg;

	h->leak_blk = blk;
	h->leak_bit = bit;
}

static void hooks(ext2_filsys fs)
{
	struct hook_state h = { 0 };
	struct alloc_hooks hk = { one_pending, record_leak, &h };
	struct alloc_ctx a;
	blk64_t goal = ext2fs_group_first_block2(fs, 0) + ext2fs_group_blocks_count(fs, 0) / 2, b = 0, b2 = 0;
	ext2_ino_t ino = 0;

	/*
	 * The block a pick would give (the goal's group loaded by a first pick, see
	 * goals_by_group) is pending free: the allocator passes it over.
	 */
	CHECK_EQ(alloc_init(&a, fs, NULL), 0);
	CHECK_EQ(alloc_block_pick(&a, goal, &h.pending), 0);
	CHECK_EQ(alloc_block_pick(&a, goal, &h.pending), 0);
	alloc_free(&a);
	CHECK_EQ(alloc_init(&a, fs, &hk), 0);
	CHECK_EQ(alloc_block_pick(&a, goal, &b), 0);
	CHECK(b != h.pending);
	CHECK_EQ(alloc_block_pick(&a, goal, &b), 0);
	CHECK(b != h.pending);
	CHECK_EQ(ext2fs_group_of_blk2(fs, b), ext2fs_group_of_blk2(fs, h.pending));
	CHECK(h.calls > 0);
	CHECK(!ext2fs_test_block_bitmap2(fs->block_map, b));
	/* the journal is asked on every request, and the answer holds */
	h.calls = 0;
	CHECK_EQ(alloc_block_pick(&a, goal, &b2), 0);
	CHECK_EQ(b2, b);
	CHECK(h.calls > 0);
	/* the leak hook sees the bitmap block and the bit of the inode about to be taken */
	CHECK_EQ(alloc_inode(&a, EXT2_ROOT_INO, 0, NULL, &ino), 0);
	CHECK(ino != 0);
	if (ino) {
		dgrp_t g = (ino - 1) / fs->super->s_inodes_per_group;

		CHECK_EQ(h.leak_blk, ext2fs_inode_bitmap_loc(fs, g));
		CHECK_EQ(h.leak_bit, (ino - 1) % fs->super->s_inodes_per_group);
		alloc_inode_free(&a, ino, 0);
		CHECK(!ext2fs_test_inode_bitmap2(fs->inode_map, ino));
	}
	alloc_free(&a);
}

static void one_image(const char *dir, const char *mkfs, const char *size)
{
	char img[256], cmd[768];
	ext2_filsys fs = NULL, pristine = NULL;
	struct alloc_ctx a;
	struct taken *t = calloc(1, sizeof(*t));
	unsigned used = 0, freed = 0;

	snprintf(img, sizeof(img), "%s/a.img", dir);
	snprintf(cmd, sizeof(cmd), "PATH=/sbin:/usr/sbin:$PATH mke2fs -q -F %s %s %s >/dev/null 2>&1",
		 mkfs, img, size);
	if (!t || system(cmd) != 0) {
		fprintf(stderr, "mke2fs not available: %s skipped\n", mkfs);
		free(t);
		return;
	}
	CHECK_EQ(ext2fs_open(img, EXT2_FLAG_RW | EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &fs), 0);
	CHECK_EQ(ext2fs_open(img, EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &pristine), 0);
	if (!fs || !pristine)
		goto out;
	CHECK_EQ(ext2fs_read_bitmaps(fs), 0);
	CHECK_EQ(ext2fs_read_bitmaps(pristine), 0);
	hooks(fs);
	CHECK_EQ(alloc_init(&a, fs, NULL), 0);
	goals_by_group(&a, pristine, t);
	random_goals(&a, pristine, t);
	inodes(&a, pristine, t);
	alloc_free(&a);
	/* nothing is written yet: debugfs sees all of it free */
	if (debugfs_count(dir, img, t, &used, &freed) == 0) {
		CHECK_EQ(used, 0);
		CHECK_EQ(freed, t->nblk + t->nino);
	} else {
		fprintf(stderr, "debugfs not available: %s: the image's own view skipped\n", mkfs);
	}
	/* written back (bitmaps, descriptors, superblock): all of it in use */
	CHECK_EQ(ext2fs_close_free(&fs), 0);
	if (debugfs_count(dir, img, t, &used, &freed) == 0) {
		CHECK_EQ(used, t->nblk + t->nino);
		CHECK_EQ(freed, 0);
	}
out:
	if (fs)
		ext2fs_close_free(&fs);
	if (pristine)
		ext2fs_close_free(&pristine);
	free(t);
	unlink(img);
}

int main(void)
{
	char dir[] = "/tmp/e4r-unit-alloc-XXXXXX";

	initialize_e4r_error_table();
	initialize_ext2_error_table();
	CHECK(mkdtemp(dir) != NULL);
	/* eight groups in one flex group; four without flex_bg; ext2 without a journal */
	one_image(dir, "-t ext4 -b 1024", "64M");
	one_image(dir, "-t ext4 -b 1024 -O ^flex_bg", "32M");
	one_image(dir, "-t ext2 -b 1024", "24M");
	rmdir(dir);
	return unit_done("test_alloc");
}
