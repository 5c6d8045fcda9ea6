/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The events this machine offers, for `shardrec list` and shell completion:
 * perf list's software, hardware and hw cache events (each probed with
 * perf_event_open on the calling thread, as perf's is_event_supported()
 * does), tracepoints from tracefs, each PMU's sysfs events/ aliases
 * (PMU/EVENT/) and its format/ terms (PMU/TERM=).
 */
#ifndef SHARDREC_EVCATALOG_H
#define SHARDREC_EVCATALOG_H

#include <stdbool.h>
#include <stdio.h>

enum evcatalog_kind {
	EVCAT_HW = 1 << 0,
	EVCAT_SW = 1 << 1,
	EVCAT_CACHE = 1 << 2,
	EVCAT_TRACEPOINT = 1 << 3,
	EVCAT_PMU_EVENT = 1 << 4, /* msr/tsc/ */
	EVCAT_PMU = 1 << 5,       /* msr// (detail: "type 9") */
	EVCAT_PMU_TERM = 1 << 6,  /* msr/event= (detail: "config:0-63") */
	EVCAT_ALL = (1 << 7) - 1,
};

struct evcatalog_opts {
	const char *sysfs_root;   /* NULL = "" (the real /sys); tests use a fake tree */
	const char *tracefs_root; /* NULL = tracefs__mountpoint() */
	bool no_probe;            /* list hw/sw/cache names without perf_event_open */
};

/*
 * The kinds a perf list selector names: "hw", "sw", "cache", "tracepoint",
 * "pmu" (PMU events, PMUs and terms); 0 for anything else (a glob).
 */
unsigned evcatalog__kinds(const char *selector);

/*
 * Prints the entries of @kinds whose name (or alias) matches @glob (NULL:
 * all; a glob without * ? [ matches as a substring) to @out, sorted within
 * each kind. @raw: one bare name per line (aliases on their own line, no
 * headings), for completion; otherwise perf list's layout with a heading per
 * kind. Returns the number of entries printed, or -errno (-ENOMEM).
 */
int evcatalog__fprint(FILE *out, const struct evcatalog_opts *o, unsigned kinds,
		      const char *glob, bool raw);

#endif
