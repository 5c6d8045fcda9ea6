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
#include "recorder/header/sysinfo_internal.h"
#include "numa/numa.h"

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

/* perf's get_max_num(): the last number of a cpu list, plus one. */
long sysinfo__cpulist_max(const char *s)
{
	const char *p = s + strlen(s);
	long v;

	while (p > s && p[-1] != ',' && p[-1] != '-')
		p--;
	v = strtol(p, NULL, 10);
	return v >= 0 && v < SYSINFO_MAX_CPUS ? v + 1 : -EINVAL;
}

/* ---- uname / version / cmdline ---- */

int sysinfo__uname(struct sysinfo_ctx *c)
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

int sysinfo__cpuinfo(struct sysinfo_ctx *c)
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

int sysinfo__total_mem(struct sysinfo_ctx *c)
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

int sysinfo__online_cpus(const char *sys_root, int **cpus)
{
	char path[PATH_MAX], *list;
	int ret;

	*cpus = NULL;
	if (snprintf(path, sizeof(path), "%s/devices/system/cpu/online",
		     sys_root ? sys_root : "/sys") >= (int)sizeof(path))
		return -ENAMETOOLONG;
	ret = filename__read_str(path, &list);
	if (ret)
		return ret;
	ret = cpulist__parse(list, cpus);
	free(list);
	return ret;
}

static int cpu_state__init(struct cpu_state *s, const char *sys)
{
	char *present = filename__read_linef("%s/devices/system/cpu/present", sys);
	int *online, nr = sysinfo__online_cpus(sys, &online);
	/* An unreadable, empty or garbled list: no usable sysfs, as for present. */
	int ret = nr == -ENOMEM ? nr : -ENOENT;

	memset(s, 0, sizeof(*s));
	if (!present || nr <= 0)
		goto out;
	s->nr_avail = sysinfo__cpulist_max(present);
	ret = -EINVAL;
	if (s->nr_avail <= 0)
		goto out;
	s->online = calloc(s->nr_avail, sizeof(*s->online));
	ret = -ENOMEM;
	if (!s->online)
		goto out;
	for (int i = 0; i < nr; i++)
		if (online[i] < s->nr_avail)
			s->online[online[i]] = true;
	s->nr_online = nr;
	ret = 0;
out:
	free(present);
	free(online);
	return ret;
}

/* A de-duplicated list of sibling strings, as perf's build_cpu_topology(). */
struct str_set {
	char **s;
	uint32_t nr;
	size_t cap;
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
	n = array__grow(set->s, &set->cap, set->nr + 1, sizeof(*n), 16);
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

struct cpu_lists {
	struct str_set pkg, die, core;
	int32_t *core_id, *socket_id, *die_id;
};

static int cpu_lists__read(struct cpu_lists *t, const char *sys, long cpu, bool has_die)
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

static int cpu_lists__build(struct cpu_lists *t, const char *sys, const struct cpu_state *s)
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
			ret = cpu_lists__read(t, sys, cpu, has_die);
	}
	return ret;
}

static void cpu_lists__free(struct cpu_lists *t)
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
	struct cpu_lists t = {0};
	struct pfile_cpu_topo pt;
	int ret;

	ret = cpu_lists__build(&t, c->sys, s);
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
	cpu_lists__free(&t);
	return ret;
}

int sysinfo__cpus(struct sysinfo_ctx *c)
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
