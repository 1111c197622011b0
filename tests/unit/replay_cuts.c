/*
 * Test helper (run by tests/t/replay-interrupt.sh): replay_cuts IMAGE POLICY
 * replays a copy of IMAGE once without interruption, then, for every k below
 * the number of block writes that took, cuts a fresh copy's replay after k
 * writes (a power cut, through the fault-injecting io manager) and runs the
 * replay again. Every such image must equal the uninterrupted one (superblock
 * times and counters aside), and a further run must change nothing.
 * Exit 0 when all agree. Prints one line per problem and a summary.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/image.h"
#include "fault_io.h"
#include "util/e4r_err.h"
#include "unit.h"

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (*len = ftell(f)) > 0) {
		rewind(f);
		buf = malloc(*len);
		if (buf && fread(buf, 1, *len, f) != *len) {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

/* Superblock fields two correct replays may set differently (times, counters, their checksum). */
static void mask_super(unsigned char *img, size_t len)
{
	static const struct { unsigned off, n; } vol[] = {
		{ 0x2C, 4 }, { 0x30, 4 }, { 0x34, 2 }, { 0x178, 8 }, { 0x274, 4 }, { 0x3FC, 4 },
	};

	if (len < 2048)
		return;
	for (unsigned i = 0; i < sizeof(vol) / sizeof(*vol); i++)
		memset(img + 1024 + vol[i].off, 0, vol[i].n);
}

static int same_image(const char *a, const char *b, int masked)
{
	size_t la = 0, lb = 0;
	unsigned char *x = slurp(a, &la), *y = slurp(b, &lb);
	int same = x && y && la == lb;

	if (same && masked) {
		mask_super(x, la);
		mask_super(y, lb);
	}
	same = same && !memcmp(x, y, la);
	free(x);
	free(y);
	return same;
}

static errcode_t replay(const char *img, enum replay_policy policy, io_manager io)
{
	struct replay_opts o = { .policy = policy, .io = io };
	struct replay_result *r = NULL;
	errcode_t err = replay_image(img, &o, &r);

	replay_free(r);
	return err;
}

int main(int argc, char **argv)
{
	enum replay_policy policy;
	char ref[4096], cut[4096];
	long total;

	if (argc != 3 || replay_policy_parse(argv[2], &policy)) {
		fprintf(stderr, "usage: replay_cuts IMAGE POLICY\n");
		return 2;
	}
	initialize_e4r_error_table();
	snprintf(ref, sizeof(ref), "%s.ref", argv[1]);
	snprintf(cut, sizeof(cut), "%s.cut", argv[1]);

	CHECK(unit_copy_file(argv[1], ref) == 0);
	e4r_fault_io_setup(unix_io_manager, -1);
	CHECK_EQ(replay(ref, policy, e4r_fault_io_manager), 0);
	total = e4r_fault_io_written();
	CHECK(total > 3);
	for (long k = 0; k < total; k++) {
		CHECK(unit_copy_file(argv[1], cut) == 0);
		e4r_fault_io_setup(unix_io_manager, k);
		CHECK(replay(cut, policy, e4r_fault_io_manager) != 0);
		CHECK(e4r_fault_io_tripped());
		CHECK_EQ(replay(cut, policy, unix_io_manager), 0);
		if (!same_image(cut, ref, 1)) {
			printf("cut after %ld of %ld writes, then rerun: differs from the uninterrupted replay\n",
			       k, total);
			CHECK(0);
		}
	}
	/* Once finished, another run changes no byte. */
	CHECK(unit_copy_file(ref, cut) == 0);
	CHECK_EQ(replay(cut, policy, unix_io_manager), 0);
	CHECK(same_image(cut, ref, 0));
	printf("%s, policy %s: %ld block writes, every cut tried\n", argv[1], argv[2], total);
	remove(ref);
	remove(cut);
	return unit_done("replay_cuts");
}
