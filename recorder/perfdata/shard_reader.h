/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shard_reader: reading a shard file pass by pass (shard.c), for the merge
 * and the fuzzers; the format is in shard_format.h.
 */
#ifndef SHARDREC_SHARD_READER_H
#define SHARDREC_SHARD_READER_H

#include "recorder/perfdata/shard_format.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct shard_reader {
	int fd;
	uint64_t off, size;
	bool cut; /* sealed, the file shorter than hdr.end, and no pass said so yet */
	uint64_t trailing; /* sealed, bytes after hdr.end: not the writer's, never read */
	struct shard_file_header hdr;
	char name[64];
};

/*
 * Whether @r has more to say: room for another PASS record, or the cut
 * end of a sealed shard (an empty truncated pass). Bytes too few for a
 * PASS record are what a kill leaves, not a pass.
 */
bool shard_reader__more(const struct shard_reader *r);

/* One pass loaded in memory: its CHUNKs, owned by the pass. */
struct shard_pass {
	uint64_t seq, wtime;
	uint64_t file_off; /* offset of the PASS record */
	unsigned char *buf;
	size_t len;
	size_t cap;      /* bytes malloc'ed at buf */
	bool truncated;  /* the file ended inside this pass */
	bool compressed; /* ZPASS: buf holds COMPRESSED records */
	uint64_t raw;    /* ZPASS: decompressed size */
};

/*
 * Opens @name in @dirfd and checks its header. 0 / -errno with one line in
 * @err: -ENOEXEC for a shard written on a machine of the other byte order,
 * -EBADMSG for one that is damaged or of another format.
 */
int shard_reader__open(struct shard_reader *r, int dirfd, const char *name, char *err,
		       size_t errlen);
/*
 * Loads the next pass into @p (p->buf malloc'ed, caller frees with
 * shard_pass__release). 1 = a pass, 0 = end of shard, -errno on I/O error,
 * -EBADMSG with one line in @err when the shard is corrupt at r->off.
 */
int shard_reader__next_pass(struct shard_reader *r, struct shard_pass *p, char *err,
			    size_t errlen);
/*
 * The same, into @buf (@cap bytes malloc'ed, a pass's done with; NULL, 0:
 * none) when it is large enough, else a new buffer (@buf freed): a merge
 * is spared a fresh buffer, and its page faults, per pass. @p owns the
 * buffer whatever the return; shard_pass__release frees it.
 */
int shard_reader__next_pass_reuse(struct shard_reader *r, struct shard_pass *p, void *buf,
				  size_t cap, char *err, size_t errlen);
void shard_reader__close(struct shard_reader *r);
void shard_pass__release(struct shard_pass *p);

/*
 * Iterates the chunks of a pass: *@pos starts at 0. Returns 1 with @cpu,
 * @data, @len (whole records only: a chunk cut by truncation is trimmed to
 * its last complete record), 0 at the end, -EBADMSG on a malformed chunk or
 * record inside it.
 */
int shard_pass__next_chunk(const struct shard_pass *p, size_t *pos, uint32_t *cpu,
			   const unsigned char **data, size_t *len);
/*
 * As shard_pass__next_chunk, but an untruncated pass's chunk is returned
 * whole without walking its records: the caller checks that they tile it
 * (sizes of 8 and up, 8-aligned lengths, none past the end) as it reads
 * them, and pfile__walk_records decides on a malformed one. Saves a walk
 * over every record where the caller reads them all anyway (the merge).
 */
int shard_pass__next_chunk_unwalked(const struct shard_pass *p, size_t *pos, uint32_t *cpu,
				    const unsigned char **data, size_t *len);

#endif
