/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one home of the small sysfs/procfs readers (perf's tools/lib/api/fs:
 * filename__read_str & co). Look here before writing another.
 */
#ifndef SHARDREC_FS_H
#define SHARDREC_FS_H

/* The number @path starts with (fscanf "%lld"). 0 / -errno (-EINVAL: no number). */
int filename__read_ll(const char *path, long long *v);
/* /proc/sys/kernel/@name as a number, or @def when it cannot be read. */
long long sysctl__read_kernel(const char *name, long long def);
/* First line of @path without its newline, malloc'ed; NULL if unreadable or empty. */
char *filename__read_line(const char *path);
/* filename__read_line() of a path built from @fmt; NULL also when the path is too long. */
__attribute__((format(printf, 1, 2))) char *filename__read_linef(const char *fmt, ...);
/*
 * All of @path (up to a NUL byte, where perf's string ends too) into a
 * malloc'ed *@out; an empty file gives "". 0 / -errno (-EIO: read error).
 */
int filename__read_str(const char *path, char **out);
/*
 * Where tracefs is mounted: /sys/kernel/tracing, else the debugfs one (the
 * first whose events/ is a directory), as perf's tracefs__mountpoint().
 * When neither is, mounts tracefs on /sys/kernel/tracing as perf's
 * tracing_path_mount() does (root only); NULL when that fails too.
 */
const char *tracefs__mountpoint(void);

#endif
