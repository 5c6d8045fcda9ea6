// SPDX-License-Identifier: GPL-2.0
/* What a parsed `record` command line says (record_opts.h). */
#include "recorder/events/record_opts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool record_opts__cpu_wide(const struct record_opts *o)
{
	return o->system_wide || o->cpu_list;
}

bool record_opts__command_is_target(const struct record_opts *o)
{
	return o->argc && !record_opts__cpu_wide(o) && !o->pid_list && !o->tid_list && !o->uid;
}

long record_opts__append(char **list, const char *item)
{
	size_t old = *list ? strlen(*list) : 0;
	char *n = realloc(*list, old + strlen(item) + 2);

	if (!n)
		return -ENOMEM;
	if (old)
		n[old++] = ',';
	strcpy(n + old, item);
	*list = n;
	return old;
}

void record_opts__release(struct record_opts *o)
{
	free(o->events);
	o->events = NULL;
	free(o->switch_event);
	o->switch_event = NULL;
	free(o->filters);
	o->filters = NULL;
	o->nr_filters = o->cap_filters = 0;
}
