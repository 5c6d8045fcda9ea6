// SPDX-License-Identifier: GPL-2.0
#include "recorder/util/perf_event.h"

#include <sys/syscall.h>
#include <unistd.h>

int perf_event__open(struct perf_event_attr *a, pid_t pid, int cpu, int group, unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, group, flags);
}

bool perf_event__probe(struct perf_event_attr *a)
{
	int fd = perf_event__open(a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}
