/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Build ids of the DSOs that samples hit, for the BUILD_ID feature
 * (perf record's default; skipped with -B).
 */
#ifndef SHARDREC_BUILDID_H
#define SHARDREC_BUILDID_H

#include "recorder/perfdata/pfile.h"

#include <stddef.h>
#include <stdint.h>

/* GNU build id of an ELF file (PT_NOTE / NT_GNU_BUILD_ID). 0 / -errno (-ENOENT: no note). */
int buildid__read_elf(const char *path, uint8_t id[20], uint8_t *size);
/* Running kernel's build id from @sys_root/sys/kernel/notes. 0 / -errno */
int buildid__read_kernel(const char *sys_root, uint8_t id[20], uint8_t *size);
/* Module's build id from @sys_root/sys/module/NAME/notes/.note.gnu.build-id. 0 / -errno */
int buildid__read_module(const char *sys_root, const char *name, uint8_t id[20], uint8_t *size);

/*
 * Tracks the address maps of every pid from MMAP/MMAP2/FORK/COMM(exec)
 * records and marks which DSO each SAMPLE's ip falls in (kernel samples:
 * the kernel or the module map).
 */
struct dso_hits;

struct dso_hits *dso_hits__new(const struct pfile_idlayout *layout);
void dso_hits__delete(struct dso_hits *h);
/* Feeds one record, in file order. Never fails: unknown records are ignored. */
void dso_hits__feed(struct dso_hits *h, const struct perf_event_header *rec);
/*
 * Reads the build id of every hit DSO (anonymous/[vdso]-like maps skipped,
 * unreadable files skipped) and stores the BUILD_ID feature in @fs.
 * 0 / -errno. *@nr_out = number of build ids written.
 */
int dso_hits__encode(struct dso_hits *h, const char *sys_root, struct pfile_featset *fs,
		     size_t *nr_out);

/*
 * The build ids dso_hits__encode() would store: every hit DSO whose build id
 * could be read, in first-seen order. *@out is allocated (free it with
 * dso_hits__free_ids()), paths are copies. 0 / -errno.
 */
int dso_hits__collect(struct dso_hits *h, const char *sys_root, struct pfile_build_id **out,
		      size_t *nr_out);
/* Frees what dso_hits__collect() returned; accepts NULL. */
void dso_hits__free_ids(struct pfile_build_id *b, size_t nr);

#endif
