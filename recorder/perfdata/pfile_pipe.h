/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf's pipe format, what `perf record -o -` writes where the output
 * cannot seek: no file header with sections, but records that stand in for
 * it, ahead of the data. As perf 6.1 writes them (synthetic-events.c
 * perf_event__synthesize_for_pipe, header.c perf_header__write_pipe):
 *
 *   pipe header        magic PERFILE2, size 16
 *   HEADER_ATTR        per event: the attr (at PFILE_ATTR_SIZE), its ids
 *   HEADER_FEATURE     per feature perf synthesizes, ascending bit order:
 *                      feat id, then the feature section as in a file
 *   HEADER_FEATURE     feat id HEADER_LAST_FEATURE, no payload: the end mark
 *   HEADER_TRACING_DATA  with tracepoints: u32 size, then size bytes of
 *                      tracing data (not counted by header.size), 8-aligned
 *   ... then the synthesized and recorded records as in a file's data,
 *   EVENT_UPDATE records (unit, scale, name) after the kernel's maps.
 *
 * POSIX + C11 only, like the rest of perfdata/. Records are appended to a
 * recbuf; every function returns 0 / -errno (-E2BIG: a record perf's u16
 * header.size cannot hold).
 */
#ifndef SHARDREC_PFILE_PIPE_H
#define SHARDREC_PFILE_PIPE_H

#include "recorder/perfdata/pfile_format.h"
#include "recorder/perfdata/recbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PFILE_PIPE_HEADER_SIZE 16
#define PFILE_FEAT_LAST 32 /* HEADER_LAST_FEATURE: the end mark of a pipe's features */

/* EVENT_UPDATE types (perf's enum perf_event_update_type) */
enum pfile_event_update {
	PFILE_EVENT_UPDATE_UNIT = 0,
	PFILE_EVENT_UPDATE_SCALE = 1,
	PFILE_EVENT_UPDATE_NAME = 2,
};

/* The 16-byte header of a pipe: magic, then its own size. */
int pfile_pipe__header(struct recbuf *b);
/* HEADER_ATTR of @ev: 8 + PFILE_ATTR_SIZE + 8 per id bytes. */
int pfile_pipe__attr(struct recbuf *b, const struct pfile_event *ev);
/*
 * True for the features perf 6.1 sends down a pipe (feat_ops[].synthesize):
 * not TRACING_DATA (its own record), BUILD_ID, BRANCH_STACK, AUXTRACE,
 * STAT, CACHE, DIR_FORMAT, HYBRID_TOPOLOGY, nor anything past the last.
 */
bool pfile_pipe__feature_synthesized(int feat);
/*
 * HEADER_FEATURE of every feature of @fs perf synthesizes, in bit order,
 * then the HEADER_LAST_FEATURE mark. Unpadded, as perf 6.1 writes them. A
 * feature too large for one record is left out and its bit returned in
 * *@skipped (-1 if none).
 */
int pfile_pipe__features(struct recbuf *b, const struct pfile_featset *fs, int *skipped);
/* HEADER_TRACING_DATA and @len bytes of tracing data, zero-padded to 8. */
int pfile_pipe__tracing_data(struct recbuf *b, const void *data, size_t len);
/*
 * EVENT_UPDATE of the event whose first id is @id: @type UNIT or NAME
 * with the string @s, or SCALE with @scale (@s unused).
 */
int pfile_pipe__event_update(struct recbuf *b, enum pfile_event_update type, uint64_t id,
			     const char *s, double scale);

#endif
