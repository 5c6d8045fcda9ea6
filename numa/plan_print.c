// SPDX-License-Identifier: GPL-2.0
/*
 * Printing a writer plan (shardrec topology, record --dry-run): the groups,
 * their CPUs and affinity, ring memory per node, memory-only nodes.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "numa/topo_internal.h"

static bool plan_group__own_affinity(const struct plan_group *g)
{
	return g->nr_affinity != g->nr_cpus ||
	       memcmp(g->affinity, g->cpus, g->nr_cpus * sizeof(*g->cpus));
}

static void plan__print_groups(const struct plan *plan, FILE *out)
{
	char buf[4096];
	int width = 11;
	bool aff = false;

	for (size_t i = 0; i < plan->nr_groups; i++) {
		int len = (int)strlen(cpulist__format(plan->groups[i].cpus, plan->groups[i].nr_cpus,
						      buf, sizeof(buf)));

		width = len > width ? len : width;
		aff |= plan_group__own_affinity(&plan->groups[i]);
	}
	fprintf(out, "writer  node  %-*s nr%s\n", width, "cpus", aff ? "     affinity" : "");
	for (size_t i = 0; i < plan->nr_groups; i++) {
		const struct plan_group *g = &plan->groups[i];
		char node[16] = "-";

		if (g->node >= 0)
			snprintf(node, sizeof(node), "%d", g->node);
		fprintf(out, "%-7zu %-5s %-*s ", i, node, width,
			cpulist__format(g->cpus, g->nr_cpus, buf, sizeof(buf)));
		if (aff)
			fprintf(out, "%-6zu %s\n", g->nr_cpus,
				cpulist__format(g->affinity, g->nr_affinity, buf, sizeof(buf)));
		else
			fprintf(out, "%zu\n", g->nr_cpus);
	}
}

/* "ring memory: node0 17.0 MiB, node1 ...", nodes ascending, "-" for none known. */
static void plan__print_memory(const struct plan *plan, size_t ring_bytes, FILE *out)
{
	int prev = -2, next;
	double bytes;

	fprintf(out, "ring memory:");
	for (const char *sep = " ";; sep = ", ", prev = next) {
		next = INT32_MAX;
		for (size_t i = 0; i < plan->nr_groups; i++)
			if (plan->groups[i].node > prev && plan->groups[i].node < next)
				next = plan->groups[i].node;
		if (next == INT32_MAX)
			break;
		bytes = 0;
		for (size_t i = 0; i < plan->nr_groups; i++)
			if (plan->groups[i].node == next)
				bytes += (double)ring_bytes * plan->groups[i].nr_cpus;
		if (next < 0)
			fprintf(out, "%sno node %.1f MiB", sep, bytes / (1 << 20));
		else
			fprintf(out, "%snode%d %.1f MiB", sep, next, bytes / (1 << 20));
	}
	fputc('\n', out);
}

/* The memory-only node with the lowest OS index above @prev (-1: the lowest); NULL if none. */
static hwloc_obj_t plan__next_memory_only(const struct topo *t, long prev)
{
	hwloc_obj_t node = NULL, best = NULL;

	while ((node = hwloc_get_next_obj_by_type(t->h, HWLOC_OBJ_NUMANODE, node)))
		if (topo__node_is_memory_only(t, node) && (long)node->os_index > prev &&
		    (!best || node->os_index < best->os_index))
			best = node;
	return best;
}

/*
 * Names the CPU-less nodes, so that users see why they get no writer; in
 * OS order, as "ring memory": hwloc's order follows locality, and a node
 * near a CPU node of a lower number comes first.
 */
static void plan__print_memory_only(const struct topo *t, FILE *out)
{
	hwloc_obj_t node;
	long prev = -1;

	while ((node = plan__next_memory_only(t, prev))) {
		fprintf(out, "%s%u", prev < 0 ? "memory-only nodes (no writer): " : ", ",
			node->os_index);
		if (node->subtype)
			fprintf(out, " (%s)", node->subtype);
		prev = node->os_index;
	}
	if (prev >= 0)
		fputc('\n', out);
}

void plan__print(const struct plan *plan, const struct topo *t, size_t ring_bytes, FILE *out)
{
	plan__print_groups(plan, out);
	plan__print_memory(plan, ring_bytes, out);
	if (t)
		plan__print_memory_only(t, out);
	fprintf(out, "writers: %zu\n", plan->nr_groups);
}
