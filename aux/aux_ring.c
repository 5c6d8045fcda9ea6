// SPDX-License-Identifier: GPL-2.0
/*
 * The AUX area reader: head/tail protocol, AUXTRACE records, snapshots.
 * Offsets follow perf's __auxtrace_mmap__read: the record's offset is the
 * AUX stream position of its first byte, its size the bytes plus padding.
 */
#include "aux/aux.h"
#include "ringbuf/ring_order.h"
/* The area is mapped after the ring's, from its control page and fd: its layout. */
#include "ringbuf/ring_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

static int aux_ring__setup(struct aux_ring *a, uint64_t size, bool overwrite)
{
	if (!ring__is_pow2(size) || size < 8)
		return -EINVAL;
	a->size = size;
	a->mask = size - 1;
	a->overwrite = overwrite;
	a->tid = -1;
	a->snap_size = size;
	if (overwrite) {
		a->bounce = malloc(size + 16);
		if (!a->bounce)
			return -ENOMEM;
	}
	return 0;
}

int aux_ring__init_mem(struct aux_ring *a, struct perf_event_mmap_page *pc, void *data,
		       uint64_t size, bool overwrite)
{
	memset(a, 0, sizeof(*a));
	a->fd = -1;
	a->pc = pc;
	a->data = data;
	a->cpu = -1;
	return aux_ring__setup(a, size, overwrite);
}

int aux_ring__mmap(struct aux_ring *a, struct ring *r, size_t pages, bool overwrite)
{
	size_t len = pages * (size_t)sysconf(_SC_PAGESIZE);
	void *base;
	int err;

	memset(a, 0, sizeof(*a));
	a->fd = -1;
	err = aux_ring__setup(a, len, overwrite);
	if (err)
		goto out_free;
	/* The kernel reads where to map the area from the control page (perf_mmap). */
	r->pc->aux_offset = r->map_len;
	r->pc->aux_size = len;
	/* Read-only is how the kernel knows the area is in overwrite mode. */
	base = mmap(NULL, len, PROT_READ | (overwrite ? 0 : PROT_WRITE), MAP_SHARED, r->fd,
		    r->map_len);
	if (base == MAP_FAILED) {
		err = -errno;
		goto out_free;
	}
	a->base = base;
	a->map_len = len;
	a->data = base;
	a->pc = r->pc;
	a->fd = r->fd;
	a->cpu = r->cpu;
	return 0;

out_free:
	free(a->bounce);
	a->bounce = NULL;
	return err;
}

void aux_ring__munmap(struct aux_ring *a)
{
	if (a->base)
		munmap(a->base, a->map_len);
	free(a->bounce);
	a->base = NULL;
	a->bounce = NULL;
	a->data = NULL;
}

/* Lays out the AUXTRACE record for [from, from + len) found at @p1/@n1 and @p2/@n2. */
static long aux_ring__make_rec(struct aux_ring *a, uint64_t from, size_t len, void *p1, size_t n1,
			       void *p2, size_t n2)
{
	size_t pad = (8 - (len & 7)) & 7;

	a->rec = (struct aux_auxtrace){
		.header = {.type = AUX_REC_AUXTRACE, .size = sizeof(a->rec)},
		.size = len + pad,
		.offset = from,
		.idx = a->idx,
		.tid = (uint32_t)a->tid,
		.cpu = (uint32_t)a->cpu,
	};
	a->pad = 0;
	a->nr_iov = 0;
	a->iov[a->nr_iov++] = (struct iovec){&a->rec, sizeof(a->rec)};
	a->iov[a->nr_iov++] = (struct iovec){p1, n1};
	if (n2)
		a->iov[a->nr_iov++] = (struct iovec){p2, n2};
	if (pad)
		a->iov[a->nr_iov++] = (struct iovec){&a->pad, pad};
	a->rec_len = sizeof(a->rec) + len + pad;
	return a->rec_len;
}

/* [tail, head) straight from the area: one or two iovecs. */
static long aux_ring__take(struct aux_ring *a, uint64_t tail, uint64_t head)
{
	uint64_t len = head - tail, start = tail & a->mask;
	uint64_t first = a->size - start < len ? a->size - start : len;

	a->head = head;
	return aux_ring__make_rec(a, tail, len, a->data + start, first, a->data, len - first);
}

/*
 * Copies [from, head) of an area the kernel may still write, in aligned
 * 8-byte loads (the area is 8-aligned and its size a multiple of 8, so no
 * word straddles its end). They are acquire loads so that the head read
 * after the copy cannot be satisfied before them: that second head is the
 * seqlock reader's check (no fences: TSan cannot model them), and pairs
 * with the kernel's barrier before it publishes a head past rewritten
 * bytes. Plain loads on x86. Returns where @from landed in the bounce.
 */
static unsigned char *aux_ring__copy(struct aux_ring *a, uint64_t from, uint64_t head)
{
	uint64_t base = from & ~7ULL;

	for (uint64_t pos = base; pos < head; pos += 8) {
		uint64_t w = __atomic_load_n((const uint64_t *)(a->data + (pos & a->mask)),
					     __ATOMIC_ACQUIRE);

		memcpy(a->bounce + (pos - base), &w, 8);
	}
	return a->bounce + (from - base);
}

/*
 * Snapshot mode: has the area gone round since the kernel allocated it
 * (zeroed)? Sticky. Yes once the head went backwards (a driver reporting
 * an offset inside the area, as Intel PT does) or some of the 4 KiB past
 * the head is no longer zero (it went round all the way past the last
 * head: perf's intel_pt_first_wrap looks at the area's end instead, which
 * mistakes a head near the end for a wrap). That look is only sound while
 * nothing writes: a real area's event is disabled around the snapshot; a
 * simulation whose producer runs on (guard > 0) gets no look, since its
 * next bytes can be seen before its head moves. Acquire loads for the same
 * reason as aux_ring__copy's.
 */
static bool aux_ring__wrapped(struct aux_ring *a, uint64_t raw)
{
	uint64_t from = ((raw & a->mask) + 7) & ~7ULL;
	uint64_t to = from + 4096 < a->size ? from + 4096 : a->size;

	if (a->wrapped || raw < a->last_raw)
		return a->wrapped = true;
	if (a->guard)
		return false;
	for (uint64_t pos = from; pos < to; pos += 8)
		if (__atomic_load_n((const uint64_t *)(a->data + pos), __ATOMIC_ACQUIRE))
			return a->wrapped = true;
	return false;
}

/*
 * How far the head moved since the last snapshot, and how much of that a
 * snapshot can know. In snapshot mode aux_head is not a stream position
 * for every driver: Intel PT reports the offset inside the area, CoreSight
 * a count that keeps growing (perf's *_find_snapshot hooks sort this out per
 * PMU). A head at or past the size can only be a count, and then the
 * distance is exact. As an offset, it is exact until the area wraps; after
 * that it is known only modulo the size, and all of the area is valid
 * trace: the snapshot takes the newest snap_size bytes, overlapping the
 * previous one if need be, as perf does (the decoders find the overlap).
 * Returns the bytes to take; *@moved the distance (mod size when unknown).
 */
static uint64_t aux_ring__snapshot_span(struct aux_ring *a, uint64_t raw, uint64_t *moved)
{
	uint64_t keep = a->snap_size;

	a->monotonic |= raw >= a->size;
	if (a->monotonic) {
		*moved = raw - a->last_raw;
	} else {
		*moved = (raw - a->last_raw) & a->mask;
		if (aux_ring__wrapped(a, raw))
			return *moved ? keep : 0;
	}
	/* Exact: what was overwritten before we came is counted lost. */
	a->lost += *moved > keep ? *moved - keep : 0;
	return *moved > keep ? keep : *moved;
}

/*
 * Snapshot mode: the newest bytes since the last snapshot, at most
 * snap_size. a->tail is the stream position of the last snapshot's end,
 * congruent to its raw head modulo the size, so positions index the area.
 */
static long aux_ring__snapshot_take(struct aux_ring *a)
{
	uint64_t raw, recheck, moved, take, end, from;
	unsigned char *p;

	/* Stop the hardware as perf's snapshot_start does: the head is then final. */
	if (a->fd >= 0)
		ioctl(a->fd, PERF_EVENT_IOC_DISABLE, 0);
	raw = ring_order__load_head(&a->pc->aux_head);
	take = raw == a->last_raw ? 0 : aux_ring__snapshot_span(a, raw, &moved);
	end = a->tail + (take ? moved : 0);
	/* A wrap found early: keep stream positions from going below zero (mod size). */
	if (end < take)
		end += a->size;
	from = end - take;
	p = aux_ring__copy(a, from, end);
	recheck = ring_order__load_head(&a->pc->aux_head);
	if (a->fd >= 0)
		ioctl(a->fd, PERF_EVENT_IOC_ENABLE, 0);
	/*
	 * Anything older than the new end + guard - size may have been rewritten
	 * meanwhile. A head that went past the size during the copy is a count
	 * too: its distance is exact, not modulo the size.
	 */
	a->monotonic |= recheck >= a->size;
	recheck = end + (a->monotonic ? recheck - raw : (recheck - raw) & a->mask);
	if (take && recheck + a->guard - from > a->size) {
		uint64_t drop = recheck + a->guard - a->size - from;

		drop = drop < take ? drop : take;
		a->lost += drop;
		from += drop;
		p += drop;
	}
	a->last_raw = raw;
	a->head = end;
	a->snap_done = __atomic_load_n(&a->snap_req, __ATOMIC_ACQUIRE);
	if (from == end) {
		a->tail = end;
		return 0;
	}
	return aux_ring__make_rec(a, from, end - from, p, end - from, NULL, 0);
}

long aux_ring__read_init(struct aux_ring *a)
{
	uint64_t head;

	a->rec_len = 0;
	if (a->overwrite) {
		if (__atomic_load_n(&a->snap_req, __ATOMIC_ACQUIRE) == a->snap_done)
			return 0;
		return aux_ring__snapshot_take(a);
	}
	head = ring_order__load_head(&a->pc->aux_head);
	if (head == a->tail)
		return 0;
	if (head - a->tail > a->size)
		return -EIO;
	return aux_ring__take(a, a->tail, head);
}

void aux_ring__read_done(struct aux_ring *a)
{
	if (!a->rec_len)
		return;
	a->bytes += a->head - a->rec.offset;
	a->records++;
	a->tail = a->head;
	a->rec_len = 0;
	/* In overwrite mode the kernel ignores aux_tail: leave it alone, as perf does. */
	if (!a->overwrite)
		ring_order__store_tail(&a->pc->aux_tail, a->head);
}

void aux_ring__request_snapshot(struct aux_ring *a)
{
	/* Release pairs with read_init's acquire: the request is seen with what preceded it. */
	__atomic_fetch_add(&a->snap_req, 1, __ATOMIC_RELEASE);
}

uint64_t aux_ring__pending(const struct aux_ring *a)
{
	return ring_order__load_head(&a->pc->aux_head) - a->tail;
}
