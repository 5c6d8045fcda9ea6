/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ringbuf/ internals, as libperf's include/internal/mmap.h: struct ring's
 * layout (mapping state, statistics, backward-ring state) and the calls
 * that only ringbuf/ itself, simulations and tests make. ringbuf.h is the
 * API. Included explicitly, as perf's tools include internal/mmap.h, by the
 * callers that embed a ring (evlist's per-CPU array, its struct
 * evlist_mmap), by aux/, which maps its area after the ring's, and by the
 * unit tests.
 */
#ifndef SHARDREC_RING_INTERNAL_H
#define SHARDREC_RING_INTERNAL_H

#include "ringbuf/ringbuf.h"

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
	/*
	 * Ring pressure (forward rings): the most bytes the reader found between
	 * data_tail and data_head, at a read or just before a release
	 * (ring__note_pending), and the caller's clock then. Written by the
	 * reader thread only; others look after it has finished.
	 */
	uint64_t fill_max;
	uint64_t fill_max_time;
	bool backward;       /* write_backward ring, mapped read-only */
	uint64_t prev;       /* backward: data_head at the previous read */
	uint64_t overwritten; /* backward: bytes the kernel overwrote before a read took them */
	/* backward: ring__take_backward's pauses, from the pause to the resume */
	uint64_t pause_ns_max, pause_ns_sum, pauses;
};

/*
 * Uses caller memory instead of an mmap: @pc a control page, @data
 * @size bytes (power of two). For simulated rings in tests.
 */
int ring__init_mem(struct ring *r, struct perf_event_mmap_page *pc, void *data, uint64_t size);
/* Sets @s to [@from, @from + @len) of the data area: 1 iovec, 2 at the wrap. */
void ring__span_set(const struct ring *r, struct ring_span *s, uint64_t from, uint64_t len);

/* ---- ring pressure: statistics the reader keeps ---- */

/* A fill in 64ths of the ring, rounded: a full ring reads a record short of full. */
static inline uint64_t ring__fill_level(const struct ring *r, uint64_t fill)
{
	return (fill * 64 + r->size / 2) / r->size;
}

/*
 * Notes a read that found @fill bytes at time @now (any clock the caller
 * keeps to) if no fuller read was seen: one compare on the hot path.
 * fill_max_time is when the ring first reached the mark's 64th, so a full
 * ring's time is when it first filled, not when one read found it a few
 * bytes fuller. Backward rings are always full: not noted.
 */
static inline void ring__note_fill(struct ring *r, uint64_t fill, uint64_t now)
{
	if (fill > r->fill_max && !r->backward) {
		if (ring__fill_level(r, fill) > ring__fill_level(r, r->fill_max) || !r->fill_max)
			r->fill_max_time = now;
		r->fill_max = fill;
	}
}
/*
 * Notes as a fill what the kernel sees now: data_head against the tail not
 * yet released. A ring fills while its reader writes a span out, and the
 * next read sees that fill less the span it releases: a reader that notes
 * only at reads misses a ring that filled during its own write. Call it
 * after the write, before ring__read_done. A head more than a ring ahead
 * (a corrupt control page, which ring__read_init reports) is not noted.
 */
void ring__note_pending(struct ring *r, uint64_t now);

/* ---- backward rings (backward.c) ---- */

/*
 * The records written since the previous read, newest first: [head, prev),
 * or, when more than the ring's size was written since, the whole records
 * from head up to the first one the kernel overwrote (perf's
 * overwrite_rb_find_range). s->head is the new head, s->tail the span's
 * end. The ring must be paused (ring__pause) or the span may change under
 * the reader. Returns the byte count, 0 if nothing new. ring__read_init
 * calls it for backward rings.
 */
long ring__read_init_backward(struct ring *r, struct ring_span *s);
/* Marks @s taken: the next read stops at its head. ring__read_done calls it. */
void ring__read_done_backward(struct ring *r, const struct ring_span *s);
/*
 * The second half of ring__take_backward, apart for tests: @buf holds the
 * ring from @head up (as many bytes as the span since the previous read,
 * at most the ring's size), copied while data_head went from @head down to
 * @recheck. Sets @s to the whole records of @buf below what those
 * @head - @recheck bytes overwrote; returns their byte count.
 */
long ring__copied_backward(struct ring *r, struct ring_span *s, unsigned char *buf,
			   uint64_t head, uint64_t recheck);
/*
 * Stops (@pause true) or resumes the kernel's writes into the ring
 * (PERF_EVENT_IOC_PAUSE_OUTPUT; records meanwhile are counted lost by the
 * kernel). Nothing for rings on caller memory. 0 / -errno.
 */
int ring__pause(struct ring *r, bool pause);

#endif
