// SPDX-License-Identifier: GPL-2.0
#include "recorder/util/num.h"

#include <errno.h>
#include <stdint.h>
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
