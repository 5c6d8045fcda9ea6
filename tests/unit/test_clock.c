// SPDX-License-Identifier: GPL-2.0
/*
 * recorder/util/clock.c: CLOCK_PERF, the perf clock read in user space
 * through a ring's control page (what AUX recordings stamp with). A FORK
 * record the kernel stamps while we read the clock around it lies between
 * the two readings, and the clock runs at the rate of CLOCK_MONOTONIC.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "recorder/util/clock.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct fork_rec {
	struct perf_event_header header;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
	uint64_t sample_time; /* sample_id_all: sample_type TIME */
};

/* The first FORK record in @pc's ring; fails the test if there is none. */
static uint64_t fork_time(struct perf_event_mmap_page *pc, size_t page)
{
	const unsigned char *data = (const unsigned char *)pc + page;
	uint64_t head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);

	for (uint64_t off = 0; off < head;) {
		const struct perf_event_header *h = (const void *)(data + off % page);

		if (h->type == PERF_RECORD_FORK) {
			struct fork_rec r;

			assert_int_equal(h->size, sizeof(r));
			memcpy(&r, h, sizeof(r)); /* one data page: no wrap this early */
			return r.sample_time;
		}
		assert_true(h->size > 0);
		off += h->size;
	}
	fail_msg("no FORK record");
	return 0;
}

static void test_perf_clock(void **state)
{
	struct perf_event_attr a = {.type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				    .config = PERF_COUNT_SW_DUMMY, .sample_id_all = 1,
				    .sample_type = PERF_SAMPLE_TIME, .task = 1,
				    .exclude_kernel = 1};
	size_t page = sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *pc;
	struct timespec m0, m1;
	uint64_t t0, t1, t, p0, p1;
	int fd, ret;
	pid_t pid;

	(void)state;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		skip(); /* perf_event_paranoid 3, or no perf events at all */
	pc = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(pc != MAP_FAILED);
	ret = clock__perf_setup(pc);
	/* the probe the recorder decides by agrees with the ring's own page */
	assert_int_equal(clock__perf_readable(), ret == 0);
	if (ret == -EOPNOTSUPP) {
		munmap(pc, 2 * page);
		close(fd);
		skip(); /* no cap_user_time_zero here */
	}
	assert_int_equal(ret, 0);
	t0 = clock__ns(CLOCK_PERF);
	pid = fork();
	if (!pid)
		_exit(0);
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	t1 = clock__ns(CLOCK_PERF);
	t = fork_time(pc, page);
	if (t < t0 || t > t1)
		fail_msg("FORK at %llu, not within the readings %llu..%llu", (unsigned long long)t,
			 (unsigned long long)t0, (unsigned long long)t1);
	/*
	 * The rate: 20 ms of CLOCK_MONOTONIC are 20 ms of the perf clock,
	 * within 1%. A vCPU descheduled between two readings (a TCG guest on
	 * a busy host) widens the outer pair alone: so the best of 5 tries.
	 */
	for (int i = 0; i < 5; i++) {
		clock_gettime(CLOCK_MONOTONIC, &m0);
		p0 = clock__ns(CLOCK_PERF);
		usleep(20000);
		p1 = clock__ns(CLOCK_PERF);
		clock_gettime(CLOCK_MONOTONIC, &m1);
		t = (m1.tv_sec - m0.tv_sec) * 1000000000ULL + m1.tv_nsec - m0.tv_nsec;
		assert_true(p1 > p0);
		if (p1 - p0 <= t + t / 100 && p1 - p0 > t - t / 100 - 1000000)
			break;
		if (i == 4)
			fail_msg("20 ms apart: %llu ns of CLOCK_MONOTONIC, %llu of the perf clock",
				 (unsigned long long)t, (unsigned long long)(p1 - p0));
	}
	munmap(pc, 2 * page);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_perf_clock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
