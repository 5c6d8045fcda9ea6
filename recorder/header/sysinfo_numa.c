// SPDX-License-Identifier: GPL-2.0
/* NUMA_TOPOLOGY and MEM_TOPOLOGY: nodes, their CPUs and memory. */
#include "numa/numa.h"
#include "recorder/header/sysinfo_internal.h"

/* ---- NUMA ---- */

struct node_set {
	struct pfile_numa_node *n;
	size_t nr;
	const char *sys;
	int err;
};

/* cputopo.c load_numa_node(): "Node 0 MemTotal:  123 kB" lines and cpulist. */
static int numa_node__load(struct pfile_numa_node *n, const char *sys, long node)
{
	char path[PATH_MAX], field[32], *line = NULL;
	unsigned long long v;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/devices/system/node/node%ld/meminfo", sys, node);
	f = fopen(path, "re");
	if (!f)
		return -ENOENT;
	n->node = node;
	while (getline(&line, &cap, f) > 0) {
		if (!strchr(line, ':') || sscanf(line, "%*s %*d %31s %llu", field, &v) != 2)
			continue;
		if (!strcmp(field, "MemTotal:"))
			n->mem_total_kb = v;
		if (!strcmp(field, "MemFree:"))
			n->mem_free_kb = v;
	}
	free(line);
	fclose(f);
	n->cpus = filename__read_linef("%s/devices/system/node/node%ld/cpulist", sys, node);
	return n->cpus ? 0 : -ENOENT;
}

static void node_set__add(long node, struct node_set *m)
{
	if (!m->err)
		m->err = numa_node__load(&m->n[m->nr++], m->sys, node);
}

static void node_set__free(struct node_set *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++)
		free((char *)m->n[i].cpus);
	free(m->n);
}

static int sysinfo__numa(struct sysinfo_ctx *c)
{
	char *online = filename__read_linef("%s/devices/system/node/online", c->sys);
	struct node_set m = {.sys = c->sys};
	int *nodes = NULL, count;
	int ret = 0;

	if (!online)
		return 0;
	/* A node list is a CPU list's syntax: numa/'s parser, the one there is. */
	count = cpulist__parse(online, &nodes);
	if (count <= 0)
		goto out;
	m.n = calloc(count, sizeof(*m.n));
	ret = -ENOMEM;
	if (!m.n)
		goto out;
	for (int i = 0; i < count; i++)
		node_set__add(nodes[i], &m);
	/* perf drops the feature when a node can't be read */
	ret = m.err ? 0 : pfile_feat__numa_topology(c->fs, m.n, m.nr);
out:
	node_set__free(&m);
	free(nodes);
	free(online);
	return ret;
}

/* ---- MEM_TOPOLOGY ---- */

#define MAX_MEMORY_NODES 2000 /* header.c: more nodes fail write_mem_topology() */
/* Ours: a larger memoryN index (a bitmap of 2 MiB) leaves the feature out. */
#define MAX_MEMORY_BLOCKS (1U << 24)

/* for_each_memory(): an entry named "memory%u" and its index. */
static bool memory_index(const char *name, unsigned int *idx)
{
	return sscanf(name, "memory%u", idx) == 1;
}

/*
 * memory_node__read(): the memoryN entries of @dir as a bitmap of N,
 * highest N + 1 bits long (1 bit when there are none). 0 / -errno.
 */
static int mem_node__read_dir(struct pfile_mem_node *n, DIR *dir)
{
	unsigned int phys, max = 0;
	struct dirent *d;
	uint64_t *bits;

	while ((d = readdir(dir))) {
		if (memory_index(d->d_name, &phys) && phys > max)
			max = phys;
	}
	if (max >= MAX_MEMORY_BLOCKS)
		return -E2BIG;
	n->nr_bits = (uint64_t)max + 1;
	bits = calloc(n->nr_bits / 64 + 1, sizeof(*bits));
	if (!bits)
		return -ENOMEM;
	rewinddir(dir);
	while ((d = readdir(dir))) {
		if (memory_index(d->d_name, &phys) && phys < n->nr_bits)
			bits[phys / 64] |= 1ULL << (phys % 64);
	}
	n->bits = bits;
	return 0;
}

static int mem_node__read(struct pfile_mem_node *n, const char *sys, unsigned int node)
{
	char path[PATH_MAX];
	DIR *dir;
	int ret;

	snprintf(path, sizeof(path), "%s/devices/system/node/node%u", sys, node);
	dir = opendir(path);
	if (!dir)
		return -ENOENT;
	n->node = node;
	ret = mem_node__read_dir(n, dir);
	closedir(dir);
	return ret;
}

struct mem_nodes {
	struct pfile_mem_node *n;
	size_t nr, cap;
};

static void mem_nodes__free(struct mem_nodes *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++)
		free((void *)m->n[i].bits);
	free(m->n);
}

/* Reads node@node into a new last entry. 0 / -errno. */
static int mem_nodes__add(struct mem_nodes *m, const char *sys, unsigned int node)
{
	struct pfile_mem_node *n;

	if (m->nr >= MAX_MEMORY_NODES)
		return -E2BIG;
	n = array__grow(m->n, &m->cap, m->nr + 1, sizeof(*n), 16);
	if (!n)
		return -ENOMEM;
	m->n = n;
	memset(&n[m->nr], 0, sizeof(*n));
	m->nr++;
	return mem_node__read(&n[m->nr - 1], sys, node);
}

/* memory_node__sort(): ascending node number. */
static int mem_node__cmp(const void *pa, const void *pb)
{
	const struct pfile_mem_node *a = pa, *b = pb;

	return (a->node > b->node) - (a->node < b->node);
}

/* build_mem_topology(): every "node%u" entry of the node directory. 0 / -errno. */
static int mem_nodes__build(struct mem_nodes *m, const char *sys)
{
	char path[PATH_MAX];
	struct dirent *d;
	unsigned int node;
	DIR *dir;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/devices/system/node/", sys);
	dir = opendir(path);
	if (!dir)
		return -ENOENT;
	while (!ret && (d = readdir(dir))) {
		if (sscanf(d->d_name, "node%u", &node) == 1)
			ret = mem_nodes__add(m, sys, node);
	}
	closedir(dir);
	if (!ret)
		qsort(m->n, m->nr, sizeof(*m->n), mem_node__cmp);
	return ret;
}

/*
 * write_mem_topology(): the memory block size (sysfs__read_xll(), hex) and
 * each node's blocks. Left out, as perf does, when the block size or a
 * node directory can't be read.
 */
static int sysinfo__mem_topology(struct sysinfo_ctx *c)
{
	char *s = filename__read_linef("%s/devices/system/memory/block_size_bytes", c->sys);
	unsigned long long bsize = s ? strtoull(s, NULL, 16) : ULLONG_MAX;
	struct mem_nodes m = {0};
	int ret;

	free(s);
	if (bsize == ULLONG_MAX)
		return 0;
	ret = mem_nodes__build(&m, c->sys);
	if (!ret)
		ret = pfile_feat__mem_topology(c->fs, bsize, m.n, m.nr);
	else if (ret != -ENOMEM)
		ret = 0;
	mem_nodes__free(&m);
	return ret;
}

int sysinfo__collect(struct pfile_featset *fs, int argc, char *const argv[], const char *sys_root,
		     const char *proc_root)
{
	struct sysinfo_ctx c = {
	    .sys = sys_root ? sys_root : "/sys",
	    .proc = proc_root ? proc_root : "/proc",
	    .fs = fs,
	};
	int ret;

	ret = sysinfo__uname(&c);
	if (!ret)
		ret = sysinfo__cpuinfo(&c);
	if (!ret)
		ret = sysinfo__total_mem(&c);
	if (!ret)
		ret = pfile_feat__cmdline(fs, argc, argv);
	if (!ret)
		ret = sysinfo__cpus(&c);
	if (!ret)
		ret = sysinfo__numa(&c);
	if (!ret)
		ret = sysinfo__pmus(&c);
	if (!ret)
		ret = sysinfo__cache(&c);
	if (!ret)
		ret = sysinfo__mem_topology(&c);
	return ret;
}
