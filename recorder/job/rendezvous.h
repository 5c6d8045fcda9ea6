/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-node rendezvous of `shardrec job`'s ranks: a directory
 * $TMPDIR/shardrec-job.<uid>.<key> (default /tmp) that the ranks of one
 * node share, with <key> naming the job step and the host (jobenv__rdv_key
 * in recorder/job/jobenv.h: nodes may share one TMPDIR).
 *
 *   rank.N  written by local rank N > 0 when it starts: "PID STARTTIME
 *           RANK APP" (STARTTIME from /proc/PID/stat, RANK the global
 *           rank, APP 0), again with the app's pid once it forked it. The
 *           recorder watches PID, which waits for its app: in ranks mode it
 *           records PID's task, which the app inherits.
 *   exit.N  written by rank N when its app has ended: its exit status.
 *   ready   written by local rank 0 once its events are enabled:
 *           "recording" or "unrecorded" (recording could not start).
 *
 * Rank N > 0: register, wait (bounded) for ready, run the app and wait for
 * it, so the app never runs before the events exist and its exit status
 * reaches the recorder's rank map. Rank 0 records; it stops when its own
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

/*
 * Creates or opens the directory for @key in @base (NULL: $TMPDIR, else
 * /tmp). 0 / -errno with one line in @err. `job` also makes one in the
 * node-local directory for the node's shard directory.
 */
int rdv__open(struct rdv *r, const char *base, const char *key, char *err, size_t errlen);
/* One registered rank, as rdv__ranks reads it. */
struct rdv_rank {
	long local_rank, rank;
	int pid;        /* the registered process (it waits for the app) */
	int app_pid;    /* the app it forked, 0 before */
	bool alive;     /* @pid still runs (same start time) */
	int exit_status; /* the app's, -1 while unknown */
};

/*
 * Rank @local_rank > 0 (global rank @rank) announces this process, and
 * again with @app_pid once the app runs (0 before).
 */
int rdv__register(struct rdv *r, long local_rank, long rank, int app_pid);
/* Rank @local_rank's app ended with @status (a shell's: 128+N for signal N). */
int rdv__put_exit(struct rdv *r, long local_rank, int status);
/*
 * The registered ranks, by local rank, in a new array *@out (the caller
 * frees it) of *@nr. 0 / -errno.
 */
int rdv__ranks(struct rdv *r, struct rdv_rank **out, size_t *nr);
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
