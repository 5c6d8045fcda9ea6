/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pdecomp: expands the PERF_RECORD_COMPRESSED (81) records of perf record -z.
 *
 * perf 6.1 (util/session.c perf_session__process_compressed_event) feeds the
 * payload of every COMPRESSED record of one file into one zstd stream and
 * parses the output as records, keeping a partial record for the next
 * payload. We do the same: one pdecomp per data file, records handed out
 * whole and 8-byte aligned. Kept apart from pfile*.c so the format code
 * stays POSIX + C11; this file alone needs libzstd.
 */
#ifndef SHARDREC_PDECOMP_H
#define SHARDREC_PDECOMP_H

#include <linux/perf_event.h>
#include <stddef.h>

struct pdecomp;

/* Called for each decompressed record; a non-zero return stops the feed and is returned. */
typedef int (*pdecomp_cb)(const struct perf_event_header *h, void *arg);

/* A new stream, or NULL on ENOMEM. Free with pdecomp__delete. */
struct pdecomp *pdecomp__new(void);
/* Accepts NULL. */
void pdecomp__delete(struct pdecomp *d);
/*
 * Decompresses @len payload bytes (a COMPRESSED record without its header)
 * and calls @cb for every record completed. 0, the callback's non-zero
 * return, -EINVAL on a corrupt stream or record, -ENOMEM.
 */
int pdecomp__feed(struct pdecomp *d, const void *src, size_t len, pdecomp_cb cb, void *arg);

#endif
