/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shard_format: shard files, one per writer thread, written only by it
 * with pwritev at offsets it alone owns. POSIX + C11 only (merge and
 * fuzzers link it alone).
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
 *
 * The writer is in shard.h, the reader in shard_reader.h (both shard.c).
 */
#ifndef SHARDREC_SHARD_FORMAT_H
#define SHARDREC_SHARD_FORMAT_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

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

/* @id as 2 * SHARD_RUN_ID_SIZE hex digits in @buf (at least 33 bytes); returns @buf. */
char *shard__run_id_str(const uint8_t *id, char *buf);

#endif
