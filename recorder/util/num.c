// SPDX-License-Identifier: GPL-2.0
#include "recorder/util/num.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool positive__parse(const char *s, unsigned *out)
{
	char *end;
	unsigned long v;

	if (!*s || strspn(s, "0123456789") != strlen(s))
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || !v || v > UINT32_MAX)
		return false;
	*out = (unsigned)v;
	return true;
}

int positive__env(const char *var, unsigned lo, unsigned hi, unsigned *out, const char *want,
		  char *err, size_t errlen)
{
	const char *env = getenv(var);
	unsigned v;

	if (!env || !*env)
		return 0;
	if (positive__parse(env, &v) && v >= lo && v <= hi) {
		*out = v;
		return 0;
	}
	snprintf(err, errlen, "%s=%s: want %s", var, env, want);
	return -EINVAL;
}
