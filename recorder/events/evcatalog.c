// SPDX-License-Identifier: GPL-2.0
/*
 * `shardrec list`: what perf 6.1's `perf list` prints (print-events.c), from
 * the same sources the event parser (evparse.c) reads, so every name listed
 * is one `record -e` accepts.
 */
#include "recorder/events/evcatalog.h"
#include "recorder/events/evparse.h"
#include "recorder/util/fs.h"
#include "recorder/util/perf_event.h"
#include "recorder/perfdata/recbuf.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PMU_DEVICES "/sys/bus/event_source/devices"

struct cat_entry {
	unsigned kind;
	char *name;
	char *alias;  /* second name of the same event, or NULL */
	char *detail; /* PMU type, term bits, alias terms, or NULL */
};

struct catalog {
	const struct evcatalog_opts *o;
	unsigned kinds;
	const char *glob;
	struct cat_entry *v;
	size_t n, cap;
};

unsigned evcatalog__kinds(const char *selector)
{
	static const struct {
		const char *name;
		unsigned kinds;
	} sel[] = {
		{"hw", EVCAT_HW}, {"hardware", EVCAT_HW}, {"sw", EVCAT_SW}, {"software", EVCAT_SW},
		{"cache", EVCAT_CACHE}, {"hwcache", EVCAT_CACHE}, {"tracepoint", EVCAT_TRACEPOINT},
		{"pmu", EVCAT_PMU_EVENT | EVCAT_PMU | EVCAT_PMU_TERM},
	};

	for (size_t i = 0; i < sizeof(sel) / sizeof(sel[0]); i++)
		if (!strcmp(selector, sel[i].name))
			return sel[i].kinds;
	return 0;
}

static bool glob__match(const char *glob, const char *name)
{
	if (!name)
		return false;
	if (strpbrk(glob, "*?["))
		return !fnmatch(glob, name, 0);
	return strstr(name, glob) != NULL;
}

/* Adds a copy of the entry if its kind and name are wanted. 0 / -ENOMEM. */
static int catalog__add(struct catalog *c, unsigned kind, const char *name, const char *alias,
			const char *detail)
{
	struct cat_entry *e;

	if (!(c->kinds & kind))
		return 0;
	if (c->glob && !glob__match(c->glob, name) && !glob__match(c->glob, alias))
		return 0;
	e = array__grow(c->v, &c->cap, c->n + 1, sizeof(*e), 256);
	if (!e)
		return -ENOMEM;
	c->v = e;
	e = &c->v[c->n];
	e->kind = kind;
	e->name = strdup(name);
	e->alias = alias ? strdup(alias) : NULL;
	e->detail = detail ? strdup(detail) : NULL;
	if (!e->name || (alias && !e->alias) || (detail && !e->detail)) {
		free(e->name);
		free(e->alias);
		free(e->detail);
		return -ENOMEM;
	}
	c->n++;
	return 0;
}

static void catalog__release(struct catalog *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].name);
		free(c->v[i].alias);
		free(c->v[i].detail);
	}
	free(c->v);
	c->v = NULL;
	c->n = c->cap = 0;
}

/* perf's is_event_supported(): opens on this thread, then again user-only. */
static bool event__supported(const struct perf_event_attr *a)
{
	struct perf_event_attr attr = *a;

	attr.disabled = 1;
	if (perf_event__probe(&attr))
		return true;
	attr.exclude_kernel = 1;
	return perf_event__probe(&attr);
}

static int symbol__add(const char *name, const char *alias, const struct perf_event_attr *attr,
		       void *arg)
{
	struct catalog *c = arg;
	unsigned kind = attr->type == PERF_TYPE_SOFTWARE ? EVCAT_SW
			: attr->type == PERF_TYPE_HW_CACHE ? EVCAT_CACHE
							   : EVCAT_HW;

	if (!(c->kinds & kind) || (!c->o->no_probe && !event__supported(attr)))
		return 0;
	return catalog__add(c, kind, name, alias, NULL);
}

/* Sorted entries of @dir without dot files; n < 0 when it cannot be read. */
static int dir__scan(const char *dir, struct dirent ***ents)
{
	*ents = NULL;
	return scandir(dir, ents, NULL, alphasort);
}

static void dir__free(struct dirent **ents, int n)
{
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
}

/* Every SYS:EVENT under @root/events with an id file, as -e takes them. */
static int tracepoints__add(struct catalog *c, const char *root)
{
	struct dirent **sys, **evs;
	char path[4096], name[512];
	int ns, ne, ret = 0;

	snprintf(path, sizeof(path), "%s/events", root);
	ns = dir__scan(path, &sys);
	for (int i = 0; i < ns && !ret; i++) {
		if (sys[i]->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", root, sys[i]->d_name);
		ne = dir__scan(path, &evs);
		for (int j = 0; j < ne && !ret; j++) {
			snprintf(path, sizeof(path), "%s/events/%s/%s/id", root, sys[i]->d_name,
				 evs[j]->d_name);
			if (evs[j]->d_name[0] == '.' || access(path, R_OK))
				continue;
			snprintf(name, sizeof(name), "%s:%s", sys[i]->d_name, evs[j]->d_name);
			ret = catalog__add(c, EVCAT_TRACEPOINT, name, NULL, NULL);
		}
		dir__free(evs, ne);
	}
	dir__free(sys, ns);
	return ret;
}

/*
 * @pmu's @sub/ files (format/ or events/) as PMU/NAME@suffix, each with its
 * first line as detail. events/ skips perf's NAME.scale, .unit, .per-pkg.
 */
static int pmu__add_dir(struct catalog *c, const char *dir, const char *pmu, const char *sub,
			unsigned kind, const char *suffix)
{
	struct dirent **ents;
	char path[4096], name[512], *detail;
	int n, ret = 0;

	snprintf(path, sizeof(path), "%s/%s/%s", dir, pmu, sub);
	n = dir__scan(path, &ents);
	for (int i = 0; i < n && !ret; i++) {
		const char *d = ents[i]->d_name;

		if (d[0] == '.' || (kind == EVCAT_PMU_EVENT && strchr(d, '.')))
			continue;
		detail = filename__read_linef("%s/%s/%s/%s", dir, pmu, sub, d);
		if (!detail)
			continue;
		snprintf(name, sizeof(name), "%s/%s%s", pmu, d, suffix);
		ret = catalog__add(c, kind, name, NULL, detail);
		free(detail);
	}
	dir__free(ents, n);
	return ret;
}

static int pmus__add(struct catalog *c, const char *sysfs_root)
{
	struct dirent **ents;
	char dir[4096], name[512], detail[64], *type;
	int n, ret = 0;

	snprintf(dir, sizeof(dir), "%s" PMU_DEVICES, sysfs_root);
	n = dir__scan(dir, &ents);
	for (int i = 0; i < n && !ret; i++) {
		const char *d = ents[i]->d_name;

		if (d[0] == '.' || !(type = filename__read_linef("%s/%s/type", dir, d)))
			continue;
		snprintf(name, sizeof(name), "%s//", d);
		snprintf(detail, sizeof(detail), "type %s", type);
		free(type);
		ret = catalog__add(c, EVCAT_PMU, name, NULL, detail);
		if (!ret)
			ret = pmu__add_dir(c, dir, d, "format", EVCAT_PMU_TERM, "=");
		if (!ret)
			ret = pmu__add_dir(c, dir, d, "events", EVCAT_PMU_EVENT, "/");
	}
	dir__free(ents, n);
	return ret;
}

/* Kind, then name; a PMU's terms sort inside it: "msr//" < "msr/event=". */
static int entry__cmp(const void *a, const void *b)
{
	const struct cat_entry *x = a, *y = b;
	unsigned kx = x->kind == EVCAT_PMU_TERM ? EVCAT_PMU : x->kind;
	unsigned ky = y->kind == EVCAT_PMU_TERM ? EVCAT_PMU : y->kind;

	if (kx != ky)
		return kx < ky ? -1 : 1;
	return strcmp(x->name, y->name);
}

static const char *kind__descr(unsigned kind)
{
	switch (kind) {
	case EVCAT_HW: return "Hardware event";
	case EVCAT_SW: return "Software event";
	case EVCAT_CACHE: return "Hardware cache event";
	case EVCAT_TRACEPOINT: return "Tracepoint event";
	case EVCAT_PMU_EVENT: return "Kernel PMU event";
	case EVCAT_PMU: return "PMU";
	default: return "PMU format term";
	}
}

static void entry__fprint(FILE *out, const struct cat_entry *e, bool raw)
{
	char name[600];

	if (raw) {
		fprintf(out, "%s\n", e->name);
		if (e->alias)
			fprintf(out, "%s\n", e->alias);
		return;
	}
	snprintf(name, sizeof(name), "%s%s%s", e->name, e->alias ? " OR " : "",
		 e->alias ? e->alias : "");
	fprintf(out, "  %-50s [%s%s%s]\n", name, kind__descr(e->kind), e->detail ? ": " : "",
		e->detail ? e->detail : "");
}

static void catalog__fprint(FILE *out, const struct catalog *c, bool raw)
{
	unsigned last = 0;

	if (!raw)
		fprintf(out, "\nList of pre-defined events (to be used in -e):\n\n");
	for (size_t i = 0; i < c->n; i++) {
		/* A PMU's terms follow it: no blank line between those two kinds. */
		if (!raw && last && c->v[i].kind != last &&
		    (last | c->v[i].kind) != (EVCAT_PMU | EVCAT_PMU_TERM))
			fputc('\n', out);
		entry__fprint(out, &c->v[i], raw);
		last = c->v[i].kind;
	}
	if (!raw && c->kinds == EVCAT_ALL && !c->glob)
		fprintf(out, "\n  %-50s [Raw hardware event descriptor]\n"
			     "  %-50s [Raw event with the PMU's format terms]\n"
			     "  %-50s [Hardware breakpoint]\n",
			"rNNN", "PMU/TERM=VALUE[,TERM=VALUE...]/[MODIFIERS]",
			"mem:<addr>[/len][:access]");
}

int evcatalog__fprint(FILE *out, const struct evcatalog_opts *o, unsigned kinds,
		      const char *glob, bool raw)
{
	static const struct evcatalog_opts none;
	struct catalog c = {.o = o ? o : &none, .kinds = kinds, .glob = glob};
	const char *sysfs = c.o->sysfs_root ? c.o->sysfs_root : "";
	const char *tracefs = c.o->tracefs_root ? c.o->tracefs_root : tracefs__mountpoint();
	int ret;

	ret = evparse__foreach_symbol(symbol__add, &c);
	if (!ret && tracefs && (kinds & EVCAT_TRACEPOINT))
		ret = tracepoints__add(&c, tracefs);
	if (!ret && (kinds & (EVCAT_PMU | EVCAT_PMU_TERM | EVCAT_PMU_EVENT)))
		ret = pmus__add(&c, sysfs);
	if (!ret) {
		if (c.n) /* qsort's base must not be NULL, even for 0 entries */
			qsort(c.v, c.n, sizeof(*c.v), entry__cmp);
		catalog__fprint(out, &c, raw);
		ret = c.n;
	}
	catalog__release(&c);
	return ret;
}
