// SPDX-License-Identifier: GPL-2.0
#include "recorder/codec/zpass.h"
#include "numa/numa.h"
#include "recorder/perfdata/pfile_sample.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <string.h>
#include <zstd.h>

/*
 * A segment's COMPRESSED record, header included, fits header.size's u16
 * (put_segment still checks: a flush adds frame and block headers).
 */
_Static_assert(ZSTD_COMPRESSBOUND(ZPASS_SEGMENT) + sizeof(struct perf_event_header) <=
		   ZPASS_REC_MAX,
	       "ZPASS segment too large for one COMPRESSED record");

int zpass__init(struct zpass *z, int level, int node)
{
	memset(z, 0, sizeof(*z));
	z->node = node;
	if (level < 1 || level > ZSTD_maxCLevel())
		return -EINVAL;
	z->cctx = ZSTD_createCCtx();
	if (!z->cctx)
		return -ENOMEM;
	ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_compressionLevel, level);
	/*
	 * Without a checksum a flipped byte decodes into plausible garbage
	 * (wrong timestamps, ids); XXH64 costs little next to compression.
	 */
	ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_checksumFlag, 1);
	return 0;
}

void zpass__release(struct zpass *z)
{
	ZSTD_freeCCtx(z->cctx);
	placement__free(z->out, z->cap);
	memset(z, 0, sizeof(*z));
}

/* Worst case output for @total raw bytes: every segment its own record. */
static size_t out_bound(size_t total)
{
	size_t segs = total / (ZPASS_SEGMENT / 2) + 2;

	return ZSTD_compressBound(total) + segs * (sizeof(struct perf_event_header) + 32);
}

static int ensure_cap(struct zpass *z, size_t need)
{
	unsigned char *n;
	size_t cap;

	if (need <= z->cap)
		return 0;
	cap = z->cap ? z->cap : 1 << 20;
	while (cap < need)
		cap *= 2;
	n = placement__alloc(cap, z->node);
	if (!n)
		return -ENOMEM;
	placement__free(z->out, z->cap);
	z->out = n;
	z->cap = cap;
	return 0;
}

/* A cursor over records laid across iovecs. */
struct rcur {
	const struct iovec *iov;
	int nr, i;
	size_t off; /* inside iov[i] */
};

/* Reads the record header at the cursor; returns the record's full length (pfile__rec_len). */
static uint64_t rcur_header(const struct rcur *c, struct perf_event_header *h)
{
	/* Records are 8-aligned and rings are 2^n: a header never straddles. */
	const char *p = (const char *)c->iov[c->i].iov_base + c->off;

	memcpy(h, p, sizeof(*h));
	/* An AUXTRACE header is one iovec of its own (aux/): its size field is there too. */
	if (h->type == PFILE_REC_AUXTRACE && c->iov[c->i].iov_len - c->off < h->size)
		return UINT64_MAX;
	return pfile__rec_len((const void *)p);
}

/* Feeds @len bytes from the cursor to zstd with @mode, output after z->len. */
static int feed(struct zpass *z, struct rcur *c, size_t len, ZSTD_EndDirective mode)
{
	ZSTD_outBuffer out = {z->out, z->cap, z->len};
	size_t ret;

	do {
		size_t piece = c->iov[c->i].iov_len - c->off;
		ZSTD_inBuffer in;

		if (piece > len)
			piece = len;
		in = (ZSTD_inBuffer){(const char *)c->iov[c->i].iov_base + c->off, piece, 0};
		len -= piece;
		do {
			ret = ZSTD_compressStream2(z->cctx, &out, &in, len ? ZSTD_e_continue : mode);
			if (ZSTD_isError(ret))
				return -EIO;
		} while (in.pos < in.size || (!len && ret));
		c->off += piece;
		if (c->off == c->iov[c->i].iov_len && c->i + 1 < c->nr) {
			c->i++;
			c->off = 0;
		}
	} while (len);
	z->len = out.pos;
	return 0;
}

static void skip_empty(struct rcur *c)
{
	while (c->i + 1 < c->nr && c->off == c->iov[c->i].iov_len) {
		c->i++;
		c->off = 0;
	}
}

/* One COMPRESSED record: header, then the flushed zstd bytes of @len raw bytes. */
static int put_segment(struct zpass *z, struct rcur *c, size_t len, bool last)
{
	size_t start = z->len;
	struct perf_event_header h = {.type = PFILE_REC_COMPRESSED};
	int err;

	z->len += sizeof(h);
	err = feed(z, c, len, last ? ZSTD_e_end : ZSTD_e_flush);
	if (err)
		return err;
	if (z->len - start > ZPASS_REC_MAX)
		return -E2BIG;
	h.size = z->len - start;
	memcpy(z->out + start, &h, sizeof(h));
	return 0;
}

/* A record too large to compress within one COMPRESSED record: copied plain. */
static void put_plain(struct zpass *z, struct rcur *c, size_t size)
{
	while (size) {
		size_t piece = c->iov[c->i].iov_len - c->off;

		if (piece > size)
			piece = size;
		memcpy(z->out + z->len, (const char *)c->iov[c->i].iov_base + c->off, piece);
		z->len += piece;
		c->off += piece;
		size -= piece;
		skip_empty(c);
	}
}

int zpass__compress(struct zpass *z, const struct iovec *iov, int nr_iov, size_t total)
{
	struct rcur c = {iov, nr_iov, 0, 0}, seg;
	size_t done = 0, seglen = 0;
	int err = ensure_cap(z, out_bound(total));

	z->len = 0;
	seg = c;
	while (!err && done < total) {
		struct perf_event_header h;
		uint64_t full;
		bool huge;

		skip_empty(&c);
		full = rcur_header(&c, &h);
		if (h.size < sizeof(h) || full > total - done)
			return -EBADMSG;
		/* AUX trace stays plain: perf reads AUXTRACE payloads from the file, not a stream. */
		huge = full > ZPASS_SEGMENT || h.type == PFILE_REC_AUXTRACE;
		if (seglen && (huge || seglen + full > ZPASS_SEGMENT)) {
			err = put_segment(z, &seg, seglen, huge);
			seglen = 0;
			seg = c;
		}
		if (err)
			break;
		if (huge) {
			put_plain(z, &c, full);
			seg = c;
		} else {
			/* Advance the cursor past the record. */
			for (size_t left = full; left;) {
				size_t piece = c.iov[c.i].iov_len - c.off;

				piece = piece < left ? piece : left;
				c.off += piece;
				left -= piece;
				skip_empty(&c);
			}
			seglen += full;
		}
		done += full;
	}
	if (!err && seglen)
		err = put_segment(z, &seg, seglen, true);
	return err;
}
