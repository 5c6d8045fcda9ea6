// SPDX-License-Identifier: GPL-2.0
/*
 * The DSOs that samples hit (perf record's process_buildids() +
 * dsos__hit_all, without perf's machine model: just the address maps of
 * each pid), and their build ids (buildid.c) for the BUILD_ID feature.
 */
#include "recorder/header/dso_hits.h"
#include "recorder/perfdata/recbuf.h"
#include "recorder/header/buildid.h"

#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- dso_hits ---- */

#define VDSO_NAME "[vdso]"

enum dso_kind { DSO_USER, DSO_KERNEL, DSO_MODULE };

struct dso_ent {
	char *name; /* as in the MMAP record; "[kernel.kallsyms]" for the kernel */
	enum dso_kind kind;
	bool hit;
};

struct map_ent {
	uint64_t start, end;
	uint32_t dso;
};

/* One process's (or the kernel's) maps: sorted by start, never overlapping. */
struct mapvec {
	struct map_ent *v;
	size_t nr, cap;
	size_t last; /* index of the last hit: samples come in runs */
};

struct pid_slot {
	int32_t pid;
	struct mapvec *maps; /* NULL = empty slot */
};

struct dso_hits {
	struct pfile_idlayout layout;
	struct dso_ent *dsos;
	uint32_t nr_dsos, cap_dsos;
	uint32_t *dso_index; /* open addressing on the name: dso number + 1, 0 = empty */
	uint32_t dso_index_cap;
	struct pid_slot *pids; /* open addressing on the pid */
	uint32_t nr_pids, pids_cap;
	int32_t last_pid; /* one-entry cache of pid -> maps */
	struct mapvec *last_maps;
	bool all; /* --buildid-all: every mapped DSO counts as hit */
};

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static uint32_t hash_pid(int32_t pid) { return (uint32_t)pid * 2654435761u; }

struct dso_hits *dso_hits__new(const struct pfile_idlayout *layout)
{
	struct dso_hits *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->layout = *layout;
	h->last_pid = INT32_MIN;
	return h;
}

static void mapvec__delete(struct mapvec *m)
{
	if (m)
		free(m->v);
	free(m);
}

void dso_hits__delete(struct dso_hits *h)
{
	if (!h)
		return;
	for (uint32_t i = 0; i < h->pids_cap; i++)
		mapvec__delete(h->pids[i].maps);
	for (uint32_t i = 0; i < h->nr_dsos; i++)
		free(h->dsos[i].name);
	free(h->pids);
	free(h->dsos);
	free(h->dso_index);
	free(h);
}

/* ---- pid table ---- */

static struct pid_slot *pids__slot(struct pid_slot *tab, uint32_t cap, int32_t pid)
{
	uint32_t i = hash_pid(pid) & (cap - 1);

	while (tab[i].maps && tab[i].pid != pid)
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

static int pids__grow(struct dso_hits *h)
{
	uint32_t cap = h->pids_cap ? h->pids_cap * 2 : 64;
	struct pid_slot *tab = calloc(cap, sizeof(*tab));

	if (!tab)
		return -ENOMEM;
	for (uint32_t i = 0; i < h->pids_cap; i++)
		if (h->pids[i].maps)
			*pids__slot(tab, cap, h->pids[i].pid) = h->pids[i];
	free(h->pids);
	h->pids = tab;
	h->pids_cap = cap;
	return 0;
}

static struct mapvec *dso_hits__maps(struct dso_hits *h, int32_t pid)
{
	struct pid_slot *slot;

	if (pid == h->last_pid)
		return h->last_maps;
	if (!h->pids_cap)
		return NULL;
	slot = pids__slot(h->pids, h->pids_cap, pid);
	if (slot->maps) {
		h->last_pid = pid;
		h->last_maps = slot->maps;
	}
	return slot->maps;
}

/* Installs @maps as @pid's (replacing and freeing any old set). 0 / -ENOMEM. */
static int dso_hits__set_maps(struct dso_hits *h, int32_t pid, struct mapvec *maps)
{
	struct pid_slot *slot;

	if ((h->nr_pids + 1) * 4 > h->pids_cap * 3 && pids__grow(h))
		return -ENOMEM;
	slot = pids__slot(h->pids, h->pids_cap, pid);
	if (slot->maps)
		mapvec__delete(slot->maps);
	else
		h->nr_pids++;
	slot->pid = pid;
	slot->maps = maps;
	h->last_pid = INT32_MIN;
	return 0;
}

static struct mapvec *dso_hits__findnew_maps(struct dso_hits *h, int32_t pid)
{
	struct mapvec *m = dso_hits__maps(h, pid);

	if (m)
		return m;
	m = calloc(1, sizeof(*m));
	if (m && dso_hits__set_maps(h, pid, m)) {
		free(m);
		m = NULL;
	}
	return m;
}

/* ---- dso table ---- */

static uint32_t *dsos__slot(const struct dso_hits *h, uint32_t *tab, uint32_t cap, const char *name)
{
	uint32_t i = hash_str(name) & (cap - 1);

	while (tab[i] && strcmp(h->dsos[tab[i] - 1].name, name))
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

static int dsos__grow(struct dso_hits *h)
{
	uint32_t cap = h->dso_index_cap ? h->dso_index_cap * 2 : 64;
	uint32_t *tab = calloc(cap, sizeof(*tab));
	struct dso_ent *n = realloc(h->dsos, cap * sizeof(*n));

	if (!tab || !n) {
		free(tab);
		if (n)
			h->dsos = n;
		return -ENOMEM;
	}
	h->dsos = n;
	h->cap_dsos = cap;
	for (uint32_t i = 0; i < h->nr_dsos; i++)
		*dsos__slot(h, tab, cap, h->dsos[i].name) = i + 1;
	free(h->dso_index);
	h->dso_index = tab;
	h->dso_index_cap = cap;
	return 0;
}

/* Number of the dso named @name, added if new. -1 on ENOMEM. */
static int64_t dso_hits__dso(struct dso_hits *h, const char *name, enum dso_kind kind)
{
	uint32_t *slot;
	char *copy;

	if ((h->nr_dsos + 1) * 2 > h->dso_index_cap && dsos__grow(h))
		return -1;
	slot = dsos__slot(h, h->dso_index, h->dso_index_cap, name);
	if (*slot)
		return *slot - 1;
	copy = strdup(name);
	if (!copy)
		return -1;
	h->dsos[h->nr_dsos] = (struct dso_ent){.name = copy, .kind = kind};
	*slot = ++h->nr_dsos;
	return h->nr_dsos - 1;
}

/* ---- map vectors ---- */

/* First entry whose end is above @addr (entries are sorted and disjoint). */
static size_t mapvec__lower(const struct mapvec *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Inserts [start, end) -> @dso. Like perf's maps__fixup_overlappings(), the
 * new map wins: overlapped maps are dropped or cut to what sticks out.
 */
static int mapvec__insert(struct mapvec *m, uint64_t start, uint64_t end, uint32_t dso)
{
	size_t i = mapvec__lower(m, start), j = i, k = 0, need;
	struct map_ent piece[3], *n;

	while (j < m->nr && m->v[j].start < end)
		j++;
	if (i < j && m->v[i].start < start)
		piece[k++] = (struct map_ent){m->v[i].start, start, m->v[i].dso};
	piece[k++] = (struct map_ent){start, end, dso};
	if (i < j && m->v[j - 1].end > end)
		piece[k++] = (struct map_ent){end, m->v[j - 1].end, m->v[j - 1].dso};
	need = m->nr - (j - i) + k;
	n = array__grow(m->v, &m->cap, need, sizeof(*n), 16);
	if (!n)
		return -ENOMEM;
	m->v = n;
	memmove(m->v + i + k, m->v + j, (m->nr - j) * sizeof(*m->v));
	memcpy(m->v + i, piece, k * sizeof(*piece));
	m->nr = need;
	m->last = i;
	return 0;
}

static const struct map_ent *mapvec__find(struct mapvec *m, uint64_t addr)
{
	size_t i;

	if (m->last < m->nr && m->v[m->last].start <= addr && addr < m->v[m->last].end)
		return &m->v[m->last];
	i = mapvec__lower(m, addr);
	if (i >= m->nr || m->v[i].start > addr)
		return NULL;
	m->last = i;
	return &m->v[i];
}

static struct mapvec *mapvec__clone(const struct mapvec *src)
{
	struct mapvec *m = calloc(1, sizeof(*m));

	if (!m || !src || !src->nr)
		return m;
	m->v = malloc(src->nr * sizeof(*m->v));
	if (!m->v) {
		free(m);
		return NULL;
	}
	memcpy(m->v, src->v, src->nr * sizeof(*m->v));
	m->nr = m->cap = src->nr;
	return m;
}

/* ---- records ---- */

#define KERNEL_PID (-1) /* perf's HOST_KERNEL_ID */
#define KERNEL_NAME "[kernel.kallsyms]"

/* Kernel-side maps: the kernel image (any "[kernel.kallsyms]..." map) or a module. */
static enum dso_kind dso_kind_of(const char *name, bool kernel)
{
	if (!kernel)
		return DSO_USER;
	return strncmp(name, KERNEL_NAME, strlen(KERNEL_NAME)) ? DSO_MODULE : DSO_KERNEL;
}

static void dso_hits__mmap(struct dso_hits *h, int32_t pid, uint16_t misc, uint64_t start,
			   uint64_t len, const char *name)
{
	bool kernel = (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
	enum dso_kind kind = dso_kind_of(name, kernel);
	struct mapvec *m;
	int64_t dso;

	if (!len || start + len < start)
		len = -start; /* up to the top of the address space */
	if (!len)
		return;
	dso = dso_hits__dso(h, kind == DSO_KERNEL ? KERNEL_NAME : name, kind);
	m = dso_hits__findnew_maps(h, kernel ? KERNEL_PID : pid);
	if (dso >= 0 && m)
		mapvec__insert(m, start, start + len, dso);
	if (dso >= 0 && h->all)
		h->dsos[dso].hit = true;
}

/* MMAP and MMAP2: the filename must end inside the record. */
static void dso_hits__feed_mmap(struct dso_hits *h, const struct perf_event_header *rec,
				size_t name_off)
{
	const char *p = (const char *)rec;
	uint32_t pid;
	uint64_t start, len;

	if (rec->size <= name_off || !memchr(p + name_off, '\0', rec->size - name_off))
		return;
	memcpy(&pid, p + 8, 4);
	memcpy(&start, p + 16, 8);
	memcpy(&len, p + 24, 8);
	dso_hits__mmap(h, (int32_t)pid, rec->misc, start, len, p + name_off);
}

static void dso_hits__feed_fork(struct dso_hits *h, const struct perf_event_header *rec)
{
	uint32_t f[4]; /* pid, ppid, tid, ptid */
	struct mapvec *child;

	if (rec->size < 8 + sizeof(f))
		return;
	memcpy(f, (const char *)rec + 8, sizeof(f));
	/* A new thread shares its process's maps: nothing to do, they are per pid. */
	if (f[0] == f[1])
		return;
	/* perf's synthesized FORKs carry FORK_EXEC: the maps come after, not from the parent */
	if (rec->misc & PERF_RECORD_MISC_FORK_EXEC)
		child = calloc(1, sizeof(*child));
	else
		child = mapvec__clone(dso_hits__maps(h, (int32_t)f[1]));
	if (child && dso_hits__set_maps(h, (int32_t)f[0], child))
		mapvec__delete(child);
}

static void dso_hits__feed_comm(struct dso_hits *h, const struct perf_event_header *rec)
{
	struct mapvec *m;
	uint32_t pid;

	if (!(rec->misc & PERF_RECORD_MISC_COMM_EXEC) || rec->size < 16)
		return;
	memcpy(&pid, (const char *)rec + 8, 4);
	m = dso_hits__maps(h, (int32_t)pid);
	if (m)
		m->nr = m->last = 0; /* exec: a new address space */
}

static void dso_hits__feed_sample(struct dso_hits *h, const struct perf_event_header *rec)
{
	uint16_t mode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	const struct map_ent *e;
	struct mapvec *m = NULL;
	uint32_t pid;
	uint64_t ip;
	int off_ip = h->layout.sample_ip_off, off_tid = h->layout.sample_tid_off;

	if (off_ip < 0 || (size_t)off_ip + 8 > rec->size)
		return;
	memcpy(&ip, (const char *)rec + off_ip, 8);
	if (mode == PERF_RECORD_MISC_KERNEL) {
		m = dso_hits__maps(h, KERNEL_PID);
	} else if (mode == PERF_RECORD_MISC_USER && off_tid >= 0 &&
		   (size_t)off_tid + 8 <= rec->size) {
		memcpy(&pid, (const char *)rec + off_tid, 4);
		m = dso_hits__maps(h, (int32_t)pid);
	}
	e = m ? mapvec__find(m, ip) : NULL;
	if (e)
		h->dsos[e->dso].hit = true;
}

void dso_hits__feed(struct dso_hits *h, const struct perf_event_header *rec)
{
	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		dso_hits__feed_sample(h, rec);
		break;
	case PERF_RECORD_MMAP:
		dso_hits__feed_mmap(h, rec, 40);
		break;
	case PERF_RECORD_MMAP2:
		dso_hits__feed_mmap(h, rec, 72);
		break;
	case PERF_RECORD_FORK:
		dso_hits__feed_fork(h, rec);
		break;
	case PERF_RECORD_COMM:
		dso_hits__feed_comm(h, rec);
		break;
	default:
		break;
	}
}

/* ---- encoding ---- */

/* Maps with no file behind them, or one we cannot read any more. */
static bool dso_name_is_fileless(const char *name)
{
	static const char deleted[] = " (deleted)";
	size_t len = strlen(name);

	if (name[0] != '/' || !strncmp(name, "//", 2) || !strncmp(name, "/memfd:", 7))
		return true;
	return len >= sizeof(deleted) - 1 && !strcmp(name + len - (sizeof(deleted) - 1), deleted);
}

/* "/lib/modules/.../nf-nat.ko.zst" or "[nf_nat]" -> "nf_nat", as in /sys/module. */
static char *module_name_of(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t len;
	char *name;

	base = base ? base + 1 : path;
	if (base[0] == '[')
		base++;
	len = strcspn(base, ".]");
	name = strndup(base, len);
	for (char *p = name; p && *p; p++)
		if (*p == '-')
			*p = '_';
	return name;
}

static int dso_ent__read(const struct dso_ent *d, const char *sys_root, struct pfile_build_id *b)
{
	char *mod;
	int err;

	switch (d->kind) {
	case DSO_KERNEL:
		return buildid__read_kernel(sys_root, b->id, &b->size);
	case DSO_MODULE:
		mod = module_name_of(d->name);
		if (!mod)
			return -ENOMEM;
		err = buildid__read_module(sys_root, mod, b->id, &b->size);
		free(mod);
		if (err && d->name[0] == '/')
			err = buildid__read_elf(d->name, b->id, &b->size);
		return err;
	default:
		if (!strcmp(d->name, VDSO_NAME))
			return buildid__read_vdso(b->id, &b->size);
		if (dso_name_is_fileless(d->name))
			return -ENOENT;
		return buildid__read_elf(d->name, b->id, &b->size);
	}
}

void dso_hits__free_ids(struct pfile_build_id *b, size_t nr)
{
	for (size_t i = 0; b && i < nr; i++)
		free((char *)b[i].path);
	free(b);
}

int dso_hits__collect(struct dso_hits *h, const char *sys_root, struct pfile_build_id **out,
		      size_t *nr_out)
{
	struct pfile_build_id *b = calloc(h->nr_dsos ? h->nr_dsos : 1, sizeof(*b));
	size_t nr = 0;

	*out = NULL;
	*nr_out = 0;
	if (!b)
		return -ENOMEM;
	for (uint32_t i = 0; i < h->nr_dsos; i++) {
		const struct dso_ent *d = &h->dsos[i];

		/* perf's machine__write_buildid_table: the vdso, hit or not. */
		if ((!d->hit && strcmp(d->name, VDSO_NAME)) || dso_ent__read(d, sys_root, &b[nr]))
			continue;
		b[nr].kernel = d->kind != DSO_USER;
		b[nr].path = strdup(d->name);
		if (!b[nr].path) {
			dso_hits__free_ids(b, nr);
			return -ENOMEM;
		}
		nr++;
	}
	*out = b;
	*nr_out = nr;
	return 0;
}

int dso_hits__encode(struct dso_hits *h, const char *sys_root, struct pfile_featset *fs,
		     size_t *nr_out)
{
	struct pfile_build_id *b;
	size_t nr;
	int err;

	*nr_out = 0;
	err = dso_hits__collect(h, sys_root, &b, &nr);
	if (err)
		return err;
	/* perf record keeps the feature, empty, when nothing was hit and no [vdso] mapped */
	err = pfile_feat__build_ids(fs, b, nr);
	if (!err)
		*nr_out = nr;
	dso_hits__free_ids(b, nr);
	return err;
}

static void *dso_hits__ops_new(const struct pfile_idlayout *layout)
{
	return dso_hits__new(layout);
}

static void dso_hits__ops_delete(void *hits)
{
	dso_hits__delete(hits);
}

static void dso_hits__ops_feed(void *hits, const struct perf_event_header *rec)
{
	dso_hits__feed(hits, rec);
}

static int dso_hits__ops_encode(void *hits, struct pfile_featset *fs, size_t *nr)
{
	return dso_hits__encode(hits, NULL, fs, nr);
}

const struct phits_ops dso_hits__ops = {
	.new = dso_hits__ops_new,
	.delete = dso_hits__ops_delete,
	.feed = dso_hits__ops_feed,
	.encode = dso_hits__ops_encode,
};

static void *dso_hits__ops_new_all(const struct pfile_idlayout *layout)
{
	struct dso_hits *h = dso_hits__new(layout);

	if (h)
		h->all = true;
	return h;
}

const struct phits_ops dso_hits__all_ops = {
	.new = dso_hits__ops_new_all,
	.delete = dso_hits__ops_delete,
	.feed = dso_hits__ops_feed,
	.encode = dso_hits__ops_encode,
};
