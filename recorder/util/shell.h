/* SPDX-License-Identifier: GPL-2.0 */
/* Commands shardrec prints for the user to run (a merge, a removal). */
#ifndef SHARDREC_SHELL_H
#define SHARDREC_SHELL_H

#include <stddef.h>

/*
 * @s as one shell word in @out: as is when it holds only plain characters,
 * else in single quotes (a quote inside as '\''), so a printed command
 * can be pasted whatever the path holds. Truncated to @len.
 */
void shell__quote(const char *s, char *out, size_t len);

#endif
