/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one zstd decoder, for both kinds of compressed records:
 *
 * zunpass: a ZPASS payload (codec/zpass.h: whole frames cut into COMPRESSED
 * records, plain records between them), decoded one pass at a time; the
 * merge reads -z shards with it.
 *
 * pdecomp: the PERF_RECORD_COMPRESSED (81) records of a perf.data. perf 6.1
 * (util/session.c perf_session__process_compressed_event) feeds the payload
 * of every COMPRESSED record of one file into one zstd stream and parses the
 * output as records, keeping a partial record for the next payload. We do
 * the same: one pdecomp per data file, records handed out whole and 8-byte
 * aligned; `loss` reads perf.data with it.
 *
 * Both step one ZSTD_DCtx through zunpass__step. zunpass__ops hands them to
 * merge/ and loss/ as the ops of perfdata/pdecode.h.
 */
#ifndef SHARDREC_ZUNPASS_H
#define SHARDREC_ZUNPASS_H

#include "recorder/perfdata/pdecode.h"

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

/* Decompression of a pass payload (COMPRESSED and plain records). */
struct zunpass {
	void *dctx; /* ZSTD_DCtx */
};

int zunpass__init(struct zunpass *u);
void zunpass__release(struct zunpass *u);
/*
 * Decompresses @len bytes of records at @in into @out (@cap bytes). Plain
 * records are copied. Returns the bytes produced or -errno (-EBADMSG on
 * corrupt input: *@bad_off is the offset of the bad record in @in, and
 * *@produced what was decoded before it).
 */
long zunpass__run(struct zunpass *u, const unsigned char *in, size_t len, unsigned char *out,
		  size_t cap, size_t *bad_off, size_t *produced);
/*
 * Most bytes the whole records of @len payload bytes at @in can decompress
 * to: zpass__compress gives no COMPRESSED record more than ZPASS_SEGMENT raw
 * bytes and plain records stay as they are. Lets a reader size its output
 * from the payload instead of trusting a (possibly corrupt) stated size.
 */
size_t zunpass__bound(const unsigned char *in, size_t len);

struct pdecomp;

/* A new stream, or NULL on ENOMEM. Free with pdecomp__delete. */
struct pdecomp *pdecomp__new(void);
/* Accepts NULL. */
void pdecomp__delete(struct pdecomp *d);
/*
 * Decompresses @len payload bytes (a COMPRESSED record without its header)
 * and calls @cb for every record completed. 0, the callback's non-zero
 * return, or -EINVAL on a corrupt stream or record.
 */
int pdecomp__feed(struct pdecomp *d, const void *src, size_t len, pdecode_cb cb, void *arg);

/* The decoder as merge and loss take it. */
extern const struct pdecode_ops zunpass__ops;

#endif
