/* A minimal unit-test harness: CHECK records a failure and carries on. */
#ifndef E4R_UNIT_H
#define E4R_UNIT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int unit_failures;
static int unit_checks;

#define CHECK(cond) do { \
	unit_checks++; \
	if (!(cond)) { \
		unit_failures++; \
		fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
	} \
} while (0)

#define CHECK_EQ(a, b) do { \
	unsigned long long _a = (unsigned long long)(a), _b = (unsigned long long)(b); \
	unit_checks++; \
	if (_a != _b) { \
		unit_failures++; \
		fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %s (%llu != %llu)\n", \
			__FILE__, __LINE__, #a, #b, _a, _b); \
	} \
} while (0)

/* A seeded xorshift step: the tests' random inputs replay from their fixed seed. */
static inline uint32_t unit_xorshift(uint32_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return *state;
}

/*
 * Copy the file FROM to TO, sparsely (zero runs are holes): the test images
 * are mostly empty and the cut and allocation-failure helpers copy them
 * once a run. 0, or -1 when it could not.
 */
static inline int unit_copy_file(const char *from, const char *to)
{
	static const char zero[65536];
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[65536];
	size_t n;
	long long size = 0;
	int ok = in && out;

	while (ok && (n = fread(buf, 1, sizeof(buf), in)) > 0) {
		if (n == sizeof(buf) && !memcmp(buf, zero, n))
			ok = fseeko(out, n, SEEK_CUR) == 0;
		else
			ok = fwrite(buf, 1, n, out) == n;
		size += n;
	}
	if (ok && fflush(out) == 0)
		ok = ftruncate(fileno(out), size) == 0;
	if (in)
		fclose(in);
	if (out && fclose(out))
		ok = 0;
	return ok ? 0 : -1;
}

/* Call at the end of main: prints a summary, returns the exit status. */
static inline int unit_done(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, unit_checks, unit_failures);
	return unit_failures ? 1 : 0;
}

#endif
