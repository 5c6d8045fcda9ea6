// SPDX-License-Identifier: GPL-2.0
/* CACHE: the cache levels of every CPU, deduplicated as perf does. */
#include "recorder/header/sysinfo_internal.h"

/* ---- CACHE ---- */

#define MAX_CACHE_LVL 4 /* header.c: index0..index3 per CPU, deeper ones unread */

static void cache__free(struct pfile_cache *c)
{
	free((char *)c->type);
	free((char *)c->size);
	free((char *)c->map);
}

/*
 * cpu_cache_level__read(): 1 if cpu@cpu has no index@idx directory, 0 with
 * @c filled, -errno if one of its files can't be read.
 */
static int cache__read(struct pfile_cache *c, const char *sys, long cpu, int idx)
{
	char dir[PATH_MAX];
	struct stat st;
	int ret, n;

	memset(c, 0, sizeof(*c));
	n = snprintf(dir, sizeof(dir), "%s/devices/system/cpu/cpu%ld/cache/index%d/", sys, cpu,
		     idx);
	if (n < 0 || n >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	if (stat(dir, &st))
		return 1;
	ret = sysinfo__read_int_at(dir, "level", &c->level);
	if (!ret)
		ret = sysinfo__read_int_at(dir, "coherency_line_size", &c->line_size);
	if (!ret)
		ret = sysinfo__read_int_at(dir, "number_of_sets", &c->sets);
	if (!ret)
		ret = sysinfo__read_int_at(dir, "ways_of_associativity", &c->ways);
	if (!ret)
		ret = sysinfo__read_str_at(dir, "type", &c->type);
	if (!ret)
		ret = sysinfo__read_str_at(dir, "size", &c->size);
	if (!ret)
		ret = sysinfo__read_str_at(dir, "shared_cpu_list", &c->map);
	if (ret)
		cache__free(c);
	return ret;
}

/* cpu_cache_level__cmp(): every field equal. */
static bool cache__equal(const struct pfile_cache *a, const struct pfile_cache *b)
{
	return a->level == b->level && a->line_size == b->line_size && a->sets == b->sets &&
	       a->ways == b->ways && !strcmp(a->type, b->type) && !strcmp(a->size, b->size) &&
	       !strcmp(a->map, b->map);
}

/* A cache and the position build_caches() found it at, to sort stably. */
struct cache_ent {
	struct pfile_cache c;
	size_t seq;
};

struct cache_set {
	struct cache_ent *e;
	size_t nr, cap;
};

/* Adds @c unless an equal one is there; takes its strings either way. */
static int cache_set__add(struct cache_set *s, struct pfile_cache *c)
{
	struct cache_ent *e;
	size_t i;

	for (i = 0; i < s->nr; i++) {
		if (cache__equal(&s->e[i].c, c)) {
			cache__free(c);
			return 0;
		}
	}
	e = array__grow(s->e, &s->cap, s->nr + 1, sizeof(*e), 16);
	if (!e) {
		cache__free(c);
		return -ENOMEM;
	}
	s->e = e;
	s->e[s->nr].c = *c;
	s->e[s->nr].seq = s->nr;
	s->nr++;
	return 0;
}

static void cache_set__free(struct cache_set *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		cache__free(&s->e[i].c);
	free(s->e);
}

/*
 * build_caches(): CPUs 0 .. cpu__max_cpu() - 1, index0..3 each, stopping at
 * a CPU's first missing index; duplicates (a cache shared by several CPUs)
 * kept once, in first-seen order.
 */
static int cache_set__build(struct cache_set *s, const char *sys, long nr_cpus)
{
	struct pfile_cache c;
	long cpu;
	int idx, ret;

	for (cpu = 0; cpu < nr_cpus; cpu++) {
		for (idx = 0; idx < MAX_CACHE_LVL; idx++) {
			ret = cache__read(&c, sys, cpu, idx);
			if (ret < 0)
				return ret;
			if (ret == 1)
				break;
			ret = cache_set__add(s, &c);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/*
 * write_cache() qsort()s with cpu_cache_level__sort(), a level difference.
 * glibc's qsort() is a merge sort, so equal levels keep build_caches()'
 * order; the seq tie-break gives that with any qsort().
 */
static int cache_ent__cmp(const void *pa, const void *pb)
{
	const struct cache_ent *a = pa, *b = pb;
	int d = (int)(a->c.level - b->c.level);

	if (d)
		return d;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* cpumap.c set_max_cpu_num(): the highest possible CPU + 1, else 4096. */
static long max_possible_cpu(const char *sys)
{
	char *possible = filename__read_linef("%s/devices/system/cpu/possible", sys);
	long n = possible ? sysinfo__cpulist_max(possible) : -ENOENT;

	free(possible);
	return n > 0 ? n : 4096;
}

/*
 * write_cache(). A cache file that can't be read fails perf's write and
 * perf leaves the feature out; so does this. No cache directories at all:
 * a count of 0, as perf writes.
 */
int sysinfo__cache(struct sysinfo_ctx *c)
{
	struct cache_set s = {0};
	struct pfile_cache *out = NULL;
	size_t i;
	int ret;

	ret = cache_set__build(&s, c->sys, max_possible_cpu(c->sys));
	if (ret) {
		ret = ret == -ENOMEM ? ret : 0;
		goto out_free;
	}
	if (s.nr) {
		qsort(s.e, s.nr, sizeof(*s.e), cache_ent__cmp);
		out = calloc(s.nr, sizeof(*out));
		ret = -ENOMEM;
		if (!out)
			goto out_free;
	}
	for (i = 0; i < s.nr; i++)
		out[i] = s.e[i].c;
	ret = pfile_feat__cache(c->fs, out, s.nr);
out_free:
	free(out);
	cache_set__free(&s);
	return ret;
}
