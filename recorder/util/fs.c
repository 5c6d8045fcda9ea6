// SPDX-License-Identifier: GPL-2.0
/* Small sysfs/procfs readers (fs.h). */
#include "recorder/util/fs.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

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

	if (!f)
		return NULL;
	if (getline(&line, &cap, f) <= 0) {
		free(line);
		line = NULL;
	} else if ((nl = strchr(line, '\n'))) {
		*nl = '\0';
	}
	fclose(f);
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
	if (n < 0 || n >= (int)sizeof(path))
		return NULL;
	return filename__read_line(path);
}

int filename__read_str(const char *path, char **out)
{
	FILE *f = fopen(path, "re");
	size_t cap = 0;
	int ret = 0;

	*out = NULL;
	if (!f)
		return -errno;
	if (getdelim(out, &cap, '\0', f) < 0) {
		ret = ferror(f) ? -EIO : 0;
		if (!ret && !*out)
			*out = strdup("");
		if (!ret && !*out)
			ret = -ENOMEM;
	}
	fclose(f);
	if (ret) {
		free(*out);
		*out = NULL;
	}
	return ret;
}

static const char *tracefs__find(void)
{
	static const char *const roots[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
	char path[64];
	struct stat st;

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(path, sizeof(path), "%s/events", roots[i]);
		if (!stat(path, &st) && S_ISDIR(st.st_mode))
			return roots[i];
	}
	return NULL;
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
