// SPDX-License-Identifier: GPL-2.0
/*
 * The privilege policy of `record` (privs_open.h): what the command line
 * may ask under the sysctls and capabilities held, and opening the events
 * under raised capabilities. The mechanism is util/privs.c.
 */
#include "recorder/events/privs_open.h"
#include "recorder/util/fs.h"
#include "recorder/util/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NEED_PERFMON "CAP_PERFMON (or CAP_SYS_ADMIN)"

/* ---- environment ---- */

void privs__env_read(struct privs_env *env)
{
	memset(env, 0, sizeof(*env));
	env->paranoid = sysctl__read_kernel("perf_event_paranoid", 2);
	env->kptr_restrict = sysctl__read_kernel("kptr_restrict", 1);
	env->held = privs__permitted();
}

/* ---- the decision ---- */

static bool can_perfmon(const struct privs_env *env)
{
	return env->held & (PRIVS_F(PRIVS_PERFMON) | PRIVS_F(PRIVS_SYS_ADMIN));
}

/* The kernel's perf_event_open checks, in its order (kernel/events/core.c). */
static int check_open(const struct privs_env *env, const struct privs_req *req, char *err,
		      size_t errlen)
{
	if (can_perfmon(env))
		return 0;
	/* Debian's and Android's extra level: no perf_event_open at all. */
	if (env->paranoid >= 3) {
		snprintf(err, errlen,
			 "perf_event_open needs " NEED_PERFMON
			 ", or kernel.perf_event_paranoid <= 2 (it is %d)",
			 env->paranoid);
		return -EACCES;
	}
	if (req->cpu_wide && env->paranoid >= 1) {
		snprintf(err, errlen,
			 "%s: system-wide recording needs " NEED_PERFMON
			 ", or kernel.perf_event_paranoid <= 0 (it is %d)",
			 req->cpu_wide, env->paranoid);
		return -EACCES;
	}
	if (req->foreign_tid && !(env->held & PRIVS_F(PRIVS_SYS_PTRACE))) {
		snprintf(err, errlen,
			 "thread %d belongs to another user (or is not dumpable): attaching "
			 "needs CAP_PERFMON or CAP_SYS_PTRACE",
			 (int)req->foreign_tid);
		return -EPERM;
	}
	return 0;
}

/* perf's fallback: "cycles" becomes "cycles:u", "cpu/x/" becomes "cpu/x/u". */
static void fall_back_user(struct evparse_event *ev)
{
	char name[sizeof(ev->name)];
	const char *sep = strchr(ev->name, '/') || strchr(ev->name, ':') ? "" : ":";

	ev->attr.exclude_kernel = 1;
	ev->attr.exclude_hv = 1;
	snprintf(name, sizeof(name), "%s%su", ev->name, sep);
	memcpy(ev->name, name, sizeof(name));
}

static int check_kernel(const struct privs_env *env, struct evsel *evs, size_t nr, char *err,
			size_t errlen, char *warn, size_t warnlen)
{
	char names[256] = "";
	size_t len = 0;

	if (can_perfmon(env) || env->paranoid < 2)
		return 0;
	for (size_t i = 0; i < nr; i++) {
		struct evparse_event *ev = &evs[i].ev;

		if (ev->attr.exclude_kernel)
			continue;
		if (ev->attr.exclude_user) {
			snprintf(err, errlen,
				 "%s: kernel-only event needs " NEED_PERFMON
				 ", or kernel.perf_event_paranoid <= 1 (it is %d)",
				 ev->name, env->paranoid);
			return -EACCES;
		}
		fall_back_user(ev);
		if (len < sizeof(names))
			len += snprintf(names + len, sizeof(names) - len, "%s%s", len ? "," : "",
					ev->name);
	}
	if (len)
		snprintf(warn, warnlen,
			 "kernel.perf_event_paranoid=%d and no CAP_PERFMON: recording user space "
			 "only (%s); kernel samples need CAP_PERFMON or the sysctl <= 1",
			 env->paranoid, names);
	return 0;
}

int privs__check(const struct privs_env *env, const struct privs_req *req, struct evsel *ev,
		 size_t nr, char *err, size_t errlen, char *warn, size_t warnlen)
{
	int ret;

	warn[0] = 0;
	ret = check_open(env, req, err, errlen);
	if (!ret)
		ret = check_kernel(env, ev, nr, err, errlen, warn, warnlen);
	return ret;
}

/* ---- record's preflight and open ---- */

int privs__check_output(const char *path, char *err, size_t errlen)
{
	struct stat sb;

	/*
	 * A plain install follows perf's rules (capture/session_header.c): a
	 * planted link only decides where the user's own rights write.
	 */
	if (privs__mode() != PRIVS_CAPS)
		return 0;
	/* Absent is fine: the merge creates FILE.partial with O_EXCL|O_NOFOLLOW. */
	if (lstat(path, &sb) || !S_ISLNK(sb.st_mode))
		return 0;
	snprintf(err, errlen,
		 "%s is a symbolic link: refusing to write through it (remove it or choose "
		 "another -o)",
		 path);
	return -ELOOP;
}

/*
 * A -p/-t thread the kernel will not let us ptrace: /proc/TID belongs to
 * its euid, or to root when it is not dumpable (both fail ptrace_may_access).
 */
static pid_t foreign_thread(const struct evlist *l)
{
	char path[64];
	struct stat sb;

	for (size_t t = 0; t < l->nr_threads; t++) {
		snprintf(path, sizeof(path), "/proc/%d", (int)l->threads[t]);
		if (l->threads[t] > 0 && !stat(path, &sb) && sb.st_uid != getuid())
			return l->threads[t];
	}
	return 0;
}

int privs__preflight(struct evlist *l, const struct record_opts *o, char *err, size_t errlen)
{
	struct privs_req req = {0};
	struct privs_env env;
	char warn[512];
	int ret;

	/* hwloc dlopens plugins from $HWLOC_PLUGINS_PATH (plain getenv): not with caps. */
	if (privs__mode() == PRIVS_CAPS)
		unsetenv("HWLOC_PLUGINS_PATH");
	if (o->dry_run)
		return 0;
	ret = privs__check_output(o->output, err, errlen);
	if (ret)
		return ret;
	privs__env_read(&env);
	req.cpu_wide = o->system_wide ? "-a" : o->cpu_list ? "-C" : NULL;
	if (o->pid_list || o->tid_list)
		req.foreign_tid = foreign_thread(l);
	pr_debug("privileges: mode %d, capabilities 0x%x, perf_event_paranoid %d, "
		 "kptr_restrict %d",
		 privs__mode(), env.held, env.paranoid, env.kptr_restrict);
	ret = privs__check(&env, &req, l->evsel, l->nr, err, errlen, warn, sizeof(warn));
	if (!ret && warn[0])
		pr_warn("%s", warn);
	return ret;
}

bool privs__samples_kernel(const struct evlist *l)
{
	for (size_t i = 0; i < l->nr; i++)
		if (!l->evsel[i].ev.attr.exclude_kernel)
			return true;
	return false;
}

static unsigned int open_caps(const struct evlist *l)
{
	if (privs__held() & PRIVS_F(PRIVS_PERFMON))
		return PRIVS_F(PRIVS_PERFMON);
	if (privs__held() & PRIVS_F(PRIVS_SYS_ADMIN))
		return PRIVS_F(PRIVS_SYS_ADMIN);
	/* Without CAP_PERFMON, attaching to a thread is a ptrace access check. */
	return l->nr_threads && l->threads[0] > 0 ? PRIVS_F(PRIVS_SYS_PTRACE) : 0;
}

static int raise_or_say(unsigned int mask, char *err, size_t errlen)
{
	int ret = privs__raise(mask);

	if (ret)
		snprintf(err, errlen, "cannot raise capabilities: %s", strerror(-ret));
	return ret;
}

int privs__open_events(struct evlist *l, size_t pages, char *err, size_t errlen)
{
	int ret;

	ret = raise_or_say(open_caps(l), err, errlen);
	if (ret)
		return ret;
	ret = evlist__open(l, err, errlen);
	privs__lower();
	if (ret)
		return ret;
	ret = raise_or_say(PRIVS_F(PRIVS_IPC_LOCK), err, errlen);
	if (ret)
		return ret;
	ret = evlist__mmap(l, pages, err, errlen);
	privs__lower();
	return ret;
}
