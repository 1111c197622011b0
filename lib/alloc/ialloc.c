/* ext4's inode allocator (__ext4_new_inode, find_group_orlov, find_group_other) over libext2fs. */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "fs/goal.h"
#include "util/e4r_err.h"
#include "alloc/alloc.h"

#define E4R_NO_GROUP	((dgrp_t)~0U)

struct orlov_stats {
	long long	free_inodes;
	long long	free_clusters;
	long long	used_dirs;
};

errcode_t alloc_init(struct alloc_ctx *a, ext2_filsys fs, const struct alloc_hooks *hooks)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	dgrp_t g;

	memset(a, 0, sizeof(*a));
	a->fs = fs;
	if (hooks)
		a->hooks = *hooks;
	a->flex_size = fs_flex_size(fs);
	a->log_flex = a->flex_size > 1 ? fs->super->s_log_groups_per_flex : 0;
	/* percpu_counter_batch = max(32, 2 * nr_cpus) */
	a->batch = cpus > 16 ? 2 * cpus : 32;
	/* The counters start exact, summed from the descriptors at mount. */
	/* s_mb_nr_global_goals: one per CPU, at most one per four groups */
	a->mb_nr_goals = (fs->group_desc_count + 3) / 4;
	if (cpus > 0 && (unsigned long)cpus < a->mb_nr_goals)
		a->mb_nr_goals = (unsigned)cpus;
	if (!a->mb_nr_goals)
		a->mb_nr_goals = 1;
	if (ext2fs_get_memzero(a->mb_nr_goals * sizeof(dgrp_t), &a->mb_last_groups) ||
	    ext2fs_get_memzero(fs->group_desc_count, &a->mb_inited) ||
	    ext2fs_get_memzero((fs->super->s_blocks_per_group + 7) / 8 + 8, &a->mb_map))
		return EXT2_ET_NO_MEMORY;
	for (g = 0; g < fs->group_desc_count; g++) {
		a->free_inodes.count += ext2fs_bg_free_inodes_count(fs, g);
		a->free_clusters.count += ext2fs_bg_free_blocks_count(fs, g);
		a->dirs.count += ext2fs_bg_used_dirs_count(fs, g);
	}
	return 0;
}

void alloc_free(struct alloc_ctx *a)
{
	ext2fs_free_mem(&a->lag_ino);
	ext2fs_free_mem(&a->lag_group);
	ext2fs_free_mem(&a->mb_inited);
	ext2fs_free_mem(&a->mb_last_groups);
	ext2fs_free_mem(&a->mb_map);
	ext2fs_free_mem(&a->ipa);
	a->nipa = a->capipa = 0;
}

/* EXT4_I(dir)->i_last_alloc_group: ~0 until this session allocates for DIR. */
static dgrp_t last_alloc_group(struct alloc_ctx *a, ext2_ino_t dir)
{
	for (unsigned i = 0; i < a->nlag; i++)
		if (a->lag_ino[i] == dir)
			return a->lag_group[i];
	return E4R_NO_GROUP;
}

static errcode_t set_last_alloc_group(struct alloc_ctx *a, ext2_ino_t dir, dgrp_t g)
{
	errcode_t err;

	for (unsigned i = 0; i < a->nlag; i++)
		if (a->lag_ino[i] == dir) {
			a->lag_group[i] = g;
			return 0;
		}
	if (a->nlag == a->caplag) {
		unsigned ncap = a->caplag ? a->caplag * 2 : 64;

		err = ext2fs_resize_mem(a->caplag * sizeof(*a->lag_ino), ncap * sizeof(*a->lag_ino), &a->lag_ino);
		if (!err)
			err = ext2fs_resize_mem(a->caplag * sizeof(*a->lag_group), ncap * sizeof(*a->lag_group),
						&a->lag_group);
		if (err)
			return err;
		a->caplag = ncap;
	}
	a->lag_ino[a->nlag] = dir;
	a->lag_group[a->nlag++] = g;
	return 0;
}

static dgrp_t ino_group(ext2_filsys fs, ext2_ino_t ino)
{
	return (ino - 1) / fs->super->s_inodes_per_group;
}

/* get_orlov_stats: a flex group's sums (the kernel's exact flex atomics), or one group's. */
static void orlov_stats(struct alloc_ctx *a, dgrp_t g, struct orlov_stats *s)
{
	ext2_filsys fs = a->fs;
	dgrp_t first = g * a->flex_size, i;

	memset(s, 0, sizeof(*s));
	for (i = first; i < first + a->flex_size && i < fs->group_desc_count; i++) {
		s->free_inodes += ext2fs_bg_free_inodes_count(fs, i);
		s->free_clusters += ext2fs_bg_free_blocks_count(fs, i);
		s->used_dirs += ext2fs_bg_used_dirs_count(fs, i);
	}
}

/* The hash of a top-level directory's name that spreads them over the groups. */
static dgrp_t topdir_start(struct alloc_ctx *a, const char *name, dgrp_t ngroups)
{
	ext2_dirhash_t hash = 0, minor = 0;

	if (ext2fs_dirhash(EXT2_HASH_HALF_MD4, name, strlen(name), a->fs->super->s_hash_seed,
			   &hash, &minor))
		return 0;
	return hash % ngroups;
}

/* found_flex_bg: the first real group of flex group G with free inodes. */
static int first_in_flex(struct alloc_ctx *a, dgrp_t g, dgrp_t *group)
{
	ext2_filsys fs = a->fs;

	if (a->flex_size == 1) {
		*group = g;
		return 0;
	}
	for (dgrp_t i = g * a->flex_size; i < (g + 1) * a->flex_size && i < fs->group_desc_count; i++)
		if (ext2fs_bg_free_inodes_count(fs, i)) {
			*group = i;
			return 0;
		}
	return -1;
}

static int orlov_fallback(struct alloc_ctx *a, ext2_ino_t parent, long long freei, dgrp_t *group)
{
	ext2_filsys fs = a->fs;
	dgrp_t ngroups = fs->group_desc_count, start = ino_group(fs, parent);
	long long avefreei = freei / ngroups;

	for (;;) {
		for (dgrp_t i = 0; i < ngroups; i++) {
			dgrp_t g = (start + i) % ngroups;
			long long f = ext2fs_bg_free_inodes_count(fs, g);

			if (f && f >= avefreei) {
				*group = g;
				return 0;
			}
		}
		if (!avefreei)
			return -1;
		avefreei = 0;	/* the counter is approximate: retry taking any group */
	}
}

static int orlov_topdir(struct alloc_ctx *a, const char *name, dgrp_t ngroups,
			long long avefreei, long long avefreec, dgrp_t *found)
{
	long long best_ndir = a->fs->super->s_inodes_per_group;
	dgrp_t start = name ? topdir_start(a, name, ngroups) : 0;
	int ret = -1;

	for (dgrp_t i = 0; i < ngroups; i++) {
		dgrp_t g = (start + i) % ngroups;
		struct orlov_stats s;

		orlov_stats(a, g, &s);
		if (!s.free_inodes || s.used_dirs >= best_ndir ||
		    s.free_inodes < avefreei || s.free_clusters < avefreec)
			continue;
		*found = g;
		best_ndir = s.used_dirs;
		ret = 0;
	}
	return ret;
}

static int find_group_orlov(struct alloc_ctx *a, ext2_ino_t parent, int is_dir,
			    const char *name, dgrp_t *group)
{
	ext2_filsys fs = a->fs;
	dgrp_t real = fs->group_desc_count, ngroups = real, g, pg = ino_group(fs, parent), lag;
	long long ipg = fs->super->s_inodes_per_group, cpg = fs->super->s_clusters_per_group;
	long long freei = alloc_pcounter_read_positive(&a->free_inodes);
	long long freec = alloc_pcounter_read_positive(&a->free_clusters);
	long long ndirs = alloc_pcounter_read_positive(&a->dirs);
	long long avefreei, avefreec, max_dirs, min_inodes, min_clusters;
	struct ext2_inode pinode;

	if (a->flex_size > 1) {
		ngroups = (real + a->flex_size - 1) >> a->log_flex;
		pg >>= a->log_flex;
	}
	avefreei = freei / ngroups;
	avefreec = freec / ngroups;
	if (ext2fs_read_inode(fs, parent, &pinode))
		memset(&pinode, 0, sizeof(pinode));
	if (is_dir && (parent == EXT2_ROOT_INO || (pinode.i_flags & EXT2_TOPDIR_FL))) {
		if (!orlov_topdir(a, name, ngroups, avefreei, avefreec, &g) &&
		    !first_in_flex(a, g, group))
			return 0;
		return orlov_fallback(a, parent, freei, group);
	}
	max_dirs = ndirs / ngroups + ipg * a->flex_size / 16;
	min_inodes = avefreei - ipg * a->flex_size / 4;
	if (min_inodes < 1)
		min_inodes = 1;
	min_clusters = avefreec - cpg * a->flex_size / 4;
	if (min_clusters < 0)
		min_clusters = 0;
	lag = last_alloc_group(a, parent);
	if (lag != E4R_NO_GROUP)
		pg = a->flex_size > 1 ? lag >> a->log_flex : lag;
	for (dgrp_t i = 0; i < ngroups; i++) {
		struct orlov_stats s;

		g = (pg + i) % ngroups;
		orlov_stats(a, g, &s);
		if (s.used_dirs >= max_dirs || s.free_inodes < min_inodes || s.free_clusters < min_clusters)
			continue;
		if (!first_in_flex(a, g, group))
			return 0;
		break;
	}
	return orlov_fallback(a, parent, freei, group);
}

static int group_has(ext2_filsys fs, dgrp_t g, int need_blocks)
{
	return ext2fs_bg_free_inodes_count(fs, g) &&
	       (!need_blocks || ext2fs_bg_free_blocks_count(fs, g));
}

static int find_group_other(struct alloc_ctx *a, ext2_ino_t parent, dgrp_t *group)
{
	ext2_filsys fs = a->fs;
	dgrp_t ngroups = fs->group_desc_count, pg = ino_group(fs, parent), g, i;

	if (a->flex_size > 1) {
		dgrp_t lag = last_alloc_group(a, parent);

		for (int retry = 0; retry < 2; retry++) {
			dgrp_t first = pg & ~(a->flex_size - 1), last = first + a->flex_size;

			for (i = first; i < last && i < ngroups; i++)
				if (ext2fs_bg_free_inodes_count(fs, i)) {
					*group = i;
					return 0;
				}
			if (lag == E4R_NO_GROUP)
				break;
			pg = lag;
			lag = E4R_NO_GROUP;
		}
		/* Orlov in non-directory mode finds another flex group. */
		return find_group_orlov(a, parent, 0, NULL, group);
	}
	if (group_has(fs, pg, 1)) {
		*group = pg;
		return 0;
	}
	/* Files of one directory together; other directories' files elsewhere. */
	g = (pg + parent) % ngroups;
	for (i = 1; i < ngroups; i <<= 1) {
		g += i;
		if (g >= ngroups)
			g -= ngroups;
		if (group_has(fs, g, 1)) {
			*group = g;
			return 0;
		}
	}
	g = pg;
	for (i = 0; i < ngroups; i++) {
		if (++g >= ngroups)
			g = 0;
		if (group_has(fs, g, 0)) {
			*group = g;
			return 0;
		}
	}
	return -1;
}

/* The first free inode of group G (find_inode_bit), or 0. */
static ext2_ino_t first_free_in_group(ext2_filsys fs, dgrp_t g)
{
	ext2_ino_t start = g * fs->super->s_inodes_per_group + 1;
	ext2_ino_t end = start + fs->super->s_inodes_per_group - 1, ino;

	if (!ext2fs_bg_free_inodes_count(fs, g))
		return 0;
	if (ext2fs_find_first_zero_inode_bitmap2(fs->inode_map, start, end, &ino))
		return 0;
	if (ino < EXT2_FIRST_INODE(fs->super))
		return 0;	/* a reserved inode marked free: the kernel skips the group */
	return ino;
}

/* What __ext4_new_inode does to the group once it holds the bit. */
static void mark_inode_used(struct alloc_ctx *a, ext2_ino_t ino, int is_dir)
{
	ext2_filsys fs = a->fs;
	dgrp_t g = ino_group(fs, ino);

	if (ext2fs_has_group_desc_csum(fs) && ext2fs_bg_flags_test(fs, g, EXT2_BG_BLOCK_UNINIT)) {
		ext2fs_bg_flags_clear(fs, g, EXT2_BG_BLOCK_UNINIT);
		ext2fs_mark_bb_dirty(fs);
	}
	ext2fs_inode_alloc_stats2(fs, ino, +1, is_dir);
	ext2fs_group_desc_csum_set(fs, g);
	alloc_pcounter_add(a, &a->free_inodes, -1);
	if (is_dir)
		alloc_pcounter_add(a, &a->dirs, +1);
}

errcode_t alloc_inode(struct alloc_ctx *a, ext2_ino_t parent, int is_dir,
		      const char *name, ext2_ino_t *out)
{
	ext2_filsys fs = a->fs;
	dgrp_t group, ngroups = fs->group_desc_count;
	int r = is_dir ? find_group_orlov(a, parent, 1, name, &group)
		       : find_group_other(a, parent, &group);
	errcode_t err;

	if (r)
		return E4R_WRITE_NO_INODES;
	err = set_last_alloc_group(a, parent, group);
	if (err)
		return err;
	for (dgrp_t i = 0; i < ngroups; i++, group = (group + 1) % ngroups) {
		ext2_ino_t ino = first_free_in_group(fs, group);

		if (!ino)
			continue;
		/* 119c0d4460b0: the 3.4 kernels set the bit in b_data before get_write_access. */
		if (a->hooks.leak_bit)
			a->hooks.leak_bit(a->hooks.arg, ext2fs_inode_bitmap_loc(fs, group),
					  (ino - 1) % fs->super->s_inodes_per_group);
		mark_inode_used(a, ino, is_dir);
		*out = ino;
		return 0;
	}
	return E4R_WRITE_NO_INODES;
}

void alloc_inode_free(struct alloc_ctx *a, ext2_ino_t ino, int is_dir)
{
	ext2fs_inode_alloc_stats2(a->fs, ino, -1, is_dir);
	ext2fs_group_desc_csum_set(a->fs, ino_group(a->fs, ino));
	alloc_pcounter_add(a, &a->free_inodes, +1);
	if (is_dir)
		alloc_pcounter_add(a, &a->dirs, -1);
}
