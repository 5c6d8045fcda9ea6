/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfile_format: the perf.data file format (PERFILE2) as perf 6.1 reads it:
 * constants, feature bits, user record types, the on-disk header, and the
 * in-memory event and feature set that the reader (pfile.h) and the writers
 * (pfile_write.h, pfile_feat.h, pfile_pipe.h) share.
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
#ifndef SHARDREC_PFILE_FORMAT_H
#define SHARDREC_PFILE_FORMAT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* One event (evsel) of a file: its attr, display name and sample ids. */
struct pfile_event {
	struct perf_event_attr attr;
	char *name;    /* owned by whoever built the array */
	uint64_t *ids; /* owned likewise */
	uint32_t nr_ids;
};

/*
 * perf's tracking event (-a, -C, -D): dummy:HG never samples, it only
 * carries the side band. The merge and the bench look past it for the
 * events that sample.
 */
static inline bool pfile_attr__is_dummy(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_DUMMY;
}

/* Feature payloads, keyed by feature bit. Owns every blob. */
struct pfile_featset {
	struct {
		void *data;
		size_t size;
	} sec[PFILE_FEAT_BITS];
};

#endif
