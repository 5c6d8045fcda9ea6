// SPDX-License-Identifier: GPL-2.0
/*
 * BPF programs that exist before the recording, as perf 6.1's
 * perf_event__synthesize_bpf_events() describes them: a KSYMBOL per JITed
 * sub-program and a BPF_EVENT load per program, then a KSYMBOL per
 * trampoline and dispatcher image of kallsyms. What loads while recording
 * the kernel reports itself (attr.ksymbol and attr.bpf_event on the
 * tracking event). Without them perf report leaves the samples of a
 * program that is gone by then as raw kernel addresses.
 *
 * The bpf() commands are the kernel's ABI (no libbpf among our
 * dependencies): PROG_GET_NEXT_ID, PROG_GET_FD_BY_ID, OBJ_GET_INFO_BY_FD.
 */
#include "recorder/header/synth_internal.h"

#include <linux/bpf.h>
#include <linux/btf.h>
#include <sys/syscall.h>
#include <unistd.h>

/* perf's KSYM_NAME_LEN: the longest name a synthesized KSYMBOL gets */
#define KSYM_NAME_MAX 512

/* tools/lib/perf/include/perf/event.h: perf_record_ksymbol, perf_record_bpf_event */
struct ksymbol_head {
	struct perf_event_header header;
	uint64_t addr;
	uint32_t len;
	uint16_t ksym_type, flags;
};
_Static_assert(sizeof(struct ksymbol_head) == 24, "perf_record_ksymbol head layout");

struct bpf_event_head {
	struct perf_event_header header;
	uint16_t type, flags;
	uint32_t id;
	uint8_t tag[BPF_TAG_SIZE];
};
_Static_assert(sizeof(struct bpf_event_head) == 24, "perf_record_bpf_event layout");

/* One program's info and the arrays perf asks for its names. Owns them. */
struct bpf_prog_desc {
	struct bpf_prog_info info;
	uint64_t *addrs;
	uint32_t *lens;
	uint8_t (*tags)[BPF_TAG_SIZE];
	uint8_t *func_info; /* nr_func_info records of func_info_rec_size */
	void *btf;	    /* the program's raw BTF, for sub-program names */
	uint32_t btf_size;
};

static long sys_bpf(int cmd, union bpf_attr *a) { return syscall(__NR_bpf, cmd, a, sizeof(*a)); }

static int obj_info(int fd, void *info, uint32_t *len)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = fd;
	a.info.info_len = *len;
	a.info.info = (uintptr_t)info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a))
		return -errno;
	*len = a.info.info_len;
	return 0;
}

static int id_to_fd(int cmd, uint32_t id)
{
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	if (cmd == BPF_BTF_GET_FD_BY_ID)
		a.btf_id = id;
	else
		a.prog_id = id;
	fd = sys_bpf(cmd, &a);
	return fd < 0 ? -errno : fd;
}

/* The raw BTF of object @id (two info calls: its size, then the data). */
static int btf__fetch(struct bpf_prog_desc *p, uint32_t id)
{
	struct bpf_btf_info bi;
	uint32_t len = sizeof(bi);
	int fd = id_to_fd(BPF_BTF_GET_FD_BY_ID, id), ret;

	if (fd < 0)
		return fd;
	memset(&bi, 0, sizeof(bi));
	ret = obj_info(fd, &bi, &len);
	if (!ret && !bi.btf_size)
		ret = -ENODATA;
	if (!ret) {
		p->btf_size = bi.btf_size;
		p->btf = malloc(p->btf_size);
		ret = p->btf ? 0 : -ENOMEM;
	}
	if (!ret) {
		memset(&bi, 0, sizeof(bi));
		bi.btf = (uintptr_t)p->btf;
		bi.btf_size = p->btf_size;
		len = sizeof(bi);
		ret = obj_info(fd, &bi, &len);
	}
	close(fd);
	return ret;
}

/* Bytes that follow a struct btf_type of @kind with @vlen (uapi linux/btf.h). */
static long btf_kind__extra(unsigned int kind, unsigned int vlen)
{
	switch (kind) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_DATASEC:
		return (long)vlen * 12;
	case BTF_KIND_ENUM:
	case BTF_KIND_FUNC_PROTO:
		return (long)vlen * 8;
	case BTF_KIND_ENUM64:
		return (long)vlen * sizeof(struct btf_enum64);
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	}
	return -1; /* a kind newer than our headers: its size is unknown */
}

const char *synth__btf_name(const void *btf, size_t size, uint32_t type_id)
{
	const struct btf_header *h = btf;
	const char *types, *strs;
	size_t off = 0;

	if (size < sizeof(*h) || h->magic != BTF_MAGIC || h->hdr_len > size ||
	    h->type_off > size - h->hdr_len || h->type_len > size - h->hdr_len - h->type_off ||
	    h->str_off > size - h->hdr_len || h->str_len > size - h->hdr_len - h->str_off ||
	    !h->str_len || !type_id)
		return NULL;
	types = (const char *)btf + h->hdr_len + h->type_off;
	strs = (const char *)btf + h->hdr_len + h->str_off;
	if (strs[h->str_len - 1])
		return NULL; /* the last string must end inside the section */
	for (uint32_t id = 1; off + sizeof(struct btf_type) <= h->type_len; id++) {
		struct btf_type t;
		long extra;

		memcpy(&t, types + off, sizeof(t));
		if (id == type_id)
			return t.name_off < h->str_len ? strs + t.name_off : NULL;
		extra = btf_kind__extra(BTF_INFO_KIND(t.info), BTF_INFO_VLEN(t.info));
		if (extra < 0)
			return NULL;
		off += sizeof(t) + (size_t)extra;
	}
	return NULL;
}

static void bpf_prog_desc__release(struct bpf_prog_desc *p)
{
	free(p->addrs);
	free(p->lens);
	free(p->tags);
	free(p->func_info);
	free(p->btf);
	memset(p, 0, sizeof(*p));
}

/*
 * The info of program @fd with the arrays perf's names need: the
 * sub-programs' addresses, lengths and tags, and with BTF their function
 * records and the BTF itself. -EOPNOTSUPP where the kernel is too old to
 * give tags (perf's "kernel is too old": nothing to describe).
 */
static int bpf_prog_desc__read(struct bpf_prog_desc *p, int fd)
{
	uint32_t len = sizeof(p->info), nr, nfi, rec;
	int ret;

	memset(p, 0, sizeof(*p));
	ret = obj_info(fd, &p->info, &len);
	if (ret)
		return ret;
	if (len < offsetof(struct bpf_prog_info, prog_tags))
		return -EOPNOTSUPP;
	nr = p->info.nr_jited_ksyms;
	/* perf's check: one address, length and tag per sub-program */
	if (!nr || nr != p->info.nr_prog_tags || nr != p->info.nr_jited_func_lens)
		return -ENODATA;
	rec = p->info.func_info_rec_size;
	/* a record too short for its type id is no use for names */
	nfi = p->info.btf_id && rec >= sizeof(struct bpf_func_info) ? p->info.nr_func_info : 0;
	if (nfi && nfi != nr)
		return -ENODATA; /* BTF functions must match the sub-programs */
	p->addrs = calloc(nr, sizeof(*p->addrs));
	p->lens = calloc(nr, sizeof(*p->lens));
	p->tags = calloc(nr, sizeof(*p->tags));
	p->func_info = nfi ? calloc(nfi, rec) : NULL;
	if (!p->addrs || !p->lens || !p->tags || (nfi && !p->func_info))
		return -ENOMEM;
	memset(&p->info, 0, sizeof(p->info));
	p->info.nr_jited_ksyms = p->info.nr_jited_func_lens = p->info.nr_prog_tags = nr;
	p->info.jited_ksyms = (uintptr_t)p->addrs;
	p->info.jited_func_lens = (uintptr_t)p->lens;
	p->info.prog_tags = (uintptr_t)p->tags;
	p->info.nr_func_info = nfi;
	p->info.func_info_rec_size = nfi ? rec : 0;
	p->info.func_info = (uintptr_t)p->func_info;
	len = sizeof(p->info);
	ret = obj_info(fd, &p->info, &len);
	/* a program replaced between the two calls: counts must still hold */
	if (!ret && (p->info.nr_jited_ksyms != nr || p->info.nr_func_info != nfi))
		ret = -EAGAIN;
	if (!ret && nfi)
		ret = btf__fetch(p, p->info.btf_id);
	return ret;
}

/* perf's synthesize_bpf_prog_name(): bpf_prog_<tag>[_<name>] of sub-program @i. */
static void bpf_prog_desc__name(const struct bpf_prog_desc *p, uint32_t i, char *buf, size_t size)
{
	const char *short_name = NULL;
	size_t n = (size_t)snprintf(buf, size, "bpf_prog_");

	for (int b = 0; b < BPF_TAG_SIZE && n < size; b++)
		n += (size_t)snprintf(buf + n, size - n, "%02x", p->tags[i][b]);
	if (p->btf) {
		uint32_t type_id;

		memcpy(&type_id,
		       p->func_info + (size_t)i * p->info.func_info_rec_size +
			   offsetof(struct bpf_func_info, type_id),
		       sizeof(type_id));
		short_name = synth__btf_name(p->btf, p->btf_size, type_id);
	} else if (p->info.nr_jited_ksyms == 1) {
		if (p->info.name[0])
			short_name = p->info.name;
	} else {
		short_name = "F";
	}
	/* info.name fills its 16 bytes without a NUL at most; BTF's strings end */
	if (short_name && n < size)
		snprintf(buf + n, size - n, "_%.*s",
			 short_name == p->info.name ? (int)sizeof(p->info.name) : INT_MAX,
			 short_name);
}

static int bpf_prog_desc__emit(struct synth *s, const struct bpf_prog_desc *p, bool bpf_event)
{
	char name[KSYM_NAME_MAX];
	int ret = 0;

	for (uint32_t i = 0; i < p->info.nr_jited_ksyms && !ret; i++) {
		struct ksymbol_head k = {
		    .header.type = PERF_RECORD_KSYMBOL,
		    .addr = p->addrs[i],
		    .len = p->lens[i],
		    .ksym_type = PERF_RECORD_KSYMBOL_TYPE_BPF,
		};

		bpf_prog_desc__name(p, i, name, sizeof(name));
		ret = synth__emit(s, &k, sizeof(k), name);
	}
	if (!ret && bpf_event) {
		struct bpf_event_head e = {
		    .header.type = PERF_RECORD_BPF_EVENT,
		    .type = PERF_BPF_EVENT_PROG_LOAD,
		    .id = p->info.id,
		};

		memcpy(e.tag, p->info.tag, sizeof(e.tag));
		ret = synth__emit(s, &e, sizeof(e), NULL);
	}
	return ret;
}

/*
 * Every loaded program. A program that cannot be described (gone
 * meanwhile, not JITed, BTF unreadable) is skipped where perf stops the
 * whole walk; EPERM (no CAP_SYS_ADMIN) and EINVAL (a kernel without the
 * commands) describe nothing, as in perf. -ENOMEM fails the synthesis.
 */
int synth__bpf_programs(struct synth *s, bool bpf_event)
{
	union bpf_attr a;
	uint32_t id = 0;
	int ret = 0;

	for (;;) {
		struct bpf_prog_desc p;
		int fd;

		memset(&a, 0, sizeof(a));
		a.start_id = id;
		if (sys_bpf(BPF_PROG_GET_NEXT_ID, &a))
			return errno == ENOENT || errno == EPERM || errno == EINVAL ||
				       errno == ENOSYS
				   ? 0
				   : -errno;
		id = a.next_id;
		fd = id_to_fd(BPF_PROG_GET_FD_BY_ID, id);
		if (fd < 0)
			continue;
		ret = bpf_prog_desc__read(&p, fd);
		close(fd);
		if (ret == -EOPNOTSUPP || ret == -ENOMEM) {
			bpf_prog_desc__release(&p);
			return ret == -ENOMEM ? ret : 0; /* too old a kernel: nothing to say */
		}
		ret = ret ? 0 : bpf_prog_desc__emit(s, &p, bpf_event);
		bpf_prog_desc__release(&p);
		if (ret)
			return ret;
	}
}

/* perf's kallsyms_process_symbol(): "ADDR t bpf_trampoline_N\t[bpf]", bpf_dispatcher_X. */
static int synth__bpf_image(struct synth *s, const char *line, long page)
{
	unsigned long long addr;
	char type, name[KSYM_NAME_MAX];
	unsigned long id;
	int n = 0;

	if (sscanf(line, "%llx %c %511s%n", &addr, &type, name, &n) < 3 || !n ||
	    strcmp(line + n, "\t[bpf]\n"))
		return 0;
	/* perf's sscanf()s: a number after the first, a character after the second */
	if (sscanf(name, "bpf_trampoline_%lu", &id) != 1 &&
	    (strncmp(name, "bpf_dispatcher_", 15) || !name[15]))
		return 0;
	return synth__emit(s,
			   &(struct ksymbol_head){.header.type = PERF_RECORD_KSYMBOL,
						  .addr = addr,
						  .len = (uint32_t)page,
						  .ksym_type = PERF_RECORD_KSYMBOL_TYPE_BPF},
			   sizeof(struct ksymbol_head), name);
}

int synth__bpf_images(struct synth *s)
{
	long page = sysconf(_SC_PAGESIZE);
	char path[PATH_MAX];
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/kallsyms", synth__proc(s)) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return 0; /* perf only complains: the programs are described already */
	while (!ret && getline(&line, &cap, f) > 0)
		if (strstr(line, "\t[bpf]"))
			ret = synth__bpf_image(s, line, page);
	free(line);
	fclose(f);
	return ret;
}
