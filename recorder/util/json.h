/* SPDX-License-Identifier: GPL-2.0 */
/* JSON output helpers for the CLI's summaries. */
#ifndef SHARDREC_JSON_H
#define SHARDREC_JSON_H

#include <stdio.h>

/* Writes @s to @f as a JSON string: quoted, '"' '\\' and control bytes escaped. */
void json__fputs_str(FILE *f, const char *s);

#endif
