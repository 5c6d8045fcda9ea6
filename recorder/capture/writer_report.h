/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a writer that stopped early (disk full, I/O error) cost the
 * recording, in words: which writer, when, what its shard kept, and how
 * many samples the kernel dropped on its CPUs since nobody read their rings.
 * And ring pressure: each writer's fullest ring, and on heavy loss what
 * would help, with numbers.
 */
#ifndef SHARDREC_WRITER_REPORT_H
#define SHARDREC_WRITER_REPORT_H

#include "numa/numa.h"
#include "recorder/events/evlist.h"
#include "recorder/capture/writer.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Seconds from @start to @t on the recording clock, 0 if @t is not later:
 * a time never taken is 0, and -k realtime can step back.
 */
static inline double writer_report__secs(uint64_t t, uint64_t start)
{
	return t > start ? (t - start) / 1e9 : 0.0;
}

/*
 * Samples the kernel could not put into the rings of @cpus (its
 * PERF_FORMAT_LOST counters, summed over events and threads). Read after
 * the events are disabled, it is final.
 */
uint64_t writer_report__lost(const struct evlist *l, const int *cpus, size_t nr_cpus);

/*
 * Logs (pr_err) one line on writer @idx of @grp, which stopped with st->err;
 * @maps are its rings (grp->nr_cpus), whose unread bytes are lost too.
 */
void writer_report__stopped(size_t idx, const struct writer_stats *st,
			    const struct plan_group *grp, const struct evlist_mmap *maps,
			    const struct evlist *l);

/* A high-water mark: the fullest read of a ring (ring_internal.h, fill_max). */
struct ring_pressure {
	int cpu;       /* the ring's CPU; -1 when no read found data */
	uint64_t fill; /* bytes between data_tail and data_head at that read */
	uint64_t size; /* the ring's data bytes */
	uint64_t time; /* recording clock at that read */
};

/*
 * The fullest ring of @maps by share of its size (ties: the earlier), or
 * cpu -1. Read the rings only once their writer has been joined.
 */
void writer_report__high_water(const struct evlist_mmap *maps, size_t n,
			       struct ring_pressure *hw);
/* True if @a is fuller, as a share of its ring, than @b. */
bool ring_pressure__fuller(const struct ring_pressure *a, const struct ring_pressure *b);
/* Fuller than @b, or as full and earlier: the one to name. */
bool ring_pressure__worse(const struct ring_pressure *a, const struct ring_pressure *b);
/* fill / size in percent; 0 for no ring. */
double ring_pressure__pct(const struct ring_pressure *hw);

/* What the summary weighs to say what would help. */
struct loss_advice {
	uint64_t samples, lost_samples, lost_records; /* of the merged file */
	struct ring_pressure hw; /* the fullest ring of all writers */
	uint64_t start;          /* recording clock at the start (hw.time's origin) */
	size_t mmap_pages;       /* -m */
	size_t nr_writers, nr_cpus;
	int rt_prio;             /* SCHED_FIFO priority the writers ran at, 0 = normal */
	int rt_err;              /* -errno when they could not take the one asked for */
	uint64_t write_max_ns;   /* the longest shard write of all writers */
};

/* A shard write this long held its rings full at any storm's rate: the summary names the disk. */
#define LOSS_ADVICE_SLOW_WRITE_NS 100000000ULL

/*
 * Heavy loss: lost samples >= 1% of samples + lost, or any loss with a
 * ring seen >= 90% full.
 */
bool writer_report__heavy_loss(const struct loss_advice *a);
/*
 * One line for heavy loss, naming numbers: the share lost, the fullest
 * ring and when, then what would help: a bigger -m, a faster file system
 * for -o (only if a shard write took LOSS_ADVICE_SLOW_WRITE_NS or more),
 * more writers (only if some writer has several CPUs), -r (only if the
 * writers ran at normal priority). Returns @buf.
 */
char *writer_report__advice(const struct loss_advice *a, char *buf, size_t len);

#endif
