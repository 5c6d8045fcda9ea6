// SPDX-License-Identifier: GPL-2.0
/*
 * util/progress: silent for short work, one line per period in a log (a
 * batch job's output), MB = 10^6 bytes, nothing left to finish off a log.
 * The clock is the real one; the tests move the start back instead.
 */
#include "unit_util.h"

#include "recorder/util/progress.h"

static char *run_lines(void (*body)(struct progress *p))
{
	char path[] = "/tmp/test_progress.XXXXXX";
	int fd = mkstemp(path);
	FILE *f;
	struct progress p;
	char *text;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	progress__init(&p, "merging", f);
	assert_false(p.tty);
	body(&p);
	fclose(f);
	text = unit_slurp(path, NULL);
	unlink(path);
	return text;
}

static void short_work(struct progress *p)
{
	progress__update(p, 1000000, 2000000);
	progress__finish(p, 2000000, 2000000);
}

/* Work within its first seconds prints nothing at all. */
static void test_short_is_silent(void **state)
{
	char *text = run_lines(short_work);

	(void)state;
	assert_string_equal(text, "");
	free(text);
}

static void long_work(struct progress *p)
{
	p->t0 -= 10; /* ten seconds in: 250 MB done, 25 MB/s */
	p->last = p->t0;
	progress__update(p, 250000000, 1000000000);
	progress__update(p, 260000000, 1000000000); /* within the period: nothing */
	p->last -= 10;
	progress__update(p, 500000000, 1000000000);
	progress__finish(p, 1000000000, 1000000000);
}

/* Not a terminal: one plain line per period, decimal MB, no bar, no \r. */
static void test_log_lines(void **state)
{
	char *text = run_lines(long_work);

	(void)state;
	assert_non_null(strstr(text, "shardrec: merging: 250.0 of 1000.0 MB (25%), 25 MB/s\n"));
	assert_non_null(strstr(text, "shardrec: merging: 500.0 of 1000.0 MB (50%), "));
	assert_int_equal(unit_count(text, "\n"), 2);
	assert_null(strchr(text, '\r'));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_is_silent),
		cmocka_unit_test(test_log_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
