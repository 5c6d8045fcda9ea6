/* SPDX-License-Identifier: GPL-2.0 */
/* "Did you mean": the nearest known word to a mistyped one, as git and perf say it. */
#ifndef SHARDREC_SUGGEST_H
#define SHARDREC_SUGGEST_H

#include <stddef.h>

/*
 * The word of @cands[@n] closest to @word by edit distance (a swap of two
 * neighbours counts one, as in "recrod"), when it is close enough to be
 * what was meant: at most 2 edits, and fewer than half of @word's length.
 * NULL otherwise, and for an exact match (nothing to suggest).
 */
const char *suggest__closest(const char *word, const char *const *cands, size_t n);

#endif
