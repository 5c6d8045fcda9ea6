// SPDX-License-Identifier: GPL-2.0
/*
 * Streaming zstd decompression of COMPRESSED records (see pdecomp.h).
 * The output buffer holds at most one partial record plus one chunk of
 * output: memory stays bounded by the largest record (64 KiB, header.size is
 * a u16) plus PDECOMP_CHUNK.
 */
#include "recorder/codec/pdecomp.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define PDECOMP_CHUNK (1U << 20)

struct pdecomp {
	ZSTD_DStream *zs;
	unsigned char *buf; /* decompressed bytes not yet handed out, at buf[0] */
	size_t len, cap;
	uint64_t *bounce; /* aligned copy when a record sits at an odd offset */
};

struct pdecomp *pdecomp__new(void)
{
	struct pdecomp *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->zs = ZSTD_createDStream();
	d->cap = PDECOMP_CHUNK + 65536;
	d->buf = malloc(d->cap);
	d->bounce = malloc(65536);
	if (!d->zs || !d->buf || !d->bounce || ZSTD_isError(ZSTD_initDStream(d->zs))) {
		pdecomp__delete(d);
		return NULL;
	}
	return d;
}

void pdecomp__delete(struct pdecomp *d)
{
	if (!d)
		return;
	ZSTD_freeDStream(d->zs);
	free(d->buf);
	free(d->bounce);
	free(d);
}


/* Hands out every whole record at the start of buf, then keeps the rest. */
static int pdecomp__drain(struct pdecomp *d, pdecomp_cb cb, void *arg)
{
	size_t pos = 0;
	int ret = 0;

	while (d->len - pos >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		const struct perf_event_header *rec;

		memcpy(&h, d->buf + pos, sizeof(h));
		if (h.size < sizeof(h)) {
			ret = -EINVAL;
			break;
		}
		if (d->len - pos < h.size)
			break;
		rec = (const void *)(d->buf + pos);
		if (pos % 8) {
			memcpy(d->bounce, d->buf + pos, h.size);
			rec = (const void *)d->bounce;
		}
		pos += h.size;
		ret = cb(rec, arg);
		if (ret)
			break;
	}
	memmove(d->buf, d->buf + pos, d->len - pos);
	d->len -= pos;
	return ret;
}

int pdecomp__feed(struct pdecomp *d, const void *src, size_t len, pdecomp_cb cb, void *arg)
{
	ZSTD_inBuffer in = {src, len, 0};
	bool full;
	int ret;

	do {
		/* A partial record is under 64 KiB, so cap - len >= PDECOMP_CHUNK. */
		ZSTD_outBuffer out = {d->buf + d->len, d->cap - d->len, 0};
		size_t r = ZSTD_decompressStream(d->zs, &out, &in);

		if (ZSTD_isError(r))
			return -EINVAL;
		d->len += out.pos;
		/* A full output buffer may leave data inside zstd: go round again. */
		full = out.pos == out.size;
		ret = pdecomp__drain(d, cb, arg);
		if (ret)
			return ret;
		if (full && d->len == d->cap)
			return -EINVAL; /* a record larger than the buffer */
	} while (in.pos < in.size || full);
	return 0;
}
