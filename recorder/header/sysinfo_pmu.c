// SPDX-License-Identifier: GPL-2.0
/* PMU_MAPPINGS, CPU_PMU_CAPS and PMU_CAPS from sysfs event_source devices. */
#include "recorder/header/sysinfo_internal.h"

/* ---- whole sysfs files, read as tools/lib/api/fs/fs.c does ---- */

/* filename__read_str() of @dir/@name, or of a path too long to build: -ENAMETOOLONG. */
static int sysinfo__read_whole_at(const char *dir, const char *name, char **out)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s/%s", dir, name);

	*out = NULL;
	if (n < 0 || n >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return filename__read_str(path, out);
}

/* filename__read_int(): atoi() of its start (a one-line number); an empty file fails. */
int sysinfo__read_int_at(const char *dir, const char *name, uint32_t *v)
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

int sysinfo__read_str_at(const char *dir, const char *name, const char **out)
{
	char *s;
	int ret = sysinfo__read_whole_at(dir, name, &s);

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
	struct pfile_pmu *p;
	uint32_t type, cpu;
	int n = snprintf(dir, sizeof(dir), "%s/%s", devices, name);

	if (n < 0 || n >= (int)sizeof(dir))
		return 0;
	if (!strncmp(name, "cpu_", 4) && !read_u32_at(dir, "cpus", &cpu))
		return 0;
	if (!read_u32_at(dir, "type", &type))
		return 0;
	p = array__grow(l->p, &l->cap, l->nr + 1, sizeof(*p), 16);
	if (!p)
		return -ENOMEM;
	l->p = p;
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

/* Appends {@name, @value}, taking @value; *@cap: room in pc->caps. 0 / -ENOMEM. */
static int pmu_caps__add(struct pfile_pmu_caps *pc, size_t *cap, const char *name, char *value)
{
	struct pfile_pmu_cap *c = array__grow((void *)pc->caps, cap, pc->nr_caps + 1, sizeof(*c), 16);

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
	size_t cap = 0;
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
			ret = pmu_caps__add(pc, &cap, d->d_name, value);
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
int sysinfo__pmus(struct sysinfo_ctx *c)
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
