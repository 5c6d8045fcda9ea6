// SPDX-License-Identifier: GPL-2.0
/*
 * The machine description perf record stores in its header features,
 * collected the way perf 6.1 does (header.c write_*(), cputopo.c,
 * cpumap.c, pmu.c), so `perf report --header-only` shows the same values
 * for a shardrec file as for a perf one. POSIX only: uname, stdio, dirent,
 * sysconf.
 *
 * A feature whose source is missing (no NUMA sysfs, no "model name" line)
 * is left out, as perf clears a feature whose write fails.
 */
#include "recorder/header/sysinfo.h"
#include "recorder/util/fs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define SYSINFO_MAX_CPUS 65536 /* bound for sysfs-provided CPU numbers */

struct sysinfo_ctx {
	const char *sys;  /* "/sys" or the caller's root */
	const char *proc; /* "/proc" or the caller's root */
	struct pfile_featset *fs;
};

/* ---- small file helpers ---- */

/* A topology int as cpu__get_core_id() & co: -1 when missing. */
static int32_t read_topo_int(const char *sys, long cpu, const char *name)
{
	char *s = filename__read_linef("%s/devices/system/cpu/cpu%ld/topology/%s", sys, cpu, name);
	long v = -1;

	if (s)
		v = strtol(s, NULL, 10);
	free(s);
	return (int32_t)v;
}

/*
 * Calls @fn for every CPU number in a list like "0-3,8,10-11" that is below
 * @limit. Returns the count, or -EINVAL if the list is malformed.
 */
static long cpulist__for_each(const char *s, long limit, void (*fn)(long cpu, void *arg), void *arg)
{
	long count = 0;

	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b = a, c;

		if (end == s || a < 0)
			return -EINVAL;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a)
				return -EINVAL;
			s = end;
		}
		for (c = a; c <= b && c < limit; c++, count++)
			if (fn)
				fn(c, arg);
		if (*s == ',')
			s++;
		else if (*s && !isspace((unsigned char)*s))
			return -EINVAL;
		else if (*s)
			break;
	}
	return count;
}

/* perf's get_max_num(): the last number of a cpu list, plus one. */
static long cpulist__max(const char *s)
{
	const char *p = s + strlen(s);
	long v;

	while (p > s && p[-1] != ',' && p[-1] != '-')
		p--;
	v = strtol(p, NULL, 10);
	return v >= 0 && v < SYSINFO_MAX_CPUS ? v + 1 : -EINVAL;
}

/* ---- uname / version / cmdline ---- */

static int sysinfo__uname(struct sysinfo_ctx *c)
{
	struct utsname u;
	int ret;

	if (uname(&u) < 0)
		return -errno;
	ret = pfile_feat__string(c->fs, PFILE_FEAT_HOSTNAME, u.nodename);
	if (!ret)
		ret = pfile_feat__string(c->fs, PFILE_FEAT_OSRELEASE, u.release);
	if (!ret)
		ret = pfile_feat__string(c->fs, PFILE_FEAT_VERSION, SYSINFO_HEADER_VERSION);
	if (!ret)
		ret = pfile_feat__string(c->fs, PFILE_FEAT_ARCH, u.machine);
	return ret;
}

/* ---- /proc ---- */

/* Value after "key<spaces>: " of the first line starting with @key, malloc'ed. */
static char *proc_field(FILE *f, const char *key)
{
	char *line = NULL, *v = NULL, *p;
	size_t cap = 0;

	rewind(f);
	while (getline(&line, &cap, f) > 0) {
		if (strncmp(line, key, strlen(key)))
			continue;
		/* header.c __write_cpudesc(): take what follows ": " */
		p = strchr(line, ':');
		v = line;
		if (p && p[1] == ' ' && p[2])
			v = p + 2;
		if ((p = strchr(v, '\n')))
			*p = '\0';
		v = strdup(v);
		break;
	}
	free(line);
	return v;
}

/* __write_cpudesc(): every run of white space becomes one space. */
static void squeeze_spaces(char *s)
{
	char *w = s;
	bool in_space = false;

	for (; *s; s++) {
		if (isspace((unsigned char)*s)) {
			if (!in_space)
				*w++ = ' ';
			in_space = true;
			continue;
		}
		in_space = false;
		*w++ = *s;
	}
	*w = '\0';
}

static int sysinfo__cpudesc(struct sysinfo_ctx *c, FILE *f)
{
	char *desc = proc_field(f, "model name");
	int ret;

	if (!desc)
		return 0;
	squeeze_spaces(desc);
	ret = pfile_feat__string(c->fs, PFILE_FEAT_CPUDESC, desc);
	free(desc);
	return ret;
}

/*
 * x86 get_cpuid(): "vendor,family,model,stepping" with the extended family
 * and model folded in; /proc/cpuinfo's numbers are folded the same way.
 */
static int sysinfo__cpuid(struct sysinfo_ctx *c, FILE *f)
{
	char *vendor = proc_field(f, "vendor_id");
	char *family = proc_field(f, "cpu family");
	char *model = proc_field(f, "model\t");
	char *step = proc_field(f, "stepping");
	char buf[128];
	int ret = 0;

	if (vendor && family && model && step) {
		snprintf(buf, sizeof(buf), "%s,%lu,%lu,%lu", vendor, strtoul(family, NULL, 10),
			 strtoul(model, NULL, 10), strtoul(step, NULL, 10));
		ret = pfile_feat__string(c->fs, PFILE_FEAT_CPUID, buf);
	}
	free(vendor);
	free(family);
	free(model);
	free(step);
	return ret;
}

static int sysinfo__cpuinfo(struct sysinfo_ctx *c)
{
	char path[PATH_MAX];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/cpuinfo", c->proc);
	f = fopen(path, "re");
	if (!f)
		return 0;
	ret = sysinfo__cpudesc(c, f);
	if (!ret)
		ret = sysinfo__cpuid(c, f);
	fclose(f);
	return ret;
}

static int sysinfo__total_mem(struct sysinfo_ctx *c)
{
	char path[PATH_MAX];
	char *v;
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/meminfo", c->proc);
	f = fopen(path, "re");
	if (!f)
		return 0;
	v = proc_field(f, "MemTotal:");
	fclose(f);
	if (v)
		ret = pfile_feat__total_mem(c->fs, strtoull(v, NULL, 10));
	free(v);
	return ret;
}

/* ---- CPUs ---- */

#define CPU_FMT "%s/devices/system/cpu/cpu%ld/topology/"

struct cpu_state {
	long nr_avail;	/* highest present CPU + 1 (cpu__max_present_cpu) */
	long nr_online; /* sysconf(_SC_NPROCESSORS_ONLN) reads the same list */
	bool *online;	/* nr_avail entries */
};

static void mark_online(long cpu, void *arg)
{
	struct cpu_state *s = arg;

	if (cpu < s->nr_avail)
		s->online[cpu] = true;
}

static int cpu_state__init(struct cpu_state *s, const char *sys)
{
	char *present = filename__read_linef("%s/devices/system/cpu/present", sys);
	char *online = filename__read_linef("%s/devices/system/cpu/online", sys);
	int ret = -ENOENT;

	memset(s, 0, sizeof(*s));
	if (!present || !online)
		goto out;
	s->nr_avail = cpulist__max(present);
	ret = -EINVAL;
	if (s->nr_avail <= 0)
		goto out;
	s->online = calloc(s->nr_avail, sizeof(*s->online));
	ret = -ENOMEM;
	if (!s->online)
		goto out;
	s->nr_online = cpulist__for_each(online, SYSINFO_MAX_CPUS, mark_online, s);
	ret = s->nr_online < 0 ? (int)s->nr_online : 0;
out:
	free(present);
	free(online);
	return ret;
}

/* A de-duplicated list of sibling strings, as perf's build_cpu_topology(). */
struct str_set {
	char **s;
	uint32_t nr;
};

/* Takes ownership of @v. */
static int str_set__add(struct str_set *set, char *v)
{
	char **n;
	uint32_t i;

	if (!v)
		return 0;
	for (i = 0; i < set->nr; i++) {
		if (!strcmp(set->s[i], v)) {
			free(v);
			return 0;
		}
	}
	n = realloc(set->s, (set->nr + 1) * sizeof(*n));
	if (!n) {
		free(v);
		return -ENOMEM;
	}
	set->s = n;
	set->s[set->nr++] = v;
	return 0;
}

static void str_set__free(struct str_set *set)
{
	uint32_t i;

	for (i = 0; i < set->nr; i++)
		free(set->s[i]);
	free(set->s);
}

/* Newer kernels' name first, then the one perf falls back to. */
static char *read_topo_list(const char *sys, long cpu, const char *name, const char *old)
{
	char *v = filename__read_linef(CPU_FMT "%s", sys, cpu, name);

	if (v || !old)
		return v;
	return filename__read_linef(CPU_FMT "%s", sys, cpu, old);
}

struct topo {
	struct str_set pkg, die, core;
	int32_t *core_id, *socket_id, *die_id;
};

static int topo__cpu_lists(struct topo *t, const char *sys, long cpu, bool has_die)
{
	int ret;

	ret = str_set__add(&t->pkg,
			   read_topo_list(sys, cpu, "package_cpus_list", "core_siblings_list"));
	if (!ret && has_die)
		ret = str_set__add(&t->die, read_topo_list(sys, cpu, "die_cpus_list", NULL));
	if (!ret)
		ret = str_set__add(
		    &t->core, read_topo_list(sys, cpu, "core_cpus_list", "thread_siblings_list"));
	return ret;
}

/* cputopo.c has_die_topology(): x86_64 and s390x with die_cpus_list on cpu0. */
static bool has_die_topology(const char *sys)
{
	struct utsname u;
	char *v;

	if (uname(&u) < 0)
		return false;
	if (strncmp(u.machine, "x86_64", 6) && strncmp(u.machine, "s390x", 5))
		return false;
	v = filename__read_linef(CPU_FMT "die_cpus_list", sys, 0L);
	free(v);
	return v != NULL;
}

static int topo__build(struct topo *t, const char *sys, const struct cpu_state *s)
{
	bool has_die = has_die_topology(sys);
	long cpu;
	int ret = 0;

	t->core_id = calloc(s->nr_avail, sizeof(int32_t));
	t->socket_id = calloc(s->nr_avail, sizeof(int32_t));
	t->die_id = calloc(s->nr_avail, sizeof(int32_t));
	if (!t->core_id || !t->socket_id || !t->die_id)
		return -ENOMEM;
	for (cpu = 0; cpu < s->nr_avail && !ret; cpu++) {
		/* perf_env__read_cpu_topology_map(): every CPU, -1 if absent */
		t->core_id[cpu] = read_topo_int(sys, cpu, "core_id");
		t->socket_id[cpu] = read_topo_int(sys, cpu, "physical_package_id");
		t->die_id[cpu] = read_topo_int(sys, cpu, "die_id");
		/* cpu_topology__new(): sibling lists of online CPUs only */
		if (s->online[cpu])
			ret = topo__cpu_lists(t, sys, cpu, has_die);
	}
	return ret;
}

static void topo__free(struct topo *t)
{
	str_set__free(&t->pkg);
	str_set__free(&t->die);
	str_set__free(&t->core);
	free(t->core_id);
	free(t->socket_id);
	free(t->die_id);
}

static int sysinfo__cpu_topology(struct sysinfo_ctx *c, const struct cpu_state *s)
{
	struct topo t = {0};
	struct pfile_cpu_topo pt;
	int ret;

	ret = topo__build(&t, c->sys, s);
	if (ret)
		goto out_free;
	pt = (struct pfile_cpu_topo){
	    .nr_cores = t.pkg.nr,
	    .nr_threads = t.core.nr,
	    .nr_dies = t.die.nr,
	    .core_siblings = t.pkg.s,
	    .thread_siblings = t.core.s,
	    .die_siblings = t.die.s,
	    .nr_cpus_avail = s->nr_avail,
	    .core_id = t.core_id,
	    .socket_id = t.socket_id,
	    .die_id = t.die_id,
	};
	ret = pfile_feat__cpu_topology(c->fs, &pt);
out_free:
	topo__free(&t);
	return ret;
}

static int sysinfo__cpus(struct sysinfo_ctx *c)
{
	struct cpu_state s;
	int ret;

	ret = cpu_state__init(&s, c->sys);
	if (ret == -ENOENT || ret == -EINVAL) {
		/* no usable sysfs: NRCPUS from sysconf alone, no topology */
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		free(s.online);
		return n > 0 ? pfile_feat__nrcpus(c->fs, n, n) : 0;
	}
	if (!ret)
		ret = pfile_feat__nrcpus(c->fs, s.nr_avail, s.nr_online);
	if (!ret)
		ret = sysinfo__cpu_topology(c, &s);
	free(s.online);
	return ret;
}

/* ---- NUMA ---- */

struct numa {
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

static void numa__add(long node, void *arg)
{
	struct numa *m = arg;

	if (!m->err)
		m->err = numa_node__load(&m->n[m->nr++], m->sys, node);
}

static void numa__free(struct numa *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++)
		free((char *)m->n[i].cpus);
	free(m->n);
}

static int sysinfo__numa(struct sysinfo_ctx *c)
{
	char *online = filename__read_linef("%s/devices/system/node/online", c->sys);
	struct numa m = {.sys = c->sys};
	long count;
	int ret = 0;

	if (!online)
		return 0;
	count = cpulist__for_each(online, SYSINFO_MAX_CPUS, NULL, NULL);
	if (count <= 0)
		goto out;
	m.n = calloc(count, sizeof(*m.n));
	ret = -ENOMEM;
	if (!m.n)
		goto out;
	cpulist__for_each(online, SYSINFO_MAX_CPUS, numa__add, &m);
	/* perf drops the feature when a node can't be read */
	ret = m.err ? 0 : pfile_feat__numa_topology(c->fs, m.n, m.nr);
out:
	numa__free(&m);
	free(online);
	return ret;
}

/* ---- whole sysfs files, read as tools/lib/api/fs/fs.c does ---- */

/* filename__read_str() of @dir/@name, or of a path too long to build: -ENAMETOOLONG. */
static int read_whole_at(const char *dir, const char *name, char **out)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s/%s", dir, name);

	*out = NULL;
	if (n < 0 || n >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return filename__read_str(path, out);
}

/* filename__read_int(): atoi() of its start (a one-line number); an empty file fails. */
static int read_int_at(const char *dir, const char *name, uint32_t *v)
{
	char *s = filename__read_linef("%s/%s", dir, name);

	if (!s)
		return -ENODATA;
	*v = (uint32_t)atoi(s);
	free(s);
	return 0;
}

/* tools/lib/string.c strim(): leading and trailing isspace() dropped, in place. */
static void strim(char *s)
{
	size_t len, skip = 0;

	while (isspace((unsigned char)s[skip]))
		skip++;
	len = strlen(s + skip);
	memmove(s, s + skip, len + 1);
	while (len && isspace((unsigned char)s[len - 1]))
		s[--len] = '\0';
}

static int read_str_at(const char *dir, const char *name, const char **out)
{
	char *s;
	int ret = read_whole_at(dir, name, &s);

	if (!ret)
		strim(s);
	*out = s;
	return ret;
}

/* ---- PMU_MAPPINGS ---- */

/* An fscanf("%u") of @dir/@name as pmu_type() and perf_pmu__hybrid_mounted() do. */
static bool read_u32_at(const char *dir, const char *name, uint32_t *v)
{
	char *s = filename__read_linef("%s/%s", dir, name);
	unsigned int u;
	bool ok = s && sscanf(s, "%u", &u) == 1;

	free(s);
	if (ok)
		*v = u;
	return ok;
}

struct pmu_list {
	struct pfile_pmu *p;
	size_t nr, cap;
};

/*
 * pmu.c pmu_lookup(): a PMU is listed when its "type" file holds a number;
 * a "cpu_*" one only when pmu-hybrid.c perf_pmu__hybrid_mounted() finds a
 * number in its "cpus" file. (perf also drops a PMU whose format/ or
 * events/ files it cannot parse; the kernel does not make such files.)
 */
static int pmu_list__add(struct pmu_list *l, const char *devices, const char *name)
{
	char dir[PATH_MAX];
	uint32_t type, cpu;
	int n = snprintf(dir, sizeof(dir), "%s/%s", devices, name);

	if (n < 0 || n >= (int)sizeof(dir))
		return 0;
	if (!strncmp(name, "cpu_", 4) && !read_u32_at(dir, "cpus", &cpu))
		return 0;
	if (!read_u32_at(dir, "type", &type))
		return 0;
	if (l->nr == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct pfile_pmu *p = realloc(l->p, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		l->p = p;
		l->cap = cap;
	}
	l->p[l->nr].type = type;
	l->p[l->nr].name = strdup(name);
	if (!l->p[l->nr].name)
		return -ENOMEM;
	l->nr++;
	return 0;
}

static void pmu_list__free(struct pmu_list *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		free((char *)l->p[i].name);
	free(l->p);
}

/*
 * perf_pmu__scan()'s list, which pmu_read_sysfs() fills in readdir()
 * order, unsorted. (A PMU perf looked up by name before its first scan
 * would come first; for perf record's default event the first lookup is
 * that scan, perf_pmu__has_hybrid().) No event_source directory: an empty
 * list. 0 / -ENOMEM.
 */
static int pmu_list__scan(struct pmu_list *l, const char *devices)
{
	struct dirent *d;
	DIR *dir = opendir(devices);
	int ret = 0;

	while (dir && !ret && (d = readdir(dir))) {
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
			ret = pmu_list__add(l, devices, d->d_name);
	}
	if (dir)
		closedir(dir);
	return ret;
}

/* ---- CPU_PMU_CAPS and PMU_CAPS ---- */

/*
 * One capability value as perf_pmu__caps_parse() reads it: the first line
 * fgets() puts in a 128-byte buffer, its last character dropped (the
 * newline the kernel ends them with). 0 with *@out malloc'ed, 1 when the
 * file can't be opened or is empty (perf skips it), -ENOMEM.
 */
static int read_cap_value(const char *path, char **out)
{
	char value[128];
	FILE *f = fopen(path, "re");
	size_t len;
	int ret = 1;

	*out = NULL;
	if (!f)
		return 1;
	if (fgets(value, sizeof(value), f)) {
		len = strlen(value);
		*out = strndup(value, len ? len - 1 : 0);
		ret = *out ? 0 : -ENOMEM;
	}
	fclose(f);
	return ret;
}

static void pmu_caps__free(struct pfile_pmu_caps *pc)
{
	uint32_t i;

	for (i = 0; i < pc->nr_caps; i++) {
		free((char *)pc->caps[i].name);
		free((char *)pc->caps[i].value);
	}
	free((void *)pc->caps);
	memset(pc, 0, sizeof(*pc));
}

/* Appends {@name, @value}, taking @value. 0 / -ENOMEM. */
static int pmu_caps__add(struct pfile_pmu_caps *pc, const char *name, char *value)
{
	struct pfile_pmu_cap *c = realloc((void *)pc->caps, (pc->nr_caps + 1) * sizeof(*c));

	if (!c) {
		free(value);
		return -ENOMEM;
	}
	pc->caps = c;
	c[pc->nr_caps].name = strdup(name);
	c[pc->nr_caps].value = value;
	if (!c[pc->nr_caps].name) {
		free(value);
		return -ENOMEM;
	}
	pc->nr_caps++;
	return 0;
}

/* Every readable file of @dir, in readdir() order. 0 / -ENOMEM. */
static int pmu_caps__read_dir(struct pfile_pmu_caps *pc, DIR *dir, const char *path)
{
	char file[PATH_MAX];
	struct dirent *d;
	char *value;
	int ret = 0, n;

	while (!ret && (d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		n = snprintf(file, sizeof(file), "%s/%s", path, d->d_name);
		if (n < 0 || n >= (int)sizeof(file))
			continue;
		ret = read_cap_value(file, &value);
		if (!ret)
			ret = pmu_caps__add(pc, d->d_name, value);
		else if (ret == 1)
			ret = 0;
	}
	return ret;
}

/*
 * perf_pmu__caps_parse() of PMU @name: 0 with @pc filled (no caps/
 * directory: no capabilities), 1 when caps/ exists but can't be opened
 * (perf's -EINVAL), -ENOMEM. @pc->pmu points to @name.
 */
static int pmu_caps__read(struct pfile_pmu_caps *pc, const char *devices, const char *name)
{
	char path[PATH_MAX];
	struct stat st;
	DIR *dir;
	int ret, n;

	memset(pc, 0, sizeof(*pc));
	pc->pmu = name;
	n = snprintf(path, sizeof(path), "%s/%s/caps", devices, name);
	if (n < 0 || n >= (int)sizeof(path))
		return 1;
	if (stat(path, &st) < 0)
		return 0;
	dir = opendir(path);
	if (!dir)
		return 1;
	ret = pmu_caps__read_dir(pc, dir, path);
	closedir(dir);
	if (ret)
		pmu_caps__free(pc);
	return ret;
}

/*
 * write_cpu_pmu_caps(): the "cpu" PMU's capabilities, none listed when it
 * has no caps/ directory; no feature without a "cpu" PMU (hybrid and most
 * non-x86 machines) or when its caps/ can't be opened.
 */
static int sysinfo__cpu_pmu_caps(struct sysinfo_ctx *c, const char *devices,
				 const struct pmu_list *l)
{
	struct pfile_pmu_caps pc;
	size_t i;
	int ret;

	for (i = 0; i < l->nr && strcmp(l->p[i].name, "cpu"); i++)
		;
	if (i == l->nr)
		return 0;
	ret = pmu_caps__read(&pc, devices, "cpu");
	if (ret)
		return ret == 1 ? 0 : ret;
	ret = pfile_feat__cpu_pmu_caps(c->fs, &pc);
	pmu_caps__free(&pc);
	return ret;
}

/* pmu-hybrid.c perf_pmu__is_hybrid(): pmu_list__add() kept "cpu_*" PMUs only when mounted. */
static bool pmu_is_hybrid(const char *name) { return !strncmp(name, "cpu_", 4); }

/*
 * The PMUs other than "cpu" with at least one capability, as
 * write_pmu_caps() lists them: the hybrid ones first
 * (perf_pmu__for_each_hybrid_pmu()), then the others, each group in scan
 * order. (perf writes every hybrid PMU in that first loop but counts only
 * those with capabilities; the kernel gives every hybrid PMU some, so the
 * two agree and only PMUs with capabilities are kept here.)
 */
static int pmu_caps__collect(struct pfile_pmu_caps *out, size_t *nr, const char *devices,
			     const struct pmu_list *l)
{
	size_t i;
	int pass, ret = 0;

	*nr = 0;
	for (pass = 0; pass < 2 && !ret; pass++) {
		for (i = 0; i < l->nr && !ret; i++) {
			const char *name = l->p[i].name;

			if (!strcmp(name, "cpu") || pmu_is_hybrid(name) != (pass == 0))
				continue;
			ret = pmu_caps__read(&out[*nr], devices, name);
			if (!ret && out[*nr].nr_caps)
				(*nr)++;
			else if (ret >= 0)
				pmu_caps__free(&out[*nr]);
			ret = ret == 1 ? 0 : ret;
		}
	}
	return ret;
}

/* write_pmu_caps(): a count of 0 (still written) when no PMU has capabilities. */
static int sysinfo__pmu_caps(struct sysinfo_ctx *c, const char *devices, const struct pmu_list *l)
{
	struct pfile_pmu_caps *out = calloc(l->nr + 1, sizeof(*out));
	size_t i, nr = 0;
	int ret = -ENOMEM;

	if (!out)
		return ret;
	ret = pmu_caps__collect(out, &nr, devices, l);
	if (!ret)
		ret = pfile_feat__pmu_caps(c->fs, out, nr);
	for (i = 0; i < nr; i++)
		pmu_caps__free(&out[i]);
	free(out);
	return ret;
}

/*
 * PMU_MAPPINGS, CPU_PMU_CAPS and PMU_CAPS, all from one PMU scan.
 * write_pmu_mappings() writes a count of 0 ("not available") when there is
 * no event_source directory.
 */
static int sysinfo__pmus(struct sysinfo_ctx *c)
{
	char devices[PATH_MAX];
	struct pmu_list l = {0};
	int ret;

	snprintf(devices, sizeof(devices), "%s/bus/event_source/devices", c->sys);
	ret = pmu_list__scan(&l, devices);
	if (!ret)
		ret = pfile_feat__pmu_mappings(c->fs, l.p, l.nr);
	if (!ret)
		ret = sysinfo__cpu_pmu_caps(c, devices, &l);
	if (!ret)
		ret = sysinfo__pmu_caps(c, devices, &l);
	pmu_list__free(&l);
	return ret;
}

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
	ret = read_int_at(dir, "level", &c->level);
	if (!ret)
		ret = read_int_at(dir, "coherency_line_size", &c->line_size);
	if (!ret)
		ret = read_int_at(dir, "number_of_sets", &c->sets);
	if (!ret)
		ret = read_int_at(dir, "ways_of_associativity", &c->ways);
	if (!ret)
		ret = read_str_at(dir, "type", &c->type);
	if (!ret)
		ret = read_str_at(dir, "size", &c->size);
	if (!ret)
		ret = read_str_at(dir, "shared_cpu_list", &c->map);
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
	size_t i;

	for (i = 0; i < s->nr; i++) {
		if (cache__equal(&s->e[i].c, c)) {
			cache__free(c);
			return 0;
		}
	}
	if (s->nr == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct cache_ent *e = realloc(s->e, cap * sizeof(*e));

		if (!e) {
			cache__free(c);
			return -ENOMEM;
		}
		s->e = e;
		s->cap = cap;
	}
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
	long n = possible ? cpulist__max(possible) : -ENOENT;

	free(possible);
	return n > 0 ? n : 4096;
}

/*
 * write_cache(). A cache file that can't be read fails perf's write and
 * perf leaves the feature out; so does this. No cache directories at all:
 * a count of 0, as perf writes.
 */
static int sysinfo__cache(struct sysinfo_ctx *c)
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
	size_t nr;
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
	n = realloc(m->n, (m->nr + 1) * sizeof(*n));
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
