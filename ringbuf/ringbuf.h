/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ringbuf/: reading perf_event mmap rings. Public header of the folder.
 * Never includes numa/ or recorder/.
 *
 * A ring is one control page plus 2^n data pages. The reader takes a span
 * [tail, head) as at most two iovecs (two when it wraps the end of the
 * data area), writes them out, then releases the space. Records are never
 * copied on this path.
 */
#ifndef SHARDREC_RINGBUF_H
#define SHARDREC_RINGBUF_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

struct ring {
	struct perf_event_mmap_page *pc; /* control page */
	unsigned char *data;             /* data area */
	uint64_t size;                   /* data area bytes, power of two */
	uint64_t mask;
	void *base;          /* mapping base, NULL for rings on caller memory */
	size_t map_len;
	int fd;              /* event fd the ring belongs to (not owned) */
	int cpu;
	uint64_t bytes_read; /* total bytes released */
	struct aux_ring *aux; /* its AUX area (aux/aux.h), NULL if none; not owned */
};

/* What one read sees: the bytes in [tail, head) as 1 or 2 iovecs. */
struct ring_span {
	uint64_t head, tail;
	struct iovec iov[2];
	int nr_iov;
	size_t len;
};

/*
 * Maps the ring of event @fd: 1 + @data_pages pages (a power of two),
 * read-write so we can move data_tail. 0 / -errno (EPERM: locked memory
 * limit, see perf_event_mlock_kb).
 */
int ring__mmap(struct ring *r, int fd, int cpu, size_t data_pages);
/* Unmaps; safe on a zeroed or already unmapped ring. */
void ring__munmap(struct ring *r);
/*
 * Uses caller memory instead of an mmap: @pc a control page, @data
 * @size bytes (power of two). For simulated rings in tests and AUX.
 */
int ring__init_mem(struct ring *r, struct perf_event_mmap_page *pc, void *data, uint64_t size);

/*
 * Snapshot of readable data: acquire data_head, span from our tail.
 * Returns the byte count (0 = empty), or -EIO if head ran more than a
 * ring size ahead of tail (the control page is corrupt).
 */
long ring__read_init(struct ring *r, struct ring_span *s);
/* Releases everything in @s back to the kernel (release store of tail). */
void ring__read_done(struct ring *r, const struct ring_span *s);
/* Bytes currently readable, without taking a span. */
uint64_t ring__pending(const struct ring *r);

#endif
