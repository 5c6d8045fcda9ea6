// SPDX-License-Identifier: GPL-2.0
/*
 * What the node's recorder records: the fallback ladder of `shardrec job`.
 *
 * An ordinary user on a cluster has neither CAP_PERFMON nor a
 * perf_event_paranoid below 2, and shares the node with other jobs. perf
 * falls back for such a user (cpu-clock:u); job falls back likewise, rung
 * by rung: system-wide where the node is the job's alone (or -a asked) and
 * allowed, else the job's cgroup where one exists and CPU-wide events are
 * allowed, else the node's ranks themselves, each registered rank's
 * process recorded as a task whose app inherits the events (user space
 * only where paranoid requires it: record's preflight does that). Each
 * rung says why the ones above it were not taken (j->reason).
 */
#include "recorder/job/job_internal.h"
#include "recorder/events/privs_open.h"
#include "recorder/util/clock.h"
#include "recorder/util/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define REGISTER_POLL_MS 10

const char *job_mode__name(enum job_mode m)
{
	static const char *const names[] = {
		[JOB_SYSTEM_WIDE] = "system-wide", [JOB_CGROUP] = "cgroup", [JOB_RANKS] = "ranks",
		[JOB_TASKS] = "tasks", [JOB_NONE] = "none",
	};

	return names[m];
}

const char *job_status__name(enum job_status s)
{
	static const char *const names[] = {
		[JOB_RECORDING] = "recording", [JOB_RECORDED] = "recorded", [JOB_KEPT] = "kept",
		[JOB_FAILED] = "failed", [JOB_UNRECORDED] = "unrecorded",
	};

	return names[s];
}

/*
 * CPU-wide events (system-wide and cgroup recording) under the privileges
 * held: true, or false with the missing privilege in @why.
 */
static bool cpu_wide_allowed(char *why, size_t len)
{
	struct privs_req req = {.cpu_wide = "-a"};
	struct privs_env env;
	char err[512], warn[8];

	privs__env_read(&env);
	if (!privs__check(&env, &req, NULL, 0, err, sizeof(err), warn, sizeof(warn)))
		return true;
	snprintf(why, len, "no CAP_PERFMON and kernel.perf_event_paranoid is %d (system-wide and "
		 "cgroup recording need CAP_PERFMON, or the sysctl <= 0)", env.paranoid);
	return false;
}

/* Sets j->o's target for @m. */
static void job__set_target(struct job *j, enum job_mode m)
{
	j->mode = m;
	j->o.workload_too = false;
	j->o.pid_list = NULL;
	if (m == JOB_SYSTEM_WIDE || m == JOB_CGROUP) {
		j->o.system_wide = !j->o.cpu_list;
		j->o.cgroup = m == JOB_CGROUP ? (j->user_cgroup ? j->user_cgroup : j->cgroup) : NULL;
	} else {
		j->o.system_wide = false;
		j->o.cpu_list = NULL;
		j->o.cgroup = NULL;
	}
}

/* Why the node counts as shared, into @why. */
static void shared_why(const struct job *j, long online, char *why, size_t len)
{
	if (j->env.cpus_on_node)
		snprintf(why, len, "the node may be shared (the job has %ld of its %ld CPUs)",
			 j->env.cpus_on_node, online);
	else
		snprintf(why, len, "the node may be shared (no SLURM_CPUS_ON_NODE)");
}

void job__choose_mode(struct job *j)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	bool excl = jobenv__exclusive(&j->env, online);
	bool want_sw = j->user_cpu_wide || (excl && !j->user_cgroup && !j->job_cgroup);
	const char *cg = j->user_cgroup ? j->user_cgroup : j->cgroup[0] ? j->cgroup : NULL;
	char priv[256] = "", shared[128];

	if (j->user_tasks) {
		job__set_target(j, JOB_TASKS);
		snprintf(j->reason, sizeof(j->reason), "the tasks given (-p, -t or -u)");
		return;
	}
	if (!cpu_wide_allowed(priv, sizeof(priv)) && (j->user_cpu_wide || j->user_cgroup))
		pr_warn("job: %s: %s: recording the node's ranks instead",
			j->user_cpu_wide ? "-a/-C" : "-G", priv);
	if (want_sw && !priv[0]) {
		job__set_target(j, JOB_SYSTEM_WIDE);
		if (j->user_cpu_wide)
			snprintf(j->reason, sizeof(j->reason), "asked for (-a or -C)");
		else
			snprintf(j->reason, sizeof(j->reason), "the node is the job's alone (the job "
				 "has all its %ld CPUs)", online);
		return;
	}
	if (cg && !priv[0]) {
		job__set_target(j, JOB_CGROUP);
		snprintf(j->reason, sizeof(j->reason), "%s %s", j->user_cgroup ? "asked for (-G)" :
			 "the job's cgroup", cg);
		return;
	}
	job__set_target(j, JOB_RANKS);
	shared_why(j, online, shared, sizeof(shared));
	if (j->job_cgroup && !j->cgroup[0])
		pr_warn("job: --job-cgroup: no job_%s in this process's cgroup v2 path (Slurm runs "
			"without its cgroup plugins?): recording the node's ranks", j->env.job_id);
	snprintf(j->reason, sizeof(j->reason), "%s%s%s", priv[0] ? priv : shared,
		 priv[0] || cg ? "" : " and no job cgroup (Slurm without its cgroup plugins)",
		 ": the node's ranks themselves");
}

void job__give_up(struct job *j, const char *why)
{
	job__set_target(j, JOB_NONE);
	snprintf(j->reason, sizeof(j->reason), "%s", why[0] ? why : "recording failed");
}

bool job__fall_back(struct job *j, const char *why)
{
	if (j->mode != JOB_SYSTEM_WIDE && j->mode != JOB_CGROUP) {
		job__give_up(j, why);
		return false;
	}
	pr_warn("job: %s recording failed on %s: recording the node's ranks instead",
		job_mode__name(j->mode), j->env.host);
	job__set_target(j, JOB_RANKS);
	snprintf(j->reason, sizeof(j->reason), "%s: the node's ranks themselves",
		 why[0] ? why : "recording failed");
	return true;
}

/* Waits until @want ranks registered or the ready timeout passed. */
static void wait_registered(struct job *j, unsigned want)
{
	/* Half the ranks' own wait: a late rank still finds the recorder ready. */
	unsigned long long end = clock__now_ms() + j->timeout_ms / 2;
	struct timespec nap = {0, REGISTER_POLL_MS * 1000000L};
	unsigned reg = 0, alive;

	while (!rdv__scan(&j->rdv, &reg, &alive) && reg < want && clock__now_ms() < end)
		nanosleep(&nap, NULL);
	if (reg < want)
		pr_warn("job: %u of %u other local ranks registered within %u s: the others run "
			"unrecorded", reg, want, j->timeout_ms / 2000);
}

int job__rank_pids(struct job *j)
{
	struct rdv_rank *v = NULL;
	size_t nr = 0, len = 0;
	int ret;

	free(j->pids);
	j->pids = NULL;
	if (j->rdv.dirfd < 0)
		return 0;
	if (j->env.local_size > 1)
		wait_registered(j, j->env.local_size - 1);
	ret = rdv__ranks(&j->rdv, &v, &nr);
	if (ret)
		return ret;
	j->pids = calloc(nr + 1, 12);
	if (!j->pids) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nr; i++)
		if (v[i].alive)
			len += sprintf(j->pids + len, "%s%d", len ? "," : "", v[i].pid);
	free(v);
	/* The app alone when no other rank is here: it is then record's command target. */
	j->o.pid_list = len ? j->pids : NULL;
	j->o.workload_too = len;
	return 0;
}
