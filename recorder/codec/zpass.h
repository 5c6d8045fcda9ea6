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
 * A single event too big to fit compressed, and every AUXTRACE (perf reads
 * its trace from the file, not the stream), is stored as a plain record
 * between frames. The decoder is codec/zunpass.h.
 */
#ifndef SHARDREC_ZPASS_H
#define SHARDREC_ZPASS_H

#include "recorder/perfdata/shard_format.h" /* ZPASS_SEGMENT, ZPASS_MMAP_LEN, ZPASS_REC_MAX */

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>


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

#endif
