/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `shardrec record` options, named after perf record's wherever perf has
 * one. Longer than most public headers (~180 lines): one field per
 * option, each with what it means.
 */
#ifndef SHARDREC_RECORD_OPTS_H
#define SHARDREC_RECORD_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct merge_stats;

/* What a merge would take, for record_hooks.may_merge. */
struct record_merge_plan {
	const char *dir;            /* the shard directory */
	uint64_t shard_bytes;       /* what the merge would read */
	int stop_signal;            /* the signal that stopped the run, 0 for none */
	unsigned long long stop_ms; /* clock__now_ms() when it came, 0 for none */
};

/*
 * Callbacks of a caller that runs session__record for its own ends
 * (`shardrec job`, recorder/job/job.c). Unused members are NULL.
 */
struct record_hooks {
	/*
	 * Events are enabled and the command runs (not called when setup
	 * failed); @shard_dir: where the shards are, for a recovery command;
	 * @workload: the command's pid.
	 */
	void (*ready)(void *arg, const char *shard_dir, int workload);
	/* The command has exited: true stops the recording, false keeps it going. */
	bool (*done)(void *arg);
	/*
	 * Before the merge: false skips it and keeps the shards for a later
	 * `shardrec merge` (the time left cannot cover it). NULL: always merge.
	 */
	bool (*may_merge)(void *arg, const struct record_merge_plan *p);
	/* The output is complete; @stop_signal stopped the run, or 0. */
	void (*merged)(void *arg, const struct merge_stats *ms, int stop_signal);
	void *arg;
};

struct record_opts {
	char *events;        /* -e, comma list (several -e are joined) */
	const char *output;  /* -o, default perf.data */
	bool system_wide;    /* -a */
	const char *cpu_list;  /* -C */
	const char *pid_list;  /* -p */
	const char *tid_list;  /* -t */
	uint64_t freq;       /* -F, 0 = unset */
	bool freq_max;       /* -F max */
	uint64_t period;     /* -c, 0 = unset */
	bool callgraph_fp;   /* -g / --call-graph fp[,N] */
	uint32_t max_stack;  /* --call-graph fp,N: attr.sample_max_stack, 0 = the kernel's */
	bool sample_cpu;     /* --sample-cpu */
	size_t mmap_pages;   /* -m, data pages per CPU ring */
	bool mmap_pages_set; /* -m DATA was given (not -m ,AUX alone) */
	size_t aux_pages;    /* -m DATA,AUX: AUX area pages per CPU for AUX events, 0 = default */
	const char *threads; /* --threads; NULL: auto with real-time writers, else one per CPU */
	bool keep_shards;
	/*
	 * --shard-dir: the directory the shard directory (FILE's base name +
	 * .shards) is made in, e.g. node-local disk when -o is on a parallel
	 * file system; NULL: beside -o. -o -: its temporary directory.
	 */
	const char *shard_dir;
	bool no_buildid;     /* -B */
	int verbose;         /* -v */
	bool quiet;          /* -q */
	bool dry_run;
	const char *topology_xml, *synthetic;
	clockid_t clockid;   /* -k */
	bool clockid_set;    /* -k given (an AUX recording keeps the perf clock without it) */
	const char *sysfs_root; /* NULL: /sys; unit tests point it at a fake tree (PMUs) */
	int zlevel;          /* -z / --compression-level, 0 = off */
	/*
	 * -r: SCHED_FIFO priority of the writer threads (never of the main
	 * thread or the workload); 0 = normal scheduling; -1 = unset (the
	 * default: WRITER_DEFAULT_RT_PRIO where allowed, else normal).
	 */
	int realtime;
	/* perf record's sample options (recorder/events/sample_config.c applies them) */
	bool callgraph_dwarf;  /* --call-graph dwarf[,size] */
	uint32_t dwarf_size;   /* user stack bytes per sample */
	uint64_t user_regs;    /* --user-regs mask, 0 = unset */
	uint64_t intr_regs;    /* -I/--intr-regs mask, 0 = unset */
	bool raw_samples;      /* -R */
	bool sample_addr;      /* -d */
	bool sample_period;    /* -P */
	bool no_inherit;       /* -i */
	bool all_user, all_kernel;
	bool switch_events;    /* --switch-events */
	bool no_buildid_cache; /* -N: the DSOs do not go to perf's build-id cache */
	const char *buildid_dir; /* --buildid-dir, else perf config's buildid.dir; NULL: ~/.debug */
	unsigned delay_ms;     /* -D */
	bool start_disabled;   /* -D -1: enabled by --control's "enable" */
	uint64_t max_size;     /* --max-size bytes, 0 = none */
	bool overwrite;        /* --overwrite: backward rings, dumped on SIGUSR2/snapshot and at the end */
	bool aux_snapshot;     /* -S: AUX areas in snapshot mode */
	bool aux_snapshot_on_exit; /* -Se: one more snapshot at the end */
	uint64_t aux_snap_size; /* -S SIZE: bytes per snapshot and CPU, 0 = the whole area */
	const char *control;   /* --control fifo:CTL[,ACK] or fd:CTL[,ACK] */
	struct record_filter { /* --filter: applies to the -e given before it */
		size_t events_off, events_end; /* that -e's span in @events */
		const char *filter;
	} *filters;
	size_t nr_filters, cap_filters;
	size_t last_event_off; /* where the last -e starts in @events */
	const char *cgroup;    /* -G, path below the cgroup2 mount */
	const char *uid;       /* -u, user name or number */
	int argc;            /* workload */
	char **argv;
	int full_argc;       /* shardrec's own command line, for CMDLINE */
	char **full_argv;
	const struct record_hooks *hooks; /* NULL for `record` */
	int workload_pdeathsig; /* signal for the command if shardrec dies, 0 = none */
	/*
	 * The command is recorded as well as the -p tasks (job's ranks mode:
	 * rank 0's app beside the node's other ranks); its events are enabled
	 * with the others', not on exec.
	 */
	bool workload_too;
	/* perf record flags of issue 17 */
	bool no_samples;       /* --no-samples: attr.sample_freq/period 0, records only */
	bool namespaces;       /* --namespaces: attr.namespaces on the tracking event */
	bool no_bpf_event;     /* --no-bpf-event: no attr.bpf_event on the tracking event */
	bool all_cgroups;      /* --all-cgroups: attr.cgroup, PERF_SAMPLE_CGROUP, CGROUP records */
	bool sample_weight;    /* -W: PERF_SAMPLE_WEIGHT_STRUCT (x86 perf's) */
	bool per_thread;       /* --per-thread: no inherit, no CPU in samples */
	bool inherit;          /* --inherit: inherit even where -i said not to */
	bool strict_freq;      /* --strict-freq: -F above the maximum fails */
	bool user_callchains;  /* --user-callchains: attr.exclude_callchain_kernel */
	uint64_t branch_stack; /* -b / -j: attr.branch_sample_type of every event, 0 = none */
	bool inherit_stat;     /* -s: inherit_stat, TOTAL_TIME_* read format, READ records */
	bool buildid_all;      /* --buildid-all: build ids of every mmapped DSO */
	bool tail_synthesize;  /* --tail-synthesize: the tasks are described at the end */
	unsigned synth;        /* --synth: RECORD_SYNTH_* bits */
	unsigned proc_map_timeout_ms; /* --proc-map-timeout, default 500 as perf */
	uint64_t mmap_flush;   /* --mmap-flush bytes: the writers' wakeup, 0 = a quarter ring */
	int affinity;          /* --affinity: RECORD_AFFINITY_* */
	/* perf's --switch-output family: rotated files FILE.<timestamp> (capture/rotate.c) */
	bool switch_output;    /* rotate: --switch-output[=...] or --switch-output-event */
	bool switch_signal;    /* on SIGUSR2 (--switch-output alone or =signal) */
	uint64_t switch_size;  /* =SIZE: when a file's shards reach SIZE bytes, 0 = not */
	unsigned switch_secs;  /* =TIME: every TIME seconds, 0 = not */
	char *switch_event;    /* --switch-output-event LIST: on each event, NULL = none */
	unsigned switch_max_files; /* --switch-max-files N: keep the newest N files, 0 = all */
	bool timestamp_filename; /* --timestamp-filename: FILE.<timestamp> (rotation implies it) */
	/* perf config's record.call-graph: what -g turns on (callchain_mode, 0 = fp) */
	int g_mode;
	uint32_t g_size;       /* its dwarf stack size, 0 = the default */
};

#define RECORD_SYNTH_TASK 1u
#define RECORD_SYNTH_MMAP 2u
#define RECORD_SYNTH_CGROUP 4u
#define RECORD_SYNTH_ALL (RECORD_SYNTH_TASK | RECORD_SYNTH_MMAP | RECORD_SYNTH_CGROUP)

/* --affinity: where each writer runs (perf's sys/node/cpu read affinity). */
enum record_affinity {
	RECORD_AFFINITY_DEFAULT, /* its group's CPUs (= cpu) */
	RECORD_AFFINITY_SYS,     /* anywhere */
	RECORD_AFFINITY_NODE,    /* its group's NUMA node */
	RECORD_AFFINITY_CPU,     /* its group's CPUs */
};

/*
 * Appends @item to the comma list *@list, as several -e (or several
 * --switch-output-event) make one. Returns where @item starts in it, or
 * -ENOMEM (the list is left as it was).
 */
long record_opts__append(char **list, const char *item);
/* Frees what parsing allocated (record_opts__parse, cli/cli_record.h). */
void record_opts__release(struct record_opts *o);
/*
 * perf's target__has_cpu: -a or -C, the events see every task of their
 * CPUs. The one test for it; -a and -C differ only in which CPUs.
 */
bool record_opts__cpu_wide(const struct record_opts *o);
/*
 * True when the command is what is recorded (no -a, -C, -p, -t or -u): its
 * events enable on exec. Otherwise a command only bounds the recording.
 */
bool record_opts__command_is_target(const struct record_opts *o);

#endif
