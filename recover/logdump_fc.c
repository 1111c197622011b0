/* logdump's presentation of the fast-commit area: one line or object per tag, then where and why the scan stopped. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <et/com_err.h>

#include "i18n.h"
#include "logdump_fc.h"
#include "json_doc.h"

/* Tag names as debugfs prints them, so the two listings read alike. */
static const char *tag_upper(unsigned tag)
{
	static const char *const names[] = {
		[JBD_FC_TAG_ADD_RANGE]	= "ADD_RANGE",
		[JBD_FC_TAG_DEL_RANGE]	= "DEL_RANGE",
		[JBD_FC_TAG_CREAT]	= "CREAT_DENTRY",
		[JBD_FC_TAG_LINK]	= "LINK",
		[JBD_FC_TAG_UNLINK]	= "UNLINK",
		[JBD_FC_TAG_INODE]	= "INODE",
		[JBD_FC_TAG_PAD]	= "PAD",
		[JBD_FC_TAG_TAIL]	= "TAIL",
		[JBD_FC_TAG_HEAD]	= "HEAD",
	};

	return tag >= JBD_FC_TAG_ADD_RANGE && tag <= JBD_FC_TAG_HEAD ? names[tag] : "UNKNOWN";
}

/* A name from the image: printable bytes as they are, the rest as \xNN. */
static void print_name(const struct jbd_fc_tag *t)
{
	unsigned i;

	putchar('"');
	for (i = 0; i < t->name_len; i++) {
		unsigned char c = (unsigned char)t->name[i];
		if (isprint(c) && c != '"' && c != '\\')
			putchar(c);
		else
			printf("\\x%02x", c);
	}
	putchar('"');
}

static void text_tag_fields(const struct jbd_fc_tag *t)
{
	switch (t->tag) {
	case JBD_FC_TAG_ADD_RANGE:
		printf(_(", inode %u, lblk %u, pblk %llu, len %u%s"), t->ino, t->lblk,
		       (unsigned long long)t->pblk, t->nblocks, t->unwritten ? _(" (unwritten)") : "");
		break;
	case JBD_FC_TAG_DEL_RANGE:
		printf(_(", inode %u, lblk %u, len %u"), t->ino, t->lblk, t->nblocks);
		break;
	case JBD_FC_TAG_CREAT:
	case JBD_FC_TAG_LINK:
	case JBD_FC_TAG_UNLINK:
		printf(_(", parent %u, ino %u, name "), t->parent, t->ino);
		print_name(t);
		break;
	case JBD_FC_TAG_INODE:
		printf(_(", inode %u (%u bytes)"), t->ino, t->raw_inode_len);
		break;
	case JBD_FC_TAG_TAIL:
		printf(_(", tid %u, crc stored 0x%08x, computed 0x%08x, %s"), t->tid, t->crc_stored,
		       t->crc_computed, t->crc_ok ? _("OK") :
		       t->crc_stored != t->crc_computed ? _("BAD crc") : _("BAD: another tid"));
		break;
	case JBD_FC_TAG_HEAD:
		printf(_(", features 0x%x, tid %u"), t->features, t->tid);
		break;
	}
}

/* Why the fast-commit scan stopped, in words (JSON keeps jbd_fc_stop_name's). */
static const char *stop_text(enum jbd_fc_stop stop)
{
	static const char *const texts[] = {
		[JBD_FC_STOP_AREA_END]		= N_("the end of the area"),
		[JBD_FC_STOP_NO_HEAD]		= N_("the first tag is not a head"),
		[JBD_FC_STOP_HEAD_TID]		= N_("the head's transaction ID is not the expected one"),
		[JBD_FC_STOP_HEAD_FEATURES]	= N_("the head asks for unknown features"),
		[JBD_FC_STOP_BAD_LENGTH]	= N_("a tag's length runs past its block or is wrong for the tag"),
		[JBD_FC_STOP_UNKNOWN_TAG]	= N_("a tag of an unknown type"),
		[JBD_FC_STOP_BAD_TAIL]		= N_("a tail whose checksum or transaction ID does not match"),
		[JBD_FC_STOP_IO]		= N_("a block could not be read"),
		[JBD_FC_STOP_LIMIT]		= N_("a safety limit"),
	};

	return (unsigned)stop < sizeof(texts) / sizeof(texts[0]) && texts[stop] ? _(texts[stop]) : "?";
}

static void text_stop(const struct jbd_fc *fc, int replays)
{
	printf(_("  end of the fast commits at journal block %u offset %u: %s"), fc->stop_jblk,
	       fc->stop_offset, stop_text(fc->stop));
	if (fc->stop != JBD_FC_STOP_AREA_END && fc->stop != JBD_FC_STOP_IO)
		printf(_(" (tag %u, len %u)"), fc->stop_tag, fc->stop_len);
	putchar('\n');
	if (fc->stop_error)
		printf(_("  recovery would fail: %s\n"), error_message(fc->stop_error));
	else if (!replays)
		printf(_("  recovery would not replay them (the log is clean or its replay fails)\n"));
	else
		printf(_("  recovery would replay %u tags\n"), fc->ncommitted);
}

void fc_text(const struct jbd_fc *fc, int replays)
{
	unsigned i;

	printf(_("Fast-commit area: journal blocks %u to %u, expected tid %u\n"), fc->first_jblk,
	       fc->first_jblk + fc->nblocks - (fc->nblocks > 0), fc->expected_tid);
	for (i = 0; i < fc->ntags; i++) {
		const struct jbd_fc_tag *t = &fc->tags[i];
		printf(_("  block %u +%u: tag %s"), t->jblk, t->offset, tag_upper(t->tag));
		text_tag_fields(t);
		if (t->value_error)
			printf(" [%s]", error_message(t->value_error));
		printf("%s\n", t->committed ? "" : _(" (not committed)"));
	}
	text_stop(fc, replays);
}

static void json_tag_fields(struct json *js, const struct jbd_fc_tag *t)
{
	switch (t->tag) {
	case JBD_FC_TAG_ADD_RANGE:
		json_uint(js, "ino", t->ino);
		json_uint(js, "lblk", t->lblk);
		json_uint(js, "pblk", t->pblk);
		json_uint(js, "len", t->nblocks);
		json_bool(js, "unwritten", t->unwritten);
		break;
	case JBD_FC_TAG_DEL_RANGE:
		json_uint(js, "ino", t->ino);
		json_uint(js, "lblk", t->lblk);
		json_uint(js, "len", t->nblocks);
		break;
	case JBD_FC_TAG_CREAT:
	case JBD_FC_TAG_LINK:
	case JBD_FC_TAG_UNLINK:
		json_uint(js, "parent", t->parent);
		json_uint(js, "ino", t->ino);
		json_string(js, "name", t->name);
		break;
	case JBD_FC_TAG_INODE:
		json_uint(js, "ino", t->ino);
		json_uint(js, "inode_bytes", t->raw_inode_len);
		break;
	case JBD_FC_TAG_TAIL:
		json_uint(js, "tid", t->tid);
		json_bool(js, "csum_ok", t->crc_ok);
		json_checksum(js, "csum_stored", t->crc_stored);
		json_checksum(js, "csum_computed", t->crc_computed);
		/* crc_*: deprecated aliases of csum_* */
		json_bool(js, "crc_ok", t->crc_ok);
		json_uint(js, "crc_stored", t->crc_stored);
		json_uint(js, "crc_computed", t->crc_computed);
		break;
	case JBD_FC_TAG_HEAD:
		json_uint(js, "features", t->features);
		json_uint(js, "tid", t->tid);
		break;
	}
}

static void json_stop(struct json *js, const struct jbd_fc *fc, int replays)
{
	json_begin_object(js, "fast_commit_end");
	json_uint(js, "first_block", fc->first_jblk);
	json_uint(js, "blocks", fc->nblocks);
	json_uint(js, "expected_tid", fc->expected_tid);
	json_uint(js, "journal_block", fc->stop_jblk);
	json_uint(js, "offset", fc->stop_offset);
	json_string(js, "reason", jbd_fc_stop_name(fc->stop));
	json_uint(js, "tag", fc->stop_tag);
	json_uint(js, "len", fc->stop_len);
	json_uint(js, "committed_tags", fc->ncommitted);
	json_bool(js, "replayed", replays && !fc->stop_error && fc->ncommitted);
	json_string(js, "error", fc->stop_error ? error_message(fc->stop_error) : NULL);
	json_end_object(js);
}

void fc_json(struct json *js, const struct jbd_fc *fc, int replays)
{
	unsigned i;

	json_begin_array(js, "fast_commit");
	for (i = 0; fc && i < fc->ntags; i++) {
		const struct jbd_fc_tag *t = &fc->tags[i];
		json_begin_object(js, NULL);
		json_string(js, "tag", jbd_fc_tag_name(t->tag));
		json_uint(js, "journal_block", t->jblk);
		json_uint(js, "offset", t->offset);
		json_tag_fields(js, t);
		json_bool(js, "committed", t->committed);
		json_string(js, "value_error", t->value_error ? error_message(t->value_error) : NULL);
		json_end_object(js);
	}
	json_end_array(js);
	if (fc)
		json_stop(js, fc, replays);
	else
		json_null(js, "fast_commit_end");
}

unsigned fc_problems(const struct jbd_fc *fc)
{
	unsigned i, n = 0;

	if (!fc)
		return 0;
	n = !!fc->stop_error;
	for (i = 0; i < fc->ncommitted; i++)
		n += !!fc->tags[i].value_error;
	return n;
}
