/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shard: the writer of a shard file (shard.c), one owner thread per shard;
 * the format is in shard_format.h, the reader in shard_reader.h.
 */
#ifndef SHARDREC_SHARD_H
#define SHARDREC_SHARD_H

#include "recorder/perfdata/shard_format.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

struct shard {
	int fd;
	uint64_t off; /* next write offset, owned by the writer thread */
	uint64_t seq;
	struct shard_pass_rec pass; /* header of the pass being written */
	struct shard_file_header hdr; /* as written; shard__seal writes it again */
	/*
	 * For a reader of the file while it is written (record -o -): the
	 * bytes of whole passes, stored after each pass, and whether the
	 * writer wrote its last (shard__end). Release stores: what they
	 * announce is in the file first.
	 */
	atomic_uint_least64_t committed;
	atomic_bool ended;
};

/*
 * Creates shard "shard.<idx>" in @dirfd (O_EXCL, O_NOFOLLOW) and writes its
 * file header with @run_id (SHARD_RUN_ID_SIZE bytes; NULL: all zero). 0 / -errno.
 */
int shard__create(struct shard *s, int dirfd, unsigned idx, int node, uint32_t flags,
		  const uint8_t *run_id);
/*
 * Writes one pass: @iov[0] is filled here with the PASS record, @iov[1..]
 * are the pass's CHUNK headers and ring bytes (@payload bytes in all).
 * pwritev in IOV_MAX batches; on failure the file is truncated back to the
 * start of the pass. 0 / -errno (ENOSPC, EIO, EFBIG, ...).
 */
int shard__write_pass(struct shard *s, uint64_t wtime, struct iovec *iov, int nr_iov,
		      uint64_t payload);
/*
 * Writes one compressed pass: @len bytes of COMPRESSED records at @buf that
 * decompress to @raw bytes. Same failure rule as shard__write_pass.
 */
int shard__write_zpass(struct shard *s, uint64_t wtime, const void *buf, size_t len,
		       uint64_t raw);
/*
 * The writer is done with @s: its header gets SHARD_F_SEALED and the
 * shard's size, written in place (the writer owns the file). 0 / -errno;
 * a shard left unsealed is still read, only without the size check.
 */
int shard__seal(struct shard *s);
/* The writer wrote its last pass: committed is final. Any thread may then read it. */
void shard__end(struct shard *s);
/*
 * A live shard as another thread sees it: the bytes of whole passes in the
 * file (readable with pread once returned), and *@ended whether that is
 * all there will be.
 */
uint64_t shard__committed(struct shard *s, bool *ended);
/* Fills a CHUNK header for @len ring bytes of @cpu. */
void shard_chunk__init(struct shard_chunk_rec *c, uint32_t cpu, uint64_t len);
void shard__close(struct shard *s);

/*
 * Removes what a recording puts in shard directory @dirfd: header.data,
 * tail.raw, tail.synth and shard.0 .. shard.<@nr_shards - 1>; nothing else,
 * so nobody else's file is touched. Missing ones are no error.
 */
void shard_dir__unlink(int dirfd, size_t nr_shards);

#endif
