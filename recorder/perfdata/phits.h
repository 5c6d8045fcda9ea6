/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BUILD_IDs of the DSOs samples hit (perf record's default), as ops:
 * header/ implements them (dso_hits__ops, reading ELF notes), merge/
 * feeds them the records it writes. The type lives here, in the format
 * layer both sides include, so header/ includes nothing of merge/ and
 * merge/ links without the recorder.
 */
#ifndef SHARDREC_PHITS_H
#define SHARDREC_PHITS_H

#include <linux/perf_event.h>
#include <stddef.h>

struct pfile_idlayout;
struct pfile_featset;

struct phits_ops {
	/* NULL on ENOMEM; delete accepts NULL. */
	void *(*new)(const struct pfile_idlayout *layout);
	void (*delete)(void *hits);
	void (*feed)(void *hits, const struct perf_event_header *rec);
	/* Adds HEADER_BUILD_ID to @fs; *@nr ids. 0 / -errno. */
	int (*encode)(void *hits, struct pfile_featset *fs, size_t *nr);
};

#endif
