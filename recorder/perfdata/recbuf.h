/* SPDX-License-Identifier: GPL-2.0 */
/* A growable byte buffer for records built in memory (synthesis, merge tails). */
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

#endif
