/* SPDX-License-Identifier: GPL-2.0 */
/* What to record: CPUs and threads from -a/-C/-p/-t or the workload. */
#ifndef SHARDREC_TARGET_H
#define SHARDREC_TARGET_H

#include <stddef.h>
#include <sys/types.h>

/*
 * CPUs for -C @list, checked against the online CPUs. Count or -EINVAL
 * with one line in @err.
 */
int target__cpu_list(const char *list, int **cpus, char *err, size_t errlen);
/*
 * Threads of -p @pids (every task of each process) or -t @tids. Count or
 * -ESRCH/-EINVAL with one line in @err.
 */
int target__threads(const char *pids, const char *tids, pid_t **threads, char *err,
		    size_t errlen);

/* Appends every task of process @pid to *@v (realloc'ed, *@n entries). 0, -ESRCH if gone, -ENOMEM. */
int target__add_tasks(pid_t pid, pid_t **v, size_t *n);

#endif
