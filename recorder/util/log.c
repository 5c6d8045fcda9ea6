// SPDX-License-Identifier: GPL-2.0
#include "recorder/util/log.h"

#include <stdarg.h>
#include <stdio.h>

static log_sink_fn log_sink;
static enum log_level log_max = LOG_WARN;

void log__set_sink(log_sink_fn fn)
{
	log_sink = fn;
}

void log__set_level(enum log_level max)
{
	log_max = max;
}

void log__msg(enum log_level level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (level > log_max || !log_sink)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_sink(level, msg);
}
