// SPDX-License-Identifier: GPL-2.0
#include "recorder/job/job.h"
#include "recorder/util/json.h"
#include "recorder/util/clock.h"
#include "recorder/util/fs.h"
#include "recorder/codec/zunpass.h"
#include "recorder/job/jobenv.h"
#include "recorder/util/log.h"
#include "recorder/merge/loss.h"
#include "recorder/merge/merge.h"
#include "recorder/util/privs.h"
#include "recorder/cli/cli_record.h"
#include "recorder/events/record_opts.h"
#include "recorder/job/rendezvous.h"
#include "recorder/capture/session.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static const char usage[] =
	"Usage: srun shardrec job [--job-cgroup] [--ready-timeout SECS] [record options]\n"
	"                         -- app [args...]\n"
	"\n"
	"Profile a batch job: one perf.data per node. In every rank of a job step\n"
	"(srun, mpirun); local rank 0 of each node records the node system-wide\n"
	"and runs its app, the other ranks run their apps once recording is on.\n"
	"Recording stops when the node's ranks have exited, or on SIGTERM\n"
	"(walltime, scancel). Outside a batch system: like shardrec record.\n"
	"\n"
	"  --job-cgroup          only the tasks of the job's cgroup (Slurm with\n"
	"                        proctrack/cgroup or task/cgroup, cgroup v2)\n"
	"  --ready-timeout SECS  how long ranks wait for the recorder (default 30)\n"
	"  --kill-wait SECS      seconds from SIGTERM to SIGKILL (default: KillWait\n"
	"                        of slurm.conf, else 30)\n"
	"  --merge-rate MB       merge speed assumed, MB/s (default 100): a merge\n"
	"                        the time left cannot cover is not started, the\n"
	"                        shards are kept and the summary says how to merge\n"
	"  -o FILE               %j job id, %s step, %h host, %r rank, %p pid\n"
	"                        (default perf.%j.%h.data under Slurm); a summary\n"
	"                        goes to FILE.json\n"
	"Record options: see shardrec record --help. After a SIGKILL: shardrec\n"
	"merge --recover FILE.shards\n";

struct job {
	struct jobenv env;
	struct rdv rdv;
	struct record_opts o;
	bool job_cgroup;
	unsigned timeout_ms;
	char **argv; /* record's argv, NULL-terminated */
	int argc;
	char output[PATH_MAX];
	char cgroup[PATH_MAX];
	bool user_quiet;
	bool ready, merged;
	long kill_wait;        /* --kill-wait, -1: slurm.conf's */
	long merge_rate;       /* --merge-rate, MB/s */
	long long end_time;    /* SLURM_JOB_END_TIME (epoch s), 0 when unknown */
	bool kept;             /* the merge did not fit: shards kept */
	double merge_est_s, time_left_s;
	char merge_cmd[2 * PATH_MAX + 192];
	unsigned long long ready_ms;
	struct merge_stats ms; /* scalars only: samples_per_event is NULL */
	int stop_signal;
	struct timespec start, end;
};

const char *job__usage(void)
{
	return usage;
}

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

/* The job's cgroup v2 path, from /proc/self/cgroup. */
static int job__find_cgroup(struct job *j)
{
	char text[8192];
	FILE *f = fopen("/proc/self/cgroup", "re");
	size_t n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
	int ret;

	if (f)
		fclose(f);
	text[n] = '\0';
	if (!j->env.job_id[0]) {
		pr_err("job: --job-cgroup: not in a Slurm job (no SLURM_JOB_ID)");
		return -ENOENT;
	}
	ret = jobenv__job_cgroup(text, j->env.job_id, j->cgroup, sizeof(j->cgroup));
	if (ret)
		pr_err("job: --job-cgroup: no job_%s in this process's cgroup v2 path (Slurm runs "
		       "without its cgroup plugins?)", j->env.job_id);
	return ret;
}

/*
 * record's argv: under a batch system "-o DEFAULT -a [-G CGROUP]" come
 * first, so the user's -o or -C given later still win.
 */
static int job__record_argv(struct job *j, int argc, char **argv)
{
	const char *dflt = j->env.job_id[0] ? "perf.%j.%h.data" : "perf.%h.data";
	int n = 0;

	j->argv = calloc(argc + 7, sizeof(*j->argv));
	if (!j->argv)
		return -ENOMEM;
	j->argv[n++] = "record";
	if (j->env.batch) {
		j->argv[n++] = "-o";
		j->argv[n++] = (char *)dflt;
		j->argv[n++] = "-a";
	}
	if (j->job_cgroup && j->env.local_rank == 0) {
		j->argv[n++] = "-G";
		j->argv[n++] = j->cgroup;
	}
	for (int i = 1; i < argc; i++)
		j->argv[n++] = argv[i];
	j->argc = n;
	return 0;
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
	if (!ret && j->job_cgroup && j->env.local_rank == 0)
		ret = job__find_cgroup(j);
	if (!ret)
		ret = job__record_argv(j, argc, argv);
	if (ret)
		return ret;
	ret = record_opts__parse(&j->o, j->argc, j->argv, err, sizeof(err));
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
	char key[sizeof(j->env.key) + sizeof(j->env.host) + 32], err[PATH_MAX + 128];
	int ret;

	ret = jobenv__rdv_key(&j->env, getppid(), rdv__proc_start(getppid()), key, sizeof(key));
	if (ret)
		snprintf(err, sizeof(err), "rendezvous name too long");
	else
		ret = rdv__open(&j->rdv, key, err, sizeof(err));
	if (ret)
		pr_warn("job: rendezvous: %s: local ranks run without waiting for each other",
			err);
	return ret;
}

/* Execs the app as this process, unprivileged; returns only on failure. */
static int job__exec(struct job *j)
{
	int ret = privs__workload_drop();
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (!ret) {
		execvpe(j->o.argv[0], j->o.argv, privs__workload_env());
		ret = -errno;
	}
	pr_err("job: cannot run '%s': %s", j->o.argv[0], strerror(-ret));
	return 127;
}

static int job__run_rank(struct job *j)
{
	unsigned long long t0 = clock__now_ms();
	int ret;

	if (!job__rendezvous(j)) {
		ret = rdv__register(&j->rdv, j->env.local_rank);
		if (ret)
			pr_warn("job: rendezvous %s: %s", j->rdv.dir, strerror(-ret));
		ret = ret ? ret : rdv__wait_ready(&j->rdv, j->timeout_ms);
		if (ret == -ETIMEDOUT)
			pr_warn("job: rank %ld: no recorder on %s after %llu ms: running unrecorded",
				j->env.rank, j->env.host, clock__now_ms() - t0);
		rdv__close(&j->rdv);
	}
	return job__exec(j);
}

/* ---- the recorder's hooks ---- */

static void job__ready(void *arg)
{
	struct job *j = arg;
	int ret;

	j->ready = true;
	j->ready_ms = clock__now_ms();
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

/* @s as one shell word in @out: as is when plain, else in single quotes. */
static void shell_word(const char *s, char *out, size_t len)
{
	static const char plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				    "0123456789_./%+,:@=-";
	size_t n = 0;

	if (*s && strspn(s, plain) == strlen(s)) {
		snprintf(out, len, "%s", s);
		return;
	}
	for (out[n++] = '\''; *s && n + 5 < len; s++) {
		if (*s == '\'') {
			memcpy(out + n, "'\\''", 4); /* close, an escaped quote, reopen */
			n += 4;
		} else {
			out[n++] = *s;
		}
	}
	out[n++] = '\'';
	out[n] = '\0';
}

/*
 * A merge that the time left cannot cover would be killed half-way and its
 * time lost: the shards are kept whole instead, for the command the
 * summary gives.
 */
static bool job__may_merge(void *arg, const struct record_merge_plan *p)
{
	char dir[PATH_MAX + 64], out[PATH_MAX + 64];
	struct job *j = arg;

	j->merge_est_s = p->shard_bytes / (j->merge_rate * 1e6);
	j->time_left_s = job__time_left(j, p);
	if (j->merge_est_s + MERGE_MARGIN_S <= j->time_left_s)
		return true;
	j->time_left_s = j->time_left_s > 0 ? j->time_left_s : 0;
	j->kept = true;
	shell_word(p->dir, dir, sizeof(dir));
	shell_word(j->output, out, sizeof(out));
	snprintf(j->merge_cmd, sizeof(j->merge_cmd), "shardrec merge --recover %s -o %s", dir, out);
	return false;
}

static void job__merged(void *arg, const struct merge_stats *ms, int stop_signal)
{
	struct job *j = arg;

	j->ms = *ms;
	j->ms.samples_per_event = NULL;
	j->ms.nr_events = 0;
	j->merged = true;
	j->stop_signal = stop_signal;
}

/* ---- summary ---- */

static void json_str(FILE *f, const char *key, const char *v, const char *sep)
{
	fprintf(f, "  \"%s\": ", key);
	json__fputs_str(f, v);
	fprintf(f, "%s\n", sep);
}

static void iso_time(const struct timespec *ts, char *buf, size_t len)
{
	struct tm tm;
	size_t n;

	gmtime_r(&ts->tv_sec, &tm);
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%03ldZ", ts->tv_nsec / 1000000);
}

static double elapsed_s(const struct job *j)
{
	return (j->end.tv_sec - j->start.tv_sec) + (j->end.tv_nsec - j->start.tv_nsec) / 1e9;
}

static void job__fprint_json(const struct job *j, FILE *f, double metric, int code)
{
	char t0[64], t1[64], sig[32] = "";

	iso_time(&j->start, t0, sizeof(t0));
	iso_time(&j->end, t1, sizeof(t1));
	if (j->stop_signal)
		snprintf(sig, sizeof(sig), "SIG%s", sigabbrev_np(j->stop_signal));
	fprintf(f, "{\n");
	json_str(f, "job_id", j->env.job_id, ",");
	json_str(f, "step", j->env.step, ",");
	json_str(f, "host", j->env.host, ",");
	fprintf(f, "  \"rank\": %ld,\n  \"local_ranks\": %ld,\n", j->env.rank, j->env.local_size);
	json_str(f, "launcher", j->env.launcher, ",");
	json_str(f, "output", j->output, ",");
	fprintf(f, "  \"merged\": %s,\n", j->merged ? "true" : "false");
	if (j->kept)
		json_str(f, "merge_command", j->merge_cmd, ",");
	fprintf(f, "  \"samples\": %llu,\n  \"lost_samples\": %llu,\n  \"lost_records\": %llu,\n",
		(unsigned long long)j->ms.samples, (unsigned long long)j->ms.lost_samples,
		(unsigned long long)j->ms.lost_records);
	if (metric >= 0)
		fprintf(f, "  \"loss_metric\": %.6f,\n", metric);
	else
		fprintf(f, "  \"loss_metric\": null,\n");
	fprintf(f, "  \"mb_written\": %.3f,\n  \"merge_seconds\": %.3f,\n", j->ms.bytes_out / 1e6,
		j->ms.seconds);
	fprintf(f, "  \"exit_status\": %d,\n", code);
	json_str(f, "stop_signal", sig, ",");
	json_str(f, "start_time", t0, ",");
	json_str(f, "end_time", t1, ",");
	fprintf(f, "  \"elapsed_seconds\": %.3f\n}\n", elapsed_s(j));
}

/* OUTPUT.json, written whole or not at all. 0 / -errno. */
static int job__write_json(const struct job *j, double metric, int code)
{
	char path[PATH_MAX + 8], tmp[PATH_MAX + 32];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "%s.json", j->output);
	snprintf(tmp, sizeof(tmp), "%s.json.tmp.%d", j->output, (int)getpid());
	f = fopen(tmp, "wex");
	if (!f)
		return -errno;
	job__fprint_json(j, f, metric, code);
	if (ferror(f))
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

/* lost_time / elapsed_time of the output (recorder/merge/loss.h); -1 when unknown. */
static double job__loss_metric(const struct job *j)
{
	struct loss_stats ls;
	char err[512];
	double m = -1;

	if (!j->merged)
		return -1;
	if (!loss__analyze(j->output, &zunpass__ops, &ls, err, sizeof(err)))
		m = loss_stats__metric(&ls);
	else
		pr_warn("job: loss metric: %s", err);
	loss_stats__release(&ls);
	return m;
}

static void job__summary(struct job *j, int code)
{
	double metric = job__loss_metric(j);
	int ret;

	clock_gettime(CLOCK_REALTIME, &j->end);
	ret = job__write_json(j, metric, code);
	if (ret)
		pr_warn("job: %s.json: %s", j->output, strerror(-ret));
	/* Said even with -q: it is the only word that the shards wait for a merge. */
	if (j->kept)
		pr_warn("[ shardrec job %s.%s %s rank %ld: not merged: %.1f MB of shards need about "
			"%.1f s at %ld MB/s, %.1f s were left before SIGKILL; shards kept, merge "
			"with: %s ]",
			j->env.job_id[0] ? j->env.job_id : "-", j->env.step[0] ? j->env.step : "-",
			j->env.host, j->env.rank, j->merge_est_s * j->merge_rate, j->merge_est_s,
			j->merge_rate, j->time_left_s, j->merge_cmd);
	if (j->user_quiet || !j->merged)
		return;
	pr_info("[ shardrec job %s.%s %s rank %ld: %llu samples, loss %.4f%% (%llu lost samples, "
		"%llu lost records), %.3f MB %s, merged in %.2f s%s%s, exit %d ]",
		j->env.job_id[0] ? j->env.job_id : "-", j->env.step[0] ? j->env.step : "-",
		j->env.host, j->env.rank, (unsigned long long)j->ms.samples,
		metric < 0 ? 0.0 : 100 * metric, (unsigned long long)j->ms.lost_samples,
		(unsigned long long)j->ms.lost_records, j->ms.bytes_out / 1e6, j->output,
		j->ms.seconds, j->stop_signal ? ", stopped by SIG" : "",
		j->stop_signal ? sigabbrev_np(j->stop_signal) : "", code);
}

/* ---- the recorder ---- */

static int job__record(struct job *j)
{
	const struct record_hooks hooks = {
		.ready = job__ready, .done = job__done, .may_merge = job__may_merge,
		.merged = job__merged, .arg = j,
	};
	int code;

	job__rendezvous(j);
	j->user_quiet = j->o.quiet;
	j->o.quiet = true; /* one job line instead of record's summary */
	j->o.hooks = &hooks;
	/* Slurm knows the recorder as the task: the app must not outlive it untracked. */
	j->o.workload_pdeathsig = SIGKILL;
	code = session__record(&j->o);
	if (!j->ready) {
		/* Setup failed and the app never ran: run it, release the other ranks. */
		if (j->rdv.dirfd >= 0)
			rdv__set_ready(&j->rdv, false);
		rdv__close(&j->rdv);
		if (code == 127)
			return code;
		pr_warn("job: recording failed on %s: running the app unrecorded", j->env.host);
		return job__exec(j);
	}
	job__summary(j, code);
	rdv__remove(&j->rdv);
	rdv__close(&j->rdv);
	return code;
}

int job__main(int argc, char **argv, int full_argc, char **full_argv)
{
	struct job j = {.rdv.dirfd = -1, .timeout_ms = READY_TIMEOUT_S * 1000, .kill_wait = -1,
			.merge_rate = MERGE_RATE_MB};
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
	return code;
}
