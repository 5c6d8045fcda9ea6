/* SPDX-License-Identifier: GPL-2.0 */
/*
 * loss: how much of a recording was lost, for any perf.data (shardrec's or
 * perf record's, including perf's --threads directory and -z files).
 *
 * The data-loss metric (the seed paper's): lost_time / elapsed_time.
 *
 *   elapsed_time  last - first timestamp of the timed kernel records
 *                 (time 0 records, i.e. synthesized ones, and the
 *                 LOST_SAMPLES records written at the end are not counted).
 *   loss interval of one PERF_RECORD_LOST: from the timestamp of the last
 *                 timed record before it on the same ring to its own
 *                 timestamp. The kernel writes LOST as soon as the ring has
 *                 room again, so every dropped record was produced inside
 *                 that interval. "Same ring" = same CPU, from the sample_id
 *                 CPU field when the event has PERF_SAMPLE_CPU; without it,
 *                 the last timed record before it in file order (any CPU).
 *                 With no earlier record on the ring the interval starts at
 *                 the first timestamp of the file. A LOST without a timestamp
 *                 (no sample_id_all) covers the previous to the next timed
 *                 record in file order.
 *   lost_time     the total length of the union of the loss intervals of
 *                 all CPUs: wall time during which something was being
 *                 dropped somewhere, so the metric stays within [0, 1].
 *
 * Lost samples: the sum of PERF_RECORD_LOST_SAMPLES (perf >= 6.0 and
 * shardrec write them from the kernel's per-event counters at the end), or
 * the sum of the PERF_RECORD_LOST counts when a file has none of those.
 *
 * POSIX + C11 + the pfile reader; COMPRESSED records go through the
 * caller's decoder (perfdata/pdecode.h), so no libzstd here.
 */
#ifndef SHARDREC_LOSS_H
#define SHARDREC_LOSS_H

#include "recorder/perfdata/pdecode.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct loss_event {
	char *name;
	uint64_t samples;
	uint64_t lost_samples; /* LOST_SAMPLES sum */
	uint64_t lost_events;  /* LOST sum, by the LOST record's id */
};

/*
 * One timed loss record, for `loss --plot`: a PERF_RECORD_LOST (its count
 * of lost records) or a LOST_SAMPLES the kernel wrote with a time (AUX
 * samples); those written at the end from counters have time 0, no point.
 */
struct loss_point {
	uint64_t time; /* ns, from the record's sample_id */
	long cpu;      /* -1 when its event does not record the CPU */
	uint64_t lost;
};

struct loss_stats {
	uint64_t records;    /* kernel and user records, after decompression */
	uint64_t data_bytes; /* their bytes: the uncompressed data size */
	uint64_t compressed; /* COMPRESSED records expanded */
	uint64_t samples;
	uint64_t lost_records;		/* PERF_RECORD_LOST records */
	uint64_t lost_events;		/* the sum of their lost counts */
	uint64_t lost_samples_recs;	/* PERF_RECORD_LOST_SAMPLES records */
	uint64_t lost_samples;		/* the sum of their lost counts */
	uint64_t untimed_lost;		/* LOST records without a timestamp */
	uint64_t first_time, last_time; /* ns; 0 when no timed record */
	uint64_t lost_time;		/* ns: length of the union of loss intervals */
	unsigned nr_files;		/* data files read (perf --threads: 1 + data.N) */
	struct loss_event *events;	/* per attr, in file order */
	size_t nr_events;
	struct loss_point *points;	/* timed loss records, in file order */
	size_t nr_points;
};

/*
 * Reads the perf.data file or perf --threads directory @path into @st
 * (zeroed first; release with loss_stats__release even on error), with
 * @dec (codec/'s zunpass__ops) for COMPRESSED records (NULL: -ENOTSUP on
 * the first). 0 / -errno with one line in @err.
 */
int loss__analyze(const char *path, const struct pdecode_ops *dec, struct loss_stats *st,
		  char *err, size_t errlen);
void loss_stats__release(struct loss_stats *st);

/*
 * Several recordings as one, e.g. a batch job's per-node files: counts
 * added, each file's lost samples as it defines them (above), and elapsed
 * as the files' elapsed times added (node-seconds), so that the metric of
 * the total is the files' metrics weighted by their elapsed time. Zero it,
 * then add each file.
 */
struct loss_total {
	unsigned files;
	uint64_t samples;
	uint64_t lost_records; /* PERF_RECORD_LOST records */
	uint64_t lost_events;  /* the sum of their lost counts */
	uint64_t lost;	       /* loss_stats__lost of each file, added */
	uint64_t lost_time;    /* ns */
	uint64_t elapsed;      /* ns: last - first timestamp of each file, added */
};

void loss_total__add(struct loss_total *t, const struct loss_stats *st);
/* lost_time / elapsed; 0 when elapsed is 0. */
double loss_total__metric(const struct loss_total *t);
/* lost / (samples + lost); 0 when both are 0. */
double loss_total__lost_share(const struct loss_total *t);

/* lost_time / elapsed_time; 0 when the file has less than two timestamps. */
double loss_stats__metric(const struct loss_stats *st);
/* Lost samples as defined above: LOST_SAMPLES sum, else the LOST sum. */
uint64_t loss_stats__lost(const struct loss_stats *st);
/* lost / (samples + lost); 0 when both are 0. */
double loss_stats__lost_share(const struct loss_stats *st);

#endif
