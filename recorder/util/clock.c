// SPDX-License-Identifier: GPL-2.0
#include "recorder/util/clock.h"
#include "recorder/util/perf_event.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

/*
 * Reads the control page's time fields under its seqcount, as perf's
 * perf_read_tsc_conversion: the kernel bumps pc->lock (odd while
 * updating) around each update. Every load is an acquire so the second
 * lock read cannot pass the field reads (the seqlock reader's rmb, without
 * a fence), pairing with the kernel's barriers around the update.
 */
void clock__read_conv(const struct perf_event_mmap_page *pc, struct clock_conv *c)
{
	struct perf_event_mmap_page caps;
	uint32_t seq;

	memset(c, 0, sizeof(*c));
	if (!pc)
		return;
	for (int tries = 0; tries < 1000; tries++) {
		seq = __atomic_load_n(&pc->lock, __ATOMIC_ACQUIRE);
		c->shift = __atomic_load_n(&pc->time_shift, __ATOMIC_ACQUIRE);
		c->mult = __atomic_load_n(&pc->time_mult, __ATOMIC_ACQUIRE);
		c->zero = __atomic_load_n(&pc->time_zero, __ATOMIC_ACQUIRE);
		c->cycles = __atomic_load_n(&pc->time_cycles, __ATOMIC_ACQUIRE);
		c->mask = __atomic_load_n(&pc->time_mask, __ATOMIC_ACQUIRE);
		caps.capabilities = __atomic_load_n(&pc->capabilities, __ATOMIC_ACQUIRE);
		c->cap_zero = caps.cap_user_time_zero;
		c->cap_short = caps.cap_user_time_short;
		if (!(seq & 1) && __atomic_load_n(&pc->lock, __ATOMIC_ACQUIRE) == seq)
			break;
	}
	/* intel_pt_info_fill: usable only with the capability and a multiplier */
	c->cap_zero = c->cap_zero && c->mult;
}

/*
 * The counter the kernel's conversion is for: 0 where this code cannot
 * read it. Fenced on both sides: as clock_gettime's, the read does not run
 * before earlier loads, and a writer's pass time is read before the ring
 * heads that follow it (doc/design.md, Clock).
 */
static uint64_t clock__cycles(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint64_t v;

	_mm_lfence();
	v = __rdtsc();
	_mm_lfence();
	return v;
#elif defined(__aarch64__)
	uint64_t v;

	asm volatile("isb; mrs %0, cntvct_el0; isb" : "=r"(v) : : "memory");
	return v;
#else
	return 0;
#endif
}

/* Written once by clock__perf_setup, before the threads that read it start. */
static struct clock_conv perf_conv;

int clock__perf_setup(const struct perf_event_mmap_page *pc)
{
	clock__read_conv(pc, &perf_conv);
	return perf_conv.cap_zero && clock__cycles() ? 0 : -EOPNOTSUPP;
}

bool clock__perf_readable(void)
{
	struct perf_event_attr a = {.type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				    .config = PERF_COUNT_SW_DUMMY, .exclude_kernel = 1};
	size_t page = sysconf(_SC_PAGESIZE);
	struct clock_conv c;
	void *pc;
	int fd = perf_event__open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return false;
	/* The control page alone: no data pages are needed to read it. */
	pc = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (pc == MAP_FAILED)
		return false;
	clock__read_conv(pc, &c);
	munmap(pc, page);
	return c.cap_zero && clock__cycles();
}

/* perf's tsc_to_perf_time. */
static uint64_t clock__perf_ns(void)
{
	const struct clock_conv *c = &perf_conv;
	uint64_t cyc = clock__cycles(), quot, rem;

	if (c->cap_short)
		cyc = c->cycles + ((cyc - c->cycles) & c->mask);
	quot = cyc >> c->shift;
	rem = cyc & ((1ULL << c->shift) - 1);
	return c->zero + quot * c->mult + ((rem * c->mult) >> c->shift);
}

uint64_t clock__ns(clockid_t id)
{
	struct timespec ts;

	if (id == CLOCK_PERF)
		return clock__perf_ns();
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

unsigned long long clock__now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

double clock__now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
