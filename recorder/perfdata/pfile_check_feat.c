// SPDX-License-Identifier: GPL-2.0
/*
 * Feature sections and events as perf 6.1 reads them (header.c process_*,
 * trace-event-read.c trace_report, session.c evlist__valid_*). perf reads
 * feature sections from the file with counts it trusts (calloc(nr), loops
 * reading past the section, fixed BUFSIZ string buffers in trace_report):
 * here every count, length and string must lie inside its section.
 */
#include "recorder/perfdata/pfile_check.h"
#include "recorder/perfdata/pfile.h"
#include "recorder/perfdata/pfile_feat.h"
#include "recorder/perfdata/pcursor.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLE_KNOWN ((1ULL << 25) - 1) /* up to PERF_SAMPLE_WEIGHT_STRUCT, perf 6.1 */
#define READ_KNOWN 31ULL		/* up to PERF_FORMAT_LOST */
#define TRACE_STR_MAX 8191		/* trace_report's read_string: char buf[BUFSIZ] */
#define ATTR_SIZE_VER0 64


/*
 * do_read_string(): u32 len, then len bytes holding a NUL (perf does not
 * look for one and reads the string with strlen: we do). *@out: the string.
 */
static bool str_at(struct pcursor *c, const char **out)
{
	uint32_t len;
	const unsigned char *s;

	if (!pcursor__u32(c, &len) || !len)
		return false;
	s = c->p;
	if (out)
		*out = (const char *)s;
	return pcursor__take(c, NULL, len) && memchr(s, '\0', len);
}

static bool str(struct pcursor *c)
{
	return str_at(c, NULL);
}

struct cpu_range {
	unsigned long lo, hi;
};

static int cpu_range__cmp(const void *a, const void *b)
{
	const struct cpu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/*
 * A CPU list as libperf 6.1's perf_cpu_map__new() takes it, which
 * process_numa_topology() calls on every node's list and which fails the
 * section (perf then drops it and every later one, HEADER_COMPRESSED
 * included) on anything else: "" is a node without CPUs; otherwise the
 * list starts with a digit; each item is a number or lo-hi as strtoul(base
 * 0) reads them (0x10 and 010 are hex and octal), ends at ',' or the end,
 * is below INT_MAX with hi >= lo, and no CPU comes twice. A ',' followed by
 * a non-digit ends the list, and perf ignores the rest.
 */
static bool cpu_list(const char *s)
{
	size_t n = 0, cap = strlen(s) / 2 + 1;
	struct cpu_range *r;
	bool ok = false;
	char *p;

	if (!*s)
		return true;
	if (!isdigit((unsigned char)*s))
		return false;
	r = malloc(cap * sizeof(*r));
	if (!r)
		return false;
	while (isdigit((unsigned char)*s)) {
		unsigned long lo = strtoul(s, &p, 0), hi = lo;

		if (lo >= INT_MAX || (*p && *p != ',' && *p != '-'))
			goto out_free;
		if (*p == '-') {
			hi = strtoul(p + 1, &p, 0);
			if (hi >= INT_MAX || (*p && *p != ',') || hi < lo)
				goto out_free;
		}
		r[n++] = (struct cpu_range){lo, hi};
		s = *p ? p + 1 : p;
	}
	qsort(r, n, sizeof(*r), cpu_range__cmp);
	ok = true;
	for (size_t i = 1; i < n && ok; i++)
		ok = r[i].lo > r[i - 1].hi;
out_free:
	free(r);
	return ok;
}

static bool strs(struct pcursor *c, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (!str(c))
			return false;
	return true;
}

/* u32 count, then @per strings each. */
static bool counted_strs(struct pcursor *c, unsigned per)
{
	uint32_t n;

	return pcursor__u32(c, &n) && n <= c->left / 5 && strs(c, (uint64_t)n * per);
}

/* ---- TRACING_DATA ---- */

/* trace_report()'s read_string: NUL-terminated, at most BUFSIZ bytes with the NUL. */
static bool tstr(struct pcursor *c, const char **s)
{
	size_t max = c->left < TRACE_STR_MAX + 1 ? c->left : TRACE_STR_MAX + 1;
	const unsigned char *nul = memchr(c->p, '\0', max);

	if (!nul)
		return false;
	if (s)
		*s = (const char *)c->p;
	return pcursor__take(c, NULL, nul - c->p + 1);
}

/* u64 size then the bytes; *@blob points at them. */
static bool tblob(struct pcursor *c, const unsigned char **blob, uint64_t *len)
{
	if (!pcursor__u64(c, len))
		return false;
	*blob = c->p;
	return pcursor__take(c, NULL, *len);
}

static bool format_has_id(const unsigned char *b, uint64_t len, uint64_t id)
{
	for (uint64_t i = 0; i + 4 <= len; i++) {
		if ((i && b[i - 1] != '\n') || memcmp(b + i, "ID: ", 4))
			continue;
		uint64_t v = 0;
		bool digits = false;

		for (i += 4; i < len && b[i] >= '0' && b[i] <= '9'; i++, digits = true)
			v = v * 10 + (b[i] - '0');
		return digits && v == id;
	}
	return false;
}

static bool tracing_files(struct pcursor *c, uint64_t want, bool *found)
{
	const unsigned char *blob;
	uint32_t n, systems;
	uint64_t len;

	if (!pcursor__u32(c, &n)) /* ftrace formats */
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (!tblob(c, &blob, &len))
			return false;
	if (!pcursor__u32(c, &systems))
		return false;
	for (uint32_t s = 0; s < systems; s++) {
		if (!tstr(c, NULL) || !pcursor__u32(c, &n))
			return false;
		for (uint32_t i = 0; i < n; i++) {
			if (!tblob(c, &blob, &len))
				return false;
			*found |= format_has_id(blob, len, want);
		}
	}
	return true;
}

/*
 * trace_report(): magic, "tracing", version string, endianness, long size,
 * page size, header_page, header_event, ftrace and event formats,
 * kallsyms, printk formats, and (version >= 0.6) saved cmdlines; all of
 * the section. *@found: an event format says "ID: @want".
 */
static bool tracing_data(const void *data, size_t size, uint64_t want, bool *found)
{
	static const unsigned char magic[10] = {23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g'};
	struct pcursor c = {data, size};
	const unsigned char *blob;
	const char *version;
	unsigned char endian_long[2];
	uint32_t page, len;
	uint64_t len64;

	*found = false;
	if (size < sizeof(magic) || memcmp(data, magic, sizeof(magic)))
		return false;
	pcursor__take(&c, NULL, sizeof(magic));
	if (!tstr(&c, &version) || !pcursor__take(&c, endian_long, 2) || endian_long[0] != 0 ||
	    (endian_long[1] != 4 && endian_long[1] != 8) || !pcursor__u32(&c, &page) || !page)
		return false;
	if (c.left < 12 || memcmp(c.p, "header_page", 12) || !pcursor__take(&c, NULL, 12) ||
	    !tblob(&c, &blob, &len64))
		return false;
	if (c.left < 13 || memcmp(c.p, "header_event", 13) || !pcursor__take(&c, NULL, 13) ||
	    !tblob(&c, &blob, &len64))
		return false;
	if (!tracing_files(&c, want, found))
		return false;
	if (!pcursor__u32(&c, &len) || !pcursor__take(&c, NULL, len) || !pcursor__u32(&c, &len) || !pcursor__take(&c, NULL, len))
		return false;
	if (strtod(version, NULL) >= 0.6 && !tblob(&c, &blob, &len64))
		return false;
	return !c.left;
}

/* ---- the others ---- */

static bool event_desc(struct pcursor *c)
{
	uint32_t nr, sz, nr_ids;

	if (!pcursor__u32(c, &nr) || !pcursor__u32(c, &sz) || sz < ATTR_SIZE_VER0 || sz > 4096 || nr > c->left / sz)
		return false;
	for (uint32_t i = 0; i < nr; i++)
		if (!pcursor__take(c, NULL, sz) || !pcursor__u32(c, &nr_ids) || !str(c) ||
		    !pcursor__take(c, NULL, (uint64_t)nr_ids * 8))
			return false;
	return true;
}

/*
 * process_cpu_topology() skips the socket id check on these arches, whose
 * ids are not bounded by the CPU count (do_core_id_test).
 */
static bool arch_has_free_socket_ids(const struct pfile *pf)
{
	struct pcursor c = {pf->feats.sec[PFILE_FEAT_ARCH].data, pf->feats.sec[PFILE_FEAT_ARCH].size};
	const char *arch;

	if (!pfile_featset__has(&pf->feats, PFILE_FEAT_ARCH) || !str_at(&c, &arch))
		return false;
	return !strncmp(arch, "s390", 4) || !strncmp(arch, "aarch64", 7);
}

static uint32_t nr_cpus_avail(const struct pfile *pf)
{
	uint32_t n = 0;

	if (pf->feats.sec[PFILE_FEAT_NRCPUS].size >= 4)
		memcpy(&n, pf->feats.sec[PFILE_FEAT_NRCPUS].data, 4);
	return n;
}

/*
 * Sibling strings, then (optional) per-CPU core and socket ids, then
 * (optional) dies. perf 6.1 fails the section on a socket id above the CPU
 * count that is not -1 ("socket_id number is too big").
 */
static bool cpu_topology(const struct pfile *pf, struct pcursor *c)
{
	uint32_t cpus = nr_cpus_avail(pf), core, socket;
	bool any_socket = arch_has_free_socket_ids(pf);

	if (!counted_strs(c, 1) || !counted_strs(c, 1))
		return false;
	if (!c->left)
		return true;
	for (uint32_t i = 0; i < cpus; i++)
		if (!pcursor__u32(c, &core) || !pcursor__u32(c, &socket) ||
		    (!any_socket && socket != UINT32_MAX && socket > cpus))
			return false;
	if (!c->left)
		return true;
	return counted_strs(c, 1) && pcursor__take(c, NULL, (uint64_t)cpus * 4);
}

static bool numa_topology(struct pcursor *c)
{
	uint32_t nr;

	if (!pcursor__u32(c, &nr))
		return false;
	for (uint32_t i = 0; i < nr; i++) {
		const char *cpus;

		if (!pcursor__take(c, NULL, 4 + 8 + 8) || !str_at(c, &cpus) || !cpu_list(cpus))
			return false;
	}
	return true;
}

static bool pmu_mappings(struct pcursor *c)
{
	uint32_t nr;

	if (!pcursor__u32(c, &nr))
		return false;
	for (uint32_t i = 0; i < nr; i++)
		if (!pcursor__u32(c, NULL) || !str(c))
			return false;
	return true;
}

/* process_group_desc(): the groups must match the events in order, or perf fails. */
static bool group_desc(const struct pfile *pf, struct pcursor *c)
{
	uint32_t nr_groups, g = 0, left = 0, leader, members;
	struct pcursor d;

	if (!pcursor__u32(c, &nr_groups) || nr_groups > c->left / 13)
		return false;
	d = *c;
	for (uint32_t i = 0; i < nr_groups; i++)
		if (!str(c) || !pcursor__u32(c, NULL) || !pcursor__u32(c, NULL))
			return false;
	for (size_t ev = 0; ev < pf->nr_events; ev++) {
		struct pcursor peek = d;

		if (g < nr_groups && str(&peek) && pcursor__u32(&peek, &leader) && pcursor__u32(&peek, &members) &&
		    leader == ev) {
			if (left)
				return false;
			left = members - 1;
			d = peek;
			g++;
		} else if (left) {
			left--;
		}
	}
	return g == nr_groups && !left;
}

static bool cache(struct pcursor *c)
{
	uint32_t version, nr;

	if (!pcursor__u32(c, &version) || version != 1 || !pcursor__u32(c, &nr))
		return false;
	for (uint32_t i = 0; i < nr; i++)
		if (!pcursor__take(c, NULL, 16) || !strs(c, 3))
			return false;
	return true;
}

static bool bitmap(struct pcursor *c)
{
	uint64_t bits;

	return pcursor__u64(c, &bits) && bits <= c->left * 8 && pcursor__take(c, NULL, (bits + 63) / 64 * 8);
}

static bool mem_topology(struct pcursor *c)
{
	uint64_t version, nr;

	if (!pcursor__u64(c, &version) || version != 1 || !pcursor__u64(c, NULL) || !pcursor__u64(c, &nr))
		return false;
	for (uint64_t i = 0; i < nr; i++)
		if (!pcursor__u64(c, NULL) || !pcursor__u64(c, NULL) || !bitmap(c))
			return false;
	return true;
}

/* u32 count, then per entry two u32 lengths (or id and length) and the bytes. */
static bool bpf(struct pcursor *c, bool prog)
{
	uint32_t nr, a, b;

	if (!pcursor__u32(c, &nr))
		return false;
	for (uint32_t i = 0; i < nr; i++) {
		if (!pcursor__u32(c, &a) || !pcursor__u32(c, &b))
			return false;
		if (prog && (a > 256 || !pcursor__u64(c, NULL) || !pcursor__take(c, NULL, a)))
			return false;
		if (!pcursor__take(c, NULL, b))
			return false;
	}
	return true;
}

static bool pmu_caps(struct pcursor *c)
{
	uint32_t nr, caps;

	if (!pcursor__u32(c, &nr))
		return false;
	for (uint32_t i = 0; i < nr; i++)
		if (!pcursor__u32(c, &caps) || caps > c->left / 10 || !strs(c, 2ULL * caps) || !str(c))
			return false;
	return true;
}

/* BUILD_ID: a run of perf_record_header_build_id entries, each with a path. */
static bool build_ids(struct pcursor *c)
{
	while (c->left) {
		struct perf_event_header h;
		const unsigned char *e = c->p;

		if (!pcursor__take(c, &h, sizeof(h)) || h.size <= PFILE_BUILD_ID_REC_SIZE ||
		    h.size - sizeof(h) > c->left)
			return false;
		pcursor__take(c, NULL, h.size - sizeof(h));
		if (!memchr(e + PFILE_BUILD_ID_REC_SIZE, '\0', h.size - PFILE_BUILD_ID_REC_SIZE))
			return false;
	}
	return true;
}

static bool feature(const struct pfile *pf, int feat, struct pcursor *c, const char **why)
{
	uint32_t v[5];
	uint64_t nr;
	bool found;

	switch (feat) {
	case PFILE_FEAT_TRACING_DATA:
		return tracing_data(c->p, c->left, UINT64_MAX, &found) && pcursor__take(c, NULL, c->left);
	case PFILE_FEAT_BUILD_ID:
		return build_ids(c);
	case PFILE_FEAT_HOSTNAME: case PFILE_FEAT_OSRELEASE: case PFILE_FEAT_VERSION:
	case PFILE_FEAT_ARCH: case PFILE_FEAT_CPUDESC: case PFILE_FEAT_CPUID:
		return str(c);
	case PFILE_FEAT_NRCPUS: case PFILE_FEAT_TOTAL_MEM: case PFILE_FEAT_CLOCKID:
		return pcursor__take(c, NULL, 8);
	case PFILE_FEAT_CMDLINE:
		return counted_strs(c, 1);
	case PFILE_FEAT_EVENT_DESC:
		return event_desc(c);
	case PFILE_FEAT_CPU_TOPOLOGY:
		*why = "CPU_TOPOLOGY: a list or a socket id perf 6.1 rejects";
		return cpu_topology(pf, c);
	case PFILE_FEAT_NUMA_TOPOLOGY:
		*why = "NUMA_TOPOLOGY: a node or CPU list perf 6.1 cannot parse";
		return numa_topology(c);
	case PFILE_FEAT_BRANCH_STACK: case PFILE_FEAT_STAT:
		return true; /* flags: nothing to read */
	case PFILE_FEAT_PMU_MAPPINGS:
		return pmu_mappings(c);
	case PFILE_FEAT_GROUP_DESC:
		return group_desc(pf, c);
	case PFILE_FEAT_AUXTRACE:
		return pcursor__u64(c, &nr) && nr <= c->left / 16 && pcursor__take(c, NULL, nr * 16);
	case PFILE_FEAT_CACHE:
		return cache(c);
	case PFILE_FEAT_SAMPLE_TIME:
		return pcursor__take(c, NULL, 16);
	case PFILE_FEAT_MEM_TOPOLOGY:
		return mem_topology(c);
	case PFILE_FEAT_BPF_PROG_INFO: case PFILE_FEAT_BPF_BTF:
		return bpf(c, feat == PFILE_FEAT_BPF_PROG_INFO);
	case PFILE_FEAT_COMPRESSED: /* version 0, zstd, level, ratio, mmap_len */
		return pcursor__take(c, v, 20) && v[0] == 0 && v[1] == 1 && v[4];
	case PFILE_FEAT_CPU_PMU_CAPS:
		return counted_strs(c, 2);
	case PFILE_FEAT_CLOCK_DATA: /* version 1, clockid, tod_ns, clockid_ns */
		return pcursor__u32(c, &v[0]) && v[0] == 1 && pcursor__take(c, NULL, 20);
	case PFILE_FEAT_HYBRID_TOPOLOGY:
		return counted_strs(c, 2);
	case PFILE_FEAT_PMU_CAPS:
		return pmu_caps(c);
	default: /* DIR_FORMAT (a directory's), or unknown to perf 6.1 */
		return false;
	}
}

bool pfile_check__feature(const struct pfile *pf, int feat, const void *data, size_t size,
			  const char **why)
{
	struct pcursor c = {data, size};

	*why = NULL;
	if (feature(pf, feat, &c, why) && !c.left) {
		*why = NULL;
		return true;
	}
	if (!*why)
		*why = feat == PFILE_FEAT_TRACING_DATA ? "TRACING_DATA does not parse"
			: "feature section does not parse as perf reads it";
	return false;
}

/* perf's evsel__calc_id_pos / calc_is_pos: where the id sits, from the start / end. */
static int id_pos(uint64_t st)
{
	int i = 0;

	if (st & PERF_SAMPLE_IDENTIFIER)
		return 0;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	i += !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) +
	     !!(st & PERF_SAMPLE_ADDR);
	return i;
}

static int is_pos(uint64_t st)
{
	if (st & PERF_SAMPLE_IDENTIFIER)
		return 1;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	return 1 + !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_STREAM_ID);
}

static bool tracepoint_ok(const struct pfile *pf, uint64_t config)
{
	const struct pfile_featset *fs = &pf->feats;
	bool found;

	return tracing_data(fs->sec[PFILE_FEAT_TRACING_DATA].data,
			    fs->sec[PFILE_FEAT_TRACING_DATA].size, config, &found) && found;
}

bool pfile_check__events(const struct pfile *pf, const char **why)
{
	const struct perf_event_attr *a0;

	*why = NULL;
	if (!pf->nr_events) {
		*why = "no events";
		return false;
	}
	a0 = &pf->events[0].attr;
	for (size_t i = 0; i < pf->nr_events; i++) {
		const struct perf_event_attr *a = &pf->events[i].attr;

		if (a->sample_id_all != a0->sample_id_all)
			*why = "non matching sample_id_all";
		else if (pf->nr_events > 1 &&
			 (id_pos(a->sample_type) < 0 || is_pos(a->sample_type) < 0 ||
			  id_pos(a->sample_type) != id_pos(a0->sample_type) ||
			  is_pos(a->sample_type) != is_pos(a0->sample_type)))
			*why = "non matching sample_type";
		else if ((a->sample_type & ~SAMPLE_KNOWN) || (a->read_format & ~READ_KNOWN))
			*why = "sample_type or read_format unknown to perf 6.1";
		else if ((a->sample_type & PERF_SAMPLE_READ) && !(a->read_format & PERF_FORMAT_ID))
			*why = "non matching read_format";
		else if (a->type == PERF_TYPE_TRACEPOINT && !tracepoint_ok(pf, a->config))
			*why = "tracepoint event without its format in TRACING_DATA";
		if (*why)
			return false;
	}
	return true;
}
