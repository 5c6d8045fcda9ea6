/* SPDX-License-Identifier: GPL-2.0 */
/* Resource limits the recorder must check before it opens or maps anything. */
#ifndef SHARDREC_RLIMIT_H
#define SHARDREC_RLIMIT_H
#include <stddef.h>

/* Descriptors open in this process now (/proc/self/fd), -errno if unknown. */
long rlimit__open_fds(void);
/*
 * Makes room for @need descriptors in all: raises RLIMIT_NOFILE's soft limit
 * to the hard one when it is lower than @need (perf's
 * rlimit__increase_nofile, but before opening rather than after EMFILE).
 * 0, or -EMFILE with *@hard set when even the hard limit is too low.
 */
int rlimit__ensure_nofile(size_t need, unsigned long long *hard);
#endif
