/* SPDX-License-Identifier: GPL-2.0 */
/* The `record` command line: parsing into struct record_opts, and usage. */
#ifndef SHARDREC_CLI_RECORD_H
#define SHARDREC_CLI_RECORD_H

#include "recorder/events/record_opts.h"

#include <stddef.h>

/*
 * Parses `record` arguments (argv[0] = "record"). 0, 1 for --help (printed
 * to stdout), or -EINVAL with one line in @err. Free with record_opts__release.
 */
int record_opts__parse(struct record_opts *o, int argc, char **argv, char *err, size_t errlen);
/*
 * The two halves of record_opts__parse, for a caller that sets targets of
 * its own in between (`shardrec job`): the options alone (0, 1 for
 * --help, -EINVAL), then their combination (0 / -EINVAL).
 */
int record_opts__parse_args(struct record_opts *o, int argc, char **argv, char *err,
			    size_t errlen);
int record_opts__check(struct record_opts *o, char *err, size_t errlen);
/* The record usage text. */
const char *record_opts__usage(void);

#endif
