// SPDX-License-Identifier: GPL-2.0
#include "recorder/events/evlist.h"
#include "recorder/events/privs_open.h"
#include "recorder/perfdata/pfile_feat.h"
#include "recorder/util/clock.h"
#include "recorder/util/fs.h"
#include "recorder/util/log.h"
#include "recorder/util/num.h"
#include "recorder/util/perf_event.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define DEFAULT_FREQ 4000


/*
 * The wake-up point as a fraction of the ring: 1/4, or 1/N from
 * $SHARDREC_WAKEUP_DIV (2 to 64), for experiments only (bench/lib.sh's
 * shardrec-wakeN). A bad value is an error, as a bad SHARDREC_PLAN_CAP is:
 * an experiment that silently ran the default would measure nothing.
 * 0 / -EINVAL with one line in @err.
 */
static int wakeup_div(unsigned *div, char *err, size_t errlen)
{
	*div = 4;
	return positive__env("SHARDREC_WAKEUP_DIV", 2, 64, div,
			     "N from 2 to 64 (wake at 1/N of the ring)", err, errlen);
}

/*
 * --call-graph fp,N: perf keeps N only below kernel.perf_event_max_stack
 * (the kernel refuses more); otherwise the kernel's limit applies.
 */
static uint16_t max_stack(const struct record_opts *o)
{
	uint64_t limit;

	if (!o->callgraph_fp || !o->max_stack || o->max_stack > UINT16_MAX)
		return 0;
	limit = (uint64_t)sysctl__read_kernel("perf_event_max_stack", 127);
	return o->max_stack < limit ? o->max_stack : 0;
}

static uint64_t sample_type(const struct record_opts *o)
{
	uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
		      PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;

	/* perf adds CPU for CPU-wide targets; the merge does not need it. */
	if (record_opts__cpu_wide(o) || o->sample_cpu)
		st |= PERF_SAMPLE_CPU;
	if (o->callgraph_fp)
		st |= PERF_SAMPLE_CALLCHAIN;
	return st;
}

void evlist__set_rate(struct perf_event_attr *a, const struct evparse_event *ev,
		      const struct record_opts *o)
{
	if (ev->period_set)
		return;
	if (o->period) {
		a->sample_period = o->period;
		a->freq = 0;
	} else if (ev->tracepoint && !o->freq && !o->freq_max) {
		a->sample_period = 1; /* perf samples every tracepoint hit */
	} else if (o->freq_max) {
		a->freq = 1;
		a->sample_freq = (uint64_t)sysctl__read_kernel("perf_event_max_sample_rate", DEFAULT_FREQ);
	} else {
		uint64_t max = (uint64_t)sysctl__read_kernel("perf_event_max_sample_rate", 0);

		a->freq = 1;
		a->sample_freq = o->freq ? o->freq : DEFAULT_FREQ;
		/* perf's record_opts__config_freq throttles -F to the maximum */
		if (o->freq && max && a->sample_freq > max)
			a->sample_freq = max;
	}
}

/* perf's record_opts__config_freq: -F above the maximum warns, or fails with --strict-freq. */
static int check_freq(const struct record_opts *o, char *err, size_t errlen)
{
	int max = sysctl__read_kernel("perf_event_max_sample_rate", 0);

	if (!o->freq || max <= 0 || o->freq <= (uint64_t)max)
		return 0;
	if (o->strict_freq) {
		snprintf(err, errlen, "Maximum frequency rate (%d Hz) exceeded: use -F with a lower "
			 "value or raise /proc/sys/kernel/perf_event_max_sample_rate", max);
		return -EINVAL;
	}
	pr_warn("Maximum frequency rate (%d Hz) exceeded, throttling from %llu Hz to %d Hz; "
		"--strict-freq refuses instead", max, (unsigned long long)o->freq, max);
	return 0;
}

static void configure_attr(struct evsel *e, const struct record_opts *o, bool first,
			   clockid_t clockid, size_t wakeup_bytes)
{
	struct perf_event_attr *a = &e->ev.attr;

	a->size = sizeof(*a);
	a->sample_type = sample_type(o);
	a->sample_id_all = 1;
	a->read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
	a->use_clockid = clockid != CLOCK_PERF;
	a->clockid = a->use_clockid ? clockid : 0;
	/*
	 * evsel__config(): only independent events and group leaders start
	 * disabled and get enabled on exec; members stay enabled, as group
	 * scheduling follows the leader.
	 */
	a->disabled = !e->ev.group_idx;
	a->enable_on_exec = !e->ev.group_idx && record_opts__command_is_target(o);
	/*
	 * evsel__config(): inherit unless -t (or -i, --per-thread: set_scope);
	 * -a and -C events carry it too, where the kernel has no children to
	 * give counters to, and readers compare attrs with perf's.
	 */
	a->inherit = !o->tid_list;
	/*
	 * Wake the writer at a quarter ring: three quarters left for its
	 * latency. --mmap-flush lowers it (perf caps its flush at a quarter too).
	 */
	a->watermark = 1;
	a->wakeup_watermark = wakeup_bytes;
	if (o->mmap_flush && o->mmap_flush < a->wakeup_watermark)
		a->wakeup_watermark = o->mmap_flush;
	evlist__set_rate(a, &e->ev, o);
	a->sample_max_stack = max_stack(o);
	if (first) {
		a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = 1;
		a->sample_id_all = 1;
		/*
		 * evsel__config() for the tracking event: KSYMBOL records of
		 * JITed BPF programs and trampolines (so samples in them
		 * resolve) and BPF_EVENT loads, on every target.
		 */
		a->ksymbol = 1;
		a->bpf_event = !o->no_bpf_event;
	}
}

bool evsel__is_aux(const struct evsel *e)
{
	return e->ev.pmu[0] && aux_pmu__is_aux(NULL, e->ev.pmu);
}

/*
 * What perf 6.1's *_recording_options and evsel__config leave on the AUX
 * event: a fixed period (aux_attr__config) records no PERIOD unless -P
 * asks; Intel PT in full trace mode wakes its reader at a quarter of the
 * AUX area (aux_watermark), not at each half the kernel would.
 */
static void aux_event_attr(struct evparse_event *ev, const struct record_opts *o, size_t pages,
			   bool snapshot)
{
	if (!o->sample_period)
		ev->attr.sample_type &= ~(uint64_t)PERF_SAMPLE_PERIOD;
	if (aux_pmu__type(ev->pmu) == AUX_TYPE_INTEL_PT && !snapshot)
		ev->attr.aux_watermark = pages * sysconf(_SC_PAGESIZE) / 4;
}

/*
 * perf's perf_event_paranoid_check(-1), which picks its AUX defaults:
 * CAP_PERFMON, CAP_SYS_ADMIN or a paranoid of -1.
 */
static bool aux_privileged(void)
{
	struct privs_env env;

	privs__env_read(&env);
	return env.paranoid <= -1 ||
	       (env.held & (PRIVS_F(PRIVS_PERFMON) | PRIVS_F(PRIVS_SYS_ADMIN)));
}

/* perf's *_recording_options without -m ...,AUX: 4 MiB per CPU privileged, else 128 KiB. */
static size_t aux_default_pages(bool privileged)
{
	size_t bytes = privileged ? 4U << 20 : 128U << 10;

	return bytes / sysconf(_SC_PAGESIZE);
}

/*
 * The data rings' pages: -m's, but as perf 6.1's *_recording_options, an
 * unprivileged AUX recording given neither -m DATA nor an AUX size gets
 * 256 KiB beside its 128 KiB AUX areas, so that both fit in the 516 KiB a
 * CPU that perf_event_mlock_kb frees (a 512 KiB ring would not).
 */
static size_t data_pages(const struct record_opts *o, bool aux, bool privileged)
{
	if (!aux || o->mmap_pages_set || o->aux_pages || privileged)
		return o->mmap_pages;
	return (256U << 10) / sysconf(_SC_PAGESIZE);
}

/*
 * An event on an AUX PMU gets an AUX area per CPU (-m DATA,AUX, perf's
 * sizes by default). Its fd must own each CPU's ring, where the area is
 * mapped, so it must come first: perf moves it there; we ask.
 */
static int evlist__configure_aux(struct evlist *l, const struct record_opts *o, bool privileged,
				 char *err, size_t errlen)
{
	l->aux_evsel = -1;
	for (size_t i = 0; i < l->nr; i++)
		if (evsel__is_aux(&l->evsel[i])) {
			/* -D's tracking dummy: perf's AUX one (dummy:u, per PMU) is not made yet */
			if (i && (o->delay_ms || o->start_disabled)) {
				snprintf(err, errlen, "%s: -D is not supported with an AUX area event",
					 l->evsel[i].ev.name);
				return -EOPNOTSUPP;
			}
			if (i) {
				snprintf(err, errlen, "%s: an AUX area event must come first in -e",
					 l->evsel[i].ev.name);
				return -EINVAL;
			}
			l->aux_evsel = i;
		}
	if (l->aux_evsel < 0) {
		if (!o->aux_snapshot)
			return 0;
		/* perf's auxtrace_parse_snapshot_options says the same. */
		snprintf(err, errlen, "-S/--snapshot: no AUX area event to snapshot (e.g. -e intel_pt//)");
		return -EINVAL;
	}
	/* --overwrite is a flight recorder for the AUX areas too. */
	l->aux_snapshot = o->aux_snapshot || o->overwrite;
	l->aux_snap_size = o->aux_snap_size;
	/*
	 * Per-CPU AUX areas: the decoder needs the CPU of every record (perf
	 * sets it on the AUX and tracking events). On all of ours, so that
	 * every event's sample_id trailer keeps one layout.
	 */
	for (size_t i = 0; i < l->nr; i++)
		l->evsel[i].ev.attr.sample_type |= PERF_SAMPLE_CPU;
	l->aux_pages = o->aux_pages ? o->aux_pages : aux_default_pages(privileged);
	aux_event_attr(&l->evsel[l->aux_evsel].ev, o, l->aux_pages, l->aux_snapshot);
	return 0;
}

/*
 * The events' clock. Our own default is CLOCK_MONOTONIC (the clock a
 * writer reads for its pass times); an AUX area event keeps perf's, the
 * perf clock, as perf 6.1 does without -k: the trace carries its own
 * timestamps (TSC, the arm64 counter), which decoders turn into perf time
 * through the control page's conversion, and the sideband must be in that
 * time for the trace to be placed among it. Intel PT refuses -k, as in
 * intel_pt_recording_options.
 */
static int evlist__clock(struct evlist *l, const struct evsel *aux, const struct record_opts *o,
			 char *err, size_t errlen)
{
	l->clockid = o->clockid;
	if (!aux)
		return 0;
	if (o->clockid_set) {
		if (aux_pmu__type(aux->ev.pmu) != AUX_TYPE_INTEL_PT)
			return 0;
		snprintf(err, errlen, "Cannot use clockid (-k option) with intel_pt");
		return -EINVAL;
	}
	if (clock__perf_readable())
		l->clockid = CLOCK_PERF;
	else
		pr_warn("%s: the perf clock cannot be read in user space here (no "
			"cap_user_time_zero): the events use CLOCK_MONOTONIC, and decoders "
			"cannot place the trace's own timestamps among them", aux->ev.name);
	return 0;
}

int evlist__configure(struct evlist *l, const struct record_opts *o, char *err, size_t errlen)
{
	struct evparse_opts po = {.sysfs_root = o->sysfs_root};
	const struct evsel *aux = NULL;
	bool privileged;
	size_t ring_bytes;
	unsigned div;
	int ret;

	memset(l, 0, sizeof(*l));
	l->backward = o->overwrite;
	ret = wakeup_div(&div, err, errlen);
	if (!ret)
		ret = check_freq(o, err, errlen);
	if (ret)
		return ret;
	{
		struct evparse_event *evs = NULL;
		size_t nr = 0;

		ret = evparse__parse(o->events ? o->events : "cpu-clock", &po, &evs, &nr, err,
				     errlen);
		if (ret) {
			free(evs);
			return ret;
		}
		l->evsel = calloc(nr, sizeof(*l->evsel));
		if (!l->evsel) {
			free(evs);
			return -ENOMEM;
		}
		for (size_t i = 0; i < nr; i++)
			l->evsel[i].ev = evs[i];
		l->nr = nr;
		free(evs);
	}
	/* The clock and both ring sizes follow the first AUX event, if any. */
	for (size_t i = 0; i < l->nr && !aux; i++)
		if (evsel__is_aux(&l->evsel[i]))
			aux = &l->evsel[i];
	/* One read of the privilege state (two sysctls and a capget) for both sizes. */
	privileged = aux && aux_privileged();
	ret = evlist__clock(l, aux, o, err, errlen);
	if (ret)
		return ret;
	l->data_pages = data_pages(o, aux, privileged);
	ring_bytes = l->data_pages * sysconf(_SC_PAGESIZE);
	for (size_t i = 0; i < l->nr; i++)
		configure_attr(&l->evsel[i], o, i == 0, l->clockid, ring_bytes / div);
	ret = sample_config__apply(l, o, err, errlen);
	if (ret)
		return ret;
	ret = evlist__configure_aux(l, o, privileged, err, errlen);
	if (!ret)
		pfile_idlayout__init(&l->layout, l->evsel[0].ev.attr.sample_type, true);
	return ret;
}

int evlist__set_target(struct evlist *l, const int *cpus, size_t nr_cpus, const pid_t *threads,
		       size_t nr_threads)
{
	l->cpus = malloc(nr_cpus * sizeof(*cpus));
	l->threads = malloc(nr_threads * sizeof(*threads));
	l->fds = malloc(l->nr * nr_cpus * nr_threads * sizeof(int));
	l->mmaps = calloc(nr_cpus, sizeof(*l->mmaps));
	if (!l->cpus || !l->threads || !l->fds || !l->mmaps)
		return -ENOMEM;
	memcpy(l->cpus, cpus, nr_cpus * sizeof(*cpus));
	memcpy(l->threads, threads, nr_threads * sizeof(*threads));
	l->nr_cpus = nr_cpus;
	l->nr_threads = nr_threads;
	for (size_t i = 0; i < l->nr * nr_cpus * nr_threads; i++)
		l->fds[i] = -1;
	for (size_t e = 0; e < l->nr; e++) {
		l->evsel[e].ids = calloc(nr_cpus * nr_threads, sizeof(uint64_t));
		if (!l->evsel[e].ids)
			return -ENOMEM;
	}
	return 0;
}

static int *fdp(const struct evlist *l, size_t e, size_t c, size_t t)
{
	return &l->fds[(e * l->nr_cpus + c) * l->nr_threads + t];
}

/*
 * get_group_fd(): a member opens into its leader's fd for the same CPU and
 * thread, which was opened before it (evlist order). -1 for a leader or an
 * ungrouped event; -2 when the leader was skipped (its -p thread is gone).
 */
static int group_fd(const struct evlist *l, size_t e, size_t c, size_t t)
{
	unsigned int idx = l->evsel[e].ev.group_idx;
	int fd;

	if (!idx)
		return -1;
	fd = *fdp(l, e - idx, c, t);
	return fd < 0 ? -2 : fd;
}

static int open_error(const struct evlist *l, size_t e, int errnum, char *err, size_t errlen)
{
	const struct evsel *ev = &l->evsel[e];
	char msg[512];

	evparse__strerror(&ev->ev, errnum, msg, sizeof(msg));
	if (ev->ev.group_idx)
		snprintf(err, errlen, "%s (member of the group led by %s)", msg,
			 l->evsel[e - ev->ev.group_idx].ev.name);
	else
		snprintf(err, errlen, "%s", msg);
	return -errnum;
}

static int open_one(struct evlist *l, size_t e, size_t c, size_t t, char *err, size_t errlen)
{
	struct evsel *ev = &l->evsel[e];
	/* -G: the cgroup's fd stands in for the pid (perf's PERF_FLAG_PID_CGROUP use). */
	pid_t pid = l->has_cgroup ? l->cgroup_fd : l->threads[t];
	unsigned long flags = PERF_FLAG_FD_CLOEXEC | (l->has_cgroup ? PERF_FLAG_PID_CGROUP : 0);
	int group = group_fd(l, e, c, t);
	int fd;

	if (group == -2)
		return 0;
	fd = perf_event__open(&ev->ev.attr, pid, l->cpus[c], group, flags);
	if (fd < 0) {
		/* A thread of -p that exited meanwhile is not an error. */
		if (errno == ESRCH && l->nr_threads > 1)
			return 0;
		return open_error(l, e, errno, err, errlen);
	}
	*fdp(l, e, c, t) = fd;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &ev->ids[c * l->nr_threads + t]) < 0) {
		int ret = -errno;

		snprintf(err, errlen, "%s: PERF_EVENT_IOC_ID: %s", ev->ev.name, strerror(-ret));
		return ret;
	}
	return sample_config__set_filter(ev, fd, err, errlen);
}

/*
 * Keeps only the ids of fds that opened: a -p thread that exited before its
 * open left a 0 slot, and the header must list real ids only (the kernel
 * never hands out 0; perf reads id 0 as "synthesized").
 */
static void evsel__compact_ids(struct evsel *ev, size_t slots)
{
	ev->nr_ids = 0;
	for (size_t i = 0; i < slots; i++)
		if (ev->ids[i])
			ev->ids[ev->nr_ids++] = ev->ids[i];
}

static int evsel__open_all(struct evlist *l, size_t e, char *err, size_t errlen)
{
	for (size_t c = 0; c < l->nr_cpus; c++)
		for (size_t t = 0; t < l->nr_threads; t++) {
			int ret = open_one(l, e, c, t, err, errlen);

			if (ret)
				return ret;
		}
	evsel__compact_ids(&l->evsel[e], l->nr_cpus * l->nr_threads);
	return 0;
}

/* Closes event @e's fds and forgets their ids, to open it again. */
static void evsel__close_fds(struct evlist *l, size_t e)
{
	size_t slots = l->nr_cpus * l->nr_threads;

	for (size_t k = 0; k < slots; k++) {
		int *fd = &l->fds[e * slots + k];

		if (*fd >= 0)
			close(*fd);
		*fd = -1;
	}
	memset(l->evsel[e].ids, 0, slots * sizeof(uint64_t));
	l->evsel[e].nr_ids = 0;
}

/*
 * perf's fallbacks on the open error @ret of event @e: a kernel without
 * bpf_event or ksymbol opens without them (evsel__detect_missing_features),
 * cycles without a hardware PMU becomes cpu-clock, with perf's warning
 * (evsel__fallback). True when @e is to be opened again.
 */
static bool evlist__fallback(struct evlist *l, size_t e, int ret)
{
	const char *feat = evparse__drop_missing_feature(&l->evsel[e].ev.attr, ret);
	char msg[256];

	if (feat) {
		pr_debug("%s: the kernel refused attr.%s, opening without it",
			 l->evsel[e].ev.name, feat);
		evsel__close_fds(l, e);
		return true;
	}
	if (!evparse__fallback(&l->evsel[e].ev, ret, msg, sizeof(msg)))
		return false;
	pr_warn("%s", msg);
	evsel__close_fds(l, e);
	return true;
}

/*
 * evlist__reset_weak_group(): the kernel refused a member of a W group
 * (EINVAL, or EBADF), so close the group and make its events independent;
 * as such they start disabled and enable on exec like their leader
 * (evsel__config()'s rule). Returns the leader's index to reopen from.
 */
static size_t evlist__reset_weak_group(struct evlist *l, size_t e)
{
	size_t lead = e - l->evsel[e].ev.group_idx;
	struct evparse_event *leader = &l->evsel[lead].ev;
	size_t end = lead + leader->nr_members;

	for (size_t i = lead; i < end; i++) {
		struct evparse_event *ev = &l->evsel[i].ev;

		evsel__close_fds(l, i);
		ev->group_idx = 0;
		ev->nr_members = 0;
		ev->attr.disabled = leader->attr.disabled;
		ev->attr.enable_on_exec = leader->attr.enable_on_exec;
	}
	return lead;
}

static bool evlist__weak_retry(const struct evlist *l, size_t e, int ret)
{
	const struct evparse_event *ev = &l->evsel[e].ev;

	return (ret == -EINVAL || ret == -EBADF) && ev->group_idx && ev->weak_group;
}

int evlist__open(struct evlist *l, char *err, size_t errlen)
{
	size_t e = 0;

	if (l->aux_evsel >= 0) {
		struct aux_attr_params ap = {.pmu = l->evsel[l->aux_evsel].ev.pmu,
					     .cpus = l->cpus, .nr_cpus = l->nr_cpus};
		int ret = aux_attr__config(&ap, &l->evsel[l->aux_evsel].ev.attr, err, errlen);

		if (ret)
			return ret;
	}

	while (e < l->nr) {
		int ret = evsel__open_all(l, e, err, errlen);

		if (!ret) {
			e++;
			continue;
		}
		if (evlist__fallback(l, e, ret)) {
			if (errlen)
				err[0] = '\0';
			continue;
		}
		if (!evlist__weak_retry(l, e, ret))
			return ret;
		e = evlist__reset_weak_group(l, e);
		if (errlen)
			err[0] = '\0';
	}
	return 0;
}

/* The fd that owns CPU @c's ring: the first one opened there. */
static int ring_fd(const struct evlist *l, size_t c)
{
	for (size_t e = 0; e < l->nr; e++)
		for (size_t t = 0; t < l->nr_threads; t++)
			if (*fdp(l, e, c, t) >= 0)
				return *fdp(l, e, c, t);
	return -1;
}

static int redirect_cpu(struct evlist *l, size_t c, int owner, char *err, size_t errlen)
{
	for (size_t e = 0; e < l->nr; e++)
		for (size_t t = 0; t < l->nr_threads; t++) {
			int fd = *fdp(l, e, c, t);

			if (fd < 0 || fd == owner)
				continue;
			if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, owner) < 0) {
				snprintf(err, errlen, "%s: SET_OUTPUT on CPU %d: %s",
					 l->evsel[e].ev.name, l->cpus[c], strerror(errno));
				return -errno;
			}
		}
	return 0;
}

/* The AUX area of CPU @c, next to its ring in l->mmaps[c]; its writer reads both. */
static int evlist__mmap_aux(struct evlist *l, size_t c, char *err, size_t errlen)
{
	struct evlist_mmap *m = &l->mmaps[c];
	int ret;

	if (!l->aux_pages)
		return 0;
	ret = aux_ring__mmap(&m->aux, &m->core, l->aux_pages, l->aux_snapshot);
	if (ret) {
		snprintf(err, errlen, "%s: AUX area mmap of %zu pages on CPU %d failed: %s (see -m DATA,AUX)",
			 l->evsel[l->aux_evsel].ev.name, l->aux_pages, l->cpus[c], strerror(-ret));
		return ret;
	}
	m->aux.idx = c;
	if (l->aux_snap_size && l->aux_snap_size < m->aux.size)
		m->aux.snap_size = l->aux_snap_size;
	return 0;
}

int evlist__mmap(struct evlist *l, size_t pages, char *err, size_t errlen)
{
	for (size_t c = 0; c < l->nr_cpus; c++) {
		int owner = ring_fd(l, c);
		int ret;

		if (owner < 0) {
			snprintf(err, errlen, "CPU %d: no event could be opened", l->cpus[c]);
			return -ENODEV;
		}
		ret = ring__mmap(&l->mmaps[c].core, owner, l->cpus[c], pages, l->backward);
		if (ret) {
			snprintf(err, errlen,
				 "mmap of %zu pages on CPU %d failed: %s (see -m and "
				 "/proc/sys/kernel/perf_event_mlock_kb)",
				 pages, l->cpus[c], strerror(-ret));
			return ret;
		}
		ret = evlist__mmap_aux(l, c, err, errlen);
		if (!ret)
			ret = redirect_cpu(l, c, owner, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

/* __evlist__enable() / __evlist__disable(): leaders only, members follow. */
static void ioctl_all(struct evlist *l, unsigned long req)
{
	size_t slots = l->nr_cpus * l->nr_threads;

	for (size_t e = 0; e < l->nr; e++) {
		if (l->evsel[e].ev.group_idx)
			continue;
		for (size_t i = e * slots; i < (e + 1) * slots; i++)
			if (l->fds[i] >= 0)
				ioctl(l->fds[i], req, 0);
	}
}

void evlist__enable(struct evlist *l)
{
	ioctl_all(l, PERF_EVENT_IOC_ENABLE);
}

void evlist__disable(struct evlist *l)
{
	ioctl_all(l, PERF_EVENT_IOC_DISABLE);
}

struct lost_samples_rec {
	struct perf_event_header h;
	uint64_t lost;
};
_Static_assert(sizeof(struct lost_samples_rec) == 16, "perf_record_lost_samples layout");

static int add_lost(struct evlist *l, struct recbuf *out, uint64_t lost, uint64_t id, size_t c,
		    size_t t)
{
	size_t size = sizeof(struct lost_samples_rec) + l->layout.id_hdr_size;
	struct lost_samples_rec *r = recbuf__reserve(out, size);
	pid_t tid = l->threads[t];

	if (!r)
		return -ENOMEM;
	r->h.type = PERF_RECORD_LOST_SAMPLES;
	r->h.size = size;
	r->lost = lost;
	pfile_idlayout__write_trailer(&l->layout, r + 1, tid, tid, 0, id, l->cpus[c]);
	return 0;
}

size_t evlist__lost_bound(const struct evlist *l)
{
	return l->nr * l->nr_cpus * l->nr_threads *
	       (sizeof(struct lost_samples_rec) + l->layout.id_hdr_size);
}

int evlist__read_fd(const struct evlist *l, size_t e, int fd, uint64_t *id, uint64_t *lost)
{
	uint64_t fmt = l->evsel[e].ev.attr.read_format, v[5];
	/* value, [time_enabled], [time_running], id, lost: configure_attr's formats */
	size_t n = 3 + !!(fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) +
		   !!(fmt & PERF_FORMAT_TOTAL_TIME_RUNNING);

	if (fd < 0 || read(fd, v, n * sizeof(v[0])) != (ssize_t)(n * sizeof(v[0])))
		return -EIO;
	*id = v[n - 2];
	*lost = v[n - 1];
	return 0;
}

int evlist__read_lost(struct evlist *l, struct recbuf *out, uint64_t *total, uint64_t *base)
{
	*total = 0;
	for (size_t e = 0; e < l->nr; e++)
		for (size_t c = 0; c < l->nr_cpus; c++)
			for (size_t t = 0; t < l->nr_threads; t++) {
				int *fd = fdp(l, e, c, t), ret;
				uint64_t id, lost, *seen = base ? &base[fd - l->fds] : NULL;

				if (evlist__read_fd(l, e, *fd, &id, &lost))
					continue;
				/* The kernel's count only grows: what an earlier file did not have. */
				if (seen) {
					uint64_t all = lost;

					lost -= *seen;
					*seen = all;
				}
				if (!lost)
					continue;
				*total += lost;
				ret = add_lost(l, out, lost, id, c, t);
				if (ret)
					return ret;
			}
	return 0;
}

/* Entries a record holds: header.size is a u16 (perf's max_nr). */
#define ID_INDEX_MAX ((UINT16_MAX - 16) / sizeof(struct pfile_id_index_entry))

/* Appends one ID_INDEX record of @nr entries; returns them to fill, NULL on ENOMEM. */
static struct pfile_id_index_entry *id_index_rec(struct recbuf *out, size_t nr)
{
	size_t size = 16 + nr * sizeof(struct pfile_id_index_entry);
	unsigned char *p = recbuf__reserve(out, size);
	struct perf_event_header h = {.type = PFILE_REC_ID_INDEX, .size = size};
	uint64_t n = nr;

	if (!p)
		return NULL;
	memcpy(p, &h, sizeof(h));
	memcpy(p + sizeof(h), &n, sizeof(n));
	return (struct pfile_id_index_entry *)(p + 16);
}

int evlist__id_index(const struct evlist *l, struct recbuf *out)
{
	size_t total = 0, done = 0;
	struct pfile_id_index_entry *ent = NULL;

	for (size_t e = 0; e < l->nr; e++)
		total += l->evsel[e].nr_ids;
	for (size_t e = 0; e < l->nr; e++) {
		/* An id for each fd that opened, in open order (evsel__compact_ids). */
		const uint64_t *id = l->evsel[e].ids;

		for (size_t c = 0; c < l->nr_cpus; c++)
			for (size_t t = 0; t < l->nr_threads; t++) {
				if (*fdp(l, e, c, t) < 0)
					continue;
				if (done % ID_INDEX_MAX == 0) {
					size_t left = total - done;

					ent = id_index_rec(out, left < ID_INDEX_MAX ? left : ID_INDEX_MAX);
					if (!ent)
						return -ENOMEM;
				}
				*ent++ = (struct pfile_id_index_entry){*id++, c, (uint64_t)(int64_t)l->cpus[c],
							       (uint64_t)(int64_t)l->threads[t]};
				done++;
			}
	}
	return 0;
}

void evlist__pfile_events(const struct evlist *l, struct pfile_event *ev)
{
	for (size_t e = 0; e < l->nr; e++) {
		ev[e].attr = l->evsel[e].ev.attr;
		ev[e].name = (char *)l->evsel[e].ev.name;
		ev[e].ids = l->evsel[e].ids;
		ev[e].nr_ids = l->evsel[e].nr_ids;
	}
}

int evlist__group_desc(const struct evlist *l, struct pfile_featset *fs)
{
	struct pfile_group *g = calloc(l->nr ? l->nr : 1, sizeof(*g));
	size_t nr = 0;
	int ret = 0;

	if (!g)
		return -ENOMEM;
	for (size_t e = 0; e < l->nr; e++) {
		const struct evparse_event *ev = &l->evsel[e].ev;

		if (!evparse_event__is_group_leader(ev))
			continue;
		g[nr].name = ev->group_name[0] ? ev->group_name : NULL;
		g[nr].leader_idx = e;
		g[nr++].nr_members = ev->nr_members;
	}
	/* record__init_features(): perf clears the feature without groups */
	if (nr)
		ret = pfile_feat__group_desc(fs, g, nr);
	free(g);
	return ret;
}

void evlist__release(struct evlist *l)
{
	sample_config__release(l);
	for (size_t c = 0; l->mmaps && c < l->nr_cpus; c++) {
		aux_ring__munmap(&l->mmaps[c].aux);
		ring__munmap(&l->mmaps[c].core);
	}
	for (size_t i = 0; l->fds && i < l->nr * l->nr_cpus * l->nr_threads; i++)
		if (l->fds[i] >= 0)
			close(l->fds[i]);
	for (size_t e = 0; l->evsel && e < l->nr; e++)
		free(l->evsel[e].ids);
	free(l->evsel);
	free(l->cpus);
	free(l->threads);
	free(l->fds);
	free(l->mmaps);
	memset(l, 0, sizeof(*l));
}
