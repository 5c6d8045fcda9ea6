// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for recorder/capture/membudget.c with injected limits: the -m that
 * fits, the error line, and the bypasses. The arithmetic mirrors the
 * kernel's perf_mmap(): each ring is 1 + data pages, + its AUX area's
 * pages; per user
 * perf_event_mlock_kb * online CPUs are free, the excess goes against
 * RLIMIT_MEMLOCK.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "recorder/capture/membudget.h"

/* Debian's defaults on a 2-CPU box: 516 KiB per CPU, ulimit -l 64 KiB. */
static struct membudget_limits box(void)
{
	struct membudget_limits l = {
	    .page_size = 4096,
	    .mlock_kb = 516,
	    .nr_online = 2,
	    .rlimit = 64 << 10,
	};
	return l;
}

static void test_max_pages(void **state)
{
	struct membudget_limits l = box();

	(void)state;
	/* budget: 129 * 2 + 16 = 274 pages; 2 * (128 + 1) = 258 fits, 2 * 257 does not */
	assert_int_equal(membudget__max_pages(&l, 0, 2), 128);
	/* one ring gets the whole per-user allowance of both CPUs */
	assert_int_equal(membudget__max_pages(&l, 0, 1), 256);
	/* 272 KNL CPUs, one recorded per writer: the allowance scales with online CPUs */
	l.nr_online = 272;
	assert_int_equal(membudget__max_pages(&l, 0, 272), 128);
	l.mlock_kb = 0;
	l.rlimit = 0;
	assert_int_equal(membudget__max_pages(&l, 0, 2), 0);
}

static void test_check_fits(void **state)
{
	struct membudget_limits l = box();
	char err[512] = "";

	(void)state;
	assert_int_equal(membudget__check(&l, 128, 0, 2, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_int_equal(membudget__check(&l, 1024, 0, 0, err, sizeof(err)), 0);
	/* -C 0 on the same box: one ring */
	assert_int_equal(membudget__check(&l, 256, 0, 1, err, sizeof(err)), 0);
}

static void test_check_message(void **state)
{
	struct membudget_limits l = box();
	char err[512];

	(void)state;
	assert_int_equal(membudget__check(&l, 1024, 0, 2, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "-m 1024 needs 4.0 MiB of locked memory per CPU"));
	assert_non_null(strstr(err, "(8.0 MiB for 2 CPUs)"));
	assert_non_null(strstr(err, "allow 548 KiB per CPU"));
	assert_non_null(strstr(err, "use -m 128 or less"));
	assert_non_null(strstr(err, "CAP_IPC_LOCK"));
	assert_null(strchr(err, '\n'));
	l.mlock_kb = 0;
	l.rlimit = 0;
	assert_int_equal(membudget__check(&l, 1, 0, 2, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "nothing fits"));
}

static void test_bypasses(void **state)
{
	struct membudget_limits l = box();
	char err[512];

	(void)state;
	l.unlimited = true; /* CAP_IPC_LOCK or perf_event_paranoid -1 */
	assert_int_equal(membudget__check(&l, 1 << 20, 0, 272, err, sizeof(err)), 0);
	assert_int_equal(membudget__max_pages(&l, 0, 272), 1 << 30);
	l = box();
	l.rlimit = UINT64_MAX; /* ulimit -l unlimited */
	assert_int_equal(membudget__check(&l, 1 << 20, 0, 272, err, sizeof(err)), 0);
}

/*
 * AUX areas count with their rings: 272 CPUs, ulimit -l 8 MiB (Debian 12's),
 * 128 KiB AUX areas (perf's unprivileged default). 512 KiB data rings
 * (perf's default without AUX) do not fit; perf's 256 KiB beside AUX do.
 */
static void test_aux(void **state)
{
	struct membudget_limits l = box();
	char err[512];

	(void)state;
	l.nr_online = 272;
	l.rlimit = 8 << 20;
	/* budget 129 * 272 + 2048 = 37136 pages: (128 + 1 + 32) * 272 = 43792 */
	assert_int_equal(membudget__check(&l, 128, 0, 272, err, sizeof(err)), 0);
	assert_int_equal(membudget__check(&l, 64, 32, 272, err, sizeof(err)), 0);
	assert_int_equal(membudget__check(&l, 128, 32, 272, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "-m 128,32 needs 644 KiB of locked memory per CPU"));
	assert_non_null(strstr(err, "use -m 64,32 or less"));
	assert_int_equal(membudget__max_pages(&l, 32, 272), 64);
	/* an AUX area alone too large: no data size helps */
	assert_int_equal(membudget__max_pages(&l, 256, 272), 0);
	assert_int_equal(membudget__check(&l, 1, 256, 272, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "nothing fits"));
}

static void test_page_size(void **state)
{
	/* 64 KiB pages (arm64, ppc64): the sysctl is rounded down to whole pages */
	struct membudget_limits l = {
	    .page_size = 65536,
	    .mlock_kb = 516,
	    .nr_online = 4,
	    .rlimit = 0,
	};

	(void)state;
	/* 8 pages per CPU free: 4 rings of 1 + 4 pages fit in 32, of 1 + 8 do not */
	assert_int_equal(membudget__max_pages(&l, 0, 4), 4);
}

static void test_read_limits(void **state)
{
	struct membudget_limits l;
	char err[512];

	(void)state;
	if (membudget__read_limits(&l))
		skip();
	assert_true(l.page_size >= 4096);
	assert_true(l.nr_online >= 1);
	assert_int_equal(membudget__check_self(1, 0, 1, err, sizeof(err)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_max_pages),	  cmocka_unit_test(test_check_fits),
	    cmocka_unit_test(test_check_message), cmocka_unit_test(test_bypasses),
	    cmocka_unit_test(test_aux),		  cmocka_unit_test(test_page_size),
	    cmocka_unit_test(test_read_limits),
	};

	return cmocka_run_group_tests_name("membudget", tests, NULL, NULL);
}
