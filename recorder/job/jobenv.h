/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where `shardrec job` runs: the batch system's and the MPI launcher's
 * environment, read once (recorder/job/job.c decides what to do with it).
 *
 * The local rank decides who records a node: the first variable found of
 *   OMPI_COMM_WORLD_LOCAL_RANK (Open MPI's mpirun, also under Slurm)
 *   MPI_LOCALRANKID            (MPICH's Hydra, Intel MPI)
 *   PALS_LOCAL_RANKID          (HPE PALS)
 *   SLURM_LOCALID              (srun, with or without --mpi=pmix)
 * The MPI launchers come first: mpirun under Slurm starts its daemons with
 * srun, one task per node, so SLURM_LOCALID is 0 in every rank there.
 * PMIx exports only the global rank (PMIX_RANK): it names %r, the local
 * rank comes from the launcher's variable above.
 *
 * Nothing here prints; only jobenv__read does I/O (gethostname).
 */
#ifndef SHARDREC_JOBENV_H
#define SHARDREC_JOBENV_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct jobenv {
	bool batch;          /* a batch system or an MPI launcher started us */
	const char *launcher; /* "slurm", "openmpi", "mpich", "pals" or "none" */
	char job_id[64];     /* SLURM_JOB_ID, else "" */
	char step[64];       /* SLURM_STEP_ID, "batch" in a batch script, else "" */
	char host[256];      /* SLURMD_NODENAME, else the short host name */
	long rank;           /* global rank, 0 when unknown */
	long local_rank;     /* rank on this node, 0 when unknown */
	long local_size;     /* ranks on this node, 0 when unknown */
	long nodes;          /* nodes of the job step (Slurm's), 0 when unknown */
	long cpus_on_node;   /* SLURM_CPUS_ON_NODE: the job's CPUs here, 0 when unknown */
	char key[192];       /* names the job step; "" when no variable gives one */
};

/* Looks up an environment variable: getenv, or a table in the unit tests. */
typedef const char *(*jobenv_get_fn)(const char *name, void *arg);

/* Fills @e from @get. 0 / -EINVAL when a rank variable is not a number. */
int jobenv__read(struct jobenv *e, jobenv_get_fn get, void *arg);

/*
 * The name of this node's rendezvous (recorder/job/rendezvous.h): @e's key,
 * or without one "ppid<@ppid>.<@ppid_start>" (the ranks' common parent,
 * slurmstepd or orted), then ".<host>". The host keeps nodes apart that
 * share one TMPDIR: a shared file system, or several nodes on one machine.
 * 0 / -ENAMETOOLONG.
 */
int jobenv__rdv_key(const struct jobenv *e, int ppid, unsigned long long ppid_start, char *out,
		    size_t len);

/*
 * Tasks of node @nodeid in a Slurm tasks-per-node list ("2(x3),1": nodes
 * 0-2 run 2, node 3 runs 1). 0 when @spec is malformed or too short.
 */
long jobenv__tasks_on_node(const char *spec, long nodeid);

/*
 * Whether the node is the job's alone: Slurm gave it every one of the
 * node's @online CPUs (--exclusive, or a whole-node request), so no other
 * job's task can run there. Unknown (no SLURM_CPUS_ON_NODE, another
 * launcher) counts as shared: the rule errs towards other users' privacy.
 */
bool jobenv__exclusive(const struct jobenv *e, long online);

/*
 * The node-local directory for shards: $SLURM_TMPDIR (sites that give
 * each job its own), else $TMPDIR, else /tmp.
 */
const char *jobenv__local_dir(jobenv_get_fn get, void *arg);

/*
 * Expands an output name: %j job id, %s step, %h host, %r rank, %p @pid,
 * %% a '%'. Outside a job, %j and %s become "nojob" and "nostep".
 * 0, -EINVAL for another %x (one line in @err), -ENAMETOOLONG.
 */
int jobenv__expand(const struct jobenv *e, const char *pattern, pid_t pid, char *out, size_t len,
		   char *err, size_t errlen);

/*
 * Whether output name @pattern differs between nodes (it holds %h, %r or
 * %p): if not, the nodes of a step collide on a shared file system.
 */
bool jobenv__per_node(const char *pattern);

/*
 * The job's cgroup v2 path (below the cgroup2 mount, no leading '/') from
 * the text of /proc/self/cgroup: the "0::" line cut after "job_<@job_id>".
 * 0, or -ENOENT when the line or the job's component is absent (Slurm
 * without its cgroup plugins).
 */
int jobenv__job_cgroup(const char *proc_cgroup, const char *job_id, char *out, size_t len);

/*
 * KillWait, the seconds Slurm leaves between SIGTERM and SIGKILL, from the
 * text of a slurm.conf (keys are case-insensitive, several may share a
 * line, '#' starts a comment). -1 when it is not set there.
 */
long jobenv__kill_wait(const char *slurm_conf);

#endif
