/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zstd for shards: a writer turns one pass of ring data into one
 * self-contained zstd frame, already cut into PERF_RECORD_COMPRESSED records
 * that the merge copies to perf.data unchanged.
 *
 * perf 6.1 decompresses every COMPRESSED record of a file with one stream
 * into a buffer of HEADER_COMPRESSED's mmap_len, and fails on a record that
 * yields no byte. So: the frame is flushed after at most ZPASS_SEGMENT raw
 * bytes, always on an event boundary, and each flush becomes its own record
 * (u16 header.size bounds it: compressBound(64000) + frame overhead fits).
 * Frames are whole, so the merge may interleave frames of different shards.
 * A single event too big to fit compressed is stored as a plain record
 * between frames.
 */
#ifndef SHARDREC_ZPASS_H
#define SHARDREC_ZPASS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define ZPASS_SEGMENT 64000U    /* raw bytes per COMPRESSED record, at most */
#define ZPASS_MMAP_LEN 65536U   /* what HEADER_COMPRESSED announces */
#define ZPASS_REC_MAX 65535U    /* header.size is a u16 */

struct zpass {
	void *cctx;          /* ZSTD_CCtx */
	unsigned char *out;  /* output records, on the writer's node */
	size_t cap, len;
	int node;
};

/* 0 / -errno (-EINVAL: level outside 1..22). */
int zpass__init(struct zpass *z, int level, int node);
void zpass__release(struct zpass *z);
/*
 * Compresses the records in @iov (whole perf records; one may straddle two
 * iovecs, as at a ring wrap) into z->out / z->len. 0 / -errno.
 */
int zpass__compress(struct zpass *z, const struct iovec *iov, int nr_iov, size_t total);

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

#endif
