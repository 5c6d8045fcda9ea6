// SPDX-License-Identifier: GPL-2.0
/*
 * Backward (overwrite) rings: the kernel's write_backward mode. Its
 * perf_output_begin moves the head *down* by each record's size and writes
 * the record at the new head, so from data_head upwards the ring holds the
 * newest record first, then older ones, up to where the kernel went round
 * and overwrote the oldest. Nothing tells the kernel how far we read: the
 * mapping is read-only, so it never waits for us (rb->overwrite).
 */
#include "ringbuf/ring_internal.h"
#include "ringbuf/ring_order.h"

#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

/*
 * How many bytes of whole records lie from @from up, @limit at most, in
 * @data (a ring when @mask is its mask, a copy when it is all ones). They
 * stop at a header of size 0 (space never written: the mapping starts
 * zeroed), one too small to be a record, or one that would reach past
 * @limit, whose older end the kernel has overwritten. Headers are 8-byte
 * aligned and the ring a multiple of 8, so a header never straddles the end.
 */
static uint64_t backward__whole(const unsigned char *data, uint64_t mask, uint64_t from,
				uint64_t limit)
{
	uint64_t len = 0;

	while (len + sizeof(struct perf_event_header) <= limit) {
		const struct perf_event_header *h =
			(const struct perf_event_header *)(data + ((from + len) & mask));

		if (h->size < sizeof(*h) || len + h->size > limit)
			break;
		len += h->size;
	}
	return len;
}

long ring__read_init_backward(struct ring *r, struct ring_span *s)
{
	/* Acquire pairs with the kernel's smp_wmb before it publishes data_head. */
	uint64_t head = ring_order__load_head(&r->pc->data_head);
	uint64_t end = r->prev;

	/* More than a ring written since the last read: the oldest part is gone. */
	if (end - head > r->size)
		end = head + backward__whole(r->data, r->mask, head, r->size);
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

long ring__copied_backward(struct ring *r, struct ring_span *s, unsigned char *buf,
			   uint64_t head, uint64_t recheck)
{
	uint64_t since = r->prev - head;
	uint64_t moved = head - recheck;
	/* Published during the copy: the top @moved bytes of a ring's worth were written over. */
	uint64_t limit = moved < r->size ? r->size - moved : 0;
	uint64_t len = since <= limit ? since : backward__whole(buf, UINT64_MAX, 0, limit);

	s->head = head;
	s->tail = head + len;
	s->len = len;
	s->nr_iov = len ? 1 : 0;
	s->iov[0].iov_base = buf;
	s->iov[0].iov_len = len;
	return len;
}

static uint64_t backward__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* How long ring__take_backward kept the ring paused: the kernel drops records meanwhile. */
static void backward__note_pause(struct ring *r, uint64_t ns)
{
	r->pause_ns_max = ns > r->pause_ns_max ? ns : r->pause_ns_max;
	r->pause_ns_sum += ns;
	r->pauses++;
}

long ring__take_backward(struct ring *r, struct ring_span *s, unsigned char *buf)
{
	uint64_t t0 = backward__now_ns(), head, recheck;
	struct ring_span live;
	uint64_t off = 0;
	int err;

	err = ring__pause(r, true);
	if (err)
		return err;
	/* Acquire pairs with the kernel's smp_wmb before it publishes data_head. */
	head = ring_order__load_head(&r->pc->data_head);
	ring__span_set(r, &live, head, r->prev - head < r->size ? r->prev - head : r->size);
	for (int k = 0; k < live.nr_iov; k++) {
		memcpy(buf + off, live.iov[k].iov_base, live.iov[k].iov_len);
		off += live.iov[k].iov_len;
	}
	recheck = ring_order__recheck_head(&r->pc->data_head);
	err = ring__pause(r, false);
	backward__note_pause(r, backward__now_ns() - t0);
	return err ? err : ring__copied_backward(r, s, buf, head, recheck);
}
