// SPDX-License-Identifier: GPL-2.0
/*
 * The one zstd decoder (see zunpass.h). The stream's output buffer holds at
 * most one partial record plus one chunk of output: memory stays bounded by
 * the largest record (64 KiB, header.size is a u16) plus PDECOMP_CHUNK.
 */
#include "recorder/codec/zunpass.h"
#include "recorder/codec/zpass.h"
#include "recorder/perfdata/pfile_sample.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define PDECOMP_CHUNK (1U << 20)

/* Decodes what fits of @ib into @ob: the one call into zstd's decoder. 0 / -EBADMSG. */
static int zunpass__step(struct zunpass *u, ZSTD_inBuffer *ib, ZSTD_outBuffer *ob)
{
	return ZSTD_isError(ZSTD_decompressStream(u->dctx, ob, ib)) ? -EBADMSG : 0;
}


struct pdecomp {
	struct zunpass u;
	unsigned char *buf; /* decompressed bytes not yet handed out, at buf[0] */
	size_t len, cap;
	uint64_t *bounce; /* aligned copy when a record sits at an odd offset */
};

struct pdecomp *pdecomp__new(void)
{
	struct pdecomp *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->cap = PDECOMP_CHUNK + 65536;
	d->buf = malloc(d->cap);
	d->bounce = malloc(65536);
	if (zunpass__init(&d->u) || !d->buf || !d->bounce) {
		pdecomp__delete(d);
		return NULL;
	}
	return d;
}

void pdecomp__delete(struct pdecomp *d)
{
	if (!d)
		return;
	zunpass__release(&d->u);
	free(d->buf);
	free(d->bounce);
	free(d);
}


/* Hands out every whole record at the start of buf, then keeps the rest. */
static int pdecomp__drain(struct pdecomp *d, pdecode_cb cb, void *arg)
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

int pdecomp__feed(struct pdecomp *d, const void *src, size_t len, pdecode_cb cb, void *arg)
{
	ZSTD_inBuffer in = {src, len, 0};
	bool full;
	int ret;

	do {
		/* A partial record is under 64 KiB, so cap - len >= PDECOMP_CHUNK. */
		ZSTD_outBuffer out = {d->buf + d->len, d->cap - d->len, 0};

		if (zunpass__step(&d->u, &in, &out))
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

int zunpass__init(struct zunpass *u)
{
	u->dctx = ZSTD_createDCtx();
	return u->dctx ? 0 : -ENOMEM;
}

void zunpass__release(struct zunpass *u)
{
	ZSTD_freeDCtx(u->dctx);
	u->dctx = NULL;
}

long zunpass__run(struct zunpass *u, const unsigned char *in, size_t len, unsigned char *out,
		  size_t cap, size_t *bad_off, size_t *produced)
{
	ZSTD_outBuffer ob = {out, cap, 0};
	size_t pos = 0;

	ZSTD_DCtx_reset(u->dctx, ZSTD_reset_session_only);
	while (pos + sizeof(struct perf_event_header) <= len) {
		struct perf_event_header h;

		memcpy(&h, in + pos, sizeof(h));
		*bad_off = pos;
		*produced = ob.pos;
		if (h.size < sizeof(h) || h.size > len - pos)
			return -EBADMSG;
		if (h.type == PFILE_REC_COMPRESSED) {
			ZSTD_inBuffer ib = {in + pos + sizeof(h), h.size - sizeof(h), 0};

			while (ib.pos < ib.size) {
				if (zunpass__step(u, &ib, &ob) || (ob.pos == ob.size && ib.pos < ib.size))
					return -EBADMSG;
			}
		} else {
			/* A plain record between frames: AUXTRACE carries its payload along. */
			uint64_t full = pfile__rec_len((const void *)(in + pos));

			if (full > len - pos || ob.pos + full > cap)
				return -EBADMSG;
			memcpy(out + ob.pos, in + pos, full);
			ob.pos += full;
			pos += full;
			continue;
		}
		pos += h.size;
	}
	*bad_off = pos;
	*produced = ob.pos;
	return pos == len ? (long)ob.pos : -EBADMSG;
}

size_t zunpass__bound(const unsigned char *in, size_t len)
{
	size_t pos = 0, bound = 0;

	while (pos + sizeof(struct perf_event_header) <= len) {
		struct perf_event_header h;

		uint64_t full;

		memcpy(&h, in + pos, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - pos)
			break;
		/* Stepped as zunpass__run steps: AUXTRACE carries its payload. */
		full = h.type == PFILE_REC_COMPRESSED ? h.size : pfile__rec_len((const void *)(in + pos));
		if (full > len - pos)
			break;
		bound += h.type == PFILE_REC_COMPRESSED ? ZPASS_SEGMENT : full;
		pos += full;
	}
	return bound;
}

static void *zunpass__ops_new(void)
{
	return pdecomp__new();
}

static void zunpass__ops_delete(void *dec)
{
	pdecomp__delete(dec);
}

static long zunpass__ops_run(void *dec, const unsigned char *in, size_t len, unsigned char *out,
			     size_t cap, size_t *bad_off, size_t *produced)
{
	return zunpass__run(&((struct pdecomp *)dec)->u, in, len, out, cap, bad_off, produced);
}

static int zunpass__ops_feed(void *dec, const void *src, size_t len, pdecode_cb cb, void *arg)
{
	return pdecomp__feed(dec, src, len, cb, arg);
}

const struct pdecode_ops zunpass__ops = {
	.new = zunpass__ops_new,
	.delete = zunpass__ops_delete,
	.pass_run = zunpass__ops_run,
	.pass_bound = zunpass__bound,
	.stream_feed = zunpass__ops_feed,
};
