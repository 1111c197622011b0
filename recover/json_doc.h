/* What every --json document shares: its head, the error document, and how checksums are written. */
#ifndef E4R_JSON_DOC_H
#define E4R_JSON_DOC_H

#include <stdint.h>
#include <stdio.h>

#include "jbd/journal.h"
#include "json.h"

/*
 * The version of the documents' layout (doc/schema/, e4recover-json(5)). It
 * grows when a field is removed or changes its type; added fields and
 * deprecated aliases leave it as it is.
 */
#define E4R_JSON_SCHEMA_VERSION	1

/* Start the document on OUT: the top-level object with schema_version, command and image. */
void json_begin_document(struct json *j, FILE *out, const char *command, const char *image);

/* How many documents were begun on stdout: a command's error document is printed only if it printed none. */
unsigned json_stdout_documents(void);

/*
 * The whole document of a command that failed before it had anything to
 * report: schema_version, command, image, and error {message, image, code},
 * CODE being the command's exit code. IMAGE and ERROR_IMAGE may be NULL.
 * Returns json_finish's answer.
 */
int json_error_document(FILE *out, const char *command, const char *image, const char *message,
			const char *error_image, int code);

/*
 * A checksum value under KEY, twice: the number (KEY) and the way the text
 * output prints it, "0x" and eight hex digits (KEY_hex).
 */
void json_checksum(struct json *j, const char *key, uint32_t value);

/* The journal's checksum scheme: checksum_type (crc32c, crc32, none) and checksum_version (0 to 3). */
const char *json_checksum_type(const struct jbd_journal *jj);
void json_journal_checksum(struct json *j, const struct jbd_journal *jj);

#endif
