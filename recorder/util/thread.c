// SPDX-License-Identifier: GPL-2.0
#include "recorder/util/thread.h"

#include <signal.h>

int thread__start_quiet(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int err;

	/* A new thread inherits the creator's mask: block all around the create. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -err;
}
