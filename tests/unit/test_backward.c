// SPDX-License-Identifier: GPL-2.0
/*
 * ringbuf/backward.c: flight-recorder (write_backward) rings on simulated
 * memory. The producer plays the kernel's perf_output_begin in backward
 * mode: head -= size, the record goes at the new head (wrapping the end
 * byte by byte), head published with a release store, nothing waits for a
 * reader. Each record carries a sequence number; a read must give exactly
 * the records since the previous read, newest first, or when the kernel
 * went round, exactly the newest records that are still whole.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ringbuf/ring_order.h"
/* Rings on caller memory, their statistics and the test-only calls: internals. */
#include "ringbuf/ring_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct bsim {
	struct perf_event_mmap_page *pc;
	unsigned char *data;
	struct ring r;
	uint64_t head;     /* producer's head (goes down) */
	uint64_t seq;      /* next sequence number */
	uint64_t *sizes;   /* size of record seq */
	size_t cap;
};

struct brec {
	struct perf_event_header h;
	uint64_t seq;
};

static void bsim_init(struct bsim *b, uint64_t size)
{
	memset(b, 0, sizeof(*b));
	b->pc = calloc(1, 4096);
	b->data = calloc(1, size);
	b->cap = 1 << 20;
	b->sizes = calloc(b->cap, sizeof(*b->sizes));
	assert_non_null(b->pc);
	assert_non_null(b->data);
	assert_non_null(b->sizes);
	assert_int_equal(ring__init_mem(&b->r, b->pc, b->data, size), 0);
	b->r.backward = true;
}

static void bsim_release(struct bsim *b)
{
	free(b->pc);
	free(b->data);
	free(b->sizes);
}

/* One record of @size bytes (multiple of 8, >= 16), written as the kernel does. */
static void bsim_write(struct bsim *b, uint16_t size)
{
	unsigned char rec[1024];
	struct brec *h = (struct brec *)rec;

	assert_true(size >= sizeof(*h) && size <= sizeof(rec) && !(size & 7));
	memset(rec, 0xa5, size);
	h->h.type = 9;
	h->h.size = size;
	h->seq = b->seq;
	assert_true(b->seq < b->cap);
	b->sizes[b->seq++] = size;
	b->head -= size;
	for (uint16_t i = 0; i < size; i++)
		b->data[(b->head + i) & b->r.mask] = rec[i];
	ring_order__store_head(&b->pc->data_head, b->head);
}

/* Copies the span out (it may wrap) and checks it is whole records, newest first. */
static uint64_t span_check(const struct ring_span *sp, uint64_t newest, uint64_t *oldest)
{
	unsigned char *buf = malloc(sp->len + 1);
	uint64_t off = 0, expect = newest, n = 0;

	assert_non_null(buf);
	for (int k = 0; k < sp->nr_iov; k++) {
		memcpy(buf + off, sp->iov[k].iov_base, sp->iov[k].iov_len);
		off += sp->iov[k].iov_len;
	}
	assert_int_equal(off, sp->len);
	for (off = 0; off < sp->len; n++) {
		struct brec r;

		memcpy(&r, buf + off, sizeof(r));
		assert_int_equal(r.h.type, 9);
		assert_int_equal(r.seq, expect);
		assert_true(off + r.h.size <= sp->len);
		*oldest = expect--;
		off += r.h.size;
	}
	free(buf);
	return n;
}

static void test_backward_empty(void **state)
{
	struct bsim b;
	struct ring_span sp;

	(void)state;
	bsim_init(&b, 4096);
	assert_int_equal(ring__read_init(&b.r, &sp), 0);
	assert_int_equal(sp.nr_iov, 0);
	ring__read_done(&b.r, &sp);
	assert_int_equal(b.r.overwritten, 0);
	assert_int_equal(ring__pending(&b.r), 0);
	bsim_release(&b);
}

/* Less than a ring between reads: exactly the new records, nothing else. */
static void test_backward_since_last(void **state)
{
	struct bsim b;
	struct ring_span sp;
	uint64_t oldest;

	(void)state;
	bsim_init(&b, 4096);
	for (int i = 0; i < 10; i++)
		bsim_write(&b, 32);
	assert_int_equal(ring__pending(&b.r), 320);
	assert_int_equal(ring__read_init(&b.r, &sp), 320);
	assert_int_equal(span_check(&sp, 9, &oldest), 10);
	assert_int_equal(oldest, 0);
	ring__read_done(&b.r, &sp);
	assert_int_equal(ring__read_init(&b.r, &sp), 0);
	ring__read_done(&b.r, &sp);
	/* 120 more cross the ring's start (head wraps below 0 into the top) */
	for (int i = 0; i < 100; i++)
		bsim_write(&b, 24);
	assert_int_equal(ring__read_init(&b.r, &sp), 2400);
	assert_int_equal(span_check(&sp, 109, &oldest), 100);
	assert_int_equal(oldest, 10);
	ring__read_done(&b.r, &sp);
	assert_int_equal(b.r.overwritten, 0);
	assert_int_equal(b.r.bytes_read, 2720);
	bsim_release(&b);
}

/* Exactly one ring's worth: all of it, no walk. */
static void test_backward_exact_fill(void **state)
{
	struct bsim b;
	struct ring_span sp;
	uint64_t oldest;

	(void)state;
	bsim_init(&b, 4096);
	for (int i = 0; i < 64; i++)
		bsim_write(&b, 64);
	assert_int_equal(ring__read_init(&b.r, &sp), 4096);
	assert_int_equal(span_check(&sp, 63, &oldest), 64);
	assert_int_equal(oldest, 0);
	ring__read_done(&b.r, &sp);
	assert_int_equal(b.r.overwritten, 0);
	bsim_release(&b);
}

/*
 * More than a ring: the newest whole records only. The oldest survivor's
 * header is intact but its body is overwritten unless it fits: it must be
 * left out, and what was lost counted.
 */
static void test_backward_overwritten(void **state)
{
	struct bsim b;
	struct ring_span sp;
	uint64_t oldest, fit = 0, n;

	(void)state;
	bsim_init(&b, 4096);
	for (int i = 0; i < 300; i++)
		bsim_write(&b, 40);
	/* 4096 / 40 = 102 whole records (4080 bytes) */
	assert_int_equal(ring__read_init(&b.r, &sp), 4080);
	n = span_check(&sp, 299, &oldest);
	assert_int_equal(n, 102);
	assert_int_equal(oldest, 299 - 101);
	for (uint64_t s = 299; fit + b.sizes[s] <= 4096; s--)
		fit += b.sizes[s];
	assert_int_equal(fit, sp.len);
	ring__read_done(&b.r, &sp);
	assert_int_equal(b.r.overwritten, 300 * 40 - 4080);
	bsim_release(&b);
}

/*
 * Random sizes and random read points, some far apart, some close: every
 * read is a contiguous run of sequence numbers ending at the newest,
 * starting right after the previous read's newest whenever no more than a
 * ring was written in between, and never repeating a record.
 */
static void test_backward_random(void **state)
{
	struct bsim b;
	struct ring_span sp;
	uint64_t next_unread = 0, taken = 0, written = 0;
	unsigned seed = 12345;

	(void)state;
	bsim_init(&b, 8192);
	for (int round = 0; round < 3000; round++) {
		int burst = rand_r(&seed) % (round % 7 == 0 ? 900 : 60);
		uint64_t bytes = 0, oldest, fit = 0;

		for (int i = 0; i < burst; i++) {
			uint16_t size = 16 + 8 * (rand_r(&seed) % 120);

			bsim_write(&b, size);
			bytes += size;
		}
		written += bytes;
		long n = ring__read_init(&b.r, &sp);

		assert_int_equal(n, sp.len);
		if (!burst) {
			assert_int_equal(sp.len, 0);
			ring__read_done(&b.r, &sp);
			continue;
		}
		n = span_check(&sp, b.seq - 1, &oldest);
		assert_int_equal(n, b.seq - oldest);
		if (bytes <= 8192) {
			assert_int_equal(oldest, next_unread);
			assert_int_equal(sp.len, bytes);
		} else {
			/* the newest records that fit whole, and not one more */
			for (uint64_t s = b.seq - 1; s >= next_unread && fit + b.sizes[s] <= 8192; s--)
				fit += b.sizes[s];
			assert_int_equal(sp.len, fit);
			assert_true(oldest > next_unread);
		}
		taken += sp.len;
		next_unread = b.seq;
		ring__read_done(&b.r, &sp);
	}
	assert_int_equal(b.r.bytes_read, taken);
	assert_int_equal(b.r.overwritten, written - taken);
	assert_true(b.r.overwritten > 0 && taken > 0);
	bsim_release(&b);
}

/*
 * ring__take_backward gives what ring__read_init_backward spans, as a copy
 * in the caller's buffer: the random test's reads again, through it.
 */
static void test_backward_take_random(void **state)
{
	struct bsim b;
	struct ring_span sp;
	unsigned char *buf = malloc(8192);
	uint64_t next_unread = 0, written = 0, taken = 0;
	unsigned seed = 54321;

	(void)state;
	assert_non_null(buf);
	bsim_init(&b, 8192);
	for (int round = 0; round < 2000; round++) {
		int burst = rand_r(&seed) % (round % 5 == 0 ? 700 : 50);
		uint64_t bytes = 0, oldest;
		long len;

		for (int i = 0; i < burst; i++) {
			uint16_t size = 16 + 8 * (rand_r(&seed) % 100);

			bsim_write(&b, size);
			bytes += size;
		}
		written += bytes;
		len = ring__take_backward(&b.r, &sp, buf);
		assert_int_equal(len, sp.len);
		assert_true(sp.nr_iov <= 1 && (!sp.len || sp.iov[0].iov_base == buf));
		if (sp.len) {
			uint64_t n = span_check(&sp, b.seq - 1, &oldest);

			assert_int_equal(n, b.seq - oldest);
			if (bytes <= 8192)
				assert_int_equal(oldest, next_unread);
		}
		assert_int_equal(sp.len, bytes <= 8192 ? bytes : sp.len);
		taken += sp.len;
		next_unread = b.seq;
		ring__read_done(&b.r, &sp);
	}
	assert_int_equal(b.r.overwritten, written - taken);
	assert_int_equal(b.r.pauses, 2000);
	assert_true(b.r.pause_ns_max > 0 && b.r.pause_ns_sum >= b.r.pause_ns_max);
	bsim_release(&b);
	free(buf);
}

/*
 * Records the kernel publishes while the ring is copied (one it had begun
 * before the pause took effect) write over the oldest bytes the copy
 * holds. The copy here is taken after them, as the worst case of a copy
 * racing them: only the whole records below what they overwrote are kept,
 * all intact, newest first; the rest is counted overwritten.
 */
static void test_backward_published_during_copy(void **state)
{
	static const struct {
		int before, during;
	} cases[] = {{50, 5}, {100, 5}, {102, 1}, {300, 3}, {10, 0}, {200, 102}};
	unsigned char buf[4096];

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct bsim b;
		struct ring_span sp;
		uint64_t head, since, limit, want, oldest;

		bsim_init(&b, 4096);
		for (int i = 0; i < cases[c].before; i++)
			bsim_write(&b, 40);
		head = b.head;
		for (int i = 0; i < cases[c].during; i++)
			bsim_write(&b, 40);
		since = -head < 4096 ? -head : 4096;
		for (uint64_t i = 0; i < since; i++)
			buf[i] = b.data[(head + i) & b.r.mask];
		limit = 4096 - 40 * (uint64_t)cases[c].during;
		want = 40 * (uint64_t)cases[c].before;
		want = want <= limit ? want : limit / 40 * 40;
		assert_int_equal(ring__copied_backward(&b.r, &sp, buf, head, b.head), want);
		if (want) {
			uint64_t n = span_check(&sp, cases[c].before - 1, &oldest);

			assert_int_equal(n, want / 40);
			assert_int_equal(oldest, cases[c].before - want / 40);
		}
		ring__read_done(&b.r, &sp);
		assert_int_equal(b.r.overwritten, 40 * (uint64_t)cases[c].before - want);
		/* The records published during the copy come with the next read. */
		assert_int_equal(ring__read_init(&b.r, &sp), 40 * cases[c].during);
		bsim_release(&b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_backward_empty),     cmocka_unit_test(test_backward_since_last),
	    cmocka_unit_test(test_backward_exact_fill), cmocka_unit_test(test_backward_overwritten),
	    cmocka_unit_test(test_backward_random),
	    cmocka_unit_test(test_backward_take_random),
	    cmocka_unit_test(test_backward_published_during_copy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
