/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one logging function. Library code reports through it; only the CLI
 * installs a sink and decides what reaches the terminal.
 */
#ifndef SHARDREC_LOG_H
#define SHARDREC_LOG_H

enum log_level { LOG_ERR = 0, LOG_WARN, LOG_INFO, LOG_DEBUG };

typedef void (*log_sink_fn)(enum log_level level, const char *msg);

void log__set_sink(log_sink_fn fn);
void log__set_level(enum log_level max);
void log__msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * The text of the last LOG_ERR message, whatever the level shown (a
 * caller that carries on after a failure reports why, e.g. in a summary
 * file); "" when none.
 */
const char *log__last_error(void);

#define pr_err(...) log__msg(LOG_ERR, __VA_ARGS__)
#define pr_warn(...) log__msg(LOG_WARN, __VA_ARGS__)
#define pr_info(...) log__msg(LOG_INFO, __VA_ARGS__)
#define pr_debug(...) log__msg(LOG_DEBUG, __VA_ARGS__)

#endif
