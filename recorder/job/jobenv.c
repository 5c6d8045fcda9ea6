// SPDX-License-Identifier: GPL-2.0
#include "recorder/job/jobenv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* Slurm's batch step id (SLURM_BATCH_SCRIPT in slurm.h) across versions. */
static bool batch_step_id(const char *step)
{
	return !strcmp(step, "4294967291") || !strcmp(step, "4294967294") ||
	       !strcmp(step, "batch");
}

struct local_var {
	const char *launcher, *local_rank, *local_size, *rank;
};

/* In the order of jobenv.h: the MPI launchers before srun. */
static const struct local_var local_vars[] = {
	{"openmpi", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE", "OMPI_COMM_WORLD_RANK"},
	{"mpich", "MPI_LOCALRANKID", "MPI_LOCALNRANKS", "PMI_RANK"},
	{"pals", "PALS_LOCAL_RANKID", NULL, "PALS_RANKID"},
	{"slurm", "SLURM_LOCALID", NULL, "SLURM_PROCID"},
};

static int get_long(jobenv_get_fn get, void *arg, const char *name, long *v)
{
	const char *s = name ? get(name, arg) : NULL;
	char *end;

	if (!s || !*s)
		return -ENOENT;
	errno = 0;
	*v = strtol(s, &end, 10);
	if (errno || *end || *v < 0)
		return -EINVAL;
	return 0;
}

static void copy_safe(char *dst, size_t len, const char *src)
{
	size_t i;

	/* Only file-name characters: the key names a directory. */
	for (i = 0; src && src[i] && i + 1 < len; i++)
		dst[i] = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_",
				src[i]) ? src[i] : '_';
	dst[i] = '\0';
}

static void read_slurm(struct jobenv *e, jobenv_get_fn get, void *arg)
{
	const char *job = get("SLURM_JOB_ID", arg), *step = get("SLURM_STEP_ID", arg);
	const char *tpn = get("SLURM_STEP_TASKS_PER_NODE", arg);
	long node = 0;

	if (!job || !*job)
		return;
	if (!step || !*step)
		step = get("SLURM_STEPID", arg);
	copy_safe(e->job_id, sizeof(e->job_id), job);
	/* A batch script is its job's step "batch": one task, whatever -n says. */
	if (!step || !*step || batch_step_id(step)) {
		snprintf(e->step, sizeof(e->step), "batch");
		tpn = "1";
	} else {
		copy_safe(e->step, sizeof(e->step), step);
		get_long(get, arg, "SLURM_STEP_NUM_NODES", &e->nodes);
	}
	if (!tpn)
		tpn = get("SLURM_TASKS_PER_NODE", arg);
	get_long(get, arg, "SLURM_NODEID", &node);
	get_long(get, arg, "SLURM_CPUS_ON_NODE", &e->cpus_on_node);
	e->local_size = tpn ? jobenv__tasks_on_node(tpn, node) : 0;
	snprintf(e->key, sizeof(e->key), "%s.%s", e->job_id, e->step);
}

/* An MPI launcher's own job name, better than Slurm's for one mpirun. */
static void read_mpi_key(struct jobenv *e, jobenv_get_fn get, void *arg)
{
	static const char *const vars[] = {"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid",
					   "OMPI_MCA_orte_ess_jobid", "PALS_APID"};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = get(vars[i], arg);

		if (v && *v) {
			copy_safe(e->key, sizeof(e->key), v);
			return;
		}
	}
}

static void read_host(struct jobenv *e, jobenv_get_fn get, void *arg)
{
	const char *h = get("SLURMD_NODENAME", arg);
	char *dot;

	if (h && *h) {
		copy_safe(e->host, sizeof(e->host), h);
		return;
	}
	if (gethostname(e->host, sizeof(e->host) - 1))
		snprintf(e->host, sizeof(e->host), "localhost");
	e->host[sizeof(e->host) - 1] = '\0';
	dot = strchr(e->host, '.');
	if (dot)
		*dot = '\0';
	copy_safe(e->host, sizeof(e->host), e->host);
}

int jobenv__read(struct jobenv *e, jobenv_get_fn get, void *arg)
{
	const struct local_var *lv = NULL;
	int ret;

	memset(e, 0, sizeof(*e));
	e->launcher = "none";
	read_slurm(e, get, arg);
	for (size_t i = 0; i < sizeof(local_vars) / sizeof(local_vars[0]) && !lv; i++) {
		ret = get_long(get, arg, local_vars[i].local_rank, &e->local_rank);
		if (ret == -EINVAL)
			return ret;
		if (!ret)
			lv = &local_vars[i];
	}
	read_host(e, get, arg);
	if (!lv) {
		e->batch = e->job_id[0];
		e->launcher = e->batch ? "slurm" : "none";
		return 0;
	}
	e->batch = true;
	e->launcher = lv->launcher;
	if (get_long(get, arg, lv->rank, &e->rank) && get_long(get, arg, "PMIX_RANK", &e->rank))
		e->rank = e->local_rank;
	if (strcmp(lv->launcher, "slurm")) {
		long n;

		/* Slurm's counts are its daemons' here, not the ranks'. */
		e->local_size = get_long(get, arg, lv->local_size, &n) ? 0 : n;
		read_mpi_key(e, get, arg);
	}
	return 0;
}

bool jobenv__exclusive(const struct jobenv *e, long online)
{
	return e->job_id[0] && online > 0 && e->cpus_on_node >= online;
}

const char *jobenv__local_dir(jobenv_get_fn get, void *arg)
{
	static const char *const vars[] = {"SLURM_TMPDIR", "TMPDIR"};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = get(vars[i], arg);

		if (v && *v)
			return v;
	}
	return "/tmp";
}

int jobenv__rdv_key(const struct jobenv *e, int ppid, unsigned long long ppid_start, char *out,
		    size_t len)
{
	int n;

	if (e->key[0])
		n = snprintf(out, len, "%s.%s", e->key, e->host);
	else
		n = snprintf(out, len, "ppid%d.%llu.%s", ppid, ppid_start, e->host);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

long jobenv__tasks_on_node(const char *spec, long nodeid)
{
	const char *p = spec;

	while (*p) {
		char *end;
		long n = strtol(p, &end, 10), reps = 1;

		if (end == p || n < 0)
			return 0;
		p = end;
		if (!strncmp(p, "(x", 2)) {
			reps = strtol(p + 2, &end, 10);
			if (end == p + 2 || *end != ')' || reps < 1)
				return 0;
			p = end + 1;
		}
		if (nodeid < reps)
			return n;
		nodeid -= reps;
		if (*p == ',')
			p++;
		else if (*p)
			return 0;
	}
	return 0;
}

int jobenv__expand(const struct jobenv *e, const char *pattern, pid_t pid, char *out, size_t len,
		   char *err, size_t errlen)
{
	size_t o = 0;

	for (const char *p = pattern; *p; p++) {
		char num[32];
		const char *s = num;
		int n;

		if (*p != '%') {
			num[0] = *p;
			num[1] = '\0';
		} else {
			switch (*++p) {
			case 'j': s = e->job_id[0] ? e->job_id : "nojob"; break;
			case 's': s = e->step[0] ? e->step : "nostep"; break;
			case 'h': s = e->host; break;
			case 'r': snprintf(num, sizeof(num), "%ld", e->rank); break;
			case 'p': snprintf(num, sizeof(num), "%d", (int)pid); break;
			case '%': s = "%"; break;
			default:
				snprintf(err, errlen, "-o %s: unknown '%%%.1s' (use %%j %%s %%h %%r %%p %%%%)",
					 pattern, p);
				return -EINVAL;
			}
		}
		n = snprintf(out + o, len - o, "%s", s);
		if (n < 0 || (size_t)n >= len - o) {
			snprintf(err, errlen, "-o %s: name too long", pattern);
			return -ENAMETOOLONG;
		}
		o += n;
	}
	if (!o)
		out[0] = '\0';
	return 0;
}

bool jobenv__per_node(const char *pattern)
{
	/* p[1] is checked before p + 2 is read: a trailing '%' ends the scan. */
	for (const char *p = strchr(pattern, '%'); p && p[1]; p = strchr(p + 2, '%'))
		if (strchr("hrp", p[1]))
			return true;
	return false;
}

int jobenv__job_cgroup(const char *proc_cgroup, const char *job_id, char *out, size_t len)
{
	const char *line = proc_cgroup, *end, *comp, *p;
	char want[96];
	size_t wl;

	wl = snprintf(want, sizeof(want), "/job_%s", job_id);
	for (; line && *line; line = end ? end + 1 : NULL) {
		end = strchr(line, '\n');
		if (strncmp(line, "0::", 3))
			continue;
		/* The component itself, not a prefix of job_1234's sibling job_12345. */
		for (p = line + 3; (comp = strstr(p, want)); p = comp + wl) {
			char c = comp[wl];

			if (end && comp >= end)
				break;
			if (c == '/' || c == '\n' || c == '\0') {
				int n = snprintf(out, len, "%.*s", (int)(comp + wl - (line + 4)),
						 line + 4);

				return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
			}
		}
	}
	return -ENOENT;
}

long jobenv__kill_wait(const char *conf)
{
	long v = -1;

	for (const char *p = conf; p && *p;) {
		size_t n = strcspn(p, " \t\r\n#");

		if (!strncasecmp(p, "KillWait=", 9) && n > 9) {
			char *end;
			long k = strtol(p + 9, &end, 10);

			if (end == p + n && k >= 0)
				v = k; /* the last one wins, as in slurm.conf */
		}
		p += n;
		if (*p == '#')
			p += strcspn(p, "\n");
		p += strspn(p, " \t\r\n");
	}
	return v;
}
