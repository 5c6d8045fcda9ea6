// SPDX-License-Identifier: GPL-2.0
/*
 * Which PMUs produce AUX data. The kernel has no sysfs flag for it (the
 * capability is PERF_PMU_CAP_AUX_OUTPUT inside the kernel), so, like perf's
 * pmu->auxtrace, known names decide, plus one sysfs hint: only AUX PMUs
 * implement address filters, and they list nr_addr_filters.
 */
#include "aux/aux.h"
#include "recorder/util/fs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	bool prefix; /* arm_spe_0, arm_spe_1, ... */
	enum aux_type type;
} aux_pmus[] = {
	{"intel_pt", false, AUX_TYPE_INTEL_PT},
	{"intel_bts", false, AUX_TYPE_INTEL_BTS},
	{"cs_etm", false, AUX_TYPE_CS_ETM},
	{"arm_spe", true, AUX_TYPE_ARM_SPE},
	{"cpum_sf", false, AUX_TYPE_S390_CPUMSF},
};

static int aux_pmu__find(const char *name)
{
	for (size_t i = 0; i < sizeof(aux_pmus) / sizeof(aux_pmus[0]); i++) {
		size_t n = strlen(aux_pmus[i].name);

		if (!strncmp(name, aux_pmus[i].name, n) &&
		    (!name[n] || (aux_pmus[i].prefix && name[n] == '_')))
			return i;
	}
	return -1;
}

enum aux_type aux_pmu__type(const char *name)
{
	int i = aux_pmu__find(name);

	return i < 0 ? AUX_TYPE_UNKNOWN : aux_pmus[i].type;
}

bool aux_pmu__is_aux(const char *sysfs_root, const char *name)
{
	uint64_t nr = 0;

	return aux_pmu__find(name) >= 0 ||
	       (!aux_pmu__read_u64(sysfs_root, name, "nr_addr_filters", &nr) && nr > 0);
}

/*
 * @fmt's one value from the PMU's sysfs file @file. 0, -errno (-ENOENT;
 * -EACCES where the file's mode refuses this user), -EINVAL (no value).
 */
static int aux_pmu__scan(const char *sysfs_root, const char *pmu, const char *file,
			 const char *fmt, unsigned long long *v)
{
	char *line = filename__read_linef("%s/sys/bus/event_source/devices/%s/%s",
					  sysfs_root ? sysfs_root : "", pmu, file);
	bool ok;

	if (!line)
		return errno ? -errno : -EINVAL;
	ok = sscanf(line, fmt, v) == 1;
	free(line);
	return ok ? 0 : -EINVAL;
}

int aux_pmu__read_u64(const char *sysfs_root, const char *pmu, const char *file, uint64_t *v)
{
	unsigned long long x;
	int ret = aux_pmu__scan(sysfs_root, pmu, file, "%llu", &x);

	if (!ret)
		*v = x;
	return ret;
}

int aux_pmu__read_hex(const char *sysfs_root, const char *pmu, const char *file, uint32_t *v)
{
	unsigned long long x;
	int ret = aux_pmu__scan(sysfs_root, pmu, file, "%llx", &x);

	if (!ret)
		*v = (uint32_t)x;
	return ret;
}

uint64_t aux_pmu__format_mask(const char *sysfs_root, const char *pmu, const char *term)
{
	char *line = filename__read_linef("%s/sys/bus/event_source/devices/%s/format/%s",
					  sysfs_root ? sysfs_root : "", pmu, term);
	char spec[64];
	unsigned lo, hi;
	uint64_t mask = 0;
	int n;

	if (!line)
		return 0;
	n = sscanf(line, "%63[^:]:%u-%u", spec, &lo, &hi);
	free(line);
	if (n < 2 || strcmp(spec, "config") || lo > 63)
		return 0;
	if (n < 3)
		hi = lo;
	for (unsigned b = lo; b <= hi && b < 64; b++)
		mask |= 1ULL << b;
	return mask;
}
