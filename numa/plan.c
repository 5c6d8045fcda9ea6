// SPDX-License-Identifier: GPL-2.0
/*
 * numa/plan.c: splitting the recorded CPUs into writer groups (--threads),
 * and choosing each group's memory node.
 *
 * Every policy works the same way: sort the recorded CPUs in topology order
 * (hwloc's logical PU order, which keeps SMT siblings, cores, caches and
 * nodes together whatever the OS numbering), give each CPU a group index,
 * then turn the indices into groups. The default, auto, first groups by
 * package, node and L3, then splits each such domain by a CPU cap.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "numa/topo_internal.h"
#include "recorder/util/num.h"

/* One recorded CPU while the plan is built. */
struct plan_cpu {
	int cpu;
	hwloc_obj_t pu;
	size_t group;
};

/* One "mask/affinity" item of a user spec; @aff is NULL when none was given. */
struct user_group {
	int *mask;
	int nr_mask;
	int *aff;
	int nr_aff;
};

/* The scratch state of one plan__build(). */
struct plan_ctx {
	const struct topo *t;
	struct plan_cpu *cpu; /* recorded CPUs, topology order */
	size_t nr_cpus;
	size_t nr_groups;
	struct user_group *ug; /* PLAN_USER only */
	size_t nr_ug;
	const struct user_group **src; /* per group: its user item, or NULL */
	char *err;
	size_t errlen;
};

/* ---- --threads parsing ---- */

static void user_groups__free(struct user_group *g, size_t n)
{
	for (size_t i = 0; g && i < n; i++) {
		free(g[i].mask);
		free(g[i].aff);
	}
	free(g);
}

/* Parses one "mask[/affinity]" item of @len bytes at @s. 0 / -EINVAL. */
static int user_group__parse(const char *s, size_t len, struct user_group *g, char *err,
			     size_t errlen)
{
	char item[sizeof(((struct plan_spec *)0)->user)];
	char *slash;

	if (!len || len >= sizeof(item))
		goto out_bad;
	memcpy(item, s, len);
	item[len] = '\0';
	slash = strchr(item, '/');
	if (slash)
		*slash++ = '\0';
	g->nr_mask = cpulist__parse(item, &g->mask);
	if (g->nr_mask <= 0)
		goto out_bad;
	if (!slash)
		return 0;
	g->nr_aff = cpulist__parse(slash, &g->aff);
	if (g->nr_aff <= 0)
		goto out_bad;
	return 0;

out_bad:
	snprintf(err, errlen, "--threads spec: bad group \"%.*s\" (want CPUS or CPUS/AFFINITY)",
		 (int)len, s);
	return -EINVAL;
}

/* Parses "0-3/0:4-7/4" into @nr items. 0 / -errno with @err filled. */
static int user_spec__parse(const char *s, struct user_group **out, size_t *nr, char *err,
			    size_t errlen)
{
	size_t n = 1, i = 0;
	const char *end;

	for (const char *p = s; *p; p++)
		n += *p == ':';
	*nr = 0;
	*out = calloc(n, sizeof(**out));
	if (!*out) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (;; s = end + 1) {
		end = strchr(s, ':');
		if (!end)
			end = s + strlen(s);
		if (user_group__parse(s, end - s, &(*out)[i++], err, errlen) < 0) {
			user_groups__free(*out, i);
			*out = NULL;
			return -EINVAL;
		}
		if (!*end)
			break;
	}
	*nr = i;
	return 0;
}

static const struct {
	const char *name;
	enum plan_policy policy;
} plan_names[] = {
    {"auto", PLAN_AUTO}, {"numa", PLAN_NUMA}, {"package", PLAN_PACKAGE}, {"l3", PLAN_L3},
    {"cache", PLAN_L3},	 {"core", PLAN_CORE}, {"cpu", PLAN_CPU},
};

/* "N": a positive decimal count. 0 / -EINVAL. */
static int plan_spec__count(const char *s, struct plan_spec *spec, char *err, size_t errlen)
{
	if (!positive__parse(s, &spec->count)) {
		snprintf(err, errlen, "--threads %s: the writer count must be a positive integer",
			 s);
		return -EINVAL;
	}
	spec->policy = PLAN_COUNT;
	return 0;
}

/* auto, with its cap: PLAN_AUTO_CAP, or $SHARDREC_PLAN_CAP for experiments. 0 / -EINVAL. */
static int plan_spec__auto(struct plan_spec *spec, char *err, size_t errlen)
{
	spec->policy = PLAN_AUTO;
	spec->cap = PLAN_AUTO_CAP;
	return positive__env(PLAN_AUTO_CAP_ENV, 1, UINT_MAX, &spec->cap,
			     "a positive number of CPUs per writer", err, errlen);
}

int plan_spec__parse(const char *s, struct plan_spec *spec, char *err, size_t errlen)
{
	struct user_group *ug;
	size_t nr;

	memset(spec, 0, sizeof(*spec));
	if (!s || !*s)
		return plan_spec__auto(spec, err, errlen);
	for (size_t i = 0; i < sizeof(plan_names) / sizeof(plan_names[0]); i++) {
		if (strcmp(s, plan_names[i].name))
			continue;
		if (plan_names[i].policy == PLAN_AUTO)
			return plan_spec__auto(spec, err, errlen);
		spec->policy = plan_names[i].policy;
		return 0;
	}
	if (strspn(s, "0123456789") == strlen(s))
		return plan_spec__count(s, spec, err, errlen);
	if (strspn(s, "0123456789,-/:") != strlen(s)) {
		snprintf(
		    err, errlen,
		    "unknown --threads value \"%s\" (auto, numa, package, l3, cache, core, cpu, "
		    "N, or CPUS/AFFINITY:... like 0-3/0:4-7/4)",
		    s);
		return -EINVAL;
	}
	if (strlen(s) >= sizeof(spec->user)) {
		snprintf(err, errlen, "--threads spec is longer than %zu characters",
			 sizeof(spec->user) - 1);
		return -EINVAL;
	}
	if (user_spec__parse(s, &ug, &nr, err, errlen) < 0)
		return -EINVAL;
	user_groups__free(ug, nr);
	spec->policy = PLAN_USER;
	strcpy(spec->user, s);
	return 0;
}

/* ---- grouping by topology objects ---- */

/*
 * The cache level standing in for "L3": L3 itself, else the outermost cache
 * shared by several cores (KNL's tile L2), else none (HWLOC_OBJ_PACKAGE).
 */
static hwloc_obj_type_t plan__cache_type(hwloc_topology_t h)
{
	static const hwloc_obj_type_t levels[] = {
	    HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L4CACHE,
	    HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L1CACHE,
	};
	hwloc_obj_t c;
	hwloc_obj_type_t unit;

	unit = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		c = hwloc_get_obj_by_type(h, levels[i], 0);
		if (!c)
			continue;
		if (levels[i] == HWLOC_OBJ_L3CACHE ||
		    hwloc_get_nbobjs_inside_cpuset_by_type(h, c->cpuset, unit) > 1)
			return levels[i];
	}
	return HWLOC_OBJ_PACKAGE;
}

/*
 * @pu's ancestor of @type; with none (asymmetric or synthetic machines), the
 * root, or for cores @pu itself.
 */
static hwloc_obj_t plan__unit(hwloc_topology_t h, hwloc_obj_type_t type, hwloc_obj_t pu)
{
	hwloc_obj_t a = hwloc_get_ancestor_obj_by_type(h, type, pu);

	if (a)
		return a;
	return type == HWLOC_OBJ_CORE ? pu : hwloc_get_root_obj(h);
}

/* What names a CPU's group (its auto domain): CPUs with equal keys share it. */
struct plan_key {
	hwloc_obj_t package, node, obj;
};

static bool plan_key__equal(const struct plan_key *a, const struct plan_key *b)
{
	return a->package == b->package && a->node == b->node && a->obj == b->obj;
}

/* @pu's key under @policy (@cache: see plan__cache_type). */
static struct plan_key plan__key(const struct topo *t, enum plan_policy policy,
				 hwloc_obj_type_t cache, hwloc_obj_t pu)
{
	struct plan_key k = {NULL, NULL, NULL};

	switch (policy) {
	case PLAN_AUTO:
		k.package = plan__unit(t->h, HWLOC_OBJ_PACKAGE, pu);
		k.node = topo__local_node(t, pu); /* L3s and cores: plan__group_auto */
		break;
	case PLAN_NUMA:
		/* Its node absent (an XML exported inside a cpuset): never join another package. */
		k.node = topo__local_node(t, pu);
		k.package = k.node ? NULL : plan__unit(t->h, HWLOC_OBJ_PACKAGE, pu);
		break;
	case PLAN_PACKAGE:
		k.package = plan__unit(t->h, HWLOC_OBJ_PACKAGE, pu);
		break;
	case PLAN_L3:
		k.obj = plan__unit(t->h, cache, pu);
		break;
	case PLAN_CORE:
		k.obj = plan__unit(t->h, HWLOC_OBJ_CORE, pu);
		break;
	default:
		k.obj = pu;
	}
	return k;
}

/* Groups the CPUs by their key, groups in order of first appearance. */
static int plan__group_by_object(struct plan_ctx *c, enum plan_policy policy)
{
	hwloc_obj_type_t cache = plan__cache_type(c->t->h);
	struct plan_key *keys = calloc(c->nr_cpus, sizeof(*keys)), key;
	size_t g;

	if (!keys)
		return -ENOMEM;
	for (size_t i = 0; i < c->nr_cpus; i++) {
		key = plan__key(c->t, policy, cache, c->cpu[i].pu);
		/* Linear: a few hundred groups at most, built once per run. */
		for (g = 0; g < c->nr_groups && !plan_key__equal(&keys[g], &key); g++)
			;
		if (g == c->nr_groups)
			keys[c->nr_groups++] = key;
		c->cpu[i].group = g;
	}
	free(keys);
	return 0;
}

/* ---- auto: package/node domains, cut at L3s and cores by a cap ---- */

/* Some of one domain's CPUs: indices into c->cpu, topology order. */
struct plan_run {
	struct plan_ctx *c;
	const size_t *idx;
	size_t nr;
	hwloc_obj_type_t unit; /* what is never cut: HWLOC_OBJ_CORE, or the L3 type */
};

/* Number of CPUs of the unit starting at idx[*i]; moves *i past them. */
static size_t plan_run__next_unit(const struct plan_run *r, size_t *i)
{
	hwloc_topology_t h = r->c->t->h;
	hwloc_obj_t unit = plan__unit(h, r->unit, r->c->cpu[r->idx[*i]].pu);
	size_t w = 0;

	while (*i < r->nr && plan__unit(h, r->unit, r->c->cpu[r->idx[*i]].pu) == unit)
		(*i)++, w++;
	return w;
}

/* Of @slots equal slices of the run, the one holding the middle of CPUs [before, before + w). */
static size_t plan_run__slot(const struct plan_run *r, size_t before, size_t w, size_t slots)
{
	return (2 * before + w) * slots / (2 * r->nr);
}

/* True when @slots slices leave none over @cap CPUs but single units. */
static bool plan_run__fits(const struct plan_run *r, size_t slots, size_t cap)
{
	size_t i = 0, before = 0, w, slot, cur = SIZE_MAX, load = 0, units = 0;

	while (i < r->nr) {
		w = plan_run__next_unit(r, &i);
		slot = plan_run__slot(r, before, w, slots);
		if (slot != cur)
			cur = slot, load = 0, units = 0;
		load += w, units++, before += w;
		if (load > cap && units > 1)
			return false;
	}
	return true;
}

/* Gives the CPUs of each non-empty slice the group number *next, *next + 1, ... */
static void plan_run__assign(const struct plan_run *r, size_t slots, size_t *next)
{
	size_t i = 0, start, before = 0, w, slot, cur = SIZE_MAX;

	while (i < r->nr) {
		start = i;
		w = plan_run__next_unit(r, &i);
		slot = plan_run__slot(r, before, w, slots);
		if (slot != cur)
			cur = slot, (*next)++;
		for (size_t k = start; k < i; k++)
			r->c->cpu[r->idx[k]].group = *next - 1;
		before += w;
	}
}

/*
 * Cuts the run into the fewest slices of whole units with at most @cap CPUs
 * each (a unit larger than @cap alone), as even as the units allow: 68
 * one-PU cores give 9 slices of 7-8, not 8 x 8 + 4. Numbered from *next.
 */
static void plan_run__split(const struct plan_run *r, size_t cap, size_t *next)
{
	size_t slots = (r->nr + cap - 1) / cap;

	/* Terminates: with one slot per CPU, no slice holds two units. */
	while (slots < r->nr && !plan_run__fits(r, slots, cap))
		slots++;
	if (r->nr)
		plan_run__assign(r, slots, next);
}

/*
 * One package/node domain: L3s of at most @cap CPUs are packed whole, a
 * larger L3 is cut at cores; no group spans two L3s of which one is large.
 */
static void plan_run__split_domain(const struct plan_run *dom, hwloc_obj_type_t l3, size_t cap,
				   size_t *next)
{
	struct plan_run walk = {dom->c, dom->idx, dom->nr, l3}, caches = {dom->c, dom->idx, 0, l3},
			big;
	size_t i = 0, start, w;

	while (i < dom->nr) {
		start = i;
		w = plan_run__next_unit(&walk, &i);
		if (w <= cap)
			continue;
		caches.nr = start - (size_t)(caches.idx - dom->idx);
		plan_run__split(&caches, cap, next);
		big = (struct plan_run){dom->c, dom->idx + start, w, HWLOC_OBJ_CORE};
		plan_run__split(&big, cap, next);
		caches.idx = dom->idx + i;
	}
	caches.nr = dom->nr - (size_t)(caches.idx - dom->idx);
	plan_run__split(&caches, cap, next);
}

/* Indices of c->cpu sorted by group (each group's in topology order); @start[g] its first. */
static void plan__sort_by_group(const struct plan_ctx *c, size_t *idx, size_t *start)
{
	for (size_t i = 0; i < c->nr_cpus; i++)
		start[c->cpu[i].group + 1]++;
	for (size_t g = 0; g < c->nr_groups; g++)
		start[g + 1] += start[g];
	for (size_t i = 0; i < c->nr_cpus; i++)
		idx[start[c->cpu[i].group]++] = i;
	for (size_t g = c->nr_groups; g > 0; g--)
		start[g] = start[g - 1];
	start[0] = 0;
}

/* auto: the package/node domains, each cut by @cap at L3s and cores. */
static int plan__group_auto(struct plan_ctx *c, unsigned cap)
{
	hwloc_obj_type_t l3 = plan__cache_type(c->t->h);
	size_t *idx = NULL, *start = NULL, next = 0;
	int err = plan__group_by_object(c, PLAN_AUTO);

	if (err)
		return err;
	idx = malloc(c->nr_cpus * sizeof(*idx));
	start = calloc(c->nr_groups + 1, sizeof(*start));
	if (!idx || !start) {
		err = -ENOMEM;
		goto out_free;
	}
	plan__sort_by_group(c, idx, start);
	for (size_t g = 0; g < c->nr_groups; g++) {
		struct plan_run dom = {c, idx + start[g], start[g + 1] - start[g], l3};

		plan_run__split_domain(&dom, l3, cap, &next);
	}
	c->nr_groups = next;
out_free:
	free(start);
	free(idx);
	return err;
}

/* N contiguous groups whose sizes differ by at most one; never more than the CPUs. */
static void plan__group_by_count(struct plan_ctx *c, unsigned count)
{
	size_t n = c->nr_cpus;

	c->nr_groups = count < n ? count : n;
	for (size_t i = 0; i < n; i++)
		c->cpu[i].group = i * c->nr_groups / n;
}

/* ---- user spec ---- */

static bool cpus__has(const int *cpus, size_t nr, int cpu)
{
	return bsearch(&cpu, cpus, nr, sizeof(*cpus), topo__int_cmp) != NULL;
}

/* The user item holding @cpu, c->nr_ug if none, or -EINVAL if several do. */
static long plan__user_item(struct plan_ctx *c, int cpu)
{
	long found = (long)c->nr_ug;

	for (size_t u = 0; u < c->nr_ug; u++) {
		if (!cpus__has(c->ug[u].mask, c->ug[u].nr_mask, cpu))
			continue;
		if (found != (long)c->nr_ug) {
			snprintf(c->err, c->errlen,
				 "--threads spec: CPU %d is in more than one group", cpu);
			return -EINVAL;
		}
		found = (long)u;
	}
	return found;
}

/* Every affinity CPU must exist, or pinning would fail much later. */
static int plan__check_affinity(struct plan_ctx *c)
{
	for (size_t u = 0; u < c->nr_ug; u++) {
		for (int i = 0; i < c->ug[u].nr_aff; i++) {
			if (hwloc_get_pu_obj_by_os_index(c->t->h, c->ug[u].aff[i]))
				continue;
			snprintf(c->err, c->errlen,
				 "--threads spec: affinity CPU %d is not in the topology",
				 c->ug[u].aff[i]);
			return -EINVAL;
		}
	}
	return 0;
}

/* Numbers the non-empty user items, then one last group for CPUs no item names. */
static int plan__number_user_groups(struct plan_ctx *c, size_t *map)
{
	for (size_t u = 0; u <= c->nr_ug; u++)
		map[u] = SIZE_MAX;
	for (size_t i = 0; i < c->nr_cpus; i++)
		map[c->cpu[i].group] = 0;
	for (size_t u = 0; u <= c->nr_ug; u++) {
		if (map[u] == SIZE_MAX)
			continue;
		c->src[c->nr_groups] = u < c->nr_ug ? &c->ug[u] : NULL;
		map[u] = c->nr_groups++;
	}
	if (map[c->nr_ug] == 0 && c->nr_groups == 1) {
		snprintf(c->err, c->errlen, "--threads spec names no recorded CPU");
		return -EINVAL;
	}
	for (size_t i = 0; i < c->nr_cpus; i++)
		c->cpu[i].group = map[c->cpu[i].group];
	return 0;
}

/*
 * Groups as the user said. Recorded CPUs that no item names still need a
 * reader, or their rings would overflow unseen: they share one extra group.
 */
static int plan__group_by_user(struct plan_ctx *c, const char *spec)
{
	size_t *map;
	long u;
	int err;

	err = user_spec__parse(spec, &c->ug, &c->nr_ug, c->err, c->errlen);
	if (err)
		return err;
	err = plan__check_affinity(c);
	if (err)
		return err;
	for (size_t i = 0; i < c->nr_cpus; i++) {
		u = plan__user_item(c, c->cpu[i].cpu);
		if (u < 0)
			return (int)u;
		c->cpu[i].group = (size_t)u;
	}
	map = calloc(c->nr_ug + 1, sizeof(*map));
	c->src = calloc(c->nr_ug + 1, sizeof(*c->src));
	err = map && c->src ? plan__number_user_groups(c, map) : -ENOMEM;
	free(map);
	return err;
}

/* ---- turning group indices into groups ---- */

/* The writer node (topo__writer_node) of most of @cpus (first seen on ties); -1 if none. */
static int plan__group_node(const struct topo *t, const int *cpus, size_t nr)
{
	unsigned *count = calloc(t->nr_nodes ? t->nr_nodes : 1, sizeof(*count));
	hwloc_obj_t pu, node, best = NULL;
	unsigned best_count = 0;

	if (!count)
		return -1;
	for (size_t pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < nr; i++) {
			pu = hwloc_get_pu_obj_by_os_index(t->h, cpus[i]);
			node = pu ? topo__writer_node(t, pu) : NULL;
			if (!node || node->logical_index >= t->nr_nodes)
				continue;
			if (!pass)
				count[node->logical_index]++;
			else if (count[node->logical_index] > best_count)
				best = node, best_count = count[node->logical_index];
		}
	}
	free(count);
	return best ? (int)best->os_index : -1;
}

static int *cpus__dup(const int *cpus, size_t nr)
{
	int *d = malloc((nr ? nr : 1) * sizeof(*d));

	if (d)
		memcpy(d, cpus, nr * sizeof(*d));
	return d;
}

/* Affinity (the user's, else the group's CPUs) and node of group @g. */
static int plan__finish_group(struct plan_ctx *c, struct plan_group *g,
			      const struct user_group *src)
{
	if (src && src->aff) {
		g->affinity = cpus__dup(src->aff, src->nr_aff);
		g->nr_affinity = src->nr_aff;
	} else {
		g->affinity = cpus__dup(g->cpus, g->nr_cpus);
		g->nr_affinity = g->nr_cpus;
	}
	if (!g->affinity)
		return -ENOMEM;
	/* The writer's buffers belong next to where the writer runs. */
	g->node = plan__group_node(c->t, g->affinity, g->nr_affinity);
	return 0;
}

static int plan__fill(struct plan *plan, struct plan_ctx *c)
{
	struct plan_group *g;

	plan->groups = calloc(c->nr_groups, sizeof(*plan->groups));
	if (!plan->groups)
		return -ENOMEM;
	plan->nr_groups = c->nr_groups;
	for (size_t i = 0; i < c->nr_cpus; i++)
		plan->groups[c->cpu[i].group].nr_cpus++;
	for (size_t k = 0; k < plan->nr_groups; k++) {
		g = &plan->groups[k];
		g->cpus = malloc(g->nr_cpus * sizeof(*g->cpus));
		if (!g->cpus)
			return -ENOMEM;
		g->nr_cpus = 0;
	}
	for (size_t i = 0; i < c->nr_cpus; i++) {
		g = &plan->groups[c->cpu[i].group];
		g->cpus[g->nr_cpus++] = c->cpu[i].cpu;
	}
	for (size_t k = 0; k < plan->nr_groups; k++) {
		g = &plan->groups[k];
		qsort(g->cpus, g->nr_cpus, sizeof(*g->cpus), topo__int_cmp);
		if (plan__finish_group(c, g, c->src ? c->src[k] : NULL))
			return -ENOMEM;
	}
	return 0;
}

static int plan_cpu__cmp_topo(const void *a, const void *b)
{
	unsigned x = ((const struct plan_cpu *)a)->pu->logical_index;
	unsigned y = ((const struct plan_cpu *)b)->pu->logical_index;

	return (x > y) - (x < y);
}

/* Looks the recorded CPUs up, drops duplicates, sorts them in topology order. */
static int plan__collect(struct plan_ctx *c, const int *cpus, size_t nr)
{
	size_t n = 0;

	if (!nr) {
		snprintf(c->err, c->errlen, "no CPU to record");
		return -EINVAL;
	}
	c->cpu = calloc(nr, sizeof(*c->cpu));
	if (!c->cpu)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++) {
		hwloc_obj_t pu =
		    cpus[i] < 0 ? NULL : hwloc_get_pu_obj_by_os_index(c->t->h, cpus[i]);

		if (!pu) {
			snprintf(c->err, c->errlen, "CPU %d is not in the topology (%d CPUs)",
				 cpus[i], topo__nr_cpus(c->t));
			return -EINVAL;
		}
		c->cpu[n].cpu = cpus[i];
		c->cpu[n++].pu = pu;
	}
	qsort(c->cpu, n, sizeof(*c->cpu), plan_cpu__cmp_topo);
	c->nr_cpus = 0;
	for (size_t i = 0; i < n; i++)
		if (!c->nr_cpus || c->cpu[c->nr_cpus - 1].pu != c->cpu[i].pu)
			c->cpu[c->nr_cpus++] = c->cpu[i];
	return 0;
}

static int plan__group(struct plan_ctx *c, const struct plan_spec *spec)
{
	switch (spec->policy) {
	case PLAN_AUTO:
		if (!spec->cap)
			break;
		return plan__group_auto(c, spec->cap);
	case PLAN_NUMA:
	case PLAN_PACKAGE:
	case PLAN_L3:
	case PLAN_CORE:
	case PLAN_CPU:
		return plan__group_by_object(c, spec->policy);
	case PLAN_COUNT:
		if (!spec->count)
			break;
		plan__group_by_count(c, spec->count);
		return 0;
	case PLAN_USER:
		return plan__group_by_user(c, spec->user);
	}
	snprintf(c->err, c->errlen, "invalid --threads plan");
	return -EINVAL;
}

int plan__build(struct plan *plan, const struct topo *t, const struct plan_spec *spec,
		const int *cpus, size_t nr_cpus, char *err, size_t errlen)
{
	struct plan_ctx c = {.t = t, .err = err, .errlen = errlen};
	int ret;

	memset(plan, 0, sizeof(*plan));
	ret = plan__collect(&c, cpus, nr_cpus);
	if (!ret)
		ret = plan__group(&c, spec);
	if (!ret)
		ret = plan__fill(plan, &c);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory building the writer plan");
	if (ret)
		plan__release(plan);
	user_groups__free(c.ug, c.nr_ug);
	free(c.src);
	free(c.cpu);
	return ret;
}

int plan__build_list(struct plan *plan, const struct topo *t, const struct plan_spec *spec,
		     const char *cpu_list, char *err, size_t errlen)
{
	int *cpus = NULL, nr;
	int ret;

	memset(plan, 0, sizeof(*plan));
	if (cpu_list) {
		nr = cpulist__parse(cpu_list, &cpus);
		if (nr < 0) {
			snprintf(err, errlen, "-C: bad CPU list '%s'", cpu_list);
			return nr;
		}
	} else {
		nr = topo__nr_cpus(t);
		cpus = calloc(nr > 0 ? nr : 1, sizeof(*cpus));
		if (!cpus)
			return -ENOMEM;
		nr = topo__all_cpus(t, cpus, nr);
	}
	ret = nr < 0 ? nr : plan__build(plan, t, spec, cpus, nr, err, errlen);
	free(cpus);
	return ret;
}

void plan__release(struct plan *plan)
{
	if (!plan)
		return;
	for (size_t i = 0; plan->groups && i < plan->nr_groups; i++) {
		free(plan->groups[i].cpus);
		free(plan->groups[i].affinity);
	}
	free(plan->groups);
	plan->groups = NULL;
	plan->nr_groups = 0;
}
