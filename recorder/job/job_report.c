// SPDX-License-Identifier: GPL-2.0
/*
 * What a node's `shardrec job` leaves beside its perf.data: OUTPUT.json
 * (written when recording starts, so a SIGKILLed recorder still leaves
 * its recovery command, and again at the end) and one summary line.
 */
#include "recorder/job/job_internal.h"
#include "recorder/codec/zunpass.h"
#include "recorder/loss/loss.h"
#include "recorder/util/json.h"
#include "recorder/util/log.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

/* lost_time / elapsed_time of the output (recorder/loss/loss.h); -1 when unknown. */
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

static void json_int_or_null(FILE *f, const char *key, long v, const char *sep)
{
	if (v < 0)
		fprintf(f, "\"%s\": null%s", key, sep);
	else
		fprintf(f, "\"%s\": %ld%s", key, v, sep);
}

static void json_rank(FILE *f, const struct job *j, long rank, long local, long pid, long code,
		      bool recorded, const char *sep)
{
	fprintf(f, "    {\"rank\": %ld, \"local_rank\": %ld, ", rank, local);
	json_int_or_null(f, "pid", pid > 0 ? pid : -1, ", ");
	fprintf(f, "\"host\": ");
	json__fputs_str(f, j->env.host);
	fprintf(f, ", ");
	json_int_or_null(f, "exit_status", code, ", ");
	fprintf(f, "\"recorded\": %s}%s\n", recorded ? "true" : "false", sep);
}

/* Whether local rank @k's app is in the recording. */
static bool rank_recorded(const struct job *j, const struct rdv_rank *k)
{
	char pid[16];
	size_t n;

	if (j->mode == JOB_NONE || j->mode == JOB_TASKS || !j->ready)
		return false;
	if (j->mode != JOB_RANKS)
		return true;
	n = snprintf(pid, sizeof(pid), "%d", k->pid);
	/* A whole item of the comma list, not a prefix of another pid. */
	for (const char *p = j->pids; p && (p = strstr(p, pid)); p += n)
		if ((p == j->pids || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* "ranks": rank 0 (its app's status @code, -1 while it runs), then the registered ones. */
static void json_ranks(FILE *f, struct job *j, int code)
{
	struct rdv_rank *v = NULL;
	size_t nr = 0;

	if (j->rdv.dirfd >= 0 && rdv__ranks(&j->rdv, &v, &nr))
		nr = 0;
	fprintf(f, "  \"ranks\": [\n");
	json_rank(f, j, j->env.rank, 0, j->app_pid, code, j->ready && j->mode != JOB_NONE &&
		  j->mode != JOB_TASKS, nr ? "," : "");
	for (size_t i = 0; i < nr; i++)
		json_rank(f, j, v[i].rank, v[i].local_rank, v[i].app_pid ? v[i].app_pid : v[i].pid,
			  v[i].exit_status, rank_recorded(j, &v[i]), i + 1 < nr ? "," : "");
	fprintf(f, "  ],\n");
	free(v);
}

static void json_figures(FILE *f, const struct job *j, double metric)
{
	fprintf(f, "  \"samples\": %llu,\n  \"lost_samples\": %llu,\n  \"lost_records\": %llu,\n",
		(unsigned long long)j->ms.samples, (unsigned long long)j->ms.lost_samples,
		(unsigned long long)j->ms.lost_records);
	if (metric >= 0)
		fprintf(f, "  \"loss_metric\": %.6f,\n", metric);
	else
		fprintf(f, "  \"loss_metric\": null,\n");
	fprintf(f, "  \"mb_written\": %.3f,\n  \"merge_seconds\": %.3f,\n", j->ms.bytes_out / 1e6,
		j->ms.seconds);
}

static void job__fprint_json(struct job *j, FILE *f, double metric, int code)
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
	json_str(f, "status", job_status__name(j->status), ",");
	json_str(f, "mode", job_mode__name(j->mode), ",");
	json_str(f, "reason", j->reason, ",");
	json_str(f, "output", j->output, ",");
	json_str(f, "shard_dir", j->shard_dir, ",");
	fprintf(f, "  \"merged\": %s,\n", j->merged ? "true" : "false");
	json_str(f, "merge_command", j->merge_cmd, ",");
	json_figures(f, j, metric);
	json_ranks(f, j, code);
	fprintf(f, "  \"exit_status\": ");
	fprintf(f, code < 0 ? "null,\n" : "%d,\n", code);
	json_str(f, "stop_signal", sig, ",");
	json_str(f, "start_time", t0, ",");
	json_str(f, "end_time", t1, ",");
	fprintf(f, "  \"elapsed_seconds\": %.3f\n}\n", elapsed_s(j));
}

/* OUTPUT.json through a temporary name: a reader sees a whole file. 0 / -errno. */
static int job__put_json(struct job *j, double metric, int code)
{
	char path[PATH_MAX + 8], tmp[PATH_MAX + 32];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "%s.json", j->output);
	snprintf(tmp, sizeof(tmp), "%s.json.tmp.%d", j->output, (int)getpid());
	f = fopen(tmp, "wex");
	if (!f)
		return -errno;
	/* The user's, as the .data is (0600): it names hosts, pids and paths. */
	fchmod(fileno(f), 0600);
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

void job__write_json(struct job *j, int code)
{
	int ret;

	j->loss_metric = code < 0 ? -1 : job__loss_metric(j);
	clock_gettime(CLOCK_REALTIME, &j->end);
	ret = job__put_json(j, j->loss_metric, code);
	if (ret)
		pr_warn("job: %s.json: %s", j->output, strerror(-ret));
}

static void job__line_id(const struct job *j, char *buf, size_t len)
{
	snprintf(buf, len, "shardrec job %s.%s %s rank %ld", j->env.job_id[0] ? j->env.job_id : "-",
		 j->env.step[0] ? j->env.step : "-", j->env.host, j->env.rank);
}

void job__summary(struct job *j, int code)
{
	char id[512];

	job__line_id(j, id, sizeof(id));
	/* Said even with -q: the only word that nothing was recorded, or that shards wait. */
	if (j->status == JOB_UNRECORDED) {
		pr_warn("[ %s: unrecorded: %s; the apps ran unrecorded, exit %d ]", id, j->reason,
			code);
		return;
	}
	if (j->status == JOB_KEPT)
		pr_warn("[ %s: not merged: %.1f MB of shards need about %.1f s at %ld MB/s, %.1f s "
			"were left before SIGKILL; shards kept, merge with: %s ]",
			id, j->merge_est_s * j->merge_rate, j->merge_est_s, j->merge_rate,
			j->time_left_s, j->merge_cmd);
	if (j->user_quiet || !j->merged)
		return;
	pr_info("[ %s: %llu samples, loss %.4f%% (%llu lost samples, %llu lost records), %.3f MB "
		"%s, merged in %.2f s%s%s, mode %s, exit %d ]",
		id, (unsigned long long)j->ms.samples,
		j->loss_metric < 0 ? 0.0 : 100 * j->loss_metric, (unsigned long long)j->ms.lost_samples,
		(unsigned long long)j->ms.lost_records, j->ms.bytes_out / 1e6, j->output,
		j->ms.seconds, j->stop_signal ? ", stopped by SIG" : "",
		j->stop_signal ? sigabbrev_np(j->stop_signal) : "", job_mode__name(j->mode), code);
}
