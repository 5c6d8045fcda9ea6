/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfile: the perf.data file format (PERFILE2), writing and reading.
 *
 * Dependency rule: POSIX + C11 + <linux/perf_event.h> only, so merge, loss
 * and the fuzzers can link it alone. Definitions follow perf 6.1's
 * tools/perf/util/header.{c,h}; attrs are written at PFILE_ATTR_SIZE (128)
 * because perf 6.1 rejects a larger attr.size.
 *
 * Layout written by shardrec:
 *   [file header, 104 bytes][attrs: N x (attr[128] + {ids offset,size})]
 *   [id arrays][data section ...][feature table][feature payloads]
 */
#ifndef SHARDREC_PFILE_H
#define SHARDREC_PFILE_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * The perf release whose format the files follow. HEADER_VERSION starts
 * with it, since readers parse that field as a perf version and key
 * behaviour on it; the writer's own name and version follow in brackets.
 */
#define PFILE_PERF_VERSION "6.1.0"

#define PFILE_MAGIC 0x32454c4946524550ULL /* "PERFILE2" little endian */
#define PFILE_HEADER_SIZE 104
#define PFILE_ATTR_SIZE 128
#define PFILE_FEAT_BITS 256
#define PFILE_NAME_ALIGN 64 /* header.c NAME_ALIGN for strings */
/* perf's own misc bit (tools/lib/perf event.h, not in the uapi header):
 * a BUILD_ID entry's size byte is valid. */
#define PFILE_MISC_BUILD_ID_SIZE (1 << 15)
/* On-disk struct perf_record_header_build_id: 8 + pid 4 + 24 id bytes. */
#define PFILE_BUILD_ID_REC_SIZE 36
/* Largest AUXTRACE payload the reader accepts. */
#define PFILE_AUXTRACE_MAX (1ULL << 30)

/* Feature bits (header.h enum HEADER_*) */
enum pfile_feat {
	PFILE_FEAT_TRACING_DATA = 1,
	PFILE_FEAT_BUILD_ID = 2,
	PFILE_FEAT_HOSTNAME = 3,
	PFILE_FEAT_OSRELEASE = 4,
	PFILE_FEAT_VERSION = 5,
	PFILE_FEAT_ARCH = 6,
	PFILE_FEAT_NRCPUS = 7,
	PFILE_FEAT_CPUDESC = 8,
	PFILE_FEAT_CPUID = 9,
	PFILE_FEAT_TOTAL_MEM = 10,
	PFILE_FEAT_CMDLINE = 11,
	PFILE_FEAT_EVENT_DESC = 12,
	PFILE_FEAT_CPU_TOPOLOGY = 13,
	PFILE_FEAT_NUMA_TOPOLOGY = 14,
	PFILE_FEAT_BRANCH_STACK = 15,
	PFILE_FEAT_PMU_MAPPINGS = 16,
	PFILE_FEAT_GROUP_DESC = 17,
	PFILE_FEAT_AUXTRACE = 18,
	PFILE_FEAT_STAT = 19,
	PFILE_FEAT_CACHE = 20,
	PFILE_FEAT_SAMPLE_TIME = 21,
	PFILE_FEAT_MEM_TOPOLOGY = 22,
	PFILE_FEAT_CLOCKID = 23,
	PFILE_FEAT_DIR_FORMAT = 24,
	PFILE_FEAT_BPF_PROG_INFO = 25,
	PFILE_FEAT_BPF_BTF = 26,
	PFILE_FEAT_COMPRESSED = 27,
	PFILE_FEAT_CPU_PMU_CAPS = 28,
	PFILE_FEAT_CLOCK_DATA = 29,
	PFILE_FEAT_HYBRID_TOPOLOGY = 30,
	PFILE_FEAT_PMU_CAPS = 31,
};

/* User record types perf 6.1 knows (tools/lib/perf/include/perf/event.h) */
enum pfile_user_type {
	PFILE_REC_HEADER_ATTR = 64,
	PFILE_REC_HEADER_EVENT_TYPE = 65,
	PFILE_REC_HEADER_TRACING_DATA = 66,
	PFILE_REC_HEADER_BUILD_ID = 67,
	PFILE_REC_FINISHED_ROUND = 68,
	PFILE_REC_ID_INDEX = 69,
	PFILE_REC_AUXTRACE_INFO = 70,
	PFILE_REC_AUXTRACE = 71,
	PFILE_REC_AUXTRACE_ERROR = 72,
	PFILE_REC_THREAD_MAP = 73,
	PFILE_REC_CPU_MAP = 74,
	PFILE_REC_STAT_CONFIG = 75,
	PFILE_REC_STAT = 76,
	PFILE_REC_STAT_ROUND = 77,
	PFILE_REC_EVENT_UPDATE = 78,
	PFILE_REC_TIME_CONV = 79,
	PFILE_REC_HEADER_FEATURE = 80,
	PFILE_REC_COMPRESSED = 81,
	PFILE_REC_FINISHED_INIT = 82,
};

struct pfile_section {
	uint64_t offset;
	uint64_t size;
};
/* The on-disk layouts perf 6.1 reads: a change fails the build, not perf. */
_Static_assert(sizeof(struct pfile_section) == 16, "perf_file_section layout");
_Static_assert(sizeof(struct perf_event_header) == 8, "perf_event_header layout");
_Static_assert(PFILE_BUILD_ID_REC_SIZE == sizeof(struct perf_event_header) + sizeof(int32_t) + 24,
	       "perf_record_header_build_id layout");

/* On-disk struct perf_file_header */
struct pfile_header {
	uint64_t magic;
	uint64_t size;
	uint64_t attr_size;
	struct pfile_section attrs;
	struct pfile_section data;
	struct pfile_section event_types;
	uint64_t features[PFILE_FEAT_BITS / 64];
};
_Static_assert(sizeof(struct pfile_header) == PFILE_HEADER_SIZE, "perf_file_header layout");
_Static_assert(offsetof(struct pfile_header, attrs) == 24, "perf_file_header: attrs");
_Static_assert(offsetof(struct pfile_header, data) == 40, "perf_file_header: data");
_Static_assert(offsetof(struct pfile_header, features) == 72, "perf_file_header: features");

/* perf's struct id_index_entry: a sample id, its ring's index, CPU and thread. */
struct pfile_id_index_entry {
	uint64_t id, idx, cpu, tid;
};
_Static_assert(sizeof(struct pfile_id_index_entry) == 32, "id_index_entry layout");

/*
 * An ID_INDEX record @rec of @size bytes (header included): u64 nr, nr
 * entries, then optionally nr x {machine_pid, vcpu} (perf's
 * id_index_entry_2). Its number of entries, -1 when the size fits neither.
 */
static inline long pfile_id_index__nr(const void *rec, size_t size)
{
	const size_t ent = sizeof(struct pfile_id_index_entry), ent2 = ent + 16;
	uint64_t nr;

	if (size < 16)
		return -1;
	memcpy(&nr, (const char *)rec + 8, sizeof(nr));
	if (nr > (size - 16) / ent || (size - 16 != nr * ent && size - 16 != nr * ent2))
		return -1;
	return (long)nr;
}

/* Entry @i (below pfile_id_index__nr) of the ID_INDEX record @rec; copied, records need not be aligned. */
static inline void pfile_id_index__entry(const void *rec, uint64_t i,
					 struct pfile_id_index_entry *e)
{
	memcpy(e, (const char *)rec + 16 + i * sizeof(*e), sizeof(*e));
}

/* One event (evsel) of a file: its attr, display name and sample ids. */
struct pfile_event {
	struct perf_event_attr attr;
	char *name;    /* owned by whoever built the array */
	uint64_t *ids; /* owned likewise */
	uint32_t nr_ids;
};

/* Feature payloads, keyed by feature bit. Owns every blob. */
struct pfile_featset {
	struct {
		void *data;
		size_t size;
	} sec[PFILE_FEAT_BITS];
};

/* ---- feature sets ---- */

/* Copies @size bytes as the payload of @feat (replacing any). 0 / -errno */
int pfile_featset__set(struct pfile_featset *fs, int feat, const void *data, size_t size);
/* True if @feat has a payload */
bool pfile_featset__has(const struct pfile_featset *fs, int feat);
void pfile_featset__unset(struct pfile_featset *fs, int feat);
/* Frees every blob; @fs may be reused afterwards (all empty). */
void pfile_featset__release(struct pfile_featset *fs);

/*
 * Encoders: build a feature payload exactly as perf 6.1's write_*() in
 * header.c would, and store it in @fs. All return 0 / -errno.
 */
int pfile_feat__string(struct pfile_featset *fs, int feat, const char *s); /* HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID */
int pfile_feat__nrcpus(struct pfile_featset *fs, uint32_t nr_avail, uint32_t nr_online);
int pfile_feat__total_mem(struct pfile_featset *fs, uint64_t kb);
int pfile_feat__cmdline(struct pfile_featset *fs, int argc, char *const argv[]);
/* Adds @arg as CMDLINE's last word; a missing or malformed CMDLINE becomes @arg alone. */
int pfile_feat__cmdline_append(struct pfile_featset *fs, const char *arg);
int pfile_feat__event_desc(struct pfile_featset *fs, const struct pfile_event *ev, size_t nr);
int pfile_feat__sample_time(struct pfile_featset *fs, uint64_t first, uint64_t last);
int pfile_feat__clockid(struct pfile_featset *fs, uint64_t res_ns);
/* CLOCK_DATA: version 1, clockid, tod_ns and clockid_ns read at the same moment */
int pfile_feat__clock_data(struct pfile_featset *fs, uint32_t clockid, uint64_t tod_ns,
			   uint64_t clockid_ns);
int pfile_feat__compressed(struct pfile_featset *fs, uint32_t level, uint32_t ratio,
			   uint32_t mmap_len);

/* GROUP_DESC input: one group of more than one event, as write_group_desc() lists it. */
struct pfile_group {
	const char *name;    /* NULL: perf's "{anon_group}" */
	uint32_t leader_idx; /* the leader's index in the attr section */
	uint32_t nr_members; /* the leader included */
};
/* u32 nr_groups, then {string name, u32 leader_idx, u32 nr_members} per group. */
int pfile_feat__group_desc(struct pfile_featset *fs, const struct pfile_group *g, size_t nr);

/* CPU_TOPOLOGY input: per-CPU ids indexed by CPU number (0..nr_cpus_avail-1,
 * -1 where offline) and the sibling lists as perf's strings ("0-3,8"). */
struct pfile_cpu_topo {
	uint32_t nr_cores, nr_threads, nr_dies;
	char **core_siblings;   /* nr_cores strings */
	char **thread_siblings; /* nr_threads strings */
	char **die_siblings;    /* nr_dies strings */
	uint32_t nr_cpus_avail;
	int32_t *core_id, *socket_id, *die_id; /* nr_cpus_avail each */
};
int pfile_feat__cpu_topology(struct pfile_featset *fs, const struct pfile_cpu_topo *t);

struct pfile_numa_node {
	uint32_t node;
	uint64_t mem_total_kb, mem_free_kb;
	const char *cpus; /* cpu list string, e.g. "0-15" */
};
int pfile_feat__numa_topology(struct pfile_featset *fs, const struct pfile_numa_node *n,
			      size_t nr);

/* PMU_MAPPINGS input: one event source as perf_pmu__scan() lists it. */
struct pfile_pmu {
	uint32_t type;	  /* its sysfs "type" file */
	const char *name; /* its directory name under bus/event_source/devices */
};
/* Entries in the order given: perf writes its PMU list order, not a sorted one. */
int pfile_feat__pmu_mappings(struct pfile_featset *fs, const struct pfile_pmu *p, size_t nr);

/* CACHE input: one cpu_cache_level, strings already trimmed as perf's strim() does. */
struct pfile_cache {
	uint32_t level, line_size, sets, ways;
	const char *type; /* "Data", "Instruction", "Unified" */
	const char *size; /* "48K" */
	const char *map;  /* shared_cpu_list, e.g. "0-1" */
};
/* Version 1, entries in the order given: the caller dedups and sorts as write_cache(). */
int pfile_feat__cache(struct pfile_featset *fs, const struct pfile_cache *c, size_t nr);

/* MEM_TOPOLOGY input: one node as header.c memory_node__read() finds it. */
struct pfile_mem_node {
	uint64_t node;
	uint64_t nr_bits;     /* highest memoryN index + 1: the bitmap's size */
	const uint64_t *bits; /* (nr_bits + 63) / 64 words; bit N set = memoryN */
};
/*
 * write_mem_topology(): u64 version 1, u64 @block_size, u64 count, then per
 * node u64 node, u64 nr_bits and the bitmap as do_write_bitmap() writes it
 * (u64 nr_bits again, then the words). Nodes in the order given (perf's is
 * ascending node number).
 */
int pfile_feat__mem_topology(struct pfile_featset *fs, uint64_t block_size,
			     const struct pfile_mem_node *n, size_t nr);

/* BPF_PROG_INFO and BPF_BTF of a recording that saw no BPF program or BTF:
 * each write_bpf_*()'s u32 count, 0, and nothing after it. */
int pfile_feat__bpf_none(struct pfile_featset *fs);

/* One capability: a file under a PMU's caps/ directory and its value. */
struct pfile_pmu_cap {
	const char *name;
	const char *value;
};
/* One PMU's capabilities, in the order perf_pmu__caps_parse() lists them. */
struct pfile_pmu_caps {
	const char *pmu;
	const struct pfile_pmu_cap *caps;
	uint32_t nr_caps;
};
/*
 * CPU_PMU_CAPS, write_cpu_pmu_caps(): the "cpu" PMU's u32 nr_caps, then
 * {string name, string value} per capability.
 */
int pfile_feat__cpu_pmu_caps(struct pfile_featset *fs, const struct pfile_pmu_caps *cpu);
/*
 * PMU_CAPS, write_pmu_caps(): u32 count, then per PMU u32 nr_caps, the
 * {string name, string value} pairs and string pmu name; PMUs in the order
 * given.
 */
int pfile_feat__pmu_caps(struct pfile_featset *fs, const struct pfile_pmu_caps *p, size_t nr);

struct pfile_build_id {
	uint8_t id[20];
	uint8_t size;     /* bytes of id used (20 for sha1) */
	bool kernel;      /* misc PERF_RECORD_MISC_KERNEL, else USER */
	const char *path; /* DSO path, "[kernel.kallsyms]" for the kernel */
};
int pfile_feat__build_ids(struct pfile_featset *fs, const struct pfile_build_id *b, size_t nr);

/* ---- writing ---- */

/*
 * Writes the attr section at @offset: N entries of (attr at PFILE_ATTR_SIZE,
 * ids section), followed by the id arrays. Sets @attrs to the attr entries'
 * section and *@end to the first byte after everything written.
 * 0 / -errno.
 */
int pfile__write_attrs(int fd, uint64_t offset, const struct pfile_event *ev, size_t nr,
		       struct pfile_section *attrs, uint64_t *end);

/*
 * Writes the feature table at @offset (one {offset,size} per set feature,
 * ascending bit order) then the payloads; fills @features (the header's
 * bitmap) and *@end. 0 / -errno.
 */
int pfile__write_features(int fd, uint64_t offset, const struct pfile_featset *fs,
			  uint64_t features[PFILE_FEAT_BITS / 64], uint64_t *end);

/*
 * The one read-everything loop: exactly @len bytes at @off, EINTR retried.
 * 0, -errno, or -EINVAL at end of file (or an offset past INT64_MAX).
 */
int pfile__pread_full(int fd, void *buf, size_t len, uint64_t off);
/*
 * pwrite()s all @len bytes at @off, retrying EINTR and short writes.
 * 0 / -errno (-ENOSPC when a write makes no progress, -EFBIG past the
 * largest offset). Every writer of perf.data, shard side files included.
 * @off PFILE_STREAM: write()s at the fd's position instead, for an output
 * that cannot seek (perf's pipe format); -EPIPE when its reader is gone
 * (SIGPIPE ignored).
 */
#define PFILE_STREAM UINT64_MAX
int pfile__pwrite_full(int fd, const void *buf, size_t len, uint64_t off);

/* @attr at PFILE_ATTR_SIZE bytes into @dst, attr.size set to it. */
void pfile_attr__fill(void *dst, const struct perf_event_attr *attr);

/* Writes the 104-byte file header at offset 0. 0 / -errno. */
int pfile__write_header(int fd, const struct pfile_header *h);

/* Fills a header's constant fields (magic, size, attr_size). */
void pfile_header__init(struct pfile_header *h);

/* ---- reading ---- */

/* One sample id of an opened file and the index of its event. */
struct pfile_id_ent {
	uint64_t id;
	size_t ev;
};

/* An opened perf.data. All members owned by it; fd kept open. */
struct pfile {
	int fd;
	uint64_t file_size;
	struct pfile_header hdr;
	struct pfile_event *events;
	size_t nr_events;
	struct pfile_featset feats;
	/*
	 * Open addressing, a power of two at least twice the ids, empty slots
	 * with ev SIZE_MAX: pfile__event_by_id runs for every record a merge
	 * checks and counts, where a binary search over thousands of ids
	 * (one per event and CPU) cost more than the rest of the check.
	 */
	struct pfile_id_ent *id_hash;
	size_t id_hash_mask;
};

/*
 * Opens an input read-only (relative to @dirfd, or AT_FDCWD): never blocks
 * on a FIFO or a device, and with PFILE_IN_NOFOLLOW (the shard directory's
 * own names) never goes through a symlink. A regular file's fd, or -errno;
 * -ENODEV for anything else, which pfile__strerror() says as "not a
 * regular file".
 */
#define PFILE_IN_NOFOLLOW 1
int pfile__open_input(int dirfd, const char *path, int flags);
/* strerror() for pfile__open_input()'s codes. */
const char *pfile__strerror(int ret);
/*
 * Opens and validates @path: magic, header size, attr_size (64..4096,
 * 8-aligned), sections inside the file, ids arrays, feature table. On error
 * returns -errno (EINVAL for malformed, ENOEXEC for a file of the other
 * byte order) and writes one line to @err.
 * A data.size of 0 with data after data.offset is reported as -ENODATA
 * (a killed recorder; see merge --recover).
 */
int pfile__open(struct pfile *pf, const char *path, char *err, size_t errlen);
/* pfile__open() of @name in @dirfd (pfile__open_input's @flags); @path names it in @err. */
int pfile__openat(struct pfile *pf, int dirfd, const char *name, int flags, const char *path,
		  char *err, size_t errlen);
void pfile__close(struct pfile *pf);

/* @id's first slot in pf->id_hash. Kernel ids are consecutive: a multiplicative hash spreads them. */
static inline size_t pfile__id_slot(uint64_t id, size_t mask)
{
	return (size_t)((id * 0x9e3779b97f4a7c15ULL) >> 32) & mask;
}

/* The index of the event whose ids contain @id, or -1. Inline: the merge asks for every record. */
static inline long pfile__event_index(const struct pfile *pf, uint64_t id)
{
	size_t i;

	if (!pf->id_hash)
		return -1;
	for (i = pfile__id_slot(id, pf->id_hash_mask); pf->id_hash[i].ev != SIZE_MAX;
	     i = (i + 1) & pf->id_hash_mask)
		if (pf->id_hash[i].id == id)
			return pf->id_hash[i].ev;
	return -1;
}

/* Returns the event whose ids contain @id, or NULL. */
static inline const struct pfile_event *pfile__event_by_id(const struct pfile *pf, uint64_t id)
{
	long ev = pfile__event_index(pf, id);

	return ev < 0 ? NULL : &pf->events[ev];
}

/*
 * Sequential record reader over [start, start+len) of an fd, buffered.
 * Validates each header (size >= 8, 8-aligned... perf requires size >= 8 and
 * within range); AUXTRACE payloads are returned as part of the record
 * (rec_len covers header.size + payload).
 */
struct pfile_reader {
	int fd;
	uint64_t start, end, pos; /* file offsets */
	unsigned char *buf;
	size_t buf_cap, buf_len;
	uint64_t buf_off; /* file offset of buf[0] */
};

/* 0 / -errno. @bufsize 0 = default (1 MiB). */
int pfile_reader__init(struct pfile_reader *r, int fd, uint64_t start, uint64_t len,
		       size_t bufsize);
void pfile_reader__release(struct pfile_reader *r);
/*
 * Next record: 1 and *rec (valid until the next call), *rec_len (bytes the
 * record occupies in the file), *file_off; 0 at the end; -EINVAL on a
 * malformed or truncated record (r->pos is then its offset).
 */
int pfile_reader__next(struct pfile_reader *r, const struct perf_event_header **rec,
		       size_t *rec_len, uint64_t *file_off);

/* ---- record contents (pfile_sample.c) ---- */

/* How sample ids and times are laid out for a given sample_type. */
struct pfile_idlayout {
	uint64_t sample_type;
	bool sample_id_all;
	int sample_time_off;    /* byte offset of time in a SAMPLE, -1 if none */
	int sample_id_off;      /* byte offset of IDENTIFIER/ID in a SAMPLE, -1 */
	int trailer_time_back;  /* bytes from record end to the trailer time, -1 */
	int trailer_id_back;    /* bytes from record end to the trailer id, -1 */
	int sample_cpu_off;     /* byte offset of CPU in a SAMPLE, -1 */
	int sample_tid_off;     /* byte offset of pid/tid in a SAMPLE, -1 */
	int sample_ip_off;      /* byte offset of IP in a SAMPLE, -1 */
	int sample_id2_off;     /* ID when IDENTIFIER is there too, -1 */
	int sample_stream_off;  /* STREAM_ID in a SAMPLE, -1 */
	size_t id_hdr_size;     /* size of the sample_id trailer */
};

void pfile_idlayout__init(struct pfile_idlayout *l, uint64_t sample_type, bool sample_id_all);

/*
 * The field at @sample_off of a SAMPLE, or @trailer_back bytes before the
 * end of another kernel record. Inline with the two below: the merge reads
 * a time and an id from every record it writes.
 */
static inline bool pfile_idlayout__field(const struct pfile_idlayout *l,
					 const struct perf_event_header *h, int sample_off,
					 int trailer_back, uint64_t *v)
{
	struct perf_event_header hd;
	int off = sample_off;

	/* A copy: AUXTRACE payloads and COMPRESSED records leave records unaligned. */
	memcpy(&hd, h, sizeof(hd));
	if (hd.type >= PFILE_REC_HEADER_ATTR) /* perf's user records carry neither */
		return false;
	if (hd.type != PERF_RECORD_SAMPLE) {
		if (!l->sample_id_all || trailer_back < 0 || (size_t)trailer_back + 8 > hd.size)
			return false;
		off = hd.size - trailer_back;
	}
	if (off < 0 || (size_t)off + 8 > hd.size)
		return false;
	memcpy(v, (const char *)h + off, 8);
	return true;
}

/* Timestamp of a kernel record; false for user types and records without one. */
static inline bool pfile_idlayout__time(const struct pfile_idlayout *l,
					const struct perf_event_header *h, uint64_t *time)
{
	return pfile_idlayout__field(l, h, l->sample_time_off, l->trailer_time_back, time);
}

/* Sample id (IDENTIFIER or ID) of a kernel record; false if none. */
static inline bool pfile_idlayout__id(const struct pfile_idlayout *l,
				      const struct perf_event_header *h, uint64_t *id)
{
	return pfile_idlayout__field(l, h, l->sample_id_off, l->trailer_id_back, id);
}

/*
 * Sets every id field of SAMPLE @rec (IDENTIFIER, ID, STREAM_ID: the
 * kernel writes the same id in each) to @id; @rec holds the whole record.
 */
void pfile_idlayout__set_sample_id(const struct pfile_idlayout *l, void *rec, uint64_t id);
/*
 * Writes the sample_id trailer for a synthesized record (perf's
 * perf_event__synthesize_id_sample): fields in sample_type order, @time,
 * @id, @cpu, pid/tid. Returns bytes written (= l->id_hdr_size).
 */
size_t pfile_idlayout__write_trailer(const struct pfile_idlayout *l, void *dst, uint32_t pid,
				     uint32_t tid, uint64_t time, uint64_t id, uint32_t cpu);

/*
 * Bytes a record occupies in a stream: header.size, plus for AUXTRACE the
 * trace payload that follows its 48-byte header (header.size does not count
 * it). UINT64_MAX for an AUXTRACE too short to hold its size or with a
 * payload above PFILE_AUXTRACE_MAX. Reads 16 bytes at @hp only for AUXTRACE
 * with header.size >= 16: callers check header.size fits first.
 */
static inline uint64_t pfile__rec_len(const struct perf_event_header *hp)
{
	struct perf_event_header h;
	uint64_t payload;

	/* Copied: records after a COMPRESSED one (unpadded size) need not be aligned. */
	memcpy(&h, hp, sizeof(h));
	if (h.type != PFILE_REC_AUXTRACE)
		return h.size;
	if (h.size < sizeof(h) + sizeof(payload))
		return UINT64_MAX;
	memcpy(&payload, (const char *)hp + sizeof(h), sizeof(payload));
	return payload > PFILE_AUXTRACE_MAX ? UINT64_MAX : h.size + payload;
}

/*
 * Walks the records of a stream: returns the bytes of whole records at its
 * start. *@status is 0 when all @len bytes are whole records, 1 when the last
 * record runs past @len (a cut stream), -1 on a malformed record at the
 * returned offset (size < 8, or with @aligned a size that is not a multiple
 * of 8: kernel records are, COMPRESSED ones are not).
 */
size_t pfile__walk_records(const void *buf, size_t len, bool aligned, int *status);

/* ---- validation: what perf 6.1 accepts (pfile_check.c, pfile_check_feat.c) ---- */

/*
 * Record checks against one file's events: a layout per event, built once.
 * Rules follow perf 6.1's reader (session.c perf_session__process_event,
 * evsel.c evsel__parse_sample, the user-record handlers), stricter where
 * perf trusts the writer: a record perf would misread is refused too.
 */
struct pfile_check {
	const struct pfile *pf;
	struct pfile_idlayout *lay; /* one per event of @pf */
	/* per event: the one size its SAMPLEs have, 0 when they vary (callchains, ...) */
	uint32_t *sample_size;
};

/* 0 / -ENOMEM. @pf must outlive @c. */
int pfile_check__init(struct pfile_check *c, const struct pfile *pf);
void pfile_check__release(struct pfile_check *c);

#define PFILE_CHECK_OK 0
#define PFILE_CHECK_BAD 1        /* perf rejects or misreads it */
#define PFILE_CHECK_UNKNOWN_ID 2 /* well formed, but its sample id is no event's */

/*
 * Checks one record at @rec (any alignment) of which @len bytes are at hand
 * (its pfile__rec_len at least): size >= 8 and, COMPRESSED aside, 8-aligned;
 * a type perf 6.1 knows (kernel 1..21, user 64..82) and that belongs in a
 * perf.data file (not the pipe-mode TRACING_DATA, HEADER_FEATURE); the exact
 * size of fixed-size types and NUL-terminated names; a SAMPLE parsed field
 * by field against its event's sample_type, read_format and register masks,
 * ending exactly at header.size; other kernel records' sample_id trailer;
 * ids of samples, trailers, ID_INDEX and EVENT_UPDATE known. Returns a
 * PFILE_CHECK_* code; *@why, when not OK, is a static phrase.
 */
int pfile_check__record(const struct pfile_check *c, const void *rec, size_t len,
			const char **why);

/*
 * The last SAMPLE pfile_check__record_memo passed whole on its size (its
 * event has no variable field): size 0 for none yet. Zero it to start.
 */
struct pfile_check_memo {
	uint64_t id;
	uint32_t size;
};

/*
 * pfile_check__record, but a SAMPLE of the size and id of the one in @memo
 * is OK at once: for fixed-size samples those two are all the check reads,
 * so the verdict is the same, for a few instructions instead of the parse
 * (the merge checks every record; a ring's run repeats one event and id).
 */
int pfile_check__record_memo(const struct pfile_check *c, struct pfile_check_memo *memo,
			     const void *rec, size_t len, const char **why);

/*
 * The events as perf 6.1's session open wants them (evlist__valid_*): at
 * least one, one sample_id_all, one id position when more than one, known
 * sample_type bits, PERF_SAMPLE_READ with PERF_FORMAT_ID, and TRACING_DATA
 * holding every tracepoint event's format. true, or false with *@why.
 */
bool pfile_check__events(const struct pfile *pf, const char **why);

/*
 * Feature @feat's payload, parsed as perf 6.1's process_*() reads it (with
 * every count, length and string inside the section; CPU_TOPOLOGY sized by
 * @pf's NRCPUS). Features perf has no parser for must be empty or absent;
 * DIR_FORMAT does not belong in a single file. true, or false with *@why.
 */
bool pfile_check__feature(const struct pfile *pf, int feat, const void *data, size_t size,
			  const char **why);

#endif
