// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for numa/: writer plans on machines we do not have (hwloc XML
 * and synthetic topologies), CPU lists, --threads parsing, and placement on
 * this machine.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "numa/numa.h"
#include "unit_util.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_CPUS 512

/*
 * The machines. OS CPU numbers follow Linux's habit of numbering the first
 * thread of every core before the second ones, so topology order and OS
 * order differ, as on the real machines.
 */
struct machine {
	const char *name;
	struct topo *t;
	int nr_cpus;
	int (*node_of_cpu)(int cpu); /* the DRAM node the CPU is local to */
	/* package, L3 domain (node on KNL: no L3) and core of a CPU, for auto */
	int (*package_of_cpu)(int cpu), (*l3_of_cpu)(int cpu), (*core_of_cpu)(int cpu);
	/* expected writer counts recording every CPU */
	size_t numa, package, l3, core, auto_;
};

static int zero(int cpu) { return cpu - cpu; }
static int itself(int cpu) { return cpu; }

/* Xeon Phi 7250 in SNC-4 flat mode: 4 clusters x 17 cores x 4 threads, MCDRAM nodes 4-7. */
static int knl_node(int cpu) { return cpu % 68 / 17; }
static int knl_core(int cpu) { return cpu % 68; }

/* 2 x 28 cores x 2 threads, one node and one L3 per package. */
static int two_socket_node(int cpu) { return cpu % 56 / 28; }
static int two_socket_core(int cpu) { return cpu % 56; }

/* AMD-like (NPS2): 2 packages x 2 nodes x 2 L3 x 4 cores x 2 threads. */
static int amd_node(int cpu) { return cpu % 32 / 8; }
static int amd_package(int cpu) { return cpu % 32 / 16; }
static int amd_l3(int cpu) { return cpu % 32 / 4; }
static int amd_core(int cpu) { return cpu % 32; }

/* EPYC-like in NPS1: one package, one node, 16 L3s of 8 one-thread cores. */
static int epyc_l3(int cpu) { return cpu / 8; }

static struct machine machines[] = {
    {"knl-snc4", NULL, 272, knl_node, zero, knl_node, knl_core, 4, 1, 1, 68, 36},
    {"2-socket", NULL, 112, two_socket_node, two_socket_node, two_socket_node, two_socket_core, 2,
     2, 2, 56, 14},
    {"amd-like", NULL, 64, amd_node, amd_package, amd_l3, amd_core, 4, 2, 8, 32, 8},
    {"epyc-1node", NULL, 128, zero, zero, epyc_l3, itself, 1, 1, 16, 128, 16},
};

/* "pu:N(indexes=...)": OS index of each PU in topology order, cpu = thread * cores + core. */
static void synthetic_indexes(char *buf, size_t len, int cores, int threads)
{
	size_t pos = 0;

	for (int c = 0; c < cores; c++)
		for (int th = 0; th < threads; th++)
			pos +=
			    snprintf(buf + pos, len - pos, "%s%d", pos ? "," : "", th * cores + c);
}

static struct topo *load(const char *xml, const char *synthetic)
{
	struct topo_params p = {.xml_path = xml, .synthetic = synthetic};
	char err[256] = "";
	struct topo *t = topo__load(&p, err, sizeof(err));

	if (!t)
		fprintf(stderr, "topo__load: %s\n", err);
	return t;
}

static int machines_setup(void **state)
{
	char idx[2048], spec[4096], path[PATH_MAX];

	(void)state;
	unit_data_path(path, sizeof(path), "knl-snc4.xml");
	machines[0].t = load(path, NULL);
	synthetic_indexes(idx, sizeof(idx), 56, 2);
	snprintf(spec, sizeof(spec), "pack:2 [numa] l3:1 core:28 pu:2(indexes=%s)", idx);
	machines[1].t = load(NULL, spec);
	synthetic_indexes(idx, sizeof(idx), 32, 2);
	snprintf(spec, sizeof(spec), "pack:2 group:2 [numa] l3:2 core:4 pu:2(indexes=%s)", idx);
	machines[2].t = load(NULL, spec);
	machines[3].t = load(NULL, "pack:1 [numa] l3:16 core:8 pu:1");
	for (size_t m = 0; m < ARRAY_SIZE(machines); m++)
		if (!machines[m].t)
			return -1;
	return 0;
}

static int machines_teardown(void **state)
{
	(void)state;
	for (size_t m = 0; m < ARRAY_SIZE(machines); m++) {
		topo__delete(machines[m].t);
		machines[m].t = NULL;
	}
	return 0;
}

static struct plan_spec spec_of(const char *s)
{
	struct plan_spec spec;
	char err[256];

	assert_int_equal(plan_spec__parse(s, &spec, err, sizeof(err)), 0);
	return spec;
}

/*
 * The invariants of every plan: each recorded CPU in exactly one group,
 * groups non-empty and ascending, the writer's node a DRAM node holding the
 * most of its CPUs (so never a CPU-less one), affinity = CPUs.
 */
static void check_plan(const struct machine *m, const struct plan *plan, const int *cpus, size_t nr)
{
	int seen[MAX_CPUS] = {0}, per_node[8];
	size_t total = 0;

	for (size_t i = 0; i < nr; i++)
		seen[cpus[i]] = -1;
	for (size_t g = 0; g < plan->nr_groups; g++) {
		const struct plan_group *grp = &plan->groups[g];

		assert_true(grp->nr_cpus > 0);
		memset(per_node, 0, sizeof(per_node));
		for (size_t i = 0; i < grp->nr_cpus; i++) {
			assert_int_equal(seen[grp->cpus[i]], -1); /* recorded, not seen yet */
			seen[grp->cpus[i]] = 1;
			if (i)
				assert_true(grp->cpus[i - 1] < grp->cpus[i]);
			per_node[m->node_of_cpu(grp->cpus[i])]++;
		}
		total += grp->nr_cpus;
		assert_in_range(grp->node, 0, 3); /* KNL's MCDRAM nodes are 4-7 */
		for (int n = 0; n < 8; n++)
			assert_true(per_node[grp->node] >= per_node[n]);
		assert_int_equal(grp->nr_affinity, grp->nr_cpus);
		assert_memory_equal(grp->affinity, grp->cpus, grp->nr_cpus * sizeof(int));
	}
	assert_int_equal(total, nr);
}

static size_t build_checked(const struct machine *m, const char *policy, const int *cpus, size_t nr,
			    struct plan *plan)
{
	struct plan_spec spec = spec_of(policy);
	char err[256] = "";
	int ret = plan__build(plan, m->t, &spec, cpus, nr, err, sizeof(err));

	if (ret)
		fail_msg("%s --threads %s: %d %s", m->name, policy, ret, err);
	check_plan(m, plan, cpus, nr);
	return plan->nr_groups;
}

/* Writer count of @policy on @m recording @cpus; the invariants checked. */
static size_t groups_of(const struct machine *m, const char *policy, const int *cpus, size_t nr)
{
	struct plan plan;
	size_t n = build_checked(m, policy, cpus, nr, &plan);

	plan__release(&plan);
	return n;
}

static size_t all_cpus(const struct machine *m, int *cpus)
{
	int n = topo__all_cpus(m->t, cpus, MAX_CPUS);

	assert_int_equal(n, m->nr_cpus);
	for (int i = 0; i < n; i++)
		assert_int_equal(cpus[i], i);
	return (size_t)n;
}

static void check_balanced(const struct machine *m, const char *policy, const int *cpus, size_t nr,
			   size_t want)
{
	struct plan plan;
	size_t lo = SIZE_MAX, hi = 0;

	assert_int_equal(build_checked(m, policy, cpus, nr, &plan), want);
	for (size_t g = 0; g < plan.nr_groups; g++) {
		lo = plan.groups[g].nr_cpus < lo ? plan.groups[g].nr_cpus : lo;
		hi = plan.groups[g].nr_cpus > hi ? plan.groups[g].nr_cpus : hi;
	}
	assert_true(hi - lo <= 1);
	plan__release(&plan);
}

static void test_policies_all_cpus(void **state)
{
	int cpus[MAX_CPUS];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(machines); i++) {
		const struct machine *m = &machines[i];
		size_t n = all_cpus(m, cpus);

		assert_int_equal(topo__nr_cpus(m->t), m->nr_cpus);
		assert_false(topo__is_this_system(m->t));
		assert_int_equal(groups_of(m, "numa", cpus, n), m->numa);
		assert_int_equal(groups_of(m, "", cpus, n), m->auto_);
		assert_int_equal(groups_of(m, "auto", cpus, n), m->auto_);
		assert_int_equal(groups_of(m, "package", cpus, n), m->package);
		assert_int_equal(groups_of(m, "l3", cpus, n), m->l3);
		assert_int_equal(groups_of(m, "cache", cpus, n), m->l3);
		assert_int_equal(groups_of(m, "core", cpus, n), m->core);
		assert_int_equal(groups_of(m, "cpu", cpus, n), n);
		check_balanced(m, "3", cpus, n, 3);
		check_balanced(m, "1", cpus, n, 1);
		check_balanced(m, "1000", cpus, n, n); /* capped at one per CPU */
	}
}

/* On KNL each cluster is one writer: its CPUs are 4 OS-number ranges 68 apart. */
static void test_knl_numa_groups(void **state)
{
	const struct machine *m = &machines[0];
	int cpus[MAX_CPUS];
	size_t n = all_cpus(m, cpus);
	struct plan plan;
	char buf[128];

	(void)state;
	assert_int_equal(build_checked(m, "numa", cpus, n, &plan), 4);
	for (int g = 0; g < 4; g++) {
		assert_int_equal(plan.groups[g].node, g);
		assert_int_equal(plan.groups[g].nr_cpus, 68);
	}
	assert_string_equal(
	    cpulist__format(plan.groups[1].cpus, plan.groups[1].nr_cpus, buf, sizeof(buf)),
	    "17-33,85-101,153-169,221-237");
	plan__release(&plan);
	/* N = 4 in topology order is the clusters again, not OS-number quarters. */
	assert_int_equal(build_checked(m, "4", cpus, n, &plan), 4);
	assert_int_equal(plan.groups[3].cpus[0], 51);
	assert_int_equal(plan.groups[3].node, 3);
	plan__release(&plan);
}

/* Another machine's plan from -C text, or from all of its CPUs (record --dry-run). */
static void test_build_list(void **state)
{
	const struct machine *m = &machines[0];
	struct plan_spec spec;
	struct plan plan;
	char err[256];
	size_t total = 0;

	(void)state;
	assert_int_equal(plan_spec__parse("numa", &spec, err, sizeof(err)), 0);
	assert_int_equal(plan__build_list(&plan, m->t, &spec, NULL, err, sizeof(err)), 0);
	assert_int_equal(plan.nr_groups, 4);
	for (size_t g = 0; g < plan.nr_groups; g++)
		total += plan.groups[g].nr_cpus;
	assert_int_equal(total, 272);
	plan__release(&plan);
	assert_int_equal(plan__build_list(&plan, m->t, &spec, "0,17,200-203", err, sizeof(err)), 0);
	assert_int_equal(plan.nr_groups, 3);
	assert_int_equal(plan.groups[2].node, 3);
	assert_int_equal(plan.groups[2].nr_cpus, 4);
	plan__release(&plan);
	assert_int_equal(plan__build_list(&plan, m->t, &spec, "0-x", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "0-x"));
	assert_int_equal(plan__build_list(&plan, m->t, &spec, "272", err, sizeof(err)), -EINVAL);
	assert_int_equal(plan.nr_groups, 0);
}

static size_t range(int *cpus, int lo, int hi)
{
	size_t n = 0;

	for (int c = lo; c <= hi; c++)
		cpus[n++] = c;
	return n;
}

/* -C subsets: only the nodes/packages/caches holding recorded CPUs get writers. */
static void test_policies_subsets(void **state)
{
	const struct machine *knl = &machines[0], *two = &machines[1], *amd = &machines[2];
	int cpus[MAX_CPUS];
	size_t n;

	(void)state;
	n = range(cpus, 0, 9);
	assert_int_equal(groups_of(knl, "numa", cpus, n), 1);
	assert_int_equal(groups_of(knl, "core", cpus, n), 10);
	check_balanced(knl, "3", cpus, n, 3);
	n = range(cpus, 10, 25); /* clusters 0 and 1 */
	assert_int_equal(groups_of(knl, "numa", cpus, n), 2);
	assert_int_equal(groups_of(knl, "package", cpus, n), 1);
	int smt[] = {204, 0, 136, 68}; /* one core's threads, any order */
	assert_int_equal(groups_of(knl, "core", smt, 4), 1);
	assert_int_equal(groups_of(knl, "numa", smt, 4), 1);
	n = range(cpus, 20, 35); /* both packages of the 2-socket box */
	assert_int_equal(groups_of(two, "numa", cpus, n), 2);
	assert_int_equal(groups_of(two, "package", cpus, n), 2);
	assert_int_equal(groups_of(two, "core", cpus, n), n);
	n = range(cpus, 0, 5);
	cpus[n++] = 56; /* SMT sibling of CPU 0 */
	assert_int_equal(groups_of(two, "core", cpus, n), 6);
	n = range(cpus, 6, 9); /* amd: L3 1 (CPUs 4-7) and node 1 (8-15) */
	assert_int_equal(groups_of(amd, "l3", cpus, n), 2);
	assert_int_equal(groups_of(amd, "numa", cpus, n), 2);
	assert_int_equal(groups_of(amd, "package", cpus, n), 1);
	check_balanced(amd, "3", cpus, n, 3);
	check_balanced(amd, "9", cpus, n, n);
}

/* A writer spanning nodes uses the node with most of its CPUs. */
static void test_group_node_majority(void **state)
{
	const struct machine *knl = &machines[0];
	int cpus[] = {16, 17, 18, 85}; /* 16 in cluster 0; 17, 18, 85 in cluster 1 */
	struct plan plan;

	(void)state;
	assert_int_equal(build_checked(knl, "1", cpus, ARRAY_SIZE(cpus), &plan), 1);
	assert_int_equal(plan.groups[0].node, 1);
	plan__release(&plan);
}

static int build_err(const struct machine *m, const char *policy, const int *cpus, size_t nr,
		     char *err, size_t errlen)
{
	struct plan_spec spec = spec_of(policy);
	struct plan plan;
	int ret;

	err[0] = '\0';
	ret = plan__build(&plan, m->t, &spec, cpus, nr, err, errlen);
	if (!ret)
		plan__release(&plan);
	return ret;
}

static void test_build_errors(void **state)
{
	const struct machine *knl = &machines[0];
	int bad[] = {0, 272}, neg[] = {-1}, dup[] = {3, 3, 2};
	char err[256];
	struct plan plan;

	(void)state;
	assert_int_equal(build_err(knl, "numa", bad, 2, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "CPU 272"));
	assert_int_equal(build_err(knl, "cpu", neg, 1, err, sizeof(err)), -EINVAL);
	assert_int_equal(build_err(knl, "cpu", dup, 0, err, sizeof(err)), -EINVAL);
	/* Duplicates are recorded once. */
	assert_int_equal(build_checked(knl, "cpu", dup + 1, 2, &plan), 2);
	plan__release(&plan);
	plan__release(NULL);
}

static void test_user_spec(void **state)
{
	const struct machine *amd = &machines[2];
	int cpus[MAX_CPUS];
	size_t n = range(cpus, 0, 7);
	struct plan_spec spec = spec_of("0-3/0:4-7/4");
	struct plan plan;
	char err[256] = "";

	(void)state;
	assert_int_equal(spec.policy, PLAN_USER);
	assert_int_equal(plan__build(&plan, amd->t, &spec, cpus, n, err, sizeof(err)), 0);
	assert_int_equal(plan.nr_groups, 2);
	assert_int_equal(plan.groups[1].nr_cpus, 4);
	assert_int_equal(plan.groups[1].cpus[0], 4);
	assert_int_equal(plan.groups[1].nr_affinity, 1);
	assert_int_equal(plan.groups[1].affinity[0], 4);
	assert_int_equal(plan.groups[1].node, 0);
	plan__release(&plan);

	/* Unnamed recorded CPUs still get a reader: one extra writer. */
	n = range(cpus, 0, 63);
	assert_int_equal(plan__build(&plan, amd->t, &spec, cpus, n, err, sizeof(err)), 0);
	assert_int_equal(plan.nr_groups, 3);
	assert_int_equal(plan.groups[2].nr_cpus, 56);
	plan__release(&plan);

	/* Affinity elsewhere: the writer's memory follows the affinity (node 2: CPUs 16-23). */
	spec = spec_of("0-7/16-17");
	assert_int_equal(plan__build(&plan, amd->t, &spec, cpus, 8, err, sizeof(err)), 0);
	assert_int_equal(plan.nr_groups, 1);
	assert_int_equal(plan.groups[0].node, 2);
	plan__release(&plan);

	n = range(cpus, 0, 7);
	assert_int_equal(build_err(amd, "32-40/32", cpus, n, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--threads spec names no recorded CPU");
	assert_int_equal(build_err(amd, "0-3:2-5", cpus, n, err, sizeof(err)), -EINVAL);
	assert_int_equal(build_err(amd, "0-3/900", cpus, n, err, sizeof(err)), -EINVAL);
}

static void test_spec_parse(void **state)
{
	static const char *const bad[] = {
	    "bogus", "NUMA", "0",   "-1",    "99999999999", "0-3/",    "/0",  "0-3::4-7",
	    ":0",    "0-3:", "3-1", "0-3/x", "1.5",	    "0-3/0/1", "l3 ",
	};
	struct plan_spec spec;
	char err[256], longspec[300];

	(void)state;
	assert_int_equal(spec_of(NULL).policy, PLAN_AUTO);
	assert_int_equal(spec_of("").policy, PLAN_AUTO);
	assert_int_equal(spec_of("").cap, PLAN_AUTO_CAP);
	assert_int_equal(spec_of("auto").policy, PLAN_AUTO);
	assert_int_equal(spec_of("numa").policy, PLAN_NUMA);
	assert_int_equal(spec_of("package").policy, PLAN_PACKAGE);
	assert_int_equal(spec_of("l3").policy, PLAN_L3);
	assert_int_equal(spec_of("cache").policy, PLAN_L3);
	assert_int_equal(spec_of("core").policy, PLAN_CORE);
	assert_int_equal(spec_of("cpu").policy, PLAN_CPU);
	spec = spec_of("12");
	assert_int_equal(spec.policy, PLAN_COUNT);
	assert_int_equal(spec.count, 12);
	spec = spec_of("0-3,8/0:4-7");
	assert_int_equal(spec.policy, PLAN_USER);
	assert_string_equal(spec.user, "0-3,8/0:4-7");
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		err[0] = '\0';
		if (plan_spec__parse(bad[i], &spec, err, sizeof(err)) != -EINVAL)
			fail_msg("--threads \"%s\" accepted", bad[i]);
		assert_true(err[0] != '\0');
	}
	memset(longspec, '1', sizeof(longspec) - 1);
	longspec[sizeof(longspec) - 1] = '\0';
	longspec[1] = '/';
	assert_int_equal(plan_spec__parse(longspec, &spec, err, sizeof(err)), -EINVAL);
}

static void test_plan_print(void **state)
{
	const struct machine *knl = &machines[0];
	int cpus[MAX_CPUS];
	size_t n = all_cpus(knl, cpus), len;
	struct plan plan;
	char *text = NULL;
	FILE *out;

	(void)state;
	build_checked(knl, "numa", cpus, n, &plan);
	out = open_memstream(&text, &len);
	assert_non_null(out);
	plan__print(&plan, knl->t, 1 << 18, out); /* 256 KiB per CPU: 17 MiB per node */
	fclose(out);
	assert_non_null(strstr(text, "writer  node  cpus"));
	assert_non_null(strstr(text, "\n1       1     17-33,85-101,153-169,221-237  68\n"));
	assert_non_null(strstr(text, "ring memory: node0 17.0 MiB, node1 17.0 MiB, node2 17.0 "
				     "MiB, node3 17.0 MiB\n"));
	assert_non_null(strstr(text, "memory-only nodes (no writer): 4 (MCDRAM), 5 (MCDRAM)"));
	assert_non_null(strstr(text, "writers: 4\n"));
	free(text);
	plan__release(&plan);
}

/* Plan on a synthetic topology; the plan__print text in @text (caller frees). */
static size_t synthetic_plan(const char *synthetic, const char *policy, int *node0, char **text)
{
	struct topo *t = load(NULL, synthetic);
	struct plan_spec spec = spec_of(policy);
	int cpus[MAX_CPUS], n;
	struct plan plan;
	char err[256];
	size_t len, groups;
	FILE *out;

	assert_non_null(t);
	n = topo__all_cpus(t, cpus, MAX_CPUS);
	assert_int_equal(plan__build(&plan, t, &spec, cpus, n, err, sizeof(err)), 0);
	groups = plan.nr_groups;
	*node0 = plan.groups[groups - 1].node;
	out = open_memstream(text, &len);
	assert_non_null(out);
	plan__print(&plan, t, 4096, out);
	fclose(out);
	plan__release(&plan);
	topo__delete(t);
	return groups;
}

/* True when every recorded CPU of a same-@key unit (core, L3) of @cpu is in @g. */
static bool unit_whole(int (*key)(int), int cpu, int *group_of, size_t g)
{
	if (group_of[key(cpu)] < 0)
		group_of[key(cpu)] = (int)g;
	return group_of[key(cpu)] == (int)g;
}

/*
 * Every group of @plan inside one package and node of @m, at most @cap CPUs,
 * whole cores; an L3 with at most @cap recorded CPUs whole, a larger one
 * alone in its groups.
 */
static void check_auto_groups(const struct machine *m, const struct plan *plan, size_t cap)
{
	int group_of_core[MAX_CPUS], group_of_l3[MAX_CPUS], l3_cpus[MAX_CPUS] = {0};

	memset(group_of_core, -1, sizeof(group_of_core));
	memset(group_of_l3, -1, sizeof(group_of_l3));
	for (size_t g = 0; g < plan->nr_groups; g++)
		for (size_t i = 0; i < plan->groups[g].nr_cpus; i++)
			l3_cpus[m->l3_of_cpu(plan->groups[g].cpus[i])]++;
	for (size_t g = 0; g < plan->nr_groups; g++) {
		const struct plan_group *grp = &plan->groups[g];
		int first = grp->cpus[0];

		assert_true(grp->nr_cpus <= cap);
		for (size_t i = 0; i < grp->nr_cpus; i++) {
			int cpu = grp->cpus[i], l3 = m->l3_of_cpu(cpu);

			assert_int_equal(m->package_of_cpu(cpu), m->package_of_cpu(first));
			assert_int_equal(m->node_of_cpu(cpu), m->node_of_cpu(first));
			assert_true(unit_whole(m->core_of_cpu, cpu, group_of_core, g));
			if ((size_t)l3_cpus[l3] <= cap)
				assert_true(unit_whole(m->l3_of_cpu, cpu, group_of_l3, g));
			else
				assert_int_equal(l3, m->l3_of_cpu(first));
		}
	}
}

/* Smallest and largest group of @plan. */
static void group_sizes(const struct plan *plan, size_t *lo, size_t *hi)
{
	*lo = SIZE_MAX, *hi = 0;
	for (size_t g = 0; g < plan->nr_groups; g++) {
		*lo = plan->groups[g].nr_cpus < *lo ? plan->groups[g].nr_cpus : *lo;
		*hi = plan->groups[g].nr_cpus > *hi ? plan->groups[g].nr_cpus : *hi;
	}
}

/*
 * The default plan on the four machines of the README: KNL 36 writers (each
 * cluster's 17 four-thread cores as 8 x 2 cores + 1), 2-socket 14 x 8 CPUs,
 * AMD-like one per L3 (8 x 8), EPYC-like one node one per L3 (16 x 8).
 */
static void test_auto_default(void **state)
{
	static const size_t lo_want[] = {4, 8, 8, 8};
	int cpus[MAX_CPUS];
	struct plan plan;
	size_t lo, hi;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(machines); i++) {
		const struct machine *m = &machines[i];
		size_t n = all_cpus(m, cpus);

		assert_int_equal(build_checked(m, "", cpus, n, &plan), m->auto_);
		check_auto_groups(m, &plan, PLAN_AUTO_CAP);
		group_sizes(&plan, &lo, &hi);
		assert_int_equal(lo, lo_want[i]);
		assert_int_equal(hi, 8);
		plan__release(&plan);
	}
}

/* Sizes as even as whole cores allow, the cap from the environment, -C subsets. */
static void test_auto_cap(void **state)
{
	const struct machine *two = &machines[1], *amd = &machines[2];
	int cpus[MAX_CPUS], node;
	size_t n = all_cpus(two, cpus), lo, hi;
	struct plan_spec spec;
	struct plan plan;
	char err[256], *text;

	(void)state;
	/* 68 one-thread cores: 9 groups of 7-8, not 8 x 8 + 4. */
	assert_int_equal(synthetic_plan("pack:1 [numa] core:68 pu:1", "", &node, &text), 9);
	free(text);
	assert_int_equal(setenv(PLAN_AUTO_CAP_ENV, "16", 1), 0);
	/* 4 x 7 cores per package */
	assert_int_equal(build_checked(two, "auto", cpus, n, &plan), 8);
	check_auto_groups(two, &plan, 16);
	group_sizes(&plan, &lo, &hi);
	assert_true(lo == 14 && hi == 14);
	plan__release(&plan);
	/* A cap below a core's threads: one core per writer. */
	assert_int_equal(setenv(PLAN_AUTO_CAP_ENV, "1", 1), 0);
	assert_int_equal(groups_of(two, "", cpus, n), 56);
	for (const char *bad = "0"; bad; bad = strcmp(bad, "0") ? NULL : "x8") {
		assert_int_equal(setenv(PLAN_AUTO_CAP_ENV, bad, 1), 0);
		assert_int_equal(plan_spec__parse("auto", &spec, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, PLAN_AUTO_CAP_ENV));
	}
	assert_int_equal(unsetenv(PLAN_AUTO_CAP_ENV), 0);
	/* -C: 6 CPUs of one L3 (cores 0-2, both threads) and 1 of the next: whole L3s packed. */
	n = 0;
	for (int c = 0; c < 3; c++)
		cpus[n++] = c, cpus[n++] = c + 32;
	cpus[n++] = 4;
	assert_int_equal(build_checked(amd, "", cpus, n, &plan), 1);
	check_auto_groups(amd, &plan, PLAN_AUTO_CAP);
	plan__release(&plan);
	/* With core 3 too, 8 + 1 CPUs: cut at the L3, not 5 + 4. */
	cpus[n++] = 3, cpus[n++] = 35;
	assert_int_equal(build_checked(amd, "", cpus, n, &plan), 2);
	assert_int_equal(plan.groups[0].nr_cpus, 8);
	check_auto_groups(amd, &plan, PLAN_AUTO_CAP);
	plan__release(&plan);
}

/* One plan on a restricted EPYC-like box (tests/data/gen-epyc-job.sh): groups and nodes. */
static void check_job_plan(const char *xml, const char *policy, const int *nodes, size_t nr)
{
	char path[PATH_MAX], err[256];
	struct plan_spec spec = spec_of(policy);
	struct topo *t;
	struct plan plan;

	unit_data_path(path, sizeof(path), xml);
	t = load(path, NULL);
	assert_non_null(t);
	assert_int_equal(plan__build_list(&plan, t, &spec, NULL, err, sizeof(err)), 0);
	assert_int_equal(plan.nr_groups, nr);
	for (size_t g = 0; g < nr; g++) {
		const struct plan_group *grp = &plan.groups[g];

		if (grp->node != nodes[g])
			fail_msg("%s %s: writer %zu on node %d, want %d", xml, policy, g, grp->node,
				 nodes[g]);
		/* Never across packages (64 CPUs each) to find a node. */
		assert_int_equal(grp->cpus[0] / 64, grp->cpus[grp->nr_cpus - 1] / 64);
		if (spec.policy == PLAN_AUTO) /* one L3 */
			assert_int_equal(grp->cpus[0] / 8, grp->cpus[grp->nr_cpus - 1] / 8);
	}
	plan__release(&plan);
	topo__delete(t);
}

/*
 * Inside a cpuset allowing the memory of nodes 0, 3 and 4 only: node 1's
 * CPUs write to node 0 and node 2's to node 3 (latency 11, not 12), package
 * 1's to node 4. Exported by lstopo there, nodes 1-2 and 5-7 are gone: their
 * CPUs fall back to their package's lowest allowed node.
 */
static void test_restricted_cpuset(void **state)
{
	static const int whole[] = {0, 0, 0, 0, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4};
	static const int exported[] = {0, 0, 0, 0, 0, 0, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4};
	static const int whole_numa[] = {0, 0, 3, 3, 4, 4, 4, 4};
	static const int exported_numa[] = {0, 0, 3, 4, 4};

	(void)state;
	check_job_plan("epyc-job.xml", "", whole, ARRAY_SIZE(whole));
	check_job_plan("epyc-job-lstopo.xml", "", exported, ARRAY_SIZE(exported));
	check_job_plan("epyc-job.xml", "numa", whole_numa, ARRAY_SIZE(whole_numa));
	check_job_plan("epyc-job-lstopo.xml", "numa", exported_numa, ARRAY_SIZE(exported_numa));
}

/* absent-cpus.xml: 16 possible CPUs per package, node and L3, 0-4 and 16-18 present. */
static int absent_node(int cpu) { return cpu / 16; }

/* Writer count of @policy for every CPU of @m's topology, which must be @present, once each. */
static size_t absent_groups(const struct machine *m, const char *policy, const int *present,
			    size_t nr)
{
	struct plan_spec spec = spec_of(policy);
	struct plan plan;
	char err[256] = "";
	size_t n;

	if (plan__build_list(&plan, m->t, &spec, NULL, err, sizeof(err)))
		fail_msg("%s --threads %s: %s", m->name, policy, err);
	check_plan(m, &plan, present, nr);
	n = plan.nr_groups;
	plan__release(&plan);
	return n;
}

/*
 * Issue #31: packages whose complete cpuset holds CPUs with no PU object
 * (offline, or never there) are planned from their PUs only; CPU 18, present
 * but outside the allowed cpuset, is still recorded (INCLUDE_DISALLOWED).
 */
static void test_absent_cpus(void **state)
{
	static const int present[] = {0, 1, 2, 3, 4, 16, 17, 18};
	struct machine m = {.name = "absent-cpus", .node_of_cpu = absent_node};
	int cpus[MAX_CPUS];
	char path[PATH_MAX], err[256];
	struct plan_spec spec = spec_of("");
	struct plan plan;

	(void)state;
	unit_data_path(path, sizeof(path), "absent-cpus.xml");
	m.t = load(path, NULL);
	assert_non_null(m.t);
	assert_int_equal(topo__nr_cpus(m.t), ARRAY_SIZE(present));
	assert_int_equal(topo__all_cpus(m.t, cpus, MAX_CPUS), ARRAY_SIZE(present));
	assert_memory_equal(cpus, present, sizeof(present));
	/* One writer per package (5 and 3 CPUs), not 4 for the 32 possible CPUs. */
	assert_int_equal(absent_groups(&m, "", present, ARRAY_SIZE(present)), 2);
	assert_int_equal(absent_groups(&m, "numa", present, ARRAY_SIZE(present)), 2);
	assert_int_equal(absent_groups(&m, "package", present, ARRAY_SIZE(present)), 2);
	assert_int_equal(absent_groups(&m, "l3", present, ARRAY_SIZE(present)), 2);
	assert_int_equal(absent_groups(&m, "core", present, ARRAY_SIZE(present)), 8);
	assert_int_equal(absent_groups(&m, "cpu", present, ARRAY_SIZE(present)), 8);
	assert_int_equal(absent_groups(&m, "3", present, ARRAY_SIZE(present)), 3);
	/* Cap 2: package 0's 5 cores as 2 + 1 + 2, package 1's 3 as 1 + 2. */
	assert_int_equal(setenv(PLAN_AUTO_CAP_ENV, "2", 1), 0);
	assert_int_equal(absent_groups(&m, "auto", present, ARRAY_SIZE(present)), 5);
	assert_int_equal(unsetenv(PLAN_AUTO_CAP_ENV), 0);
	/* The absent CPUs cannot be asked for, nor used as a writer's affinity. */
	assert_int_equal(plan__build_list(&plan, m.t, &spec, "5", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "CPU 5 is not in the topology (8 CPUs)"));
	assert_int_equal(plan__build_list(&plan, m.t, &spec, "16-31", err, sizeof(err)), -EINVAL);
	spec = spec_of("0-4/5");
	assert_int_equal(plan__build_list(&plan, m.t, &spec, "0-4", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "affinity CPU 5"));
	topo__delete(m.t);
}

/*
 * CPU-less nodes hwloc cannot label: a machine-wide one (CXL expander with no
 * known locality) and a second node beside a package's DRAM.
 */
static void test_memory_only_nodes(void **state)
{
	char *text;
	int node;

	(void)state;
	/* The root node gets OS index 2: packages keep 0 and 1. */
	assert_int_equal(synthetic_plan("[numa] pack:2 [numa] core:4 pu:2", "numa", &node, &text),
			 2);
	assert_int_equal(node, 1);
	assert_non_null(strstr(text, "memory-only nodes (no writer): 2\n"));
	free(text);
	assert_int_equal(synthetic_plan("pack:2 [numa] [numa] core:4 pu:2", "numa", &node, &text),
			 2);
	assert_int_equal(node, 2); /* package 1 has nodes 2 and 3: DRAM comes first */
	assert_non_null(strstr(text, "memory-only nodes (no writer): 1, 3\n"));
	free(text);
	/* Named in OS order, not hwloc's (package 0 holds nodes 0 and 3, package 1 nodes 1 and 2). */
	assert_int_equal(synthetic_plan("pack:2 [numa(indexes=0,3,1,2)] [numa] core:2 pu:1", "numa",
					&node, &text),
			 2);
	assert_int_equal(node, 1);
	assert_non_null(strstr(text, "memory-only nodes (no writer): 2, 3\n"));
	free(text);
	/* No L3: the L2 shared by 2 cores stands in for it. */
	assert_int_equal(synthetic_plan("pack:2 [numa] l2:2 core:2 pu:2", "l3", &node, &text), 4);
	assert_null(strstr(text, "memory-only"));
	free(text);
}

static void test_topo_load_errors(void **state)
{
	struct topo_params both = {.xml_path = "x.xml", .synthetic = "pu:2"};
	struct topo_params missing = {.xml_path = "/nonexistent/topo.xml"};
	struct topo_params garbage = {.synthetic = "frobnicator:3"};
	char err[256];

	(void)state;
	err[0] = '\0';
	assert_null(topo__load(&both, err, sizeof(err)));
	assert_true(err[0]);
	err[0] = '\0';
	assert_null(topo__load(&missing, err, sizeof(err)));
	assert_true(err[0]);
	err[0] = '\0';
	assert_null(topo__load(&garbage, err, sizeof(err)));
	assert_true(err[0]);
	topo__delete(NULL);
}

static void test_cpulist(void **state)
{
	static const char *const round[] = {"0", "0-3,8,10-11", "1,3,5", "0-271", "7-8,100"};
	static const char *const bad[] = {
	    "a",  "1-",	   "-1",  "3-1",   "1,,2",
	    ",1", "1,",	   "1 2", "1-2-3", "0x1",
	    "+1", "70000", "1:2", "1/2",   "0-99999999999999999999",
	};
	char buf[64];
	int *cpus, n;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(round); i++) {
		n = cpulist__parse(round[i], &cpus);
		assert_true(n > 0);
		assert_string_equal(cpulist__format(cpus, n, buf, sizeof(buf)), round[i]);
		free(cpus);
	}
	n = cpulist__parse(" 5,3,1-3,2\n", &cpus);
	assert_int_equal(n, 4);
	assert_string_equal(cpulist__format(cpus, n, buf, sizeof(buf)), "1-3,5");
	free(cpus);
	assert_int_equal(cpulist__parse("\n", &cpus), 0); /* a CPU-less node's sysfs cpulist */
	assert_null(cpus);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (cpulist__parse(bad[i], &cpus) != -EINVAL)
			fail_msg("cpulist \"%s\" accepted", bad[i]);
		assert_null(cpus);
	}
	int many[] = {0, 2, 4, 6, 8, 10, 12, 14};
	cpulist__format(many, ARRAY_SIZE(many), buf, 10);
	assert_string_equal(buf, "0,2,4,..."); /* cut, and says so */
	assert_string_equal(cpulist__format(many, 0, buf, sizeof(buf)), "");
}

/* ---- this machine ---- */

static void test_this_system(void **state)
{
	char err[256] = "";
	struct topo *t = topo__load(NULL, err, sizeof(err));
	int cpus[4096], n;
	struct plan plan;
	struct plan_spec spec = spec_of("numa");

	(void)state;
	assert_non_null(t);
	assert_true(topo__is_this_system(t));
	n = topo__all_cpus(t, cpus, ARRAY_SIZE(cpus));
	assert_int_equal(n, topo__nr_cpus(t));
	assert_true(n >= 1);
	for (int i = 1; i < n; i++)
		assert_true(cpus[i - 1] < cpus[i]);
	assert_int_equal(topo__all_cpus(t, cpus, 0), -ENOSPC);
	assert_int_equal(plan__build(&plan, t, &spec, cpus, n, err, sizeof(err)), 0);
	assert_true(plan.nr_groups >= 1);
	assert_true(plan.groups[0].node >= 0);
	plan__release(&plan);
	/* The default: at most the cap per writer (a 2-CPU VM: 1 writer). */
	spec = spec_of("");
	assert_int_equal(plan__build(&plan, t, &spec, cpus, n, err, sizeof(err)), 0);
	assert_true(plan.nr_groups >= (size_t)(n + PLAN_AUTO_CAP - 1) / PLAN_AUTO_CAP);
	for (size_t g = 0; g < plan.nr_groups; g++)
		assert_true(plan.groups[g].nr_cpus <= PLAN_AUTO_CAP && plan.groups[g].node >= 0);
	plan__release(&plan);
	topo__delete(t);
}

static void test_alloc_node(void **state)
{
	size_t size = 4 << 20;
	char *p = placement__alloc(size, 0);
	int node;

	(void)state;
	assert_non_null(p);
	assert_int_equal(p[size - 1], 0);
	node = placement__node_of(p + size / 2);
	if (node == -ENOSYS)
		skip(); /* kernel without CONFIG_NUMA */
	assert_int_equal(node, 0);
	placement__free(p, size);
	/* Local memory, and a node that does not exist falls back to it. */
	p = placement__alloc(size, -1);
	assert_non_null(p);
	assert_true(placement__node_of(p) >= 0);
	placement__free(p, size);
	p = placement__alloc(4096, 4000);
	assert_non_null(p);
	placement__free(p, 4096);
	placement__free(NULL, 0);
}

static void *pin_thread(void *arg)
{
	const struct plan_group *g = arg;
	cpu_set_t set;
	intptr_t ok;

	if (placement__pin_self(g))
		return (void *)0;
	if (pthread_getaffinity_np(pthread_self(), sizeof(set), &set))
		return (void *)0;
	ok = CPU_COUNT(&set) == 1 && CPU_ISSET(g->affinity[0], &set);
	/* The scheduler moved us before returning: we run there now. */
	ok = ok && sched_getcpu() == g->affinity[0];
	return (void *)ok;
}

static void test_pin_self(void **state)
{
	int cpu;
	struct plan_group g = {.affinity = &cpu, .nr_affinity = 1};
	cpu_set_t mine;
	pthread_t th;
	void *ok;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(mine), &mine), 0);
	for (cpu = CPU_SETSIZE - 1; cpu > 0 && !CPU_ISSET(cpu, &mine); cpu--)
		;
	/* A thread of its own, so the other tests keep their affinity. */
	assert_int_equal(pthread_create(&th, NULL, pin_thread, &g), 0);
	assert_int_equal(pthread_join(th, &ok), 0);
	assert_true(ok != NULL);
	g.nr_affinity = 0;
	assert_int_equal(placement__pin_self(&g), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest plans[] = {
	    cmocka_unit_test(test_policies_all_cpus), cmocka_unit_test(test_knl_numa_groups),
	    cmocka_unit_test(test_policies_subsets),  cmocka_unit_test(test_group_node_majority),
	    cmocka_unit_test(test_build_errors),      cmocka_unit_test(test_user_spec),
	    cmocka_unit_test(test_plan_print),	      cmocka_unit_test(test_build_list),
	    cmocka_unit_test(test_auto_default),      cmocka_unit_test(test_auto_cap),
	    cmocka_unit_test(test_restricted_cpuset), cmocka_unit_test(test_absent_cpus),
	};
	const struct CMUnitTest others[] = {
	    cmocka_unit_test(test_spec_parse),	     cmocka_unit_test(test_memory_only_nodes),
	    cmocka_unit_test(test_topo_load_errors), cmocka_unit_test(test_cpulist),
	    cmocka_unit_test(test_this_system),	     cmocka_unit_test(test_alloc_node),
	    cmocka_unit_test(test_pin_self),
	};
	int fails;

	unsetenv(PLAN_AUTO_CAP_ENV); /* the tests set it themselves */
	fails = cmocka_run_group_tests_name("numa plans", plans, machines_setup, machines_teardown);

	return fails + cmocka_run_group_tests_name("numa", others, NULL, NULL);
}
