// SPDX-License-Identifier: GPL-2.0
/*
 * shardrec job's environment: which launcher's variables win, Slurm's
 * batch step and tasks-per-node lists, output name expansion, the job
 * cgroup from /proc/self/cgroup text, and the rendezvous files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "recorder/job/jobenv.h"
#include "recorder/job/rendezvous.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* NULL-terminated "NAME=value" list. */
static const char *tab_get(const char *name, void *arg)
{
	size_t n = strlen(name);

	for (const char *const *v = arg; *v; v++)
		if (!strncmp(*v, name, n) && (*v)[n] == '=')
			return *v + n + 1;
	return NULL;
}

static void test_outside(void **state)
{
	const char *env[] = {"HOME=/root", NULL};
	struct jobenv e;

	(void)state;
	assert_int_equal(jobenv__read(&e, tab_get, env), 0);
	assert_false(e.batch);
	assert_string_equal(e.launcher, "none");
	assert_string_equal(e.job_id, "");
	assert_true(e.host[0]);
}

static void test_srun(void **state)
{
	const char *env[] = {"SLURM_JOB_ID=123", "SLURM_STEP_ID=4", "SLURM_LOCALID=1",
			     "SLURM_PROCID=7", "SLURM_NODEID=2", "SLURMD_NODENAME=cn01",
			     "SLURM_STEP_TASKS_PER_NODE=4(x2),3", "SLURM_TASKS_PER_NODE=9",
			     "SLURM_STEP_NUM_NODES=3", NULL};
	struct jobenv e;

	(void)state;
	assert_int_equal(jobenv__read(&e, tab_get, env), 0);
	assert_true(e.batch);
	assert_string_equal(e.launcher, "slurm");
	assert_string_equal(e.job_id, "123");
	assert_string_equal(e.step, "4");
	assert_string_equal(e.host, "cn01");
	assert_int_equal(e.rank, 7);
	assert_int_equal(e.local_rank, 1);
	assert_int_equal(e.local_size, 3);
	assert_int_equal(e.nodes, 3);
	assert_string_equal(e.key, "123.4");
}

/* A batch script: no step variable, one task whatever the job's -n. */
static void test_batch_script(void **state)
{
	const char *env[] = {"SLURM_JOB_ID=9", "SLURM_LOCALID=0", "SLURM_PROCID=0",
			     "SLURM_TASKS_PER_NODE=2", "SLURMD_NODENAME=n",
			     "SLURM_JOB_NUM_NODES=2", NULL};
	struct jobenv e;

	(void)state;
	assert_int_equal(jobenv__read(&e, tab_get, env), 0);
	assert_string_equal(e.step, "batch");
	assert_int_equal(e.local_size, 1);
	assert_int_equal(e.nodes, 0); /* the job's nodes, but the script runs on one */
	assert_string_equal(e.key, "9.batch");
}

/* mpirun under Slurm: Open MPI's local rank, not its daemon's SLURM_LOCALID. */
static void test_openmpi_under_slurm(void **state)
{
	const char *env[] = {"SLURM_JOB_ID=5", "SLURM_STEP_ID=1", "SLURM_LOCALID=0",
			     "SLURM_PROCID=0", "SLURM_STEP_TASKS_PER_NODE=1",
			     "OMPI_COMM_WORLD_LOCAL_RANK=3", "OMPI_COMM_WORLD_LOCAL_SIZE=4",
			     "OMPI_COMM_WORLD_RANK=11", "PMIX_NAMESPACE=prterun-x-1@1",
			     "SLURMD_NODENAME=n", NULL};
	struct jobenv e;

	(void)state;
	assert_int_equal(jobenv__read(&e, tab_get, env), 0);
	assert_string_equal(e.launcher, "openmpi");
	assert_int_equal(e.local_rank, 3);
	assert_int_equal(e.local_size, 4);
	assert_int_equal(e.rank, 11);
	assert_string_equal(e.key, "prterun-x-1_1");
	assert_string_equal(e.job_id, "5");
}

static void test_mpich_pmix_rank(void **state)
{
	const char *env[] = {"MPI_LOCALRANKID=0", "MPI_LOCALNRANKS=2", "PMIX_RANK=6",
			     "SLURMD_NODENAME=n", NULL};
	const char *bad[] = {"SLURM_LOCALID=x", NULL};
	struct jobenv e;

	(void)state;
	assert_int_equal(jobenv__read(&e, tab_get, env), 0);
	assert_string_equal(e.launcher, "mpich");
	assert_int_equal(e.rank, 6);
	assert_int_equal(e.local_size, 2);
	assert_string_equal(e.key, "");
	assert_int_equal(jobenv__read(&e, tab_get, bad), -EINVAL);
}

/*
 * Nodes that share a TMPDIR (one file system, or several nodes on one
 * machine) get a rendezvous each: the key names the host.
 */
static void test_rdv_key(void **state)
{
	const char *n1[] = {"SLURM_JOB_ID=12", "SLURM_STEP_ID=0", "SLURM_LOCALID=1",
			    "SLURMD_NODENAME=node1", NULL};
	const char *n2[] = {"SLURM_JOB_ID=12", "SLURM_STEP_ID=0", "SLURM_LOCALID=1",
			    "SLURMD_NODENAME=node2", NULL};
	const char *mpich[] = {"MPI_LOCALRANKID=0", "SLURMD_NODENAME=cn7", NULL};
	char k1[64], k2[64];
	struct jobenv e;

	(void)state;
	assert_int_equal(jobenv__read(&e, tab_get, n1), 0);
	assert_int_equal(jobenv__rdv_key(&e, 1, 2, k1, sizeof(k1)), 0);
	assert_string_equal(k1, "12.0.node1");
	assert_int_equal(jobenv__rdv_key(&e, 1, 2, k1, 10), -ENAMETOOLONG);
	assert_int_equal(jobenv__read(&e, tab_get, n2), 0);
	assert_int_equal(jobenv__rdv_key(&e, 1, 2, k2, sizeof(k2)), 0);
	assert_string_equal(k2, "12.0.node2");
	/* No step variable: the ranks' common parent names it, and the host. */
	assert_int_equal(jobenv__read(&e, tab_get, mpich), 0);
	assert_int_equal(jobenv__rdv_key(&e, 42, 7, k1, sizeof(k1)), 0);
	assert_string_equal(k1, "ppid42.7.cn7");
	/* Output names: one that differs between nodes, or one they share. */
	assert_true(jobenv__per_node("perf.%j.%h.data"));
	assert_true(jobenv__per_node("%r.data"));
	assert_true(jobenv__per_node("x.%p"));
	assert_false(jobenv__per_node("perf.%j.data"));
	assert_false(jobenv__per_node("perf.%%h.data"));
	assert_false(jobenv__per_node("perf%"));
	assert_false(jobenv__per_node("perf.data"));
}

static void test_tasks_on_node(void **state)
{
	(void)state;
	assert_int_equal(jobenv__tasks_on_node("2", 0), 2);
	assert_int_equal(jobenv__tasks_on_node("2", 1), 0);
	assert_int_equal(jobenv__tasks_on_node("2(x3),1", 2), 2);
	assert_int_equal(jobenv__tasks_on_node("2(x3),1", 3), 1);
	assert_int_equal(jobenv__tasks_on_node("1,5(x2)", 2), 5);
	assert_int_equal(jobenv__tasks_on_node("2(x", 0), 0);
	assert_int_equal(jobenv__tasks_on_node("a", 0), 0);
	assert_int_equal(jobenv__tasks_on_node("", 0), 0);
}

static void test_expand(void **state)
{
	const char *env[] = {"SLURM_JOB_ID=77", "SLURM_STEP_ID=0", "SLURM_LOCALID=0",
			     "SLURM_PROCID=4", "SLURMD_NODENAME=cn2", NULL};
	struct jobenv e, none;
	char out[64], err[128];

	(void)state;
	assert_int_equal(jobenv__read(&e, tab_get, env), 0);
	assert_int_equal(jobenv__expand(&e, "perf.%j.%h.data", 9, out, sizeof(out), err,
					sizeof(err)), 0);
	assert_string_equal(out, "perf.77.cn2.data");
	assert_int_equal(jobenv__expand(&e, "%s-%r-%p-100%%", 9, out, sizeof(out), err,
					sizeof(err)), 0);
	assert_string_equal(out, "0-4-9-100%");
	assert_int_equal(jobenv__expand(&e, "x%q", 9, out, sizeof(out), err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "%q"));
	assert_int_equal(jobenv__expand(&e, "%j%j%j%j%j%j%j%j%j%j%j%j%j%j%j%j%j%j%j%j%j%j%j%j%j%j%j%j%j%j%j%j",
					9, out, sizeof(out), err, sizeof(err)), -ENAMETOOLONG);
	memset(&none, 0, sizeof(none));
	assert_int_equal(jobenv__expand(&none, "%j.%s", 1, out, sizeof(out), err, sizeof(err)), 0);
	assert_string_equal(out, "nojob.nostep");
}

static void test_job_cgroup(void **state)
{
	const char *v2 = "0::/system.slice/cn1_slurmstepd.scope/job_1234/step_0/user/task_0\n";
	const char *hybrid = "12:pids:/slurm/job_1234\n1:name=systemd:/x\n"
			     "0::/system.slice/slurmstepd.scope/job_12345/step_0\n";
	const char *none = "0::/\n";
	char out[256];

	(void)state;
	assert_int_equal(jobenv__job_cgroup(v2, "1234", out, sizeof(out)), 0);
	assert_string_equal(out, "system.slice/cn1_slurmstepd.scope/job_1234");
	/* job_12345 is not job_1234; and only the cgroup v2 line counts. */
	assert_int_equal(jobenv__job_cgroup(hybrid, "1234", out, sizeof(out)), -ENOENT);
	assert_int_equal(jobenv__job_cgroup(hybrid, "12345", out, sizeof(out)), 0);
	assert_string_equal(out, "system.slice/slurmstepd.scope/job_12345");
	assert_int_equal(jobenv__job_cgroup(none, "1", out, sizeof(out)), -ENOENT);
	assert_int_equal(jobenv__job_cgroup("0::/job_8", "8", out, sizeof(out)), 0);
	assert_string_equal(out, "job_8");
	assert_int_equal(jobenv__job_cgroup(v2, "1234", out, 8), -ENAMETOOLONG);
}

/* KillWait in slurm.conf's text: any case, beside other keys, never from a comment. */
static void test_kill_wait(void **state)
{
	(void)state;
	assert_int_equal(jobenv__kill_wait("ClusterName=c\nKillWait=45\n"), 45);
	assert_int_equal(jobenv__kill_wait("MinJobAge=300 killwait=7 # KillWait=9\n"), 7);
	assert_int_equal(jobenv__kill_wait("#KillWait=9\nInactiveLimit=0\n"), -1);
	assert_int_equal(jobenv__kill_wait("KillWait=x\nOverKillWait=3\n"), -1);
	assert_int_equal(jobenv__kill_wait("KillWait=5\r\nKillWait=6"), 6);
	assert_int_equal(jobenv__kill_wait(""), -1);
}

/* A rank registers; the recorder sees it alive, then gone once its pid is. */
static void test_rendezvous(void **state)
{
	char key[64], tmpl[] = "/tmp/test_jobenv.XXXXXX", err[256];
	unsigned reg, alive;
	struct rdv_rank *v;
	struct rdv r, r2;
	size_t nr;
	pid_t child;
	int status;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	setenv("TMPDIR", tmpl, 1);
	snprintf(key, sizeof(key), "unit.%d", (int)getpid());
	assert_int_equal(rdv__open(&r, NULL, key, err, sizeof(err)), 0);
	assert_int_equal(rdv__wait_ready(&r, 30), -ETIMEDOUT);
	assert_int_equal(rdv__register(&r, 1, 7, 0), 0);
	assert_int_equal(rdv__scan(&r, &reg, &alive), 0);
	assert_int_equal(reg, 1);
	assert_int_equal(alive, 1);
	child = fork();
	assert_true(child >= 0);
	if (!child) {
		/* A second rank: registered, then exits. */
		_exit(rdv__open(&r2, NULL, key, err, sizeof(err)) || rdv__register(&r2, 2, 8, 0) ||
		      rdv__register(&r2, 2, 8, 4242) || rdv__put_exit(&r2, 2, 130));
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_int_equal(status, 0);
	assert_int_equal(rdv__scan(&r, &reg, &alive), 0);
	assert_int_equal(reg, 2);
	assert_int_equal(alive, 1);
	/* The rank map: by local rank, the app's pid and status once said. */
	assert_int_equal(rdv__ranks(&r, &v, &nr), 0);
	assert_int_equal(nr, 2);
	assert_int_equal(v[0].local_rank, 1);
	assert_int_equal(v[0].rank, 7);
	assert_int_equal(v[0].pid, getpid());
	assert_int_equal(v[0].app_pid, 0);
	assert_true(v[0].alive);
	assert_int_equal(v[0].exit_status, -1);
	assert_int_equal(v[1].local_rank, 2);
	assert_int_equal(v[1].rank, 8);
	assert_int_equal(v[1].pid, child);
	assert_int_equal(v[1].app_pid, 4242);
	assert_false(v[1].alive);
	assert_int_equal(v[1].exit_status, 130);
	free(v);
	assert_int_equal(rdv__set_ready(&r, false), 0);
	assert_int_equal(rdv__wait_ready(&r, 0), RDV_UNRECORDED);
	assert_int_equal(rdv__set_ready(&r, true), 0);
	assert_int_equal(rdv__wait_ready(&r, 0), RDV_RECORDING);
	rdv__remove(&r);
	assert_int_equal(access(r.dir, F_OK), -1);
	rdv__close(&r);
	rdv__close(&r);
	assert_int_equal(rmdir(tmpl), 0);
	assert_int_equal(rdv__proc_start(child), 0);
	assert_true(rdv__proc_start(getpid()) > 0);
}

/* A node is the job's alone only when Slurm gave it every online CPU. */
static void test_exclusive(void **state)
{
	const char *shared[] = {"SLURM_JOB_ID=7", "SLURM_STEP_ID=0", "SLURM_LOCALID=0",
				"SLURM_CPUS_ON_NODE=2", NULL};
	const char *nojob[] = {"OMPI_COMM_WORLD_LOCAL_RANK=0", NULL};
	struct jobenv e;

	(void)state;
	assert_int_equal(jobenv__read(&e, tab_get, (void *)shared), 0);
	assert_int_equal(e.cpus_on_node, 2);
	assert_false(jobenv__exclusive(&e, 4));
	assert_true(jobenv__exclusive(&e, 2));
	assert_false(jobenv__exclusive(&e, 0));
	assert_int_equal(jobenv__read(&e, tab_get, (void *)nojob), 0);
	assert_false(jobenv__exclusive(&e, 1));
}

/* The node-local directory: $SLURM_TMPDIR, $TMPDIR, /tmp. */
static void test_local_dir(void **state)
{
	const char *both[] = {"SLURM_TMPDIR=/local/job7", "TMPDIR=/scratch", NULL};
	const char *tmp[] = {"SLURM_TMPDIR=", "TMPDIR=/scratch", NULL};
	const char *none[] = {NULL};

	(void)state;
	assert_string_equal(jobenv__local_dir(tab_get, (void *)both), "/local/job7");
	assert_string_equal(jobenv__local_dir(tab_get, (void *)tmp), "/scratch");
	assert_string_equal(jobenv__local_dir(tab_get, (void *)none), "/tmp");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outside),
		cmocka_unit_test(test_srun),
		cmocka_unit_test(test_batch_script),
		cmocka_unit_test(test_openmpi_under_slurm),
		cmocka_unit_test(test_mpich_pmix_rank),
		cmocka_unit_test(test_rdv_key),
		cmocka_unit_test(test_tasks_on_node),
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_job_cgroup),
		cmocka_unit_test(test_kill_wait),
		cmocka_unit_test(test_rendezvous),
		cmocka_unit_test(test_exclusive),
		cmocka_unit_test(test_local_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
