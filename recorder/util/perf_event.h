/* SPDX-License-Identifier: GPL-2.0 */
/* perf_event_open(2), which libc does not wrap: one home for its callers. */
#ifndef SHARDREC_PERF_EVENT_H
#define SHARDREC_PERF_EVENT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <sys/types.h>

/* The system call; the fd, or -1 with errno. */
int perf_event__open(struct perf_event_attr *a, pid_t pid, int cpu, int group, unsigned long flags);

/*
 * Whether @a opens on this thread (any CPU, close-on-exec), closed again:
 * how perf probes what the kernel and the user's rights allow.
 */
bool perf_event__probe(struct perf_event_attr *a);

#endif
