/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the cmocka unit tests (tests/unit/test_*.c): reading
 * and writing whole files, removing a temporary tree, a monotonic clock,
 * counting substrings and running a command with its output captured.
 * Header only: each test binary is one .c file; failures are cmocka
 * assertions, so call these from tests (or setup/teardown) only.
 */
#ifndef SHARDREC_UNIT_UTIL_H
#define SHARDREC_UNIT_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Reads all of @path into a calloc'ed, NUL-terminated buffer; *@len (if not NULL) its size. */
static inline char *unit_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, n, f), (size_t)n);
	fclose(f);
	if (len)
		*len = n;
	return buf;
}

static inline int unit_rm_cb(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* rm -rf @dir, links not followed; nftw()'s result. */
static inline int unit_rmtree(const char *dir)
{
	return nftw(dir, unit_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

/* mkdir -p @path (mode 0755); errors are left to whoever uses the path next. */
static inline void unit_mkdirs(const char *path)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(tmp, 0755);
		*p = '/';
	}
	mkdir(tmp, 0755);
}

/* Opens @root/@rel for writing (truncated), making the directories on the way. */
static inline FILE *unit_fopen_w(const char *root, const char *rel)
{
	char path[PATH_MAX];
	char *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	unit_mkdirs(path);
	*slash = '/';
	f = fopen(path, "w");
	assert_non_null(f);
	return f;
}

/* Writes printf(@fmt, ...) to @root/@rel, making the directories on the way. */
static inline void unit_put_file(const char *root, const char *rel, const char *fmt, ...)
{
	FILE *f = unit_fopen_w(root, rel);
	va_list ap;

	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

/*
 * tests/data/@name from the repo root (where `make unit` runs), else next
 * to this header.
 */
static inline void unit_data_path(char *buf, size_t len, const char *name)
{
	const char *slash = strrchr(__FILE__, '/');

	snprintf(buf, len, "tests/data/%s", name);
	if (access(buf, R_OK) == 0 || !slash)
		return;
	snprintf(buf, len, "%.*s/../data/%s", (int)(slash - __FILE__), __FILE__, name);
}

/*
 * The fake Intel PT PMU of tests/data/intel_pt-pmu.txt under @root's
 * sysfs (type 8; perf 6.1's default config there is 0x300e601).
 */
static inline void unit_put_intel_pt(const char *root)
{
	char path[512], line[256], file[128], value[64], rel[256];
	FILE *f;

	unit_data_path(path, sizeof(path), "intel_pt-pmu.txt");
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || sscanf(line, "%127s %63s", file, value) != 2)
			continue;
		snprintf(rel, sizeof(rel), "sys/bus/event_source/devices/intel_pt/%s", file);
		unit_put_file(root, rel, "%s\n", value);
	}
	fclose(f);
}

/* Writes the @len bytes at @p to @root/@rel, making the directories on the way. */
static inline void unit_put_bytes(const char *root, const char *rel, const void *p, size_t len)
{
	FILE *f = unit_fopen_w(root, rel);

	assert_int_equal(fwrite(p, 1, len, f), len);
	fclose(f);
}

/* CLOCK_MONOTONIC in ns. */
static inline uint64_t unit_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Occurrences of @needle in @hay, overlapping ones included. */
static inline size_t unit_count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/*
 * Runs the shell command printf(@fmt, ...) through system(), stdin from
 * /dev/null, stdout into @dir/perf.out and stderr into @dir/perf.err.
 * Returns system()'s status; *@out and *@err get the two files' contents
 * (unit_slurp(), the caller frees them). The files stay: unit_run_unlink().
 */
static inline int unit_run(const char *dir, char **out, char **err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static inline int unit_run(const char *dir, char **out, char **err, const char *fmt, ...)
{
	char cmd[2048], path[PATH_MAX];
	size_t used;
	va_list ap;
	int n, status;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < sizeof(cmd));
	used = n;
	n = snprintf(cmd + used, sizeof(cmd) - used, " >%s/perf.out 2>%s/perf.err </dev/null", dir,
		     dir);
	assert_true(n >= 0 && (size_t)n < sizeof(cmd) - used);
	status = system(cmd);
	snprintf(path, sizeof(path), "%s/perf.out", dir);
	*out = unit_slurp(path, NULL);
	snprintf(path, sizeof(path), "%s/perf.err", dir);
	*err = unit_slurp(path, NULL);
	return status;
}

/* Removes unit_run()'s output files from @dir. */
static inline void unit_run_unlink(const char *dir)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/perf.out", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/perf.err", dir);
	unlink(path);
}

#endif /* SHARDREC_UNIT_UTIL_H */
