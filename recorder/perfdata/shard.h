/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shard files: one per writer thread, written only by it with pwritev at
 * offsets it alone owns. POSIX + C11 only (merge and fuzzers link it alone).
 *
 *   [shard_file_header, 64 bytes]  the magic, a byte-order mark, first
 *   PASS  {hdr, seq, wtime, bytes, raw}  one per pass over the writer's rings
 *   CHUNK {hdr, cpu, flags, len} + len bytes copied verbatim from a ring
 *   CHUNK ...
 *   PASS ...
 *
 * With compression (-z) a pass is instead
 *   ZPASS {hdr, seq, wtime, bytes, raw} + bytes of perf records: one whole
 *         zstd frame as PERF_RECORD_COMPRESSED records (recorder/codec/zpass.h)
 *         decompressing to raw bytes of ring records.
 *
 * wtime is read from the recording clock before any ring head of the pass,
 * so every record published after the pass was read carries a later
 * timestamp, give or take the kernel's publish delay. That is the merge's
 * watermark. `bytes` is what follows the PASS record up to the next one, so
 * a reader can load a whole pass with one pread.
 *
 * A failed write truncates the file back to the start of its pass, so a
 * shard is always a sequence of whole passes, except after SIGKILL in the
 * middle of a pwritev: readers keep the whole records and drop the rest.
 */
#ifndef SHARDREC_SHARD_H
#define SHARDREC_SHARD_H

#include <linux/perf_event.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/*
 * The magic is also the byte-order mark, as perf's PERFILE2: written as a
 * native u64, so a little-endian writer's shard starts with the bytes
 * "SHRDSHD1" and a big-endian one's with "1DHSDRHS". Shards hold the
 * kernel's records in its byte order and are read only on a machine of
 * the writer's: one of the other order is refused by name (job tells users
 * to merge later, maybe elsewhere). Shards from before the mark carry the
 * bytes "SHRDSHD1" whatever their order; their version tells it.
 */
#define SHARD_MAGIC 0x3144485344524853ULL /* "SHRDSHD1" little endian */
#define SHARD_VERSION 2 /* 2: the run id */
#define SHARD_HEADER_SIZE 64

/*
 * One recording's id, random, drawn when it starts: in every shard's
 * header, in the tail files (shard_tail.h) and in header.data as the
 * private feature SHARD_FEAT_RUN_ID (a bit perf does not define; the merge
 * drops it from its output). The merge refuses files whose id differs
 * from header.data's: they come from another recording.
 */
#define SHARD_RUN_ID_SIZE 16
#define SHARD_FEAT_RUN_ID 255

/* Private record types: above every perf type, never copied to perf.data. */
enum shard_rec_type {
	SHARD_REC_PASS = 0x5348,
	SHARD_REC_CHUNK = 0x5349,
	SHARD_REC_ZPASS = 0x534a,
};

#define SHARD_F_ZSTD 1U /* shard_file_header.flags: passes are ZPASS */
/*
 * shard_file_header.flags: `end` is the shard's size when its writer
 * finished. Without it a shard cut at a pass boundary (compressed passes
 * end at any byte) reads as whole: the writer sets it last (shard__seal),
 * so a reader can tell a cut shard, or bytes appended to one, at any offset.
 * Unsealed shards (killed recorder, still recording, older files) are read
 * as they are.
 */
#define SHARD_F_SEALED 2U

/* A ZPASS payload's COMPRESSED records (codec/zpass.h writes them). */
#define ZPASS_SEGMENT 64000U    /* raw bytes per COMPRESSED record, at most */
#define ZPASS_MMAP_LEN 65536U   /* what HEADER_COMPRESSED announces */
#define ZPASS_REC_MAX 65535U    /* header.size is a u16 */
/* perf decompresses each record into an mmap_len buffer: a segment must fit. */
_Static_assert(ZPASS_SEGMENT <= ZPASS_MMAP_LEN, "ZPASS segment larger than mmap_len");

/*
 * The on-disk structs are written and read whole, so every size and the
 * offsets other readers use (tests, fuzz corpora, the e2e scripts' python)
 * are asserted: a field added or a padding change fails the build, not a
 * merge elsewhere.
 */
struct shard_file_header {
	uint64_t magic; /* SHARD_MAGIC in the writer's byte order */
	uint32_t version;
	uint32_t writer;
	int32_t node;
	uint32_t flags;
	uint8_t run_id[SHARD_RUN_ID_SIZE];
	uint64_t end; /* with SHARD_F_SEALED: the file's size; else 0 */
	uint64_t reserved[2];
};
_Static_assert(sizeof(struct shard_file_header) == SHARD_HEADER_SIZE, "shard header layout");
_Static_assert(offsetof(struct shard_file_header, version) == 8, "shard header: version");
_Static_assert(offsetof(struct shard_file_header, flags) == 20, "shard header: flags");
_Static_assert(offsetof(struct shard_file_header, run_id) == 24, "shard header: run id");
_Static_assert(offsetof(struct shard_file_header, end) == 40, "shard header: end");

struct shard_pass_rec {
	struct perf_event_header header;
	uint64_t seq;
	uint64_t wtime;
	uint64_t bytes;
	uint64_t raw; /* ZPASS: decompressed size; PASS: 0 */
};
_Static_assert(sizeof(struct shard_pass_rec) == 40, "PASS record layout");
_Static_assert(offsetof(struct shard_pass_rec, bytes) == 24, "PASS record: bytes");
_Static_assert(offsetof(struct shard_pass_rec, raw) == 32, "PASS record: raw");

struct shard_chunk_rec {
	struct perf_event_header header;
	uint32_t cpu;
	uint32_t flags;
	uint64_t len;
};
_Static_assert(sizeof(struct shard_chunk_rec) == 24, "CHUNK record layout");
_Static_assert(offsetof(struct shard_chunk_rec, len) == 16, "CHUNK record: len");

/* ---- writing (one owner thread) ---- */

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

/* @id as 2 * SHARD_RUN_ID_SIZE hex digits in @buf (at least 33 bytes); returns @buf. */
char *shard__run_id_str(const uint8_t *id, char *buf);

/* ---- reading ---- */

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
