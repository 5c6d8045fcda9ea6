/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recording session: events, rings, writers, the workload, the shard
 * directory, and the merge at the end.
 */
#ifndef SHARDREC_SESSION_H
#define SHARDREC_SESSION_H

#include "recorder/events/record_opts.h"

/*
 * Runs `shardrec record`. Returns the process exit code: the workload's
 * (127 when it cannot be exec'd), 0 for a clean system-wide run, 1 (with a
 * one-line error logged) when recording failed, 2 for bad usage found in
 * setup (an unknown event, a CPU not online...) or when a writer stopped
 * early but a valid (incomplete) perf.data was written.
 */
int session__record(struct record_opts *o);

#endif
