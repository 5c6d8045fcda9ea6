// SPDX-License-Identifier: GPL-2.0
#include "recorder/job/rendezvous.h"
#include "recorder/util/clock.h"
#include "recorder/perfdata/recbuf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define READY_POLL_MS 10

static int check_dir(int fd, const char *dir, char *err, size_t errlen)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (st.st_uid != geteuid() || (st.st_mode & 022)) {
		snprintf(err, errlen, "%s: not ours or writable by others: remove it", dir);
		return -EPERM;
	}
	return 0;
}

int rdv__open(struct rdv *r, const char *base, const char *key, char *err, size_t errlen)
{
	const char *tmp = base ? base : getenv("TMPDIR");
	int ret;

	r->dirfd = -1;
	if (!tmp || !*tmp)
		tmp = "/tmp";
	snprintf(r->dir, sizeof(r->dir), "%s/shardrec-job.%u.%s", tmp, (unsigned)geteuid(), key);
	/* Every local rank races to create it: EEXIST is the normal case. */
	if (mkdir(r->dir, 0700) && errno != EEXIST) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", r->dir, strerror(errno));
		return ret;
	}
	r->dirfd = open(r->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (r->dirfd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", r->dir, strerror(errno));
		return ret;
	}
	ret = check_dir(r->dirfd, r->dir, err, errlen);
	if (ret) {
		if (ret != -EPERM)
			snprintf(err, errlen, "%s: %s", r->dir, strerror(-ret));
		rdv__close(r);
	}
	return ret;
}

/* Writes @name atomically: a reader sees all of @text or no file. */
static int rdv__put_file(struct rdv *r, const char *name, const char *text)
{
	char tmp[64];
	size_t len = strlen(text);
	int fd, ret = 0;
	ssize_t n;

	snprintf(tmp, sizeof(tmp), ".%s.%d", name, (int)getpid());
	fd = openat(r->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n != (ssize_t)len)
		ret = n < 0 ? -errno : -ENOSPC;
	close(fd);
	if (!ret && renameat(r->dirfd, tmp, r->dirfd, name))
		ret = -errno;
	if (ret)
		unlinkat(r->dirfd, tmp, 0);
	return ret;
}

static int get_file(struct rdv *r, const char *name, char *buf, size_t len)
{
	int fd = openat(r->dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

unsigned long long rdv__proc_start(int pid)
{
	unsigned long long start = 0;
	char path[64], buf[1024], *p, state;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n > 0 ? n : 0] = '\0';
	/* comm may hold spaces and ')': the fields start after the last ')'. */
	p = strrchr(buf, ')');
	/* state, then fields 4..21, then starttime (field 22). */
	if (!p || sscanf(p + 1, " %c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
				"%*s %*s %*s %llu", &state, &start) != 2)
		return 0;
	return state == 'Z' || state == 'X' ? 0 : start;
}

int rdv__register(struct rdv *r, long local_rank, long rank, int app_pid)
{
	char name[32], text[96];

	snprintf(name, sizeof(name), "rank.%ld", local_rank);
	snprintf(text, sizeof(text), "%d %llu %ld %d\n", (int)getpid(), rdv__proc_start(getpid()),
		 rank, app_pid);
	return rdv__put_file(r, name, text);
}

int rdv__put_exit(struct rdv *r, long local_rank, int status)
{
	char name[32], text[32];

	snprintf(name, sizeof(name), "exit.%ld", local_rank);
	snprintf(text, sizeof(text), "%d\n", status);
	return rdv__put_file(r, name, text);
}

int rdv__wait_ready(struct rdv *r, unsigned timeout_ms)
{
	unsigned long long end = clock__now_ms() + timeout_ms;
	struct timespec nap = {0, READY_POLL_MS * 1000000L};
	char buf[64];

	/* Polled: a few hundred stat calls per rank, and no inotify watch limits to meet. */
	do {
		if (!get_file(r, "ready", buf, sizeof(buf)))
			return strncmp(buf, "recording", 9) ? RDV_UNRECORDED : RDV_RECORDING;
		nanosleep(&nap, NULL);
	} while (clock__now_ms() < end);
	return -ETIMEDOUT;
}

int rdv__set_ready(struct rdv *r, bool recording)
{
	return rdv__put_file(r, "ready", recording ? "recording\n" : "unrecorded\n");
}

/* rank.N (@name) into @k; false when unreadable. */
static bool rank_read(struct rdv *r, const char *name, struct rdv_rank *k)
{
	unsigned long long start;
	char buf[96];
	int n;

	memset(k, 0, sizeof(*k));
	k->exit_status = -1;
	k->local_rank = strtol(name + 5, NULL, 10);
	if (get_file(r, name, buf, sizeof(buf)))
		return false;
	n = sscanf(buf, "%d %llu %ld %d", &k->pid, &start, &k->rank, &k->app_pid);
	if (n < 2 || k->pid <= 0)
		return false;
	k->alive = start && rdv__proc_start(k->pid) == start;
	snprintf(buf, sizeof(buf), "exit.%ld", k->local_rank);
	if (!get_file(r, buf, buf, sizeof(buf)))
		k->exit_status = atoi(buf);
	return true;
}

/* Calls @fn for every readable rank.N; 0 / -errno. */
static int rdv__each(struct rdv *r, void (*fn)(const struct rdv_rank *k, void *arg), void *arg)
{
	int fd = openat(r->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct rdv_rank k;
	struct dirent *d;
	DIR *dir;

	if (fd < 0)
		return -errno;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return -errno;
	}
	while ((d = readdir(dir)))
		if (!strncmp(d->d_name, "rank.", 5) && rank_read(r, d->d_name, &k))
			fn(&k, arg);
	closedir(dir);
	return 0;
}

struct rdv_count {
	unsigned registered, alive;
};

static void count_rank(const struct rdv_rank *k, void *arg)
{
	struct rdv_count *c = arg;

	c->registered++;
	c->alive += k->alive;
}

int rdv__scan(struct rdv *r, unsigned *registered, unsigned *alive)
{
	struct rdv_count c = {0};
	int ret = rdv__each(r, count_rank, &c);

	*registered = c.registered;
	*alive = c.alive;
	return ret;
}

struct rdv_list {
	struct rdv_rank *v;
	size_t nr, cap;
	int err;
};

static void list_rank(const struct rdv_rank *k, void *arg)
{
	struct rdv_list *l = arg;

	struct rdv_rank *v = array__grow(l->v, &l->cap, l->nr + 1, sizeof(*v), 16);

	if (!v) {
		l->err = -ENOMEM;
		return;
	}
	l->v = v;
	l->v[l->nr++] = *k;
}

static int by_local_rank(const void *a, const void *b)
{
	const struct rdv_rank *x = a, *y = b;

	return (x->local_rank > y->local_rank) - (x->local_rank < y->local_rank);
}

int rdv__ranks(struct rdv *r, struct rdv_rank **out, size_t *nr)
{
	struct rdv_list l = {0};
	int ret = rdv__each(r, list_rank, &l);

	if (!ret)
		ret = l.err;
	if (ret) {
		free(l.v);
		return ret;
	}
	if (l.nr)
		qsort(l.v, l.nr, sizeof(*l.v), by_local_rank);
	*out = l.v;
	*nr = l.nr;
	return 0;
}

void rdv__remove(struct rdv *r)
{
	int fd;
	struct dirent *d;
	DIR *dir;

	if (r->dirfd < 0)
		return;
	fd = openat(r->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((d = readdir(dir)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
			unlinkat(r->dirfd, d->d_name, 0);
	closedir(dir);
	rmdir(r->dir);
}

void rdv__close(struct rdv *r)
{
	if (r->dirfd >= 0)
		close(r->dirfd);
	r->dirfd = -1;
}
