/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `record` options of file rotation (perf record's --switch-output family;
 * capture/rotate.c carries them out).
 */
#ifndef SHARDREC_CLI_SWITCH_H
#define SHARDREC_CLI_SWITCH_H

#include "recorder/events/record_opts.h"

#include <stddef.h>

/* --switch-output[=signal|SIZE|TIME]. 0 / -EINVAL with one line in @err. */
int record_opts__switch_output(struct record_opts *o, const char *arg, char *err, size_t errlen);
/* --switch-max-files N. 0 / -EINVAL with one line in @err. */
int record_opts__switch_max_files(struct record_opts *o, const char *arg, char *err,
				  size_t errlen);
/*
 * Once every option is parsed: what perf implies (--switch-output-event:
 * signal mode; rotation: --timestamp-filename), and the combinations
 * rotation refuses. 0 / -EINVAL with one line in @err.
 */
int record_opts__finish_switch(struct record_opts *o, char *err, size_t errlen);

#endif
