/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event list parsing: perf-style -e strings into perf_event_attr.
 *
 *   cpu-clock,task-clock,cs,page-faults:u       generic names (+ modifiers)
 *   cycles,instructions,...                     hardware names (PERF_TYPE_HARDWARE)
 *   L1-dcache-load-misses,...                   hw cache names
 *   software/period=1,name=cs,config=0x3/Duk    PMU with sysfs format/ terms
 *   sched:sched_switch, sched:*                 tracepoints (tracefs id)
 *   mem:0xaddr[/len][:rwx]                      breakpoints
 *   {cpu-clock,task-clock}:u, name{cs,faults}   event groups (+ modifiers)
 *
 *   sched:sched_switch/max-stack=3/u           tracepoints take terms too
 *
 * Modifiers: u k h (exclude others), D (pinned), G H (guest/host), S
 * (sample read), p/pp/ppp (precise_ip), W (weak group). Terms: config,
 * config1, config2, period, freq, name, and every field the PMU's sysfs
 * format/ lists; and perf 6.1's per-event config terms (time, call-graph,
 * stack-size, max-stack, inherit, no-inherit, overwrite, no-overwrite,
 * branch_type, aux-output, aux-sample-size; percore, nr and metric-id are
 * checked and have no effect on a recording, as in perf record), kept in
 * evparse_event.terms for sample_terms.c. Tracepoints take only the subset
 * perf's config_term_tracepoint() does. A group's modifier is merged into
 * each member's own as perf's parse_events__modifier_group() does; leader
 * sampling (a group whose leader has S) is refused.
 */
#ifndef SHARDREC_EVPARSE_H
#define SHARDREC_EVPARSE_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * A per-event config term (perf's evsel_config_term), in the order given:
 * the record options apply first, then these over them.
 */
enum evparse_term_type {
	EVPARSE_TERM_TIME,            /* time=0|1: val 0 or 1 */
	EVPARSE_TERM_CALLGRAPH,       /* call-graph=fp|dwarf|no: val a CALLCHAIN_* mode */
	EVPARSE_TERM_STACK_SIZE,      /* stack-size=BYTES (dwarf's user stack) */
	EVPARSE_TERM_MAX_STACK,       /* max-stack=N: attr.sample_max_stack, implies fp */
	EVPARSE_TERM_INHERIT,         /* inherit[=N], no-inherit[=N]: val 0 or 1 */
	EVPARSE_TERM_OVERWRITE,       /* overwrite[=N], no-overwrite[=N]: val 0 or 1 */
	EVPARSE_TERM_BRANCH,          /* branch_type=MODE: its PERF_SAMPLE_BRANCH_* bit, 0 = no */
	EVPARSE_TERM_AUX_OUTPUT,      /* aux-output[=N]: val 0 or 1 */
	EVPARSE_TERM_AUX_SAMPLE_SIZE, /* aux-sample-size=BYTES */
};

struct evparse_term {
	enum evparse_term_type type;
	__u64 val;
};

#define EVPARSE_MAX_TERMS 16

struct evparse_event {
	struct perf_event_attr attr; /* type, config*, exclude_*, pinned, period/freq if set */
	char name[256];              /* display name: name= term, else the text as given */
	bool period_set;             /* period= or freq= term given: -c/-F must not override */
	bool tracepoint;             /* PERF_TYPE_TRACEPOINT */
	char pmu[64];                /* PMU name for pmu/.../ events, "" otherwise */
	/*
	 * Groups, relative so that inserting events before a group keeps them
	 * right: a member's leader is group_idx entries before it.
	 */
	unsigned int group_idx;      /* 0: group leader or ungrouped; i: i-th member */
	unsigned int nr_members;     /* on a leader: events in its group, > 1; else 0 or 1 */
	char group_name[64];         /* NAME of NAME{...} on its leader, "" if anonymous */
	bool weak_group;             /* W: perf reopens the members ungrouped if the group fails */
	bool exclude_GH;             /* G or H given (perf's evsel->exclude_GH) */
	bool sample_read;            /* S given */
	struct evparse_term terms[EVPARSE_MAX_TERMS]; /* per-event config terms, in order */
	unsigned int nr_terms;
};

/* True if @ev leads a group of more than one event. */
static inline bool evparse_event__is_group_leader(const struct evparse_event *ev)
{
	return !ev->group_idx && ev->nr_members > 1;
}

struct evparse_opts {
	const char *sysfs_root;   /* NULL = "" (i.e. real /sys); tests point it at a fake tree */
	const char *tracefs_root; /* NULL = tracefs__mountpoint() on first use */
};

/*
 * Parses the comma-separated @list (commas inside /.../ belong to the terms,
 * inside {...} to the group). Appends to *@out (realloc'ed, caller frees) and
 * *@nr; a group's events are appended leader first. 0 / -errno with one line
 * in @err naming the bad event: unknown name, unknown PMU, unknown term, bad
 * modifier, tracepoint not found, glob matching nothing, unbalanced or
 * nested braces, leader sampling.
 */
int evparse__parse(const char *list, const struct evparse_opts *o, struct evparse_event **out,
		   size_t *nr, char *err, size_t errlen);

/*
 * perf's evsel__fallback() for a hardware PMU that is missing: when opening
 * cycles (PERF_TYPE_HARDWARE, any modifiers) failed with @err ENOENT, ENXIO
 * or ENODEV, turns @ev into cpu-clock, renamed as perf names it
 * ("cpu-clock:u..."), writes perf's warning into @msg and returns true.
 * Otherwise leaves @ev alone and returns false.
 */
bool evparse__fallback(struct evparse_event *ev, int err, char *msg, size_t len);

/*
 * perf's evsel__detect_missing_features() for the tracking bits: a kernel
 * older than 5.1 refuses attr.bpf_event, one older than 5.1 ksymbol, with
 * EINVAL. Clears the first of them set on @attr (bpf_event, then ksymbol,
 * perf's order) and returns its name, or NULL when @err is not EINVAL or
 * neither is set: the error is the event's own.
 */
const char *evparse__drop_missing_feature(struct perf_event_attr *attr, int err);

/*
 * One line explaining a perf_event_open failure of @ev with @err (errno), as
 * perf does: hardware event without a PMU, permission + paranoid setting,
 * unsupported modifier, ... Writes into @buf, returns it.
 */
char *evparse__strerror(const struct evparse_event *ev, int err, char *buf, size_t len);

/*
 * evparse__strerror() looking at @o->sysfs_root instead of the real /sys and
 * /proc (for the "no hardware PMU" and perf_event_paranoid hints). @o may be
 * NULL. Writes into @buf, returns it.
 */
char *evparse__strerror_opts(const struct evparse_event *ev, int err,
			     const struct evparse_opts *o, char *buf, size_t len);

/* Called per name by evparse__foreach_symbol(); non-zero stops the walk. */
typedef int (*evparse_symbol_cb)(const char *name, const char *alias,
				 const struct perf_event_attr *attr, void *arg);

/*
 * Calls @cb for every symbolic event name the parser accepts, as perf list
 * shows them: hardware and software names in the parser's order (a second
 * name for the same event, "cs" of "context-switches", comes as @alias, NULL
 * otherwise), then the hw cache names perf builds ("L1-dcache-load-misses").
 * @attr has type and config set. Returns the first non-zero @cb return, or 0.
 */
int evparse__foreach_symbol(evparse_symbol_cb cb, void *arg);

#endif
