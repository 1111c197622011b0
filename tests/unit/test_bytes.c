/*
 * Unit test: util_is_zero against a byte loop (the oracle) over every length
 * from 0 to 300, with nothing set and with one non-zero byte of a seeded
 * value at each position in turn, in a buffer whose start is not aligned.
 */
#include "config.h"

#include <string.h>

#include "util/bytes.h"
#include "unit.h"

#define MAX_LEN	300

static int loop_is_zero(const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

int main(void)
{
	unsigned char buf[MAX_LEN + 8], *p = buf + 3;
	uint32_t state = 2463534242u;	/* fixed seed */
	size_t n, at;

	for (n = 0; n <= MAX_LEN; n++) {
		memset(buf, 0, sizeof(buf));
		CHECK_EQ(util_is_zero(p, n), loop_is_zero(p, n));
		CHECK(util_is_zero(p, n));
		for (at = 0; at < n; at++) {
			unsigned char v = (unsigned char)(unit_xorshift(&state) | 1);

			p[at] = v;
			CHECK_EQ(util_is_zero(p, n), loop_is_zero(p, n));
			CHECK(!util_is_zero(p, n));
			/* a byte just past the range is not part of it */
			p[at] = 0;
			p[n] = v;
			CHECK(util_is_zero(p, n));
			p[n] = 0;
		}
	}
	return unit_done("test_bytes");
}
