/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one home of the small sysfs/procfs readers (perf's tools/lib/api/fs:
 * filename__read_str & co). Look here before writing another.
 */
#ifndef SHARDREC_FS_H
#define SHARDREC_FS_H

#include <stddef.h>

/* The number @path starts with (fscanf "%lld"). 0 / -errno (-EINVAL: no number). */
int filename__read_ll(const char *path, long long *v);
/* /proc/sys/kernel/@name as a number, or @def when it cannot be read. */
long long sysctl__read_kernel(const char *name, long long def);
/*
 * First line of @path without its newline, malloc'ed; NULL if unreadable
 * (errno says why: ENOENT, EACCES, ...) or empty (errno 0).
 */
char *filename__read_line(const char *path);
/* filename__read_line() of a path built from @fmt; NULL, ENAMETOOLONG when the path is too long. */
__attribute__((format(printf, 1, 2))) char *filename__read_linef(const char *fmt, ...);
/*
 * The one whole-file reader: the bytes of @path, NUL bytes included, into a
 * malloc'ed *@buf and their count into *@size. Reads to EOF, as procfs,
 * sysfs and tracefs files have no size to stat, retrying EINTR and short
 * reads; @max > 0 stops after @max bytes. One NUL not counted in *@size
 * follows the bytes, so text can be used as a string. 0 / -errno, *@buf
 * NULL then.
 */
int filename__read_all(const char *path, size_t max, char **buf, size_t *size);
/*
 * filename__read_all() as a string: it ends at the file's first NUL byte,
 * as perf's does; an empty file gives "". 0 / -errno.
 */
int filename__read_str(const char *path, char **out);

/* ---- the mount finders (perf's FS(sysfs)...FS(tracefs)) ---- */

/*
 * Where tracefs is mounted: /sys/kernel/tracing, else the debugfs one (the
 * first whose events/ is a directory), else where /proc/self/mounts has a
 * tracefs, as perf's tracefs__mountpoint(). When none is, mounts tracefs
 * on /sys/kernel/tracing as perf's tracing_path_mount() does (root only);
 * NULL when that fails too.
 */
const char *tracefs__mountpoint(void);
/*
 * Where cgroup2 is mounted: /sys/fs/cgroup on unified hosts, elsewhere
 * (e.g. /sys/fs/cgroup/unified) on hybrid ones, as /proc/self/mounts says;
 * /sys/fs/cgroup when it names none. Written into @buf; returns @buf.
 */
const char *cgroup2__mountpoint(char *buf, size_t len);

#endif
