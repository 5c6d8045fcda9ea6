// SPDX-License-Identifier: GPL-2.0
/*
 * Build ids (perf's symbol-minimal.c / util/build-id.c) and the DSOs that
 * samples hit (perf record's process_buildids() + dsos__hit_all, without
 * perf's machine model: just the address maps of each pid).
 *
 * The ELF reader takes arbitrary files from the maps of arbitrary
 * processes: every offset and size read from the file is checked against
 * the file size before use, and note segments are capped.
 */
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

#define BUILD_ID_SIZE 20
#define NOTES_MAX (1u << 20) /* a note area larger than this is not a build id's */

/* ---- notes ---- */

static uint32_t rd32(const unsigned char *p, bool swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

static uint16_t rd16(const unsigned char *p, bool swap)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return swap ? __builtin_bswap16(v) : v;
}

static uint64_t rd64(const unsigned char *p, bool swap)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return swap ? __builtin_bswap64(v) : v;
}

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

/*
 * Walks a note area ({namesz, descsz, type, name, desc}, name and desc
 * padded to @align) for NT_GNU_BUILD_ID owned by "GNU". 0 / -ENOENT.
 */
static int notes__find(const unsigned char *buf, size_t len, bool swap, uint64_t align,
		       uint8_t id[20], uint8_t *size)
{
	size_t off = 0;

	while (len - off >= 12) {
		uint32_t namesz = rd32(buf + off, swap), descsz = rd32(buf + off + 4, swap);
		uint32_t type = rd32(buf + off + 8, swap);
		uint64_t name_len = align_up(namesz, align), desc_len = align_up(descsz, align);

		off += 12;
		if (name_len > len - off || descsz > len - off - name_len)
			break;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(buf + off, "GNU", 4) &&
		    descsz) {
			size_t sz = descsz < BUILD_ID_SIZE ? descsz : BUILD_ID_SIZE;

			memset(id, 0, BUILD_ID_SIZE);
			memcpy(id, buf + off + name_len, sz);
			*size = sz;
			return 0;
		}
		if (desc_len > len - off - name_len)
			break;
		off += name_len + desc_len;
	}
	return -ENOENT;
}

/* Reads [off, off+len) of @fd into a new buffer. NULL with errno set. */
static unsigned char *read_range(int fd, uint64_t off, size_t len)
{
	unsigned char *buf = malloc(len ? len : 1);
	size_t done = 0;

	while (buf && done < len) {
		ssize_t n = pread(fd, buf + done, len - done, off + done);

		if (n <= 0) {
			free(buf);
			errno = n < 0 ? errno : EINVAL;
			return NULL;
		}
		done += n;
	}
	return buf;
}

/* ---- ELF ---- */

/* What the walk needs from the ELF header, whatever the class and byte order. */
struct elf_info {
	int fd;
	uint64_t file_size;
	bool is64, swap;
	uint64_t phoff, shoff;
	uint16_t phentsize, phnum, shentsize, shnum;
};

static int elf_info__init(struct elf_info *e, const unsigned char *eh, size_t len)
{
	bool little = eh[EI_DATA] == ELFDATA2LSB;

	if (len < EI_NIDENT || memcmp(eh, ELFMAG, SELFMAG))
		return -EINVAL;
	if (eh[EI_DATA] != ELFDATA2LSB && eh[EI_DATA] != ELFDATA2MSB)
		return -EINVAL;
	e->swap = little != (__BYTE_ORDER == __LITTLE_ENDIAN);
	if (eh[EI_CLASS] == ELFCLASS64 && len >= sizeof(Elf64_Ehdr)) {
		e->is64 = true;
		e->phoff = rd64(eh + offsetof(Elf64_Ehdr, e_phoff), e->swap);
		e->shoff = rd64(eh + offsetof(Elf64_Ehdr, e_shoff), e->swap);
		e->phentsize = rd16(eh + offsetof(Elf64_Ehdr, e_phentsize), e->swap);
		e->phnum = rd16(eh + offsetof(Elf64_Ehdr, e_phnum), e->swap);
		e->shentsize = rd16(eh + offsetof(Elf64_Ehdr, e_shentsize), e->swap);
		e->shnum = rd16(eh + offsetof(Elf64_Ehdr, e_shnum), e->swap);
	} else if (eh[EI_CLASS] == ELFCLASS32 && len >= sizeof(Elf32_Ehdr)) {
		e->is64 = false;
		e->phoff = rd32(eh + offsetof(Elf32_Ehdr, e_phoff), e->swap);
		e->shoff = rd32(eh + offsetof(Elf32_Ehdr, e_shoff), e->swap);
		e->phentsize = rd16(eh + offsetof(Elf32_Ehdr, e_phentsize), e->swap);
		e->phnum = rd16(eh + offsetof(Elf32_Ehdr, e_phnum), e->swap);
		e->shentsize = rd16(eh + offsetof(Elf32_Ehdr, e_shentsize), e->swap);
		e->shnum = rd16(eh + offsetof(Elf32_Ehdr, e_shnum), e->swap);
	} else {
		return -EINVAL;
	}
	return 0;
}

/* A note area found in a program or section header. */
struct note_area {
	uint32_t type;
	uint64_t offset, size, align;
};

static bool elf_info__table_ok(const struct elf_info *e, uint64_t off, uint16_t entsize,
			       uint16_t num, size_t minsize)
{
	return off && num && entsize >= minsize && off <= e->file_size &&
	       (uint64_t)entsize * num <= e->file_size - off;
}

static void elf__phdr(const struct elf_info *e, const unsigned char *p, struct note_area *a)
{
	if (e->is64) {
		a->type = rd32(p + offsetof(Elf64_Phdr, p_type), e->swap);
		a->offset = rd64(p + offsetof(Elf64_Phdr, p_offset), e->swap);
		a->size = rd64(p + offsetof(Elf64_Phdr, p_filesz), e->swap);
		a->align = rd64(p + offsetof(Elf64_Phdr, p_align), e->swap);
	} else {
		a->type = rd32(p + offsetof(Elf32_Phdr, p_type), e->swap);
		a->offset = rd32(p + offsetof(Elf32_Phdr, p_offset), e->swap);
		a->size = rd32(p + offsetof(Elf32_Phdr, p_filesz), e->swap);
		a->align = rd32(p + offsetof(Elf32_Phdr, p_align), e->swap);
	}
	if (a->type != PT_NOTE)
		a->type = 0;
}

static void elf__shdr(const struct elf_info *e, const unsigned char *p, struct note_area *a)
{
	if (e->is64) {
		a->type = rd32(p + offsetof(Elf64_Shdr, sh_type), e->swap);
		a->offset = rd64(p + offsetof(Elf64_Shdr, sh_offset), e->swap);
		a->size = rd64(p + offsetof(Elf64_Shdr, sh_size), e->swap);
		a->align = rd64(p + offsetof(Elf64_Shdr, sh_addralign), e->swap);
	} else {
		a->type = rd32(p + offsetof(Elf32_Shdr, sh_type), e->swap);
		a->offset = rd32(p + offsetof(Elf32_Shdr, sh_offset), e->swap);
		a->size = rd32(p + offsetof(Elf32_Shdr, sh_size), e->swap);
		a->align = rd32(p + offsetof(Elf32_Shdr, sh_addralign), e->swap);
	}
	if (a->type != SHT_NOTE)
		a->type = 0;
}

/* Notes are 4-byte aligned, except in 8-aligned areas (gABI, e.g. .note.gnu.property). */
static int elf__scan_area(const struct elf_info *e, const struct note_area *a, uint8_t id[20],
			  uint8_t *size)
{
	unsigned char *buf;
	int err;

	if (!a->type || !a->size || a->size > NOTES_MAX || a->offset > e->file_size ||
	    a->size > e->file_size - a->offset)
		return -ENOENT;
	buf = read_range(e->fd, a->offset, a->size);
	if (!buf)
		return -errno;
	err = notes__find(buf, a->size, e->swap, a->align == 8 ? 8 : 4, id, size);
	free(buf);
	return err;
}

/* Scans every note area of one header table (program or section headers). */
static int elf__scan_table(const struct elf_info *e, bool sections, uint8_t id[20], uint8_t *size)
{
	uint64_t off = sections ? e->shoff : e->phoff;
	uint16_t entsize = sections ? e->shentsize : e->phentsize;
	uint16_t num = sections ? e->shnum : e->phnum;
	size_t minsize = e->is64 ? (sections ? sizeof(Elf64_Shdr) : sizeof(Elf64_Phdr))
				 : (sections ? sizeof(Elf32_Shdr) : sizeof(Elf32_Phdr));
	unsigned char *tab;
	int err = -ENOENT;

	/* PN_XNUM/SHN_XINDEX-sized tables (num in entry 0) are not worth the trouble here. */
	if (num == PN_XNUM || !elf_info__table_ok(e, off, entsize, num, minsize))
		return -ENOENT;
	tab = read_range(e->fd, off, (size_t)entsize * num);
	if (!tab)
		return -errno;
	for (uint16_t i = 0; i < num && err == -ENOENT; i++) {
		struct note_area a;

		if (sections)
			elf__shdr(e, tab + (size_t)i * entsize, &a);
		else
			elf__phdr(e, tab + (size_t)i * entsize, &a);
		err = elf__scan_area(e, &a, id, size);
	}
	free(tab);
	return err;
}

int buildid__read_elf(const char *path, uint8_t id[20], uint8_t *size)
{
	unsigned char eh[sizeof(Elf64_Ehdr)];
	struct elf_info e = {.fd = -1};
	struct stat st;
	ssize_t n;
	int err;

	/* O_NONBLOCK: maps may name FIFOs or devices; only regular files are read. */
	e.fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (e.fd < 0)
		return -errno;
	err = -EINVAL;
	if (fstat(e.fd, &st) < 0 || !S_ISREG(st.st_mode))
		goto out_close;
	e.file_size = st.st_size;
	n = pread(e.fd, eh, sizeof(eh), 0);
	if (n < 0 || elf_info__init(&e, eh, n))
		goto out_close;
	err = elf__scan_table(&e, false, id, size);
	if (err == -ENOENT)
		err = elf__scan_table(&e, true, id, size);
out_close:
	close(e.fd);
	return err;
}

/* ---- sysfs notes ---- */

/* Reads a whole (sysfs) file, up to NOTES_MAX. */
static int read_small_file(const char *path, unsigned char **buf, size_t *len)
{
	size_t cap = 4096;
	int fd, err = 0;

	*len = 0;
	*buf = malloc(cap);
	if (!*buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto out_free;
	}
	for (;;) {
		ssize_t n = read(fd, *buf + *len, cap - *len);

		if (n < 0) {
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		*len += n;
		if (*len == cap) {
			unsigned char *nb = cap < NOTES_MAX ? realloc(*buf, cap * 2) : NULL;

			if (!nb)
				break; /* enough: a build id is near the start */
			*buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	if (!err)
		return 0;
out_free:
	free(*buf);
	*buf = NULL;
	return err;
}

/* sysfs__read_build_id(): a raw native-endian note sequence, 4-byte aligned. */
static int buildid__read_notes_file(const char *path, uint8_t id[20], uint8_t *size)
{
	unsigned char *buf;
	size_t len;
	int err;

	err = read_small_file(path, &buf, &len);
	if (err)
		return err;
	err = notes__find(buf, len, false, 4, id, size);
	free(buf);
	return err;
}

int buildid__read_kernel(const char *sys_root, uint8_t id[20], uint8_t *size)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/sys/kernel/notes", sys_root ? sys_root : "") >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	return buildid__read_notes_file(path, id, size);
}

int buildid__read_module(const char *sys_root, const char *name, uint8_t id[20], uint8_t *size)
{
	char path[PATH_MAX];

	if (!name[0] || strchr(name, '/'))
		return -EINVAL;
	if (snprintf(path, sizeof(path), "%s/sys/module/%s/notes/.note.gnu.build-id",
		     sys_root ? sys_root : "", name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return buildid__read_notes_file(path, id, size);
}

/* ---- dso_hits ---- */

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
	struct map_ent piece[3];

	while (j < m->nr && m->v[j].start < end)
		j++;
	if (i < j && m->v[i].start < start)
		piece[k++] = (struct map_ent){m->v[i].start, start, m->v[i].dso};
	piece[k++] = (struct map_ent){start, end, dso};
	if (i < j && m->v[j - 1].end > end)
		piece[k++] = (struct map_ent){end, m->v[j - 1].end, m->v[j - 1].dso};
	need = m->nr - (j - i) + k;
	if (need > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 16;
		struct map_ent *n = realloc(m->v, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		m->v = n;
		m->cap = cap;
	}
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

		if (!d->hit || dso_ent__read(d, sys_root, &b[nr]))
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
	/* perf record keeps the feature, empty, when nothing was hit */
	err = pfile_feat__build_ids(fs, b, nr);
	if (!err)
		*nr_out = nr;
	dso_hits__free_ids(b, nr);
	return err;
}
