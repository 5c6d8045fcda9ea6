/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Collects the machine description perf record stores as header features
 * (HOSTNAME, OSRELEASE, VERSION, ARCH, NRCPUS, CPUDESC, CPUID, TOTAL_MEM,
 * CMDLINE, CPU_TOPOLOGY, NUMA_TOPOLOGY, PMU_MAPPINGS, CACHE, MEM_TOPOLOGY,
 * CPU_PMU_CAPS, PMU_CAPS) from uname, /proc and /sys, and encodes them with
 * the pfile_feat__ encoders.
 */
#ifndef SHARDREC_SYSINFO_H
#define SHARDREC_SYSINFO_H

#include "recorder/perfdata/pfile_format.h"

#define SHARDREC_VERSION "0.1.0"
/* HEADER_VERSION: the perf version the format follows, then ours. */
#define SYSINFO_HEADER_VERSION PFILE_PERF_VERSION " (shardrec " SHARDREC_VERSION ")"

/*
 * Fills @fs. @sys_root/@proc_root NULL = the real /sys and /proc.
 * @argc/@argv: the command line recorded in CMDLINE. 0 / -errno.
 */
int sysinfo__collect(struct pfile_featset *fs, int argc, char *const argv[], const char *sys_root,
		     const char *proc_root);
/*
 * The one online-CPU reader: @sys_root/devices/system/cpu/online (NULL =
 * the real /sys) into a malloc'ed ascending array *@cpus. Count or -errno
 * (-EINVAL: not a CPU list).
 */
int sysinfo__online_cpus(const char *sys_root, int **cpus);

#endif
