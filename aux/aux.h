/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aux/: AUX area tracing (Intel PT, Intel BTS, CoreSight ETM/ETE, ARM SPE,
 * any PMU with an AUX area). Public header of the folder. Plugs into
 * ringbuf/; never includes recorder/.
 *
 * An AUX area is the second mapping of a ring's event fd, at the offset the
 * reader stores in pc->aux_offset; its head and tail live in the ring's own
 * control page (aux_head, aux_tail). Reading mirrors the data ring: acquire
 * aux_head, take [tail, head) as at most two iovecs behind a
 * PERF_RECORD_AUXTRACE header (kept in struct aux_ring, so the span goes
 * straight into the writer's pwritev), then release aux_tail
 * (ringbuf/ring_order.h has the pairing). The writer of the ring's CPU owns
 * its AUX area like it owns the ring.
 *
 * Overwrite (snapshot) mode: the area is mapped read-only, so the kernel
 * never waits for aux_tail and keeps overwriting. A snapshot request makes
 * the next read take the newest bytes (at most snap_size) through a bounce
 * copy, with the event disabled meanwhile as perf does; the head is checked
 * again after the copy and bytes that may have been overwritten during it
 * are dropped and counted, never written. Drivers disagree on what
 * aux_head means in this mode (Intel PT: an offset inside the area;
 * CoreSight: a growing count): aux_ring.c reads it either way.
 *
 * Longer than most public headers (~210 lines): one object, struct
 * aux_ring, whose calls (map, read, snapshot, the PMU's info record) no
 * caller uses apart, and this contract.
 */
#ifndef SHARDREC_AUX_H
#define SHARDREC_AUX_H

#include "ringbuf/ringbuf.h"

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define AUX_REC_AUXTRACE 71      /* PERF_RECORD_AUXTRACE (perf user type) */
#define AUX_REC_AUXTRACE_INFO 70 /* PERF_RECORD_AUXTRACE_INFO */

/* On-disk struct perf_record_auxtrace (tools/lib/perf/include/perf/event.h): 48 bytes. */
struct aux_auxtrace {
	struct perf_event_header header; /* size 48: the trace bytes that follow are not counted */
	uint64_t size;      /* trace bytes that follow, padded to 8 */
	uint64_t offset;    /* position of the first byte in the AUX stream (aux_head units) */
	uint64_t reference;
	uint32_t idx;       /* mmap index: perf's auxtrace queue number */
	uint32_t tid;       /* -1 for per-CPU areas */
	uint32_t cpu;
	uint32_t reserved;
};

struct aux_ring {
	struct perf_event_mmap_page *pc; /* the data ring's control page */
	unsigned char *data;             /* AUX area */
	uint64_t size, mask;             /* bytes, power of two */
	void *base;                      /* mapping, NULL on caller memory */
	size_t map_len;
	bool overwrite;                  /* snapshot mode: the kernel ignores aux_tail */
	int fd;                          /* AUX event fd, -1 on caller memory (not owned) */
	uint32_t idx;
	int32_t tid, cpu;
	uint64_t tail;     /* our aux_tail; in overwrite mode the stream end of the last snapshot */
	/* The span in flight between read_init and read_done. */
	uint64_t head;
	struct aux_auxtrace rec;
	uint64_t pad;      /* zero bytes padding the trace to 8 */
	struct iovec iov[4];
	int nr_iov;
	size_t rec_len;
	/* Overwrite mode. */
	unsigned char *bounce; /* size + 16 bytes */
	uint64_t snap_size;    /* bytes per snapshot, at most size */
	/*
	 * Bytes past the published head a producer may be writing unannounced:
	 * 0 when the event is disabled around the copy (fd >= 0); simulations
	 * without that set their largest write.
	 */
	uint64_t guard;
	uint64_t snap_req;     /* requests made (atomic: any thread) */
	uint64_t snap_done;    /* requests served, all pending ones at once (reader only) */
	uint64_t last_raw;     /* aux_head as read at the last snapshot */
	bool monotonic;        /* aux_head seen at or past the size: a count, not an offset */
	bool wrapped;          /* the area has gone round (aux_ring__wrapped) */
	/* Totals, reader thread only. */
	uint64_t bytes;    /* trace bytes written out */
	uint64_t records;  /* AUXTRACE records */
	uint64_t lost;     /* overwrite: bytes overwritten before they could be taken */
};

/*
 * Maps the AUX area of @r's event fd: @pages (power of two) pages right
 * after the data ring, writable unless @overwrite, as perf's
 * auxtrace_mmap__mmap: aux_offset/aux_size go into the control page first.
 * idx = 0, tid = -1, cpu = r->cpu. 0 / -errno (EOPNOTSUPP: the fd's PMU has
 * no AUX area).
 */
int aux_ring__mmap(struct aux_ring *a, struct ring *r, size_t pages, bool overwrite);
/* Unmaps and frees; safe on a zeroed or unmapped aux_ring. */
void aux_ring__munmap(struct aux_ring *a);
/*
 * An AUX area on caller memory (tests, simulations): @pc holds aux_head and
 * aux_tail, @data @size bytes (power of two). 0 / -EINVAL / -ENOMEM.
 */
int aux_ring__init_mem(struct aux_ring *a, struct perf_event_mmap_page *pc, void *data,
		       uint64_t size, bool overwrite);

/*
 * Takes what the AUX area holds: fills a->iov[0..nr_iov) with an AUXTRACE
 * record (header, trace bytes, padding). Returns the record's length, 0
 * when there is nothing to take (overwrite mode: no snapshot pending), or
 * -EIO when aux_head ran more than the area's size past aux_tail.
 */
long aux_ring__read_init(struct aux_ring *a);
/* The span is written: release aux_tail (non-overwrite) and count it. */
void aux_ring__read_done(struct aux_ring *a);
/* Overwrite mode: asks the reader to take a snapshot on its next pass. Any thread. */
void aux_ring__request_snapshot(struct aux_ring *a);
/* Bytes readable now (non-overwrite), without taking a span. */
uint64_t aux_ring__pending(const struct aux_ring *a);

/* ---- AUX-capable PMUs (aux_pmu.c) ---- */

/* perf's enum auxtrace_type: the type field of AUXTRACE_INFO. */
enum aux_type {
	AUX_TYPE_UNKNOWN = 0,
	AUX_TYPE_INTEL_PT = 1,
	AUX_TYPE_INTEL_BTS = 2,
	AUX_TYPE_CS_ETM = 3,
	AUX_TYPE_ARM_SPE = 4,
	AUX_TYPE_S390_CPUMSF = 5,
};

/*
 * True if PMU @name (under @sysfs_root, NULL = real /sys) produces AUX
 * data: a known AUX PMU name (intel_pt, intel_bts, cs_etm, arm_spe*, ...) or
 * one whose sysfs lists address filters (nr_addr_filters > 0), which only
 * AUX PMUs offer.
 */
bool aux_pmu__is_aux(const char *sysfs_root, const char *name);
/* perf's AUXTRACE_INFO type for PMU @name (AUX_TYPE_UNKNOWN if perf has none). */
enum aux_type aux_pmu__type(const char *name);
/*
 * Reads @file under the PMU's sysfs directory (devices/@pmu/, @sysfs_root
 * NULL = real /sys): a decimal number, or a hex register ("0x28c1c1eb", as
 * CoreSight's cpuN/trcidr/ files). 0, -ENOENT if it cannot be read (absent),
 * -EINVAL if it does not parse.
 */
int aux_pmu__read_u64(const char *sysfs_root, const char *pmu, const char *file, uint64_t *v);
int aux_pmu__read_hex(const char *sysfs_root, const char *pmu, const char *file, uint32_t *v);
/*
 * A format/ term's bits in attr.config ("config:10", "config:14-17"); 0 if
 * the term is absent or lives in config1/config2 (perf's
 * perf_pmu__format_bits looks at config alone here).
 */
uint64_t aux_pmu__format_mask(const char *sysfs_root, const char *pmu, const char *term);

/* ---- the AUX event's attr (aux_attr.c) ---- */

/*
 * The config an event of PMU @pmu starts from before its terms, and
 * whether it has one (perf 6.1's pmu->default_config; then a term given 0
 * clears its bits, perf's pmu_format_value with zero). Intel PT:
 * "tsc,mtc,mtc_period=N,psb_period=N,pt,branch" as intel_pt_default_config
 * builds it from the PMU's caps/ and format/, so that the trace carries
 * timestamps (without tsc, perf cannot place it among the sideband); ARM
 * SPE: ts_enable, as arm_spe_recording_options sets it per CPU.
 */
bool aux_attr__default_config(const char *sysfs_root, const char *pmu, uint64_t *config);

struct aux_attr_params {
	const char *sysfs_root; /* NULL = real /sys */
	const char *pmu;
	const int *cpus;        /* CPUs it opens on (CoreSight checks each tracer) */
	size_t nr_cpus;
};

/*
 * Sets what perf 6.1's *_recording_options set on the AUX event itself:
 * no frequency and a period of 1 (ARM SPE: its caps/min_interval, else
 * 4096); Intel PT: exclude_guest when KVM passes PT to guests (pt_mode 1);
 * CoreSight: context-ID and timestamp tracing (ETM_OPT_CTXTID or the
 * format's contextid bit, ETM_OPT_TS), checked against each ETMv4 CPU's
 * TRCIDR2/TRCIDR0. 0, or -EOPNOTSUPP / -errno with one line in @err.
 */
int aux_attr__config(const struct aux_attr_params *p, struct perf_event_attr *a, char *err,
		     size_t errlen);

/* ---- PERF_RECORD_AUXTRACE_INFO (aux_info.c) ---- */

struct aux_info_params {
	const char *sysfs_root;  /* NULL = real /sys */
	const char *pmu;         /* PMU name */
	uint32_t pmu_type;       /* its perf_event_attr.type */
	const struct perf_event_mmap_page *pc; /* a control page for time conversion, or NULL */
	bool snapshot;           /* -S */
	bool per_cpu;            /* per-CPU AUX areas (not per-thread) */
	/* Intel PT: 0, 1 sched_switch tracepoint, 2 PERF_RECORD_SWITCH, 3 its CPU-wide form */
	int have_sched_switch;
	const char *filter;      /* address filter string, or NULL */
	/* cs_etm only (perf's cs_etm_info_fill). */
	uint64_t config;         /* the AUX event's attr.config, as passed to perf_event_open */
	const int *cpus;         /* CPUs the AUX event is opened on (any order) */
	size_t nr_cpus;
};

/*
 * Builds PERF_RECORD_AUXTRACE_INFO into @buf (@cap bytes): Intel PT's
 * private layout (perf's intel_pt_info_fill: time conversion from @p->pc,
 * format bits and max_nonturbo_ratio from sysfs, TSC/CTC ratio from CPUID
 * 0x15), Intel BTS's and ARM SPE's; CoreSight's (perf 6.1's
 * cs_etm_info_fill: header version 1, then one ETMv3/ETMv4/ETE block per
 * CPU of @p->cpus, ascending, with @p->config remapped and the ID registers
 * read from sysfs cs_etm/cpuN/); for s390 cpumsf the generic {pmu type,
 * per_cpu}. Returns the record's size, -ENOSPC if @cap (or the record's
 * 64 KiB limit: about 740 CPUs for ETE) is too small, -ENOENT (or another
 * -errno) when a CPU's cs_etm registers are not in sysfs, -EINVAL for a
 * negative CPU number or none, -ENOMEM, -EOPNOTSUPP for a PMU perf has no AUXTRACE
 * type for (perf 6.1 refuses such a file outright).
 */
long aux_info__build(const struct aux_info_params *p, void *buf, size_t cap);

#endif
