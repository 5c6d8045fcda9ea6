// SPDX-License-Identifier: GPL-2.0
/* Kernel and module maps: the records perf synthesizes for [kernel.kallsyms] and modules. */
#include "recorder/header/synth_internal.h"

/* ---- kernel and modules ---- */

struct ksyms {
	uint64_t text, stext, etext;
	bool have_text, have_stext, have_etext;
};

/* kallsyms__get_function_start() accepts functions, and 'A' aliases (PARISC). */
static bool ksym_is_function(char type)
{
	type = toupper((unsigned char)type);
	return type == 'T' || type == 'W' || type == 'A';
}

/* First match wins, as kallsyms__get_function_start() stops at the first. */
static void ksym__take(const char *name, size_t len, const char *want, uint64_t addr, uint64_t *dst,
		       bool *have)
{
	if (*have || len != strlen(want) || memcmp(name, want, len))
		return;
	*dst = addr;
	*have = true;
}

static void ksyms__line(struct ksyms *k, const char *line)
{
	unsigned long long addr;
	char type;
	int name_off = 0;
	const char *name;
	size_t len;

	if (sscanf(line, "%llx %c %n", &addr, &type, &name_off) < 2 || !name_off)
		return;
	if (!ksym_is_function(type))
		return;
	name = line + name_off;
	len = strcspn(name, " \t\n");
	if (name[len] == '\t') /* "[module]" follows: not the core kernel */
		return;
	ksym__take(name, len, "_text", addr, &k->text, &k->have_text);
	ksym__take(name, len, "_stext", addr, &k->stext, &k->have_stext);
	ksym__take(name, len, "_etext", addr, &k->etext, &k->have_etext);
}

static int ksyms__read(const struct synth *s, struct ksyms *k)
{
	char path[PATH_MAX];
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	memset(k, 0, sizeof(*k));
	if (snprintf(path, sizeof(path), "%s/kallsyms", synth__proc(s)) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		ksyms__line(k, line);
		if (k->have_text && k->have_etext)
			break;
	}
	free(line);
	fclose(f);
	return 0;
}

/* One /proc/modules line: "name size refcnt deps state address [taint]". */
struct kmodule {
	char *name; /* malloc'ed */
	uint64_t size, addr;
};

static bool kmodule__parse(struct kmodule *m, const char *line)
{
	unsigned long long size, addr;

	m->name = NULL;
	if (sscanf(line, "%ms %llu %*s %*s %*s %llx", &m->name, &size, &addr) != 3) {
		free(m->name);
		m->name = NULL;
		return false;
	}
	m->size = size;
	m->addr = addr;
	return true;
}

static FILE *synth__open_modules(const struct synth *s)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/modules", synth__proc(s)) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return fopen(path, "re");
}

/* Lowest module address above @start: the kernel map's end when _etext is missing. */
static uint64_t synth__first_module_after(const struct synth *s, uint64_t start)
{
	uint64_t best = ~0ULL;
	struct kmodule m;
	char *line = NULL;
	size_t cap = 0;
	FILE *f = synth__open_modules(s);

	if (!f)
		return best;
	while (getline(&line, &cap, f) > 0) {
		if (!kmodule__parse(&m, line))
			continue;
		if (m.addr > start && m.addr < best)
			best = m.addr;
		free(m.name);
	}
	free(line);
	fclose(f);
	return best;
}

int synth__kernel_mmap(struct synth *s)
{
	struct mmap_head head = {
	    .header = {.type = PERF_RECORD_MMAP, .misc = PERF_RECORD_MISC_KERNEL}};
	const char *sym = "_text";
	char name[sizeof(KMMAP_PREFIX "_stext")];
	struct ksyms k;
	uint64_t end;
	int err;

	err = ksyms__read(s, &k);
	if (err)
		return err;
	/* perf's ref_reloc_sym_names[]: "_text", then "_stext". */
	if (k.have_text) {
		head.start = k.text;
	} else if (k.have_stext) {
		head.start = k.stext;
		sym = "_stext";
	} else {
		return -ENOENT;
	}
	if (!head.start) /* kptr_restrict hides the addresses */
		return -EPERM;
	end = k.have_etext && k.etext > head.start ? k.etext
						   : synth__first_module_after(s, head.start);
	head.pid = (uint32_t)-1;
	head.tid = 0;
	head.pgoff = head.start;
	head.len = end - head.start;
	snprintf(name, sizeof(name), "%s%s", KMMAP_PREFIX, sym);
	return synth__emit(s, &head, sizeof(head), name);
}

/* modules.dep entry: module name (as in /proc/modules) -> path */
struct moddep {
	char *name;
	char *path;
};

static int moddep__cmp(const void *a, const void *b)
{
	return strcmp(((const struct moddep *)a)->name, ((const struct moddep *)b)->name);
}

/* "kernel/fs/ext4/ext4.ko.zst" -> "ext4"; '-' becomes '_' as the kernel does. */
static char *moddep__name_of(const char *path)
{
	const char *base = strrchr(path, '/');
	char *name, *p;

	name = strndup(base ? base + 1 : path, strcspn(base ? base + 1 : path, "."));
	for (p = name; p && *p; p++)
		if (*p == '-')
			*p = '_';
	return name;
}

struct moddeps {
	struct moddep *v;
	size_t nr;
};

static void moddeps__release(struct moddeps *d)
{
	for (size_t i = 0; i < d->nr; i++) {
		free(d->v[i].name);
		free(d->v[i].path);
	}
	free(d->v);
	d->v = NULL;
	d->nr = 0;
}

static int moddeps__add(struct moddeps *d, size_t *cap, const char *dir, const char *rel)
{
	struct moddep *e, *n = array__grow(d->v, cap, d->nr + 1, sizeof(*n), 256);

	if (!n)
		return -ENOMEM;
	d->v = n;
	e = &d->v[d->nr];
	e->name = moddep__name_of(rel);
	if (rel[0] == '/')
		e->path = strdup(rel);
	else if (asprintf(&e->path, "%s/%s", dir, rel) < 0)
		e->path = NULL;
	if (!e->name || !e->path) {
		free(e->name);
		free(e->path);
		return -ENOMEM;
	}
	d->nr++;
	return 0;
}

/*
 * Loads <root>/lib/modules/<release>/modules.dep, sorted by module name.
 * A missing file leaves @d empty: modules are then named "[name]".
 */
static int moddeps__load(struct moddeps *d, const char *root)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct utsname u;
	char *line = NULL;
	size_t cap = 0, vcap = 0;
	int err = 0;
	FILE *f;

	d->v = NULL;
	d->nr = 0;
	if (uname(&u) < 0)
		return 0;
	snprintf(dir, sizeof(dir), "/lib/modules/%s", u.release);
	if (snprintf(path, sizeof(path), "%s%s/modules.dep", root, dir) >= (int)sizeof(path))
		return 0;
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!err && getline(&line, &cap, f) > 0) {
		char *colon = strchr(line, ':');

		if (!colon || colon == line)
			continue;
		*colon = '\0';
		err = moddeps__add(d, &vcap, dir, line);
	}
	free(line);
	fclose(f);
	if (err)
		moddeps__release(d);
	else if (d->nr)
		qsort(d->v, d->nr, sizeof(*d->v), moddep__cmp);
	return err;
}

static const char *moddeps__path(const struct moddeps *d, const char *name)
{
	struct moddep key = {.name = (char *)name};
	struct moddep *e;

	if (!d->nr)
		return NULL;
	e = bsearch(&key, d->v, d->nr, sizeof(*d->v), moddep__cmp);
	return e ? e->path : NULL;
}

static int synth__module(struct synth *s, const struct kmodule *m, const struct moddeps *d)
{
	struct mmap_head head = {
	    .header = {.type = PERF_RECORD_MMAP, .misc = PERF_RECORD_MISC_KERNEL}};
	const char *path = moddeps__path(d, m->name);
	char *name = NULL;
	int err;

	head.pid = (uint32_t)-1;
	head.start = m->addr;
	head.len = m->size;
	/*
	 * Without the .ko, perf would keep the bare name, which its reader then
	 * takes for an extra kernel map; "[name]" is what it parses as a module.
	 */
	if (!path) {
		if (asprintf(&name, "[%s]", m->name) < 0)
			return -ENOMEM;
		path = name;
	}
	err = synth__emit(s, &head, sizeof(head), path);
	free(name);
	return err;
}

static int synth__modules_file(struct synth *s, FILE *f, const struct moddeps *d)
{
	bool hidden = false, emitted = false;
	struct kmodule m;
	char *line = NULL;
	size_t cap = 0;
	int err = 0;

	while (!err && getline(&line, &cap, f) > 0) {
		if (!kmodule__parse(&m, line))
			continue;
		if (!m.addr) {
			hidden = true; /* kptr_restrict */
		} else {
			err = synth__module(s, &m, d);
			emitted = true;
		}
		free(m.name);
	}
	free(line);
	if (!err && hidden && !emitted)
		err = -EPERM;
	return err;
}

int synth__modules(struct synth *s)
{
	struct moddeps d;
	FILE *f;
	int err;

	f = synth__open_modules(s);
	if (!f)
		return errno == ENOENT ? 0 : -errno; /* no module support: nothing to map */
	err = moddeps__load(&d, synth__root(s));
	if (!err)
		err = synth__modules_file(s, f, &d);
	moddeps__release(&d);
	fclose(f);
	return err;
}
