/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the sysinfo*.c parts: the collection context and the
 * sysfs helpers more than one part calls.
 */
#ifndef SHARDREC_SYSINFO_INTERNAL_H
#define SHARDREC_SYSINFO_INTERNAL_H

#include "recorder/header/sysinfo.h"
#include "recorder/util/fs.h"
#include "recorder/perfdata/pfile_feat.h"
#include "recorder/perfdata/recbuf.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define SYSINFO_MAX_CPUS 65536 /* bound for sysfs-provided CPU numbers */
struct sysinfo_ctx {
	const char *sys;  /* "/sys" or the caller's root */
	const char *proc; /* "/proc" or the caller's root */
	struct pfile_featset *fs;
};

long sysinfo__cpulist_max(const char *s);
int sysinfo__uname(struct sysinfo_ctx *c);
int sysinfo__cpuinfo(struct sysinfo_ctx *c);
int sysinfo__total_mem(struct sysinfo_ctx *c);
int sysinfo__cpus(struct sysinfo_ctx *c);
int sysinfo__read_int_at(const char *dir, const char *name, uint32_t *v);
int sysinfo__read_str_at(const char *dir, const char *name, const char **out);
int sysinfo__pmus(struct sysinfo_ctx *c);
int sysinfo__cache(struct sysinfo_ctx *c);

#endif
