// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_RECORD_AUXTRACE_INFO: { header, u32 type, u32 reserved, u64 priv[] }.
 * The private layouts are perf 6.1's: intel_pt_info_fill
 * (arch/x86/util/intel-pt.c, enum in util/intel-pt.h), intel_bts_info_fill,
 * arm_spe_info_fill, cs_etm_info_fill (arch/arm/util/cs-etm.c, enums in
 * util/cs-etm.h). perf refuses a file whose AUXTRACE_INFO type it does
 * not know, so an unknown PMU gets no record at all (-EOPNOTSUPP).
 */
#include "aux/aux.h"
#include "aux/aux_cpuid.h"
#include "recorder/util/clock.h"

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

/*
 * perf 6.1 appends one u64 after the filter string (or after priv[16] if
 * there is none): caps/event_trace, which its reader prints as "Cap Event
 * Trace" when the record is long enough to hold it.
 */
#define PT_EVENT_TRACE_BYTES 8

enum { BTS_PMU_TYPE, BTS_TIME_SHIFT, BTS_TIME_MULT, BTS_TIME_ZERO, BTS_CAP_USER_TIME_ZERO,
       BTS_SNAPSHOT_MODE, BTS_PRIV_MAX };

#define INFO_HDR 16 /* header + type + reserved */

/* Reads one number from the PMU's sysfs directory; false if absent. */
static bool sysfs__u64(const struct aux_info_params *p, const char *file, uint64_t *v)
{
	return !aux_pmu__read_u64(p->sysfs_root, p->pmu, file, v);
}

/* A format/ term's bits in attr.config (aux_pmu__format_mask). */
static uint64_t format__mask(const struct aux_info_params *p, const char *term)
{
	return aux_pmu__format_mask(p->sysfs_root, p->pmu, term);
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
	struct clock_conv tc;
	uint32_t n = 0, d = 0;
	uint64_t ratio = 0, event_trace = 0;

	clock__read_conv(p->pc, &tc);
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
	sysfs__u64(p, "caps/event_trace", &event_trace);
	priv[PT_PRIV_MAX + filter_bytes(p->filter) / 8] = event_trace;
}

static void intel_bts__fill(const struct aux_info_params *p, uint64_t *priv)
{
	struct clock_conv tc;

	clock__read_conv(p->pc, &tc);
	priv[BTS_PMU_TYPE] = p->pmu_type;
	priv[BTS_TIME_SHIFT] = tc.shift;
	priv[BTS_TIME_MULT] = tc.mult;
	priv[BTS_TIME_ZERO] = tc.zero;
	priv[BTS_CAP_USER_TIME_ZERO] = tc.cap_zero;
	priv[BTS_SNAPSHOT_MODE] = p->snapshot;
}

/* ARM SPE (6.1: pmu type, per-cpu) and the generic layout for s390 cpumsf. */
static void generic__fill(const struct aux_info_params *p, uint64_t *priv)
{
	priv[0] = p->pmu_type;
	priv[1] = p->per_cpu;
}

/* { header, u32 type, u32 reserved } at the start of @buf. */
static void info__put_header(void *buf, enum aux_type type, size_t len)
{
	struct perf_event_header h = {.type = AUX_REC_AUXTRACE_INFO, .size = len};
	uint32_t tr[2] = {type, 0};

	memcpy(buf, &h, sizeof(h));
	memcpy((char *)buf + sizeof(h), tr, sizeof(tr));
}

/* ---- CoreSight ETM: perf 6.1's cs_etm_info_fill ---- */

/*
 * util/cs-etm.h. Global header, then per CPU a common block {magic, cpu,
 * nr_trc_params} and nr_trc_params registers. Version 1 is what perf 6.1
 * writes and the newest it reads (cs_etm__process_auxtrace_info refuses a
 * higher one); version 2 (perf 6.3+) takes the trace IDs from the kernel's
 * PERF_RECORD_AUX_OUTPUT_HW_ID records instead of TRCTRACEIDR.
 */
enum { CS_HEADER_VERSION, CS_PMU_TYPE_CPUS, CS_ETM_SNAPSHOT, CS_HEADER_VERSION_MAX };
#define CS_HEADER_CURRENT_VERSION 1

enum { CS_ETM_MAGIC, CS_ETM_CPU, CS_ETM_NR_TRC_PARAMS, CS_ETM_COMMON_BLK_MAX_V1 };
/* ETMv3/PTM */
enum { CS_ETM_ETMCR = CS_ETM_COMMON_BLK_MAX_V1, CS_ETM_ETMTRACEIDR, CS_ETM_ETMCCER,
       CS_ETM_ETMIDR, CS_ETM_PRIV_MAX };
/* ETMv4; ETE is ETMv4 plus TRCDEVARCH */
enum { CS_ETMV4_TRCCONFIGR = CS_ETM_COMMON_BLK_MAX_V1, CS_ETMV4_TRCTRACEIDR, CS_ETMV4_TRCIDR0,
       CS_ETMV4_TRCIDR1, CS_ETMV4_TRCIDR2, CS_ETMV4_TRCIDR8, CS_ETMV4_TRCAUTHSTATUS,
       CS_ETMV4_PRIV_MAX };
enum { CS_ETE_TRCDEVARCH = CS_ETMV4_PRIV_MAX, CS_ETE_PRIV_MAX };

#define CS_ETMV3_MAGIC 0x3030303030303030ULL
#define CS_ETMV4_MAGIC 0x4040404040404040ULL
#define CS_ETE_MAGIC 0x5050505050505050ULL

/* include/linux/coresight-pmu.h (6.1): attr.config bits and TRCCONFIGR bits. */
#define ETM_OPT_BRANCH_BROADCAST 8
#define ETM_OPT_CYCACC 12
#define ETM_OPT_CTXTID 14
#define ETM_OPT_CTXTID2 15
#define ETM_OPT_TS 28
#define ETM_OPT_RETSTK 29
#define ETM4_CFG_BIT_BB 3
#define ETM4_CFG_BIT_CYCACC 4
#define ETM4_CFG_BIT_CTXTID 6
#define ETM4_CFG_BIT_VMID 7
#define ETM4_CFG_BIT_TS 11
#define ETM4_CFG_BIT_RETSTK 12
#define ETM4_CFG_BIT_VMID_OPT 15
#define CORESIGHT_ETM_PMU_SEED 0x10

enum etm_kind { ETM_V3, ETM_V4, ETM_ETE };

static const struct etm_layout {
	uint64_t magic;
	size_t words; /* block size, common part included */
} etm_layouts[] = {
	[ETM_V3] = {CS_ETMV3_MAGIC, CS_ETM_PRIV_MAX},
	[ETM_V4] = {CS_ETMV4_MAGIC, CS_ETMV4_PRIV_MAX},
	[ETM_ETE] = {CS_ETE_MAGIC, CS_ETE_PRIV_MAX},
};

/*
 * One register of @cpu's tracer: cs_etm/cpuN/@file, hex ("0x28c1c1eb").
 * perf 6.1's cs_etm_get_ro scans it with "%x" into an unsigned int but
 * returns an int, which the u64 metadata word sign-extends: a register with
 * bit 31 set is written as 0xffffffff8....... Readers keep the low 32 bits
 * (cs_etm__set_trace_param_etmv4), so we copy the quirk to write what perf
 * writes. 0, -errno (-ENOENT: no such register; -EACCES), -EINVAL.
 */
static int etm__reg(const struct aux_info_params *p, int cpu, const char *file, uint64_t *v)
{
	char name[256];
	uint32_t x;
	int ret;

	snprintf(name, sizeof(name), "cpu%d/%s", cpu, file);
	ret = aux_pmu__read_hex(p->sysfs_root, p->pmu, name, &x);
	if (!ret)
		*v = (uint64_t)(int64_t)(int32_t)x;
	return ret;
}

/*
 * cs_etm_is_ete, then cs_etm_is_etmv4: ETE if TRCDEVARCH reads ARCHVER 5,
 * ARCHPART 0xA13; ETMv4 if trcidr/trcidr0 reads at all; else ETMv3/PTM.
 */
static enum etm_kind etm__kind(const struct aux_info_params *p, int cpu)
{
	uint64_t v;

	if (!etm__reg(p, cpu, "mgmt/trcdevarch", &v) && ((v >> 12) & 0xf) == 5 &&
	    (v & 0xfff) == 0xa13)
		return ETM_ETE;
	if (!etm__reg(p, cpu, "trcidr/trcidr0", &v))
		return ETM_V4;
	return ETM_V3;
}

/* cs_etmv4_get_config: the ETMv3-style attr.config options as TRCCONFIGR bits. */
static uint64_t etmv4__configr(uint64_t config)
{
	static const struct {
		uint8_t opt;
		uint64_t bits;
	} map[] = {
		{ETM_OPT_CYCACC, 1ULL << ETM4_CFG_BIT_CYCACC},
		{ETM_OPT_CTXTID, 1ULL << ETM4_CFG_BIT_CTXTID},
		{ETM_OPT_TS, 1ULL << ETM4_CFG_BIT_TS},
		{ETM_OPT_RETSTK, 1ULL << ETM4_CFG_BIT_RETSTK},
		{ETM_OPT_CTXTID2, 1ULL << ETM4_CFG_BIT_VMID | 1ULL << ETM4_CFG_BIT_VMID_OPT},
		{ETM_OPT_BRANCH_BROADCAST, 1ULL << ETM4_CFG_BIT_BB},
	};
	uint64_t r = 0;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (config & 1ULL << map[i].opt)
			r |= map[i].bits;
	return r;
}

/* Reads the sysfs registers @files[i] into @blk[first + i]. */
static int etm__regs(const struct aux_info_params *p, int cpu, uint64_t *blk, size_t first,
		     const char *const *files, size_t nr)
{
	int ret = 0;

	for (size_t i = 0; i < nr && !ret; i++)
		ret = etm__reg(p, cpu, files[i], &blk[first + i]);
	return ret;
}

/*
 * cs_etm_get_metadata: @cpu's block. The trace ID is 6.1's
 * coresight_get_trace_id(), 0x10 + 2 * cpu, the ID its kernel programs too
 * (dynamic IDs came with header version 2). perf writes 0 for an unreadable
 * register; we fail instead, as its decoder cannot use such a block.
 */
static int etm__fill(const struct aux_info_params *p, int cpu, enum etm_kind kind, uint64_t *blk)
{
	static const char *const v3[] = {"mgmt/etmccer", "mgmt/etmidr"};
	static const char *const v4[] = {"trcidr/trcidr0", "trcidr/trcidr1", "trcidr/trcidr2",
					 "trcidr/trcidr8", "mgmt/trcauthstatus",
					 "mgmt/trcdevarch"};
	size_t words = etm_layouts[kind].words;

	blk[CS_ETM_MAGIC] = etm_layouts[kind].magic;
	blk[CS_ETM_CPU] = cpu;
	blk[CS_ETM_NR_TRC_PARAMS] = words - CS_ETM_COMMON_BLK_MAX_V1;
	if (kind == ETM_V3) {
		blk[CS_ETM_ETMCR] = p->config; /* ETMv3.5 ETMCR layout, as is */
		blk[CS_ETM_ETMTRACEIDR] = CORESIGHT_ETM_PMU_SEED + cpu * 2;
		return etm__regs(p, cpu, blk, CS_ETM_ETMCCER, v3, 2);
	}
	blk[CS_ETMV4_TRCCONFIGR] = etmv4__configr(p->config);
	blk[CS_ETMV4_TRCTRACEIDR] = CORESIGHT_ETM_PMU_SEED + cpu * 2;
	return etm__regs(p, cpu, blk, CS_ETMV4_TRCIDR0, v4, words - CS_ETMV4_TRCIDR0);
}

static int cpu_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/*
 * The CPUs with a block: the event's CPUs, upward, once each, as perf walks
 * its cpu map. *@cpus is malloc'ed; the caller frees it, even on error.
 * -EINVAL for no CPU or a negative one.
 */
static int etm__cpus(const struct aux_info_params *p, int **cpus, size_t *nr)
{
	size_t n = 0;

	*nr = 0;
	*cpus = p->cpus && p->nr_cpus ? malloc(p->nr_cpus * sizeof(int)) : NULL;
	if (!p->cpus || !p->nr_cpus)
		return -EINVAL;
	if (!*cpus)
		return -ENOMEM;
	memcpy(*cpus, p->cpus, p->nr_cpus * sizeof(int));
	qsort(*cpus, p->nr_cpus, sizeof(int), cpu_cmp);
	for (size_t i = 0; i < p->nr_cpus; i++)
		if (!n || (*cpus)[i] != (*cpus)[n - 1])
			(*cpus)[n++] = (*cpus)[i];
	*nr = n;
	return (*cpus)[0] < 0 ? -EINVAL : 0;
}

/* Appends @cpu's block at *@len, which it advances. */
static int etm__append(const struct aux_info_params *p, int cpu, void *buf, size_t cap, size_t *len)
{
	enum etm_kind kind = etm__kind(p, cpu);
	size_t bytes = etm_layouts[kind].words * 8;
	uint64_t blk[CS_ETE_PRIV_MAX];
	int ret;

	if (*len + bytes > cap || *len + bytes > UINT16_MAX)
		return -ENOSPC;
	ret = etm__fill(p, cpu, kind, blk);
	if (ret)
		return ret;
	memcpy((char *)buf + *len, blk, bytes);
	*len += bytes;
	return 0;
}

/*
 * cs_etm_info_fill: {version 1, pmu type << 32 | nr cpus, snapshot}, then
 * the CPU blocks. Words go through memcpy: @buf need not be 8-aligned.
 */
static long cs_etm__build(const struct aux_info_params *p, void *buf, size_t cap)
{
	size_t len = INFO_HDR + CS_HEADER_VERSION_MAX * 8, nr;
	uint64_t hdr[CS_HEADER_VERSION_MAX];
	int *cpus, ret;

	ret = etm__cpus(p, &cpus, &nr);
	if (!ret && len > cap)
		ret = -ENOSPC;
	for (size_t i = 0; i < nr && !ret; i++)
		ret = etm__append(p, cpus[i], buf, cap, &len);
	free(cpus);
	if (ret)
		return ret;
	hdr[CS_HEADER_VERSION] = CS_HEADER_CURRENT_VERSION;
	hdr[CS_PMU_TYPE_CPUS] = (uint64_t)p->pmu_type << 32 | nr;
	hdr[CS_ETM_SNAPSHOT] = p->snapshot;
	memcpy((char *)buf + INFO_HDR, hdr, sizeof(hdr));
	info__put_header(buf, AUX_TYPE_CS_ETM, len);
	return len;
}

long aux_info__build(const struct aux_info_params *p, void *buf, size_t cap)
{
	enum aux_type type = aux_pmu__type(p->pmu);
	size_t nr = type == AUX_TYPE_INTEL_PT ? PT_PRIV_MAX : type == AUX_TYPE_INTEL_BTS ?
		    BTS_PRIV_MAX : 2;
	size_t len = INFO_HDR + nr * 8 +
		     (type == AUX_TYPE_INTEL_PT ? filter_bytes(p->filter) + PT_EVENT_TRACE_BYTES : 0);
	uint64_t *priv;

	if (type == AUX_TYPE_UNKNOWN)
		return -EOPNOTSUPP;
	if (type == AUX_TYPE_CS_ETM)
		return cs_etm__build(p, buf, cap);
	if (len > cap || len > UINT16_MAX)
		return -ENOSPC;
	memset(buf, 0, len);
	info__put_header(buf, type, len);
	priv = (uint64_t *)((char *)buf + INFO_HDR);
	if (type == AUX_TYPE_INTEL_PT)
		intel_pt__fill(p, priv);
	else if (type == AUX_TYPE_INTEL_BTS)
		intel_bts__fill(p, priv);
	else
		generic__fill(p, priv);
	return len;
}
