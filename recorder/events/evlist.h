/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recording's events: one fd per (event, CPU, thread), one ring per
 * CPU. The first fd opened on a CPU owns the ring; every other fd on that
 * CPU is redirected into it with PERF_EVENT_IOC_SET_OUTPUT. A group member
 * is opened with its leader's fd for the same CPU and thread as group_fd.
 * Just over ~150 lines: the one object of events/ that capture/ uses, and
 * its whole life (configure, open, mmap, enable, lost counts, release).
 */
#ifndef SHARDREC_EVLIST_H
#define SHARDREC_EVLIST_H

#include "recorder/events/evparse.h"
#include "recorder/perfdata/pfile_sample.h"
#include "recorder/perfdata/recbuf.h"
#include "recorder/events/record_opts.h"
/*
 * struct evlist_mmap embeds a ring: its layout, as perf's util/mmap.h
 * includes libperf's internal/mmap.h.
 */
#include "ringbuf/ring_internal.h"
#include "aux/aux.h"

#include <sys/types.h>

/*
 * One CPU's mapping: the ring and the AUX area next to it, composed as
 * perf's struct mmap holds its perf_mmap and auxtrace_mmap. aux is zeroed
 * when the CPU has no AUX area: ask evlist_mmap__aux.
 */
struct evlist_mmap {
	struct ring core;
	struct aux_ring aux;
};

/*
 * @m's AUX area, NULL if it has none: aux.data is set only by a successful
 * aux_ring__mmap or aux_ring__init_mem, and cleared by aux_ring__munmap.
 */
static inline struct aux_ring *evlist_mmap__aux(struct evlist_mmap *m)
{
	return m->aux.data ? &m->aux : NULL;
}

struct evsel {
	struct evparse_event ev; /* attr fully configured by evlist__configure */
	uint64_t *ids;           /* nr_cpus * nr_threads slots; after open, nr_ids of them */
	uint32_t nr_ids;         /* ids of the fds that opened (a -p thread may be gone) */
	const char *filter;      /* --filter for a tracepoint, NULL if none (owned) */
};

struct evlist {
	struct evsel *evsel;
	size_t nr;
	int *cpus;
	size_t nr_cpus;
	pid_t *threads; /* {-1} when system-wide */
	size_t nr_threads;
	int *fds;       /* [(e * nr_cpus + c) * nr_threads + t] */
	struct evlist_mmap *mmaps; /* nr_cpus: each CPU's ring and AUX area */
	/*
	 * The events' clock (evlist__configure): -k's, CLOCK_MONOTONIC by
	 * default, CLOCK_PERF (no use_clockid) with an AUX area event.
	 */
	clockid_t clockid;
	size_t data_pages;    /* data ring size in pages: -m's, or perf's for unprivileged AUX */
	size_t aux_pages;     /* AUX area size in pages, 0 = no AUX event (no AUX areas) */
	int aux_evsel;        /* index of the AUX event, -1 if none */
	bool aux_snapshot;    /* -S: AUX areas in overwrite mode, read on request */
	uint64_t aux_snap_size; /* -S bytes per snapshot and area, 0 = the whole area */
	bool backward;        /* --overwrite: write_backward rings, read on request */
	struct pfile_idlayout layout;
	bool has_cgroup; /* -G: every fd counts only in cgroup_fd's cgroup */
	int cgroup_fd;
};

/*
 * Parses the events of @o (default cpu-clock) and configures every attr for
 * the target: sample layout, clock, frequency/period, tracking on the first
 * event, enable_on_exec for a command. 0 / -errno with one line in @err.
 */
int evlist__configure(struct evlist *l, const struct record_opts *o, char *err, size_t errlen);
/*
 * @ev's rate as perf's evsel__config() sets it: its own period term, else
 * -c, else every hit of a tracepoint, else -F (max, or lowered to
 * kernel.perf_event_max_sample_rate), else 4000 Hz.
 */
void evlist__set_rate(struct perf_event_attr *a, const struct evparse_event *ev,
		      const struct record_opts *o);
/* Sets the CPUs and threads to open on (copied). 0 / -ENOMEM. */
int evlist__set_target(struct evlist *l, const int *cpus, size_t nr_cpus, const pid_t *threads,
		       size_t nr_threads);
/*
 * Opens every fd, leaders before their members, and reads its id; a W group
 * the kernel refuses is reopened ungrouped as perf does. 0 / -errno with one
 * line in @err.
 */
int evlist__open(struct evlist *l, char *err, size_t errlen);
/* Maps one ring per CPU and redirects the other fds into it. 0 / -errno with @err. */
int evlist__mmap(struct evlist *l, size_t pages, char *err, size_t errlen);
/* Enables / disables every fd of the group leaders and independent events (ioctl). */
void evlist__enable(struct evlist *l);
void evlist__disable(struct evlist *l);
/*
 * Reads fd @fd of event @e (its read_format: ID|LOST, with -s the two
 * TOTAL_TIME fields too) into @id and @lost. 0 / -EIO (fd < 0 included).
 */
int evlist__read_fd(const struct evlist *l, size_t e, int fd, uint64_t *id, uint64_t *lost);
/*
 * Appends a LOST_SAMPLES record for every fd whose PERF_FORMAT_LOST count
 * is non-zero, their sum in *@total. @base (rotation: one count per fd
 * slot, l->fds' indices), NULL for none: the counts already reported in
 * an earlier file; the records carry what came since, and @base is moved
 * to the counts read now.
 */
int evlist__read_lost(struct evlist *l, struct recbuf *out, uint64_t *total, uint64_t *base);
/* The most bytes evlist__read_lost can append: one record per fd. */
size_t evlist__lost_bound(const struct evlist *l);
/*
 * HEADER_GROUP_DESC of @l's groups of more than one event into @fs; leaves
 * @fs alone when there is none, as perf record clears the feature then.
 * 0 / -errno.
 */
int evlist__group_desc(const struct evlist *l, struct pfile_featset *fs);
/*
 * perf's ID_INDEX records: every sample id with the index of its CPU's
 * ring, the CPU and the thread (-1 system-wide), as perf record writes
 * them first among the synthesized records. 0 / -ENOMEM.
 */
int evlist__id_index(const struct evlist *l, struct recbuf *out);
/* Fills @ev (nr entries, pointing into @l) for pfile__write_attrs. */
void evlist__pfile_events(const struct evlist *l, struct pfile_event *ev);
/* Unmaps rings, closes fds, frees everything. */
void evlist__release(struct evlist *l);

/* True if @e is on a PMU that produces AUX data (aux_pmu__is_aux). */
bool evsel__is_aux(const struct evsel *e);

/*
 * ---- event config (sample_config.c) ----
 *
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

/*
 * Applies @o's sample options to every evsel of @l (after the base
 * configuration; the tracking event is evsel 0, or for -D, -a and -C a
 * dummy:HG made from it and appended last, as perf's), attaches --filter strings
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

/*
 * ---- per-event config terms (sample_terms.c) ----
 *
 * Applies each event's own terms (evparse_event.terms: call-graph=,
 * max-stack=, inherit, branch_type=, ...) over what the record options @o
 * set, as perf 6.1's evsel__apply_config_terms() does after
 * evsel__config(). 0, or -EINVAL with one line in @err for a term shardrec
 * cannot apply (time=0, overwrite on some events only, aux-sample-size) or
 * a value the kernel would refuse.
 */
int sample_terms__apply(struct evlist *l, const struct record_opts *o, char *err, size_t errlen);

#endif
