/* SPDX-License-Identifier: GPL-2.0 */
/* Clock readings in the units callers compare. */
#ifndef SHARDREC_CLOCK_H
#define SHARDREC_CLOCK_H

#include <stdint.h>
#include <time.h>

/* @id's time in ns. */
uint64_t clock__ns(clockid_t id);
/* CLOCK_MONOTONIC in ms, for timeouts. */
unsigned long long clock__now_ms(void);
/* CLOCK_MONOTONIC in seconds, for durations. */
double clock__now_s(void);

#endif
