/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Locked-memory budget of the rings, checked before any event is opened so
 * that a too large -m fails with one line saying what fits, instead of an
 * EPERM from the Nth mmap.
 *
 * The kernel's perf_mmap() accounting: every ring costs 1 + data pages,
 * and its AUX area, if any, its pages (same user count). Per user,
 * perf_event_mlock_kb * online CPUs are free; the excess is charged to
 * the process's RLIMIT_MEMLOCK. CAP_IPC_LOCK, or
 * perf_event_paranoid == -1, lifts the limit.
 */
#ifndef SHARDREC_MEMBUDGET_H
#define SHARDREC_MEMBUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct membudget_limits {
	size_t page_size;
	uint64_t mlock_kb;  /* kernel.perf_event_mlock_kb */
	unsigned nr_online; /* online CPUs: the sysctl scales with them */
	uint64_t rlimit;    /* RLIMIT_MEMLOCK bytes, UINT64_MAX if unlimited */
	bool unlimited;	    /* CAP_IPC_LOCK effective, or perf_event_paranoid == -1 */
};

/*
 * Reads this process's limits. 0, or -errno when perf_event_mlock_kb
 * cannot be read (then the kernel will judge alone).
 */
int membudget__read_limits(struct membudget_limits *l);
/*
 * Largest power-of-two data page count per ring that fits for @nr_rings
 * rings with AUX areas of @aux_pages (0: none), capped at 2^30; 0 when not
 * even one page fits.
 */
size_t membudget__max_pages(const struct membudget_limits *l, size_t aux_pages, size_t nr_rings);
/*
 * 0 when @nr_rings rings of @pages data pages and @aux_pages AUX pages fit
 * in @l; else -EPERM with one line in @err naming the -m that fits and
 * what to raise.
 */
int membudget__check(const struct membudget_limits *l, size_t pages, size_t aux_pages,
		     size_t nr_rings, char *err, size_t errlen);
/*
 * membudget__check() against this process's limits; 0 when they cannot be
 * read (the mmap will then report any failure).
 */
int membudget__check_self(size_t pages, size_t aux_pages, size_t nr_rings, char *err,
			  size_t errlen);

#endif
