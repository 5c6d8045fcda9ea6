/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tail files of a shard directory: tail.raw (the LOST_SAMPLES records
 * read when recording ends) and tail.synth (the task records written at the
 * end with --overwrite or --tail-synthesize).
 * POSIX + C11 only.
 *
 *   [shard_tail_header, 64 bytes]  magic, version, flags, run id, used, cap
 *   used bytes of perf records, then cap - used reserved bytes
 *
 * The recorder creates tail.raw when recording starts, with the space its
 * records can need (one LOST_SAMPLES per event, CPU and thread) reserved by
 * posix_fallocate: a disk that fills during the run cannot take the lost
 * counts. At a clean end it writes the records into that space, then the
 * header again with `used` and SHARD_TAIL_F_COMPLETE. A tail.raw without
 * the flag, or none at all, says the recorder did not finish: killed, or
 * still recording.
 */
#ifndef SHARDREC_SHARD_TAIL_H
#define SHARDREC_SHARD_TAIL_H

#include "recorder/perfdata/shard_format.h"

#include <stddef.h>
#include <stdint.h>

#define SHARD_TAIL_MAGIC "SHRDTAL1"
#define SHARD_TAIL_VERSION 1
#define SHARD_TAIL_HEADER_SIZE 64
#define SHARD_TAIL_F_COMPLETE 1U /* the recorder finished and wrote the records */

struct shard_tail_header {
	char magic[8];
	uint32_t version;
	uint32_t flags;
	uint8_t run_id[SHARD_RUN_ID_SIZE];
	uint64_t used; /* bytes of records after the header */
	uint64_t cap;  /* bytes reserved after the header */
	uint64_t reserved[2];
};
/* Written and read whole, as the shard header (shard_format.h). */
_Static_assert(sizeof(struct shard_tail_header) == SHARD_TAIL_HEADER_SIZE, "tail header layout");
_Static_assert(offsetof(struct shard_tail_header, run_id) == 16, "tail header: run id");
_Static_assert(offsetof(struct shard_tail_header, used) == 32, "tail header: used");
_Static_assert(offsetof(struct shard_tail_header, cap) == 40, "tail header: cap");

struct shard_tail {
	int fd;
	struct shard_tail_header hdr;
};

/*
 * Creates @name in @dirfd (O_EXCL, O_NOFOLLOW), reserves the header and
 * @cap bytes on disk and writes the header (not complete). 0 / -errno
 * (-ENOSPC when the disk cannot hold the reservation).
 */
int shard_tail__create(struct shard_tail *t, int dirfd, const char *name, const uint8_t *run_id,
		       uint64_t cap);
/*
 * Writes @len bytes of records into the reserved space, then the header
 * with SHARD_TAIL_F_COMPLETE. -E2BIG if @len exceeds the reservation,
 * else 0 / -errno.
 */
int shard_tail__finish(struct shard_tail *t, const void *recs, size_t len);
void shard_tail__close(struct shard_tail *t);

/*
 * Opens @name in @dirfd for reading and checks its header; t->hdr.used is
 * clamped to what the file holds. 0, -ENOENT when absent (no message),
 * -EBADMSG or -errno with one line in @err.
 */
int shard_tail__open(struct shard_tail *t, int dirfd, const char *name, char *err,
		     size_t errlen);

#endif
