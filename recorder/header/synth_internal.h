/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the synth*.c parts: the helpers more than one part calls.
 */
#ifndef SHARDREC_SYNTH_INTERNAL_H
#define SHARDREC_SYNTH_INTERNAL_H

#include "recorder/header/synth.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mntent.h>
#include <sys/mman.h>
#include <sys/utsname.h>

#define KMMAP_PREFIX "[kernel.kallsyms]"
/* Fixed heads of the records (tools/lib/perf/include/perf/event.h). */
struct mmap_head {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
};
_Static_assert(sizeof(struct mmap_head) == 40, "perf_record_mmap head layout");

const char *synth__proc(const struct synth *s);
const char *synth__root(const struct synth *s);
int synth__emit(struct synth *s, const void *head, size_t head_len, const char *name);

#endif
