/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF side band, perf record's side-band thread (evlist__start_sb_thread
 * with evlist__add_bpf_sb_event): a dummy event with attr.bpf_event on
 * every CPU, its own small rings, and a thread of its own that reads each
 * program loaded while recording (perf_env__add_bpf_info) into the
 * recording's synth_bpf_env, for the header's BPF_PROG_INFO and BPF_BTF.
 * The program must be read while it exists: a reader of the shards after
 * the recording would find most of them gone.
 */
#ifndef SHARDREC_SIDEBAND_H
#define SHARDREC_SIDEBAND_H

#include "recorder/header/synth.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

struct ring;

struct sideband {
	size_t nr;
	int *fds;
	struct ring *rings;
	int stop_fd;
	pthread_t thread;
	bool started;
	struct synth_bpf_env *env; /* shared: taken under @lock */
	pthread_mutex_t *lock;
	uint64_t loads; /* PROG_LOAD records read (the thread's; final once stopped) */
};

/*
 * Opens the events on @cpus and maps their rings, with the privileges
 * raised as for the recording's events. 0, or -errno with nothing left
 * open (perf then records without it: "BPF programs starting from now on
 * won't be annotatable").
 */
int sideband__open(struct sideband *sb, const int *cpus, size_t nr_cpus);
/* Starts the thread, which adds to @env under @lock. 0 / -errno. */
int sideband__start(struct sideband *sb, struct synth_bpf_env *env, pthread_mutex_t *lock);
/* Reads what is left and stops the thread; @sb keeps its events until __close. */
void sideband__stop(struct sideband *sb);
/* Stops it if it runs, closes everything. Accepts a zeroed @sb. */
void sideband__close(struct sideband *sb);

#endif
