/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `shardrec jobview [--json] [--top N] [--perf PATH] [-j N] PATH...`: one
 * job-wide view over the per-node outputs of `shardrec job` (each node's
 * perf.data and the FILE.json beside it): which node and which rank is
 * slow, and where, as HPCToolkit, Score-P or TAU show a parallel run.
 *
 * Three tables: the nodes (samples and lost samples read from each
 * perf.data, so they equal `perf report --stats`; the rest from the JSON),
 * the job's hottest symbols with each node's share and the imbalance
 * (max / mean of the node shares), and the ranks with their samples.
 * Symbols come from perf itself (`perf report`, run -j at a time): the
 * shares are perf report's Overhead.
 */
#ifndef SHARDREC_JOBVIEW_H
#define SHARDREC_JOBVIEW_H

/* The jobview usage text. */
const char *jobview__usage(void);

/*
 * Runs `jobview` (argv[0] = "jobview"): the tables on stdout, warnings and
 * errors through log.h. Returns the exit status: 0, 1 when no node could
 * be read (or perf cannot run), 2 for bad usage or a missing path.
 */
int jobview__main(int argc, char **argv);

#endif
