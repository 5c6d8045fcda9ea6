/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfile_feat: feature sets (struct pfile_featset, in pfile_format.h) and the
 * encoders that fill them with each feature's payload (pfile_feat.c).
 */
#ifndef SHARDREC_PFILE_FEAT_H
#define SHARDREC_PFILE_FEAT_H

#include "recorder/perfdata/pfile_format.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/*
 * One program of BPF_PROG_INFO: perf's struct perf_bpil as
 * write_bpf_prog_info() writes it: u32 info_len, u32 data_len, u64 arrays,
 * the bpf_prog_info (info_len bytes) whose array fields hold offsets into
 * the data (bpil_addr_to_offs), then the data (data_len bytes). @len: all
 * of it.
 */
struct pfile_bpf_prog {
	const void *bpil;
	size_t len;
};
/* One BTF object of BPF_BTF: its id and raw data. */
struct pfile_bpf_btf {
	uint32_t id;
	uint32_t size;
	const void *data;
};
/*
 * write_bpf_prog_info() and write_bpf_btf(): each a u32 count, then the
 * programs, then the BTF objects (u32 id, u32 size, the data), in the
 * order given (perf's: ascending program and BTF id). A count of 0 is
 * written alone, as perf 6.1 writes a recording that saw none.
 */
int pfile_feat__bpf(struct pfile_featset *fs, const struct pfile_bpf_prog *progs,
		    size_t nr_progs, const struct pfile_bpf_btf *btfs, size_t nr_btfs);

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

#endif
