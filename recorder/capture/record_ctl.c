// SPDX-License-Identifier: GPL-2.0
#include "recorder/capture/record_ctl.h"
#include "recorder/capture/target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void record_ctl__delayed_enable(struct evlist *l, unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

	if (!ms)
		return;
	/* Signals wait in the signalfd meanwhile: a SIGINT stops right after. */
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	evlist__enable(l);
}

static int parse_user(const char *user, uid_t *uid, char *err, size_t errlen)
{
	struct passwd *pw;
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(user, &end, 10);
	if (*user && !*end && !errno) {
		*uid = v;
		return 0;
	}
	pw = getpwnam(user);
	if (!pw) {
		snprintf(err, errlen, "-u: unknown user '%s'", user);
		return -EINVAL;
	}
	*uid = pw->pw_uid;
	return 0;
}

int record_ctl__uid_threads(const char *user, pid_t **threads, char *err, size_t errlen)
{
	size_t nr = 0;
	pid_t *v = NULL;
	struct dirent *d;
	struct stat st;
	char path[64];
	uid_t uid;
	DIR *proc;
	int ret = parse_user(user, &uid, err, errlen);

	if (ret)
		return ret;
	proc = opendir("/proc");
	if (!proc) {
		snprintf(err, errlen, "/proc: %s", strerror(errno));
		return -errno;
	}
	while (!ret && (d = readdir(proc))) {
		pid_t pid = atoi(d->d_name);

		if (pid <= 0 || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%d", pid);
		if (stat(path, &st) || st.st_uid != uid)
			continue;
		ret = target__add_tasks(pid, &v, &nr);
		if (ret == -ESRCH)
			ret = 0; /* a process gone meanwhile adds nothing */
	}
	closedir(proc);
	if (!ret && !nr) {
		snprintf(err, errlen, "-u %s: the user has no running process", user);
		ret = -ESRCH;
	}
	if (ret) {
		if (ret == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		free(v);
		return ret;
	}
	*threads = v;
	return nr;
}
