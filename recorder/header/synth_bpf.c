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

/*
 * perf's struct perf_bpil (util/bpf-utils.h): this head, the program's
 * bpf_prog_info, then the arrays' data. @arrays: the enum below's bits.
 */
struct bpil_head {
	uint32_t info_len, data_len;
	uint64_t arrays;
};
_Static_assert(sizeof(struct bpil_head) == 16, "perf_bpil head layout");

/*
 * sizeof(struct bpf_prog_info) in perf 6.1 (its tools/include copy of the
 * 6.1 uapi): the info_len it asks the kernel for and writes. A newer uapi
 * header has a longer struct: what perf 6.1 writes is this much.
 */
#define BPIL_INFO_SIZE 232
_Static_assert(sizeof(struct bpf_prog_info) >= BPIL_INFO_SIZE, "uapi bpf_prog_info too old");

/* perf's enum perf_bpil_array: the arrays a perf_bpil may carry, in data order. */
enum bpil_array {
	BPIL_JITED_INSNS,
	BPIL_XLATED_INSNS,
	BPIL_MAP_IDS,
	BPIL_JITED_KSYMS,
	BPIL_JITED_FUNC_LENS,
	BPIL_FUNC_INFO,
	BPIL_LINE_INFO,
	BPIL_JITED_LINE_INFO,
	BPIL_PROG_TAGS,
	BPIL_NR
};

/* perf's bpil_array_desc: where an array's address, count and record size are. */
static const struct {
	int array_off, count_off;
	int size_off; /* < 0: records of -size_off bytes */
} bpil_desc[BPIL_NR] = {
    [BPIL_JITED_INSNS] = {offsetof(struct bpf_prog_info, jited_prog_insns),
			  offsetof(struct bpf_prog_info, jited_prog_len), -1},
    [BPIL_XLATED_INSNS] = {offsetof(struct bpf_prog_info, xlated_prog_insns),
			   offsetof(struct bpf_prog_info, xlated_prog_len), -1},
    [BPIL_MAP_IDS] = {offsetof(struct bpf_prog_info, map_ids),
		      offsetof(struct bpf_prog_info, nr_map_ids), -(int)sizeof(uint32_t)},
    [BPIL_JITED_KSYMS] = {offsetof(struct bpf_prog_info, jited_ksyms),
			  offsetof(struct bpf_prog_info, nr_jited_ksyms), -(int)sizeof(uint64_t)},
    [BPIL_JITED_FUNC_LENS] = {offsetof(struct bpf_prog_info, jited_func_lens),
			      offsetof(struct bpf_prog_info, nr_jited_func_lens),
			      -(int)sizeof(uint32_t)},
    [BPIL_FUNC_INFO] = {offsetof(struct bpf_prog_info, func_info),
			offsetof(struct bpf_prog_info, nr_func_info),
			offsetof(struct bpf_prog_info, func_info_rec_size)},
    [BPIL_LINE_INFO] = {offsetof(struct bpf_prog_info, line_info),
			offsetof(struct bpf_prog_info, nr_line_info),
			offsetof(struct bpf_prog_info, line_info_rec_size)},
    [BPIL_JITED_LINE_INFO] = {offsetof(struct bpf_prog_info, jited_line_info),
			      offsetof(struct bpf_prog_info, nr_jited_line_info),
			      offsetof(struct bpf_prog_info, jited_line_info_rec_size)},
    [BPIL_PROG_TAGS] = {offsetof(struct bpf_prog_info, prog_tags),
			offsetof(struct bpf_prog_info, nr_prog_tags), -BPF_TAG_SIZE},
};

/* The arrays perf 6.1 asks of every program it describes (bpf-event.c). */
#define BPIL_PERF_ARRAYS                                                                      \
	((1ULL << BPIL_JITED_KSYMS) | (1ULL << BPIL_JITED_FUNC_LENS) | (1ULL << BPIL_FUNC_INFO) | \
	 (1ULL << BPIL_PROG_TAGS) | (1ULL << BPIL_JITED_INSNS) | (1ULL << BPIL_LINE_INFO) |       \
	 (1ULL << BPIL_JITED_LINE_INFO))

/* An array's data past this is no program's: a corrupt count, not a reason to allocate. */
#define BPIL_DATA_MAX (64U << 20)

/*
 * One program as perf reads it: its perf_bpil (the info at @info, the
 * arrays' data after it, their addresses in the info), and the names'
 * inputs pointing into it. Owns @bpil and @btf.
 */
struct bpf_prog_desc {
	struct bpil_head *bpil;
	size_t bpil_len;
	struct bpf_prog_info *info; /* BPIL_INFO_SIZE bytes of it are valid */
	const uint64_t *addrs;
	const uint32_t *lens;
	const uint8_t (*tags)[BPF_TAG_SIZE];
	const uint8_t *func_info; /* info->nr_func_info records of func_info_rec_size */
	void *btf;		  /* the program's raw BTF, for sub-program names */
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
	free(p->bpil);
	free(p->btf);
	memset(p, 0, sizeof(*p));
}

static uint32_t info_u32(const void *info, int off)
{
	uint32_t v;

	if (off < 0)
		return (uint32_t)-off;
	memcpy(&v, (const char *)info + off, sizeof(v));
	return v;
}

static void info_set_u32(void *info, int off, uint32_t v)
{
	if (off >= 0)
		memcpy((char *)info + off, &v, sizeof(v));
}

static uint64_t info_u64(const void *info, int off)
{
	uint64_t v;

	memcpy(&v, (const char *)info + off, sizeof(v));
	return v;
}

static void info_set_u64(void *info, int off, uint64_t v) { memcpy((char *)info + off, &v, sizeof(v)); }

static uint64_t bpil_array_bytes(const void *info, enum bpil_array a)
{
	uint64_t n = (uint64_t)info_u32(info, bpil_desc[a].count_off) *
		     info_u32(info, bpil_desc[a].size_off);

	return (n + 7) & ~7ULL;
}

/*
 * perf's get_bpf_prog_info_linear(fd, BPIL_PERF_ARRAYS): the info once for
 * the arrays' sizes (an array the kernel's info is too short for is left
 * out, as perf leaves it), then again into one buffer with room for them,
 * their counts and record sizes copied over and their addresses pointing
 * into it. -EAGAIN if a count changed in between.
 */
static int bpil__read(int fd, struct bpf_prog_desc *p)
{
	union {
		struct bpf_prog_info i;
		unsigned char b[BPIL_INFO_SIZE];
	} first;
	uint32_t len = BPIL_INFO_SIZE, data_len = 0;
	uint64_t arrays = BPIL_PERF_ARRAYS, at;
	unsigned char *info, *data;
	int ret;

	memset(&first, 0, sizeof(first));
	ret = obj_info(fd, &first, &len);
	if (ret)
		return ret;
	if (len < offsetof(struct bpf_prog_info, prog_tags))
		return -EOPNOTSUPP; /* perf's "the kernel is too old" */
	for (int a = 0; a < BPIL_NR; a++) {
		if (!(arrays & (1ULL << a)))
			continue;
		if (len < bpil_desc[a].array_off + sizeof(uint32_t) ||
		    len < bpil_desc[a].count_off + sizeof(uint32_t) ||
		    (bpil_desc[a].size_off > 0 && len < (uint32_t)bpil_desc[a].size_off)) {
			arrays &= ~(1ULL << a);
			continue;
		}
		if (bpil_array_bytes(&first, a) > BPIL_DATA_MAX - data_len)
			return -E2BIG;
		data_len += (uint32_t)bpil_array_bytes(&first, a);
	}
	p->bpil_len = sizeof(*p->bpil) + BPIL_INFO_SIZE + data_len;
	p->bpil = calloc(1, p->bpil_len);
	if (!p->bpil)
		return -ENOMEM;
	info = (unsigned char *)(p->bpil + 1);
	data = info + BPIL_INFO_SIZE;
	at = (uintptr_t)data;
	for (int a = 0; a < BPIL_NR; a++) {
		if (!(arrays & (1ULL << a)))
			continue;
		info_set_u32(info, bpil_desc[a].count_off, info_u32(&first, bpil_desc[a].count_off));
		info_set_u32(info, bpil_desc[a].size_off, info_u32(&first, bpil_desc[a].size_off));
		info_set_u64(info, bpil_desc[a].array_off, at);
		at += bpil_array_bytes(&first, a);
	}
	len = BPIL_INFO_SIZE;
	ret = obj_info(fd, info, &len);
	if (ret)
		return ret;
	for (int a = 0; a < BPIL_NR; a++)
		if ((arrays & (1ULL << a)) &&
		    (info_u32(info, bpil_desc[a].count_off) != info_u32(&first, bpil_desc[a].count_off) ||
		     info_u32(info, bpil_desc[a].size_off) != info_u32(&first, bpil_desc[a].size_off)))
			return -EAGAIN; /* replaced between the two calls */
	*p->bpil = (struct bpil_head){.info_len = BPIL_INFO_SIZE, .data_len = data_len, .arrays = arrays};
	p->info = (struct bpf_prog_info *)info;
	return 0;
}

/*
 * The info of program @fd as perf reads it (bpil__read), and the names'
 * inputs from it: the sub-programs' addresses, lengths and tags, and with
 * BTF their function records and the BTF itself. -EOPNOTSUPP where the
 * kernel is too old to give tags (perf's "kernel is too old": nothing to
 * describe).
 */
static int bpf_prog_desc__read(struct bpf_prog_desc *p, int fd)
{
	const struct bpf_prog_info *i;
	uint32_t nr, rec;
	int ret;

	memset(p, 0, sizeof(*p));
	ret = bpil__read(fd, p);
	if (ret)
		return ret;
	i = p->info;
	nr = i->nr_jited_ksyms;
	/* perf's check: one address, length and tag per sub-program */
	if (!nr || !(p->bpil->arrays & (1ULL << BPIL_PROG_TAGS)) || nr != i->nr_prog_tags ||
	    nr != i->nr_jited_func_lens)
		return -ENODATA;
	p->addrs = (const uint64_t *)(uintptr_t)i->jited_ksyms;
	p->lens = (const uint32_t *)(uintptr_t)i->jited_func_lens;
	p->tags = (const uint8_t(*)[BPF_TAG_SIZE])(uintptr_t)i->prog_tags;
	rec = i->func_info_rec_size;
	/* perf's BTF check; a record too short for its type id is no use for names */
	if (!i->btf_id || !i->nr_func_info || rec < sizeof(struct bpf_func_info))
		return 0;
	if (i->nr_func_info != nr)
		return -ENODATA; /* BTF functions must match the sub-programs */
	p->func_info = (const uint8_t *)(uintptr_t)i->func_info;
	return btf__fetch(p, i->btf_id);
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
		       p->func_info + (size_t)i * p->info->func_info_rec_size +
			   offsetof(struct bpf_func_info, type_id),
		       sizeof(type_id));
		short_name = synth__btf_name(p->btf, p->btf_size, type_id);
	} else if (p->info->nr_jited_ksyms == 1) {
		if (p->info->name[0])
			short_name = p->info->name;
	} else {
		short_name = "F";
	}
	/* info.name fills its 16 bytes without a NUL at most; BTF's strings end */
	if (short_name && n < size)
		snprintf(buf + n, size - n, "_%.*s",
			 short_name == p->info->name ? (int)sizeof(p->info->name) : INT_MAX,
			 short_name);
}

static int bpf_prog_desc__emit(struct synth *s, const struct bpf_prog_desc *p, bool bpf_event)
{
	char name[KSYM_NAME_MAX];
	int ret = 0;

	for (uint32_t i = 0; i < p->info->nr_jited_ksyms && !ret; i++) {
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
		    .id = p->info->id,
		};

		memcpy(e.tag, p->info->tag, sizeof(e.tag));
		ret = synth__emit(s, &e, sizeof(e), NULL);
	}
	return ret;
}

/* perf's bpil_addr_to_offs(): the arrays' addresses made offsets into the data. */
static void bpil__addr_to_offs(struct bpil_head *h)
{
	unsigned char *info = (unsigned char *)(h + 1);
	uint64_t base = (uintptr_t)(info + BPIL_INFO_SIZE);

	for (int a = 0; a < BPIL_NR; a++)
		if (h->arrays & (1ULL << a))
			info_set_u64(info, bpil_desc[a].array_off,
				     info_u64(info, bpil_desc[a].array_off) - base);
}

/*
 * A slot for @id among *@nr entries of @stride bytes at *@arr, each led by
 * its u32 id, ascending: opened (the later ones moved up, *@nr counted)
 * and returned for the caller to fill; NULL if @id is there already, with
 * *@dup (perf's rb-trees keep the first of an id), or on ENOMEM.
 */
static void *env__open_slot(void **arr, size_t *nr, size_t *cap, size_t stride, uint32_t id,
			    bool *dup)
{
	unsigned char *v;
	size_t k = 0;
	uint32_t at = 0;

	for (; k < *nr; k++) {
		memcpy(&at, (const unsigned char *)*arr + k * stride, sizeof(at));
		if (at >= id)
			break;
	}
	*dup = k < *nr && at == id;
	if (*dup)
		return NULL;
	v = array__grow(*arr, cap, *nr + 1, stride, 16);
	if (!v)
		return NULL;
	*arr = v;
	memmove(v + (k + 1) * stride, v + k * stride, (*nr - k) * stride);
	(*nr)++;
	return v + k * stride;
}

/* The program's perf_bpil, taken from @p (perf_env__insert_bpf_prog_info). */
static int bpf_env__add_prog(struct synth_bpf_env *e, struct bpf_prog_desc *p)
{
	void *arr = e->progs;
	bool dup;
	struct synth_bpf_prog *v = env__open_slot(&arr, &e->nr_progs, &e->cap_progs, sizeof(*v),
						  p->info->id, &dup);

	e->progs = arr;
	if (!v)
		return dup ? 0 : -ENOMEM;
	*v = (struct synth_bpf_prog){.id = p->info->id, .len = p->bpil_len, .bpil = p->bpil};
	/* Written as perf writes it; the desc's pointers into it are done with. */
	bpil__addr_to_offs(p->bpil);
	p->bpil = NULL;
	p->info = NULL;
	return 0;
}

/* The program's BTF, taken from @p (perf_env__fetch_btf). */
static int bpf_env__add_btf(struct synth_bpf_env *e, struct bpf_prog_desc *p, uint32_t id)
{
	void *arr = e->btfs;
	bool dup;
	struct synth_bpf_btf *v = env__open_slot(&arr, &e->nr_btfs, &e->cap_btfs, sizeof(*v), id,
						 &dup);

	e->btfs = arr;
	if (!v)
		return dup ? 0 : -ENOMEM;
	*v = (struct synth_bpf_btf){.id = id, .size = p->btf_size, .data = p->btf};
	p->btf = NULL;
	return 0;
}

/*
 * What perf's env keeps of a described program: its BTF whenever it has
 * BTF function records (perf fetches it before the --no-bpf-event check),
 * its info only with @bpf_event.
 */
static int bpf_env__add(struct synth_bpf_env *e, struct bpf_prog_desc *p, bool bpf_event)
{
	int ret = p->btf ? bpf_env__add_btf(e, p, p->info->btf_id) : 0;

	return !ret && bpf_event ? bpf_env__add_prog(e, p) : ret;
}

int synth_bpf_env__features(const struct synth_bpf_env *e, struct pfile_featset *fs)
{
	struct pfile_bpf_prog *progs = calloc(e->nr_progs + 1, sizeof(*progs));
	struct pfile_bpf_btf *btfs = calloc(e->nr_btfs + 1, sizeof(*btfs));
	int ret = -ENOMEM;

	if (progs && btfs) {
		for (size_t i = 0; i < e->nr_progs; i++)
			progs[i] = (struct pfile_bpf_prog){e->progs[i].bpil, e->progs[i].len};
		for (size_t i = 0; i < e->nr_btfs; i++)
			btfs[i] = (struct pfile_bpf_btf){e->btfs[i].id, e->btfs[i].size, e->btfs[i].data};
		ret = pfile_feat__bpf(fs, progs, e->nr_progs, btfs, e->nr_btfs);
	}
	free(progs);
	free(btfs);
	return ret;
}

int synth_bpf_env__add_loaded(struct synth_bpf_env *e, uint32_t id)
{
	struct bpf_prog_desc p;
	int fd = id_to_fd(BPF_PROG_GET_FD_BY_ID, id), ret;

	if (fd < 0)
		return 0;
	memset(&p, 0, sizeof(p));
	ret = bpil__read(fd, &p);
	close(fd);
	if (!ret) {
		uint32_t btf_id = p.info->btf_id;

		/* perf keeps the info first, then the BTF if it can be read */
		ret = bpf_env__add_prog(e, &p);
		if (!ret && btf_id && !btf__fetch(&p, btf_id))
			ret = bpf_env__add_btf(e, &p, btf_id);
	}
	bpf_prog_desc__release(&p);
	return ret == -ENOMEM ? ret : 0;
}

bool synth__bpf_readable(void)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	return !sys_bpf(BPF_PROG_GET_NEXT_ID, &a) || errno == ENOENT;
}

void synth_bpf_env__release(struct synth_bpf_env *e)
{
	for (size_t i = 0; i < e->nr_progs; i++)
		free(e->progs[i].bpil);
	for (size_t i = 0; i < e->nr_btfs; i++)
		free(e->btfs[i].data);
	free(e->progs);
	free(e->btfs);
	memset(e, 0, sizeof(*e));
}

/*
 * Programs that run through a trampoline (fentry/fexit/fmod_ret, LSM,
 * freplace, struct_ops: bpf_trampoline_N) or the XDP dispatcher
 * (bpf_dispatcher_xdp): with none loaded, kallsyms has no image of theirs.
 */
static bool prog_type__has_image(uint32_t type)
{
	return type == BPF_PROG_TYPE_TRACING || type == BPF_PROG_TYPE_LSM ||
	       type == BPF_PROG_TYPE_EXT || type == BPF_PROG_TYPE_STRUCT_OPS ||
	       type == BPF_PROG_TYPE_XDP;
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
	bool images = false;
	int ret = 0;

	s->no_bpf_images = false;
	for (;;) {
		struct bpf_prog_desc p;
		int fd;

		memset(&a, 0, sizeof(a));
		a.start_id = id;
		if (sys_bpf(BPF_PROG_GET_NEXT_ID, &a)) {
			/* ENOENT: the end of a whole list */
			s->no_bpf_images = errno == ENOENT && !images;
			return errno == ENOENT || errno == EPERM || errno == EINVAL ||
				       errno == ENOSYS
				   ? 0
				   : -errno;
		}
		id = a.next_id;
		fd = id_to_fd(BPF_PROG_GET_FD_BY_ID, id);
		if (fd < 0) {
			images = true; /* gone, or not ours to read: its type unknown */
			continue;
		}
		ret = bpf_prog_desc__read(&p, fd);
		close(fd);
		if (ret == -EOPNOTSUPP || ret == -ENOMEM) {
			bpf_prog_desc__release(&p);
			return ret == -ENOMEM ? ret : 0; /* too old a kernel: nothing to say */
		}
		images |= ret || prog_type__has_image(p.info->type);
		/* A program that cannot be described is skipped: ret 0 */
		if (!ret) {
			ret = bpf_prog_desc__emit(s, &p, bpf_event);
			if (!ret && s->bpf_env)
				ret = bpf_env__add(s->bpf_env, &p, bpf_event);
		} else {
			ret = 0;
		}
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

	if (s->no_bpf_images)
		return 0;
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
