/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HEADER_TRACING_DATA: the tracefs format descriptions perf needs to decode
 * tracepoint samples (field names, types, print formats). Without it perf
 * refuses a file holding tracepoint events.
 *
 * Layout, as perf 6.1's tools/perf/util/trace-event-info.c writes it (and
 * trace-event-read.c reads it), little-endian host values:
 *   "\027\010\104tracing" (10 bytes), "0.6\0", endianness (1 byte, 0 =
 *   little), sizeof(long) (1 byte), page size (u32)
 *   "header_page\0"  u64 size, events/header_page
 *   "header_event\0" u64 size, events/header_event
 *   u32 count, then u64 size + format for each ftrace-system event used
 *   u32 systems, then per system: "name\0", u32 count, u64 size + format
 *   u32 kallsyms size (0: perf 6.1 no longer stores /proc/kallsyms)
 *   u32 size + printk_formats
 *   u64 size + saved_cmdlines
 * Only the tracepoints of the recording are described.
 */
#ifndef SHARDREC_TRACING_DATA_H
#define SHARDREC_TRACING_DATA_H

#include "recorder/perfdata/pfile_format.h"

#include <stddef.h>

/*
 * If any of @ev (nr events) is a tracepoint, reads its format from @tracefs
 * (NULL = tracefs__mountpoint(), util/fs.h) and stores the TRACING_DATA
 * feature in @fs. 0 (also when there is no tracepoint) / -errno with one
 * line in @err.
 */
int tracing_data__feature(struct pfile_featset *fs, const struct pfile_event *ev, size_t nr,
			  const char *tracefs, char *err, size_t errlen);

#endif
