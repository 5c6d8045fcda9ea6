// SPDX-License-Identifier: GPL-2.0
/* The shard directory and header.data: attrs, ids, features and synthesized records. */
#include "aux/aux.h"
#include "recorder/capture/pipe_out.h"
#include "recorder/capture/session_internal.h"
#include "recorder/events/evlist.h"
#include "recorder/events/privs_open.h"
#include "recorder/events/record_opts.h"
#include "recorder/header/synth.h"
#include "recorder/header/sysinfo.h"
#include "recorder/header/tracing_data.h"
#include "recorder/merge/merge.h"
#include "recorder/perfdata/pfile_feat.h"
#include "recorder/perfdata/pfile_format.h"
#include "recorder/perfdata/pfile_write.h"
#include "recorder/perfdata/recbuf.h"
#include "recorder/perfdata/shard_format.h"
#include "recorder/perfdata/shard_tail.h"
#include "recorder/util/clock.h"
#include "recorder/util/fs.h"
#include "recorder/util/log.h"
#include "recorder/util/privs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- shard directory and header.data ---- */

/*
 * FILE.shards, beside FILE or in --shard-dir DIR as DIR/<FILE's base
 * name>.shards: named after the output, so a later run with the same -o
 * finds a killed run's shards. 0 / -ENAMETOOLONG.
 */
static int session__shard_path(struct session *s)
{
	const char *base = strrchr(s->o->output, '/');
	int n;

	if (s->o->shard_dir)
		n = snprintf(s->dir, sizeof(s->dir), "%s/%s.shards", s->o->shard_dir,
			     base ? base + 1 : s->o->output);
	else
		n = snprintf(s->dir, sizeof(s->dir), "%s.shards", s->o->output);
	if (n < 0 || (size_t)n >= sizeof(s->dir)) {
		snprintf(s->err, sizeof(s->err), "the shard directory's name is too long");
		return -ENAMETOOLONG;
	}
	return 0;
}

void session__output_dir(const struct session *s, char *dir, size_t len)
{
	const char *slash = strrchr(s->o->output, '/');

	snprintf(dir, len, "%.*s", slash ? (int)(slash - s->o->output) + 1 : 1,
		 slash ? s->o->output : ".");
}

/*
 * With the shards elsewhere nothing is created beside -o until the merge:
 * a directory the user cannot write must fail now, not after the run.
 */
static int session__check_output_dir(struct session *s)
{
	char dir[PATH_MAX];
	struct stat st;
	int err = 0;

	if (!s->o->shard_dir)
		return 0;
	session__output_dir(s, dir, sizeof(dir));
	if (stat(dir, &st))
		err = -errno;
	else if (!S_ISDIR(st.st_mode))
		err = -ENOTDIR;
	else if (access(dir, W_OK | X_OK))
		err = -errno;
	if (err)
		snprintf(s->err, sizeof(s->err), "cannot write %s: %s", s->o->output,
			 strerror(-err));
	return err;
}

int session__output(struct session *s)
{
	int ret;

	if (!strcmp(s->o->output, "-") || s->o->dry_run)
		return 0;
	if (privs__mode() != PRIVS_CAPS) {
		ret = merge__resolve_output(s->o->output, s->output, sizeof(s->output));
		if (ret) {
			snprintf(s->err, sizeof(s->err), "-o %s: %s", s->o->output, strerror(-ret));
			return ret;
		}
		s->o->output = s->output;
	}
	return merge__prepare_output(s->o->output, s->err, sizeof(s->err));
}

int session__mkdir(struct session *s)
{
	int ret;

	/* -o -: no output file to name the shards after; a private directory. */
	if (s->pipe.fd >= 0 &&
	    (ret = pipe_out__mkdtemp(s->dir, sizeof(s->dir), s->o->shard_dir))) {
		snprintf(s->err, sizeof(s->err), "cannot create the shard directory %s: %s", s->dir,
			 strerror(-ret));
		return ret;
	}
	if (s->pipe.fd < 0 && ((ret = session__check_output_dir(s)) || (ret = session__shard_path(s))))
		return ret;
	if (s->pipe.fd < 0 && mkdir(s->dir, 0700)) {
		int err = -errno;

		if (errno == EEXIST)
			snprintf(s->err, sizeof(s->err),
				 "%s exists (an earlier run's shards?): merge it with 'shardrec "
				 "merge %s -o %s' (a rotated run's: each %s/N) or remove it",
				 s->dir, s->dir, s->o->output, s->dir);
		else if (s->o->shard_dir) /* the user named this directory */
			snprintf(s->err, sizeof(s->err), "--shard-dir: cannot create %s: %s", s->dir,
				 strerror(errno));
		else /* the shard directory is ours: the user's name is the output's */
			snprintf(s->err, sizeof(s->err), "cannot create %s: %s", s->o->output,
				 strerror(errno));
		return err;
	}
	s->dirfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (s->dirfd < 0)
		return -errno;
	/* The recording's id: not a secret, only unique (a short read never happens at 16 bytes). */
	if (getrandom(s->run_id, sizeof(s->run_id), 0) != (ssize_t)sizeof(s->run_id)) {
		snprintf(s->err, sizeof(s->err), "cannot draw a run id: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

/*
 * intel_pt_recording_options' have_sched_switch: 0 none, 2 PERF_RECORD_SWITCH
 * (per task), 3 PERF_RECORD_SWITCH_CPU_WIDE (per CPU).
 */
static int aux_have_sched_switch(const struct session *s)
{
	for (size_t i = 0; i < s->evl.nr; i++)
		if (s->evl.evsel[i].ev.attr.context_switch)
			return record_opts__cpu_wide(s->o) ? 3 : 2;
	return 0;
}

/*
 * PERF_RECORD_AUXTRACE_INFO of the AUX event (aux/aux_info.c), first of the
 * synthesized records as perf writes it: readers need it before any AUXTRACE.
 */
static int session__synth_auxtrace_info(struct session *s, struct recbuf *b)
{
	const struct evsel *e = &s->evl.evsel[s->evl.aux_evsel];
	struct aux_info_params p = {.pmu = e->ev.pmu, .pmu_type = e->ev.attr.type,
				    .config = e->ev.attr.config, .cpus = s->evl.cpus,
				    .nr_cpus = s->evl.nr_cpus, .per_cpu = true,
				    .pc = s->evl.mmaps[0].core.pc, .snapshot = s->evl.aux_snapshot,
				    .have_sched_switch = aux_have_sched_switch(s)};
	/* CoreSight's per-CPU metadata grows with the CPUs: a record's most. */
	unsigned char *buf = malloc(UINT16_MAX);
	long len = buf ? aux_info__build(&p, buf, UINT16_MAX) : -ENOMEM;

	if (len == -ENOENT && aux_pmu__type(e->ev.pmu) == AUX_TYPE_CS_ETM)
		snprintf(s->err, sizeof(s->err), "%s: CoreSight registers missing under "
			 "/sys/bus/event_source/devices/%s/cpuN/ (trcidr/, mgmt/)", e->ev.name,
			 e->ev.pmu);
	else if (len < 0)
		snprintf(s->err, sizeof(s->err), "%s: cannot describe its AUX data for perf: %s",
			 e->ev.name, len == -EOPNOTSUPP ? "perf knows no decoder for this PMU" :
			 strerror(-len));
	else
		len = recbuf__append(b, buf, len);
	free(buf);
	return len < 0 ? len : 0;
}

static bool session__has_task(const struct session *s)
{
	return s->o->pid_list || s->o->tid_list || s->o->uid;
}

/*
 * COMM, FORK and MMAP records of the target's tasks as /proc shows them now,
 * for the targets perf's __machine__synthesize_threads() describes: a task
 * list (-p/-t/-u) first, else every process (-a/-C). A workload alone gets
 * none in the first file: it is exec'd after the events are enabled, so the
 * kernel reports it; a rotated file describes it and its children.
 */
static int session__synth_tasks(struct session *s, struct synth *sy)
{
	int ret = 0;

	/* Other users' /proc/PID/maps, when the site granted CAP_SYS_PTRACE. */
	privs__raise(PRIVS_F(PRIVS_SYS_PTRACE));
	/* -u names whole processes, some of which may be out of reach: skip those. */
	sy->skip_unreadable = s->o->uid != NULL;
	if (session__has_task(s))
		ret = synth__threads(sy, s->evl.threads, s->evl.nr_threads);
	else if (record_opts__cpu_wide(s->o))
		ret = synth__all_processes(sy);
	/*
	 * A rotated file: the command as perf's record__synthesize_workload
	 * describes it, its COMM and maps only (the thread map of its pid):
	 * a time-0 FORK of it made readers that order by time (hotspot's
	 * perfparser) start it afresh without maps. The end of a flight
	 * recording: it and its children, whose exec may be overwritten.
	 */
	else if (s->workload_running && s->rot)
		ret = synth__threads(sy, &s->wl.pid, 1);
	else if (s->workload_running)
		ret = synth__tree(sy, s->wl.pid);
	privs__lower();
	if (ret && sy->err_path[0])
		snprintf(s->err, sizeof(s->err), "cannot describe the target's memory maps: %s: %s",
			 sy->err_path, strerror(-ret));
	/* Rotation describes the tasks again for every file: the same warnings once. */
	if (s->synth_warned)
		return ret;
	s->synth_warned = s->rot != NULL;
	if (sy->nr_map_timeouts)
		pr_warn("reading the maps of %u process%s timed out: raise --proc-map-timeout",
			sy->nr_map_timeouts, sy->nr_map_timeouts > 1 ? "es" : "");
	if (!ret && sy->nr_unreadable)
		pr_warn("%u process%s skipped: memory maps unreadable (%s: %s), so %s samples will "
			"not resolve to symbols", sy->nr_unreadable, sy->nr_unreadable > 1 ? "es" : "",
			sy->err_path, strerror(-sy->unreadable_err),
			sy->nr_unreadable > 1 ? "their" : "its");
	return ret;
}

/* perf's sample_address: the records of data mappings are wanted (-d, DWARF). */
static bool session__mmap_data(const struct session *s)
{
	for (size_t e = 0; e < s->evl.nr; e++)
		if (s->evl.evsel[e].ev.attr.mmap_data)
			return true;
	return false;
}

/* What --synth, --namespaces and --proc-map-timeout ask of the task records. */
static void session__synth_opts(const struct session *s, struct synth *sy)
{
	sy->no_mmap = !(s->o->synth & RECORD_SYNTH_MMAP);
	sy->namespaces = s->o->namespaces;
	sy->has_map_timeout = true;
	sy->proc_map_timeout_ms = s->o->proc_map_timeout_ms;
}

/*
 * perf's order after the kernel's maps: THREAD_MAP, CPU_MAP, the BPF
 * programs already loaded, the hierarchy's CGROUPs (--all-cgroups), the
 * tasks, the command's NAMESPACES (--namespaces), FINISHED_INIT.
 */
static int session__synth_targets(struct session *s, struct synth *sy, bool tasks)
{
	char root[4096];
	int ret = synth__thread_map(sy, s->evl.threads, s->evl.nr_threads);

	if (!ret)
		ret = synth__cpu_map(sy, s->evl.cpus, s->evl.nr_cpus);
	if (!ret)
		ret = synth__bpf_programs(sy, !s->o->no_bpf_event);
	if (!ret) {
		/* kallsyms gives the images' addresses to CAP_SYSLOG only */
		privs__raise(PRIVS_F(PRIVS_SYSLOG));
		ret = synth__bpf_images(sy);
		privs__lower();
	}
	if (!ret && s->o->all_cgroups && (s->o->synth & RECORD_SYNTH_CGROUP))
		ret = synth__cgroups(sy, cgroup2__mountpoint(root, sizeof(root)));
	/* --tail-synthesize: the tasks as they are at the end (session__write_tail_synth) */
	if (!ret && tasks && !s->o->tail_synthesize && (s->o->synth & RECORD_SYNTH_TASK))
		ret = session__synth_tasks(s, sy);
	if (!ret && s->o->namespaces && s->have_workload)
		ret = synth__namespaces(sy, s->wl.pid, s->wl.pid);
	if (!ret)
		ret = synth__finished_init(sy);
	return ret;
}

/*
 * The kernel's and the modules' maps. Rotation keeps the first file's for
 * the next ones, as perf reads kallsyms once: a switch must not take the
 * tenth of a second that costs on a busy machine.
 */
static int session__synth_kernel(struct session *s, struct synth *sy)
{
	size_t from = sy->out->len;
	int ret;

	if (s->kernel_maps.len)
		return recbuf__append(sy->out, s->kernel_maps.data, s->kernel_maps.len);
	/* The kernel checks CAP_SYSLOG with the creds of the open of kallsyms. */
	privs__raise(PRIVS_F(PRIVS_SYSLOG));
	ret = synth__kernel_mmap(sy);
	if (ret == -EPERM && privs__samples_kernel(&s->evl))
		pr_warn("kernel addresses are hidden: kernel symbols will not resolve (needs "
			"CAP_SYSLOG, or kernel.kptr_restrict=0 and kernel.perf_event_paranoid <= 1)");
	ret = synth__modules(sy);
	privs__lower();
	if (ret && ret != -ENOENT)
		pr_warn("cannot synthesize module maps: %s", strerror(-ret));
	return s->rot ? recbuf__append(&s->kernel_maps, sy->out->data + from, sy->out->len - from)
		      : 0;
}

/* The prologue into @b; @bpf: what the header's BPF sections take of the programs. */
static int session__synth(struct session *s, struct recbuf *b, bool tasks,
			  struct synth_bpf_env *bpf)
{
	struct synth sy = {.layout = &s->evl.layout, .out = b, .mmap_data = session__mmap_data(s),
			   .bpf_env = bpf};
	int ret;

	session__synth_opts(s, &sy);
	/* perf's order: ID_INDEX, then AUXTRACE_INFO (its decoders map ids to CPUs). */
	ret = evlist__id_index(&s->evl, b);
	if (!ret && s->evl.aux_evsel >= 0)
		ret = session__synth_auxtrace_info(s, b);
	if (!ret)
		ret = session__synth_kernel(s, &sy);
	return ret ? ret : session__synth_targets(s, &sy, tasks);
}

static int session__features(struct session *s, struct pfile_featset *fs,
			     const struct pfile_event *ev, const uint8_t *run_id,
			     const struct synth_bpf_env *bpf)
{
	struct timespec res;
	int ret;

	ret = sysinfo__collect(fs, s->o->full_argc, s->o->full_argv, NULL, NULL);
	if (!ret)
		ret = pfile_feat__event_desc(fs, ev, s->evl.nr);
	if (!ret)
		ret = evlist__group_desc(&s->evl, fs);
	if (!ret)
		ret = tracing_data__feature(fs, ev, s->evl.nr, NULL, s->err, sizeof(s->err));
	/*
	 * The programs the synthesis described. perf adds those loaded while
	 * it records (its side-band thread); not done here (README, Limitations).
	 */
	if (!ret)
		ret = synth_bpf_env__features(bpf, fs);
	/* perf writes both only with use_clockid: not for the perf clock. */
	if (!ret && s->evl.clockid != CLOCK_PERF) {
		clock_getres(s->evl.clockid, &res);
		ret = pfile_feat__clockid(fs, (uint64_t)res.tv_sec * 1000000000ULL + res.tv_nsec);
	}
	if (!ret && s->evl.clockid != CLOCK_PERF) {
		/* Reference pair for perf script --clock-tod: read back to back. */
		uint64_t tod = clock__ns(CLOCK_REALTIME), clk = clock__ns(s->evl.clockid);

		ret = pfile_feat__clock_data(fs, s->evl.clockid, tod, clk);
	}
	/* -b/-j: perf marks the file (an empty section) so that perf report shows branches. */
	if (!ret && s->o->branch_stack)
		ret = pfile_featset__set(fs, PFILE_FEAT_BRANCH_STACK, NULL, 0);
	/* The merge fills in the ratio; the level is only known here. */
	if (!ret && s->o->zlevel)
		ret = pfile_feat__compressed(fs, s->o->zlevel, 0, ZPASS_MMAP_LEN);
	/* shardrec's own: the merge checks it against the shards' and drops it. */
	if (!ret)
		ret = pfile_featset__set(fs, SHARD_FEAT_RUN_ID, run_id, SHARD_RUN_ID_SIZE);
	return ret;
}

/*
 * Where a header goes: the session's directory, or during a switch the next
 * generation's, before any writer moves there (with that one's run id).
 * @tasks false: a stand-in that describes no task, cheap to write.
 */
struct header_dest {
	int dirfd;
	const char *dir;
	const char *name;
	const uint8_t *run_id;
	bool tasks;
};

/* A complete perf.data holding the synthesized prologue, as @d says. */
static int session__header_to(struct session *s, const struct header_dest *d)
{
	struct pfile_event *ev = calloc(s->evl.nr, sizeof(*ev));
	struct pfile_featset fs = {0};
	struct synth_bpf_env bpf = {0};
	struct pfile_header h;
	struct recbuf b = {0};
	uint64_t data_off, end;
	int fd = -1, ret = -ENOMEM;

	if (!ev)
		goto out;
	evlist__pfile_events(&s->evl, ev);
	ret = session__synth(s, &b, d->tasks, &bpf);
	if (!ret)
		ret = session__features(s, &fs, ev, d->run_id, &bpf);
	if (ret)
		goto out;
	fd = openat(d->dirfd, d->name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	pfile_header__init(&h);
	ret = pfile__write_attrs(fd, PFILE_HEADER_SIZE, ev, s->evl.nr, &h.attrs, &data_off);
	if (!ret)
		ret = pfile__pwrite_full(fd, b.data, b.len, data_off);
	h.data.offset = data_off;
	h.data.size = b.len;
	if (!ret)
		ret = pfile__write_features(fd, data_off + b.len, &fs, h.features, &end);
	if (!ret)
		ret = pfile__write_header(fd, &h);
	/*
	 * --max-size counts all of header.data first: the merge copies its
	 * records, attrs and features into the file, and with -a the records
	 * alone (an MMAP2 for each executable mapping of every process) can
	 * take megabytes on a busy machine. Only then: rotation (never with
	 * --max-size) writes a header per file while the writers count on.
	 */
	if (!ret && s->o->max_size)
		atomic_store_explicit(&s->shard_bytes, end, memory_order_relaxed);
out:
	if (ret && !s->err[0])
		snprintf(s->err, sizeof(s->err), "%s/%s: %s", d->dir, d->name, strerror(-ret));
	if (fd >= 0)
		close(fd);
	pfile_featset__release(&fs);
	/* The first header's programs start the recording's (the side band adds to them). */
	if (!ret && !s->bpf_env_set) {
		s->bpf_env = bpf;
		s->bpf_env_set = true;
		memset(&bpf, 0, sizeof(bpf));
	}
	synth_bpf_env__release(&bpf);
	recbuf__release(&b);
	free(ev);
	return ret;
}

int session__write_header(struct session *s)
{
	struct header_dest d = {s->dirfd, s->dir, "header.data", s->run_id, true};

	return session__header_to(s, &d);
}

/*
 * A generation's header.data before its first writer moves in: without it
 * a recorder killed during the switch strands every record of the
 * generation (merge --recover needs the attrs), and a disk that fills
 * during the switch leaves the lost counts of tail.raw in no readable
 * directory. Written here, a full disk fails the switch, not the file.
 */
int session__write_header_standin(struct session *s, int dirfd, const char *dir,
				  const uint8_t *run_id)
{
	struct header_dest d = {dirfd, dir, "header.data", run_id, false};
	int ret = session__header_to(s, &d);

	if (ret)
		unlinkat(dirfd, "header.data", 0);
	return ret;
}

/*
 * The stand-in replaced by the tasks as they are after the switch (perf
 * synthesizes them then, so that none started in between goes
 * undescribed): written aside and renamed over it, so that a kill or a
 * full disk at any point leaves one complete header.
 */
int session__replace_header(struct session *s)
{
	struct header_dest d = {s->dirfd, s->dir, "header.data.new", s->run_id, true};
	int ret = session__header_to(s, &d);

	if (!ret && renameat(s->dirfd, d.name, s->dirfd, "header.data"))
		ret = -errno;
	if (ret)
		unlinkat(s->dirfd, d.name, 0);
	return ret;
}

/* Writes @b whole into @name of the shard directory (a new tail file). 0 / -errno. */
static int session__write_file(struct session *s, const char *name, const struct recbuf *b)
{
	struct shard_tail t;
	int ret;

	ret = shard_tail__create(&t, s->dirfd, name, s->run_id, b->len);
	if (!ret)
		ret = shard_tail__finish(&t, b->data, b->len);
	shard_tail__close(&t);
	return ret;
}

/*
 * tail.raw, before recording starts: its space reserved for every lost
 * count, so that a disk filled by the shards cannot take them (issue 20).
 */
int session__reserve_tail(struct session *s)
{
	int ret = shard_tail__create(&s->tail, s->dirfd, "tail.raw", s->run_id,
				     evlist__lost_bound(&s->evl));

	if (ret)
		snprintf(s->err, sizeof(s->err), "%s/tail.raw: cannot reserve %zu bytes for the "
			 "lost counts: %s", s->dir, evlist__lost_bound(&s->evl), strerror(-ret));
	return ret;
}

/* The lost counts into tail.raw's reserved space, and the mark of a finished run. */
int session__write_tail(struct session *s)
{
	struct recbuf b = {0};
	int ret;

	ret = evlist__read_lost(&s->evl, &b, &s->lost_samples, s->lost_base);
	if (!ret)
		ret = shard_tail__finish(&s->tail, b.data, b.len);
	recbuf__release(&b);
	return ret;
}

/*
 * --overwrite: the tasks' COMM and MMAP records went into the backward
 * rings with everything else, and the kernel overwrites them first, being
 * the oldest. Describe the tasks again at the end (perf's tail_synthesize);
 * the merge puts tail.synth right after the prologue, before any sample.
 */
int session__write_tail_synth(struct session *s)
{
	struct recbuf b = {0};
	struct synth sy = {.layout = &s->evl.layout, .out = &b, .mmap_data = session__mmap_data(s)};
	int ret;

	if (!(s->o->synth & RECORD_SYNTH_TASK))
		return 0;
	session__synth_opts(s, &sy);
	ret = session__synth_tasks(s, &sy);
	if (!ret && b.len)
		ret = session__write_file(s, "tail.synth", &b);
	recbuf__release(&b);
	return ret;
}
