// SPDX-License-Identifier: GPL-2.0
/*
 * recorder/capture/membudget.c: will the rings fit in the locked-memory budget?
 * Mirrors the accounting of the kernel's perf_mmap(), in pages as it does.
 */
#include "recorder/capture/membudget.h"
#include "recorder/util/fs.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/capability.h>
#include <sys/resource.h>
#include <unistd.h>

#define MEMBUDGET_MAX_PAGES (1ULL << 30) /* -m's own ceiling */

/* capable(CAP_IPC_LOCK) as perf_mmap() asks it: the effective set. */
static bool has_ipc_lock(void)
{
	cap_flag_value_t v = CAP_CLEAR;
	cap_t caps = cap_get_proc();

	if (!caps)
		return false;
	if (cap_get_flag(caps, CAP_IPC_LOCK, CAP_EFFECTIVE, &v))
		v = CAP_CLEAR;
	cap_free(caps);
	return v == CAP_SET;
}

int membudget__read_limits(struct membudget_limits *l)
{
	long long mlock_kb, paranoid = 2;
	struct rlimit rl;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	int ret;

	ret = filename__read_ll("/proc/sys/kernel/perf_event_mlock_kb", &mlock_kb);
	if (ret)
		return ret;
	if (mlock_kb < 0 || online < 1)
		return -EINVAL;
	filename__read_ll("/proc/sys/kernel/perf_event_paranoid", &paranoid);
	l->page_size = sysconf(_SC_PAGESIZE);
	l->mlock_kb = mlock_kb;
	l->nr_online = online;
	l->rlimit = UINT64_MAX;
	if (!getrlimit(RLIMIT_MEMLOCK, &rl) && rl.rlim_cur != RLIM_INFINITY)
		l->rlimit = rl.rlim_cur;
	l->unlimited = paranoid == -1 || has_ipc_lock();
	return 0;
}

/* Pages the rings may lock: the per-user sysctl allowance, then RLIMIT_MEMLOCK. */
static uint64_t budget_pages(const struct membudget_limits *l)
{
	uint64_t kb_per_page = l->page_size / 1024;
	uint64_t free_pages = l->mlock_kb / kb_per_page * l->nr_online;

	if (l->unlimited || l->rlimit == UINT64_MAX)
		return UINT64_MAX;
	return free_pages + l->rlimit / l->page_size;
}

static bool fits(const struct membudget_limits *l, uint64_t pages, uint64_t aux_pages,
		 size_t nr_rings)
{
	uint64_t budget = budget_pages(l);

	return budget == UINT64_MAX || (pages + 1 + aux_pages) * nr_rings <= budget;
}

size_t membudget__max_pages(const struct membudget_limits *l, size_t aux_pages, size_t nr_rings)
{
	uint64_t pages = MEMBUDGET_MAX_PAGES;

	if (!nr_rings)
		return pages;
	while (pages && !fits(l, pages, aux_pages, nr_rings))
		pages >>= 1;
	return pages;
}

/* "516 KiB", "4.0 MiB", "2.0 GiB" */
static const char *fmt_bytes(uint64_t b, char *buf, size_t len)
{
	if (b >= (1ULL << 30))
		snprintf(buf, len, "%.1f GiB", (double)b / (1ULL << 30));
	else if (b >= (1ULL << 20))
		snprintf(buf, len, "%.1f MiB", (double)b / (1ULL << 20));
	else
		snprintf(buf, len, "%" PRIu64 " KiB", b >> 10);
	return buf;
}

/* "-m 128" or, with AUX areas, "-m 64,32" */
static const char *fmt_m(size_t pages, size_t aux_pages, char *buf, size_t len)
{
	if (aux_pages)
		snprintf(buf, len, "-m %zu,%zu", pages, aux_pages);
	else
		snprintf(buf, len, "-m %zu", pages);
	return buf;
}

int membudget__check(const struct membudget_limits *l, size_t pages, size_t aux_pages,
		     size_t nr_rings, char *err, size_t errlen)
{
	uint64_t need = (uint64_t)(pages + 1 + aux_pages) * l->page_size, allow;
	char need_s[32], total_s[32], allow_s[32], m[48], fit[80] = "nothing fits";
	size_t max;

	if (!nr_rings || fits(l, pages, aux_pages, nr_rings))
		return 0;
	allow = budget_pages(l) * l->page_size / nr_rings;
	max = membudget__max_pages(l, aux_pages, nr_rings);
	if (max)
		snprintf(fit, sizeof(fit), "use %s or less", fmt_m(max, aux_pages, m, sizeof(m)));
	snprintf(err, errlen,
		 "%s needs %s of locked memory per CPU (%s for %zu CPUs); "
		 "perf_event_mlock_kb=%" PRIu64 " and RLIMIT_MEMLOCK=%" PRIu64 " KiB allow %s "
		 "per CPU: %s, or raise kernel.perf_event_mlock_kb / ulimit -l, or grant "
		 "CAP_IPC_LOCK",
		 fmt_m(pages, aux_pages, m, sizeof(m)), fmt_bytes(need, need_s, sizeof(need_s)),
		 fmt_bytes(need * nr_rings, total_s, sizeof(total_s)), nr_rings, l->mlock_kb,
		 l->rlimit >> 10, fmt_bytes(allow, allow_s, sizeof(allow_s)), fit);
	return -EPERM;
}

int membudget__check_self(size_t pages, size_t aux_pages, size_t nr_rings, char *err,
			  size_t errlen)
{
	struct membudget_limits l;

	if (membudget__read_limits(&l))
		return 0;
	return membudget__check(&l, pages, aux_pages, nr_rings, err, errlen);
}
