/* What every --json document shares: its head, the error document, and how checksums are written. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "json_doc.h"

static unsigned stdout_documents;

unsigned json_stdout_documents(void)
{
	return stdout_documents;
}

void json_begin_document(struct json *j, FILE *out, const char *command, const char *image)
{
	if (out == stdout)
		stdout_documents++;
	json_init(j, out, 0);
	json_begin_object(j, NULL);
	json_uint(j, "schema_version", E4R_JSON_SCHEMA_VERSION);
	json_string(j, "command", command);
	json_string(j, "image", image);
}

int json_error_document(FILE *out, const char *command, const char *image, const char *message,
			const char *error_image, int code)
{
	struct json j;

	json_begin_document(&j, out, command, image);
	json_begin_object(&j, "error");
	json_string(&j, "message", message);
	json_string(&j, "image", error_image);
	json_int(&j, "code", code);
	json_end_object(&j);
	json_end_object(&j);
	return json_finish(&j);
}

void json_checksum(struct json *j, const char *key, uint32_t value)
{
	static const char digits[] = "0123456789abcdef";
	char hex_key[64], hex[11] = "0x";
	size_t n = strlen(key);
	int i;

	json_uint(j, key, value);
	/* by hand: this runs for every checksum of a logdump (two snprintf calls each were slow) */
	if (n > sizeof(hex_key) - sizeof("_hex"))
		n = sizeof(hex_key) - sizeof("_hex");
	memcpy(hex_key, key, n);
	memcpy(hex_key + n, "_hex", sizeof("_hex"));
	for (i = 0; i < 8; i++)
		hex[2 + i] = digits[(value >> (28 - 4 * i)) & 15];
	hex[10] = '\0';
	json_string(j, hex_key, hex);
}

const char *json_checksum_type(const struct jbd_journal *jj)
{
	switch (jj->csum) {
	case JBD_CSUM_V1:
		return "crc32";
	case JBD_CSUM_V2:
	case JBD_CSUM_V3:
		return "crc32c";
	default:
		return "none";
	}
}

void json_journal_checksum(struct json *j, const struct jbd_journal *jj)
{
	json_string(j, "checksum_type", json_checksum_type(jj));
	json_uint(j, "checksum_version", jj->csum);
}
