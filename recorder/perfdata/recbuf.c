// SPDX-License-Identifier: GPL-2.0
#include "recorder/perfdata/recbuf.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void *recbuf__reserve(struct recbuf *b, size_t len)
{
	unsigned char *n = len <= SIZE_MAX - b->len
				   ? array__grow(b->data, &b->cap, b->len + len, 1, 4096)
				   : NULL;
	void *p;

	if (!n)
		return NULL;
	b->data = n;
	p = b->data + b->len;
	memset(p, 0, len);
	b->len += len;
	return p;
}

int recbuf__append(struct recbuf *b, const void *p, size_t len)
{
	void *dst = recbuf__reserve(b, len);

	if (!dst)
		return -ENOMEM;
	memcpy(dst, p, len);
	return 0;
}

void *array__grow(void *arr, size_t *cap, size_t need, size_t elem, size_t first)
{
	size_t n = *cap ? *cap : first ? first : 1;
	void *p;

	if (need <= *cap)
		return arr;
	/* Doubling past SIZE_MAX would wrap (to 0: for ever): then exactly @need. */
	while (n < need)
		n = n <= SIZE_MAX / 2 ? n * 2 : need;
	if (elem && n > SIZE_MAX / elem)
		return NULL;
	p = realloc(arr, n * elem);
	if (p)
		*cap = n;
	return p;
}

void recbuf__release(struct recbuf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
