// SPDX-License-Identifier: GPL-2.0
#include "recorder/cli/cli_switch.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * perf's parse_tag_value: a number and one unit out of @tags, each unit
 * worth @mult[i]. The unit is required and its case matters: perf tells
 * 10M (10 MiB) from 10m (ten minutes) that way. 0 / -EINVAL.
 */
static int tag_value(const char *s, const char *tags, const uint64_t *mult, uint64_t *v)
{
	const char *tag;
	char *end;
	uint64_t n;

	errno = 0;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	n = strtoull(s, &end, 10);
	if (errno || !n || !*end || end[1] || !(tag = strchr(tags, *end)))
		return -EINVAL;
	if (n > UINT64_MAX / mult[tag - tags])
		return -EINVAL;
	*v = n * mult[tag - tags];
	return 0;
}

/* --switch-output[=signal|SIZE|TIME]: perf's switch_output_setup. */
int record_opts__switch_output(struct record_opts *o, const char *arg, char *err, size_t errlen)
{
	static const uint64_t size_mult[] = {1, 1ULL << 10, 1ULL << 20, 1ULL << 30};
	static const uint64_t time_mult[] = {1, 60, 60 * 60, 60 * 60 * 24};
	uint64_t v;

	o->switch_output = true;
	/* The last --switch-output wins, as perf keeps the last string. */
	o->switch_signal = false;
	o->switch_size = 0;
	o->switch_secs = 0;
	if (!arg || !strcmp(arg, "signal"))
		o->switch_signal = true;
	else if (!tag_value(arg, "BKMG", size_mult, &v))
		o->switch_size = v;
	else if (!tag_value(arg, "smhd", time_mult, &v) && v <= UINT_MAX)
		o->switch_secs = v;
	else {
		snprintf(err, errlen, "--switch-output: '%s' is not signal, a size (B/K/M/G: 100M) "
			 "or a time (s/m/h/d: 30s)", arg);
		return -EINVAL;
	}
	return 0;
}

int record_opts__switch_max_files(struct record_opts *o, const char *arg, char *err,
				   size_t errlen)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || !*arg || v < 0 || v > INT_MAX) {
		snprintf(err, errlen, "--switch-max-files: '%s' is not a number of files", arg);
		return -EINVAL;
	}
	o->switch_max_files = v;
	return 0;
}

int record_opts__finish_switch(struct record_opts *o, char *err, size_t errlen)
{
	const char *what = o->switch_event ? "--switch-output-event" : "--switch-output";

	if (o->switch_event && (o->switch_size || o->switch_secs)) {
		snprintf(err, errlen, "--switch-output-event switches on the event (and SIGUSR2), "
			 "not by size or time: drop --switch-output's value");
		return -EINVAL;
	}
	/* perf: the event implies --switch-output=signal, which implies --timestamp-filename. */
	if (o->switch_event)
		o->switch_output = o->switch_signal = true;
	if (o->switch_output)
		o->timestamp_filename = true;
	if (!o->timestamp_filename)
		return 0;
	if (!o->switch_output)
		what = "--timestamp-filename";
	if (!strcmp(o->output, "-")) {
		snprintf(err, errlen, "%s names files: not with -o - (pipe mode)", what);
		return -EINVAL;
	}
	if (o->max_size && o->switch_output) {
		snprintf(err, errlen, "--max-size with %s is not supported: bound the disk space "
			 "with --switch-output=SIZE and --switch-max-files", what);
		return -EINVAL;
	}
	return 0;
}
