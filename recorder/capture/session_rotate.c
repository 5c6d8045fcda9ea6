// SPDX-License-Identifier: GPL-2.0
/*
 * Rotation: perf record's --switch-output, --switch-output-event and
 * --timestamp-filename on the sharded design. The recording runs through
 * generations, each a complete shard directory FILE.shards/N: header.data
 * with the tasks alive when it began, one shard per writer, tail.raw with
 * the loss of its span. A switch (rotate__switch):
 *
 *  1. creates generation N+1's directory, reserves its tail.raw and writes
 *     a stand-in header.data (attrs, features, no task): from here on N+1
 *     can be merged whatever happens, and a full disk fails the switch
 *     rather than a generation;
 *  2. asks every writer to end its shard at a pass boundary and go on in
 *     N+1's (writer__switch): each record read from a ring goes into
 *     exactly one generation; with --overwrite that pass dumps the rings;
 *  3. writes N's tails: the lost counts since N began, and with
 *     --overwrite or --tail-synthesize the tasks at its end;
 *  4. hands N to the background merge (rotate.c), into FILE.<timestamp>
 *     of the switch;
 *  5. replaces N+1's stand-in with the tasks as they are now. As perf,
 *     they are synthesized after the switch, so that none started in
 *     between goes undescribed (one described twice is harmless).
 *
 * The main thread does it all; a writer never waits more than its pass.
 */
#include "recorder/capture/fault.h"
#include "recorder/capture/rotate.h"
#include "recorder/capture/session_internal.h"
#include "recorder/capture/writer.h"
#include "recorder/events/evlist.h"
#include "recorder/events/privs_open.h"
#include "recorder/events/record_opts.h"
#include "recorder/merge/merge.h"
#include "recorder/perfdata/shard_format.h"
#include "recorder/perfdata/shard_tail.h"
#include "recorder/util/log.h"
#include "ringbuf/ringbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

/* epoll tags: a switch event's ring is ROTATE_EV + its index */
enum { ROTATE_NOTIFY, ROTATE_TIMER, ROTATE_EV };

struct rotate {
	struct rotate_files *files;
	char top[PATH_MAX]; /* FILE.shards: one directory per generation */
	int topfd;
	unsigned gen;       /* the generation being written */
	int epfd;           /* the sources below, for the run loop's poll */
	int timerfd;        /* --switch-output=TIME */
	struct writer_rotate wr;
	atomic_uint_least64_t size_mark; /* --switch-output=SIZE: shard_bytes of the next switch */
	struct evlist ev;   /* --switch-output-event's events; nr 0 without */
	char stamp[32];     /* the last file's timestamp */
};

/* The next generation while it is not yet the session's. */
struct rotate_gen {
	char dir[PATH_MAX];
	int dirfd;
	uint8_t run_id[SHARD_RUN_ID_SIZE];
	struct shard_tail tail;
};

/* FILE.shards/@n, created and opened into @dir and *@dirfd. 0 / -errno. */
static int rotate__mkdir(struct rotate *r, unsigned n, char *dir, int *dirfd)
{
	char name[16];

	snprintf(name, sizeof(name), "%u", n);
	if (snprintf(dir, PATH_MAX, "%s/%s", r->top, name) >= PATH_MAX)
		return -ENAMETOOLONG;
	if (mkdirat(r->topfd, name, 0700))
		return -errno;
	*dirfd = openat(r->topfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return *dirfd < 0 ? -errno : 0;
}

static int rotate__gen_open(struct session *s, unsigned n, struct rotate_gen *g)
{
	int ret;

	g->dirfd = -1;
	g->tail.fd = -1;
	ret = rotate__mkdir(s->rot, n, g->dir, &g->dirfd);
	if (ret)
		return ret;
	if (getrandom(g->run_id, sizeof(g->run_id), 0) != (ssize_t)sizeof(g->run_id))
		return -errno;
	/* As session__reserve_tail: room for the lost counts that a full disk cannot take. */
	ret = shard_tail__create(&g->tail, g->dirfd, "tail.raw", g->run_id,
				 evlist__lost_bound(&s->evl));
	return ret ? ret : session__write_header_standin(s, g->dirfd, g->dir, g->run_id);
}

/* Undoes a rotate__gen_open that failed. */
static void rotate__gen_drop(struct rotate *r, struct rotate_gen *g, unsigned n)
{
	char name[16];

	shard_tail__close(&g->tail);
	if (g->dirfd >= 0) {
		unlinkat(g->dirfd, "tail.raw", 0);
		unlinkat(g->dirfd, "header.data", 0);
		close(g->dirfd);
	}
	snprintf(name, sizeof(name), "%u", n);
	unlinkat(r->topfd, name, AT_REMOVEDIR);
}

/* FILE.<timestamp>, the timestamp differing from the last file's. */
static void rotate__output(struct session *s, char *buf, size_t len)
{
	struct rotate *r = s->rot;
	char stamp[32];

	/* Two switches within 10 ms would name one file twice: wait for the next tick. */
	while (!rotate__timestamp(stamp, sizeof(stamp)) && !strcmp(stamp, r->stamp))
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	memcpy(r->stamp, stamp, sizeof(stamp));
	snprintf(buf, len, "%s.%s", s->o->output, stamp);
}

/*
 * The timer counts from now, as perf re-arms its alarm after a switch; the
 * size from @base, what the writers had written when the file began.
 */
static void rotate__rearm(struct session *s, uint64_t base)
{
	struct rotate *r = s->rot;
	struct itimerspec t = {.it_value = {.tv_sec = s->o->switch_secs}};

	if (r->timerfd >= 0)
		timerfd_settime(r->timerfd, 0, &t, NULL);
	if (s->o->switch_size)
		atomic_store_explicit(&r->size_mark, base + s->o->switch_size,
				      memory_order_relaxed);
}

static uint64_t rotate__written(const struct session *s)
{
	return atomic_load_explicit(&s->shard_bytes, memory_order_relaxed);
}

/* Until every writer has taken the switch (or ended); each bumps notify_fd when it has. */
static void rotate__wait_writers(struct session *s)
{
	struct pollfd p = {.fd = s->rot->wr.notify_fd, .events = POLLIN};
	uint64_t n;

	for (;;) {
		size_t g = 0;

		while (g < s->nr_writers && writer__switched(s->writers[g]))
			g++;
		if (g == s->nr_writers)
			return;
		/* The timeout only bounds a wakeup that raced with the check. */
		if (poll(&p, 1, 100) > 0 && read(p.fd, &n, sizeof(n)) < 0) {
			/* EAGAIN: drained already */
		}
	}
}

/* Generation N is complete: its tails, then the background merge into @output. */
static void rotate__end_gen(struct session *s, const char *output)
{
	struct rotate *r = s->rot;
	char name[16];
	int ret = session__write_tail(s);

	if (ret)
		pr_warn("%s: lost-sample counts not saved: %s", s->dir, strerror(-ret));
	ret = s->evl.backward || s->o->tail_synthesize ? session__write_tail_synth(s) : 0;
	if (ret)
		pr_warn("%s: tasks not described again at the end: %s", s->dir, strerror(-ret));
	shard_tail__close(&s->tail);
	snprintf(name, sizeof(name), "%u", r->gen);
	ret = rotate_files__add(r->files, &(struct rotate_gen_done){name, s->dir, s->dirfd, output,
								    s->lost_samples});
	s->dirfd = -1;
	if (ret)
		pr_err("%s: no background merge (%s): shards kept (shardrec merge %s -o %s)", s->dir,
		       strerror(-ret), s->dir, output);
}

static void rotate__install(struct session *s, const struct rotate_gen *g)
{
	memcpy(s->dir, g->dir, sizeof(s->dir));
	s->dirfd = g->dirfd;
	memcpy(s->run_id, g->run_id, sizeof(s->run_id));
	s->tail = g->tail;
	s->rot->gen++;
}

static void rotate__switch(struct session *s)
{
	struct rotate *r = s->rot;
	struct rotate_gen next;
	char output[PATH_MAX];
	uint64_t base;
	int ret;

	/* No size notice until the next generation has its mark. */
	atomic_store_explicit(&r->size_mark, UINT64_MAX, memory_order_relaxed);
	ret = rotate__gen_open(s, r->gen + 1, &next);
	if (ret) {
		pr_warn("cannot start a new file in %s: %s; recording goes on in %s", r->top,
			strerror(-ret), s->dir);
		s->err[0] = '\0';
		rotate__gen_drop(r, &next, r->gen + 1);
		rotate__rearm(s, rotate__written(s));
		return;
	}
	for (size_t g = 0; g < s->nr_writers; g++)
		writer__switch(s->writers[g], next.dirfd, next.run_id);
	rotate__wait_writers(s);
	base = rotate__written(s);
	rotate__output(s, output, sizeof(output));
	rotate__end_gen(s, output);
	fault__switch_taken(r->gen + 1);
	rotate__install(s, &next);
	ret = session__replace_header(s);
	if (ret) {
		pr_warn("%s: the tasks are not described (%s): its file keeps a header without them",
			s->dir, strerror(-ret));
		s->err[0] = '\0';
	}
	rotate__rearm(s, base);
}

/* ---- the sources of a switch ---- */

/* Drains every switch event ring; true if one held a record. */
static bool rotate__events_fired(struct rotate *r)
{
	bool any = false;

	for (size_t c = 0; c < r->ev.nr_cpus; c++) {
		struct ring_span sp;
		long len = ring__read_init(&r->ev.mmaps[c].core, &sp);

		if (len > 0) {
			ring__read_done(&r->ev.mmaps[c].core, &sp);
			any = true;
		}
	}
	return any;
}

/* One ready source: true if it calls for a switch. */
static bool rotate__source(struct session *s, const struct epoll_event *ev)
{
	struct rotate *r = s->rot;
	uint64_t n;

	if (ev->data.u32 == ROTATE_NOTIFY) {
		if (read(r->wr.notify_fd, &n, sizeof(n)) < 0) {
			/* EAGAIN: drained already */
		}
		return r->wr.size_mark &&
		       rotate__written(s) >= atomic_load_explicit(&r->size_mark, memory_order_relaxed);
	}
	if (ev->data.u32 == ROTATE_TIMER)
		return read(r->timerfd, &n, sizeof(n)) == sizeof(n);
	/* A per-task event whose tasks are gone hangs up for good: stop polling it. */
	if (ev->events & (EPOLLHUP | EPOLLERR))
		epoll_ctl(r->epfd, EPOLL_CTL_DEL, r->ev.mmaps[ev->data.u32 - ROTATE_EV].core.fd,
			  NULL);
	return false;
}

void session__rotate_poll(struct session *s)
{
	struct epoll_event ev[16];
	bool due = false;
	int n;

	if (!s->rot || s->rot->epfd < 0)
		return;
	n = epoll_wait(s->rot->epfd, ev, 16, 0);
	for (int i = 0; i < n; i++)
		due |= rotate__source(s, &ev[i]);
	/*
	 * The switch events' rings are looked at every time, as perf's side
	 * band thread reads them after every poll: a record of an inherited
	 * event (a child's exec) leaves it without a wakeup.
	 */
	due |= rotate__events_fired(s->rot);
	if (due)
		rotate__switch(s);
}

bool session__rotate_signal(struct session *s)
{
	if (!s->rot || !s->o->switch_signal)
		return false;
	/* perf's SIGUSR2 takes the AUX snapshot (-S) too: it lands in the file ending now. */
	for (size_t g = 0; g < s->nr_writers; g++)
		writer__snapshot_aux(s->writers[g]);
	if (s->evl.backward || s->evl.aux_snapshot)
		s->snapshots++;
	rotate__switch(s);
	return true;
}

/* ---- set-up ---- */

static int rotate__watch(struct rotate *r, int fd, uint32_t tag)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u32 = tag};

	return epoll_ctl(r->epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

/* --switch-output-event: configured as the recording's events, for its target. */
static int rotate__configure_events(struct session *s)
{
	const struct record_opts *o = s->o;
	struct record_opts eo = {
		.events = o->switch_event, .output = o->output, .mmap_pages = 1,
		.clockid = s->evl.clockid, .clockid_set = true, .system_wide = o->system_wide,
		.cpu_list = o->cpu_list,
		.pid_list = o->pid_list, .tid_list = o->tid_list, .uid = o->uid, .argc = o->argc,
		.no_inherit = o->no_inherit, .realtime = -1, .synth = RECORD_SYNTH_ALL,
	};
	struct evlist *l = &s->rot->ev;
	int ret = evlist__configure(l, &eo, s->err, sizeof(s->err));

	if (!ret)
		ret = evlist__set_target(l, s->evl.cpus, s->evl.nr_cpus, s->evl.threads,
					 s->evl.nr_threads);
	for (size_t e = 0; !ret && e < l->nr; e++) {
		struct perf_event_attr *a = &l->evsel[e].ev.attr;

		/* perf's side band: no tracking records, and every record wakes the poll. */
		a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = 0;
		a->namespaces = a->cgroup = a->context_switch = 0;
		a->watermark = 0;
		a->wakeup_events = 1;
	}
	return ret;
}

static int rotate__open_events(struct session *s)
{
	struct rotate *r = s->rot;
	char why[sizeof(s->err)];
	int ret = rotate__configure_events(s);

	if (ret == -EINVAL || ret == -ENOENT)
		s->bad_usage = true;
	if (!ret)
		ret = privs__open_events(&r->ev, 1, s->err, sizeof(s->err));
	for (size_t c = 0; !ret && c < r->ev.nr_cpus; c++)
		ret = rotate__watch(r, r->ev.mmaps[c].core.fd, ROTATE_EV + c);
	if (ret) {
		snprintf(why, sizeof(why), "%s", s->err[0] ? s->err : strerror(-ret));
		snprintf(s->err, sizeof(s->err), "--switch-output-event: %.900s", why);
	}
	return ret;
}

/* What makes a switch: SIGUSR2 (nothing to set up), a time, a size, events. */
static int rotate__triggers(struct session *s)
{
	struct rotate *r = s->rot;
	int ret;

	r->wr.notify_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (r->wr.notify_fd < 0 || r->epfd < 0)
		return -errno;
	ret = rotate__watch(r, r->wr.notify_fd, ROTATE_NOTIFY);
	if (!ret && s->o->switch_secs) {
		r->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		ret = r->timerfd < 0 ? -errno : rotate__watch(r, r->timerfd, ROTATE_TIMER);
	}
	if (!ret && s->o->switch_size)
		r->wr.size_mark = &r->size_mark;
	if (!ret && s->o->switch_event)
		ret = rotate__open_events(s);
	return ret;
}

/* The top directory is the session's FILE.shards; generation 0 becomes the session's. */
static int rotate__first_gen(struct session *s)
{
	struct rotate *r = s->rot;
	int ret;

	r->topfd = s->dirfd;
	memcpy(r->top, s->dir, sizeof(r->top));
	s->dirfd = -1;
	ret = rotate__mkdir(r, 0, s->dir, &s->dirfd);
	if (ret)
		snprintf(s->err, sizeof(s->err), "cannot create %s/0: %s", r->top, strerror(-ret));
	return ret;
}

int session__rotate_setup(struct session *s)
{
	struct rotate_files_opts fo = {
		.nr_shards = s->plan.nr_groups, .max_files = s->o->switch_max_files,
		.keep_shards = s->o->keep_shards, .build_ids = !s->o->no_buildid,
		.buildid_all = s->o->buildid_all, .quiet = s->o->quiet,
		.features = s->have_sb ? session__bpf_features : NULL, .features_arg = s,
	};
	struct rotate *r;
	int ret;

	if (!s->o->timestamp_filename)
		return 0;
	r = s->rot = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->topfd = r->epfd = r->timerfd = r->wr.notify_fd = -1;
	atomic_init(&r->size_mark, UINT64_MAX);
	ret = rotate__first_gen(s);
	if (ret)
		return ret;
	fo.topfd = r->topfd;
	r->files = rotate_files__new(&fo);
	s->lost_base = calloc(s->evl.nr * s->evl.nr_cpus * s->evl.nr_threads + 1,
			      sizeof(*s->lost_base));
	if (!r->files || !s->lost_base)
		return -ENOMEM;
	return s->o->switch_output ? rotate__triggers(s) : 0;
}

const struct writer_rotate *session__rotate_writers(const struct session *s)
{
	return s->rot && s->o->switch_output ? &s->rot->wr : NULL;
}

void session__rotate_start(struct session *s)
{
	if (!s->rot)
		return;
	rotate__rearm(s, rotate__written(s));
	/* On a command, enable_on_exec does it. */
	if (s->rot->ev.nr && !record_opts__command_is_target(s->o))
		evlist__enable(&s->rot->ev);
}

int session__rotate_fd(const struct session *s)
{
	return s->rot ? s->rot->epfd : -1;
}

/* ---- the end ---- */

/*
 * "FILE.<timestamp>" for one file, "FILE.<timestamp>, N files" for more:
 * only files that were written (a failed merge's name never appears).
 */
static void rotate__what(struct session *s, char *buf, size_t len)
{
	unsigned n = rotate_files__written(s->rot->files), max = s->o->switch_max_files;

	if (n <= 1)
		snprintf(buf, len, "%s", rotate_files__last(s->rot->files) ?: s->o->output);
	else if (max && n > max)
		snprintf(buf, len, "%s.<timestamp>, %u files, the newest %u kept", s->o->output, n,
			 max);
	else
		snprintf(buf, len, "%s.<timestamp>, %u files", s->o->output, n);
}

int session__rotate_finish(struct session *s)
{
	struct rotate *r = s->rot;
	char output[PATH_MAX], what[PATH_MAX + 64], name[16];
	struct merge_stats total = {0};
	uint64_t lost;
	unsigned failed;

	rotate__output(s, output, sizeof(output));
	shard_tail__close(&s->tail);
	snprintf(name, sizeof(name), "%u", r->gen);
	failed = rotate_files__finish(r->files, &(struct rotate_gen_done){name, s->dir, s->dirfd,
									   output, s->lost_samples},
				      &total);
	s->dirfd = -1;
	if (rotate_files__written(r->files)) {
		rotate__what(s, what, sizeof(what));
		session__print_summary(s, &total, what);
	}
	/* What the files above do not hold: the kept generations' loss is not in their totals. */
	if (rotate_files__unmerged(r->files, &lost)) {
		char held[96] = "";

		if (lost)
			snprintf(held, sizeof(held), "; they hold %llu samples the kernel lost",
				 (unsigned long long)lost);
		pr_warn("%u generation%s not merged, shards kept in %s (retry as printed above)%s",
			failed, failed > 1 ? "s" : "", r->top, held);
	}
	return failed ? -1 : 0;
}

void session__rotate_release(struct session *s)
{
	struct rotate *r = s->rot;

	if (!r)
		return;
	rotate_files__delete(r->files);
	evlist__release(&r->ev);
	if (r->epfd >= 0)
		close(r->epfd);
	if (r->timerfd >= 0)
		close(r->timerfd);
	if (r->wr.notify_fd >= 0)
		close(r->wr.notify_fd);
	/* Empty unless shards were kept (--keep-shards, a failed merge): then it stays. */
	if (r->topfd >= 0) {
		rmdir(r->top);
		close(r->topfd);
	}
	free(s->lost_base);
	s->lost_base = NULL;
	free(r);
	s->rot = NULL;
}
