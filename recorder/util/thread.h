/* SPDX-License-Identifier: GPL-2.0 */
/* Threads of shardrec's own: writers, side band, the merge's reader and writer. */
#ifndef SHARDREC_THREAD_H
#define SHARDREC_THREAD_H

#include <pthread.h>

/*
 * pthread_create() of a thread that takes no signal: each is blocked in it
 * from its first instruction. Signals stay with the thread that handles
 * them: the session's signalfd, the caller of a merge (SIGTERM in a job).
 * 0 / -errno.
 */
int thread__start_quiet(pthread_t *t, void *(*fn)(void *), void *arg);

#endif
