// SPDX-License-Identifier: GPL-2.0
/*
 * Backward (overwrite) rings: the kernel's write_backward mode. Its
 * perf_output_begin moves the head *down* by each record's size and writes
 * the record at the new head, so from data_head upwards the ring holds the
 * newest record first, then older ones, up to where the kernel went round
 * and overwrote the oldest. Nothing tells the kernel how far we read: the
 * mapping is read-only, so it never waits for us (rb->overwrite).
 */
#include "ringbuf/ringbuf.h"
#include "ringbuf/ring_order.h"

#include <errno.h>
#include <sys/ioctl.h>

/*
 * Walks whole records up from @head and returns where they stop: at a
 * header of size 0 (space never written: the mapping starts zeroed), one
 * too small to be a record, or one that would reach past head + size,
 * whose older end the kernel has overwritten. Headers are 8-byte aligned
 * and the ring a multiple of 8, so a header never straddles the end.
 */
static uint64_t backward__whole(const struct ring *r, uint64_t head)
{
	uint64_t pos = head;

	for (;;) {
		const struct perf_event_header *h =
			(const struct perf_event_header *)(r->data + (pos & r->mask));

		if (h->size < sizeof(*h) || pos + h->size - head > r->size)
			return pos;
		pos += h->size;
	}
}

long ring__read_init_backward(struct ring *r, struct ring_span *s)
{
	/* Acquire pairs with the kernel's smp_wmb before it publishes data_head. */
	uint64_t head = ring_order__load_head(&r->pc->data_head);
	uint64_t end = r->prev;

	/* More than a ring written since the last read: the oldest part is gone. */
	if (end - head > r->size)
		end = backward__whole(r, head);
	s->head = head;
	s->tail = end;
	ring__span_set(r, s, head, end - head);
	return s->len;
}

void ring__read_done_backward(struct ring *r, const struct ring_span *s)
{
	r->overwritten += (r->prev - s->head) - s->len;
	r->prev = s->head;
	r->bytes_read += s->len;
}

int ring__pause(struct ring *r, bool pause)
{
	if (r->fd < 0)
		return 0;
	return ioctl(r->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, pause ? 1 : 0) ? -errno : 0;
}
