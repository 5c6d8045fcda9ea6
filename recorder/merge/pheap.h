/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A binary min-heap of pointers ordered by a caller's less(). Used where the
 * heap is small or cold (shards by watermark, compressed frames by time);
 * the merge's per-record run heap is specialized for speed instead.
 */
#ifndef SHARDREC_PHEAP_H
#define SHARDREC_PHEAP_H

#include "recorder/perfdata/recbuf.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

struct pheap {
	void **v;
	size_t n, cap;
	bool (*less)(const void *a, const void *b);
};

static inline void pheap__swap(struct pheap *h, size_t a, size_t b)
{
	void *t = h->v[a];

	h->v[a] = h->v[b];
	h->v[b] = t;
}

/* Restores the order after the top element's key grew. */
static inline void pheap__sift_down(struct pheap *h, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, best = i;

		if (l < h->n && h->less(h->v[l], h->v[best]))
			best = l;
		if (l + 1 < h->n && h->less(h->v[l + 1], h->v[best]))
			best = l + 1;
		if (best == i)
			return;
		pheap__swap(h, i, best);
		i = best;
	}
}

/* 0 / -ENOMEM */
static inline int pheap__push(struct pheap *h, void *e)
{
	void **v = array__grow(h->v, &h->cap, h->n + 1, sizeof(*v), 16);
	size_t i;

	if (!v)
		return -ENOMEM;
	h->v = v;
	i = h->n++;
	h->v[i] = e;
	while (i && h->less(h->v[i], h->v[(i - 1) / 2])) {
		pheap__swap(h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	return 0;
}

static inline void *pheap__top(const struct pheap *h)
{
	return h->n ? h->v[0] : NULL;
}

static inline void *pheap__pop(struct pheap *h)
{
	void *top = h->v[0];

	h->v[0] = h->v[--h->n];
	if (h->n)
		pheap__sift_down(h, 0);
	return top;
}

static inline void pheap__release(struct pheap *h)
{
	free(h->v);
	h->v = NULL;
	h->n = h->cap = 0;
}

#endif
