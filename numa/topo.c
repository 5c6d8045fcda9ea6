// SPDX-License-Identifier: GPL-2.0
/*
 * numa/topo.c: loading the machine's topology with hwloc, and the two
 * questions the plan asks of every PU: which NUMA node is its own, and which
 * allowed node its writer's memory goes to.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "numa/topo_internal.h"

/*
 * hwloc marks unusual memory with a subtype (MCDRAM on KNL, HBM, NVM,
 * GPUMemory, CXL memory on newer hwloc); plain DRAM has none, or "DRAM".
 */
static bool node__is_special(hwloc_obj_t node)
{
	return node->subtype && strcasecmp(node->subtype, "DRAM");
}

/* @a is a better local node than @b: plain DRAM first, then lowest OS index. */
static bool node__better(hwloc_obj_t a, hwloc_obj_t b)
{
	if (!b)
		return true;
	if (node__is_special(a) != node__is_special(b))
		return !node__is_special(a);
	return a->os_index < b->os_index;
}

/* Best NUMA node among @obj's memory children, looking through memory-side caches. */
static hwloc_obj_t memory_children__best(hwloc_obj_t obj)
{
	hwloc_obj_t m, best = NULL, sub;

	for (m = obj->memory_first_child; m; m = m->next_sibling) {
		sub = m->type == HWLOC_OBJ_NUMANODE ? m : memory_children__best(m);
		if (sub && node__better(sub, best))
			best = sub;
	}
	return best;
}

hwloc_obj_t topo__local_node(const struct topo *t, hwloc_obj_t pu)
{
	hwloc_obj_t obj, node, fallback = NULL;

	(void)t;
	/*
	 * hwloc 2 attaches each node to the smallest object covering its
	 * locality, so walking up from the PU meets the closest ones first.
	 * A CPU-less node (KNL MCDRAM) shares its parent with the DRAM node,
	 * hence the preference inside one level; an only-special closest node
	 * (HBM-only mode) is still the right one.
	 */
	for (obj = pu; obj; obj = obj->parent) {
		node = memory_children__best(obj);
		if (node && !node__is_special(node))
			return node;
		if (node && !fallback)
			fallback = node;
	}
	return fallback;
}

bool topo__node_is_memory_only(const struct topo *t, hwloc_obj_t node)
{
	return node->logical_index >= t->nr_nodes || !t->node_has_cpus[node->logical_index];
}

static bool node__allowed(const struct topo *t, hwloc_obj_t node)
{
	return hwloc_bitmap_isset(hwloc_topology_get_allowed_nodeset(t->h), node->os_index);
}

/* How far a candidate node is for a writer; compared field by field, lower first. */
struct node_rank {
	bool special;	  /* MCDRAM, HBM, NVM...: only if nothing else is allowed */
	bool memory_only; /* no CPU calls it local (CXL...) */
	uint64_t latency; /* from the PU's own node; UINT64_MAX unknown */
	bool other_package;
	unsigned os_index;
};

static void node_rank__of(const struct topo *t, hwloc_obj_t node, hwloc_obj_t local,
			  hwloc_obj_t pkg, struct node_rank *r)
{
	hwloc_uint64_t ab, ba;

	r->special = node__is_special(node);
	r->memory_only = topo__node_is_memory_only(t, node);
	r->latency = UINT64_MAX;
	if (t->latency && local &&
	    !hwloc_distances_obj_pair_values(t->latency, local, node, &ab, &ba))
		r->latency = ab;
	/* A node's cpuset is its locality, even when it has no CPU of its own. */
	r->other_package = pkg && !hwloc_bitmap_intersects(node->cpuset, pkg->cpuset);
	r->os_index = node->os_index;
}

static bool node_rank__less(const struct node_rank *a, const struct node_rank *b)
{
	if (a->special != b->special)
		return !a->special;
	if (a->memory_only != b->memory_only)
		return !a->memory_only;
	if (a->latency != b->latency)
		return a->latency < b->latency;
	if (a->other_package != b->other_package)
		return !a->other_package;
	return a->os_index < b->os_index;
}

hwloc_obj_t topo__writer_node(const struct topo *t, hwloc_obj_t pu)
{
	hwloc_obj_t local = topo__local_node(t, pu), node = NULL, best = NULL;
	hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(t->h, HWLOC_OBJ_PACKAGE, pu);
	struct node_rank r, best_r = {0};

	/*
	 * Inside a cgroup cpuset (a batch job) @pu's own node may be
	 * disallowed, or absent from an XML exported there.
	 */
	if (local && node__allowed(t, local))
		return local;
	while ((node = hwloc_get_next_obj_by_type(t->h, HWLOC_OBJ_NUMANODE, node))) {
		if (!node__allowed(t, node))
			continue;
		node_rank__of(t, node, local, pkg, &r);
		if (!best || node_rank__less(&r, &best_r))
			best = node, best_r = r;
	}
	return best;
}

/* Marks the nodes that some PU calls its own: every other node is memory-only. */
static int topo__mark_cpu_nodes(struct topo *t)
{
	hwloc_obj_t pu = NULL, node;
	int nr = hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_NUMANODE);

	if (nr <= 0)
		return 0;
	t->node_has_cpus = calloc(nr, sizeof(*t->node_has_cpus));
	if (!t->node_has_cpus)
		return -ENOMEM;
	t->nr_nodes = nr;
	while ((pu = hwloc_get_next_obj_by_type(t->h, HWLOC_OBJ_PU, pu))) {
		node = topo__local_node(t, pu);
		if (node && node->logical_index < t->nr_nodes)
			t->node_has_cpus[node->logical_index] = true;
	}
	return 0;
}

/* Chooses where hwloc reads from; -errno with @err filled. */
static int topo__set_source(struct topo *t, const struct topo_params *p, char *err, size_t errlen)
{
	const char *xml = p ? p->xml_path : NULL, *syn = p ? p->synthetic : NULL;

	if (xml && syn) {
		snprintf(err, errlen, "--topology-xml and --synthetic are mutually exclusive");
		return -EINVAL;
	}
	if (xml && hwloc_topology_set_xml(t->h, xml) < 0) {
		int e = errno ? errno : EINVAL;

		snprintf(err, errlen, "cannot use topology XML %s: %s", xml, strerror(e));
		return -e;
	}
	if (syn && hwloc_topology_set_synthetic(t->h, syn) < 0) {
		snprintf(err, errlen, "invalid synthetic topology \"%s\"", syn);
		return -EINVAL;
	}
	t->this_system = !xml && !syn;
	/*
	 * Record every CPU the kernel knows about, even those outside our
	 * cgroup cpuset: perf_event_open on them may still be allowed. The
	 * allowed sets (ours, or an XML's) then only choose writer nodes.
	 */
	if (hwloc_topology_set_flags(t->h, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED) < 0) {
		int e = errno ? errno : EINVAL;

		snprintf(err, errlen, "hwloc: cannot include disallowed CPUs: %s", strerror(e));
		return -e;
	}
	return 0;
}

/* The first NUMA latency matrix, if the topology has one (kept in @t). */
static void topo__get_latency(struct topo *t)
{
	struct hwloc_distances_s *d = NULL;
	unsigned nr = 1;

	if (!hwloc_distances_get_by_type(t->h, HWLOC_OBJ_NUMANODE, &nr, &d,
					 HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) &&
	    nr)
		t->latency = d;
}

struct topo *topo__load(const struct topo_params *p, char *err, size_t errlen)
{
	struct topo *t = calloc(1, sizeof(*t));

	if (!t) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (hwloc_topology_init(&t->h) < 0) {
		snprintf(err, errlen, "hwloc_topology_init: %s", strerror(errno));
		goto out_free;
	}
	if (topo__set_source(t, p, err, errlen) < 0)
		goto out_destroy;
	if (hwloc_topology_load(t->h) < 0) {
		snprintf(err, errlen, "hwloc cannot load the topology%s%s: %s",
			 p && p->xml_path ? " from " : "", p && p->xml_path ? p->xml_path : "",
			 strerror(errno));
		goto out_destroy;
	}
	/* HWLOC_XMLFILE / HWLOC_SYNTHETIC in the environment override "this system". */
	t->this_system = t->this_system && hwloc_topology_is_thissystem(t->h);
	if (topo__mark_cpu_nodes(t) < 0) {
		snprintf(err, errlen, "out of memory");
		goto out_destroy;
	}
	topo__get_latency(t);
	return t;

out_destroy:
	hwloc_topology_destroy(t->h);
out_free:
	free(t);
	return NULL;
}

void topo__delete(struct topo *t)
{
	if (!t)
		return;
	if (t->latency)
		hwloc_distances_release(t->h, t->latency);
	hwloc_topology_destroy(t->h);
	free(t->node_has_cpus);
	free(t);
}

int topo__is_this_system(const struct topo *t) { return t->this_system; }

int topo__nr_cpus(const struct topo *t) { return hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_PU); }

int topo__int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int topo__all_cpus(const struct topo *t, int *cpus, size_t cap)
{
	hwloc_obj_t pu = NULL;
	size_t n = 0;

	if ((size_t)topo__nr_cpus(t) > cap)
		return -ENOSPC;
	while ((pu = hwloc_get_next_obj_by_type(t->h, HWLOC_OBJ_PU, pu)))
		cpus[n++] = (int)pu->os_index;
	/* Topology order is not OS order (SMT siblings are often N apart). */
	qsort(cpus, n, sizeof(*cpus), topo__int_cmp);
	return (int)n;
}
