// SPDX-License-Identifier: GPL-2.0
/*
 * Feature sections of a perf.data file: the feature set that owns their
 * payloads, and encoders that build each payload byte for byte as perf 6.1's
 * write_*() functions in tools/perf/util/header.c do.
 *
 * perf writes every field with do_write() back to back, in host byte order
 * and without any alignment padding (a u32 followed by a u64 is 12 bytes);
 * strings are do_write_string(): u32 length (strlen + 1 rounded up to
 * NAME_ALIGN) then the string zero-padded to that length.
 */
#include "recorder/perfdata/pfile_feat.h"
#include "recorder/perfdata/recbuf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PFILE_COMP_ZSTD 1 /* perf's enum perf_compress_type */

/* A growing byte buffer; the first failure sticks in @err. */
struct fbuf {
	unsigned char *p;
	size_t len, cap;
	int err;
};

static void fbuf__put(struct fbuf *b, const void *data, size_t n)
{
	unsigned char *p;

	if (b->err)
		return;
	if (n > SIZE_MAX / 2 - b->len) {
		b->err = -E2BIG;
		return;
	}
	p = array__grow(b->p, &b->cap, b->len + n, 1, 256);
	if (!p && b->len + n) {
		b->err = -ENOMEM;
		return;
	}
	b->p = p;
	if (n)
		memcpy(b->p + b->len, data, n);
	b->len += n;
}

static void fbuf__zero(struct fbuf *b, size_t n)
{
	static const unsigned char zero[PFILE_NAME_ALIGN];

	while (n && !b->err) {
		size_t chunk = n < sizeof(zero) ? n : sizeof(zero);

		fbuf__put(b, zero, chunk);
		n -= chunk;
	}
}

static void fbuf__u32(struct fbuf *b, uint32_t v) { fbuf__put(b, &v, sizeof(v)); }

static void fbuf__u64(struct fbuf *b, uint64_t v) { fbuf__put(b, &v, sizeof(v)); }

/*
 * @s zero-padded to NAME_ALIGN. The padded length goes to *@out_len if
 * given, else it is written first as do_write_string() does.
 */
static void fbuf__padded(struct fbuf *b, const char *s, uint32_t *out_len)
{
	size_t olen = strlen(s) + 1;
	size_t len;

	if (olen > UINT32_MAX - PFILE_NAME_ALIGN) {
		b->err = b->err ? b->err : -E2BIG;
		return;
	}
	len = (olen + PFILE_NAME_ALIGN - 1) & ~(size_t)(PFILE_NAME_ALIGN - 1);
	if (out_len)
		*out_len = len;
	else
		fbuf__u32(b, len);
	fbuf__put(b, s, olen);
	fbuf__zero(b, len - olen);
}

/* perf's do_write_string() */
static void fbuf__string(struct fbuf *b, const char *s) { fbuf__padded(b, s, NULL); }

/* Hands the buffer to @fs as @feat's payload (or frees it on error). */
static int fbuf__commit(struct fbuf *b, struct pfile_featset *fs, int feat)
{
	if (!b->err && (feat < 0 || feat >= PFILE_FEAT_BITS))
		b->err = -EINVAL;
	/* An empty payload still gets a buffer: a NULL data means "unset". */
	if (!b->err && !b->p) {
		b->p = malloc(1);
		if (!b->p)
			b->err = -ENOMEM;
	}
	if (b->err) {
		free(b->p);
		return b->err;
	}
	free(fs->sec[feat].data);
	fs->sec[feat].data = b->p;
	fs->sec[feat].size = b->len;
	return 0;
}

int pfile_featset__set(struct pfile_featset *fs, int feat, const void *data, size_t size)
{
	struct fbuf b = {0};

	if (size && !data)
		return -EINVAL;
	/* Allocate at least one byte so an empty payload still counts as set. */
	b.p = malloc(size ? size : 1);
	if (!b.p)
		return -ENOMEM;
	b.cap = size ? size : 1;
	fbuf__put(&b, data, size);
	return fbuf__commit(&b, fs, feat);
}

bool pfile_featset__has(const struct pfile_featset *fs, int feat)
{
	if (feat < 0 || feat >= PFILE_FEAT_BITS)
		return false;
	return fs->sec[feat].data != NULL;
}

void pfile_featset__unset(struct pfile_featset *fs, int feat)
{
	if (feat < 0 || feat >= PFILE_FEAT_BITS)
		return;
	free(fs->sec[feat].data);
	fs->sec[feat].data = NULL;
	fs->sec[feat].size = 0;
}

void pfile_featset__release(struct pfile_featset *fs)
{
	int i;

	if (!fs)
		return;
	for (i = 0; i < PFILE_FEAT_BITS; i++)
		pfile_featset__unset(fs, i);
}

int pfile_feat__string(struct pfile_featset *fs, int feat, const char *s)
{
	struct fbuf b = {0};

	if (!s)
		return -EINVAL;
	fbuf__string(&b, s);
	return fbuf__commit(&b, fs, feat);
}

/* write_nrcpus(): nr_cpus_avail (highest present CPU + 1) first, then online. */
int pfile_feat__nrcpus(struct pfile_featset *fs, uint32_t nr_avail, uint32_t nr_online)
{
	struct fbuf b = {0};

	fbuf__u32(&b, nr_avail);
	fbuf__u32(&b, nr_online);
	return fbuf__commit(&b, fs, PFILE_FEAT_NRCPUS);
}

int pfile_feat__total_mem(struct pfile_featset *fs, uint64_t kb)
{
	struct fbuf b = {0};

	fbuf__u64(&b, kb);
	return fbuf__commit(&b, fs, PFILE_FEAT_TOTAL_MEM);
}

int pfile_feat__cmdline(struct pfile_featset *fs, int argc, char *const argv[])
{
	struct fbuf b = {0};
	int i;

	if (argc < 0 || (argc && !argv))
		return -EINVAL;
	fbuf__u32(&b, argc);
	for (i = 0; i < argc; i++)
		fbuf__string(&b, argv[i] ? argv[i] : "");
	return fbuf__commit(&b, fs, PFILE_FEAT_CMDLINE);
}

/* Length of @fs's CMDLINE entries after the count, if well formed; else -EINVAL. */
static long cmdline__entries_len(const struct pfile_featset *fs, uint32_t *nr)
{
	const unsigned char *p = fs->sec[PFILE_FEAT_CMDLINE].data;
	size_t size = fs->sec[PFILE_FEAT_CMDLINE].size, pos = sizeof(*nr);
	uint32_t len;

	if (!p || size < sizeof(*nr))
		return -EINVAL;
	memcpy(nr, p, sizeof(*nr));
	for (uint32_t i = 0; i < *nr; i++) {
		if (size - pos < sizeof(len))
			return -EINVAL;
		memcpy(&len, p + pos, sizeof(len));
		pos += sizeof(len);
		if (len > size - pos)
			return -EINVAL;
		pos += len;
	}
	return pos - sizeof(*nr);
}

int pfile_feat__cmdline_append(struct pfile_featset *fs, const char *arg)
{
	struct fbuf b = {0};
	uint32_t nr;
	long len = cmdline__entries_len(fs, &nr);

	if (len < 0)
		return pfile_feat__cmdline(fs, 1, (char *const[]){(char *)arg});
	fbuf__u32(&b, nr + 1);
	fbuf__put(&b, (unsigned char *)fs->sec[PFILE_FEAT_CMDLINE].data + sizeof(nr), len);
	fbuf__string(&b, arg);
	return fbuf__commit(&b, fs, PFILE_FEAT_CMDLINE);
}

/*
 * One EVENT_DESC entry. perf's read_event_desc() stops at the first attr
 * whose size is 0, so attr.size must be set; it is PFILE_ATTR_SIZE like the
 * attr section.
 */
static void event_desc__put(struct fbuf *b, const struct pfile_event *ev, size_t idx)
{
	unsigned char attr[PFILE_ATTR_SIZE] = {0};
	size_t n = sizeof(ev->attr) < sizeof(attr) ? sizeof(ev->attr) : sizeof(attr);
	uint32_t sz = PFILE_ATTR_SIZE;
	char name[32];

	memcpy(attr, &ev->attr, n);
	memcpy(attr + offsetof(struct perf_event_attr, size), &sz, sizeof(sz));
	fbuf__put(b, attr, sizeof(attr));
	fbuf__u32(b, ev->nr_ids);
	if (ev->name) {
		fbuf__string(b, ev->name);
	} else {
		snprintf(name, sizeof(name), "event%zu", idx);
		fbuf__string(b, name);
	}
	if (ev->nr_ids && !ev->ids)
		b->err = b->err ? b->err : -EINVAL;
	else
		fbuf__put(b, ev->ids, (size_t)ev->nr_ids * sizeof(uint64_t));
}

int pfile_feat__event_desc(struct pfile_featset *fs, const struct pfile_event *ev, size_t nr)
{
	struct fbuf b = {0};
	size_t i;

	if (nr > UINT32_MAX || (nr && !ev))
		return -EINVAL;
	fbuf__u32(&b, nr);
	fbuf__u32(&b, PFILE_ATTR_SIZE);
	for (i = 0; i < nr; i++)
		event_desc__put(&b, &ev[i], i);
	return fbuf__commit(&b, fs, PFILE_FEAT_EVENT_DESC);
}

int pfile_feat__sample_time(struct pfile_featset *fs, uint64_t first, uint64_t last)
{
	struct fbuf b = {0};

	fbuf__u64(&b, first);
	fbuf__u64(&b, last);
	return fbuf__commit(&b, fs, PFILE_FEAT_SAMPLE_TIME);
}

int pfile_feat__clockid(struct pfile_featset *fs, uint64_t res_ns)
{
	struct fbuf b = {0};

	fbuf__u64(&b, res_ns);
	return fbuf__commit(&b, fs, PFILE_FEAT_CLOCKID);
}

int pfile_feat__clock_data(struct pfile_featset *fs, uint32_t clockid, uint64_t tod_ns,
			   uint64_t clockid_ns)
{
	struct fbuf b = {0};

	fbuf__u32(&b, 1); /* version: process_clock_data() rejects others */
	fbuf__u32(&b, clockid);
	fbuf__u64(&b, tod_ns);
	fbuf__u64(&b, clockid_ns);
	return fbuf__commit(&b, fs, PFILE_FEAT_CLOCK_DATA);
}

int pfile_feat__compressed(struct pfile_featset *fs, uint32_t level, uint32_t ratio,
			   uint32_t mmap_len)
{
	struct fbuf b = {0};

	fbuf__u32(&b, 0); /* comp_ver */
	fbuf__u32(&b, PFILE_COMP_ZSTD);
	fbuf__u32(&b, level);
	fbuf__u32(&b, ratio);
	fbuf__u32(&b, mmap_len);
	return fbuf__commit(&b, fs, PFILE_FEAT_COMPRESSED);
}

/*
 * write_group_desc(): the leader's group name or "{anon_group}", which
 * process_group_desc() reads back as no name.
 */
int pfile_feat__group_desc(struct pfile_featset *fs, const struct pfile_group *g, size_t nr)
{
	struct fbuf b = {0};
	size_t i;

	if (nr > UINT32_MAX || (nr && !g))
		return -EINVAL;
	fbuf__u32(&b, nr);
	for (i = 0; i < nr; i++) {
		fbuf__string(&b, g[i].name ? g[i].name : "{anon_group}");
		fbuf__u32(&b, g[i].leader_idx);
		fbuf__u32(&b, g[i].nr_members);
	}
	return fbuf__commit(&b, fs, PFILE_FEAT_GROUP_DESC);
}

static void fbuf__strings(struct fbuf *b, char *const *s, uint32_t nr)
{
	uint32_t i;

	fbuf__u32(b, nr);
	for (i = 0; i < nr; i++) {
		if (!s || !s[i]) {
			b->err = b->err ? b->err : -EINVAL;
			return;
		}
		fbuf__string(b, s[i]);
	}
}

static void fbuf__ids(struct fbuf *b, const int32_t *ids, uint32_t nr)
{
	if (nr && !ids)
		b->err = b->err ? b->err : -EINVAL;
	else
		fbuf__put(b, ids, (size_t)nr * sizeof(*ids));
}

/*
 * write_cpu_topology(): package lists, core (thread sibling) lists, then
 * {core_id, socket_id} per CPU interleaved; the die lists and die ids follow
 * only when there are die lists (perf reads them only if bytes remain).
 * perf sizes the per-CPU part by NRCPUS' nr_cpus_avail: they must agree.
 */
int pfile_feat__cpu_topology(struct pfile_featset *fs, const struct pfile_cpu_topo *t)
{
	struct fbuf b = {0};
	uint32_t i;

	if (!t || (t->nr_cpus_avail && (!t->core_id || !t->socket_id)))
		return -EINVAL;
	fbuf__strings(&b, t->core_siblings, t->nr_cores);
	fbuf__strings(&b, t->thread_siblings, t->nr_threads);
	for (i = 0; i < t->nr_cpus_avail; i++) {
		fbuf__u32(&b, t->core_id[i]);
		fbuf__u32(&b, t->socket_id[i]);
	}
	if (t->nr_dies) {
		fbuf__strings(&b, t->die_siblings, t->nr_dies);
		fbuf__ids(&b, t->die_id, t->nr_cpus_avail);
	}
	return fbuf__commit(&b, fs, PFILE_FEAT_CPU_TOPOLOGY);
}

/* write_numa_topology(): u32 nr, then {u32 node, u64 total, u64 free, string cpus}. */
int pfile_feat__numa_topology(struct pfile_featset *fs, const struct pfile_numa_node *n, size_t nr)
{
	struct fbuf b = {0};
	size_t i;

	if (nr > UINT32_MAX || (nr && !n))
		return -EINVAL;
	fbuf__u32(&b, nr);
	for (i = 0; i < nr; i++) {
		fbuf__u32(&b, n[i].node);
		fbuf__u64(&b, n[i].mem_total_kb);
		fbuf__u64(&b, n[i].mem_free_kb);
		fbuf__string(&b, n[i].cpus ? n[i].cpus : "");
	}
	return fbuf__commit(&b, fs, PFILE_FEAT_NUMA_TOPOLOGY);
}

/*
 * write_pmu_mappings(): u32 count, then {u32 type, string name} per PMU.
 * process_pmu_mappings() reads exactly that many entries.
 */
int pfile_feat__pmu_mappings(struct pfile_featset *fs, const struct pfile_pmu *p, size_t nr)
{
	struct fbuf b = {0};
	size_t i;

	if (nr > UINT32_MAX || (nr && !p))
		return -EINVAL;
	fbuf__u32(&b, nr);
	for (i = 0; i < nr && !b.err; i++) {
		if (!p[i].name) {
			b.err = -EINVAL;
			break;
		}
		fbuf__u32(&b, p[i].type);
		fbuf__string(&b, p[i].name);
	}
	return fbuf__commit(&b, fs, PFILE_FEAT_PMU_MAPPINGS);
}

/*
 * write_cache(): u32 version 1 (process_cache() rejects any other), u32
 * count, then per cache u32 level, line_size, sets, ways and the strings
 * type, size, map.
 */
int pfile_feat__cache(struct pfile_featset *fs, const struct pfile_cache *c, size_t nr)
{
	struct fbuf b = {0};
	size_t i;

	if (nr > UINT32_MAX || (nr && !c))
		return -EINVAL;
	fbuf__u32(&b, 1);
	fbuf__u32(&b, nr);
	for (i = 0; i < nr && !b.err; i++) {
		if (!c[i].type || !c[i].size || !c[i].map) {
			b.err = -EINVAL;
			break;
		}
		fbuf__u32(&b, c[i].level);
		fbuf__u32(&b, c[i].line_size);
		fbuf__u32(&b, c[i].sets);
		fbuf__u32(&b, c[i].ways);
		fbuf__string(&b, c[i].type);
		fbuf__string(&b, c[i].size);
		fbuf__string(&b, c[i].map);
	}
	return fbuf__commit(&b, fs, PFILE_FEAT_CACHE);
}

/* do_write_bitmap(): u64 number of bits, then the bitmap's u64 words. */
static void fbuf__bitmap(struct fbuf *b, const uint64_t *bits, uint64_t nr_bits)
{
	uint64_t words = nr_bits / 64 + (nr_bits % 64 != 0);

	fbuf__u64(b, nr_bits);
	if (words && !bits) {
		b->err = b->err ? b->err : -EINVAL;
		return;
	}
	if (words > SIZE_MAX / sizeof(*bits)) {
		b->err = b->err ? b->err : -E2BIG;
		return;
	}
	fbuf__put(b, bits, words * sizeof(*bits));
}

int pfile_feat__mem_topology(struct pfile_featset *fs, uint64_t block_size,
			     const struct pfile_mem_node *n, size_t nr)
{
	struct fbuf b = {0};
	size_t i;

	if (nr && !n)
		return -EINVAL;
	fbuf__u64(&b, 1); /* version: process_mem_topology() rejects others */
	fbuf__u64(&b, block_size);
	fbuf__u64(&b, nr);
	for (i = 0; i < nr; i++) {
		fbuf__u64(&b, n[i].node);
		fbuf__u64(&b, n[i].nr_bits);
		fbuf__bitmap(&b, n[i].bits, n[i].nr_bits);
	}
	return fbuf__commit(&b, fs, PFILE_FEAT_MEM_TOPOLOGY);
}

int pfile_feat__bpf(struct pfile_featset *fs, const struct pfile_bpf_prog *progs,
		    size_t nr_progs, const struct pfile_bpf_btf *btfs, size_t nr_btfs)
{
	struct fbuf b = {0};
	int ret;

	if (nr_progs > UINT32_MAX || nr_btfs > UINT32_MAX)
		return -E2BIG;
	fbuf__u32(&b, (uint32_t)nr_progs); /* env->bpf_progs.infos_cnt */
	for (size_t i = 0; i < nr_progs; i++)
		fbuf__put(&b, progs[i].bpil, progs[i].len);
	ret = fbuf__commit(&b, fs, PFILE_FEAT_BPF_PROG_INFO);
	if (ret)
		return ret;
	memset(&b, 0, sizeof(b));
	fbuf__u32(&b, (uint32_t)nr_btfs); /* env->bpf_progs.btfs_cnt */
	for (size_t i = 0; i < nr_btfs; i++) {
		fbuf__u32(&b, btfs[i].id);
		fbuf__u32(&b, btfs[i].size);
		fbuf__put(&b, btfs[i].data, btfs[i].size);
	}
	return fbuf__commit(&b, fs, PFILE_FEAT_BPF_BTF);
}

/* __write_pmu_caps(): u32 nr_caps, {name, value} strings, the PMU's name if @with_name. */
static void fbuf__pmu_caps(struct fbuf *b, const struct pfile_pmu_caps *p, bool with_name)
{
	uint32_t i;

	if ((p->nr_caps && !p->caps) || (with_name && !p->pmu)) {
		b->err = b->err ? b->err : -EINVAL;
		return;
	}
	fbuf__u32(b, p->nr_caps);
	for (i = 0; i < p->nr_caps && !b->err; i++) {
		if (!p->caps[i].name || !p->caps[i].value) {
			b->err = -EINVAL;
			return;
		}
		fbuf__string(b, p->caps[i].name);
		fbuf__string(b, p->caps[i].value);
	}
	if (with_name)
		fbuf__string(b, p->pmu);
}

int pfile_feat__cpu_pmu_caps(struct pfile_featset *fs, const struct pfile_pmu_caps *cpu)
{
	struct fbuf b = {0};

	if (!cpu)
		return -EINVAL;
	fbuf__pmu_caps(&b, cpu, false);
	return fbuf__commit(&b, fs, PFILE_FEAT_CPU_PMU_CAPS);
}

int pfile_feat__pmu_caps(struct pfile_featset *fs, const struct pfile_pmu_caps *p, size_t nr)
{
	struct fbuf b = {0};
	size_t i;

	if (nr > INT32_MAX || (nr && !p))
		return -EINVAL;
	fbuf__u32(&b, nr); /* perf's int nr_pmu */
	for (i = 0; i < nr; i++)
		fbuf__pmu_caps(&b, &p[i], true);
	return fbuf__commit(&b, fs, PFILE_FEAT_PMU_CAPS);
}

/*
 * One entry of the build-id table, as perf 6.1's write_buildid(): a
 * perf_record_header_build_id (type 0, misc = cpumode | BUILD_ID_SIZE,
 * pid = -1 for the host, 20 id bytes + size byte + 3 reserved) followed by
 * the path zero-padded to NAME_ALIGN; header.size covers both. The entry
 * is 36 + 64k bytes long, so entries are not 8-byte aligned. (perf >= 6.13
 * pads to 8 instead; readers of either walk by header.size.)
 */
static void build_id__put(struct fbuf *b, const struct pfile_build_id *bid)
{
	struct perf_event_header h;
	unsigned char id[24] = {0};
	int32_t pid = -1; /* HOST_KERNEL_ID */
	uint32_t len = 0;
	size_t start = b->len;

	if (!bid->path || bid->size > sizeof(bid->id)) {
		b->err = b->err ? b->err : -EINVAL;
		return;
	}
	memcpy(id, bid->id, bid->size);
	id[20] = bid->size;
	h.type = 0;
	h.misc = (bid->kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER) |
		 PFILE_MISC_BUILD_ID_SIZE;
	h.size = 0; /* patched below */
	fbuf__put(b, &h, sizeof(h));
	fbuf__put(b, &pid, sizeof(pid));
	fbuf__put(b, id, sizeof(id));
	fbuf__padded(b, bid->path, &len);
	if (b->err)
		return;
	if (PFILE_BUILD_ID_REC_SIZE + (size_t)len > UINT16_MAX) {
		b->err = -ENAMETOOLONG;
		return;
	}
	h.size = PFILE_BUILD_ID_REC_SIZE + len;
	memcpy(b->p + start, &h, sizeof(h));
}

int pfile_feat__build_ids(struct pfile_featset *fs, const struct pfile_build_id *b, size_t nr)
{
	struct fbuf buf = {0};
	size_t i;

	if (nr && !b)
		return -EINVAL;
	for (i = 0; i < nr; i++)
		build_id__put(&buf, &b[i]);
	return fbuf__commit(&buf, fs, PFILE_FEAT_BUILD_ID);
}
