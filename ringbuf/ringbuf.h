/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ringbuf/: reading perf_event mmap rings. Public header of the folder: the
 * calls a reader needs, with struct ring opaque, as libperf's
 * include/perf/mmap.h. Never includes numa/ or recorder/. The layout, the
 * statistics and the calls for simulations and tests are in
 * ring_internal.h, for the callers that embed a ring.
 *
 * A ring is one control page plus 2^n data pages. The reader takes a span
 * [tail, head) as at most two iovecs (two when it wraps the end of the
 * data area), writes them out, then releases the space. Records are never
 * copied on this path.
 *
 * A backward ring (attr.write_backward, mapped read-only: --overwrite) is a
 * flight recorder: the kernel writes each record below the previous one,
 * data_head goes down, and the oldest records are overwritten without
 * regard to any tail. The reader takes, on request, [head, prev): the
 * records since its previous read, newest first, or as many whole records
 * as survived if the kernel went round the ring since (backward.c).
 */
#ifndef SHARDREC_RINGBUF_H
#define SHARDREC_RINGBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

struct ring;

/*
 * What one read sees: the bytes in [tail, head) as 1 or 2 iovecs. Public
 * because the reader hands the iovecs straight to pwritev.
 */
struct ring_span {
	uint64_t head, tail;
	struct iovec iov[2];
	int nr_iov;
	size_t len;
};

/* True when @v is a power of two: ring and AUX area sizes (aux/) must be. */
bool ring__is_pow2(uint64_t v);

/*
 * Maps the ring of event @fd: 1 + @data_pages pages (a power of two),
 * read-write so we can move data_tail, or read-only if @backward (the
 * event has write_backward; perf maps those read-only too). 0 / -errno
 * (EPERM: locked memory limit, see perf_event_mlock_kb).
 */
int ring__mmap(struct ring *r, int fd, int cpu, size_t data_pages, bool backward);
/* Unmaps; safe on a zeroed or already unmapped ring. */
void ring__munmap(struct ring *r);

/*
 * Snapshot of readable data: acquire data_head, span from our tail
 * (backward rings: [head, prev), see ring_internal.h). Returns the byte
 * count (0 = empty), or -EIO if head ran more than a ring size ahead of
 * tail (the control page is corrupt).
 */
long ring__read_init(struct ring *r, struct ring_span *s);
/* Releases everything in @s back to the kernel (release store of tail). */
void ring__read_done(struct ring *r, const struct ring_span *s);
/* Bytes currently readable, without taking a span. */
uint64_t ring__pending(const struct ring *r);

/*
 * The flight recorder's read (backward rings): pauses the ring, copies
 * what ring__read_init would span into @buf (the ring's data size, the
 * caller's), reads data_head again, resumes the ring, and only then sets
 * @s to the whole records of the copy that nothing published during the
 * copy can have written over. So the kernel drops records only for as long
 * as the copy takes. @s points into @buf; mark it taken with
 * ring__read_done. Returns the byte count, or -errno from the pause or the
 * resume (then nothing is taken).
 */
long ring__take_backward(struct ring *r, struct ring_span *s, unsigned char *buf);

#endif
