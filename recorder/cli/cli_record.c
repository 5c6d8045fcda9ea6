// SPDX-License-Identifier: GPL-2.0
#include "recorder/cli/cli_record.h"
#include "recorder/events/record_opts.h"
#include "recorder/cli/cli_sample.h"
#include "recorder/cli/cli_config.h"
#include "recorder/cli/cli_switch.h"
#include "recorder/events/callchain.h"
#include "recorder/util/suggest.h"
#include "recorder/util/log.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "numa/numa.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#define DEFAULT_MMAP_PAGES 128 /* 512 KiB with 4 KiB pages, perf record's default */

enum {
	OPT_SAMPLE_CPU = 256,
	OPT_THREADS,
	OPT_KEEP_SHARDS,
	OPT_SHARD_DIR,
	OPT_DRY_RUN,
	OPT_TOPO_XML,
	OPT_SYNTHETIC,
	OPT_CALL_GRAPH,
	OPT_HELP,
	OPT_COMP_LEVEL,
	OPT_USER_REGS,
	OPT_SWITCH_EVENTS,
	OPT_ALL_USER,
	OPT_ALL_KERNEL,
	OPT_MAX_SIZE,
	OPT_OVERWRITE,
	OPT_FILTER,
	OPT_CONTROL,
	OPT_NO_SAMPLES,
	OPT_NAMESPACES,
	OPT_NO_BPF_EVENT,
	OPT_ALL_CGROUPS,
	OPT_PER_THREAD,
	OPT_INHERIT,
	OPT_STRICT_FREQ,
	OPT_USER_CALLCHAINS,
	OPT_BUILDID_ALL,
	OPT_TAIL_SYNTH,
	OPT_SYNTH,
	OPT_PROC_MAP_TIMEOUT,
	OPT_KCORE,
	OPT_OFF_CPU,
	OPT_AFFINITY,
	OPT_MMAP_FLUSH,
	OPT_SWITCH_OUTPUT,
	OPT_SWITCH_EVENT,
	OPT_SWITCH_MAX_FILES,
	OPT_TIMESTAMP_FILENAME,
	OPT_BUILDID_DIR,
};

static const char usage[] =
	"Usage: shardrec record [options] [-- command [args...]]\n"
	"\n"
	"Record perf events with one writer thread per CPU group, then merge the\n"
	"shards into one perf.data that stock perf reads.\n"
	"\n"
	"Target (default: the command only; with a target, the command only says\n"
	"how long to record: until it exits, as perf):\n"
	"  -a, --all-cpus            system-wide on all CPUs\n"
	"  -C, --cpu LIST            system-wide on the listed CPUs (e.g. 0-3,8)\n"
	"  -p, --pid PIDS            attach to existing processes (comma list)\n"
	"  -t, --tid TIDS            attach to existing threads (comma list)\n"
	"  -u, --uid USER            the processes of this user (name or uid)\n"
	"  -G, --cgroup PATH         only tasks of this cgroup v2 (path below the\n"
	"                            cgroup2 mount; needs -a or -C)\n"
	"Events:\n"
	"  -e, --event LIST          events, perf syntax (default cpu-clock at 4000 Hz;\n"
	"                            cycles without a hardware PMU: cpu-clock), and\n"
	"                            perf's terms: cpu-clock/max-stack=3,no-inherit/\n"
	"  -F, --freq N|max          sampling frequency in Hz\n"
	"  -c, --count N             sampling period (events per sample)\n"
	"  -g                        frame-pointer call graphs\n"
	"      --call-graph MODE     fp[,N]: at most N frames (attr.sample_max_stack),\n"
	"                            or dwarf[,SIZE]: user stack copies of SIZE\n"
	"                            bytes (default 8192) unwound by perf report\n"
	"      --user-regs[=REGS]    sample these user registers (e.g. IP,SP,BP;\n"
	"                            default all)\n"
	"  -I, --intr-regs[=REGS]    sample registers at the interrupt (default all)\n"
	"  -R, --raw-samples         raw sample data (PERF_SAMPLE_RAW)\n"
	"  -d, --data                sample data addresses\n"
	"  -P, --period              sample the event period (always recorded)\n"
	"  -T, --timestamp           sample timestamps (always recorded)\n"
	"      --sample-cpu          record the CPU in every sample\n"
	"      --switch-events       record context switches (PERF_RECORD_SWITCH)\n"
	"      --filter FILTER       tracepoint filter for the -e before it\n"
	"  -i, --no-inherit          child tasks do not inherit the counters\n"
	"      --inherit             they do (the default; undoes an earlier -i)\n"
	"      --per-thread          per-thread counters: no inheritance, as perf's\n"
	"                            (samples keep their time)\n"
	"  -s, --stat                per-thread counts: READ records at each task's\n"
	"                            exit (perf report -T)\n"
	"  -W, --weight              sample the weight (PERF_SAMPLE_WEIGHT_STRUCT)\n"
	"  -b, --branch-any          sample any taken branches (branch stack)\n"
	"  -j, --branch-filter MODES\n"
	"                            branch stack of these types, comma list: any,\n"
	"                            any_call, any_ret, ind_call, ind_jmp, call,\n"
	"                            cond, in_tx, no_tx, abort_tx, save_type, stack,\n"
	"                            priv; levels u, k, hv. Needs a PMU with branch\n"
	"                            stack sampling\n"
	"      --no-samples          no samples, only the task and mmap records\n"
	"      --strict-freq         fail if -F is above kernel.perf_event_max_sample_rate\n"
	"                            (else it is lowered to it, with a warning)\n"
	"      --user-callchains     user-space call chains only\n"
	"                            (attr.exclude_callchain_kernel)\n"
	"      --namespaces          record namespace changes (NAMESPACES records)\n"
	"      --all-cgroups         record cgroups: their ids in samples, CGROUP\n"
	"                            records\n"
	"      --no-bpf-event        no BPF_EVENT records of BPF programs loaded\n"
	"                            while recording (their KSYMBOLs stay)\n"
	"      --off-cpu             accepted with a warning, as perf without BPF\n"
	"      --all-user            count user space only\n"
	"      --all-kernel          count kernel space only\n"
	"  -D, --delay MSECS         enable the events MSECS after the start;\n"
	"                            -1: start disabled, enable with --control\n"
	"  -k, --clockid CLOCK       monotonic (default; perf's clock with an AUX\n"
	"                            event, as perf), monotonic_raw, boottime,\n"
	"                            realtime, tai; or mono, raw, boot, real, or\n"
	"                            a clock number, as perf takes them\n"
	"Output:\n"
	"  -o, --output FILE         output file (default perf.data; an existing\n"
	"                            one becomes FILE.old); '-': perf's pipe format\n"
	"                            on stdout while recording, as perf record -o -\n"
	"  -m, --mmap-pages N        ring data pages per CPU, power of two, or a\n"
	"                            size with B/K/M/G (default 128 = 512 KiB);\n"
	"                            N,M: M sizes the AUX area of an AUX event\n"
	"                            (intel_pt//, ...; default 4 MiB, or 128 KiB\n"
	"                            for a user limited by perf_event_paranoid)\n"
	"      --threads[=SPEC]      writer groups: auto (default: within a package,\n"
	"                            node and L3, at most " STR(PLAN_AUTO_CAP) " CPUs each; one\n"
	"                            per CPU when writers run at normal priority),\n"
	"                            numa, package, l3, core, cpu, N, or perf's\n"
	"                            0-3/0:4-7/4 form\n"
	"      --keep-shards         keep FILE.shards/ after the merge (-o -: the\n"
	"                            temporary directory, named at the end)\n"
	"      --shard-dir DIR       make the shard directory in DIR (e.g. node-local\n"
	"                            disk) instead of beside FILE; the merge writes\n"
	"                            FILE (default: beside FILE; -o -: $TMPDIR)\n"
	"  -z, --compression-level[=N]\n"
	"                            zstd-compress in the writers (PERF_RECORD_COMPRESSED),\n"
	"                            level 1..22 (-z3 or --compression-level=3);\n"
	"                            -z alone means 1; no build ids, as perf record -z\n"
	"  -B, --no-buildid          do not collect build ids\n"
	"  -N, --no-buildid-cache    do not add the DSOs to the build-id cache\n"
	"      --buildid-dir DIR     the build-id cache, absolute (default: perf\n"
	"                            config's buildid.dir, else ~/.debug); perf\n"
	"                            takes it before the command: perf\n"
	"                            --buildid-dir DIR record\n"
	"      --buildid-all         build ids of every mapped DSO, not only those hit\n"
	"      --tail-synthesize     describe the targets' tasks as they are at the\n"
	"                            end, not at the start\n"
	"      --synth WHAT          records describing existing tasks: all (default),\n"
	"                            no, or a comma list of task, mmap, cgroup\n"
	"      --proc-map-timeout MS\n"
	"                            stop reading a process's maps after MS ms\n"
	"                            (default 500)\n"
	"      --kcore               refused: copying /proc/kcore is not supported\n"
	"      --max-size SIZE       stop before the recording exceeds SIZE (B/K/M/G)\n"
	"      --overwrite           flight recorder: backward rings keep the newest\n"
	"                            records; written out on SIGUSR2, on --control\n"
	"                            'snapshot' and at the end\n"
	"  -S, --snapshot[=[e]SIZE]  AUX area snapshot mode: keep the newest SIZE\n"
	"                            bytes per CPU (default the whole area), write\n"
	"                            them on SIGUSR2 or --control 'snapshot'; e: also\n"
	"                            at the end\n"
	"Rotation (perf's --switch-output; each file is complete on its own):\n"
	"      --switch-output[=MODE]\n"
	"                            end the file and go on in a new one on SIGUSR2\n"
	"                            (signal, the default), when its shards reach a\n"
	"                            size (B/K/M/G: 100M) or every TIME (s/m/h/d:\n"
	"                            30s); each is merged in the background into\n"
	"                            FILE.<timestamp> (implies --timestamp-filename)\n"
	"      --switch-output-event LIST\n"
	"                            switch on each of these events too (perf -e\n"
	"                            syntax, e.g. sched:sched_process_exec)\n"
	"      --switch-max-files N  keep only the newest N files\n"
	"      --timestamp-filename  write FILE.<timestamp>, the time it ended\n"
	"                            (YYYYmmddHHMMSScc, local time) instead of FILE\n"
	"Run control:\n"
	"      --control fifo:CTL[,ACK] | fd:CTL[,ACK]\n"
	"                            read commands from a fifo or fd: enable,\n"
	"                            disable, snapshot, stop, ping; 'ack' is\n"
	"                            written to ACK after each\n"
	"Writers:\n"
	"  -r, --realtime PRIO       writer threads at SCHED_FIFO priority PRIO\n"
	"                            (1-99; 0: normal scheduling). Default: 1\n"
	"                            where allowed (root, CAP_SYS_NICE or\n"
	"                            RLIMIT_RTPRIO), else normal; the summary\n"
	"                            says which\n"
	"      --affinity MODE       where each writer runs: cpu (default: its\n"
	"                            group's CPUs), node (its group's NUMA node)\n"
	"                            or sys (anywhere)\n"
	"      --mmap-flush SIZE     wake a writer when a ring holds SIZE bytes\n"
	"                            (B/K/M/G; default and most a quarter ring)\n"
	"Topology:\n"
	"      --dry-run             print the writer plan and exit\n"
	"      --topology-xml FILE   plan for an hwloc XML topology (with --dry-run)\n"
	"      --synthetic SPEC      plan for an hwloc synthetic topology (with --dry-run)\n"
	"Other:\n"
	"  -v, --verbose             per-writer figures and placement, each writer's\n"
	"                            high-water mark: its fullest ring (cpu, % of\n"
	"                            the ring, time since start), and the time its\n"
	"                            shard writes took (in all, the longest, when,\n"
	"                            how many took 1, 10 and 50 ms or more)\n"
	"  -q, --quiet               no summary (nor its advice on heavy loss)\n"
	"  -h, --help                this text\n"
	"\n"
	"perf's config applies first, the command line wins: $PERF_CONFIG alone\n"
	"if set, else /etc/perfconfig then ~/.perfconfig; keys record.build-id,\n"
	"record.call-graph (the mode -g selects), call-graph.record-mode,\n"
	"call-graph.dump-size, record.mmap-flush, buildid.dir.\n"
	"\n"
	"After the merge, the DSOs of the file's build-id list, the kernel's\n"
	"kallsyms and the vdso go to perf's build-id cache as perf record puts\n"
	"them, so that perf report finds them after a rebuild; not with -B, -N,\n"
	"-z, -o - or rotation (--switch-output, --timestamp-filename).\n";

const char *record_opts__usage(void)
{
	return usage;
}

static const struct option longopts[] = {
	{"all-cpus", no_argument, NULL, 'a'},
	{"cpu", required_argument, NULL, 'C'},
	{"pid", required_argument, NULL, 'p'},
	{"tid", required_argument, NULL, 't'},
	{"event", required_argument, NULL, 'e'},
	{"freq", required_argument, NULL, 'F'},
	{"count", required_argument, NULL, 'c'},
	{"call-graph", required_argument, NULL, OPT_CALL_GRAPH},
	{"timestamp", no_argument, NULL, 'T'},
	{"sample-cpu", no_argument, NULL, OPT_SAMPLE_CPU},
	{"clockid", required_argument, NULL, 'k'},
	{"output", required_argument, NULL, 'o'},
	{"mmap-pages", required_argument, NULL, 'm'},
	{"threads", optional_argument, NULL, OPT_THREADS},
	{"keep-shards", no_argument, NULL, OPT_KEEP_SHARDS},
	{"shard-dir", required_argument, NULL, OPT_SHARD_DIR},
	{"no-buildid", no_argument, NULL, 'B'},
	{"compression-level", optional_argument, NULL, OPT_COMP_LEVEL},
	{"dry-run", no_argument, NULL, OPT_DRY_RUN},
	{"topology-xml", required_argument, NULL, OPT_TOPO_XML},
	{"synthetic", required_argument, NULL, OPT_SYNTHETIC},
	{"verbose", no_argument, NULL, 'v'},
	{"quiet", no_argument, NULL, 'q'},
	{"help", no_argument, NULL, 'h'},
	{"user-regs", optional_argument, NULL, OPT_USER_REGS},
	{"intr-regs", optional_argument, NULL, 'I'},
	{"raw-samples", no_argument, NULL, 'R'},
	{"data", no_argument, NULL, 'd'},
	{"period", no_argument, NULL, 'P'},
	{"no-inherit", no_argument, NULL, 'i'},
	{"switch-events", no_argument, NULL, OPT_SWITCH_EVENTS},
	{"all-user", no_argument, NULL, OPT_ALL_USER},
	{"all-kernel", no_argument, NULL, OPT_ALL_KERNEL},
	{"delay", required_argument, NULL, 'D'},
	{"max-size", required_argument, NULL, OPT_MAX_SIZE},
	{"overwrite", no_argument, NULL, OPT_OVERWRITE},
	{"filter", required_argument, NULL, OPT_FILTER},
	{"snapshot", optional_argument, NULL, 'S'},
	{"control", required_argument, NULL, OPT_CONTROL},
	{"cgroup", required_argument, NULL, 'G'},
	{"uid", required_argument, NULL, 'u'},
	{"no-buildid-cache", no_argument, NULL, 'N'},
	{"realtime", required_argument, NULL, 'r'},
	{"no-samples", no_argument, NULL, OPT_NO_SAMPLES},
	{"namespaces", no_argument, NULL, OPT_NAMESPACES},
	{"all-cgroups", no_argument, NULL, OPT_ALL_CGROUPS},
	{"no-bpf-event", no_argument, NULL, OPT_NO_BPF_EVENT},
	{"weight", no_argument, NULL, 'W'},
	{"branch-any", no_argument, NULL, 'b'},
	{"branch-filter", required_argument, NULL, 'j'},
	{"per-thread", no_argument, NULL, OPT_PER_THREAD},
	{"inherit", no_argument, NULL, OPT_INHERIT},
	{"strict-freq", no_argument, NULL, OPT_STRICT_FREQ},
	{"user-callchains", no_argument, NULL, OPT_USER_CALLCHAINS},
	{"stat", no_argument, NULL, 's'},
	{"buildid-all", no_argument, NULL, OPT_BUILDID_ALL},
	{"tail-synthesize", no_argument, NULL, OPT_TAIL_SYNTH},
	{"synth", required_argument, NULL, OPT_SYNTH},
	{"proc-map-timeout", required_argument, NULL, OPT_PROC_MAP_TIMEOUT},
	{"kcore", no_argument, NULL, OPT_KCORE},
	{"off-cpu", no_argument, NULL, OPT_OFF_CPU},
	{"affinity", required_argument, NULL, OPT_AFFINITY},
	{"mmap-flush", required_argument, NULL, OPT_MMAP_FLUSH},
	{"switch-output", optional_argument, NULL, OPT_SWITCH_OUTPUT},
	{"switch-output-event", required_argument, NULL, OPT_SWITCH_EVENT},
	{"switch-max-files", required_argument, NULL, OPT_SWITCH_MAX_FILES},
	{"timestamp-filename", no_argument, NULL, OPT_TIMESTAMP_FILENAME},
	{"buildid-dir", required_argument, NULL, OPT_BUILDID_DIR},
	{NULL, 0, NULL, 0},
};

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	if (!*s || *s == '-')
		return -EINVAL;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -EINVAL : 0;
}

/* perf's -m: a page count, or a size with a B/K/M/G suffix; power of two pages. */
static int parse_mmap(const char *s, size_t *pages)
{
	size_t page = sysconf(_SC_PAGESIZE);
	char *end;
	unsigned long long v;

	errno = 0;
	if (!*s || *s == '-')
		return -EINVAL;
	v = strtoull(s, &end, 0);
	if (errno || !v)
		return -EINVAL;
	switch (*end) {
	case 0:
		break;
	case 'g': case 'G':
		v <<= 10;
		/* fall through */
	case 'm': case 'M':
		v <<= 10;
		/* fall through */
	case 'k': case 'K':
		v <<= 10;
		/* fall through */
	case 'b': case 'B':
		if (end[1] && strcasecmp(end + 1, "b"))
			return -EINVAL;
		v = v / page;
		break;
	default:
		return -EINVAL;
	}
	if (!v || (v & (v - 1)) || v > (1ULL << 30))
		return -EINVAL;
	*pages = v;
	return 0;
}

/* -m DATA[,AUX]: perf's form; an empty part keeps its default. */
static int parse_mmap_pair(const char *s, size_t *data, size_t *aux)
{
	const char *comma = strchr(s, ',');
	char head[64];

	if (!comma)
		return parse_mmap(s, data);
	if ((size_t)(comma - s) >= sizeof(head))
		return -EINVAL;
	snprintf(head, sizeof(head), "%.*s", (int)(comma - s), s);
	if (*head && parse_mmap(head, data))
		return -EINVAL;
	return comma[1] ? parse_mmap(comma + 1, aux) : 0;
}

static int parse_clock(const char *s, clockid_t *c)
{
	static const struct {
		const char *name;
		clockid_t id;
	} clocks[] = {
		{"monotonic", CLOCK_MONOTONIC}, {"mono", CLOCK_MONOTONIC},
		{"monotonic_raw", CLOCK_MONOTONIC_RAW}, {"mono_raw", CLOCK_MONOTONIC_RAW},
		{"raw", CLOCK_MONOTONIC_RAW}, {"boottime", CLOCK_BOOTTIME},
		{"boot", CLOCK_BOOTTIME}, {"realtime", CLOCK_REALTIME},
		{"real", CLOCK_REALTIME}, {"tai", CLOCK_TAI},
	};
	char *end;
	long n;

	/* perf's parse_clockid(): a clock's number works too */
	n = strtol(s, &end, 10);
	if (*s && !*end) {
		for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++)
			if (clocks[i].id == n) {
				*c = n;
				return 0;
			}
		return -EINVAL;
	}

	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		if (!strcasecmp(s, clocks[i].name) ||
		    (!strncasecmp(s, "CLOCK_", 6) && !strcasecmp(s + 6, clocks[i].name))) {
			*c = clocks[i].id;
			return 0;
		}
	}
	return -EINVAL;
}

static int add_events(struct record_opts *o, const char *list)
{
	long off = record_opts__append(&o->events, list);

	if (off < 0)
		return off;
	o->last_event_off = off; /* for --filter */
	return 0;
}

#define BAD(...)                                                                                   \
	do {                                                                                       \
		snprintf(err, errlen, __VA_ARGS__);                                                \
		return -EINVAL;                                                                    \
	} while (0)

static int record_opts__apply(struct record_opts *o, int c, const char *arg, char *err,
			      size_t errlen)
{
	switch (c) {
	case 'a': o->system_wide = true; break;
	case 'C': o->cpu_list = arg; break;
	case 'p': o->pid_list = arg; break;
	case 't': o->tid_list = arg; break;
	case 'e':
		if (add_events(o, arg))
			BAD("out of memory");
		break;
	case 'F':
		if (!strcmp(arg, "max"))
			o->freq_max = true;
		else if (parse_u64(arg, &o->freq) || !o->freq)
			BAD("-F: '%s' is not a frequency in Hz (or 'max')", arg);
		break;
	case 'c':
		if (parse_u64(arg, &o->period) || !o->period)
			BAD("-c: '%s' is not a positive period", arg);
		break;
	case 'g': /* perf 6.1: -g takes the mode of record.call-graph in perf config */
		if (o->g_mode == CALLCHAIN_DWARF) {
			char spec[32];

			if (o->g_size)
				snprintf(spec, sizeof(spec), "dwarf,%u", o->g_size);
			else
				snprintf(spec, sizeof(spec), "dwarf");
			return record_opts__sample(o, "call-graph", spec, err, errlen);
		}
		o->callgraph_fp = true;
		o->callgraph_dwarf = false;
		break;
	case OPT_CALL_GRAPH: return record_opts__sample(o, "call-graph", arg, err, errlen);
	case OPT_USER_REGS: return record_opts__sample(o, "user-regs", arg, err, errlen);
	case 'I': return record_opts__sample(o, "intr-regs", arg, err, errlen);
	case 'D': return record_opts__sample(o, "delay", arg, err, errlen);
	case OPT_MAX_SIZE: return record_opts__sample(o, "max-size", arg, err, errlen);
	case OPT_FILTER: return record_opts__sample(o, "filter", arg, err, errlen);
	case 'S': return record_opts__sample(o, "snapshot", arg, err, errlen);
	case OPT_SYNTH: return record_opts__sample(o, "synth", arg, err, errlen);
	case OPT_PROC_MAP_TIMEOUT: return record_opts__sample(o, "proc-map-timeout", arg, err, errlen);
	case OPT_AFFINITY: return record_opts__sample(o, "affinity", arg, err, errlen);
	case OPT_MMAP_FLUSH: return record_opts__sample(o, "mmap-flush", arg, err, errlen);
	case OPT_SWITCH_OUTPUT: return record_opts__switch_output(o, arg, err, errlen);
	case OPT_SWITCH_MAX_FILES: return record_opts__switch_max_files(o, arg, err, errlen);
	case OPT_TIMESTAMP_FILENAME: o->timestamp_filename = true; break;
	case OPT_SWITCH_EVENT:
		if (record_opts__append(&o->switch_event, arg) < 0)
			BAD("out of memory");
		break;
	case OPT_NO_SAMPLES: o->no_samples = true; break;
	case OPT_NAMESPACES: o->namespaces = true; break;
	case OPT_ALL_CGROUPS: o->all_cgroups = true; break;
	case OPT_NO_BPF_EVENT: o->no_bpf_event = true; break;
	case 'W': o->sample_weight = true; break;
	case 'b': return record_opts__sample(o, "branch-any", NULL, err, errlen);
	case 'j': return record_opts__sample(o, "branch-filter", arg, err, errlen);
	case OPT_PER_THREAD: o->per_thread = true; break;
	case OPT_INHERIT: o->no_inherit = false; break; /* perf's negated --no-inherit */
	case OPT_STRICT_FREQ: o->strict_freq = true; break;
	case OPT_USER_CALLCHAINS: o->user_callchains = true; break;
	case 's': o->inherit_stat = true; break;
	case OPT_BUILDID_ALL: o->buildid_all = true; break;
	case OPT_TAIL_SYNTH: o->tail_synthesize = true; break;
	case OPT_KCORE: BAD("--kcore: copying /proc/kcore is not supported yet");
	case OPT_OFF_CPU:
		/* perf 6.1 built without BPF skeletons says the same and records on. */
		pr_warn("option `off-cpu' is being ignored because no BUILD_BPF_SKEL=1");
		break;
	case OPT_CONTROL: o->control = arg; break;
	case 'T': break; /* timestamps are always recorded: the merge needs them */
	case OPT_SAMPLE_CPU: o->sample_cpu = true; break;
	case 'k':
		if (parse_clock(arg, &o->clockid))
			BAD("-k: unknown clock '%s'", arg);
		o->clockid_set = true;
		break;
	case 'o': o->output = arg; break;
	case 'm':
		if (parse_mmap_pair(arg, &o->mmap_pages, &o->aux_pages))
			BAD("-m: '%s' is not a power-of-two page count or size (DATA[,AUX])", arg);
		o->mmap_pages_set = *arg != ',';
		break;
	case OPT_THREADS: o->threads = arg ? arg : "cpu"; break;
	case OPT_KEEP_SHARDS: o->keep_shards = true; break;
	case OPT_SHARD_DIR:
		if (!*arg)
			BAD("--shard-dir: give a directory");
		o->shard_dir = arg;
		break;
	case 'B': o->no_buildid = true; break;
	case 'z': /* -z3 as perf's parse-options takes an attached optional value */
	case OPT_COMP_LEVEL:
		if (!arg) {
			o->zlevel = 1;
			break;
		}
		o->zlevel = atoi(arg);
		if (o->zlevel < 1 || o->zlevel > 22 || strspn(arg, "0123456789") != strlen(arg))
			BAD("-z/--compression-level: '%s' is not a level from 1 to 22", arg);
		break;
	case OPT_DRY_RUN: o->dry_run = true; break;
	case OPT_TOPO_XML: o->topology_xml = arg; break;
	case OPT_SYNTHETIC: o->synthetic = arg; break;
	case 'v': o->verbose++; break;
	case 'q': o->quiet = true; break;
	case 'R': o->raw_samples = true; break;
	case 'd': o->sample_addr = true; break;
	case 'P': o->sample_period = true; break;
	case 'i': o->no_inherit = true; break;
	case 'N': o->no_buildid_cache = true; break;
	case OPT_BUILDID_DIR:
		/* perf's cache paths are absolute: a relative DIR would cache nothing */
		if (arg[0] != '/')
			BAD("--buildid-dir: '%s' is not an absolute directory", arg);
		o->buildid_dir = arg;
		break;
	case OPT_SWITCH_EVENTS: o->switch_events = true; break;
	case OPT_ALL_USER: o->all_user = true; break;
	case OPT_ALL_KERNEL: o->all_kernel = true; break;
	case OPT_OVERWRITE: o->overwrite = true; break;
	case 'G': o->cgroup = arg; break;
	case 'u': o->uid = arg; break;
	case 'r':
		o->realtime = atoi(arg);
		if (o->realtime < 0 || o->realtime > 99 || !*arg ||
		    strspn(arg, "0123456789") != strlen(arg))
			BAD("-r: '%s' is not a SCHED_FIFO priority from 1 to 99 (0: normal)", arg);
		break;
	default: BAD("unknown option (see shardrec record --help)");
	}
	return 0;
}

/*
 * A long option getopt refused: one it knows that lacks its value (or has
 * one it takes none for), or an unknown one, with git's "did you mean"
 * when one is near (--evnt).
 */
static int bad_long_option(const char *arg, char *err, size_t errlen)
{
	const char *names[sizeof(longopts) / sizeof(longopts[0])];
	size_t n = 0, len = strcspn(arg + 2, "=");
	char name[64];
	const char *near;

	snprintf(name, sizeof(name), "%.*s", (int)len, arg + 2);
	for (const struct option *lo = longopts; lo->name; lo++) {
		if (!strcmp(lo->name, name))
			BAD("option '--%s' %s (see shardrec record --help)", name,
			    lo->has_arg == no_argument ? "takes no value" : "needs a value");
		names[n++] = lo->name;
	}
	near = suggest__closest(name, names, n);
	if (near)
		BAD("option '%s' is unknown: did you mean '--%s'? (see shardrec record --help)", arg,
		    near);
	BAD("option '%s' is unknown (see shardrec record --help)", arg);
}

int record_opts__check(struct record_opts *o, char *err, size_t errlen)
{
	int targets = !!o->pid_list + !!o->tid_list + record_opts__cpu_wide(o) + !!o->uid;

	if (targets > 1)
		BAD("-a/-C, -p, -t and -u exclude each other");
	if (o->all_user && o->all_kernel)
		BAD("--all-user and --all-kernel exclude each other");
	if (o->cgroup && !record_opts__cpu_wide(o))
		BAD("-G/--cgroup needs per-CPU events: add -a or -C");
	if (!targets && !o->argc && !o->dry_run)
		BAD("nothing to record: give a command, -a, -C, -p, -t or -u (see --help)");
	if (o->freq && o->period)
		BAD("-F and -c exclude each other");
	if ((o->topology_xml || o->synthetic) && !o->dry_run)
		BAD("--topology-xml/--synthetic describe another machine: use them with --dry-run");
	if (!o->output[0])
		BAD("-o: empty file name");
	if (o->start_disabled && !o->control)
		BAD("-D -1 starts with the events disabled: add --control to enable them");
	return record_opts__finish_switch(o, err, errlen);
}

int record_opts__parse_args(struct record_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->output = "perf.data";
	o->mmap_pages = DEFAULT_MMAP_PAGES;
	o->clockid = CLOCK_MONOTONIC;
	o->realtime = -1;
	o->synth = RECORD_SYNTH_ALL;
	o->proc_map_timeout_ms = 500;
	ret = record_opts__config(o, err, errlen);
	if (ret)
		return ret;
	optind = 1;
	opterr = 0;
	/* '+': stop at the first non-option, the workload's argv[0]. */
	while ((c = getopt_long(argc, argv, "+aC:p:t:e:F:c:gTk:o:m:BvqhNRdPiI::D:G:u:z::S::r:sWbj:", longopts,
				NULL)) != -1) {
		if (c == 'h')
			return 1;
		if (c == '?' || c == ':') {
			/* The user's spelling: --output, not the -o it stands for. */
			if (!strncmp(argv[optind - 1], "--", 2))
				return bad_long_option(argv[optind - 1], err, errlen);
			if (optopt && optopt < 256)
				BAD("option '-%c' %s (see shardrec record --help)", optopt,
				    strchr("CptreFckomDGurj", optopt) ? "needs a value" : "is unknown");
			return bad_long_option(argv[optind - 1], err, errlen);
		}
		ret = record_opts__apply(o, c, optarg, err, errlen);
		if (ret)
			return ret;
	}
	o->argc = argc - optind;
	o->argv = argv + optind;
	return 0;
}

int record_opts__parse(struct record_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	int ret = record_opts__parse_args(o, argc, argv, err, errlen);

	return ret ? ret : record_opts__check(o, err, errlen);
}
