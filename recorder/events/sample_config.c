// SPDX-License-Identifier: GPL-2.0
#include "recorder/events/evlist.h"
#include "recorder/events/callchain.h"
#include "recorder/util/fs.h"
#include "recorder/util/perf_event.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static bool has_tracepoint(const struct evlist *l)
{
	for (size_t i = 0; i < l->nr; i++)
		if (l->evsel[i].ev.tracepoint)
			return true;
	return false;
}

static void set_callchain(struct perf_event_attr *a, const struct record_opts *o, bool first)
{
	uint64_t regs = o->user_regs;

	if (!o->callgraph_dwarf) {
		if (regs) {
			a->sample_type |= PERF_SAMPLE_REGS_USER;
			a->sample_regs_user = regs;
		}
		return;
	}
	/*
	 * perf 6.1 for dwarf: the user stack and registers, the kernel part of
	 * the chain (exclude_callchain_user), and data addresses plus
	 * mmap_data, as `perf evlist -v` shows for its own recordings. A
	 * --user-regs subset still gets IP and SP, without which nothing
	 * unwinds.
	 */
	a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
			  PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
	a->sample_regs_user = regs ? regs | callchain__dwarf_min_regs() : callchain__all_regs();
	a->sample_stack_user = o->dwarf_size;
	a->exclude_callchain_user = 1;
	if (first)
		a->mmap_data = 1;
}

static void set_sampling(struct perf_event_attr *a, const struct evparse_event *ev,
			 const struct record_opts *o, bool first, bool cpu)
{
	set_callchain(a, o, first);
	if (o->intr_regs) {
		a->sample_type |= PERF_SAMPLE_REGS_INTR;
		a->sample_regs_intr = o->intr_regs;
	}
	if (o->raw_samples || ev->tracepoint)
		a->sample_type |= PERF_SAMPLE_RAW;
	if (cpu)
		a->sample_type |= PERF_SAMPLE_CPU;
	if (o->sample_addr) {
		a->sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
		if (first)
			a->mmap_data = 1;
	}
	if (o->sample_period)
		a->sample_type |= PERF_SAMPLE_PERIOD;
	/* -b / -j: every event, as evsel__config(); the -D dummy drops it (add_tracking_dummy) */
	if (o->branch_stack) {
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = o->branch_stack;
	}
	/* -W: x86 perf's arch_evsel__set_sample_weight asks for the weight struct */
	if (o->sample_weight)
		a->sample_type |= PERF_SAMPLE_WEIGHT_STRUCT;
	if (o->all_cgroups) {
		a->sample_type |= PERF_SAMPLE_CGROUP;
		a->cgroup = first;
	}
	if (o->namespaces && first)
		a->namespaces = 1;
	/* perf's __evsel__config_callchain: after DWARF's exclude_callchain_user */
	if (o->user_callchains && (a->sample_type & PERF_SAMPLE_CALLCHAIN))
		a->exclude_callchain_kernel = 1;
	if (o->no_samples)
		a->sample_freq = 0; /* perf: no sampling, the tracking records only */
}

static void set_scope(struct perf_event_attr *a, const struct record_opts *o, bool first)
{
	if (o->no_inherit || o->per_thread)
		a->inherit = 0;
	if (o->inherit_stat) {
		/* perf's evsel__config for -s: per-task totals as READ records at exit */
		a->read_format |= PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		a->inherit_stat = 1;
	}
	if (o->all_user) {
		a->exclude_kernel = 1;
		a->exclude_user = 0;
	}
	if (o->all_kernel) {
		a->exclude_kernel = 0;
		a->exclude_user = 1;
	}
	if (first && o->switch_events)
		a->context_switch = 1;
}

/* Events parsed from @len bytes of @list; -errno with @err. */
static int count_events(const char *list, size_t len, char *err, size_t errlen)
{
	struct evparse_opts po = {0};
	struct evparse_event *evs = NULL;
	size_t nr = 0;
	char *s = strndup(list, len);
	int ret;

	if (!s)
		return -ENOMEM;
	/* the comma that joined the next -e is not part of this span */
	if (len && s[len - 1] == ',')
		s[len - 1] = '\0';
	ret = s[0] ? evparse__parse(s, &po, &evs, &nr, err, errlen) : 0;
	free(evs);
	free(s);
	return ret ? ret : (int)nr;
}

/* perf: a filter belongs to the tracepoints of the -e given just before it. */
static int attach_filter(struct evlist *l, const struct record_opts *o,
			 const struct record_filter *f, char *err, size_t errlen)
{
	int before = count_events(o->events, f->events_off, err, errlen);
	int nr = before < 0 ? before
			    : count_events(o->events + f->events_off, f->events_end - f->events_off,
					   err, errlen);
	bool any = false;

	if (nr < 0)
		return nr;
	for (size_t i = before; i < (size_t)(before + nr) && i < l->nr; i++) {
		struct evsel *e = &l->evsel[i];

		if (!e->ev.tracepoint)
			continue;
		free((char *)e->filter);
		e->filter = strdup(f->filter);
		if (!e->filter)
			return -ENOMEM;
		any = true;
	}
	if (!any) {
		snprintf(err, errlen, "--filter '%s': the -e before it has no tracepoint", f->filter);
		return -EINVAL;
	}
	return 0;
}

static int open_cgroup(struct evlist *l, const struct record_opts *o, char *err, size_t errlen)
{
	const char *rel = o->cgroup;
	char root[4096], path[8200];

	if (!record_opts__cpu_wide(o)) {
		snprintf(err, errlen, "-G/--cgroup needs per-CPU events: add -a or -C");
		return -EINVAL;
	}
	/* perf takes the path relative to the cgroup mount, with or without '/'. */
	while (*rel == '/')
		rel++;
	snprintf(path, sizeof(path), "%s/%s", cgroup2__mountpoint(root, sizeof(root)), rel);
	l->cgroup_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (l->cgroup_fd < 0) {
		int ret = -errno;

		snprintf(err, errlen, "-G %s: %s: %s (a path below the cgroup v2 mount %s)",
			 o->cgroup, path, strerror(errno), root);
		return ret;
	}
	l->has_cgroup = true;
	return 0;
}

/*
 * perf's record__open: a dummy event (it never samples) takes over the
 * tracking bits where the sampling events start late or the tasks are
 * described while others run.
 * - -D on a task: enabled on exec, so the workload's exec COMM and mmaps
 *   are recorded during the delay; the sampling events wait for it.
 * - -a, -C (@immediate): enabled from its open, so that what starts,
 *   execs or maps while /proc is read for the task records, and the
 *   writers as they start, have records: without it, a process started
 *   meanwhile (an MPI rank) had no COMM or maps, and its samples no symbols.
 */
static int add_tracking_dummy(struct evlist *l, const struct record_opts *o, bool immediate)
{
	struct evsel *n = realloc(l->evsel, (l->nr + 1) * sizeof(*n));
	struct perf_event_attr *a, *first;
	struct evsel *d;

	if (!n)
		return -ENOMEM;
	l->evsel = n;
	/* last, as evlist__add_dummy() appends it: synthesized records (id 0) stay the first's */
	d = &n[l->nr++];
	memset(d, 0, sizeof(*d));
	a = &d->ev.attr;
	first = &n[0].ev.attr;
	*a = *first;
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
	/*
	 * evsel__config() gives it the command line's -F or -c (user_freq,
	 * user_interval), not an event term's, else keeps evlist__add_dummy()'s
	 * period of 1; a frequency samples the period, as on every event.
	 */
	a->freq = 0;
	a->sample_period = 1;
	if (o->freq || o->freq_max || o->period)
		evlist__set_rate(a, &(struct evparse_event){0}, o);
	a->pinned = 0;
	a->exclude_user = a->exclude_kernel = a->exclude_hv = 0;
	/* evsel__config(): a dummy never samples, no branch stack (EOPNOTSUPP) */
	a->sample_type &= ~(uint64_t)PERF_SAMPLE_BRANCH_STACK;
	/* evsel__config: a fixed period records no PERIOD unless -P asks */
	if (a->freq)
		a->sample_type |= PERF_SAMPLE_PERIOD;
	else if (!o->sample_period)
		a->sample_type &= ~(uint64_t)PERF_SAMPLE_PERIOD;
	/* :HG, host and guest */
	a->exclude_guest = 0;
	if (immediate)
		a->disabled = a->enable_on_exec = 0;
	snprintf(d->ev.name, sizeof(d->ev.name), "dummy:HG");
	first->mmap = first->mmap2 = first->mmap_data = first->comm = first->comm_exec = 0;
	first->task = first->context_switch = 0;
	first->ksymbol = first->bpf_event = 0;
	first->namespaces = first->cgroup = 0;
	return 0;
}

/* perf_can_record_text_poke_events(): a dummy:u with text_poke opens (Linux 5.9). */
static bool can_text_poke(void)
{
	struct perf_event_attr a = {.type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				    .config = PERF_COUNT_SW_DUMMY, .exclude_kernel = 1,
				    .text_poke = 1};

	return perf_event__probe(&a);
}

/* Intel PT's trace has timestamps: its tsc term (intel_pt_recording_options' have_timing_info). */
static bool pt_has_timing(const struct evparse_event *ev, const struct record_opts *o)
{
	return aux_pmu__type(ev->pmu) == AUX_TYPE_INTEL_PT &&
	       (ev->attr.config & aux_pmu__format_mask(o->sysfs_root, ev->pmu, "tsc"));
}

/*
 * Switch records on the tracking dummy: timed Intel PT; ARM SPE per CPU
 * (arm_spe_recording_options, "also track task context switch"); not
 * CoreSight, whose trace carries the context ID.
 */
static bool aux_wants_switches(const struct evparse_event *ev, const struct record_opts *o)
{
	return pt_has_timing(ev, o) || aux_pmu__type(ev->pmu) == AUX_TYPE_ARM_SPE;
}

/* The dummy add_tracking_dummy appended last, made perf's dummy:u. */
static struct perf_event_attr *as_dummy_u(struct evlist *l)
{
	struct evsel *d = &l->evsel[l->nr - 1];

	snprintf(d->ev.name, sizeof(d->ev.name), "dummy:u");
	d->ev.attr.exclude_kernel = d->ev.attr.exclude_hv = d->ev.attr.exclude_guest = 1;
	return &d->ev.attr;
}

/*
 * perf's AUX recording options (intel_pt_recording_options, as the cs_etm,
 * arm_spe and intel_bts ones): the AUX event records nothing but its
 * trace, and a dummy:u appended last (evlist__add_aux_dummy) takes the
 * tracking, enabled from its open on CPU-wide targets. Timed Intel PT
 * and ARM SPE add switch records there, so the decoder knows which task
 * ran (user space cannot be decoded without), and, where Intel PT traces
 * the kernel, a second dummy:u takes the KSYMBOL and TEXT_POKE records of
 * kernel code that changes while it runs (record__config_text_poke). perf
 * opens the switch and text_poke dummies on every CPU even for a task
 * target; here a task target keeps its switch records on the tracking
 * event (per task, as perf does where CPU-wide events are refused) and has
 * no text_poke; and with -C on some CPUs, perf's tracking dummy goes on
 * every CPU (need_system_wide_tracking: a traced task may run elsewhere),
 * ours on the -C CPUs, as the evlist has one CPU list for all its events.
 * Only Intel PT's options were checked against perf itself
 * (tests/qemu/aux-oracle.sh): perf on x86 has no CoreSight or SPE ones.
 */
static int add_aux_tracking(struct evlist *l, const struct record_opts *o)
{
	bool cpu_wide = record_opts__cpu_wide(o), timing = pt_has_timing(&l->evsel[0].ev, o);
	bool text_poke = timing && cpu_wide && !l->evsel[0].ev.attr.exclude_kernel && can_text_poke();
	struct perf_event_attr *t;
	int ret = add_tracking_dummy(l, o, cpu_wide);

	if (ret)
		return ret;
	t = as_dummy_u(l);
	/* --switch-events moved here with the rest */
	t->context_switch |= aux_wants_switches(&l->evsel[0].ev, o);
	if (!text_poke)
		return 0;
	t->ksymbol = 0;
	ret = add_tracking_dummy(l, o, true);
	if (ret)
		return ret;
	t = as_dummy_u(l);
	t->mmap = t->mmap2 = t->comm = t->comm_exec = t->task = t->context_switch = 0;
	t->bpf_event = 0;
	t->ksymbol = t->text_poke = 1;
	return 0;
}

int sample_config__apply(struct evlist *l, const struct record_opts *o, char *err, size_t errlen)
{
	bool cpu = o->raw_samples || has_tracepoint(l);
	int ret;

	for (size_t i = 0; i < l->nr; i++) {
		struct evsel *e = &l->evsel[i];

		set_sampling(&e->ev.attr, &e->ev, o, i == 0, cpu);
		set_scope(&e->ev.attr, o, i == 0);
	}
	/* Filters count events from the command line: attach them first. */
	for (size_t f = 0; f < o->nr_filters; f++) {
		ret = attach_filter(l, o, &o->filters[f], err, errlen);
		if (ret)
			return ret;
	}
	/*
	 * An AUX area event (first, or evlist__configure_aux refuses) gives
	 * its tracking to perf's dummy:u; with -D, configure_aux refuses.
	 */
	if (l->nr && evsel__is_aux(&l->evsel[0]) && !o->delay_ms && !o->start_disabled) {
		ret = add_aux_tracking(l, o);
		if (ret) {
			snprintf(err, errlen, "out of memory");
			return ret;
		}
	} else if (o->delay_ms || o->start_disabled || record_opts__cpu_wide(o)) {
		ret = add_tracking_dummy(l, o, record_opts__cpu_wide(o));
		/* -D: the sampling events wait for the delay; the tracking one, on a command, the exec. */
		for (size_t i = 0; !ret && i + 1 < l->nr; i++)
			l->evsel[i].ev.attr.enable_on_exec = 0;
		if (ret) {
			snprintf(err, errlen, "out of memory");
			return ret;
		}
	}
	/*
	 * --overwrite: every event, the -D tracking dummy included, since the
	 * kernel refuses SET_OUTPUT between rings of different directions.
	 */
	for (size_t i = 0; i < l->nr; i++)
		l->evsel[i].ev.attr.write_backward = o->overwrite;
	/* Each event's own terms last, as perf's evsel__apply_config_terms() (the dummy has none). */
	ret = sample_terms__apply(l, o, err, errlen);
	if (ret)
		return ret;
	return o->cgroup ? open_cgroup(l, o, err, errlen) : 0;
}

int sample_config__set_filter(const struct evsel *e, int fd, char *err, size_t errlen)
{
	if (!e->filter)
		return 0;
	if (ioctl(fd, PERF_EVENT_IOC_SET_FILTER, e->filter) < 0) {
		int ret = -errno;

		snprintf(err, errlen, "failed to set filter \"%s\" on event %s: %s", e->filter,
			 e->ev.name, strerror(errno));
		return ret;
	}
	return 0;
}

void sample_config__release(struct evlist *l)
{
	for (size_t i = 0; l->evsel && i < l->nr; i++) {
		free((char *)l->evsel[i].filter);
		l->evsel[i].filter = NULL;
	}
	if (l->has_cgroup)
		close(l->cgroup_fd);
	l->has_cgroup = false;
}
