// SPDX-License-Identifier: GPL-2.0
#include "recorder/util/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static log_sink_fn log_sink;
static enum log_level log_max = LOG_WARN;
/* Errors may come from any thread: the copy is taken under a lock. */
static char last_error[1024];
static pthread_mutex_t last_error_lock = PTHREAD_MUTEX_INITIALIZER;

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

	if ((level > log_max || !log_sink) && level != LOG_ERR)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (level == LOG_ERR) {
		pthread_mutex_lock(&last_error_lock);
		memcpy(last_error, msg, sizeof(last_error));
		pthread_mutex_unlock(&last_error_lock);
	}
	if (level <= log_max && log_sink)
		log_sink(level, msg);
}

const char *log__last_error(void)
{
	static char copy[sizeof(last_error)];

	/* Read by the main thread once the others are gone: the copy is its own. */
	pthread_mutex_lock(&last_error_lock);
	memcpy(copy, last_error, sizeof(copy));
	pthread_mutex_unlock(&last_error_lock);
	return copy;
}
