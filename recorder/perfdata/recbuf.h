/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The growable buffers: a byte buffer for records built in memory
 * (synthesis, merge tails), and array__grow for arrays of any element.
 */
#ifndef SHARDREC_RECBUF_H
#define SHARDREC_RECBUF_H

#include <stddef.h>

struct recbuf {
	unsigned char *data; /* owned */
	size_t len, cap;
};

/* Reserves @len more bytes, zeroed; returns a pointer to them or NULL (ENOMEM). */
void *recbuf__reserve(struct recbuf *b, size_t len);
/* Appends @len bytes. 0 / -ENOMEM. */
int recbuf__append(struct recbuf *b, const void *p, size_t len);
void recbuf__release(struct recbuf *b);

/*
 * The one grow-by-doubling step for arrays: makes room for @need elements
 * of @elem bytes in @arr (capacity *@cap elements, 0 for none yet),
 * doubling from @first. Returns the array (moved or not, *@cap updated), or
 * NULL on ENOMEM, or when the bytes would pass SIZE_MAX, with @arr and
 * *@cap untouched.
 */
void *array__grow(void *arr, size_t *cap, size_t need, size_t elem, size_t first);

#endif
