/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The privilege policy beside event opening: the preflight of `record`
 * (what the sysctls and the capabilities held allow, perf's user-space-only
 * fallback) and evlist__open/evlist__mmap under raised capabilities. The
 * mechanism (raise, lower, drop) is util/privs.h.
 */
#ifndef SHARDREC_PRIVS_OPEN_H
#define SHARDREC_PRIVS_OPEN_H

#include "recorder/events/evlist.h"
#include "recorder/events/evparse.h"
#include "recorder/events/record_opts.h"
#include "recorder/util/privs.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * What the machine allows: sysctls and the capabilities held. (The ring
 * memory budget and CAP_IPC_LOCK are membudget's: raise PRIVS_IPC_LOCK
 * around membudget__check_self, which asks the effective set.)
 */
struct privs_env {
	int paranoid;                 /* kernel.perf_event_paranoid */
	int kptr_restrict;            /* kernel.kptr_restrict */
	unsigned int held;            /* PRIVS_F() of capabilities in the permitted set */
};

/* What the command line asks for. */
struct privs_req {
	const char *cpu_wide;         /* "-a" / "-C": CPU-wide events, else NULL */
	pid_t foreign_tid;            /* a -p/-t thread of another user, else 0 */
};

/* Fills @env from /proc/sys and the permitted set. */
void privs__env_read(struct privs_env *env);

/*
 * The decision, without I/O (unit-tested): checks @req and the events
 * @ev[@nr].ev against @env. Events that would sample the kernel where it is
 * not allowed fall back to user space only (exclude_kernel/hv, ":u" added
 * to the name) as perf does, with one line in @warn (else @warn is "").
 * 0, or -EACCES / -EPERM with one line in @err naming the missing
 * capability and the sysctl.
 */
int privs__check(const struct privs_env *env, const struct privs_req *req, struct evsel *ev,
		 size_t nr, char *err, size_t errlen, char *warn,
		 size_t warnlen);

/*
 * A privileged install (file capabilities) refuses an output path that is
 * a symbolic link: a planted link in a shared directory must not decide
 * where its recording goes. 0 when the path is absent or not a link, and
 * for a plain install (it follows perf's rules); -ELOOP with one line in @err.
 */
int privs__check_output(const char *path, char *err, size_t errlen);

/*
 * The preflight of `record`, between target and open: reads the
 * environment, runs privs__check on @l's events (the fallback edits them),
 * refuses a symlinked output, logs the warning line. Also keeps
 * user-chosen plugins out of a privileged process. Checks nothing for
 * --dry-run. 0 / -errno with one line in @err.
 */
int privs__preflight(struct evlist *l, const struct record_opts *o, char *err, size_t errlen);
/*
 * evlist__open with CAP_PERFMON raised (CAP_SYS_ADMIN before 5.8; with
 * neither held, CAP_SYS_PTRACE for -p/-t), then evlist__mmap with
 * CAP_IPC_LOCK raised. 0 / -errno with one line in @err.
 */
int privs__open_events(struct evlist *l, size_t pages, char *err, size_t errlen);

/* true when an event of @l samples the kernel (so its symbols matter). */
bool privs__samples_kernel(const struct evlist *l);

#endif
