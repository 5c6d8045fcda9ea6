// SPDX-License-Identifier: GPL-2.0
/*
 * Ring pressure (recorder/capture/writer_report.c): which ring is a writer's
 * fullest, when loss counts as heavy, and the advice's numbers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "recorder/capture/writer_report.h"
/* The marks are set by hand in the rings' statistics: internals. */
#include "ringbuf/ring_internal.h"

#include <string.h>

static struct evlist_mmap mk_ring(int cpu, uint64_t size, uint64_t fill, uint64_t time)
{
	return (struct evlist_mmap){
		.core = {.cpu = cpu, .size = size, .fill_max = fill, .fill_max_time = time}};
}

static void test_high_water_none(void **state)
{
	struct evlist_mmap r[2] = {mk_ring(0, 4096, 0, 0), mk_ring(1, 4096, 0, 0)};
	struct ring_pressure hw;

	(void)state;
	writer_report__high_water(r, 2, &hw);
	assert_int_equal(hw.cpu, -1);
	assert_true(ring_pressure__pct(&hw) == 0);
	writer_report__high_water(r, 0, &hw);
	assert_int_equal(hw.cpu, -1);
}

/* By share of the ring, not bytes; among equals the earliest. */
static void test_high_water_pick(void **state)
{
	struct evlist_mmap r[4] = {mk_ring(0, 8192, 4096, 5), mk_ring(2, 4096, 3072, 9),
				   mk_ring(5, 4096, 3072, 7), mk_ring(7, 4096, 1000, 1)};
	struct ring_pressure hw;

	(void)state;
	writer_report__high_water(r, 4, &hw);
	assert_int_equal(hw.cpu, 5);
	assert_int_equal(hw.fill, 3072);
	assert_int_equal(hw.size, 4096);
	assert_int_equal(hw.time, 7);
	assert_true(ring_pressure__pct(&hw) == 75.0);
}

static void test_fuller(void **state)
{
	struct ring_pressure none = {.cpu = -1}, half = {1, 2048, 4096, 0}, most = {2, 3000, 4096, 0};
	struct ring_pressure early = {3, 2048, 4096, 1}, late = {4, 2048, 4096, 9};

	(void)state;
	assert_true(ring_pressure__fuller(&half, &none));
	assert_false(ring_pressure__fuller(&none, &half));
	assert_true(ring_pressure__fuller(&most, &half));
	assert_false(ring_pressure__fuller(&half, &half));
	/* As full: the earlier is worse; a missing ring never is. */
	assert_true(ring_pressure__worse(&early, &late));
	assert_false(ring_pressure__worse(&late, &early));
	assert_true(ring_pressure__worse(&late, &none));
	assert_false(ring_pressure__worse(&none, &early));
}

static void test_heavy(void **state)
{
	struct loss_advice a = {.samples = 990, .lost_samples = 10, .hw = {.cpu = -1}};

	(void)state;
	assert_true(writer_report__heavy_loss(&a)); /* exactly 1% */
	a.samples = 10000;
	assert_false(writer_report__heavy_loss(&a));
	a.hw = (struct ring_pressure){3, 3700, 4096, 0}; /* 90.3% */
	assert_true(writer_report__heavy_loss(&a));
	a.lost_samples = 0;
	assert_false(writer_report__heavy_loss(&a)); /* full but nothing lost */
	a.lost_records = 2;
	assert_true(writer_report__heavy_loss(&a));
	a.hw.fill = 3000;
	assert_false(writer_report__heavy_loss(&a));
}

static void test_advice(void **state)
{
	struct loss_advice a = {.samples = 7500, .lost_samples = 2500, .lost_records = 2500,
				.hw = {3, 4088, 4096, 1230000000ULL + 5000}, .start = 5000,
				.mmap_pages = 8, .nr_writers = 1, .nr_cpus = 2};
	char buf[512];

	(void)state;
	assert_string_equal(writer_report__advice(&a, buf, sizeof(buf)),
			    "heavy loss: 25.00% of samples lost (2500 of 10000); ring of cpu 3 "
			    "reached 100% full at 1.23 s: try -m 32 (now 8 pages), --threads=cpu "
			    "(now 1 writer for 2 CPUs), or -r 1 (writers at real-time priority; they "
			    "ran at normal priority)");
	/* Writers already real-time: no -r. */
	a.rt_prio = 1;
	writer_report__advice(&a, buf, sizeof(buf));
	assert_non_null(strstr(buf, ": try -m 32 (now 8 pages) or --threads=cpu (now 1 writer for "
				    "2 CPUs)"));
	assert_null(strstr(buf, "-r 1"));
	/* One writer per CPU already: no --threads; a ring never seen near full. */
	a.nr_writers = 2;
	assert_non_null(strstr(writer_report__advice(&a, buf, sizeof(buf)), ": try -m 32 (now 8 "
									     "pages)"));
	assert_null(strstr(buf, " or "));
	a.rt_prio = 0;
	a.rt_err = -1; /* -EPERM */
	a.mmap_pages = 1;
	a.hw.fill = 2048;
	writer_report__advice(&a, buf, sizeof(buf));
	assert_non_null(strstr(buf, "; fullest ring seen: cpu 3, 50% full at 1.23 s: try -m 4 "
				    "(now 1 page) or -r 1 (writers at real-time priority: needs root"));
	assert_null(strstr(buf, "--threads"));
	/* A shard write of 100 ms or more names the file system, after -m. */
	a.write_max_ns = LOSS_ADVICE_SLOW_WRITE_NS - 1;
	assert_null(strstr(writer_report__advice(&a, buf, sizeof(buf)), "file system"));
	a.write_max_ns = 301400000ULL;
	writer_report__advice(&a, buf, sizeof(buf));
	assert_non_null(strstr(buf, ": try -m 4 (now 1 page), -o on a faster file system (a shard "
				    "write took 301 ms), or -r 1 (writers at real-time priority: "));
	/* A tiny buffer is cut, never overrun. */
	assert_int_equal(strlen(writer_report__advice(&a, buf, 20)), 19);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_high_water_none), cmocka_unit_test(test_high_water_pick),
	    cmocka_unit_test(test_fuller),	    cmocka_unit_test(test_heavy),
	    cmocka_unit_test(test_advice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
