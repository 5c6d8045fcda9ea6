/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Printing `shardrec loss` results (loss/loss.h computes them): a table,
 * JSON (loss_fmt.c) and a gnuplot PNG (loss_plot.c).
 */
#ifndef SHARDREC_LOSS_PRINT_H
#define SHARDREC_LOSS_PRINT_H

#include "recorder/loss/loss.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Formatters for the CLI (they write to @f, they do not decide where):
 * a table with one row per file and one per event, or a JSON array.
 */
void loss__fprint_table(FILE *f, const char *const *paths, const struct loss_stats *st, size_t n);
void loss__fprint_json(FILE *f, const char *const *paths, const struct loss_stats *st, size_t n);

/* ---- loss --plot (loss_plot.c) ---- */

/* Lost counts of one file in time bins, one column per CPU that lost. */
struct loss_bins {
	long *cpus;       /* columns, ascending (-1: records without a CPU) */
	size_t nr_cpus;
	size_t nr_bins;
	uint64_t origin;  /* ns: the file's first timestamp, bin 0 starts there */
	uint64_t width;   /* ns per bin, >= 1 */
	uint64_t *count;  /* [bin * nr_cpus + column] */
};

/*
 * Sums @st's loss points into @nr_bins bins spanning its timestamps.
 * 0 / -ENOMEM; release @b with loss_bins__release either way.
 */
int loss_bins__build(struct loss_bins *b, const struct loss_stats *st, size_t nr_bins);
void loss_bins__release(struct loss_bins *b);

/*
 * Draws lost records over time per CPU, one panel per file, into the PNG
 * @png with gnuplot, run as a child with its data and script in a
 * temporary directory (removed after). 0 / -errno with one line in @err
 * (-ENOENT: gnuplot is not installed).
 */
int loss__plot(const char *png, const char *const *paths, const struct loss_stats *st, size_t n,
	       char *err, size_t errlen);

#endif
