/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `shardrec job [job options] [record options] -- app args`: profiling of
 * batch jobs, one line in the job script (`srun shardrec job -- ./app`),
 * one perf.data per node.
 *
 * Every rank runs it. Local rank 0 of each node (recorder/job/jobenv.h says how
 * it is found) records the node system-wide, or only the job's cgroup with
 * --job-cgroup, and runs its own app as the recorded command, so its exit
 * status is the app's. Every other rank registers in the node's rendezvous
 * directory, waits until the recorder says its events are enabled, and
 * execs the app (recorder/job/rendezvous.h). The recorder stops when its app
 * has exited and the registered ranks' processes are gone, or on
 * SIGTERM/SIGINT/SIGHUP (walltime, scancel): it then stops its app, merges
 * at once and exits. After a SIGKILL, `shardrec merge --recover DIR` makes
 * a perf.data of what the writers had flushed.
 *
 * Outputs: -o takes %j job id, %s step, %h host, %r rank, %p pid (default
 * perf.%j.%h.data under Slurm, perf.%h.data under an MPI launcher alone);
 * next to it OUTPUT.json, a summary of the node's run (samples, losses,
 * loss metric, MB, merge seconds, exit status, times), and one summary
 * line on stderr.
 *
 * If recording cannot start, rank 0 says so, releases the other ranks and
 * runs its app unrecorded: a profiler must not cost the job its work.
 *
 * Outside a batch system it is `shardrec record` (plus % names).
 */
#ifndef SHARDREC_JOB_H
#define SHARDREC_JOB_H

/* The job usage text. */
const char *job__usage(void);

/*
 * Runs `job` (argv[0] = "job"). Returns the process exit status: the app's,
 * 2 for bad options, 127 when the app cannot run; other ranks exec the app
 * and do not return. @full_argc/@full_argv: shardrec's whole command line.
 */
int job__main(int argc, char **argv, int full_argc, char **full_argv);

#endif
