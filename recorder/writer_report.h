/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a writer that stopped early (disk full, I/O error) cost the
 * recording, in words: which writer, when, what its shard kept, and how
 * many samples the kernel dropped on its CPUs since nobody read their rings.
 */
#ifndef SHARDREC_WRITER_REPORT_H
#define SHARDREC_WRITER_REPORT_H

#include "numa/topology.h"
#include "recorder/evlist.h"
#include "recorder/writer.h"

#include <stddef.h>
#include <stdint.h>

/*
 * Samples the kernel could not put into the rings of @cpus (its
 * PERF_FORMAT_LOST counters, summed over events and threads). Read after
 * the events are disabled, it is final.
 */
uint64_t writer_report__lost(const struct evlist *l, const int *cpus, size_t nr_cpus);

/*
 * Logs (pr_err) one line on writer @idx of @grp, which stopped with st->err;
 * @rings are its rings (grp->nr_cpus), whose unread bytes are lost too.
 */
void writer_report__stopped(size_t idx, const struct writer_stats *st,
			    const struct plan_group *grp, const struct ring *rings,
			    const struct evlist *l);

#endif
