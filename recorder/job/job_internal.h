/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the parts of `shardrec job` (job.c: options, ranks, the
 * recorder; job_mode.c: what the node's recorder may record; job_report.c:
 * FILE.json and the summary line) and by nothing else.
 */
#ifndef SHARDREC_JOB_INTERNAL_H
#define SHARDREC_JOB_INTERNAL_H

#include "recorder/job/jobenv.h"
#include "recorder/job/rendezvous.h"
#include "recorder/events/record_opts.h"
#include "recorder/merge/merge.h"

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

/*
 * What the node's recorder records, best first: the fallback ladder of
 * job_mode.c. JOB_TASKS is the user's own -p/-t/-u, left as given.
 */
enum job_mode {
	JOB_SYSTEM_WIDE, /* -a: every task of the node (an exclusive node, or asked) */
	JOB_CGROUP,      /* -a -G: the job's cgroup (or the -G given) */
	JOB_RANKS,       /* the node's registered ranks as tasks, inherited by their apps */
	JOB_TASKS,       /* the user's -p/-t/-u */
	JOB_NONE,        /* nothing could be recorded: the apps ran unrecorded */
};

/* How the output stands, for FILE.json's "status". */
enum job_status {
	JOB_RECORDING,  /* written when recording starts: a killed recorder leaves it */
	JOB_RECORDED,   /* merged into the output */
	JOB_KEPT,       /* not merged (no time left): the shards wait for merge_command */
	JOB_FAILED,     /* recorded, but the merge failed: the shards wait too */
	JOB_UNRECORDED, /* nothing recorded: "reason" says why */
};

struct job {
	struct jobenv env;
	struct rdv rdv;
	struct rdv shards;     /* the default shard directory's private parent */
	char key[480];         /* the rendezvous key: job step and host */
	struct record_opts o;
	bool job_cgroup;       /* --job-cgroup: the cgroup before system-wide */
	unsigned timeout_ms;
	char **argv; /* record's argv, NULL-terminated */
	int argc;
	char output[PATH_MAX];
	char cgroup[PATH_MAX]; /* the job's cgroup v2 path, "" when none */
	char local_dir[PATH_MAX]; /* the default --shard-dir: node-local */
	/* the user's own targets, as given on the command line */
	bool user_cpu_wide, user_tasks;
	const char *user_cgroup;
	enum job_mode mode;
	enum job_status status;
	char reason[768];      /* why this mode (or why unrecorded) */
	char *pids;            /* JOB_RANKS: the -p list of the ranks' processes */
	bool user_quiet;
	bool ready, merged;
	long kill_wait;        /* --kill-wait, -1: slurm.conf's */
	long merge_rate;       /* --merge-rate, MB/s */
	long long end_time;    /* SLURM_JOB_END_TIME (epoch s), 0 when unknown */
	double merge_est_s, time_left_s;
	char shard_dir[PATH_MAX]; /* the shard directory, once recording started */
	char merge_cmd[2 * PATH_MAX + 192];
	unsigned long long ready_ms;
	pid_t app_pid;         /* rank 0's app */
	struct merge_stats ms; /* scalars only: samples_per_event is NULL */
	double loss_metric;    /* lost_time / elapsed of the output, -1 when unknown */
	int stop_signal;
	struct timespec start, end;
};

/* ---- job_mode.c ---- */

/* Names of enum job_mode and enum job_status, as FILE.json writes them. */
const char *job_mode__name(enum job_mode m);
const char *job_status__name(enum job_status s);
/*
 * Decides what rank 0 records (j->mode, j->reason) from the user's
 * options, the node's sharing and the privileges held, and sets j->o's
 * target to match (JOB_RANKS: j->o.pid_list is set by job__rank_pids).
 * Warns when a target the user asked for cannot be had.
 */
void job__choose_mode(struct job *j);
/*
 * The next rung down after recording in j->mode failed to start: true
 * when there is one (j->mode, j->o changed), false for JOB_NONE.
 */
bool job__fall_back(struct job *j, const char *why);
/* Nothing can be recorded: JOB_NONE, @why the reason. */
void job__give_up(struct job *j, const char *why);
/*
 * JOB_RANKS: waits (bounded) until the node's other ranks registered and
 * makes their processes j->o's -p list, the app recorded too. 0 / -ENOMEM.
 */
int job__rank_pids(struct job *j);

/* ---- job_report.c ---- */

/*
 * OUTPUT.json, written whole or not at all: at the start of recording
 * (status "recording") and at the end; @code: the exit status, -1 while
 * unknown. Warns on failure.
 */
void job__write_json(struct job *j, int code);
/* The summary line at the end (with -q too when something went wrong). */
void job__summary(struct job *j, int code);

#endif
