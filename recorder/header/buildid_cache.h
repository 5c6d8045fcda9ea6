/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf's build-id cache (~/.debug), filled as perf record 6.1 fills it once
 * the BUILD_ID feature is written (header.c write_build_id ->
 * perf_session__cache_build_ids; util/build-id.c build_id_cache__add), so
 * perf report still finds the DSOs of a recording after they are rebuilt.
 * For a DSO whose real path is /P and build id H (lower-case hex):
 *
 *   DIR/P/H/elf      a hard link to /P; a copy (mode 0755) where link() fails
 *                    (another file system, protected_hardlinks)
 *   DIR/P/H/debug    the same for /usr/lib/debug/.build-id/H[0:2]/H[2:].debug
 *                    when it is there (not for .ko files)
 *   DIR/P/H/probes   perf probe's SDT cache: an empty file (0644) when /P has
 *                    no .note.stapsdt section, as perf leaves it; with SDT
 *                    notes it is left to perf (it rewrites it on its next add)
 *   DIR/.build-id/H[0:2]/H[2:] -> ../../P/H   (a relative symlink)
 *
 * the running kernel as DIR/[kernel.kallsyms]/H/kallsyms (a copy of
 * /proc/kallsyms, 0755) and this process's vdso as DIR/[vdso]/H/vdso (its
 * image through a /tmp file, linked or copied as perf does), each with its
 * .build-id link. Directories are made 0755, less the umask. An entry that
 * exists is kept: adding twice changes nothing. The caller's credentials
 * write everything (a shardrec with file capabilities holds none raised by
 * then); nothing here raises one.
 *
 * DIR: NULL means perf's default, $HOME/.debug (".debug" without $HOME).
 * It must be absolute (perf's mkdir_p() refuses relative paths: it then
 * caches nothing) and its parent must exist (perf makes DIR with one
 * mkdir()). POSIX only; no printing.
 */
#ifndef SHARDREC_BUILDID_CACHE_H
#define SHARDREC_BUILDID_CACHE_H

#include "recorder/perfdata/pfile_feat.h"

#include <stddef.h>
#include <stdint.h>

/* The cache directory for @dir (NULL: $HOME/.debug) into @buf. 0 / -ENAMETOOLONG. */
int buildid_cache__dir(const char *dir, char *buf, size_t len);

/*
 * Adds the ELF file @path (a DSO or a module's .ko) with build id @id of @len
 * bytes (1..20): its elf, debug, probes and .build-id link. 0 / -errno:
 * -ENOENT when @path is gone, -EACCES/-EROFS when DIR is not writable,
 * -EINVAL for a relative DIR or a bad @len.
 */
int buildid_cache__add(const char *dir, const char *path, const uint8_t *id, size_t len);

/* The running kernel, build id @id: a copy of /proc/kallsyms. 0 / -errno. */
int buildid_cache__add_kernel(const char *dir, const uint8_t *id, size_t len);

/* This process's [vdso] (the one every native process maps). 0 / -errno (-ENOENT: none). */
int buildid_cache__add_vdso(const char *dir);

/*
 * What perf record caches for a recording whose BUILD_ID feature lists @b:
 * every entry with a file (kernel modules named by path too), plus the
 * running kernel and the vdso, which perf caches whether samples hit them
 * or not. Goes on past a failed entry, as perf does. 0, or the first
 * -errno with one line in @err naming the entry.
 */
int buildid_cache__add_ids(const char *dir, const struct pfile_build_id *b, size_t nr, char *err,
			   size_t errlen);

/*
 * The one call after a finished recording: reads the BUILD_ID feature of
 * the perf.data @perf_data (where the merge leaves the build ids of the
 * DSOs samples hit, or with --buildid-all of all) and adds it as
 * buildid_cache__add_ids() does. A file without the feature (-B, -z: perf
 * record caches nothing then either) adds nothing and returns 0. 0 / -errno
 * with one line in @err.
 */
int buildid_cache__add_hits(const char *dir, const char *perf_data, char *err, size_t errlen);

#endif
