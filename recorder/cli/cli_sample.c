// SPDX-License-Identifier: GPL-2.0
#include "recorder/cli/cli_sample.h"
#include "recorder/events/branch_filter.h"
#include "recorder/events/callchain.h"
#include "recorder/perfdata/recbuf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int call_graph(struct record_opts *o, const char *arg, char *err, size_t errlen)
{
	enum callchain_mode mode;
	uint32_t size = 0;
	int ret = callchain__parse(arg, &mode, &size, err, errlen);

	if (ret)
		return ret;
	/* The last call-graph option wins, as in perf. */
	o->callgraph_fp = mode == CALLCHAIN_FP;
	o->callgraph_dwarf = mode == CALLCHAIN_DWARF;
	o->dwarf_size = mode == CALLCHAIN_DWARF ? size : 0;
	o->max_stack = mode == CALLCHAIN_FP ? size : 0;
	return 0;
}

static int regs(uint64_t *mask, const char *opt, const char *arg, char *err, size_t errlen)
{
	char msg[256];
	int ret = callchain__parse_regs(arg, mask, msg, sizeof(msg));

	if (ret)
		snprintf(err, errlen, "--%s: %s", opt, msg);
	return ret;
}

static int delay(struct record_opts *o, const char *arg, char *err, size_t errlen)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	/* perf's -D -1: start disabled, wait for --control's "enable". */
	if (v == -1 && !*end) {
		o->start_disabled = true;
		return 0;
	}
	if (errno || *end || !*arg || v < 0 || v > 24L * 3600 * 1000) {
		snprintf(err, errlen, "-D: '%s' is not a delay in milliseconds", arg);
		return -EINVAL;
	}
	o->delay_ms = v;
	return 0;
}

/* perf's --max-size: a number with an optional B/K/M/G unit. */
static int max_size(struct record_opts *o, const char *arg, char *err, size_t errlen)
{
	unsigned long long v;
	char *end;
	int shift = 0;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (*end && !end[1]) {
		const char *u = strchr("bBkKmMgG", *end);

		shift = u ? (int)((u - "bBkKmMgG") / 2) * 10 : -1;
		end++;
	}
	if (errno || *end || shift < 0 || !*arg || *arg == '-' || !v || v > (~0ULL >> shift)) {
		snprintf(err, errlen, "--max-size: '%s' is not a size (a number with B/K/M/G)", arg);
		return -EINVAL;
	}
	o->max_size = v << shift;
	return 0;
}

static int filter(struct record_opts *o, const char *arg, char *err, size_t errlen)
{
	struct record_filter *f;
	size_t end = o->events ? strlen(o->events) : 0;

	if (!end) {
		snprintf(err, errlen, "--filter must follow the -e tracepoint it applies to");
		return -EINVAL;
	}
	f = array__grow(o->filters, &o->cap_filters, o->nr_filters + 1, sizeof(*f), 4);
	if (!f) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	o->filters = f;
	f += o->nr_filters++;
	f->events_off = o->last_event_off;
	f->events_end = end;
	f->filter = arg;
	return 0;
}

/*
 * -S[e][SIZE]: perf's auxtrace_parse_snapshot_options, 'e' for a snapshot
 * at exit, then intel_pt_parse_snapshot_options' byte count (strtoull base
 * 0); nothing means the whole AUX area.
 */
static int snapshot(struct record_opts *o, const char *arg, char *err, size_t errlen)
{
	char *end;

	o->aux_snapshot = true;
	if (!arg)
		return 0;
	if (*arg == 'e') {
		o->aux_snapshot_on_exit = true;
		arg++;
	}
	if (!*arg)
		return 0;
	errno = 0;
	o->aux_snap_size = strtoull(arg, &end, 0);
	if (errno || *end || *arg == '-' || !o->aux_snap_size) {
		snprintf(err, errlen, "-S/--snapshot: '%s' is not [e][SIZE] (SIZE in bytes)", arg);
		return -EINVAL;
	}
	return 0;
}

/* perf's parse_synth_opt: no, all, or a comma list of task, mmap, cgroup (mmap implies task). */
static int synth(struct record_opts *o, const char *arg, char *err, size_t errlen)
{
	char buf[64], *save = NULL;
	unsigned v = 0;

	snprintf(buf, sizeof(buf), "%s", arg);
	for (char *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		if (!strcmp(p, "no"))
			v |= 0;
		else if (!strcmp(p, "all"))
			v |= RECORD_SYNTH_ALL;
		else if (!strcmp(p, "task"))
			v |= RECORD_SYNTH_TASK;
		else if (!strcmp(p, "mmap"))
			v |= RECORD_SYNTH_TASK | RECORD_SYNTH_MMAP;
		else if (!strcmp(p, "cgroup"))
			v |= RECORD_SYNTH_CGROUP;
		else {
			snprintf(err, errlen, "--synth: '%s' is not no, all, task, mmap or cgroup", p);
			return -EINVAL;
		}
	}
	o->synth = v;
	return 0;
}

static int proc_map_timeout(struct record_opts *o, const char *arg, char *err, size_t errlen)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || *end || !*arg || *arg == '-' || v > 24UL * 3600 * 1000) {
		snprintf(err, errlen, "--proc-map-timeout: '%s' is not a time in milliseconds", arg);
		return -EINVAL;
	}
	o->proc_map_timeout_ms = v;
	return 0;
}

static int affinity(struct record_opts *o, const char *arg, char *err, size_t errlen)
{
	if (!strcmp(arg, "node"))
		o->affinity = RECORD_AFFINITY_NODE;
	else if (!strcmp(arg, "cpu"))
		o->affinity = RECORD_AFFINITY_CPU;
	else if (!strcmp(arg, "sys"))
		o->affinity = RECORD_AFFINITY_SYS;
	else {
		snprintf(err, errlen, "--affinity: '%s' is not node, cpu or sys", arg);
		return -EINVAL;
	}
	return 0;
}

/* perf's --mmap-flush: bytes with an optional B/K/M/G unit (capped at a quarter ring later). */
static int mmap_flush(struct record_opts *o, const char *arg, char *err, size_t errlen)
{
	uint64_t limit = o->max_size; /* max_size() parses into it: keep --max-size's */
	int ret = max_size(o, arg, err, errlen);

	if (!ret)
		o->mmap_flush = o->max_size;
	else
		snprintf(err, errlen, "--mmap-flush: '%s' is not a size (a number with B/K/M/G)", arg);
	o->max_size = limit;
	return ret;
}

/*
 * -b (@arg NULL: any) and -j/--branch-filter MODES: perf's parse_branch_stack(),
 * which takes one of them, once.
 */
static int branch_stack(struct record_opts *o, const char *arg, char *err, size_t errlen)
{
	char msg[256];
	int ret;

	if (o->branch_stack) {
		snprintf(err, errlen, "Can't use --branch-any (-b) with --branch-filter (-j) "
			 "(nor either twice)");
		return -EINVAL;
	}
	ret = branch_filter__parse(arg ? arg : "any", &o->branch_stack, msg, sizeof(msg));
	if (ret)
		snprintf(err, errlen, "-j/--branch-filter: %s", msg);
	return ret;
}

int record_opts__sample(struct record_opts *o, const char *name, const char *arg, char *err,
			size_t errlen)
{
	if (!strcmp(name, "branch-any"))
		return branch_stack(o, NULL, err, errlen);
	if (!strcmp(name, "branch-filter"))
		return branch_stack(o, arg, err, errlen);
	if (!strcmp(name, "synth"))
		return synth(o, arg, err, errlen);
	if (!strcmp(name, "proc-map-timeout"))
		return proc_map_timeout(o, arg, err, errlen);
	if (!strcmp(name, "affinity"))
		return affinity(o, arg, err, errlen);
	if (!strcmp(name, "mmap-flush"))
		return mmap_flush(o, arg, err, errlen);
	if (!strcmp(name, "snapshot"))
		return snapshot(o, arg, err, errlen);
	if (!strcmp(name, "call-graph"))
		return call_graph(o, arg, err, errlen);
	if (!strcmp(name, "user-regs"))
		return regs(&o->user_regs, name, arg, err, errlen);
	if (!strcmp(name, "intr-regs"))
		return regs(&o->intr_regs, name, arg, err, errlen);
	if (!strcmp(name, "delay"))
		return delay(o, arg, err, errlen);
	if (!strcmp(name, "max-size"))
		return max_size(o, arg, err, errlen);
	if (!strcmp(name, "filter"))
		return filter(o, arg, err, errlen);
	snprintf(err, errlen, "internal: unknown sample option '%s'", name);
	return -EINVAL;
}
