/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one progress display for long work (the merge in record, merge and
 * job): a bar with MB/s redrawn in place on a terminal, a plain line every
 * few seconds otherwise (a batch job's log). Silent for work that ends
 * within its first second. MB = 10^6 bytes, as every size shardrec prints.
 */
#ifndef SHARDREC_PROGRESS_H
#define SHARDREC_PROGRESS_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct progress {
	const char *what;	/* "merging" */
	FILE *out;
	bool tty;		/* out is a terminal: redraw one line */
	bool shown;		/* a bar is on that line: finish ends it */
	double t0, last;	/* start, last shown (s, clock__now_s) */
};

void progress__init(struct progress *p, const char *what, FILE *out);
/* @done of @total bytes; shows at most every PROGRESS_TTY_S / PROGRESS_LOG_S. */
void progress__update(struct progress *p, uint64_t done, uint64_t total);
/* Ends a bar left on a terminal line; prints nothing otherwise. */
void progress__finish(struct progress *p, uint64_t done, uint64_t total);
/* merge_opts.progress-shaped callback: @arg is a struct progress. */
void progress__cb(uint64_t done, uint64_t total, void *arg);
#endif
