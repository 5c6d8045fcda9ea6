/* SPDX-License-Identifier: GPL-2.0 */
/* Numbers from the command line and the environment: one parser for each shape. */
#ifndef SHARDREC_NUM_H
#define SHARDREC_NUM_H

#include <stdbool.h>
#include <stddef.h>

/* A positive decimal number that fits 32 bits, digits only: into *@out, true. */
bool positive__parse(const char *s, unsigned *out);
/*
 * An experiment knob from the environment: $@var unset or empty leaves
 * *@out as it is; else positive__parse's number, from @lo to @hi, into it.
 * 0, or -EINVAL with one line "VAR=VALUE: want @want" in @err (a bad knob
 * is an error: an experiment that silently ran the default would measure
 * nothing).
 */
int positive__env(const char *var, unsigned lo, unsigned hi, unsigned *out, const char *want,
		  char *err, size_t errlen);

#endif
