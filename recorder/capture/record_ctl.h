/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run controls of `record` beyond start and stop: -D (enable after a
 * delay) and -u (the threads of one user's processes). --max-size is the
 * run loop's and the writers' (session_run.c, writer.c).
 */
#ifndef SHARDREC_RECORD_CTL_H
#define SHARDREC_RECORD_CTL_H

#include "recorder/events/evlist.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* -D: sleeps @ms (nothing if 0), then enables every event of @l. */
void record_ctl__delayed_enable(struct evlist *l, unsigned ms);

/*
 * -u @user (name or number): every thread of every process that user owns
 * (perf's thread_map__new_by_uid: the owner of /proc/PID), except this
 * process. Count (malloc'ed *@threads) or -errno with one line in @err.
 */
int record_ctl__uid_threads(const char *user, pid_t **threads, char *err, size_t errlen);

#endif
