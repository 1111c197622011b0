/*
 * diagnose --salvage: the checker's view of a damaged image, reduced to its
 * damaged metadata blocks and, for each, the journal copy a repair would
 * restore, or none. Nothing is written.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "fsck/fsck.h"
#include "cli.h"
#include "json_doc.h"
#include "salvage.h"

static const char *const kind_names[] = {
	[E4R_JCOPY_INODES] = "inode_table_block", [E4R_JCOPY_DIR] = "directory_block",
	[E4R_JCOPY_EXTENTS] = "extent_node", [E4R_JCOPY_XATTR] = "xattr_block",
};

void salvage_json_copy(struct json *j, const char *key, const struct check_jcopy *c)
{
	json_begin_object(j, key);
	json_string(j, "restores", kind_names[c->kind]);
	json_uint(j, "transaction", c->sequence);
	json_uint(j, "commit_sec", c->commit_sec);
	json_uint(j, "commit_nsec", c->commit_nsec);
	json_uint(j, "journal_block", c->jblk);
	json_bool(j, "live", c->live);
	json_uint(j, "entries", c->entries);
	json_uint(j, "inodes", c->inodes);
	json_uint(j, "extents", c->extents);
	json_end_object(j);
}

/* One damaged block: what it is, whose, and the copy the check offers (NULL: none). */
struct damaged {
	uint64_t			blk;
	enum check_jcopy_kind		kind;
	uint64_t			owner;		/* inode, directory or group (inode table) */
	const struct check_jcopy	*copy;
};

struct salvage {
	struct damaged	*v;
	size_t		n;
};

static errcode_t note(struct salvage *s, uint64_t blk, enum check_jcopy_kind kind, uint64_t owner,
		      const struct check_jcopy *copy)
{
	struct damaged *v;

	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].blk == blk) {
			if (copy)
				s->v[i].copy = copy;
			return 0;
		}
	v = realloc(s->v, (s->n + 1) * sizeof(*v));
	if (!v)
		return ENOMEM;
	s->v = v;
	v[s->n++] = (struct damaged){ blk, kind, owner, copy };
	return 0;
}

/* The inode table block holding INO. */
static blk64_t itable_block(ext2_filsys fs, uint64_t ino, dgrp_t *g)
{
	uint64_t idx;

	if (!ino || ino > fs->super->s_inodes_count)
		return 0;
	*g = (dgrp_t)((ino - 1) / fs->super->s_inodes_per_group);
	idx = (ino - 1) % fs->super->s_inodes_per_group;
	return ext2fs_inode_table_loc(fs, *g) + idx / (fs->blocksize / EXT2_INODE_SIZE(fs->super));
}

/* The damaged blocks the findings name: the kinds a journal copy can restore. */
static errcode_t collect(ext2_filsys fs, const struct check_result *r, struct salvage *s)
{
	errcode_t err = 0;
	dgrp_t g;

	for (size_t i = 0; i < r->count && !err; i++) {
		const struct check_finding *f = &r->findings[i];
		enum check_jcopy_kind kind;
		uint64_t owner;
		blk64_t b;

		/* (a block outside the filesystem is no block to restore) */
		if (check_jcopy_damaged_block(f, &kind, &owner)) {
			if (f->blk > fs->super->s_first_data_block && f->blk < ext2fs_blocks_count(fs->super))
				err = note(s, f->blk, kind, owner, NULL);
			continue;
		}
		switch (f->code) {
		case E4R_PR_JOURNAL_COPY:
			err = note(s, f->blk, f->jcopy->kind,
				   f->jcopy->kind == E4R_JCOPY_INODES ? f->group :
				   f->jcopy->kind == E4R_JCOPY_DIR ? f->dir : f->ino, f->jcopy);
			break;
		case E4R_PR_INODE_CSUM:
			if ((b = itable_block(fs, f->ino, &g)))
				err = note(s, b, E4R_JCOPY_INODES, g, NULL);
			break;
		default:
			break;
		}
	}
	return err;
}

static int by_block(const void *a, const void *b)
{
	const struct damaged *x = a, *y = b;

	return x->blk < y->blk ? -1 : x->blk > y->blk;
}

static void print_text(const char *image, const struct salvage *s)
{
	size_t usable = 0;

	if (!s->n) {
		printf(_("%s: no damaged block a journal copy could restore\n"), image);
		return;
	}
	for (size_t i = 0; i < s->n; i++) {
		const struct damaged *d = &s->v[i];
		const struct check_jcopy *c = d->copy;

		switch (d->kind) {
		case E4R_JCOPY_INODES:
			printf(_("block %" PRIu64 " (inode table block of group %" PRIu64 "): "), d->blk, d->owner);
			break;
		case E4R_JCOPY_DIR:
			printf(_("block %" PRIu64 " (directory block of inode %" PRIu64 "): "), d->blk, d->owner);
			break;
		case E4R_JCOPY_XATTR:
			printf(_("block %" PRIu64 " (extended attribute block of inode %" PRIu64 "): "), d->blk,
			       d->owner);
			break;
		default:
			printf(_("block %" PRIu64 " (extent node of inode %" PRIu64 "): "), d->blk, d->owner);
			break;
		}
		if (!c) {
			printf(_("no usable copy in the journal\n"));
			continue;
		}
		usable++;
		printf(_("copy in %s transaction %" PRIu32 " (journal block %" PRIu32 ", committed at %" PRIu64
			 ".%09" PRIu32 "); brings back %u entries, %u inodes, %u extents\n"),
		       c->live ? _("live") : _("old"), c->sequence, c->jblk, c->commit_sec, c->commit_nsec,
		       c->entries, c->inodes, c->extents);
	}
	printf(_("%zu damaged block(s), %zu with a usable copy\n"), s->n, usable);
}

static int print_json(const char *image, const struct salvage *s)
{
	struct json js;
	size_t usable = 0;

	json_begin_document(&js, stdout, "diagnose", image);
	json_bool(&js, "has_journal", 1);
	json_begin_array(&js, "salvage");
	for (size_t i = 0; i < s->n; i++) {
		const struct damaged *d = &s->v[i];

		json_begin_object(&js, NULL);
		json_uint(&js, "block", d->blk);
		json_string(&js, "kind", kind_names[d->kind]);
		json_uint(&js, d->kind == E4R_JCOPY_INODES ? "group" : "inode", d->owner);
		json_bool(&js, "usable", d->copy != NULL);
		if (d->copy) {
			salvage_json_copy(&js, "journal_copy", d->copy);
			usable++;
		}
		json_end_object(&js);
	}
	json_end_array(&js);
	json_uint(&js, "damaged", s->n);
	json_uint(&js, "usable", usable);
	json_end_object(&js);
	return json_finish(&js);
}

int salvage_run(const char *image, ext2_filsys fs, const char *journal, int json)
{
	struct check_opts o = { .force = 1, .repair = E4R_REPAIR_NONE, .journal_path = journal };
	struct check_result *r = NULL;
	struct salvage s = { 0 };
	errcode_t err;
	int rc = EXIT_OK;

	err = fsck_run(fs, &o, &r);
	if (!err)
		err = collect(fs, r, &s);
	if (err) {
		cli_error(image, err, _("cannot check the filesystem"));
		rc = EXIT_OPERATIONAL;
		goto out;
	}
	if (s.n > 1)
		qsort(s.v, s.n, sizeof(*s.v), by_block);
	if (json) {
		if (print_json(image, &s))
			rc = EXIT_OPERATIONAL;
	} else {
		print_text(image, &s);
	}
	if (fflush(stdout) || ferror(stdout)) {
		cli_error(NULL, errno, _("cannot write the output"));
		rc = EXIT_OPERATIONAL;
	}
	/* like diagnose's findings: a damaged block is a problem, whether or not it has a copy */
	if (rc == EXIT_OK && s.n)
		rc = EXIT_PROBLEMS;
out:
	free(s.v);
	check_result_free(r);
	return rc;
}
