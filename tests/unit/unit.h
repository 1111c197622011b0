/* A minimal unit-test harness: CHECK records a failure and carries on. */
#ifndef E4R_UNIT_H
#define E4R_UNIT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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

/* Call at the end of main: prints a summary, returns the exit status. */
static inline int unit_done(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, unit_checks, unit_failures);
	return unit_failures ? 1 : 0;
}

#endif
