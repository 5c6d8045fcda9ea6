/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recorded command: forked early, held before exec until the events
 * exist (they are opened on its pid with enable_on_exec), then released.
 */
#ifndef SHARDREC_WORKLOAD_H
#define SHARDREC_WORKLOAD_H

#include <stdbool.h>
#include <sys/types.h>

struct workload {
	pid_t pid;
	int go_fd;   /* write end: one byte releases the child */
	int err_fd;  /* read end: exec's errno, or EOF when exec succeeded */
	bool exited;
	int status;  /* waitpid status once exited */
};

/*
 * Forks @argv[0] held before exec. @pdeathsig: signal the child gets when
 * shardrec dies (0 = none: it runs on, as under perf record). 0 / -errno.
 */
int workload__prepare(struct workload *w, char **argv, int pdeathsig);
/* Releases the child; returns 0 when exec succeeded, else -errno of the failed exec. */
int workload__start(struct workload *w);
/* Reaps without blocking; true once the child has exited. */
bool workload__reap(struct workload *w);
/* SIGTERM to a running child (recording was stopped), then waits for it. */
void workload__terminate(struct workload *w);
/* Exit status for shardrec: the child's, 128+sig when killed, 127 when exec failed. */
int workload__exit_code(const struct workload *w);

#endif
