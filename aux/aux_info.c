// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_RECORD_AUXTRACE_INFO: { header, u32 type, u32 reserved, u64 priv[] }.
 * The private layouts are perf 6.1's: intel_pt_info_fill
 * (arch/x86/util/intel-pt.c, enum in util/intel-pt.h), intel_bts_info_fill,
 * arm_spe_info_fill. perf refuses a file whose AUXTRACE_INFO type it does
 * not know, so an unknown PMU gets no record at all (-EOPNOTSUPP).
 */
#include "aux/aux.h"
#include "aux/aux_cpuid.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	PT_PMU_TYPE,
	PT_TIME_SHIFT,
	PT_TIME_MULT,
	PT_TIME_ZERO,
	PT_CAP_USER_TIME_ZERO,
	PT_TSC_BIT,
	PT_NORETCOMP_BIT,
	PT_HAVE_SCHED_SWITCH,
	PT_SNAPSHOT_MODE,
	PT_PER_CPU_MMAPS,
	PT_MTC_BIT,
	PT_MTC_FREQ_BITS,
	PT_TSC_CTC_N,
	PT_TSC_CTC_D,
	PT_CYC_BIT,
	PT_MAX_NONTURBO_RATIO,
	PT_FILTER_STR_LEN,
	PT_PRIV_MAX, /* 17 */
};

enum { BTS_PMU_TYPE, BTS_TIME_SHIFT, BTS_TIME_MULT, BTS_TIME_ZERO, BTS_CAP_USER_TIME_ZERO,
       BTS_SNAPSHOT_MODE, BTS_PRIV_MAX };

#define INFO_HDR 16 /* header + type + reserved */

struct time_conv {
	uint64_t shift, mult, zero;
	bool cap_zero;
};

/*
 * Reads the control page's time fields under its seqcount, as perf's
 * perf_read_tsc_conversion: the kernel bumps pc->lock (odd while
 * updating) around each update. Every load is an acquire so the second
 * lock read cannot pass the field reads (the seqlock reader's rmb, without
 * a fence), pairing with the kernel's barriers around the update.
 */
static void time_conv__read(const struct perf_event_mmap_page *pc, struct time_conv *tc)
{
	struct perf_event_mmap_page caps;
	uint32_t seq;

	memset(tc, 0, sizeof(*tc));
	if (!pc)
		return;
	for (int tries = 0; tries < 1000; tries++) {
		seq = __atomic_load_n(&pc->lock, __ATOMIC_ACQUIRE);
		tc->shift = __atomic_load_n(&pc->time_shift, __ATOMIC_ACQUIRE);
		tc->mult = __atomic_load_n(&pc->time_mult, __ATOMIC_ACQUIRE);
		tc->zero = __atomic_load_n(&pc->time_zero, __ATOMIC_ACQUIRE);
		caps.capabilities = __atomic_load_n(&pc->capabilities, __ATOMIC_ACQUIRE);
		tc->cap_zero = caps.cap_user_time_zero;
		if (!(seq & 1) && __atomic_load_n(&pc->lock, __ATOMIC_ACQUIRE) == seq)
			break;
	}
	/* intel_pt_info_fill: usable only with the capability and a multiplier */
	tc->cap_zero = tc->cap_zero && tc->mult;
}

/* Reads one number from the PMU's sysfs directory; false if absent. */
static bool sysfs__u64(const struct aux_info_params *p, const char *file, uint64_t *v)
{
	char path[512];
	unsigned long long x;
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s/sys/bus/event_source/devices/%s/%s",
		 p->sysfs_root ? p->sysfs_root : "", p->pmu, file);
	f = fopen(path, "re");
	if (!f)
		return false;
	ok = fscanf(f, "%llu", &x) == 1;
	fclose(f);
	if (ok)
		*v = x;
	return ok;
}

/*
 * A format/ term's bits in attr.config ("config:10", "config:14-17"); 0 if
 * the term is absent or lives in config1/config2 (perf's
 * perf_pmu__format_bits looks at config alone here).
 */
static uint64_t format__mask(const struct aux_info_params *p, const char *term)
{
	char path[512], spec[64];
	unsigned lo, hi;
	uint64_t mask = 0;
	int n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/bus/event_source/devices/%s/format/%s",
		 p->sysfs_root ? p->sysfs_root : "", p->pmu, term);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fscanf(f, "%63[^:]:%u-%u", spec, &lo, &hi);
	fclose(f);
	if (n < 2 || strcmp(spec, "config") || lo > 63)
		return 0;
	if (n < 3)
		hi = lo;
	for (unsigned b = lo; b <= hi && b < 64; b++)
		mask |= 1ULL << b;
	return mask;
}

/* The config value of term=1: perf's intel_pt_parse_terms(format, "tsc", &tsc_bit). */
static uint64_t format__one(const struct aux_info_params *p, const char *term)
{
	uint64_t mask = format__mask(p, term);

	return mask & -mask;
}

static size_t filter_bytes(const char *filter)
{
	size_t len = filter ? strlen(filter) : 0;

	return len ? (len + 1 + 7) & ~7UL : 0;
}

static void intel_pt__fill(const struct aux_info_params *p, uint64_t *priv)
{
	struct time_conv tc;
	uint32_t n = 0, d = 0;
	uint64_t ratio = 0;

	time_conv__read(p->pc, &tc);
	aux_cpuid__tsc_ctc(&n, &d);
	sysfs__u64(p, "max_nonturbo_ratio", &ratio);
	priv[PT_PMU_TYPE] = p->pmu_type;
	priv[PT_TIME_SHIFT] = tc.shift;
	priv[PT_TIME_MULT] = tc.mult;
	priv[PT_TIME_ZERO] = tc.zero;
	priv[PT_CAP_USER_TIME_ZERO] = tc.cap_zero;
	priv[PT_TSC_BIT] = format__one(p, "tsc");
	priv[PT_NORETCOMP_BIT] = format__one(p, "noretcomp");
	priv[PT_HAVE_SCHED_SWITCH] = p->have_sched_switch;
	priv[PT_SNAPSHOT_MODE] = p->snapshot;
	priv[PT_PER_CPU_MMAPS] = p->per_cpu;
	priv[PT_MTC_BIT] = format__one(p, "mtc");
	priv[PT_MTC_FREQ_BITS] = format__mask(p, "mtc_period");
	priv[PT_TSC_CTC_N] = n;
	priv[PT_TSC_CTC_D] = d;
	priv[PT_CYC_BIT] = format__one(p, "cyc");
	priv[PT_MAX_NONTURBO_RATIO] = ratio;
	priv[PT_FILTER_STR_LEN] = p->filter ? strlen(p->filter) : 0;
	if (p->filter)
		strcpy((char *)&priv[PT_PRIV_MAX], p->filter); /* zeroed and sized by the caller */
}

static void intel_bts__fill(const struct aux_info_params *p, uint64_t *priv)
{
	struct time_conv tc;

	time_conv__read(p->pc, &tc);
	priv[BTS_PMU_TYPE] = p->pmu_type;
	priv[BTS_TIME_SHIFT] = tc.shift;
	priv[BTS_TIME_MULT] = tc.mult;
	priv[BTS_TIME_ZERO] = tc.zero;
	priv[BTS_CAP_USER_TIME_ZERO] = tc.cap_zero;
	priv[BTS_SNAPSHOT_MODE] = p->snapshot;
}

/* ARM SPE (6.1: pmu type, per-cpu) and the generic layout for the others. */
static void generic__fill(const struct aux_info_params *p, uint64_t *priv)
{
	priv[0] = p->pmu_type;
	priv[1] = p->per_cpu;
}

long aux_info__build(const struct aux_info_params *p, void *buf, size_t cap)
{
	enum aux_type type = aux_pmu__type(p->pmu);
	size_t nr = type == AUX_TYPE_INTEL_PT ? PT_PRIV_MAX : type == AUX_TYPE_INTEL_BTS ?
		    BTS_PRIV_MAX : 2;
	size_t len = INFO_HDR + nr * 8 + (type == AUX_TYPE_INTEL_PT ? filter_bytes(p->filter) : 0);
	struct perf_event_header h = {.type = AUX_REC_AUXTRACE_INFO, .size = len};
	uint32_t tr[2] = {type, 0};
	uint64_t *priv;

	if (type == AUX_TYPE_UNKNOWN)
		return -EOPNOTSUPP;
	if (len > cap || len > UINT16_MAX)
		return -ENOSPC;
	memset(buf, 0, len);
	memcpy(buf, &h, sizeof(h));
	memcpy((char *)buf + sizeof(h), tr, sizeof(tr));
	priv = (uint64_t *)((char *)buf + INFO_HDR);
	if (type == AUX_TYPE_INTEL_PT)
		intel_pt__fill(p, priv);
	else if (type == AUX_TYPE_INTEL_BTS)
		intel_bts__fill(p, priv);
	else
		generic__fill(p, priv);
	return len;
}
