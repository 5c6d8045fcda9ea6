// SPDX-License-Identifier: GPL-2.0
#include "recorder/util/suggest.h"

#include <stdlib.h>
#include <string.h>

#define SUGGEST_MAX_EDITS 2
#define SUGGEST_MAX_LEN 64 /* longer words are no typos worth a table */

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

/* Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps. */
static size_t osa_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t d[SUGGEST_MAX_LEN + 1][SUGGEST_MAX_LEN + 1];

	if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
		return (size_t)-1;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];

			d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < d[i][j])
				d[i][j] = d[i - 2][j - 2] + 1;
		}
	return d[la][lb];
}

const char *suggest__closest(const char *word, const char *const *cands, size_t n)
{
	size_t best = (size_t)-1, len = strlen(word);
	const char *pick = NULL;

	for (size_t i = 0; i < n; i++) {
		size_t d = osa_distance(word, cands[i]);

		if (!d)
			return NULL;
		if (d < best) {
			best = d;
			pick = cands[i];
		}
	}
	return best <= SUGGEST_MAX_EDITS && 2 * best < len ? pick : NULL;
}
