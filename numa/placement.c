// SPDX-License-Identifier: GPL-2.0
/*
 * numa/placement.c: applying a plan group to the calling writer thread:
 * CPU affinity, and memory on the group's node.
 */
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "numa/numa.h"

int placement__pin_self(const struct plan_group *g)
{
	cpu_set_t *set;
	size_t size;
	int max = -1, err;

	for (size_t i = 0; i < g->nr_affinity; i++) {
		if (g->affinity[i] < 0)
			return -EINVAL;
		max = g->affinity[i] > max ? g->affinity[i] : max;
	}
	if (max < 0)
		return -EINVAL;
	/* Sized by the CPUs named, not CPU_SETSIZE: hosts with > 1024 CPUs exist. */
	set = CPU_ALLOC(max + 1);
	if (!set)
		return -ENOMEM;
	size = CPU_ALLOC_SIZE(max + 1);
	CPU_ZERO_S(size, set);
	for (size_t i = 0; i < g->nr_affinity; i++)
		CPU_SET_S(g->affinity[i], size, set);
	err = pthread_setaffinity_np(pthread_self(), size, set);
	CPU_FREE(set);
	return -err;
}

int placement__pin_node(int node)
{
	if (numa_available() < 0)
		return -ENOSYS;
	return numa_run_on_node(node) ? -errno : 0;
}

int placement__nr_allowed(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	cpu_set_t *set;
	size_t size;
	int nr;

	if (n < 1)
		n = 1;
	n = n < 8192 ? 8192 : n; /* the kernel's mask may be wider than the CPUs configured */
	set = CPU_ALLOC(n);
	if (!set)
		return -ENOMEM;
	size = CPU_ALLOC_SIZE(n);
	if (pthread_getaffinity_np(pthread_self(), size, set)) {
		CPU_FREE(set);
		return -EINVAL;
	}
	nr = CPU_COUNT_S(size, set);
	CPU_FREE(set);
	return nr;
}

/*
 * libnuma prints (numa_error) when mbind() refuses a node, e.g. one outside
 * our cgroup's cpuset.mems: ask first, and fall back to local memory.
 */
static bool placement__node_usable(int node)
{
	struct bitmask *allowed;
	bool ok;

	if (numa_available() < 0 || node < 0 || node > numa_max_node())
		return false;
	allowed = numa_get_mems_allowed();
	if (!allowed)
		return false;
	ok = numa_bitmask_isbitset(allowed, node);
	numa_bitmask_free(allowed);
	return ok;
}

void *placement__alloc(size_t size, int node)
{
	void *p;

	if (!size) {
		errno = EINVAL;
		return NULL;
	}
	if (placement__node_usable(node)) {
		p = numa_alloc_onnode(size, node);
		if (!p)
			return NULL;
	} else {
		p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
	}
	/* Fault every page in now, from this thread, under the node policy. */
	memset(p, 0, size);
	return p;
}

void placement__free(void *p, size_t size)
{
	/* numa_alloc_onnode() memory is a plain mapping too (numa_free() is munmap). */
	if (p)
		munmap(p, size);
}

int placement__node_of(const void *addr)
{
	uintptr_t page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
	void *page = (void *)((uintptr_t)addr & ~(page_size - 1));
	int status = -ENOENT;

	/* With no target nodes, move_pages() only reports where each page is. */
	if (move_pages(0, 1, &page, NULL, &status, 0) < 0)
		return -errno;
	return status; /* a node, or -errno such as -ENOENT for an untouched page */
}
