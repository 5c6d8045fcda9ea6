/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the session*.c parts: struct session and the steps more than
 * one part calls. session_rotate.c is the rotation part (--switch-output).
 */
#ifndef SHARDREC_SESSION_INTERNAL_H
#define SHARDREC_SESSION_INTERNAL_H

#include "numa/numa.h"
#include "recorder/capture/control.h"
#include "recorder/capture/workload.h"
#include "recorder/perfdata/recbuf.h"
#include "recorder/perfdata/shard_format.h"
#include "recorder/perfdata/shard_tail.h"
/* Heavy (rings, AUX, writers, merge), but struct evlist and struct pipe_out are members. */
#include "recorder/capture/pipe_out.h"
#include "recorder/capture/sideband.h"
#include "recorder/events/evlist.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct merge_stats;
struct record_opts;
struct rotate;
struct topo;
struct writer;
struct writer_rotate;

struct session {
	struct record_opts *o;
	atomic_uint_least64_t shard_bytes; /* --max-size: header.data, then what the writers wrote */
	struct evlist evl;
	struct topo *topo;
	struct plan plan;
	struct writer **writers;
	size_t nr_writers;
	bool writers_rt;  /* writers can take their SCHED_FIFO priority (session__plan) */
	unsigned copy_div; /* writer_params.copy_div, $SHARDREC_COPY_DIV (session__plan) */
	struct evlist_mmap **group_maps; /* per writer: its rings and AUX areas, in plan order */
	struct workload wl;
	bool have_workload;
	bool workload_running; /* exec'd: rotated files and a flight recording's end describe it */
	char dir[PATH_MAX];
	int dirfd;
	int sigfd;
	int stop_signal;
	unsigned long long stop_ms; /* clock__now_ms() at stop_signal */
	struct control ctl;   /* --control, fds -1 without it */
	unsigned snapshots;   /* snapshot requests served (SIGUSR2, --control) */
	uint64_t lost_samples;
	uint64_t *lost_base;  /* rotation: lost counts already in an earlier file, else NULL */
	uint8_t run_id[SHARD_RUN_ID_SIZE]; /* random: header.data, shards and tails carry it */
	struct shard_tail tail; /* tail.raw, reserved at the start; fd -1 before */
	struct rotate *rot;   /* --switch-output, --timestamp-filename; NULL without */
	struct recbuf kernel_maps; /* rotation: the first file's kernel and module maps */
	bool synth_warned;    /* rotation: the task synthesis' warnings are said */
	struct pipe_out pipe;   /* -o -: the stream; fd -1 otherwise */
	/*
	 * The BPF programs of the header (BPF_PROG_INFO, BPF_BTF): the first
	 * header's synthesis, then what the side band reads (under bpf_lock)
	 * while it runs (have_sb); the merges take them from here.
	 */
	struct synth_bpf_env bpf_env;
	bool bpf_env_set;
	pthread_mutex_t bpf_lock;
	struct sideband sb;
	bool have_sb;
	bool bad_usage;       /* setup failed on the command line's meaning: exit 2 */
	char output[PATH_MAX]; /* -o as perf would write it (session__output) */
	char err[1024];
};

int session__mkdir(struct session *s);
/*
 * merge_opts.features while the side band runs (have_sb): the header's BPF
 * sections as the recording knows them at the merge (@arg: the session).
 */
int session__bpf_features(struct pfile_featset *fs, void *arg);
/*
 * -o as perf record treats it, before anything is opened: a link to
 * nothing is written through (not by a privileged install: privs_open.h),
 * a directory is moved to FILE.old. 0 / -errno with s->err.
 */
int session__output(struct session *s);
/* The directory -o's file is in ("./" for a bare name, "/" for "/f"), into @dir. */
void session__output_dir(const struct session *s, char *dir, size_t len);
int session__write_header(struct session *s);
/* Rotation: the next generation's stand-in, then its real header (session_header.c). */
int session__write_header_standin(struct session *s, int dirfd, const char *dir,
				  const uint8_t *run_id);
int session__replace_header(struct session *s);
int session__reserve_tail(struct session *s);
int session__write_tail(struct session *s);
int session__write_tail_synth(struct session *s);
int session__signals(struct session *s);
void session__wait(struct session *s);
int session__go(struct session *s);
void session__print_summary(struct session *s, const struct merge_stats *ms, const char *output);

/*
 * session_rotate.c, all no-ops without s->rot. Setup, after session__mkdir:
 * the shard directory becomes the first generation's, FILE.shards/0, and
 * --switch-output-event's events are opened. 0 / -errno with s->err.
 */
int session__rotate_setup(struct session *s);
/* What the writers share with rotation (writer_params.rotate), NULL without. */
const struct writer_rotate *session__rotate_writers(const struct session *s);
/* Recording has started: the timer runs, the switch events are enabled. */
void session__rotate_start(struct session *s);
/* An fd for the run loop's poll, readable when session__rotate_poll has work; -1 without. */
int session__rotate_fd(const struct session *s);
/* Switches to a new file if the timer, the size mark or a switch event says so. */
void session__rotate_poll(struct session *s);
/* SIGUSR2: true if it switched files (signal mode), false if it is the caller's. */
bool session__rotate_signal(struct session *s);
/*
 * The end, after the last generation's tails: every file merged, the last
 * one here, and the summary. 0, or -1 when a merge failed (it said why).
 */
int session__rotate_finish(struct session *s);
void session__rotate_release(struct session *s);

#endif
