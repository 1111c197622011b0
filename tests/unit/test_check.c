/* Unit test: the checker's problem table is complete and consistent; the driver's clean path and progress. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/check.h"
#include "fs/image.h"
#include "fsck/fsck.h"
#include "util/e4r_err.h"
#include "unit.h"

static void check_table(void)
{
	int i, j;

	for (i = 0; i < E4R_PR_COUNT; i++) {
		const struct check_problem_info *p = check_problem_info(i);
		const char *m;

		CHECK(p != NULL);
		if (!p)
			continue;
		CHECK_EQ(p->code, i);
		CHECK(p->name && *p->name && p->message && *p->message);
		CHECK(p->pass >= 0 && p->pass < E4R_PASS_COUNT);
		CHECK(p->severity <= E4R_SEV_INFO);
		/* Only the fields a finding has may appear in a template. */
		for (m = strchr(p->message, '%'); m; m = strchr(m + 2, '%'))
			CHECK(m[1] && strchr("ibgdnefoxrRq", m[1]));
		for (j = 0; j < i; j++) {
			const struct check_problem_info *q = check_problem_info(j);
			CHECK(!q || strcmp(q->name, p->name) != 0);
		}
	}
	CHECK(check_problem_info(E4R_PR_COUNT) == NULL);
	CHECK(check_problem_info((enum check_problem)-1) == NULL);
}

struct seen { uint64_t last_done[E4R_PASS_COUNT]; int finished[E4R_PASS_COUNT]; int backwards; };

static void progress(void *arg, int pass, uint64_t done, uint64_t total)
{
	struct seen *s = arg;

	if (pass < 0 || pass >= E4R_PASS_COUNT)
		return;
	if (done < s->last_done[pass])
		s->backwards = 1;
	s->last_done[pass] = done;
	if (done == total)
		s->finished[pass] = 1;
}

static void check_clean_image(const char *img)
{
	struct check_opts o = { 0 };
	struct check_result *r = NULL;
	struct seen s = { { 0 }, { 0 }, 0 };
	ext2_filsys fs;
	int p;

	CHECK_EQ(fs_image_open(img, 0, NULL, &fs), 0);
	CHECK_EQ(fsck_run(fs, &o, &r), 0);
	CHECK(r && r->reason == E4R_REASON_CLEAN_SKIPPED && r->errors == 0 && r->count == 0);
	check_result_free(r);

	o.force = 1;
	o.progress = progress;
	o.progress_arg = &s;
	CHECK_EQ(fsck_run(fs, &o, &r), 0);
	CHECK(r && r->reason == E4R_REASON_FORCED && r->errors == 0 && r->count == 0 && !r->aborted);
	CHECK(r && r->inodes_used == 11 && r->dirs == 2);
	for (p = 0; p < E4R_PASS_COUNT; p++)
		CHECK(s.finished[p]);
	CHECK(!s.backwards);
	check_result_free(r);
	ext2fs_close_free(&fs);
}

int main(void)
{
	char dir[] = "/tmp/e4r-unit-check-XXXXXX", img[256], cmd[512];

	initialize_e4r_error_table();
	initialize_ext2_error_table();
	check_table();
	CHECK(mkdtemp(dir) != NULL);
	snprintf(img, sizeof(img), "%s/clean.img", dir);
	snprintf(cmd, sizeof(cmd), "PATH=/sbin:/usr/sbin:$PATH mke2fs -q -F -t ext4 %s 8M >/dev/null 2>&1", img);
	if (system(cmd) == 0)
		check_clean_image(img);
	else
		fprintf(stderr, "mke2fs not available: driver part skipped\n");
	unlink(img);
	rmdir(dir);
	return unit_done("test_check");
}
