/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-node rendezvous of `shardrec job`'s ranks: a directory
 * $TMPDIR/shardrec-job.<uid>.<key> (default /tmp) that the ranks of one
 * node share, with <key> naming the job step and the host (jobenv__rdv_key
 * in recorder/job/jobenv.h: nodes may share one TMPDIR).
 *
 *   rank.N  written by local rank N > 0 before it execs the app:
 *           "PID STARTTIME" (STARTTIME from /proc/PID/stat, kept across
 *           exec). The recorder watches that process: the app runs as it.
 *   ready   written by local rank 0 once its events are enabled:
 *           "recording" or "unrecorded" (recording could not start).
 *
 * Rank N > 0: register, wait (bounded) for ready, exec the app, so the app
 * never runs before the events exist. Rank 0 records; it stops when its own
 * app has exited and every registered rank's process is gone (a dead PID,
 * a zombie, or a new process with another start time), once as many ranks
 * registered as the node runs, or the registration deadline has passed.
 * Files are written to a temporary name and renamed: a reader sees a whole
 * file or none. The directory must be ours (uid, not a link, not group or
 * other writable): another user's /tmp entry cannot steer the recorder.
 *
 * Library code: no prints; 0 / -errno.
 */
#ifndef SHARDREC_RENDEZVOUS_H
#define SHARDREC_RENDEZVOUS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct rdv {
	char dir[PATH_MAX];
	int dirfd;
};

enum rdv_ready { RDV_RECORDING = 1, RDV_UNRECORDED = 2 };

/* Creates or opens the directory for @key. 0 / -errno with one line in @err. */
int rdv__open(struct rdv *r, const char *key, char *err, size_t errlen);
/* Rank @local_rank > 0 announces this process. */
int rdv__register(struct rdv *r, long local_rank);
/* Waits up to @timeout_ms for ready: RDV_RECORDING, RDV_UNRECORDED, or -ETIMEDOUT. */
int rdv__wait_ready(struct rdv *r, unsigned timeout_ms);
/* Rank 0: the ranks may run; @recording says whether events are on. */
int rdv__set_ready(struct rdv *r, bool recording);
/* Registered ranks, and how many of their processes still run. */
int rdv__scan(struct rdv *r, unsigned *registered, unsigned *alive);
/* Rank 0 at the end: removes the files and the directory. */
void rdv__remove(struct rdv *r);
/* Closes the directory fd; accepts a never-opened @r (dirfd -1). */
void rdv__close(struct rdv *r);

/* The start time of @pid (clock ticks since boot), 0 when gone or a zombie. */
unsigned long long rdv__proc_start(int pid);

#endif
