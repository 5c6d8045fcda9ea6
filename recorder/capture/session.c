// SPDX-License-Identifier: GPL-2.0
#include "recorder/capture/session.h"
#include "numa/numa.h"
#include "recorder/capture/control.h"
#include "recorder/capture/fault.h"
#include "recorder/capture/membudget.h"
#include "recorder/capture/pipe_out.h"
#include "recorder/capture/record_ctl.h"
#include "recorder/capture/session_internal.h"
#include "recorder/capture/target.h"
#include "recorder/capture/workload.h"
#include "recorder/capture/writer.h"
#include "recorder/capture/writer_report.h"
#include "recorder/codec/zunpass.h"
#include "recorder/events/evlist.h"
#include "recorder/events/privs_open.h"
#include "recorder/events/record_opts.h"
#include "recorder/header/buildid_cache.h"
#include "recorder/header/dso_hits.h"
#include "recorder/header/sysinfo.h"
#include "recorder/merge/merge.h"
#include "recorder/perfdata/recbuf.h"
#include "recorder/perfdata/shard.h"
#include "recorder/perfdata/shard_tail.h"
#include "recorder/util/clock.h"
#include "recorder/util/log.h"
#include "recorder/util/privs.h"
#include "recorder/util/progress.h"
#include "recorder/util/rlimit.h"
/* The summaries read ring statistics (pressure, pauses) and fds: the ring's layout. */
#include "ringbuf/ring_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define WRITER_IDLE_MS 100
/*
 * Writers' SCHED_FIFO priority when -r is not given and the system allows
 * it: the lowest real-time one, above every normal task, so a workload
 * that keeps the CPUs busy cannot starve the writer while its rings fill.
 */
#define WRITER_DEFAULT_RT_PRIO 1

/* ---- target ---- */

/* record_opts.workload_too: the held command's task joins the -p tasks. 0 / -errno. */
static int session__target_workload(struct session *s, pid_t **threads, int *nr)
{
	size_t n = *nr;
	int ret;

	if (!s->o->workload_too || !s->have_workload)
		return 0;
	ret = target__add_tasks(s->wl.pid, threads, &n);
	if (ret)
		snprintf(s->err, sizeof(s->err), "cannot add the command's task %d: %s",
			 (int)s->wl.pid, strerror(-ret));
	*nr = n;
	return ret;
}

static int session__target(struct session *s)
{
	struct record_opts *o = s->o;
	int *cpus = NULL, nr_cpus;
	pid_t *threads = NULL, all = -1;
	int nr_threads = 1, ret;

	if (o->cpu_list)
		nr_cpus = target__cpu_list(o->cpu_list, &cpus, s->err, sizeof(s->err));
	else
		nr_cpus = sysinfo__online_cpus(NULL, &cpus);
	if (nr_cpus < 0) {
		if (!s->err[0])
			snprintf(s->err, sizeof(s->err), "cannot read online CPUs: %s",
				 strerror(-nr_cpus));
		return nr_cpus;
	}
	if (o->pid_list || o->tid_list) {
		nr_threads = target__threads(o->pid_list, o->tid_list, &threads, s->err,
					     sizeof(s->err));
		if (nr_threads < 0) {
			free(cpus);
			return nr_threads;
		}
		ret = session__target_workload(s, &threads, &nr_threads);
		if (ret) {
			free(cpus);
			free(threads);
			return ret;
		}
	} else if (o->uid) {
		nr_threads = record_ctl__uid_threads(o->uid, &threads, s->err, sizeof(s->err));
		if (nr_threads < 0) {
			free(cpus);
			return nr_threads;
		}
	} else if (s->have_workload && !record_opts__cpu_wide(o)) {
		all = s->wl.pid;
	}
	ret = evlist__set_target(&s->evl, cpus, nr_cpus, threads ? threads : &all, nr_threads);
	free(cpus);
	free(threads);
	return ret;
}

/* ---- plan and writers ---- */

/* -r PRIO, or the default when -r is not given. */
static int session__rt_prio(const struct session *s)
{
	return s->o->realtime >= 0 ? s->o->realtime : WRITER_DEFAULT_RT_PRIO;
}

static int session__plan(struct session *s)
{
	struct topo_params tp = {s->o->topology_xml, s->o->synthetic};
	struct plan_spec spec;
	int ret;

	ret = plan_spec__parse(s->o->threads, &spec, s->err, sizeof(s->err));
	if (!ret)
		ret = writer__copy_div(&s->copy_div, s->err, sizeof(s->err));
	if (ret)
		return ret;
	/*
	 * A writer at normal priority shares its CPUs with the workload and
	 * drains them only when the scheduler lets it: the context-switch storm
	 * at -m 4 lost 1.4-4.8% with one such writer for 2 CPUs, and nothing
	 * with one per CPU, as perf --threads. Without -r's real-time priority
	 * (-r 0, or no CAP_SYS_NICE nor RLIMIT_RTPRIO), the default plan gives
	 * each CPU its writer.
	 */
	s->writers_rt = writer__can_realtime(session__rt_prio(s));
	if (!s->o->threads && !s->writers_rt)
		spec.policy = PLAN_CPU;
	s->topo = topo__load(&tp, s->err, sizeof(s->err));
	if (!s->topo)
		return -EINVAL;
	/* Another machine's plan (--dry-run only): its CPUs, not our online ones. */
	if (!topo__is_this_system(s->topo))
		return plan__build_list(&s->plan, s->topo, &spec, s->o->cpu_list, s->err,
					sizeof(s->err));
	return plan__build(&s->plan, s->topo, &spec, s->evl.cpus, s->evl.nr_cpus, s->err,
			   sizeof(s->err));
}

static struct evlist_mmap *mmap_of_cpu(struct session *s, int cpu)
{
	for (size_t c = 0; c < s->evl.nr_cpus; c++)
		if (s->evl.cpus[c] == cpu)
			return &s->evl.mmaps[c];
	return NULL;
}

/*
 * Gives each writer its group's rings and AUX areas. The writer takes them
 * by value: a ring and its AUX area are then read only by its writer
 * thread; the evlist keeps the mappings, to unmap them.
 */
static int session__writers(struct session *s)
{
	s->writers = calloc(s->plan.nr_groups, sizeof(*s->writers));
	s->group_maps = calloc(s->plan.nr_groups, sizeof(*s->group_maps));
	if (!s->writers || !s->group_maps)
		return -ENOMEM;
	for (size_t g = 0; g < s->plan.nr_groups; g++) {
		const struct plan_group *grp = &s->plan.groups[g];
		struct writer_params p = {
			.idx = g, .group = grp, .nr_maps = grp->nr_cpus, .dirfd = s->dirfd,
			.clockid = s->evl.clockid, .idle_ms = WRITER_IDLE_MS,
			.pin = topo__is_this_system(s->topo) && s->o->affinity != RECORD_AFFINITY_SYS,
			.pin_node = s->o->affinity == RECORD_AFFINITY_NODE,
			.rt_prio = session__rt_prio(s),
			.zlevel = s->o->zlevel,
			.max_size = s->o->max_size,
			.shard_bytes = &s->shard_bytes,
			.overwrite = s->evl.backward,
			.copy_div = s->copy_div,
			.run_id = s->run_id,
			.rotate = session__rotate_writers(s),
		};

		s->group_maps[g] = calloc(grp->nr_cpus, sizeof(struct evlist_mmap));
		if (!s->group_maps[g])
			return -ENOMEM;
		for (size_t i = 0; i < grp->nr_cpus; i++)
			s->group_maps[g][i] = *mmap_of_cpu(s, grp->cpus[i]);
		p.maps = s->group_maps[g];
		s->writers[g] = writer__new(&p);
		if (!s->writers[g]) {
			snprintf(s->err, sizeof(s->err), "%s/shard.%zu: %s", s->dir, g,
				 strerror(errno));
			return -errno;
		}
		s->nr_writers++;
	}
	return 0;
}

/* The first writer's failure to take its real-time priority, 0 if none failed. */
static int session__sched_err(const struct session *s)
{
	int err = 0;

	for (size_t g = 0; g < s->nr_writers && !err; g++)
		err = writer__stats(s->writers[g])->sched_err;
	return err;
}

/*
 * Writers that could not take the real-time priority run normally: said
 * once when -r asked for it; the default just falls back (the loss summary
 * names -r when rings overflowed).
 */
static void session__report_sched(const struct session *s)
{
	int err = session__sched_err(s);

	if (!err || s->o->realtime < 0)
		return;
	pr_warn("-r %d: writers run at normal priority (%s): run as root, install with "
		"cap_sys_nice (README, Privileges) or raise 'ulimit -r' to %d",
		s->o->realtime, strerror(-err), s->o->realtime);
}

static int session__start_writers(struct session *s)
{
	int ret = 0;

	for (size_t g = 0; g < s->nr_writers && !ret; g++) {
		ret = writer__start(s->writers[g]);
		if (ret)
			snprintf(s->err, sizeof(s->err), "cannot start writer %zu: %s", g,
				 strerror(-ret));
	}
	/* Each started writer has dropped its own capabilities: now the main thread. */
	privs__drop_kept();
	if (!ret)
		session__report_sched(s);
	return ret;
}

static void session__stop_writers(struct session *s)
{
	for (size_t g = 0; g < s->nr_writers; g++)
		writer__stop(s->writers[g]);
	for (size_t g = 0; g < s->nr_writers; g++) {
		int err = writer__join(s->writers[g]);

		if (err)
			writer_report__stopped(g, writer__stats(s->writers[g]), &s->plan.groups[g],
					       s->group_maps[g], &s->evl);
	}
}

/* ---- finishing ---- */

/* The path still names the directory session__mkdir created (and s->dirfd holds). */
static bool session__dir_is_ours(const struct session *s)
{
	struct stat a, b;

	return !fstat(s->dirfd, &a) && !lstat(s->dir, &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

static void remove_shards(struct session *s)
{
	shard_dir__unlink(s->dirfd, s->plan.nr_groups);
	if (!session__dir_is_ours(s))
		pr_warn("%s was replaced during the run: the recording's own shard directory "
			"was merged and emptied, the one now at that path is left alone",
			s->dir);
	else if (rmdir(s->dir))
		pr_warn("%s: not removed: %s", s->dir, strerror(errno));
}

/* "ring pages on node 1", "ring pages on nodes 0,1" or "ring pages on node ? (why)". */
static char *ring_nodes_str(const struct writer_stats *st, char *buf, size_t len)
{
	int nodes[64], n = 0;
	char list[256];

	if (st->node_ring >= 0) {
		snprintf(buf, len, "ring pages on node %d", st->node_ring);
	} else if (st->node_ring == -EXDEV) {
		for (int i = 0; i < 64; i++)
			if (st->ring_nodes & (1ULL << i))
				nodes[n++] = i;
		snprintf(buf, len, "ring pages on nodes %s", cpulist__format(nodes, n, list, sizeof(list)));
	} else if (st->node_ring == -ENOENT) {
		/* Touched yet absent: recent kernels map rings VM_PFNMAP, which move_pages cannot see. */
		snprintf(buf, len, "ring pages on node ? (the kernel hides PFN-mapped rings)");
	} else {
		snprintf(buf, len, "ring pages on node ? (%s)", strerror(-st->node_ring));
	}
	return buf;
}

/* -v: a writer's fullest ring, on a line of its own after the writer's line. */
static void print_high_water(size_t g, const struct writer_stats *st,
			     const struct evlist_mmap *maps, size_t nr)
{
	struct ring_pressure hw;

	writer_report__high_water(maps, nr, &hw);
	if (hw.cpu < 0) {
		pr_info("high-water of writer %zu: no ring read found data", g);
		return;
	}
	pr_info("high-water of writer %zu: ring of cpu %d %.0f%% full (%llu of %llu bytes) at %.2f s",
		g, hw.cpu, ring_pressure__pct(&hw), (unsigned long long)hw.fill,
		(unsigned long long)hw.size,
		writer_report__secs(hw.time, st->start_time));
}

static void print_writers(struct session *s)
{
	/* What --affinity takes, the default named as the value it equals. */
	static const char *const aff[] = {"cpu (the default)", "sys", "node", "cpu"};
	char cpus[256], ring[300];

	pr_info("writers: --affinity=%s, woken at %u ring bytes (--mmap-flush)", aff[s->o->affinity],
		s->evl.nr ? s->evl.evsel[0].ev.attr.wakeup_watermark : 0);
	for (size_t g = 0; g < s->nr_writers; g++)
		pr_info("affinity of writer %zu: may run on %d cpus", g,
			writer__stats(s->writers[g])->nr_allowed);

	for (size_t g = 0; g < s->nr_writers; g++) {
		const struct writer_stats *st = writer__stats(s->writers[g]);
		const struct plan_group *grp = &s->plan.groups[g];

		pr_info("writer %zu: node %d, cpus %s, %.3f MB in %llu passes, buffers on node %d, %s%s",
			g, grp->node, cpulist__format(grp->cpus, grp->nr_cpus, cpus, sizeof(cpus)),
			st->bytes / 1e6, (unsigned long long)st->passes, st->node_buf,
			ring_nodes_str(st, ring, sizeof(ring)), st->err ? " (stopped early)" : "");
		/* Backward rings are full by design: no pressure to show. */
		if (!s->evl.backward)
			print_high_water(g, st, s->group_maps[g], grp->nr_cpus);
		pr_info("writes of writer %zu: %.3f s in all, the longest %.3f ms at %.2f s; "
			"%llu of %.0f ms or more, %llu of %.0f ms or more, %llu of %.0f ms or more",
			g, st->write_ns / 1e9, st->write_max_ns / 1e6,
			writer_report__secs(st->write_max_at, st->start_time),
			(unsigned long long)st->writes_over[0], writer_slow_ns[0] / 1e6,
			(unsigned long long)st->writes_over[1], writer_slow_ns[1] / 1e6,
			(unsigned long long)st->writes_over[2], writer_slow_ns[2] / 1e6);
		if (s->copy_div)
			pr_info("copy-out of writer %zu (rings at 1/%u full): %.3f MB", g,
				s->copy_div, st->copied / 1e6);
	}
}

/*
 * Heavy loss: say what would help, with numbers, where perf says "Check
 * IO/CPU overload!". Not for --overwrite (loss is its mode) nor when a
 * writer stopped early (writer_report__stopped said why).
 */
static void print_loss_advice(struct session *s, const struct merge_stats *ms)
{
	struct loss_advice a = {.samples = ms->samples, .lost_samples = ms->lost_samples,
				.lost_records = ms->lost_records, .hw = {.cpu = -1},
				.start = UINT64_MAX, .mmap_pages = s->evl.data_pages,
				.nr_writers = s->nr_writers, .nr_cpus = s->evl.nr_cpus,
				.rt_prio = session__rt_prio(s)};
	char buf[512];

	for (size_t g = 0; g < s->nr_writers; g++) {
		const struct writer_stats *st = writer__stats(s->writers[g]);
		struct ring_pressure hw;

		if (st->err || s->evl.backward)
			return;
		if (st->sched_err) {
			a.rt_err = st->sched_err;
			a.rt_prio = 0;
		}
		if (st->start_time < a.start)
			a.start = st->start_time;
		if (st->write_max_ns > a.write_max_ns)
			a.write_max_ns = st->write_max_ns;
		writer_report__high_water(s->group_maps[g], s->plan.groups[g].nr_cpus, &hw);
		if (ring_pressure__worse(&hw, &a.hw))
			a.hw = hw;
	}
	if (writer_report__heavy_loss(&a))
		pr_warn("%s", writer_report__advice(&a, buf, sizeof(buf)));
}

/*
 * --overwrite: what the dumps took, what the kernel overwrote before one
 * came, and the longest a ring was paused for a dump (it drops records then).
 */
static void print_flight_recorder(struct session *s)
{
	uint64_t dumps = 0, overwritten = 0, pause_max = 0;

	for (size_t g = 0; g < s->nr_writers; g++) {
		dumps += writer__stats(s->writers[g])->dumps;
		for (size_t i = 0; i < s->plan.groups[g].nr_cpus; i++) {
			const struct ring *r = &s->group_maps[g][i].core;

			overwritten += r->overwritten;
			pause_max = r->pause_ns_max > pause_max ? r->pause_ns_max : pause_max;
		}
	}
	pr_info("[ shardrec record: flight recorder: %u snapshot request%s, %llu ring dumps, "
		"%.3f MB overwritten before a dump, rings paused %.3f ms at most ]",
		s->snapshots, s->snapshots == 1 ? "" : "s", (unsigned long long)dumps,
		overwritten / 1e6, pause_max / 1e6);
}

/*
 * What the writers ran at: loss depends on it (a writer at normal priority
 * waits for the workload's time slices), so the summary says it.
 */
static void session__writer_prio(const struct session *s, char *buf, size_t len)
{
	if (session__rt_prio(s) && !session__sched_err(s))
		snprintf(buf, len, "SCHED_FIFO %d", session__rt_prio(s));
	else if (!s->o->threads && !s->writers_rt) /* session__plan's choice */
		snprintf(buf, len, "normal priority: one per CPU");
	else
		snprintf(buf, len, "normal priority");
}

void session__print_summary(struct session *s, const struct merge_stats *ms, const char *output)
{
	char note[256], prio[64];

	if (s->o->verbose)
		print_writers(s);
	if (s->o->quiet)
		return;
	session__writer_prio(s, prio, sizeof(prio));
	/* -o -: the merge streamed during the whole run; its time is the run's, not a merge's. */
	if (s->pipe.fd >= 0)
		pr_info("[ shardrec record: %zu writer%s (%s), streamed %.3f MB of shards while "
			"recording (%.2f s) ]", s->nr_writers, s->nr_writers == 1 ? "" : "s", prio,
			ms->bytes_in / 1e6, ms->seconds);
	else
		pr_info("[ shardrec record: %zu writer%s (%s), merged %.3f MB of shards in %.2f s ]",
			s->nr_writers, s->nr_writers == 1 ? "" : "s", prio, ms->bytes_in / 1e6,
			ms->seconds);
	pr_info("[ shardrec record: Captured and wrote %.3f MB %s (%llu samples), %llu lost "
		"records, %llu lost samples ]",
		ms->bytes_out / 1e6, output, (unsigned long long)ms->samples,
		(unsigned long long)ms->lost_records, (unsigned long long)ms->lost_samples);
	print_loss_advice(s, ms);
	/*
	 * A hole in an AUX trace is loss too: never leave it unsaid. In snapshot
	 * mode every AUX record says OVERWRITE: that is the mode, not a loss.
	 */
	if (ms->aux_truncated || ms->aux_partial || ms->aux_collision ||
	    (ms->aux_overwrite && !s->evl.aux_snapshot))
		pr_warn("AUX trace: %llu of %llu AUX records truncated, %llu partial, %llu "
			"collision, %llu overwrite",
			(unsigned long long)ms->aux_truncated, (unsigned long long)ms->aux_records,
			(unsigned long long)ms->aux_partial, (unsigned long long)ms->aux_collision,
			(unsigned long long)ms->aux_overwrite);
	if (ms->auxtrace_records)
		pr_info("[ shardrec record: %llu MB of AUX trace in %llu AUXTRACE records ]",
			(unsigned long long)(ms->auxtrace_bytes >> 20),
			(unsigned long long)ms->auxtrace_records);
	if (s->evl.backward)
		print_flight_recorder(s);
	if (ms->compressed)
		pr_info("[ shardrec record: Compressed %.3f MB of ring data to %.3f MB, ratio is "
			"%.3f ]",
			ms->bytes_raw / 1e6, ms->bytes_in / 1e6,
			ms->bytes_in ? (double)ms->bytes_raw / ms->bytes_in : 0.0);
	if (merge_stats__late_note(ms, note, sizeof(note))) {
		if (ms->late)
			pr_warn("%s", note);
		else
			pr_info("[ shardrec record: %s ]", note);
	}
}

/* What the shards hold: what a merge would read. */
static uint64_t session__shard_bytes(const struct session *s)
{
	uint64_t n = 0;
	char name[32];
	struct stat st;

	for (size_t g = 0; g < s->plan.nr_groups; g++) {
		snprintf(name, sizeof(name), "shard.%zu", g);
		if (!fstatat(s->dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
			n += st.st_size;
	}
	return n;
}

/* The caller's say (record_hooks.may_merge) on whether the time left covers the merge. */
static bool session__may_merge(struct session *s)
{
	const struct record_hooks *h = s->o->hooks;
	struct record_merge_plan p = {
		.dir = s->dir, .stop_signal = s->stop_signal, .stop_ms = s->stop_ms,
	};

	if (!h || !h->may_merge)
		return true;
	p.shard_bytes = session__shard_bytes(s);
	return h->may_merge(h->arg, &p);
}

/*
 * A merge writes about what the shards hold beside them (in -o's file
 * system, which with --shard-dir is another one): when that space is not
 * there, a merge bound to fail is not started and the shards stay whole.
 * Passes' framing and header.data roughly cancel out; 1/16 is left for
 * what the estimate misses. 0 / -ENOSPC with one line in @err.
 */
static int session__check_space(struct session *s, char *err, size_t len)
{
	uint64_t need = session__shard_bytes(s) / 16 * 15, avail;
	char dir[PATH_MAX];
	struct statvfs vfs;

	session__output_dir(s, dir, sizeof(dir));
	if (statvfs(dir, &vfs))
		return 0; /* the merge's own error says more */
	avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	if (avail >= need)
		return 0;
	snprintf(err, len, "the output needs about %.1f MB in %s, which has %.1f MB free",
		 need / 1e6, dir, avail / 1e6);
	return -ENOSPC;
}

/* The file output: merge__run with a progress bar. */
static int session__merge_file(struct session *s, struct merge_stats *ms, char *err, size_t len)
{
	struct merge_opts mo = {
		.dir = s->dir, .have_dirfd = true, .dirfd = s->dirfd,
		.output = s->o->output, .build_ids = !s->o->no_buildid,
		.dec = &zunpass__ops,
		.hits = s->o->buildid_all ? &dso_hits__all_ops : &dso_hits__ops,
		.features = s->have_sb ? session__bpf_features : NULL, .features_arg = s,
	};
	struct progress prog;
	int ret = session__check_space(s, err, len);

	if (ret) {
		memset(ms, 0, sizeof(*ms));
		return ret;
	}
	if (!s->o->quiet) {
		progress__init(&prog, "merging", stderr);
		mo.progress = progress__cb;
		mo.progress_arg = &prog;
	}
	ret = merge__run(&mo, ms, err, len);
	if (!s->o->quiet)
		progress__finish(&prog, ms->bytes_in, ms->bytes_in);
	return ret;
}

static int session__merge(struct session *s)
{
	bool pipe = s->pipe.fd >= 0;
	struct merge_stats ms;
	char err[1024];
	int ret;

	ret = pipe ? pipe_out__finish(&s->pipe, &ms, err, sizeof(err))
		   : session__merge_file(s, &ms, err, sizeof(err));
	if (ret == -EPIPE && pipe) {
		/* Nobody reads what could still be merged: the shards go too, unless kept. */
		pr_err("%s: recording stopped", err);
		if (!s->o->keep_shards)
			remove_shards(s);
	} else if (ret) {
		pr_err("merge failed: %s; shards kept in %s (retry: shardrec merge %s -o %s)", err,
		       s->dir, s->dir, s->o->output);
	} else {
		if (err[0])
			pr_warn("%s", err);
		session__print_summary(s, &ms, s->o->output);
		if (pipe && s->o->verbose)
			pipe_out__report(&s->pipe, &ms);
		if (pipe && s->o->keep_shards)
			pr_info("[ shardrec record: shards kept in %s ]", s->dir);
		if (s->o->hooks && s->o->hooks->merged)
			s->o->hooks->merged(s->o->hooks->arg, &ms, s->stop_signal);
		/* perf record's build-id cache (-z, --buildid-all: the file says); silent as perf's */
		if (!pipe && !s->o->no_buildid && !s->o->no_buildid_cache &&
		    buildid_cache__add_hits(s->o->buildid_dir, s->o->output, err, sizeof(err)))
			pr_debug("build-id cache not filled: %s", err);
		if (!s->o->keep_shards)
			remove_shards(s);
	}
	merge_stats__release(&ms);
	return ret;
}

static int session__finish(struct session *s)
{
	bool writer_failed = false;
	int ret;

	evlist__disable(&s->evl);
	/* -Se, --overwrite: one last AUX snapshot, taken by the writers' final pass. */
	if (s->o->aux_snapshot_on_exit || s->evl.backward)
		for (size_t g = 0; g < s->nr_writers; g++)
			writer__snapshot_aux(s->writers[g]);
	session__stop_writers(s);
	for (size_t g = 0; g < s->nr_writers; g++) {
		writer_failed |= writer__stats(s->writers[g])->err != 0;
	}
	/* Its last programs read: the merges take the final list. */
	sideband__stop(&s->sb);
	/*
	 * `shardrec job` on SIGTERM (walltime, scancel): merge first, then wait
	 * for an app that may be checkpointing, all within Slurm's KillWait.
	 */
	if (s->have_workload && !(s->stop_signal && s->o->hooks))
		workload__terminate(&s->wl);
	ret = session__write_tail(s);
	if (ret)
		pr_warn("lost-sample counts not saved: %s", strerror(-ret));
	ret = s->evl.backward || s->o->tail_synthesize ? session__write_tail_synth(s) : 0;
	if (ret)
		pr_warn("tasks not described again at the end: %s", strerror(-ret));
	/* Skipped: the shards stay, complete, for `shardrec merge` (the caller says how). */
	ret = s->rot ? session__rotate_finish(s) : session__may_merge(s) ? session__merge(s) : 0;
	if (s->have_workload)
		workload__terminate(&s->wl);
	if (ret)
		return 1;
	/* A writer that stopped early makes the recording incomplete, whatever stopped it. */
	if (writer_failed)
		pr_err("the recording is incomplete: a writer stopped early (see above)");
	/*
	 * --max-size is no failure: the file is what was asked for. As with
	 * perf record, the status is then the command's, which was stopped for
	 * it (SIGTERM: 143, or what its handler exits with), else 0.
	 */
	if (s->stop_signal && !s->have_workload)
		return writer_failed ? 2 : 0;
	if (s->have_workload && workload__exit_code(&s->wl))
		return workload__exit_code(&s->wl);
	return writer_failed ? 2 : 0;
}

static void session__release(struct session *s)
{
	session__rotate_release(s);
	if (s->have_sb) {
		sideband__close(&s->sb);
		pthread_mutex_destroy(&s->bpf_lock);
	}
	synth_bpf_env__release(&s->bpf_env);
	for (size_t g = 0; g < s->nr_writers; g++)
		writer__delete(s->writers[g]);
	for (size_t g = 0; s->group_maps && g < s->plan.nr_groups; g++)
		free(s->group_maps[g]);
	free(s->group_maps);
	free(s->writers);
	evlist__release(&s->evl);
	plan__release(&s->plan);
	topo__delete(s->topo);
	if (s->have_workload)
		workload__terminate(&s->wl);
	shard_tail__close(&s->tail);
	recbuf__release(&s->kernel_maps);
	pipe_out__close(&s->pipe);
	if (s->dirfd >= 0)
		close(s->dirfd);
	if (s->sigfd >= 0)
		close(s->sigfd);
	control__close(&s->ctl);
}

static int session__dry_run(struct session *s)
{
	plan__print(&s->plan, s->topo, s->evl.data_pages * sysconf(_SC_PAGESIZE), stdout);
	return 0;
}

/*
 * Events, targets and the plan are the command line's meaning: an unknown
 * event, PMU, tracepoint, user or cgroup, a CPU not online, a bad --threads
 * (-EINVAL, -ENOENT there) is bad usage.
 */
static int session__usage(struct session *s, int ret)
{
	if (ret == -EINVAL || ret == -ENOENT)
		s->bad_usage = true;
	return ret;
}

static int session__workload(struct session *s)
{
	int ret = workload__prepare(&s->wl, s->o->argv, s->o->workload_pdeathsig);

	s->have_workload = !ret;
	if (ret)
		snprintf(s->err, sizeof(s->err), "cannot start '%s': %s", s->o->argv[0],
			 strerror(-ret));
	return ret;
}

/*
 * The command, and the tasks to record: the command's pid when it is the
 * target; otherwise -p/-t/-u's tasks are listed before it is forked, as
 * perf does (its held child must not be a -u target).
 */
static int session__tasks(struct session *s)
{
	bool command = s->o->argc && !s->o->dry_run;
	bool first = command && (record_opts__command_is_target(s->o) || s->o->workload_too);
	int ret = first ? session__workload(s) : 0;

	if (!ret && !s->o->topology_xml && !s->o->synthetic)
		ret = session__usage(s, session__target(s));
	if (!ret && command && !first)
		ret = session__workload(s);
	return ret;
}

/* Everything up to the point where recording can start. */
/*
 * perf needs one descriptor per event, CPU and thread and, on big machines,
 * failed under the usual `ulimit -n 1024` until it learnt to raise the soft
 * limit: raise it before opening anything, or fail with the count.
 * Beyond the events: per writer its shard and wake-up descriptors, plus the
 * shard directory, header.data, signalfd, control and the merge.
 */
#define SESSION_FDS_FIXED 32
#define SESSION_FDS_PER_WRITER 4

static int session__fd_budget(struct session *s)
{
	size_t events = s->evl.nr * s->evl.nr_cpus * s->evl.nr_threads;
	long open_now = rlimit__open_fds();
	size_t need = events + SESSION_FDS_FIXED + SESSION_FDS_PER_WRITER * s->plan.nr_groups +
		      (open_now > 0 ? (size_t)open_now : 0);
	unsigned long long hard;
	int ret = rlimit__ensure_nofile(need, &hard);

	if (ret == -EMFILE)
		snprintf(s->err, sizeof(s->err),
			 "needs %zu file descriptors (%zu events x %zu CPUs x %zu threads, plus "
			 "%zu), but the hard limit is %llu: raise it (ulimit -Hn, LimitNOFILE=) "
			 "or record fewer events or CPUs",
			 need, s->evl.nr, s->evl.nr_cpus, s->evl.nr_threads, need - events, hard);
	else if (ret)
		snprintf(s->err, sizeof(s->err), "RLIMIT_NOFILE: %s", strerror(-ret));
	return ret;
}

/*
 * perf's BPF side band: set up as its record__setup_sb_evlist() is (unless
 * --no-bpf-event), on the recording's CPUs, before the synthesis, so that
 * no program falls between the two. Only where programs can be read (root,
 * CAP_SYS_ADMIN); not for -o -, whose header goes out first, as perf's
 * pipe mode writes it, nor per thread. A side band that cannot be opened
 * is done without, as perf does.
 */
static void session__sideband_open(struct session *s)
{
	int ret;

	if (s->o->no_bpf_event || s->pipe.fd >= 0 || !s->evl.nr_cpus || s->evl.cpus[0] < 0 ||
	    !synth__bpf_readable())
		return;
	ret = sideband__open(&s->sb, s->evl.cpus, s->evl.nr_cpus);
	s->have_sb = !ret;
	if (!ret)
		pthread_mutex_init(&s->bpf_lock, NULL);
	else
		pr_debug("BPF side band not opened (%s): BPF programs loaded while recording "
			 "are not in the header", strerror(-ret));
}

/* Its thread, once the process may have threads (after privs__drop). */
static void session__sideband_start(struct session *s)
{
	if (!s->have_sb)
		return;
	if (sideband__start(&s->sb, &s->bpf_env, &s->bpf_lock)) {
		pthread_mutex_destroy(&s->bpf_lock);
		sideband__close(&s->sb);
		s->have_sb = false;
	}
}

int session__bpf_features(struct pfile_featset *fs, void *arg)
{
	struct session *s = arg;
	int ret;

	pthread_mutex_lock(&s->bpf_lock);
	ret = synth_bpf_env__features(&s->bpf_env, fs);
	pthread_mutex_unlock(&s->bpf_lock);
	return ret;
}

/*
 * CLOCK_PERF (an AUX recording): the writers read the perf clock through
 * a ring's control page, as the trace's decoder will convert its
 * timestamps; without that conversion in user space the trace could not
 * be placed among the sideband either.
 */
static int session__clock_setup(struct session *s)
{
	if (s->evl.clockid != CLOCK_PERF || !s->evl.nr_cpus)
		return 0;
	if (!clock__perf_setup(s->evl.mmaps[0].core.pc))
		return 0;
	snprintf(s->err, sizeof(s->err), "AUX area tracing needs the perf clock in user space, and "
		 "this machine does not offer it (no cap_user_time_zero in the ring's control page)");
	return -EOPNOTSUPP;
}

static int session__setup(struct session *s)
{
	int ret;

	ret = session__usage(s, evlist__configure(&s->evl, s->o, s->err, sizeof(s->err)));
	if (!ret && s->o->control && !s->o->dry_run)
		ret = control__open(&s->ctl, s->o->control, s->err, sizeof(s->err));
	if (!ret)
		ret = session__tasks(s);
	if (!ret)
		ret = privs__preflight(&s->evl, s->o, s->err, sizeof(s->err));
	if (!ret)
		ret = session__usage(s, session__plan(s));
	if (ret || s->o->dry_run)
		return ret;
	ret = session__fd_budget(s);
	if (ret)
		return ret;
	privs__raise(PRIVS_F(PRIVS_IPC_LOCK)); /* membudget asks the effective set */
	ret = membudget__check_self(s->evl.data_pages, s->evl.aux_pages, s->evl.nr_cpus, s->err,
				    sizeof(s->err));
	privs__lower();
	if (!ret)
		ret = privs__open_events(&s->evl, s->evl.data_pages, s->err, sizeof(s->err));
	if (!ret)
		ret = session__clock_setup(s);
	if (!ret)
		session__sideband_open(s);
	if (!ret)
		ret = session__mkdir(s);
	if (!ret)
		ret = session__rotate_setup(s);
	if (!ret)
		ret = session__write_header(s);
	/* Test-only fault injection (fault.h); inert unless SHARDREC_FAULT is set. */
	if (!ret)
		fault__synth_done();
	if (!ret)
		ret = session__reserve_tail(s);
	/* Before any writer thread exists: capabilities are per thread. */
	if (!ret)
		ret = privs__drop(session__rt_prio(s) ? PRIVS_F(PRIVS_SYS_NICE) : 0, s->err,
				  sizeof(s->err));
	if (!ret)
		session__sideband_start(s);
	if (!ret)
		ret = session__writers(s);
	return ret;
}

/* -o -: stdout becomes the stream's, before the command is forked (it must not inherit it). */
static int session__open_pipe(struct session *s)
{
	int ret;

	if (strcmp(s->o->output, "-") || s->o->dry_run)
		return 0;
	ret = pipe_out__open(&s->pipe);
	if (ret)
		snprintf(s->err, sizeof(s->err), "-o -: cannot take stdout: %s", strerror(-ret));
	return ret;
}

/*
 * -o -: streaming starts with the writers. --overwrite and --tail-synthesize
 * put records at the start only when recording ends: their stream waits.
 */
static int session__start_pipe(struct session *s)
{
	struct pipe_out_params pp = {
		.dir = s->dir, .dirfd = s->dirfd, .writers = s->writers,
		.nr_writers = s->nr_writers, .keep = s->o->keep_shards,
		.live = !s->evl.backward && !s->o->tail_synthesize,
	};
	int ret;

	if (s->pipe.fd < 0)
		return 0;
	ret = pipe_out__start(&s->pipe, &pp);
	if (ret)
		snprintf(s->err, sizeof(s->err), "cannot start streaming to stdout: %s",
			 strerror(-ret));
	return ret;
}

int session__record(struct record_opts *o)
{
	struct session s = {.o = o, .dirfd = -1, .sigfd = -1, .ctl = {.fd = -1, .ack_fd = -1},
			    .tail = {.fd = -1}, .pipe = {.fd = -1}};
	/* session__output points o->output into s: the caller's again when s is gone. */
	const char *output = o->output;
	int ret, code = 1;

	ret = session__signals(&s);
	if (!ret)
		ret = session__output(&s);
	if (!ret)
		ret = session__open_pipe(&s);
	if (!ret)
		ret = session__setup(&s);
	if (!ret && o->dry_run) {
		code = session__dry_run(&s);
		goto out;
	}
	if (!ret)
		ret = session__start_writers(&s);
	if (!ret)
		ret = session__start_pipe(&s);
	if (!ret)
		ret = session__go(&s);
	if (ret) {
		pr_err("%s", s.err[0] ? s.err : strerror(-ret));
		if (s.have_workload && s.wl.exited)
			code = 127;
		else if (s.bad_usage)
			code = 2;
		if (s.dirfd >= 0) {
			evlist__disable(&s.evl);
			session__stop_writers(&s);
			remove_shards(&s);
		}
		goto out;
	}
	if (o->hooks && o->hooks->ready)
		o->hooks->ready(o->hooks->arg, s.dir, s.have_workload ? s.wl.pid : 0);
	session__wait(&s);
	code = session__finish(&s);
out:
	session__release(&s);
	o->output = output;
	return code;
}
