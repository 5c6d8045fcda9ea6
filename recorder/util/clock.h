/* SPDX-License-Identifier: GPL-2.0 */
/* Clock readings in the units callers compare. */
#ifndef SHARDREC_CLOCK_H
#define SHARDREC_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/*
 * The kernel's perf clock (local_clock), what events stamp without
 * use_clockid: for AUX area tracing, whose decoders turn the trace's own
 * timestamps (TSC, the arm64 counter) into perf time through the ring
 * control page's conversion and need the sideband in that time. User
 * space reads it the same way (clock__perf_setup first). Not a clockid
 * the kernel knows: no clock_gettime, no attr.clockid.
 */
#define CLOCK_PERF ((clockid_t)-1000)

/*
 * A ring control page's cycles-to-perf-time conversion, read as perf's
 * perf_read_tsc_conversion does. @cap_zero: usable (cap_user_time_zero and
 * a multiplier); @cap_short: counters narrower than 64 bits (arm64).
 */
struct clock_conv {
	uint64_t shift, mult, zero, cycles, mask;
	bool cap_zero, cap_short;
};

struct perf_event_mmap_page;
void clock__read_conv(const struct perf_event_mmap_page *pc, struct clock_conv *c);

/*
 * Takes @pc's conversion for CLOCK_PERF, once, before any thread reads
 * it. -EOPNOTSUPP where it cannot be read in user space (no
 * cap_user_time_zero, or no cycle counter this code can read).
 */
int clock__perf_setup(const struct perf_event_mmap_page *pc);

/*
 * Whether CLOCK_PERF can be read here: a dummy event's control page offers
 * the conversion (cap_user_time_zero; not on a kvm-clock guest, say).
 */
bool clock__perf_readable(void);

/* @id's time in ns (CLOCK_PERF: after clock__perf_setup). */
uint64_t clock__ns(clockid_t id);
/* CLOCK_MONOTONIC in ms, for timeouts. */
unsigned long long clock__now_ms(void);
/* CLOCK_MONOTONIC in seconds, for durations. */
double clock__now_s(void);

#endif
