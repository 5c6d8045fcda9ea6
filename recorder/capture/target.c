// SPDX-License-Identifier: GPL-2.0
#include "recorder/capture/target.h"
#include "recorder/header/sysinfo.h"
#include "recorder/perfdata/recbuf.h"
#include "numa/numa.h"

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int target__cpu_list(const char *list, int **cpus, char *err, size_t errlen)
{
	int *online = NULL, n, nr_online;
	char buf[256];

	n = cpulist__parse(list, cpus);
	if (n <= 0) {
		snprintf(err, errlen, "-C: '%s' is not a CPU list (e.g. 0-3,8)", list);
		return -EINVAL;
	}
	nr_online = sysinfo__online_cpus(NULL, &online);
	for (int i = 0; nr_online > 0 && i < n; i++) {
		bool found = false;

		for (int k = 0; k < nr_online; k++)
			found |= online[k] == (*cpus)[i];
		if (!found) {
			snprintf(err, errlen, "-C: CPU %d is not online (online: %s)", (*cpus)[i],
				 cpulist__format(online, nr_online, buf, sizeof(buf)));
			free(online);
			free(*cpus);
			*cpus = NULL;
			return -EINVAL;
		}
	}
	free(online);
	return n;
}

/* *@cap: room in *@v, at least *@n. */
static int push(pid_t **v, size_t *n, size_t *cap, pid_t p)
{
	pid_t *nv = array__grow(*v, cap, *n + 1, sizeof(**v), 64);

	if (!nv)
		return -ENOMEM;
	nv[(*n)++] = p;
	*v = nv;
	return 0;
}

static int add_tasks(pid_t pid, pid_t **v, size_t *n, size_t *cap)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -ESRCH;
	while (!err && (de = readdir(d)))
		if (de->d_name[0] != '.')
			err = push(v, n, cap, atoi(de->d_name));
	closedir(d);
	return err;
}

int target__add_tasks(pid_t pid, pid_t **v, size_t *n)
{
	size_t cap = *n; /* *@v holds at least that many: array__grow reallocs past it */

	return add_tasks(pid, v, n, &cap);
}

static int parse_ids(const char *list, bool whole_process, pid_t **v, size_t *n, char *err,
		     size_t errlen)
{
	char *copy = strdup(list), *save = NULL, *tok;
	int ret = copy ? 0 : -ENOMEM;
	size_t cap = *n; /* as in target__add_tasks() */

	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; !ret && tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *end, path[64];
		long id = strtol(tok, &end, 10);

		snprintf(path, sizeof(path), "/proc/%ld", id);
		if (*end || id <= 0) {
			snprintf(err, errlen, "%s: '%s' is not a %s", whole_process ? "-p" : "-t",
				 tok, whole_process ? "pid" : "tid");
			ret = -EINVAL;
		} else if (whole_process) {
			ret = add_tasks(id, v, n, &cap);
		} else {
			/* /proc/TID exists for every thread, though readdir hides it. */
			ret = access(path, F_OK) ? -ESRCH : push(v, n, &cap, id);
		}
		if (ret == -ESRCH)
			snprintf(err, errlen, "%s: no such process %ld", whole_process ? "-p" : "-t",
				 id);
	}
	free(copy);
	return ret;
}

int target__threads(const char *pids, const char *tids, pid_t **threads, char *err,
		    size_t errlen)
{
	size_t n = 0;
	int ret;

	*threads = NULL;
	ret = parse_ids(pids ? pids : tids, pids != NULL, threads, &n, err, errlen);
	if (ret) {
		free(*threads);
		*threads = NULL;
		return ret;
	}
	return n;
}
