// SPDX-License-Identifier: GPL-2.0
/* Branch stack filter modes, perf 6.1's parse-branch-options.c table and rule. */
#include "recorder/events/branch_filter.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <linux/perf_event.h>

/* perf 6.1's branch_modes[], in its order. */
static const struct {
	const char *name;
	uint64_t mode;
} modes[] = {
	{"u", PERF_SAMPLE_BRANCH_USER},
	{"k", PERF_SAMPLE_BRANCH_KERNEL},
	{"hv", PERF_SAMPLE_BRANCH_HV},
	{"any", PERF_SAMPLE_BRANCH_ANY},
	{"any_call", PERF_SAMPLE_BRANCH_ANY_CALL},
	{"any_ret", PERF_SAMPLE_BRANCH_ANY_RETURN},
	{"ind_call", PERF_SAMPLE_BRANCH_IND_CALL},
	{"abort_tx", PERF_SAMPLE_BRANCH_ABORT_TX},
	{"in_tx", PERF_SAMPLE_BRANCH_IN_TX},
	{"no_tx", PERF_SAMPLE_BRANCH_NO_TX},
	{"cond", PERF_SAMPLE_BRANCH_COND},
	{"ind_jmp", PERF_SAMPLE_BRANCH_IND_JUMP},
	{"call", PERF_SAMPLE_BRANCH_CALL},
	{"save_type", PERF_SAMPLE_BRANCH_TYPE_SAVE},
	{"stack", PERF_SAMPLE_BRANCH_CALL_STACK},
	{"priv", PERF_SAMPLE_BRANCH_PRIV_SAVE},
};

uint64_t branch_filter__mode(const char *name)
{
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcasecmp(name, modes[i].name))
			return modes[i].mode;
	return 0;
}

void branch_filter__add(uint64_t *mode, uint64_t bits)
{
	*mode |= bits;
	if (!(*mode & ~(uint64_t)PERF_SAMPLE_BRANCH_PLM_ALL))
		*mode = PERF_SAMPLE_BRANCH_ANY;
}

int branch_filter__parse(const char *str, uint64_t *mode, char *err, size_t errlen)
{
	uint64_t bits = 0, bit;
	char name[32];
	const char *p = str;
	size_t len;

	for (;;) {
		len = strcspn(p, ",");
		snprintf(name, sizeof(name), "%.*s", (int)len, p);
		bit = len < sizeof(name) ? branch_filter__mode(name) : 0;
		if (!bit) {
			snprintf(err, errlen, "unknown branch filter '%.*s' (valid: %s)", (int)len, p,
				 BRANCH_FILTER_MODES);
			return -EINVAL;
		}
		bits |= bit;
		if (!p[len])
			break;
		p += len + 1;
	}
	branch_filter__add(mode, bits);
	return 0;
}
