// SPDX-License-Identifier: GPL-2.0
/* What a parsed `record` command line says (record_opts.h). */
#include "recorder/events/record_opts.h"

#include <stdlib.h>

bool record_opts__command_is_target(const struct record_opts *o)
{
	return o->argc && !o->system_wide && !o->cpu_list && !o->pid_list && !o->tid_list &&
	       !o->uid;
}

void record_opts__release(struct record_opts *o)
{
	free(o->events);
	o->events = NULL;
	free(o->filters);
	o->filters = NULL;
	o->nr_filters = 0;
}
