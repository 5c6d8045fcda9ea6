/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Privileges of a shardrec installed with file capabilities (setcap
 * cap_perfmon,cap_ipc_lock,cap_syslog,cap_sys_nice+ep): shardrec is then a privileged
 * program and behaves like one.
 *
 *  - At start the permitted set is cut to the capabilities shardrec uses and
 *    the effective set is emptied: each capability is raised only around
 *    the call that needs it (perf_event_open, mmap, reading /proc/kallsyms).
 *  - Before opening events, the preflight (events/privs_open.h: the policy;
 *    this file is the mechanism) compares what was asked with the
 *    capabilities and the sysctls and says in one line what is missing; it
 *    falls back to user-space-only events where perf does.
 *  - Once events, rings and the header exist, everything is dropped, before
 *    the writer threads exist (capabilities are per thread: they inherit the
 *    empty sets), but CAP_SYS_NICE when -r needs it: each writer raises it
 *    around its own pthread_setschedparam, then drops all it inherited, and
 *    the main thread drops it once every writer started.
 *  - The workload runs with the real uid/gid, empty capability sets and
 *    no_new_privs.
 *
 * A real root (uid 0, e.g. under sudo) is left alone: its workload runs as
 * root and its files belong to root, as with perf. A plain install (no
 * capabilities) changes nothing but the preflight. Process credentials are
 * process-wide, so the state here is too (set once by privs__init).
 */
#ifndef SHARDREC_PRIVS_H
#define SHARDREC_PRIVS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The capabilities shardrec uses; PRIVS_F() makes a mask. */
enum privs_cap {
	PRIVS_PERFMON,   /* perf_event_open beyond perf_event_paranoid */
	PRIVS_SYS_ADMIN, /* the same on kernels before 5.8 (no CAP_PERFMON) */
	PRIVS_IPC_LOCK,  /* rings beyond perf_event_mlock_kb + RLIMIT_MEMLOCK */
	PRIVS_SYSLOG,    /* /proc/kallsyms and /proc/modules addresses */
	PRIVS_SYS_PTRACE, /* optional: other users' /proc/PID/maps, -p on them */
	PRIVS_SYS_NICE,   /* optional: real-time writer threads (-r) */
	PRIVS_NR,
};
#define PRIVS_F(c) (1u << (c))

enum privs_mode {
	PRIVS_PLAIN,      /* no capabilities: nothing to manage */
	PRIVS_ROOT,       /* real uid 0: unchanged behaviour */
	PRIVS_CAPS,       /* holds capabilities as a non-root user */
};

/*
 * Sets up privilege handling for this process: detects the mode, cuts the
 * permitted set to the capabilities above and empties the effective,
 * inheritable and ambient sets. Refuses set-user-ID/set-group-ID installs.
 * 0 / -errno with one line in @err.
 */
int privs__init(char *err, size_t errlen);
/* The mode privs__init found. */
enum privs_mode privs__mode(void);

/* PRIVS_F() of the capabilities in the permitted set now (libcap). */
unsigned int privs__permitted(void);
/* PRIVS_F() of those privs__init kept; 0 once privs__drop dropped them. */
unsigned int privs__held(void);

/*
 * Raises the capabilities of @mask that are held into the effective set
 * (those not held are skipped: the call then fails as it would without
 * them). No-op unless PRIVS_CAPS. 0 / -errno.
 */
int privs__raise(unsigned int mask);
/* Empties the effective set again. */
void privs__lower(void);
/*
 * Drops every capability for good (permitted too) but those of @keep that
 * are held. Call it while the process has a single thread (-EBUSY
 * otherwise): threads started later inherit what is kept, and must call
 * privs__thread_drop once they used it. No-op unless PRIVS_CAPS. 0 /
 * -errno with one line in @err.
 */
int privs__drop(unsigned int keep, char *err, size_t errlen);
/*
 * Drops every capability of the calling thread only (libcap sets are per
 * thread): a writer thread, after it raised what privs__drop kept. It
 * does not change what privs__raise offers the other threads.
 */
void privs__thread_drop(void);
/*
 * Drops what privs__drop kept, in the calling thread, once every thread
 * that needed it dropped its own: nothing is held after it.
 */
void privs__drop_kept(void);
/*
 * In the forked workload, before exec: real uid/gid, empty capability sets
 * (ambient too), no_new_privs. Async-signal-safe apart from libcap's
 * allocation (the child of a single-threaded parent). 0 / -errno.
 */
int privs__workload_drop(void);
/*
 * The environment to exec the workload with: the one shardrec was started
 * with. A file-capability start is a secure-execution one, where glibc
 * removes LD_LIBRARY_PATH, LD_PRELOAD, TMPDIR, MALLOC_*... from environ;
 * the unprivileged workload gets them back from /proc/self/environ, as if
 * the user had run it directly. environ when nothing was removed.
 */
char **privs__workload_env(void);

#endif
