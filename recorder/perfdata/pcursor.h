/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A bounded reader over bytes already in memory (a record, a feature
 * section): every read checks what is left first, so a length field read
 * from a damaged file can never run past its buffer. The one home of this
 * loop in perfdata/ (feature parsing, the record and feature checks).
 */
#ifndef SHARDREC_PCURSOR_H
#define SHARDREC_PCURSOR_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct pcursor {
	const unsigned char *p;
	size_t left;
};

/* Copies @n bytes to @dst (NULL: skips them). False, moving nothing, if fewer are left. */
static inline bool pcursor__take(struct pcursor *c, void *dst, uint64_t n)
{
	if (n > c->left)
		return false;
	if (dst)
		memcpy(dst, c->p, n);
	c->p += n;
	c->left -= n;
	return true;
}

static inline bool pcursor__u32(struct pcursor *c, uint32_t *v)
{
	return pcursor__take(c, v, sizeof(*v));
}

static inline bool pcursor__u64(struct pcursor *c, uint64_t *v)
{
	return pcursor__take(c, v, sizeof(*v));
}
#endif
