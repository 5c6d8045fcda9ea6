// SPDX-License-Identifier: GPL-2.0
/* Small sysfs/procfs readers (fs.h). */
#include "recorder/util/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

int filename__read_ll(const char *path, long long *v)
{
	FILE *f = fopen(path, "re");
	int ret = 0;

	if (!f)
		return -errno;
	if (fscanf(f, "%lld", v) != 1)
		ret = -EINVAL;
	fclose(f);
	return ret;
}

long long sysctl__read_kernel(const char *name, long long def)
{
	char path[128];
	long long v;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	return filename__read_ll(path, &v) ? def : v;
}

char *filename__read_line(const char *path)
{
	char *line = NULL, *nl;
	size_t cap = 0;
	FILE *f = fopen(path, "re");
	int err = 0;

	if (!f)
		return NULL;
	if (getline(&line, &cap, f) <= 0) {
		/* EOF at once (an empty file) is errno 0; EISDIR and EIO are not. */
		err = ferror(f) ? errno : 0;
		free(line);
		line = NULL;
	} else if ((nl = strchr(line, '\n'))) {
		*nl = '\0';
	}
	fclose(f);
	if (!line)
		errno = err;
	return line;
}

char *filename__read_linef(const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return filename__read_line(path);
}

/* Appends what is left of @fd, up to @max bytes when @max > 0, to @m. 0 / -errno. */
static int fd__read_into(int fd, size_t max, FILE *m)
{
	char chunk[4096];
	size_t len = 0, want;
	ssize_t n;

	for (;;) {
		want = max && max - len < sizeof(chunk) ? max - len : sizeof(chunk);
		if (!want)
			return 0;
		n = read(fd, chunk, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n ? -errno : 0;
		if (fwrite(chunk, 1, n, m) != (size_t)n)
			return -ENOMEM;
		len += n;
	}
}

int filename__read_all(const char *path, size_t max, char **buf, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	FILE *m = NULL;
	int ret;

	*buf = NULL;
	*size = 0;
	if (fd < 0)
		return -errno;
	/*
	 * A memory stream grows the buffer and keeps a NUL after the last
	 * byte: util/ cannot use perfdata's array__grow (sibling layers).
	 */
	m = open_memstream(buf, size);
	if (!m) {
		ret = -errno;
		goto out_close;
	}
	ret = fd__read_into(fd, max, m);
	if (fclose(m) && !ret)
		ret = -ENOMEM;
	if (ret) {
		free(*buf);
		*buf = NULL;
		*size = 0;
	}
out_close:
	close(fd);
	return ret;
}

int filename__read_str(const char *path, char **out)
{
	size_t size;

	return filename__read_all(path, 0, out, &size);
}

/* The first @fstype mount of /proc/self/mounts into @buf. 0 / -ENOENT. */
static int mounts__find(const char *fstype, char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char dev[256], dir[4096], type[64];
	int ret = -ENOENT;

	while (f && ret && fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3) {
		if (!strcmp(type, fstype)) {
			snprintf(buf, len, "%s", dir);
			ret = 0;
		}
	}
	if (f)
		fclose(f);
	return ret;
}

/*
 * The usual places first, then wherever /proc/self/mounts says tracefs is
 * (perf's tracefs__mountpoint does the same). The main thread's: the
 * static buffer is written once.
 */
static const char *tracefs__find(void)
{
	static const char *const roots[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
	static char mounted[4096];
	char path[64];
	struct stat st;

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(path, sizeof(path), "%s/events", roots[i]);
		if (!stat(path, &st) && S_ISDIR(st.st_mode))
			return roots[i];
	}
	return mounts__find("tracefs", mounted, sizeof(mounted)) ? NULL : mounted;
}

const char *tracefs__mountpoint(void)
{
	const char *root = tracefs__find();

	/*
	 * A fresh boot may have no tracefs mounted at all (systemd mounts it
	 * on first access, a minimal init does not). perf's tracefs__mount()
	 * mounts it then; so do we. Without privileges the mount fails and
	 * the caller says "tracefs not found".
	 */
	if (!root && !mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL))
		root = tracefs__find();
	return root;
}

const char *cgroup2__mountpoint(char *buf, size_t len)
{
	if (mounts__find("cgroup2", buf, len))
		snprintf(buf, len, "/sys/fs/cgroup");
	return buf;
}
