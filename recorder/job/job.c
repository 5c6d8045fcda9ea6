// SPDX-License-Identifier: GPL-2.0
/*
 * `shardrec job`: options, the ranks, and the node's recorder with its
 * fallback ladder (job_mode.c) and its report (job_report.c).
 */
#include "recorder/job/job.h"
#include "recorder/job/job_internal.h"
#include "recorder/capture/session.h"
#include "recorder/capture/workload.h"
#include "recorder/cli/cli_record.h"
#include "recorder/util/clock.h"
#include "recorder/util/fs.h"
#include "recorder/util/log.h"
#include "recorder/util/privs.h"
#include "recorder/util/shell.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#define READY_TIMEOUT_S 30 /* Slurm's default KillWait: a rank never waits longer */
#define KILL_WAIT_S 30     /* Slurm's default, when slurm.conf does not say */
/*
 * The merge rate assumed when deciding whether a merge fits the time left:
 * conservative (bench/: 400 to 700 MB/s, fsync included, on a shared
 * 2-CPU VM), --merge-rate for a known machine.
 */
#define MERGE_RATE_MB 100
#define MERGE_MARGIN_S 1.0 /* what the summary and the app's stop take after it */
#define RANKS_POLL_MS 200  /* rank 0 unrecorded: how often it looks at the other ranks */

static const char usage[] =
	"Usage: srun shardrec job [--job-cgroup] [--ready-timeout SECS] [record options]\n"
	"                         -- app [args...]\n"
	"\n"
	"Profile a batch job: one perf.data per node. In every rank of a job step\n"
	"(srun, mpirun); local rank 0 of each node records and runs its app, the\n"
	"other ranks run their apps once recording is on. What is recorded, best\n"
	"first: the whole node when it is the job's alone (or -a) and allowed;\n"
	"else the job's cgroup where CPU-wide events are allowed; else the node's\n"
	"ranks themselves (what an ordinary user may record). Nothing recordable:\n"
	"the apps run unrecorded and FILE.json says why. Recording stops when the\n"
	"node's ranks have exited, or on SIGTERM (walltime, scancel). Outside a\n"
	"batch system: like shardrec record.\n"
	"\n"
	"  --job-cgroup          the job's cgroup even on a node that is the job's\n"
	"                        alone (Slurm with its cgroup plugins, cgroup v2)\n"
	"  --ready-timeout SECS  how long ranks wait for the recorder (default 30)\n"
	"  --kill-wait SECS      seconds from SIGTERM to SIGKILL (default: KillWait\n"
	"                        of slurm.conf, else 30)\n"
	"  --merge-rate MB       merge speed assumed, MB/s (default 100): a merge\n"
	"                        the time left cannot cover is not started, the\n"
	"                        shards are kept and the summary says how to merge\n"
	"  -o FILE               %j job id, %s step, %h host, %r rank, %p pid\n"
	"                        (default perf.%j.%h.data under Slurm); a summary\n"
	"                        goes to FILE.json\n"
	"  --shard-dir DIR       where the shards are written (default node-local:\n"
	"                        $SLURM_TMPDIR, else $TMPDIR, else /tmp); only the\n"
	"                        merged FILE goes to -o's file system\n"
	"Record options: see shardrec record --help. After a SIGKILL: FILE.json's\n"
	"merge_command (shardrec merge --recover DIR -o FILE).\n";

const char *job__usage(void)
{
	return usage;
}

/*
 * getenv: a shardrec installed with capabilities starts in glibc's secure
 * mode, which drops TMPDIR from the environment (as for every privileged
 * program): there the node-local default is $SLURM_TMPDIR or /tmp, and
 * --shard-dir says otherwise.
 */
static const char *env_get(const char *name, void *arg)
{
	(void)arg;
	return getenv(name);
}

/* ---- options ---- */

/*
 * A job option NAME SECS or NAME=SECS at argv[*i], a number 0..@max:
 * 0 not this option, 1 taken (*i past it), -EINVAL with one line.
 */
static int job__num_opt(int argc, char **argv, int *i, const char *name, long max, long *out)
{
	size_t n = strlen(name);
	const char *v;
	char *end;
	long x;

	if (strncmp(argv[*i], name, n) || (argv[*i][n] && argv[*i][n] != '='))
		return 0;
	v = argv[*i][n] == '=' ? argv[*i] + n + 1 : (*i + 1 < argc ? argv[++*i] : NULL);
	x = v && *v ? strtol(v, &end, 10) : -1;
	if (!v || !*v || *end || x < 0 || x > max) {
		pr_err("job: %s takes a number (0..%ld)", name, max);
		return -EINVAL;
	}
	*out = x;
	return 1;
}

/*
 * Takes job's own options, which come first, out of @argv: the app's
 * arguments are never looked at. 0 / -EINVAL.
 */
static int job__own_opts(struct job *j, int *argc, char **argv)
{
	long secs = j->timeout_ms / 1000;
	int i, n = 1, r = 0;

	for (i = 1; i < *argc && r >= 0; i++) {
		if (!strcmp(argv[i], "--job-cgroup")) {
			j->job_cgroup = true;
			continue;
		}
		r = job__num_opt(*argc, argv, &i, "--ready-timeout", 3600, &secs);
		if (!r)
			r = job__num_opt(*argc, argv, &i, "--kill-wait", 3600, &j->kill_wait);
		if (!r)
			r = job__num_opt(*argc, argv, &i, "--merge-rate", 1000000, &j->merge_rate);
		if (!r)
			break;
	}
	if (r < 0)
		return -EINVAL;
	if (!j->merge_rate) {
		pr_err("job: --merge-rate takes a number (1..1000000)");
		return -EINVAL;
	}
	j->timeout_ms = secs * 1000;
	while (i < *argc)
		argv[n++] = argv[i++];
	*argc = n;
	return 0;
}

/* The job's cgroup v2 path, from /proc/self/cgroup, into j->cgroup ("" when none). */
static void job__find_cgroup(struct job *j)
{
	char *text = NULL;

	j->cgroup[0] = '\0';
	if (!j->env.job_id[0] || filename__read_str("/proc/self/cgroup", &text))
		return;
	if (jobenv__job_cgroup(text, j->env.job_id, j->cgroup, sizeof(j->cgroup)))
		j->cgroup[0] = '\0';
	free(text);
}

/*
 * record's argv: under a batch system "-o DEFAULT --shard-dir LOCAL" come
 * first, so the user's -o or --shard-dir given later still win. The
 * target is job__choose_mode's.
 */
static int job__record_argv(struct job *j, int argc, char **argv)
{
	const char *dflt = j->env.job_id[0] ? "perf.%j.%h.data" : "perf.%h.data";
	int n = 0;

	j->argv = calloc(argc + 6, sizeof(*j->argv));
	if (!j->argv)
		return -ENOMEM;
	j->argv[n++] = "record";
	if (j->env.batch) {
		snprintf(j->local_dir, sizeof(j->local_dir), "%s", jobenv__local_dir(env_get, NULL));
		j->argv[n++] = "-o";
		j->argv[n++] = (char *)dflt;
		j->argv[n++] = "--shard-dir";
		j->argv[n++] = j->local_dir;
	}
	for (int i = 1; i < argc; i++)
		j->argv[n++] = argv[i];
	j->argc = n;
	return 0;
}

/* The targets the user gave, before job__choose_mode sets its own. */
static void job__user_targets(struct job *j)
{
	j->user_cpu_wide = record_opts__cpu_wide(&j->o);
	j->user_tasks = j->o.pid_list || j->o.tid_list || j->o.uid;
	j->user_cgroup = j->o.cgroup;
}

static int job__parse(struct job *j, int argc, char **argv)
{
	char err[512];
	bool stream;
	int ret;

	ret = jobenv__read(&j->env, env_get, NULL);
	if (ret) {
		pr_err("job: a local rank variable is not a number");
		return ret;
	}
	j->end_time = atoll(env_get("SLURM_JOB_END_TIME", NULL) ?: "0");
	ret = job__own_opts(j, &argc, argv);
	if (!ret && j->env.batch && j->env.local_rank == 0)
		job__find_cgroup(j);
	if (!ret)
		ret = job__record_argv(j, argc, argv);
	if (ret)
		return ret;
	ret = record_opts__parse_args(&j->o, j->argc, j->argv, err, sizeof(err));
	if (!ret) {
		job__user_targets(j);
		/* -G alone is job's cgroup mode: checked as record checks -a -G. */
		j->o.system_wide |= j->env.batch && j->o.cgroup && !j->user_cpu_wide;
		ret = record_opts__check(&j->o, err, sizeof(err));
	}
	if (ret == 1)
		snprintf(err, sizeof(err), "see shardrec job --help");
	if (!ret && j->env.batch && !j->o.argc)
		snprintf(err, sizeof(err), "give the app to run after -- (see shardrec job --help)");
	/* The job's report and loss analysis are of one output file. */
	if (!ret && j->o.timestamp_filename) {
		snprintf(err, sizeof(err), "--switch-output and --timestamp-filename are not supported: "
			 "a job's report and loss analysis are of one output file");
		ret = -EINVAL;
	}
	/* Each node's loss summary and .json read the recording back: a stream cannot be. */
	stream = !ret && !strcmp(j->o.output, "-");
	if (stream)
		snprintf(err, sizeof(err), "-o -: a job writes a perf.data and its .json per node, "
			 "not a stream");
	if (ret || (j->env.batch && !j->o.argc) || stream) {
		pr_err("job: %s", err);
		return -EINVAL;
	}
	if (!j->env.local_rank && j->env.nodes > 1 && !jobenv__per_node(j->o.output))
		pr_warn("job: -o %s is one name for all %ld nodes: on a shared file system they "
			"collide and only one records (add %%h)", j->o.output, j->env.nodes);
	ret = jobenv__expand(&j->env, j->o.output, getpid(), j->output, sizeof(j->output), err,
			     sizeof(err));
	if (ret)
		pr_err("job: %s", err);
	j->o.output = j->output;
	return ret;
}

/* ---- ranks ---- */

static int job__rendezvous(struct job *j)
{
	char err[PATH_MAX + 128];
	int ret;

	ret = jobenv__rdv_key(&j->env, getppid(), rdv__proc_start(getppid()), j->key,
			      sizeof(j->key));
	if (ret)
		snprintf(err, sizeof(err), "rendezvous name too long");
	else
		ret = rdv__open(&j->rdv, NULL, j->key, err, sizeof(err));
	if (ret)
		pr_warn("job: rendezvous: %s: local ranks run without waiting for each other",
			err);
	return ret;
}

/*
 * The default --shard-dir is node-local, but a TMPDIR may still be shared
 * (several nodes on one file system, or one name for every node's -o):
 * the node's shards go in a private directory of its own, named after the
 * job step and the host as the rendezvous is. 0 / -errno.
 */
static int job__shard_parent(struct job *j)
{
	char key[sizeof(j->key) + 8], err[PATH_MAX + 128];
	int ret;

	if (j->o.shard_dir != j->local_dir || !j->key[0])
		return 0; /* the user's --shard-dir, or no key: as given */
	snprintf(key, sizeof(key), "%s.shards", j->key);
	ret = rdv__open(&j->shards, j->local_dir, key, err, sizeof(err));
	if (ret)
		pr_err("job: shard directory: %s", err);
	else
		j->o.shard_dir = j->shards.dir;
	return ret;
}

/*
 * Runs the app as a child and waits for it, passing on the signals a job
 * gets (scancel, walltime, a user's kill) so that it sees them as if it
 * ran alone; its exit status is returned (128+N when signal N ended it,
 * 127 when it cannot run), and said in the rendezvous (rank.N, exit.N).
 */
static int job__run_app(struct job *j)
{
	static const int fwd[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM};
	struct signalfd_siginfo si;
	struct workload w;
	sigset_t set;
	int fd, ret;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(fwd) / sizeof(fwd[0]); i++)
		sigaddset(&set, fwd[i]);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	fd = signalfd(-1, &set, SFD_CLOEXEC);
	/* The app must not outlive its rank: Slurm knows this process as the task. */
	ret = fd < 0 ? -errno : workload__prepare(&w, j->o.argv, SIGKILL);
	if (!ret && j->env.local_rank && j->rdv.dirfd >= 0)
		rdv__register(&j->rdv, j->env.local_rank, j->env.rank, w.pid);
	j->app_pid = ret ? 0 : w.pid;
	if (!ret && (ret = workload__start(&w)))
		workload__reap(&w);
	if (ret) {
		pr_err("job: cannot run '%s': %s", j->o.argv[0], strerror(-ret));
		if (fd >= 0)
			close(fd);
		return 127;
	}
	while (!workload__reap(&w) && read(fd, &si, sizeof(si)) == sizeof(si))
		if (si.ssi_signo != SIGCHLD)
			kill(w.pid, si.ssi_signo);
	close(fd);
	ret = workload__exit_code(&w);
	if (j->env.local_rank && j->rdv.dirfd >= 0)
		rdv__put_exit(&j->rdv, j->env.local_rank, ret);
	return ret;
}

static int job__run_rank(struct job *j)
{
	unsigned long long t0 = clock__now_ms();
	int ret;

	if (!job__rendezvous(j)) {
		ret = rdv__register(&j->rdv, j->env.local_rank, j->env.rank, 0);
		if (ret)
			pr_warn("job: rendezvous %s: %s", j->rdv.dir, strerror(-ret));
		ret = ret ? ret : rdv__wait_ready(&j->rdv, j->timeout_ms);
		if (ret == -ETIMEDOUT)
			pr_warn("job: rank %ld: no recorder on %s after %llu ms: running unrecorded",
				j->env.rank, j->env.host, clock__now_ms() - t0);
	}
	ret = job__run_app(j);
	rdv__close(&j->rdv);
	return ret;
}

/* ---- the recorder's hooks ---- */

/* The command that makes the output from the shards, as FILE.json and the summary give it. */
static void job__set_merge_cmd(struct job *j, const char *shard_dir)
{
	char dir[PATH_MAX + 64], out[PATH_MAX + 64];

	snprintf(j->shard_dir, sizeof(j->shard_dir), "%s", shard_dir);
	shell__quote(shard_dir, dir, sizeof(dir));
	shell__quote(j->output, out, sizeof(out));
	snprintf(j->merge_cmd, sizeof(j->merge_cmd), "shardrec merge --recover %s -o %s", dir, out);
}

static void job__ready(void *arg, const char *shard_dir, int workload)
{
	struct job *j = arg;
	int ret;

	j->ready = true;
	j->ready_ms = clock__now_ms();
	j->app_pid = workload;
	j->status = JOB_RECORDING;
	job__set_merge_cmd(j, shard_dir);
	/* Before the ranks run: a recorder killed from now on leaves its recovery command. */
	job__write_json(j, -1);
	if (j->rdv.dirfd < 0)
		return;
	ret = rdv__set_ready(&j->rdv, true);
	if (ret)
		pr_warn("job: %s/ready: %s: the other ranks start after %u s", j->rdv.dir,
			strerror(-ret), j->timeout_ms / 1000);
}

static bool job__done(void *arg)
{
	struct job *j = arg;
	unsigned reg, alive;

	if (j->rdv.dirfd < 0 || rdv__scan(&j->rdv, &reg, &alive))
		return true;
	if (alive)
		return false;
	if (reg + 1 >= j->env.local_size)
		return true;
	if (clock__now_ms() < j->ready_ms + j->timeout_ms)
		return false;
	pr_warn("job: %u of %ld local ranks registered within %u s: stopping without the others",
		reg + 1, j->env.local_size, j->timeout_ms / 1000);
	return true;
}

/* KillWait: --kill-wait, else slurm.conf's ($SLURM_CONF, the usual and the configless place). */
static long job__kill_wait(const struct job *j)
{
	const char *paths[] = {getenv("SLURM_CONF"), "/etc/slurm/slurm.conf",
			       "/run/slurm/conf/slurm.conf"};
	long kw = -1;

	if (j->kill_wait >= 0)
		return j->kill_wait;
	for (size_t i = 0; kw < 0 && i < sizeof(paths) / sizeof(paths[0]); i++) {
		char *text = NULL;

		if (paths[i] && !filename__read_str(paths[i], &text))
			kw = jobenv__kill_wait(text);
		free(text);
	}
	return kw < 0 ? KILL_WAIT_S : kw;
}

/*
 * Seconds before Slurm's SIGKILL: KillWait after the stop signal, or after
 * the job's end time (SLURM_JOB_END_TIME) when the app ended on its own.
 * INFINITY when no deadline is known.
 */
static double job__time_left(const struct job *j, const struct record_merge_plan *p)
{
	long kw = job__kill_wait(j);

	if (p->stop_signal)
		return kw - (clock__now_ms() - p->stop_ms) / 1e3;
	if (!j->end_time)
		return INFINITY;
	return (double)(j->end_time - time(NULL)) + kw;
}

/*
 * A merge that the time left cannot cover would be killed half-way and its
 * time lost: the shards are kept whole instead, for the command the
 * summary gives.
 */
static bool job__may_merge(void *arg, const struct record_merge_plan *p)
{
	struct job *j = arg;

	j->merge_est_s = p->shard_bytes / (j->merge_rate * 1e6);
	j->time_left_s = job__time_left(j, p);
	if (j->merge_est_s + MERGE_MARGIN_S <= j->time_left_s)
		return true;
	j->time_left_s = j->time_left_s > 0 ? j->time_left_s : 0;
	j->status = JOB_KEPT;
	return false;
}

static void job__merged(void *arg, const struct merge_stats *ms, int stop_signal)
{
	struct job *j = arg;

	j->ms = *ms;
	j->ms.samples_per_event = NULL;
	j->ms.nr_events = 0;
	j->merged = true;
	j->status = JOB_RECORDED;
	j->stop_signal = stop_signal;
}

/* ---- the recorder ---- */

/* Rank 0 with nothing recorded: waits for the node's other ranks (their exit statuses). */
static void job__wait_ranks(struct job *j)
{
	struct timespec nap = {0, RANKS_POLL_MS * 1000000L};
	unsigned reg, alive;

	while (j->rdv.dirfd >= 0 && !rdv__scan(&j->rdv, &reg, &alive) && alive)
		nanosleep(&nap, NULL);
}

/* Nothing could be recorded: the apps run all the same, and FILE.json says why. */
static int job__unrecorded(struct job *j)
{
	int code;

	j->status = JOB_UNRECORDED;
	if (j->rdv.dirfd >= 0)
		rdv__set_ready(&j->rdv, false);
	code = job__run_app(j);
	job__wait_ranks(j);
	job__write_json(j, code);
	job__summary(j, code);
	return code;
}

/* One try at the current mode: the session's exit status; j->ready says whether it started. */
static int job__session(struct job *j)
{
	if (j->mode == JOB_RANKS && job__rank_pids(j))
		return 1;
	return session__record(&j->o);
}

static int job__record(struct job *j)
{
	const struct record_hooks hooks = {
		.ready = job__ready, .done = job__done, .may_merge = job__may_merge,
		.merged = job__merged, .arg = j,
	};
	int code;

	job__rendezvous(j);
	job__shard_parent(j);
	job__choose_mode(j);
	j->user_quiet = j->o.quiet;
	j->o.quiet = true; /* one job line instead of record's summary */
	j->o.hooks = &hooks;
	/* Slurm knows the recorder as the task: the app must not outlive it untracked. */
	j->o.workload_pdeathsig = SIGKILL;
	do
		code = job__session(j);
	while (!j->ready && code != 127 && job__fall_back(j, log__last_error()));
	/* 127: the app cannot run; it is tried once more, unrecorded, and says so again. */
	if (!j->ready && j->mode != JOB_NONE)
		job__give_up(j, log__last_error());
	if (!j->ready)
		code = job__unrecorded(j);
	else if (j->status == JOB_RECORDING)
		j->status = JOB_FAILED; /* the merge failed: its error said how to retry */
	if (j->ready) {
		job__write_json(j, code);
		job__summary(j, code);
	}
	rdv__remove(&j->rdv);
	rdv__close(&j->rdv);
	/* Empty unless shards were kept for a later merge. */
	if (j->shards.dirfd >= 0)
		rmdir(j->shards.dir);
	rdv__close(&j->shards);
	return code;
}

int job__main(int argc, char **argv, int full_argc, char **full_argv)
{
	struct job j = {.rdv.dirfd = -1, .shards.dirfd = -1, .timeout_ms = READY_TIMEOUT_S * 1000, .kill_wait = -1,
			.merge_rate = MERGE_RATE_MB, .loss_metric = -1};
	int code;

	clock_gettime(CLOCK_REALTIME, &j.start);
	if (job__parse(&j, argc, argv)) {
		code = 2;
		goto out;
	}
	j.o.full_argc = full_argc;
	j.o.full_argv = full_argv;
	log__set_level(j.o.quiet ? LOG_WARN : j.o.verbose > 1 ? LOG_DEBUG : LOG_INFO);
	if (!j.env.batch)
		code = session__record(&j.o);
	else if (j.env.local_rank)
		code = job__run_rank(&j);
	else
		code = job__record(&j);
out:
	record_opts__release(&j.o);
	free(j.argv);
	free(j.pids);
	return code;
}
