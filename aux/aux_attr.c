// SPDX-License-Identifier: GPL-2.0
/*
 * The AUX event's own attr bits, as perf 6.1's recording options set them
 * (arch/x86/util/intel-pt.c intel_pt_recording_options, intel-bts.c,
 * arch/arm/util/cs-etm.c cs_etm_recording_options, arch/arm64/util/arm-spe.c
 * arm_spe_recording_options). An AUX event does not sample: it needs a
 * period of 1 for the kernel to emit its PERF_RECORD_AUX records.
 */
#include "aux/aux.h"
#include "recorder/util/fs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define ETM_OPT_CTXTID 14
#define ETM_OPT_CTXTID2 15
#define ETM_OPT_TS 28
#define SPE_DEFAULT_INTERVAL 4096 /* arm_spe_pmu_default_config without caps/min_interval */

static uint32_t bits(uint32_t v, int lo, int hi)
{
	return (v >> lo) & ((1U << (hi - lo + 1)) - 1);
}

/*
 * cs_etm_set_context_id and cs_etm_set_timestamp for one CPU. Only ETMv4
 * tracers are checked (perf 6.1 fails outright on any other kind; the
 * options mean nothing to ETMv3, so we leave those CPUs be).
 */
static int etm__check_cpu(const struct aux_attr_params *p, int cpu, uint64_t ctx, char *err,
			  size_t errlen)
{
	char name[64];
	uint32_t idr0, idr2;
	int ret;

	snprintf(name, sizeof(name), "cpu%d/trcidr/trcidr0", cpu);
	if (aux_pmu__read_hex(p->sysfs_root, p->pmu, name, &idr0))
		return 0; /* not ETMv4 (cs_etm_is_etmv4) */
	snprintf(name, sizeof(name), "cpu%d/trcidr/trcidr2", cpu);
	ret = aux_pmu__read_hex(p->sysfs_root, p->pmu, name, &idr2);
	if (ret) {
		snprintf(err, errlen, "%s: cannot read %s: %s", p->pmu, name, strerror(-ret));
		return ret;
	}
	/* TRCIDR2.CIDSIZE 4: 32-bit context IDs */
	if ((ctx & 1ULL << ETM_OPT_CTXTID) && bits(idr2, 5, 9) != 4)
		snprintf(err, errlen, "%s: CONTEXTIDR_EL1 tracing not supported on CPU %d", p->pmu,
			 cpu);
	/* TRCIDR2.VMIDOPT and VMIDSIZE >= 4: CONTEXTIDR_EL2 in the VMID */
	else if ((ctx & 1ULL << ETM_OPT_CTXTID2) && (!bits(idr2, 29, 30) || bits(idr2, 10, 14) < 4))
		snprintf(err, errlen, "%s: CONTEXTIDR_EL2 tracing not supported on CPU %d", p->pmu,
			 cpu);
	/* TRCIDR0.TSSIZE: global timestamps */
	else if (!bits(idr0, 24, 28))
		snprintf(err, errlen, "%s: global timestamps not supported on CPU %d", p->pmu, cpu);
	else
		return 0;
	return -EOPNOTSUPP;
}

/*
 * Per-CPU tracing needs the context ID, to know which task ran, and
 * timestamps, to place the trace among the sideband records: the user's
 * contextid choice, else the PMU format's (contextid2 on a VHE kernel).
 */
static int etm__config(const struct aux_attr_params *p, struct perf_event_attr *a, char *err,
		       size_t errlen)
{
	uint64_t ctx = a->config & (1ULL << ETM_OPT_CTXTID | 1ULL << ETM_OPT_CTXTID2);
	int ret;

	if (!ctx)
		ctx = aux_pmu__format_mask(p->sysfs_root, p->pmu, "contextid");
	for (size_t i = 0; i < p->nr_cpus; i++) {
		ret = etm__check_cpu(p, p->cpus[i], ctx, err, errlen);
		if (ret)
			return ret;
	}
	a->config |= ctx | 1ULL << ETM_OPT_TS;
	return 0;
}

/*
 * intel_pt_pick_bit: of the values the PMU offers (bit N set: value N),
 * @target if offered, else the nearest below it, else the lowest above.
 */
static int pt__pick_bit(uint32_t bits, int target)
{
	int pick = -1;

	for (int pos = 0; bits; bits >>= 1, pos++) {
		if (!(bits & 1))
			continue;
		if (pos <= target || pick < 0)
			pick = pos;
		if (pos >= target)
			break;
	}
	return pick;
}

/* Term @term set to @val in @config; every Intel PT format is one bit range of config. */
static void pt__set(const char *sysfs_root, const char *term, uint64_t val, uint64_t *config)
{
	uint64_t mask = aux_pmu__format_mask(sysfs_root, "intel_pt", term);

	if (mask)
		*config |= (val << __builtin_ctzll(mask)) & mask;
}

/* A cap that perf reads with a default of 1 when the file is missing (old kernels). */
static bool pt__cap(const char *sysfs_root, const char *cap)
{
	uint64_t v = 1;

	aux_pmu__read_u64(sysfs_root, "intel_pt", cap, &v);
	return v != 0;
}

/*
 * ARM SPE: timestamps in every record, which arm_spe_recording_options
 * sets per CPU (arm_spe_set_timestamp) unless the user's terms set
 * ts_enable; here a term clears it, the same (zero semantics).
 */
static bool spe__default_config(const char *sysfs_root, const char *pmu, uint64_t *config)
{
	*config = aux_pmu__format_mask(sysfs_root, pmu, "ts_enable");
	return true;
}

bool aux_attr__default_config(const char *sysfs_root, const char *pmu, uint64_t *config)
{
	uint32_t mtc_periods = 0, psb_periods = 0;

	if (aux_pmu__type(pmu) == AUX_TYPE_ARM_SPE)
		return spe__default_config(sysfs_root, pmu, config);
	if (aux_pmu__type(pmu) != AUX_TYPE_INTEL_PT)
		return false;
	*config = 0;
	pt__set(sysfs_root, "tsc", 1, config);
	if (pt__cap(sysfs_root, "caps/mtc") &&
	    !aux_pmu__read_hex(sysfs_root, "intel_pt", "caps/mtc_periods", &mtc_periods) &&
	    mtc_periods) {
		pt__set(sysfs_root, "mtc", 1, config);
		pt__set(sysfs_root, "mtc_period", pt__pick_bit(mtc_periods, 3), config);
	}
	if (pt__cap(sysfs_root, "caps/psb_cyc") && mtc_periods &&
	    !aux_pmu__read_hex(sysfs_root, "intel_pt", "caps/psb_periods", &psb_periods) &&
	    psb_periods)
		pt__set(sysfs_root, "psb_period", pt__pick_bit(psb_periods, 3), config);
	/* perf adds pt,branch only where both formats exist (older kernels have neither). */
	if (aux_pmu__format_mask(sysfs_root, "intel_pt", "pt") &&
	    aux_pmu__format_mask(sysfs_root, "intel_pt", "branch")) {
		pt__set(sysfs_root, "pt", 1, config);
		pt__set(sysfs_root, "branch", 1, config);
	}
	return true;
}

/* intel_pt_exclude_guest: KVM in pt_mode 1 gives PT to its guests. */
static bool pt__exclude_guest(const struct aux_attr_params *p)
{
	char path[512];
	long long mode;

	snprintf(path, sizeof(path), "%s/sys/module/kvm_intel/parameters/pt_mode",
		 p->sysfs_root ? p->sysfs_root : "");
	return !filename__read_ll(path, &mode) && mode == 1;
}

int aux_attr__config(const struct aux_attr_params *p, struct perf_event_attr *a, char *err,
		     size_t errlen)
{
	uint64_t interval = SPE_DEFAULT_INTERVAL;

	a->freq = 0;
	a->sample_period = 1;
	switch (aux_pmu__type(p->pmu)) {
	case AUX_TYPE_INTEL_PT:
		a->exclude_guest = pt__exclude_guest(p);
		return 0;
	case AUX_TYPE_CS_ETM:
		return etm__config(p, a, err, errlen);
	case AUX_TYPE_ARM_SPE:
		aux_pmu__read_u64(p->sysfs_root, p->pmu, "caps/min_interval", &interval);
		a->sample_period = interval;
		return 0;
	default:
		return 0;
	}
}
