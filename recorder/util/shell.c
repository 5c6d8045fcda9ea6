// SPDX-License-Identifier: GPL-2.0
#include "recorder/util/shell.h"

#include <stdio.h>
#include <string.h>

void shell__quote(const char *s, char *out, size_t len)
{
	static const char plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				    "0123456789_./%+,:@=-";
	size_t n = 0;

	if (*s && strspn(s, plain) == strlen(s)) {
		snprintf(out, len, "%s", s);
		return;
	}
	for (out[n++] = '\''; *s && n + 5 < len; s++) {
		if (*s == '\'') {
			memcpy(out + n, "'\\''", 4); /* close, an escaped quote, reopen */
			n += 4;
		} else {
			out[n++] = *s;
		}
	}
	out[n++] = '\'';
	out[n] = '\0';
}
