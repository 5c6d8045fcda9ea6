// SPDX-License-Identifier: GPL-2.0
/* The test-only fault injection's parser and decisions (recorder/capture/fault.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "recorder/capture/fault.h"

#include <errno.h>
#include <time.h>

static void test_parse(void **state)
{
	(void)state;
	assert_int_equal(fault__set("writer:1:enospc_after:100"), 0);
	assert_int_equal(fault__set("writer:*:slow:0,writer:0:eio_after:5"), 0);
	assert_int_equal(fault__set(""), 0);
	assert_int_equal(fault__set("writer:1:enospc_after"), -EINVAL);
	assert_int_equal(fault__set("writer:1:enospc_after:1:2"), -EINVAL);
	assert_int_equal(fault__set("reader:1:enospc_after:1"), -EINVAL);
	assert_int_equal(fault__set("writer:x:enospc_after:1"), -EINVAL);
	assert_int_equal(fault__set("writer:1:full:1"), -EINVAL);
	assert_int_equal(fault__set("writer:1:eio_after:12k"), -EINVAL);
	/* A malformed spec injects nothing at all. */
	assert_int_equal(fault__shard_write(1, 1ULL << 40, 1), 0);
}

/* A held ring: from the first call for its CPU, for MS ms; other CPUs and writes untouched. */
static void test_ring_hold(void **state)
{
	const uint64_t ms = 1000000;

	(void)state;
	assert_int_equal(fault__set("ring:*:hold:5"), -EINVAL);
	assert_int_equal(fault__set("ring:0:slow:5"), -EINVAL);
	assert_int_equal(fault__set("writer:0:hold:5"), -EINVAL);
	assert_int_equal(fault__set("ring:3:hold:20"), 0);
	assert_false(fault__ring_held(2, 7 * ms));
	assert_true(fault__ring_held(3, 10 * ms)); /* the hold starts here */
	assert_true(fault__ring_held(3, 29 * ms));
	assert_false(fault__ring_held(3, 30 * ms));
	assert_false(fault__ring_held(3, 31 * ms));
	assert_int_equal(fault__shard_write(3, 1ULL << 40, 4096), 0);
}

/* switch:GEN:kill:MS parses; it kills in no other place and at no other generation. */
static void test_switch_kill(void **state)
{
	(void)state;
	assert_int_equal(fault__set("switch:*:kill:0"), -EINVAL);
	assert_int_equal(fault__set("switch:2:hold:0"), -EINVAL);
	assert_int_equal(fault__set("writer:2:kill:0"), -EINVAL);
	assert_int_equal(fault__set("switch:2:kill:300"), 0);
	fault__switch_taken(1);
	fault__switch_taken(3);
	assert_int_equal(fault__shard_write(2, 1ULL << 40, 4096), 0);
	assert_false(fault__ring_held(2, 1));
}

/* synth:1:sleep:MS sleeps once the tasks are described, and nowhere else. */
static void test_synth_sleep(void **state)
{
	struct timespec a, b;

	(void)state;
	assert_int_equal(fault__set("synth:1:kill:5"), -EINVAL);
	assert_int_equal(fault__set("writer:1:sleep:5"), -EINVAL);
	assert_int_equal(fault__set("synth:1:sleep:30"), 0);
	assert_int_equal(fault__shard_write(1, 1ULL << 40, 4096), 0);
	assert_false(fault__ring_held(1, 1));
	clock_gettime(CLOCK_MONOTONIC, &a);
	fault__synth_done();
	clock_gettime(CLOCK_MONOTONIC, &b);
	assert_true((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 >= 29);
}

static void test_enospc_one_writer(void **state)
{
	(void)state;
	assert_int_equal(fault__set("writer:1:enospc_after:1000"), 0);
	assert_int_equal(fault__shard_write(1, 64, 936), 0);	     /* ends exactly at the limit */
	assert_int_equal(fault__shard_write(1, 64, 937), -ENOSPC); /* one byte past it */
	assert_int_equal(fault__shard_write(0, 1ULL << 40, 4096), 0);
	assert_int_equal(fault__shard_write(2, 1ULL << 40, 4096), 0);
}

static void test_eio_every_writer(void **state)
{
	(void)state;
	assert_int_equal(fault__set("writer:*:eio_after:0"), 0);
	for (unsigned w = 0; w < 4; w++)
		assert_int_equal(fault__shard_write(w, 64, 40), -EIO);
}

static void test_slow(void **state)
{
	struct timespec a, b;

	(void)state;
	assert_int_equal(fault__set("writer:0:slow:30"), 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	assert_int_equal(fault__shard_write(0, 64, 40), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	assert_true((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 >= 29);
	/* other writers are not slowed */
	clock_gettime(CLOCK_MONOTONIC, &a);
	assert_int_equal(fault__shard_write(1, 64, 40), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	assert_true((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < 29);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_ring_hold),
		cmocka_unit_test(test_switch_kill),
		cmocka_unit_test(test_synth_sleep),
		cmocka_unit_test(test_enospc_one_writer),
		cmocka_unit_test(test_eio_every_writer),
		cmocka_unit_test(test_slow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
