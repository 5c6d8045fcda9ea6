// SPDX-License-Identifier: GPL-2.0
#include "ringbuf/ring_internal.h"
#include "ringbuf/ring_order.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

bool ring__is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

int ring__mmap(struct ring *r, int fd, int cpu, size_t data_pages, bool backward)
{
	size_t page = sysconf(_SC_PAGESIZE);
	size_t len = (data_pages + 1) * page;
	void *base;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if (!ring__is_pow2(data_pages))
		return -EINVAL;
	/* Read-only is how the kernel learns we never move data_tail (rb->overwrite). */
	base = mmap(NULL, len, PROT_READ | (backward ? 0 : PROT_WRITE), MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return -errno;
	r->base = base;
	r->map_len = len;
	r->pc = base;
	r->data = (unsigned char *)base + page;
	r->size = data_pages * page;
	r->mask = r->size - 1;
	r->fd = fd;
	r->cpu = cpu;
	r->backward = backward;
	/*
	 * A backward ring is copied out while paused, and the kernel maps a
	 * ring's pages at their first touch: touch them now, or the faults
	 * lengthen the first pauses (measured: 130-250 us instead of 35-110
	 * us for a 256 KiB copy) and the records the kernel drops meanwhile.
	 */
	for (size_t off = 0; backward && off < r->size; off += page)
		(void)*(volatile const unsigned char *)(r->data + off);
	return 0;
}

void ring__munmap(struct ring *r)
{
	if (r->base)
		munmap(r->base, r->map_len);
	r->base = NULL;
	r->pc = NULL;
	r->data = NULL;
}

int ring__init_mem(struct ring *r, struct perf_event_mmap_page *pc, void *data, uint64_t size)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if (!ring__is_pow2(size))
		return -EINVAL;
	r->pc = pc;
	r->data = data;
	r->size = size;
	r->mask = size - 1;
	return 0;
}

void ring__span_set(const struct ring *r, struct ring_span *s, uint64_t from, uint64_t len)
{
	uint64_t start = from & r->mask;
	uint64_t first = r->size - start < len ? r->size - start : len;

	s->len = len;
	s->nr_iov = 0;
	if (!len)
		return;
	s->iov[0].iov_base = r->data + start;
	s->iov[0].iov_len = first;
	s->nr_iov = 1;
	if (first < len) {
		s->iov[1].iov_base = r->data;
		s->iov[1].iov_len = len - first;
		s->nr_iov = 2;
	}
}

static long ring__read_init_forward(struct ring *r, struct ring_span *s)
{
	uint64_t head = ring_order__load_head(&r->pc->data_head);
	/* Only this thread writes data_tail, so a plain read of our own store is exact. */
	uint64_t tail = r->pc->data_tail;

	s->head = head;
	s->tail = tail;
	if (head - tail > r->size) {
		s->len = 0;
		s->nr_iov = 0;
		return -EIO;
	}
	ring__span_set(r, s, tail, head - tail);
	return s->len;
}

long ring__read_init(struct ring *r, struct ring_span *s)
{
	return r->backward ? ring__read_init_backward(r, s) : ring__read_init_forward(r, s);
}

void ring__note_pending(struct ring *r, uint64_t now)
{
	uint64_t fill;

	if (r->backward)
		return;
	fill = ring__pending(r);
	if (fill <= r->size)
		ring__note_fill(r, fill, now);
}

void ring__read_done(struct ring *r, const struct ring_span *s)
{
	if (r->backward) {
		ring__read_done_backward(r, s);
		return;
	}
	ring_order__store_tail(&r->pc->data_tail, s->head);
	r->bytes_read += s->len;
}

uint64_t ring__pending(const struct ring *r)
{
	if (r->backward)
		return r->prev - ring_order__load_head(&r->pc->data_head);
	return ring_order__load_head(&r->pc->data_head) - r->pc->data_tail;
}
