/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfile: an opened perf.data file (pfile_read.c): open, validate, look an
 * event up by sample id, read the data section record by record. The rest
 * of perfdata/'s perf.data code has a header of its own, by concept:
 *
 *   pfile_format.h  constants, feature bits, record types, header layout
 *   pfile_feat.h    feature sets and their encoders, as perf writes them
 *   pfile_write.h   the attr section, feature section and file header
 *   pfile_sample.h  where ids and times sit in records; ID_INDEX entries
 *   pfile_check.h   records, events and features as perf 6.1 reads them
 *   pfile_pipe.h    perf's pipe format
 */
#ifndef SHARDREC_PFILE_H
#define SHARDREC_PFILE_H

#include "recorder/perfdata/pfile_format.h"

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

/* One sample id of an opened file and the index of its event. */
struct pfile_id_ent {
	uint64_t id;
	size_t ev;
};

/* An opened perf.data. All members owned by it; fd kept open. */
struct pfile {
	int fd;
	uint64_t file_size;
	struct pfile_header hdr;
	struct pfile_event *events;
	size_t nr_events;
	struct pfile_featset feats;
	/*
	 * Open addressing, a power of two at least twice the ids, empty slots
	 * with ev SIZE_MAX: pfile__event_by_id runs for every record a merge
	 * checks and counts, where a binary search over thousands of ids
	 * (one per event and CPU) cost more than the rest of the check.
	 */
	struct pfile_id_ent *id_hash;
	size_t id_hash_mask;
};

/*
 * Opens an input read-only (relative to @dirfd, or AT_FDCWD): never blocks
 * on a FIFO or a device, and with PFILE_IN_NOFOLLOW (the shard directory's
 * own names) never goes through a symlink. A regular file's fd, or -errno;
 * -ENODEV for anything else, which pfile__strerror() says as "not a
 * regular file".
 */
#define PFILE_IN_NOFOLLOW 1
int pfile__open_input(int dirfd, const char *path, int flags);
/* strerror() for pfile__open_input()'s codes. */
const char *pfile__strerror(int ret);
/*
 * Opens and validates @path: magic, header size, attr_size (64..4096,
 * 8-aligned), sections inside the file, ids arrays, feature table. On error
 * returns -errno (EINVAL for malformed, ENOEXEC for a file of the other
 * byte order) and writes one line to @err.
 * A data.size of 0 with data after data.offset is reported as -ENODATA
 * (a killed recorder; see merge --recover).
 */
int pfile__open(struct pfile *pf, const char *path, char *err, size_t errlen);
/* pfile__open() of @name in @dirfd (pfile__open_input's @flags); @path names it in @err. */
int pfile__openat(struct pfile *pf, int dirfd, const char *name, int flags, const char *path,
		  char *err, size_t errlen);
void pfile__close(struct pfile *pf);

/* @id's first slot in pf->id_hash. Kernel ids are consecutive: a multiplicative hash spreads them. */
static inline size_t pfile__id_slot(uint64_t id, size_t mask)
{
	return (size_t)((id * 0x9e3779b97f4a7c15ULL) >> 32) & mask;
}

/* The index of the event whose ids contain @id, or -1. Inline: the merge asks for every record. */
static inline long pfile__event_index(const struct pfile *pf, uint64_t id)
{
	size_t i;

	if (!pf->id_hash)
		return -1;
	for (i = pfile__id_slot(id, pf->id_hash_mask); pf->id_hash[i].ev != SIZE_MAX;
	     i = (i + 1) & pf->id_hash_mask)
		if (pf->id_hash[i].id == id)
			return pf->id_hash[i].ev;
	return -1;
}

/* Returns the event whose ids contain @id, or NULL. */
static inline const struct pfile_event *pfile__event_by_id(const struct pfile *pf, uint64_t id)
{
	long ev = pfile__event_index(pf, id);

	return ev < 0 ? NULL : &pf->events[ev];
}

/*
 * Sequential record reader over [start, start+len) of an fd, buffered.
 * Validates each header (size >= 8, 8-aligned... perf requires size >= 8 and
 * within range); AUXTRACE payloads are returned as part of the record
 * (rec_len covers header.size + payload).
 */
struct pfile_reader {
	int fd;
	uint64_t start, end, pos; /* file offsets */
	unsigned char *buf;
	size_t buf_cap, buf_len;
	uint64_t buf_off; /* file offset of buf[0] */
};

/* 0 / -errno. @bufsize 0 = default (1 MiB). */
int pfile_reader__init(struct pfile_reader *r, int fd, uint64_t start, uint64_t len,
		       size_t bufsize);
void pfile_reader__release(struct pfile_reader *r);
/*
 * Next record: 1 and *rec (valid until the next call), *rec_len (bytes the
 * record occupies in the file), *file_off; 0 at the end; -EINVAL on a
 * malformed or truncated record (r->pos is then its offset).
 */
int pfile_reader__next(struct pfile_reader *r, const struct perf_event_header **rec,
		       size_t *rec_len, uint64_t *file_off);

/*
 * The one read-everything loop: exactly @len bytes at @off, EINTR retried.
 * 0, -errno, or -EINVAL at end of file (or an offset past INT64_MAX). Here
 * with the reader that uses it; its writing twin, pfile__pwrite_full, is in
 * pfile_write.h.
 */
int pfile__pread_full(int fd, void *buf, size_t len, uint64_t off);

#endif
