/* SPDX-License-Identifier: GPL-2.0 */
/* Numbers from the command line and the environment: one parser for each shape. */
#ifndef SHARDREC_NUM_H
#define SHARDREC_NUM_H

#include <stdbool.h>

/* A positive decimal number that fits 32 bits, digits only: into *@out, true. */
bool positive__parse(const char *s, unsigned *out);

#endif
