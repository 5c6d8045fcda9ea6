// SPDX-License-Identifier: GPL-2.0
/* perf_event_open errors: perf's fallback and its error text for an event. */
#include "recorder/events/evparse_internal.h"

/* ---- perf_event_open errors -------------------------------------------- */

/* perf's evsel__add_modifiers(): the suffix evsel__name() derives from the attr. */
static void name__add_modifiers(const struct perf_event_attr *a, char *name, size_t size)
{
	bool guest_default = a->exclude_kernel || a->exclude_user || a->exclude_hv;
	size_t n = 0, len = strlen(name);
	char mods[16];

	if (guest_default) {
		if (!a->exclude_kernel)
			mods[n++] = 'k';
		if (!a->exclude_user)
			mods[n++] = 'u';
		if (!a->exclude_hv)
			mods[n++] = 'h';
	}
	for (unsigned int i = 0; i < a->precise_ip && i < 3; i++)
		mods[n++] = 'p';
	guest_default |= a->precise_ip != 0;
	if (a->exclude_host || a->exclude_guest == guest_default) {
		if (!a->exclude_host)
			mods[n++] = 'H';
		if (!a->exclude_guest)
			mods[n++] = 'G';
	}
	mods[n] = '\0';
	if (n && len < size)
		snprintf(name + len, size - len, ":%s", mods);
}

bool evparse__fallback(struct evparse_event *ev, int err, char *msg, size_t len)
{
	err = err < 0 ? -err : err;
	if ((err != ENOENT && err != ENXIO && err != ENODEV) ||
	    ev->attr.type != PERF_TYPE_HARDWARE || ev->attr.config != PERF_COUNT_HW_CPU_CYCLES)
		return false;
	snprintf(msg, len, "The cycles event is not supported, trying to fall back to "
		 "cpu-clock-ticks");
	ev->attr.type = PERF_TYPE_SOFTWARE;
	ev->attr.config = PERF_COUNT_SW_CPU_CLOCK;
	snprintf(ev->name, sizeof(ev->name), "cpu-clock");
	name__add_modifiers(&ev->attr, ev->name, sizeof(ev->name));
	return true;
}

const char *evparse__drop_missing_feature(struct perf_event_attr *attr, int err)
{
	if (err != EINVAL && err != -EINVAL)
		return NULL;
	if (attr->bpf_event) {
		attr->bpf_event = 0;
		return "bpf_event";
	}
	if (attr->ksymbol) {
		attr->ksymbol = 0;
		return "ksymbol";
	}
	return NULL;
}

/* perf's is_pmu_core(): x86 "cpu", or any PMU with a cpus file (arm, hybrid). */
static bool pmu__have_core(const char *root)
{
	struct dirent **ents = NULL;
	char *dir, *path;
	bool found;
	int i, n;

	path = path__new("%s" PMU_DEVICES "/cpu", root);
	found = path && path__exists(path);
	free(path);
	dir = path__new("%s" PMU_DEVICES, root);
	n = dir && !found ? scandir(dir, &ents, NULL, alphasort) : -1;
	for (i = 0; i < n; i++) {
		path = path__new("%s/%s/cpus", dir, ents[i]->d_name);
		found = found || (ents[i]->d_name[0] != '.' && path && path__exists(path));
		free(path);
		free(ents[i]);
	}
	free(ents);
	free(dir);
	return found;
}

static bool ev__is_hw(const struct evparse_event *ev)
{
	return ev->attr.type == PERF_TYPE_HARDWARE || ev->attr.type == PERF_TYPE_HW_CACHE ||
	       ev->attr.type == PERF_TYPE_RAW;
}

static char *strerror__access(const struct evparse_event *ev, int err, const char *root,
			      char *buf, size_t len)
{
	char *path = path__new("%s" PARANOID_FILE, root);
	char *val = NULL;
	bool kernel_hint;

	if (!path || file__read_str(path, &val))
		val = NULL;
	/* >= 2 is the usual distro default and stops kernel sampling only */
	kernel_hint = val && atoi(val) >= 2 && !ev->attr.exclude_kernel;
	snprintf(buf, len,
		 "%s: no permission to open the event (%s): %s is %s (>= 0 forbids raw and "
		 "tracepoint access, >= 1 CPU-wide events, >= 2 kernel profiling%s); lower it or "
		 "run with CAP_PERFMON (or CAP_SYS_ADMIN)",
		 ev->name, err == EPERM ? "EPERM" : "EACCES", PARANOID_FILE, val ? val : "unknown",
		 kernel_hint ? ": add the :u modifier to count user space only" : "");
	free(val);
	free(path);
	return buf;
}

static char *strerror__unsupported(const struct evparse_event *ev, int err, const char *root,
				   char *buf, size_t len)
{
	/* evsel__open_strerror()'s first EOPNOTSUPP cases, in perf's words */
	if (err == EOPNOTSUPP && (ev->attr.sample_type & PERF_SAMPLE_BRANCH_STACK))
		snprintf(buf, len,
			 "%s: PMU Hardware or event type doesn't support branch stack sampling.",
			 ev->name);
	else if (err == EOPNOTSUPP && ev->attr.aux_output)
		snprintf(buf, len, "%s: PMU Hardware doesn't support 'aux_output' feature",
			 ev->name);
	else if (ev__is_hw(ev) && !pmu__have_core(root))
		snprintf(buf, len,
			 "%s: hardware event not supported: this machine has no hardware PMU (no "
			 "%s" PMU_DEVICES "/cpu); try cpu-clock",
			 ev->name, root);
	else if (ev->attr.precise_ip)
		snprintf(buf, len,
			 "%s: 'precise' modifier (p) may not be supported by this event; try "
			 "removing 'p'",
			 ev->name);
	else if (ev->tracepoint && err == ENOENT)
		snprintf(buf, len,
			 "%s: tracepoint not available (is tracefs mounted and the event in this "
			 "kernel?)",
			 ev->name);
	else if (err == EOPNOTSUPP)
		snprintf(buf, len,
			 "%s: the PMU does not support sampling (overflow interrupts) for this "
			 "event",
			 ev->name);
	else if (err == ENODEV)
		snprintf(buf, len, "%s: no such device: PMU or CPU not available (CPU out of range?)",
			 ev->name);
	else
		snprintf(buf, len, "%s: event not supported by this kernel or PMU", ev->name);
	return buf;
}

static char *strerror__einval(const struct evparse_event *ev, char *buf, size_t len)
{
	/* perf_event_open(): "Only a group leader can be exclusive or pinned" */
	if (ev->group_idx && (ev->attr.pinned || ev->attr.exclusive))
		snprintf(buf, len,
			 "%s: only a group leader can be pinned (D) or exclusive (e); move the "
			 "modifier to the group",
			 ev->name);
	else if (ev->attr.precise_ip)
		snprintf(buf, len,
			 "%s: 'precise' modifier (p) not supported by this event; try removing 'p'",
			 ev->name);
	else if (ev->attr.type == PERF_TYPE_BREAKPOINT)
		snprintf(buf, len, "%s: invalid breakpoint (check address alignment and length)",
			 ev->name);
	else if (ev->pmu[0])
		snprintf(buf, len,
			 "%s: invalid event for PMU '%s' (bad terms, or an uncore PMU that needs "
			 "system-wide mode)",
			 ev->name, ev->pmu);
	else
		snprintf(buf, len, "%s: perf_event_open failed: %s", ev->name, strerror(EINVAL));
	return buf;
}

char *evparse__strerror_opts(const struct evparse_event *ev, int err,
			     const struct evparse_opts *o, char *buf, size_t len)
{
	const char *root = o && o->sysfs_root ? o->sysfs_root : "";

	if (!buf || !len)
		return buf;
	err = err < 0 ? -err : err;
	switch (err) {
	case EPERM:
	case EACCES:
		return strerror__access(ev, err, root, buf, len);
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		return strerror__unsupported(ev, err, root, buf, len);
	case EINVAL:
		return strerror__einval(ev, buf, len);
	case EMFILE:
		snprintf(buf, len,
			 "%s: too many open files: the file descriptor limit was reached; open "
			 "fewer events or raise it with 'ulimit -n <limit>'",
			 ev->name);
		return buf;
	case EBUSY:
		snprintf(buf, len,
			 "%s: the PMU counters are busy (taken by another profiler or a "
			 "pinned/exclusive event)",
			 ev->name);
		return buf;
	case ESRCH:
		snprintf(buf, len, "%s: the target process no longer exists", ev->name);
		return buf;
	case ENOSPC:
		if (ev->attr.type == PERF_TYPE_BREAKPOINT) {
			snprintf(buf, len, "%s: no free hardware breakpoint slot", ev->name);
			return buf;
		}
		break;
	}
	snprintf(buf, len, "%s: perf_event_open failed: %s", ev->name, strerror(err));
	return buf;
}

char *evparse__strerror(const struct evparse_event *ev, int err, char *buf, size_t len)
{
	return evparse__strerror_opts(ev, err, NULL, buf, len);
}
