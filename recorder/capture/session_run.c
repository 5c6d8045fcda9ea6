// SPDX-License-Identifier: GPL-2.0
/* The run loop: signals, the control fifo, snapshots, until the workload or a signal ends it. */
#include "recorder/capture/control.h"
#include "recorder/capture/pipe_out.h"
#include "recorder/capture/record_ctl.h"
#include "recorder/capture/session_internal.h"
#include "recorder/capture/workload.h"
#include "recorder/capture/writer.h"
#include "recorder/events/evlist.h"
#include "recorder/events/record_opts.h"
#include "recorder/util/clock.h"
#include "recorder/util/log.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

/* ---- run control ---- */

int session__signals(struct session *s)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGUSR2); /* snapshot, as perf's SIGUSR2 trigger */
	/* Blocked before any thread exists, so every thread inherits the mask. */
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	s->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return s->sigfd < 0 ? -errno : 0;
}

/* True while every -p/-t thread is gone. */
static bool targets_gone(const struct session *s)
{
	char path[64];

	for (size_t t = 0; t < s->evl.nr_threads; t++) {
		snprintf(path, sizeof(path), "/proc/%d", s->evl.threads[t]);
		if (!access(path, F_OK))
			return false;
	}
	return true;
}

/* SIGUSR2 or --control "snapshot": dump the backward rings, snapshot the AUX areas. */
static void session__snapshot(struct session *s)
{
	bool any = false;

	for (size_t g = 0; g < s->nr_writers; g++)
		any |= writer__snapshot(s->writers[g]);
	if (any)
		s->snapshots++;
	else
		pr_warn("snapshot request ignored: there is nothing to snapshot without --overwrite "
			"or -S");
}

/* One --control command; true if it stops the recording. */
static bool session__control(struct session *s, enum control_cmd cmd)
{
	switch (cmd) {
	case CONTROL_ENABLE:
		evlist__enable(&s->evl);
		pr_info("[ shardrec record: events enabled ]");
		break;
	case CONTROL_DISABLE:
		evlist__disable(&s->evl);
		pr_info("[ shardrec record: events disabled ]");
		break;
	case CONTROL_SNAPSHOT:
		session__snapshot(s);
		break;
	case CONTROL_STOP:
		break;
	case CONTROL_PING:
		break;
	case CONTROL_TOO_LONG:
		pr_warn("--control: a line of more than %zu bytes ignored", sizeof(s->ctl.buf) - 1);
		return false;
	default:
		pr_warn("--control: unknown command '%s' ignored (enable, disable, snapshot, stop, "
			"ping)", s->ctl.last);
		return false;
	}
	control__ack(&s->ctl);
	return cmd == CONTROL_STOP;
}

/* Signals: SIGUSR2 asks for a snapshot, SIGCHLD is looked at below, others stop. */
static bool session__signal(struct session *s)
{
	struct signalfd_siginfo si;

	while (read(s->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGUSR2) {
			if (!session__rotate_signal(s))
				session__snapshot(s);
		} else if (si.ssi_signo != SIGCHLD) {
			s->stop_signal = si.ssi_signo;
			s->stop_ms = clock__now_ms();
			return true;
		}
	}
	return false;
}

static bool session__should_stop(struct session *s)
{
	enum control_cmd cmd;

	if (session__signal(s))
		return true;
	session__rotate_poll(s);
	/* Bounded: a channel that never runs dry must not keep signals waiting. */
	for (int i = 0; i < CONTROL_MAX_READS && (cmd = control__next(&s->ctl)) != CONTROL_NONE; i++)
		if (session__control(s, cmd))
			return true;
	/* -o -: the reader went away; finishing says so. */
	if (s->pipe.fd >= 0 && pipe_out__failed(&s->pipe))
		return true;
	if (s->ctl.acks_dropped && !s->ctl.acks_said) {
		pr_warn("--control: nobody reads the ACK channel: acks are dropped, the recording "
			"goes on");
		s->ctl.acks_said = true;
	}
	if (s->ctl.flooded) {
		pr_warn("--control: the channel sends data but no command: no longer read");
		s->ctl.flooded = false;
	}
	if (s->o->max_size &&
	    atomic_load_explicit(&s->shard_bytes, memory_order_relaxed) > s->o->max_size) {
		pr_info("[ shardrec record: size limit reached (%llu bytes, %.1f KiB), stopping "
			"session ]", (unsigned long long)s->o->max_size, s->o->max_size / 1024.0);
		return true;
	}
	/* `shardrec job` also waits for the node's other ranks. */
	if (s->have_workload && s->o->hooks && s->o->hooks->done)
		return workload__reap(&s->wl) && s->o->hooks->done(s->o->hooks->arg);
	if (s->have_workload && workload__reap(&s->wl))
		return true;
	/* As perf: once every -p/-t task is gone, a command given too is ended. */
	if (s->o->pid_list || s->o->tid_list)
		return targets_gone(s);
	return false;
}

void session__wait(struct session *s)
{
	struct pollfd pfd[3] = {{.fd = s->sigfd, .events = POLLIN}, {.events = POLLIN},
				{.fd = session__rotate_fd(s), .events = POLLIN}};

	while (!session__should_stop(s)) {
		pfd[1].fd = s->ctl.fd;
		/* -p targets have no SIGCHLD: look again every 200 ms. */
		if (poll(pfd, 3, 200) < 0 && errno != EINTR)
			break;
	}
}

int session__go(struct session *s)
{
	int ret;

	/* -D: nothing is enabled before the delay, not even on exec. */
	if (!s->o->delay_ms && !s->o->start_disabled && !record_opts__command_is_target(s->o))
		evlist__enable(&s->evl);
	if (s->have_workload)
		ret = workload__start(&s->wl);
	else
		ret = 0;
	if (ret) {
		snprintf(s->err, sizeof(s->err), "cannot run '%s': %s", s->o->argv[0],
			 strerror(-ret));
		return ret;
	}
	s->workload_running = s->have_workload;
	record_ctl__delayed_enable(&s->evl, s->o->delay_ms);
	session__rotate_start(s);
	return 0;
}
