/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Build ids of the DSOs that samples hit, for the BUILD_ID feature
 * (perf record's default; skipped with -B). The merge takes it as
 * dso_hits__ops, the ops of perfdata/phits.h.
 */
#ifndef SHARDREC_DSO_HITS_H
#define SHARDREC_DSO_HITS_H

#include "recorder/perfdata/pfile_feat.h"
#include "recorder/perfdata/pfile_sample.h"
#include "recorder/perfdata/phits.h"

#include <stddef.h>
#include <stdint.h>

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
 * Reads the build id of every hit DSO, and of the [vdso] when mapped, hit
 * or not, as perf (maps without a file and unreadable files skipped), and
 * stores the BUILD_ID feature in @fs. 0 / -errno. *@nr_out = number of
 * build ids written.
 */
int dso_hits__encode(struct dso_hits *h, const char *sys_root, struct pfile_featset *fs,
		     size_t *nr_out);

/*
 * The build ids dso_hits__encode() would store: every hit DSO (and the
 * [vdso]) whose build id could be read, in first-seen order. *@out is
 * allocated (free it with dso_hits__free_ids()), paths are copies.
 * 0 / -errno.
 */
int dso_hits__collect(struct dso_hits *h, const char *sys_root, struct pfile_build_id **out,
		      size_t *nr_out);
/* Frees what dso_hits__collect() returned; accepts NULL. */
void dso_hits__free_ids(struct pfile_build_id *b, size_t nr);

/* The tracker as merge takes it: encode reads files at / (no sys_root). */
extern const struct phits_ops dso_hits__ops;
/* perf record --buildid-all: the build ids of every DSO an MMAP names, hit or not. */
extern const struct phits_ops dso_hits__all_ops;

#endif
