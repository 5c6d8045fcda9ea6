/* SPDX-License-Identifier: GPL-2.0 */
/*
 * numa/: the machine's topology (hwloc) and the writer placement plan built
 * from it. Public header of the folder. Never includes ringbuf/ or recorder/.
 * Always included as "numa/numa.h": libnuma's own header is <numa.h>, which
 * placement.c includes with angle brackets, so the two never shadow each
 * other (-I. has no numa.h at its top).
 *
 * A plan splits the CPUs being recorded into groups; each group gets one
 * writer thread, pinned to the group's CPUs, whose buffers live on the
 * group's NUMA node. CPU-less memory nodes (KNL MCDRAM in flat mode, CXL,
 * HBM) never get a writer.
 */
#ifndef SHARDREC_NUMA_H
#define SHARDREC_NUMA_H

#include <stddef.h>
#include <stdio.h>

struct topo; /* opaque: a loaded hwloc topology */

struct topo_params {
	const char *xml_path;  /* --topology-xml FILE, or NULL */
	const char *synthetic; /* --synthetic "SPEC" (hwloc synthetic string), or NULL */
};

/* Loads this machine's topology, or the XML/synthetic one. NULL on error, with one line in @err. */
struct topo *topo__load(const struct topo_params *p, char *err, size_t errlen);
void topo__delete(struct topo *t);
/* True when the topology is this machine's (not XML/synthetic): placement may be applied. */
int topo__is_this_system(const struct topo *t);
/* Number of PUs: hwloc's PU objects, whose OS indices may have holes (topo__all_cpus). */
int topo__nr_cpus(const struct topo *t);
/* Fills @cpus (capacity @cap) with every PU's OS index, ascending; returns the count or -errno. */
int topo__all_cpus(const struct topo *t, int *cpus, size_t cap);

/*
 * The default plan ("auto"): groups never span a package, a NUMA node or an
 * L3 domain, and hold at most this many recorded CPUs (PUs; a core is never
 * split), as evenly as whole cores allow: 68 one-PU cores make 9 groups of
 * 7-8, not 8 x 8 + 4. One constant, to be tuned from loss measurements;
 * PLAN_AUTO_CAP_ENV overrides it for experiments only.
 */
#define PLAN_AUTO_CAP 8
#define PLAN_AUTO_CAP_ENV "SHARDREC_PLAN_CAP"

enum plan_policy {
	PLAN_AUTO = 0, /* default: see PLAN_AUTO_CAP */
	PLAN_NUMA,     /* one writer per NUMA node that has recorded CPUs */
	PLAN_PACKAGE,
	PLAN_L3, /* "l3" or "cache" */
	PLAN_CORE,
	PLAN_CPU,
	PLAN_COUNT, /* "N": N balanced groups, topology-contiguous */
	PLAN_USER,  /* perf's user spec "0-3/0:4-7/4": maps/affinity pairs separated by ':' */
};

struct plan_spec {
	enum plan_policy policy;
	unsigned count; /* PLAN_COUNT */
	unsigned cap;	/* PLAN_AUTO: most CPUs per writer */
	char user[256]; /* PLAN_USER: the spec text */
};

/*
 * Parses a --threads value ("" or NULL means auto; auto's cap comes from
 * $SHARDREC_PLAN_CAP if set). 0 / -EINVAL with one line in @err.
 */
int plan_spec__parse(const char *s, struct plan_spec *spec, char *err, size_t errlen);

struct plan_group {
	int *cpus; /* OS CPU numbers recorded by this writer, ascending; owned by the plan */
	size_t nr_cpus;
	int node; /* allowed NUMA node (OS index) for the writer's memory; -1 if none known */
	int *affinity; /* CPUs the writer thread may run on (user spec affinity, else = cpus) */
	size_t nr_affinity;
};

struct plan {
	struct plan_group *groups;
	size_t nr_groups;
};

/*
 * Builds the plan for recording @cpus (OS indices, any order, unique) under
 * @spec. Every recorded CPU lands in exactly one group; empty groups are
 * dropped. 0 / -errno (-EINVAL: spec names no recorded CPU, CPU not in the
 * topology), with one line in @err.
 */
int plan__build(struct plan *plan, const struct topo *t, const struct plan_spec *spec,
		const int *cpus, size_t nr_cpus, char *err, size_t errlen);
/*
 * plan__build() for a CPU list given as text (-C), or for every CPU of the
 * topology when @cpu_list is NULL: for topologies of other machines, whose
 * CPUs are not this machine's online ones. 0 / -errno with one line in @err.
 */
int plan__build_list(struct plan *plan, const struct topo *t, const struct plan_spec *spec,
		     const char *cpu_list, char *err, size_t errlen);
void plan__release(struct plan *plan);

/*
 * Prints the plan, human readable: one line per group (writer index, node,
 * CPUs as a list string), then ring memory per node for @ring_bytes per CPU
 * and the writer count. For `shardrec topology` and `record --dry-run`.
 */
void plan__print(const struct plan *plan, const struct topo *t, size_t ring_bytes, FILE *out);

/* Formats a CPU list ("0-3,8,10-11") into @buf; returns @buf. */
char *cpulist__format(const int *cpus, size_t nr, char *buf, size_t len);
/*
 * Parses a CPU list ("0-3,8") into a malloc'ed ascending unique array.
 * Returns the count (0, *@cpus NULL, for an empty list), or -EINVAL /
 * -ENOMEM.
 */
int cpulist__parse(const char *s, int **cpus);

/* ---- placement of the calling thread and its memory (numa/placement.c) ---- */

/* Pins the calling thread to the group's affinity CPUs. 0 / -errno. */
int placement__pin_self(const struct plan_group *g);
/* Pins the calling thread to the CPUs of NUMA node @node (libnuma). 0 / -errno. */
int placement__pin_node(int node);
/* How many CPUs the calling thread may run on, or -errno. */
int placement__nr_allowed(void);
/*
 * Allocates @size bytes on @node (libnuma; node -1 = local), zeroed and
 * first-touched by the caller so the pages really land there. NULL on failure.
 */
void *placement__alloc(size_t size, int node);
void placement__free(void *p, size_t size);
/* NUMA node the page at @addr lives on (move_pages query), or -errno. */
int placement__node_of(const void *addr);

#endif
