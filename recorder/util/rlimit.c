// SPDX-License-Identifier: GPL-2.0
/* Resource limits (rlimit.h). */
#include "recorder/util/rlimit.h"

#include <dirent.h>
#include <errno.h>
#include <sys/resource.h>

long rlimit__open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	long n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the directory stream's own descriptor */
}

int rlimit__ensure_nofile(size_t need, unsigned long long *hard)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -errno;
	*hard = rl.rlim_max;
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
		return -EMFILE;
	rl.rlim_cur = rl.rlim_max;
	return setrlimit(RLIMIT_NOFILE, &rl) ? -errno : 0;
}
