// SPDX-License-Identifier: GPL-2.0
/*
 * Records as perf 6.1 reads them. perf_session__process_event() refuses
 * types it does not know; evsel__parse_sample() walks a SAMPLE field by
 * field (OVERFLOW_CHECK against header.size) and reads the sample_id
 * trailer of every other kernel record from its end; the user-record
 * handlers trust their counts. Everything here is checked against the
 * record's own size so that no reader, perf or another, reads past it.
 */
#include "recorder/perfdata/pfile_check.h"
#include "recorder/perfdata/pfile.h"
#include "recorder/perfdata/pfile_sample.h"
#include "recorder/perfdata/pcursor.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define KERNEL_TYPE_MAX 21	/* PERF_RECORD_AUX_OUTPUT_HW_ID, the last perf 6.1 knows */
#define USER_TYPE_END 83	/* PERF_RECORD_HEADER_MAX of perf 6.1 */
#define FORMAT_GROUP 8ULL	/* PERF_FORMAT_GROUP */
#define READ_FORMAT_KNOWN 31ULL /* ENABLED, RUNNING, ID, GROUP, LOST */
#define BRANCH_HW_INDEX (1ULL << 17) /* PERF_SAMPLE_BRANCH_HW_INDEX */
#define AUXTRACE_HDR 48
#define AUXTRACE_ERROR_MIN 112
#define AUXTRACE_TYPE_MAX 5 /* S390_CPUMSF, the last auxtrace_type perf 6.1 decodes */

/* Bytes of a kernel record's body before any name, and whether a name follows. */
struct kspec {
	uint8_t body;
	bool name;
	bool known;
};

static const struct kspec kspec[KERNEL_TYPE_MAX + 1] = {
	[PERF_RECORD_MMAP] = {32, true, true},	   [PERF_RECORD_LOST] = {16, false, true},
	[PERF_RECORD_COMM] = {8, true, true},	   [PERF_RECORD_EXIT] = {24, false, true},
	[PERF_RECORD_THROTTLE] = {24, false, true}, [PERF_RECORD_UNTHROTTLE] = {24, false, true},
	[PERF_RECORD_FORK] = {24, false, true},	   [PERF_RECORD_READ] = {8, false, true},
	[PERF_RECORD_SAMPLE] = {0, false, true},   [PERF_RECORD_MMAP2] = {64, true, true},
	[PERF_RECORD_AUX] = {24, false, true},	   [PERF_RECORD_ITRACE_START] = {8, false, true},
	[PERF_RECORD_LOST_SAMPLES] = {8, false, true}, [PERF_RECORD_SWITCH] = {0, false, true},
	[PERF_RECORD_SWITCH_CPU_WIDE] = {8, false, true},
	[PERF_RECORD_NAMESPACES] = {16, false, true}, [PERF_RECORD_KSYMBOL] = {16, true, true},
	[PERF_RECORD_BPF_EVENT] = {16, false, true}, [PERF_RECORD_CGROUP] = {8, true, true},
	[PERF_RECORD_TEXT_POKE] = {12, false, true}, [21] = {8, false, true},
};

/* The u64 fields of a SAMPLE, in the order evsel__parse_sample() reads them. */
#define SAMPLE_FIXED                                                                               \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |             \
	 PERF_SAMPLE_PERIOD)
#define SAMPLE_WEIGHTS (PERF_SAMPLE_WEIGHT | (1ULL << 24)) /* WEIGHT_STRUCT: one u64 either way */
/* After the variable fields: the weight, these, REGS_INTR, the late ones, AUX. */
#define SAMPLE_MID (PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION)
#define SAMPLE_LATE                                                                                \
	(PERF_SAMPLE_PHYS_ADDR | (1ULL << 21) /* CGROUP */ | (1ULL << 22) /* DATA_PAGE_SIZE */ |   \
	 (1ULL << 23) /* CODE_PAGE_SIZE */)
/* Fields whose size the record says: READ (a group's), CALLCHAIN, RAW, ..., AUX. */
#define SAMPLE_VARIABLE                                                                            \
	(PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK |   \
	 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_REGS_INTR | (1ULL << 20))

/*
 * The size of every SAMPLE of an event without variable fields, 0 for the
 * others: the full parse below gives the same verdict for those in one
 * comparison (the merge checks every record it writes).
 */
static uint32_t sample_size(uint64_t st)
{
	if (st & SAMPLE_VARIABLE)
		return 0;
	return 8 * (1 + __builtin_popcountll(st & (SAMPLE_FIXED | SAMPLE_MID | SAMPLE_LATE)) +
		    !!(st & SAMPLE_WEIGHTS));
}

int pfile_check__init(struct pfile_check *c, const struct pfile *pf)
{
	size_t n = pf->nr_events ? pf->nr_events : 1;

	c->pf = pf;
	c->lay = calloc(n, sizeof(*c->lay));
	c->sample_size = calloc(n, sizeof(*c->sample_size));
	if (!c->lay || !c->sample_size) {
		pfile_check__release(c);
		return -ENOMEM;
	}
	for (size_t i = 0; i < pf->nr_events; i++) {
		const struct perf_event_attr *a = &pf->events[i].attr;

		pfile_idlayout__init(&c->lay[i], a->sample_type, a->sample_id_all);
		c->sample_size[i] = sample_size(a->sample_type);
	}
	return 0;
}

void pfile_check__release(struct pfile_check *c)
{
	free(c->lay);
	free(c->sample_size);
	c->lay = NULL;
	c->sample_size = NULL;
}


static uint64_t u64_at(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}


/* read_format values, as in a SAMPLE's READ field or a READ record. */
static bool read_values(struct pcursor *c, uint64_t rf)
{
	uint64_t nr = 1, per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & 16ULL);

	if ((rf & FORMAT_GROUP) && !pcursor__u64(c, &nr))
		return false;
	if (!(rf & FORMAT_GROUP) && !pcursor__u64(c, NULL))
		return false;
	if (((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) && !pcursor__u64(c, NULL)) ||
	    ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) && !pcursor__u64(c, NULL)))
		return false;
	if (!(rf & FORMAT_GROUP))
		per--; /* the value came first */
	if (per && nr > c->left / 8 / per)
		return false;
	return pcursor__take(c, NULL, nr * per * 8);
}

/* u64 count of @unit-byte entries, then the entries. */
static bool counted(struct pcursor *c, uint64_t unit)
{
	uint64_t nr;

	return pcursor__u64(c, &nr) && nr <= c->left / unit && pcursor__take(c, NULL, nr * unit);
}

static bool regs(struct pcursor *c, uint64_t mask)
{
	uint64_t abi;

	if (!pcursor__u64(c, &abi))
		return false;
	return !abi || pcursor__take(c, NULL, 8ULL * __builtin_popcountll(mask));
}

static bool stack_user(struct pcursor *c)
{
	uint64_t sz, dyn = 0; /* set by pcursor__u64 when it returns true; gcc -O1 cannot see that */

	if (!pcursor__u64(c, &sz))
		return false;
	return !sz || (pcursor__take(c, NULL, sz) && pcursor__u64(c, &dyn) && dyn <= sz);
}

/* RAW: u32 size then the bytes, which the kernel pads to end u64-aligned. */
static bool raw(struct pcursor *c)
{
	uint32_t sz;

	return pcursor__take(c, &sz, 4) && (4 + (uint64_t)sz) % 8 == 0 && pcursor__take(c, NULL, sz);
}

/* branch_stack: nr, hw_idx when the event asked for it, then nr 24-byte entries. */
static bool branches(struct pcursor *c, bool hw_idx)
{
	uint64_t nr;

	if (!pcursor__u64(c, &nr) || (hw_idx && !pcursor__u64(c, NULL)))
		return false;
	return nr <= c->left / 24 && pcursor__take(c, NULL, nr * 24);
}

/* The fields after the fixed u64s, in evsel__parse_sample()'s order, to STACK_USER. */
static bool sample_tail(struct pcursor *c, const struct perf_event_attr *a)
{
	uint64_t st = a->sample_type;

	if ((st & PERF_SAMPLE_READ) && !read_values(c, a->read_format))
		return false;
	if ((st & PERF_SAMPLE_CALLCHAIN) && !counted(c, 8))
		return false;
	if ((st & PERF_SAMPLE_RAW) && !raw(c))
		return false;
	if ((st & PERF_SAMPLE_BRANCH_STACK) && !branches(c, a->branch_sample_type & BRANCH_HW_INDEX))
		return false;
	if ((st & PERF_SAMPLE_REGS_USER) && !regs(c, a->sample_regs_user))
		return false;
	if ((st & PERF_SAMPLE_STACK_USER) && !stack_user(c))
		return false;
	return true;
}

/* The rest, WEIGHT to AUX. */
static bool sample_tail2(struct pcursor *c, const struct perf_event_attr *a)
{
	uint64_t st = a->sample_type;
	uint64_t mid = !!(st & SAMPLE_WEIGHTS) + __builtin_popcountll(st & SAMPLE_MID);

	if (!pcursor__take(c, NULL, 8 * mid))
		return false;
	if ((st & PERF_SAMPLE_REGS_INTR) && !regs(c, a->sample_regs_intr))
		return false;
	if (!pcursor__take(c, NULL, 8ULL * __builtin_popcountll(st & SAMPLE_LATE)))
		return false;
	if ((st & (1ULL << 20)) /* AUX */ && !counted(c, 1))
		return false;
	return true;
}

static int check_sample(const struct pfile_check *c, const unsigned char *rec, size_t size,
			const char **why)
{
	const struct pfile *pf = c->pf;
	const struct pfile_idlayout *l0 = &c->lay[0];
	struct pcursor cur = {rec + 8, size - 8};
	long ev = 0;
	uint64_t id, fixed;

	if (l0->sample_id_off >= 0) {
		if ((size_t)l0->sample_id_off + 8 > size) {
			*why = "sample too short for its id";
			return PFILE_CHECK_BAD;
		}
		id = u64_at(rec + l0->sample_id_off);
		ev = pfile__event_index(pf, id);
		if (ev < 0) {
			*why = "sample id of no event";
			return PFILE_CHECK_UNKNOWN_ID;
		}
	}
	if (c->sample_size[ev] && size < c->sample_size[ev]) {
		*why = "sample does not parse against its sample_type";
		return PFILE_CHECK_BAD;
	}
	if (c->sample_size[ev] && size > c->sample_size[ev]) {
		*why = "sample longer than its sample_type";
		return PFILE_CHECK_BAD;
	}
	if (c->sample_size[ev])
		return PFILE_CHECK_OK;
	fixed = c->lay[ev].sample_type & SAMPLE_FIXED;
	if (!pcursor__take(&cur, NULL, 8ULL * __builtin_popcountll(fixed)) ||
	    !sample_tail(&cur, &pf->events[ev].attr) || !sample_tail2(&cur, &pf->events[ev].attr)) {
		*why = "sample does not parse against its sample_type";
		return PFILE_CHECK_BAD;
	}
	if (cur.left) {
		*why = "sample longer than its sample_type";
		return PFILE_CHECK_BAD;
	}
	return PFILE_CHECK_OK;
}

/* The event of a non-sample kernel record, from its trailer; sets *ev. */
static int trailer_event(const struct pfile_check *c, const unsigned char *rec, size_t size,
			 long *ev, const char **why)
{
	const struct pfile_idlayout *l0 = &c->lay[0];
	uint64_t id;

	*ev = 0;
	if (!l0->sample_id_all || l0->trailer_id_back < 0)
		return PFILE_CHECK_OK;
	if ((size_t)l0->trailer_id_back + 8 > size) {
		*why = "record too short for its sample_id trailer";
		return PFILE_CHECK_BAD;
	}
	id = u64_at(rec + size - l0->trailer_id_back);
	if (!id)
		return PFILE_CHECK_OK; /* perf: the first event (synthesized records) */
	*ev = pfile__event_index(c->pf, id);
	if (*ev < 0) {
		*why = "record id of no event";
		return PFILE_CHECK_UNKNOWN_ID;
	}
	return PFILE_CHECK_OK;
}

/* A kernel record's body (without the trailer) against its type. */
static bool kernel_body(const struct pfile_check *c, long ev, unsigned type,
			const unsigned char *b, size_t len)
{
	const struct kspec *k = &kspec[type];
	struct pcursor cur = {b, len};
	uint16_t old_len, new_len;

	if (len < k->body)
		return false;
	if (k->name)
		return len > k->body && memchr(b + k->body, '\0', len - k->body);
	switch (type) {
	case PERF_RECORD_READ:
		return pcursor__take(&cur, NULL, 8) && read_values(&cur, c->pf->events[ev].attr.read_format) &&
		       !cur.left;
	case PERF_RECORD_NAMESPACES:
		return pcursor__take(&cur, NULL, 8) && counted(&cur, 16) && !cur.left;
	case PERF_RECORD_TEXT_POKE:
		memcpy(&old_len, b + 8, 2);
		memcpy(&new_len, b + 10, 2);
		return len >= 12U + old_len + new_len && len < 12U + old_len + new_len + 8;
	case PERF_RECORD_BPF_EVENT:
		/* the kernel's over-long ones (pfile_idlayout__mend_sideband): 8-byte steps */
		return len >= k->body && !((len - k->body) & 7);
	default:
		return len == k->body;
	}
}

static int check_kernel(const struct pfile_check *c, const unsigned char *rec, size_t size,
			unsigned type, const char **why)
{
	long ev;
	size_t trailer = 0;
	int ret;

	if (type == PERF_RECORD_SAMPLE)
		return check_sample(c, rec, size, why);
	ret = trailer_event(c, rec, size, &ev, why);
	if (ret != PFILE_CHECK_OK)
		return ret;
	if (c->lay[ev].sample_id_all)
		trailer = c->lay[ev].id_hdr_size;
	if (size - 8 < trailer || !kernel_body(c, ev, type, rec + 8, size - 8 - trailer)) {
		*why = "record size does not fit its type and sample_id trailer";
		return PFILE_CHECK_BAD;
	}
	return PFILE_CHECK_OK;
}

/*
 * ID_INDEX: u64 nr, nr x {id, idx, cpu, tid}, optionally nr x {machine_pid,
 * vcpu, ...}. idx is the id's ring (perf's mmap index, a CPU's for per-CPU
 * rings), which perf stores without a bound: only the id must be known.
 */
static bool id_index(const struct pfile *pf, const unsigned char *rec, size_t size)
{
	long nr = pfile_id_index__nr(rec, size);
	struct pfile_id_index_entry e;

	for (long i = 0; i < nr; i++) {
		pfile_id_index__entry(rec, i, &e);
		if (pfile__event_index(pf, e.id) < 0)
			return false;
	}
	return nr >= 0;
}

/* perf_record_cpu_map_data (packed): u16 type, then CPUS, MASK or RANGE. */
static bool cpu_map(const unsigned char *b, size_t len)
{
	uint16_t type, nr, long_size, start, end;

	if (len < 8)
		return false;
	memcpy(&type, b, 2);
	memcpy(&nr, b + 2, 2);
	memcpy(&long_size, b + 4, 2);
	switch (type) {
	case 0:
		return 4U + 2U * nr <= len;
	case 1:
		return (long_size == 4 && 6U + 4U * nr <= len) ||
		       (long_size == 8 && 10U + 8U * nr <= len);
	case 2:
		memcpy(&start, b + 4, 2);
		memcpy(&end, b + 6, 2);
		return start <= end;
	default:
		return false;
	}
}

static bool user_body(const struct pfile *pf, unsigned type, const unsigned char *rec,
		      size_t size)
{
	uint32_t u32;

	switch (type) {
	case PFILE_REC_HEADER_BUILD_ID:
		return size > PFILE_BUILD_ID_REC_SIZE &&
		       memchr(rec + PFILE_BUILD_ID_REC_SIZE, '\0', size - PFILE_BUILD_ID_REC_SIZE);
	case PFILE_REC_FINISHED_ROUND:
	case PFILE_REC_FINISHED_INIT:
		return size == 8;
	case PFILE_REC_ID_INDEX:
		return id_index(pf, rec, size);
	case PFILE_REC_AUXTRACE_INFO:
		if (size < 16)
			return false;
		memcpy(&u32, rec + 8, 4);
		return u32 >= 1 && u32 <= AUXTRACE_TYPE_MAX;
	case PFILE_REC_AUXTRACE:
		return size == AUXTRACE_HDR && u64_at(rec + 8) % 8 == 0;
	case PFILE_REC_AUXTRACE_ERROR:
		return size >= AUXTRACE_ERROR_MIN;
	case PFILE_REC_THREAD_MAP:
		return size >= 16 && u64_at(rec + 8) <= (size - 16) / 24 &&
		       size - 16 == u64_at(rec + 8) * 24;
	case PFILE_REC_CPU_MAP:
		return cpu_map(rec + 8, size - 8);
	case PFILE_REC_STAT_CONFIG:
		return size >= 16 && u64_at(rec + 8) <= (size - 16) / 16 &&
		       size - 16 == u64_at(rec + 8) * 16;
	case PFILE_REC_STAT:
		return size == 48;
	case PFILE_REC_STAT_ROUND:
		return size == 24;
	case PFILE_REC_EVENT_UPDATE:
		return size >= 24 && u64_at(rec + 8) <= 3 && pfile__event_index(pf, u64_at(rec + 16)) >= 0;
	case PFILE_REC_TIME_CONV:
		return size == 32 || size == 56;
	case PFILE_REC_COMPRESSED:
		return size > 8;
	default:
		/* HEADER_ATTR, EVENT_TYPE, TRACING_DATA, HEADER_FEATURE: pipe mode only */
		return false;
	}
}

int pfile_check__record(const struct pfile_check *c, const void *rec, size_t len,
			const char **why)
{
	struct perf_event_header h;
	uint64_t full;

	*why = NULL;
	if (len < sizeof(h)) {
		*why = "record cut short";
		return PFILE_CHECK_BAD;
	}
	memcpy(&h, rec, sizeof(h));
	if (h.size < sizeof(h) || h.size > len || (h.type != PFILE_REC_COMPRESSED && (h.size & 7))) {
		*why = "bad record size";
		return PFILE_CHECK_BAD;
	}
	full = pfile__rec_len(rec); /* reads bytes 8..15 of an AUXTRACE only if h.size >= 16 */
	if (full == UINT64_MAX || full > len) {
		*why = "bad record size";
		return PFILE_CHECK_BAD;
	}
	if (!c->pf->nr_events) {
		*why = "no events";
		return PFILE_CHECK_BAD;
	}
	if (h.type >= 1 && h.type <= KERNEL_TYPE_MAX && kspec[h.type].known)
		return check_kernel(c, rec, h.size, h.type, why);
	if (h.type < PFILE_REC_HEADER_ATTR || h.type >= USER_TYPE_END) {
		*why = "unknown record type";
		return PFILE_CHECK_BAD;
	}
	if (!user_body(c->pf, h.type, rec, h.size)) {
		*why = "record does not parse as its type";
		return PFILE_CHECK_BAD;
	}
	return PFILE_CHECK_OK;
}

/* The SAMPLE's id where the first event's layout puts it; 0 without ids (one event). */
static uint64_t sample_id(const struct pfile_check *c, const unsigned char *rec)
{
	return c->lay[0].sample_id_off >= 0 ? u64_at(rec + c->lay[0].sample_id_off) : 0;
}

int pfile_check__record_memo(const struct pfile_check *c, struct pfile_check_memo *memo,
			     const void *rec, size_t len, const char **why)
{
	struct perf_event_header h = {0};
	long ev = 0;
	int ret;

	if (len >= sizeof(h)) {
		memcpy(&h, rec, sizeof(h));
		if (memo->size && h.type == PERF_RECORD_SAMPLE && h.size == memo->size && h.size <= len &&
		    sample_id(c, rec) == memo->id) {
			*why = NULL;
			return PFILE_CHECK_OK;
		}
	}
	ret = pfile_check__record(c, rec, len, why);
	if (ret != PFILE_CHECK_OK || h.type != PERF_RECORD_SAMPLE)
		return ret;
	/* OK, so the id (if any) is at hand and known. */
	if (c->lay[0].sample_id_off >= 0)
		ev = pfile__event_index(c->pf, sample_id(c, rec));
	if (ev >= 0 && c->sample_size[ev] == h.size)
		*memo = (struct pfile_check_memo){sample_id(c, rec), h.size};
	return ret;
}
