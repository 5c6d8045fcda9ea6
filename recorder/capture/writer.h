/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writer threads: one per plan group. A writer exclusively owns its CPUs'
 * rings and its shard; nothing on its hot path takes a lock. It sleeps in
 * poll() on its rings (woken by the kernel's wakeup watermark) and on an
 * eventfd the session uses to stop it or to ask for a snapshot.
 */
#ifndef SHARDREC_WRITER_H
#define SHARDREC_WRITER_H

#include "numa/numa.h"
#include "recorder/perfdata/shard.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct evlist_mmap; /* recorder/events/evlist.h */

/* What rotation shares with the writers; outlives them. */
struct writer_rotate {
	int notify_fd; /* eventfd bumped after a writer__switch, and at the size mark */
	/*
	 * --switch-output=SIZE: notify at every pass that finds shard_bytes
	 * (counted whenever this is set) at or past it, until the session has
	 * switched and moved it (writer__budget); UINT64_MAX while no switch
	 * is wanted.
	 */
	const atomic_uint_least64_t *size_mark;
};

struct writer_params {
	unsigned idx;
	const struct plan_group *group; /* CPUs and node; outlives the writer */
	struct evlist_mmap *maps;       /* the group's rings and AUX areas; owned from start */
	size_t nr_maps;
	int dirfd;                      /* shard directory */
	clockid_t clockid;              /* the events' clock, for pass watermarks */
	int idle_ms;                    /* poll timeout: an idle pass every this often */
	bool pin;                       /* pin to the group (real topology only) */
	bool pin_node;                  /* with pin: to the group's node, not its CPUs (--affinity=node) */
	/*
	 * SCHED_FIFO priority the thread gives itself, 0 = normal scheduling.
	 * A writer sleeps in poll most of the time; when the workload starves
	 * it, the kernel drops samples, so it may run ahead of the workload.
	 */
	int rt_prio;
	int zlevel;                     /* zstd level, 0 = no compression */
	uint64_t max_size;              /* --max-size in bytes, 0 = none */
	atomic_uint_least64_t *shard_bytes; /* bytes written, shared: --max-size counts header.data too; rotation */
	/*
	 * --overwrite: the rings are backward (flight recorder); a pass is
	 * written only on writer__snapshot and at the stop, with the rings
	 * paused, never on poll wakeups or idle timeouts.
	 */
	bool overwrite;
	/*
	 * Copy-out under pressure, 0 = never: a ring found at least 1/copy_div
	 * full is copied to the writer's buffer and handed back before the
	 * write (writer__copy_div reads it; forward rings without -z only: a
	 * compressed pass hands its rings back before the write anyway).
	 */
	unsigned copy_div;
	const uint8_t *run_id;          /* the recording's (SHARD_RUN_ID_SIZE bytes), for the shard header */
	const struct writer_rotate *rotate; /* rotation (capture/rotate.c), NULL without */
};


/*
 * Shard writes counted by length (writer_stats.writes_over): at or over
 * 1, 10 and 50 ms. A ring of the default size fills in about 100 ms at
 * -F max -g here (5 MB/s a CPU), so the longer ones are the writes a ring
 * may not outlast; -v prints them.
 */
#define WRITER_SLOW_N 3
extern const uint64_t writer_slow_ns[WRITER_SLOW_N];

struct writer_stats {
	uint64_t bytes;  /* ring bytes taken */
	uint64_t zbytes; /* bytes written after compression (= bytes without -z) */
	uint64_t passes; /* passes written */
	uint64_t polls;  /* poll wakeups */
	uint64_t write_ns;     /* time in shard writes (recording clock) */
	uint64_t write_max_ns; /* the longest shard write ... */
	uint64_t write_max_at; /* ... and when it began (recording clock) */
	uint64_t writes_over[WRITER_SLOW_N]; /* writes at least writer_slow_ns[i] long */
	uint64_t dumps;  /* --overwrite: passes that dumped the backward rings */
	uint64_t copied; /* ring bytes copied out and handed back before their write */
	uint64_t unwritten; /* copied-out bytes a failed write lost */
	bool size_limited; /* stopped by --max-size: the pass that would cross it was not written */
	int err;         /* first error (-errno), 0 if none */
	uint64_t err_time; /* recording clock when it failed */
	uint64_t start_time; /* recording clock when the thread started */
	int sched_err;   /* -errno if rt_prio could not be set (it then runs normally) */
	int node_buf;    /* node its buffers actually live on, -errno if unknown */
	/*
	 * Node of its rings' first data pages (the kernel allocates them on
	 * each CPU's node): the node, -EXDEV when they differ (see
	 * ring_nodes), else -errno of the failed query.
	 */
	int node_ring;
	uint64_t ring_nodes; /* bit n: a ring's first data page is on node n (n < 64) */
	int nr_allowed; /* CPUs the thread may run on after pinning, -errno if unknown */
};

struct writer;

/*
 * Whether a writer would get SCHED_FIFO @prio (0: never): tried on the
 * calling thread, as writer threads try it (CAP_SYS_NICE raised around the
 * call, or RLIMIT_RTPRIO), and undone at once.
 */
bool writer__can_realtime(int prio);
/*
 * The copy-out point, writer_params.copy_div: 0 (never), or N from 2 to
 * 64 from $SHARDREC_COPY_DIV, for experiments only (bench/lib.sh's
 * shardrec-copyN). 0 / -EINVAL with one line in @err.
 */
int writer__copy_div(unsigned *div, char *err, size_t errlen);
/* Creates the shard file and the stop eventfd. NULL with errno set on failure. */
struct writer *writer__new(const struct writer_params *p);
/*
 * Starts the thread and waits until it has pinned and scheduled itself
 * and dropped its capabilities (privs__thread_drop). 0 / -errno.
 */
int writer__start(struct writer *w);
/* Asks the thread to drain its rings once more and exit. Safe from any thread. */
void writer__stop(struct writer *w);
/*
 * Asks for a snapshot on the next pass: a dump of the backward rings
 * (--overwrite) and of every AUX area in snapshot mode (-S). Returns true
 * if the writer has anything to snapshot. Safe from any thread.
 */
bool writer__snapshot(struct writer *w);
/*
 * Asks for a snapshot of the AUX areas in snapshot mode only, not of the
 * backward rings, which the stop dumps anyway: -Se before writer__stop.
 */
void writer__snapshot_aux(struct writer *w);
/*
 * Asks the thread to end its shard at its next pass boundary and go on in
 * a new one in @dirfd, with @run_id (SHARD_RUN_ID_SIZE bytes, copied): every
 * record read before goes into the old shard, every one after into the new.
 * With --overwrite that pass dumps the backward rings. One switch at a
 * time: wait for writer__switched before the next. Safe from any thread.
 */
void writer__switch(struct writer *w, int dirfd, const uint8_t *run_id);
/*
 * True once the last writer__switch took effect (p.rotate->notify_fd was
 * bumped then), or the thread has ended and never will.
 */
bool writer__switched(const struct writer *w);
/* Waits for the thread; returns its first error (0 if none). */
int writer__join(struct writer *w);
const struct writer_stats *writer__stats(const struct writer *w);
/*
 * The writer's shard, for a reader of the file while it grows
 * (shard__committed only: everything else belongs to the writer thread).
 */
struct shard *writer__shard(struct writer *w);
/* Closes the shard and eventfd, frees; the rings are not unmapped here. Accepts NULL. */
void writer__delete(struct writer *w);

#endif
