/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf record's sample options applied to a configured event list, bit for
 * bit as perf 6.1's evsel__config() sets them for the same command line
 * (checked with `perf evlist -v`): call graphs, registers, raw samples, data
 * addresses, inheritance, privilege filters, switch events, tracepoint
 * filters, cgroup.
 *
 * One rule of our own: every event keeps the same sample_id trailer layout
 * (the merge reads every record with one layout), so CPU, which perf adds to
 * tracepoints and -R only, is then sampled by every event.
 */
#ifndef SHARDREC_SAMPLE_CONFIG_H
#define SHARDREC_SAMPLE_CONFIG_H

#include "recorder/events/evlist.h"
#include "recorder/events/record_opts.h"

/*
 * Applies @o's sample options to every evsel of @l (after the base
 * configuration; evsel 0 is the tracking event), attaches --filter strings
 * to their tracepoints and opens the -G cgroup. 0 / -errno with one line in
 * @err.
 */
int sample_config__apply(struct evlist *l, const struct record_opts *o, char *err,
			 size_t errlen);

/*
 * Sets @e's tracepoint filter on the just opened @fd. 0 / -errno with one
 * line in @err (perf's wording for a filter the kernel rejects).
 */
int sample_config__set_filter(const struct evsel *e, int fd, char *err, size_t errlen);

/* Frees what sample_config__apply() added to @l (filters, cgroup fd). */
void sample_config__release(struct evlist *l);

#endif
