/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parts of `shardrec jobview` (jobview.h): the command (jobview.c),
 * the paths (jobview_paths.c), the node files (jobview_node.c), perf report's counts (jobview_perf.c)
 * and the job-wide tables (jobview_print.c: text, jobview_json.c: JSON).
 */
#ifndef SHARDREC_JOBVIEW_INTERNAL_H
#define SHARDREC_JOBVIEW_INTERNAL_H

#include "recorder/loss/loss.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One rank of a node's JSON "ranks" array; -1 for a number it lacks. */
struct jv_rank {
	long rank, local_rank, pid;
	long exit_status; /* valid when has_exit ("exit_status": null: still running, killed) */
	bool has_exit, recorded;
	char *host;
	uint64_t samples; /* of its pid's threads in the node's first event; valid when has_samples */
	bool has_samples;
};

/* One (shared object, symbol) of a node's first event, as a row of perf report --sort sym. */
struct jv_sym {
	char *dso, *name; /* name without perf's "[k] " */
	char level;	  /* perf's k (kernel), . (user), g, u, H */
	uint64_t period, samples;
	size_t node; /* the node's index, once gathered job-wide */
};

/* Samples of one thread; pid from perf report --tasks (the tid itself when not listed). */
struct jv_tid {
	long tid, pid;
	uint64_t samples;
};

/* What perf report says of one file: its first sampling event only. */
struct jv_profile {
	char *event;	       /* the first event's name */
	unsigned nr_events;    /* sections perf printed, one per sampling event */
	uint64_t total_period; /* the first event's, what perf's Overhead divides by */
	struct jv_sym *syms;   /* by (dso, name), merged over threads */
	size_t nr_syms;
	struct jv_tid *tids; /* by tid */
	size_t nr_tids;
};

/* A node: its JSON (strings NULL, numbers -1 when absent) and what its perf.data holds. */
struct jv_node {
	char *name; /* JSON host, else the file name without .data */
	char *key;  /* the perf.data's canonical path: one node per file */
	char *data_path, *json_path;
	char *job_id, *step, *launcher, *status, *mode, *reason, *output, *shard_dir;
	char *merge_command, *stop_signal;
	long rank, local_ranks, exit_status;
	bool has_exit;
	double merge_seconds, elapsed_seconds; /* < 0: absent */
	uint64_t json_samples, json_lost;      /* an unrecorded node's counts */
	struct jv_rank *ranks;
	size_t nr_ranks;

	bool json_ok, data_ok, profiled; /* read: the JSON, the perf.data, perf report's output */
	char *json_err, *data_err, *perf_err;
	struct loss_total loss; /* samples and lost samples of the perf.data */
	uint64_t bytes;		/* its size */
	struct jv_profile prof;
};

struct jv_count {
	uint64_t period, samples;
};

/* A symbol job-wide; node[i]: its counts in node i (0 when absent). */
struct jv_jobsym {
	const char *dso, *name; /* the first node's strings */
	char level;
	struct jv_count all;
	struct jv_count *node;
	double imbalance;      /* max / mean of the profiled nodes' shares */
	double load_imbalance; /* max / mean of their periods: time in it, for a clock event */
};

struct jobview {
	struct jv_node *nodes; /* sorted by name once read */
	size_t nr_nodes, cap_nodes;
	const char *perf; /* perf binary */
	unsigned top, jobs;
	size_t nr_profiled;	    /* nodes with a symbol profile */
	uint64_t total_period;	    /* of the profiled nodes' first events */
	struct jv_jobsym *syms;	    /* the top symbols, most period first */
	size_t nr_syms;
	struct jv_rank **ranks;	    /* every node's ranks, by rank */
	size_t *rank_node;	    /* the node of ranks[i] */
	size_t nr_ranks;
};

/* ---- jobview_paths.c ---- */

/*
 * Adds the nodes of command-line @path: a .json, a .data (perf.data file or
 * perf --threads directory) or a directory of them (every *.data.json with
 * its .data, every .data without a .json). 0 / -errno with one line in
 * @err (-ENOENT: no such path or no node file in the directory).
 */
int jobview__add_path(struct jobview *jv, const char *path, char *err, size_t errlen);
/* Names @n: its JSON's host, else its file's name without .data. 0 / -ENOMEM. */
int jv_node__name(struct jv_node *n);
/* Whether @path exists (false for NULL). */
bool jv_path__exists(const char *path);

/* ---- jobview_node.c ---- */

/*
 * Reads node @n's JSON (when it has one) with json-c: json_ok, or
 * json_err set. 0 / -ENOMEM.
 */
int jv_node__read_json(struct jv_node *n);
/* Reads @n's perf.data (loss__analyze, size): data_ok, or data_err set. 0 / -ENOMEM. */
int jv_node__read_data(struct jv_node *n);
/* Whether @n's perf.data is to be read: it has one that exists, or should. */
bool jv_node__has_data(const struct jv_node *n);
/* The status shown: "unreadable" for a perf.data that cannot be read, else the JSON's. */
const char *jv_node__status(const struct jv_node *n);
/*
 * The samples shown for @n: its perf.data's, or an unrecorded node's JSON
 * count (0). Whether there is a number to show.
 */
bool jv_node__samples(const struct jv_node *n, uint64_t *v);
/* "exit" when the recorder stopped with its app, the signal ("SIGTERM") that stopped it, "-". */
const char *jv_node__stop(const struct jv_node *n);
/* Frees what @n owns; accepts a zeroed node. */
void jv_node__release(struct jv_node *n);

/* ---- jobview_perf.c ---- */

/*
 * Runs @perf report on @file into @p (zeroed first; release it with
 * jv_profile__release either way): the first event's symbols and threads,
 * and, when @want_pids, each thread's pid (perf report --tasks). 0 /
 * -errno with one line in @err (-ENOENT from the spawn: no such @perf).
 */
int jv_profile__read(const char *perf, const char *file, bool want_pids, struct jv_profile *p,
		     char *err, size_t errlen);
/* Orders symbols by (dso, name, level): perf report --sort sym's rows. */
int jv_sym__cmp(const struct jv_sym *a, const struct jv_sym *b);
/* Samples of process @pid's threads. */
uint64_t jv_profile__pid_samples(const struct jv_profile *p, long pid);
void jv_profile__release(struct jv_profile *p);

/* ---- jobview_print.c ---- */

/*
 * Sorts the nodes by name, and gathers the job-wide symbols (the top
 * jv->top by period) and ranks. 0 / -ENOMEM.
 */
int jobview__gather(struct jobview *jv);
/* The three tables and the notes below them. */
void jobview__fprint_text(FILE *f, const struct jobview *jv);
/* The first profiled node's event (what the shares are of); NULL when none. */
const char *jobview__event(const struct jobview *jv);
/* A node's share of job symbol @s, in percent (0 for an unprofiled node). */
double jv_jobsym__node_pct(const struct jv_jobsym *s, const struct jv_node *n, size_t i);

/* ---- jobview_json.c ---- */

/* All of it as one JSON object, for scripts. */
void jobview__fprint_json(FILE *f, const struct jobview *jv);

/* ---- jobview.c ---- */

/* Frees what @jv holds (nodes, gathered symbols and ranks); @jv itself is the caller's. */
void jobview__release(struct jobview *jv);

#endif
