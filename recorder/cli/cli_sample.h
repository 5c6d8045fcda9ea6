/* SPDX-License-Identifier: GPL-2.0 */
/* `record` options that take a value and feed sample_config.c. */
#ifndef SHARDREC_CLI_SAMPLE_H
#define SHARDREC_CLI_SAMPLE_H

#include "recorder/events/record_opts.h"

#include <stddef.h>

/*
 * Applies the long option @name ("call-graph", "user-regs", "intr-regs",
 * "delay", "max-size", "filter", "snapshot", "synth", "proc-map-timeout",
 * "affinity", "mmap-flush", "branch-filter"; "branch-any", -b, without
 * one) with value @arg (NULL when an optional value is absent). 0 /
 * -EINVAL or -ENOMEM with one line in @err.
 */
int record_opts__sample(struct record_opts *o, const char *name, const char *arg, char *err,
			size_t errlen);

#endif
