/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfile_check: what perf 6.1 accepts, for merge, loss and the fuzzers:
 * records (pfile_check.c), events and feature sections (pfile_check_feat.c).
 */
#ifndef SHARDREC_PFILE_CHECK_H
#define SHARDREC_PFILE_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* pfile.h and pfile_sample.h define them: a checker holds only pointers. */
struct pfile;
struct pfile_idlayout;

/*
 * Record checks against one file's events: a layout per event, built once.
 * Rules follow perf 6.1's reader (session.c perf_session__process_event,
 * evsel.c evsel__parse_sample, the user-record handlers), stricter where
 * perf trusts the writer: a record perf would misread is refused too.
 */
struct pfile_check {
	const struct pfile *pf;
	struct pfile_idlayout *lay; /* one per event of @pf */
	/* per event: the one size its SAMPLEs have, 0 when they vary (callchains, ...) */
	uint32_t *sample_size;
};

/* 0 / -ENOMEM. @pf must outlive @c. */
int pfile_check__init(struct pfile_check *c, const struct pfile *pf);
void pfile_check__release(struct pfile_check *c);

#define PFILE_CHECK_OK 0
#define PFILE_CHECK_BAD 1        /* perf rejects or misreads it */
#define PFILE_CHECK_UNKNOWN_ID 2 /* well formed, but its sample id is no event's */

/*
 * Checks one record at @rec (any alignment) of which @len bytes are at hand
 * (its pfile__rec_len at least): size >= 8 and, COMPRESSED aside, 8-aligned;
 * a type perf 6.1 knows (kernel 1..21, user 64..82) and that belongs in a
 * perf.data file (not the pipe-mode TRACING_DATA, HEADER_FEATURE); the exact
 * size of fixed-size types and NUL-terminated names; a SAMPLE parsed field
 * by field against its event's sample_type, read_format and register masks,
 * ending exactly at header.size; other kernel records' sample_id trailer;
 * ids of samples, trailers, ID_INDEX and EVENT_UPDATE known. Returns a
 * PFILE_CHECK_* code; *@why, when not OK, is a static phrase.
 */
int pfile_check__record(const struct pfile_check *c, const void *rec, size_t len,
			const char **why);

/*
 * The last SAMPLE pfile_check__record_memo passed whole on its size (its
 * event has no variable field): size 0 for none yet. Zero it to start.
 */
struct pfile_check_memo {
	uint64_t id;
	uint32_t size;
};

/*
 * pfile_check__record, but a SAMPLE of the size and id of the one in @memo
 * is OK at once: for fixed-size samples those two are all the check reads,
 * so the verdict is the same, for a few instructions instead of the parse
 * (the merge checks every record; a ring's run repeats one event and id).
 */
int pfile_check__record_memo(const struct pfile_check *c, struct pfile_check_memo *memo,
			     const void *rec, size_t len, const char **why);

/*
 * The events as perf 6.1's session open wants them (evlist__valid_*): at
 * least one, one sample_id_all, one id position when more than one, known
 * sample_type bits, PERF_SAMPLE_READ with PERF_FORMAT_ID, and TRACING_DATA
 * holding every tracepoint event's format. true, or false with *@why.
 */
bool pfile_check__events(const struct pfile *pf, const char **why);

/*
 * Feature @feat's payload, parsed as perf 6.1's process_*() reads it (with
 * every count, length and string inside the section; CPU_TOPOLOGY sized by
 * @pf's NRCPUS). Features perf has no parser for must be empty or absent;
 * DIR_FORMAT does not belong in a single file. true, or false with *@why.
 */
bool pfile_check__feature(const struct pfile *pf, int feat, const void *data, size_t size,
			  const char **why);

#endif
