/* SPDX-License-Identifier: GPL-2.0 */
/*
 * numa/ private: the hwloc handle behind struct topo, for the .c files of numa/ only.
 * Nothing outside numa/ includes this (the rest of shardrec must not depend
 * on hwloc's headers).
 */
#ifndef SHARDREC_NUMA_TOPO_INTERNAL_H
#define SHARDREC_NUMA_TOPO_INTERNAL_H

#include <hwloc.h>
#include <stdbool.h>

#include "numa/numa.h"

struct topo {
	hwloc_topology_t h;
	bool this_system; /* loaded from this machine, not XML/synthetic */
	/* Per NUMA node (logical index): some PU uses it as its local node. */
	bool *node_has_cpus;
	unsigned nr_nodes;
	/* NUMA latencies (ACPI SLIT, or an XML's), or NULL: for the nearest allowed node. */
	struct hwloc_distances_s *latency;
};

/*
 * The NUMA node whose memory a thread running on @pu should use: the
 * closest memory child of @pu's ancestors that is ordinary DRAM, else
 * (HBM-only machines) the closest one of a special kind (MCDRAM, HBM, NVM,
 * GPU or CXL memory). NULL if the topology has no node.
 */
hwloc_obj_t topo__local_node(const struct topo *t, hwloc_obj_t pu);

/*
 * The node a writer for @pu puts its buffers on: @pu's local node if the
 * topology's allowed nodeset (a cgroup's cpuset.mems, an XML's allowed sets)
 * has it, else the nearest allowed node (DRAM first; by latency from the
 * local node, then same package, then lowest index). NULL if no node is allowed.
 */
hwloc_obj_t topo__writer_node(const struct topo *t, hwloc_obj_t pu);

/* True when no PU has @node as its local node (MCDRAM, HBM, CXL...): no writer there. */
bool topo__node_is_memory_only(const struct topo *t, hwloc_obj_t node);

/* qsort/bsearch order of ints (CPU numbers). */
int topo__int_cmp(const void *a, const void *b);

#endif
