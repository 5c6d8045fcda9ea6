// SPDX-License-Identifier: GPL-2.0
/*
 * ringbuf: spans over simulated rings (caller memory), single-threaded edge
 * cases, then a threaded producer/consumer that plays the kernel's part
 * (sysprof's capture test does the same): perf-style records of random
 * sizes written byte by byte across the wrap, checked for loss, duplication
 * and order on the reading side. Must stay TSan-clean.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ringbuf/ring_order.h"
/* Rings on caller memory, their statistics and the test-only calls: internals. */
#include "ringbuf/ring_internal.h"
#include "unit_util.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Records through the threaded test; TSan makes each byte ~20x slower. */
#if defined(__SANITIZE_THREAD__)
#define RING_TEST_RECORDS 200000UL
#elif defined(__SANITIZE_ADDRESS__)
#define RING_TEST_RECORDS 500000UL
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RING_TEST_RECORDS 200000UL
#elif __has_feature(address_sanitizer)
#define RING_TEST_RECORDS 500000UL
#endif
#endif
#ifndef RING_TEST_RECORDS
#define RING_TEST_RECORDS 1000000UL
#endif

#define RING_SIZE 16384		     /* small: about one wrap every 64 records */
#define TIME_BUDGET_NS 3000000000ULL /* a loaded machine stops early... */
#define MIN_RECORDS 20000UL	     /* ...but never below this */
#define REC_MAX 512

struct sim {
	struct perf_event_mmap_page *pc;
	unsigned char *data;
	struct ring r;
};

static void sim_init(struct sim *s, uint64_t size)
{
	s->pc = calloc(1, 4096);
	s->data = calloc(1, size);
	assert_non_null(s->pc);
	assert_non_null(s->data);
	assert_int_equal(ring__init_mem(&s->r, s->pc, s->data, size), 0);
}

static void sim_release(struct sim *s)
{
	free(s->pc);
	free(s->data);
}

/* Positions the simulated ring at [tail, head) without any data. */
static void sim_set(struct sim *s, uint64_t tail, uint64_t head)
{
	s->pc->data_tail = tail;
	s->pc->data_head = head;
}

/* ---- single-threaded ---- */

static void test_init_mem(void **state)
{
	struct perf_event_mmap_page pc = {0};
	unsigned char data[64];
	struct ring r;

	(void)state;
	assert_int_equal(ring__init_mem(&r, &pc, data, 0), -EINVAL);
	assert_int_equal(ring__init_mem(&r, &pc, data, 48), -EINVAL);
	assert_int_equal(ring__init_mem(&r, &pc, data, 64), 0);
	assert_int_equal(r.size, 64);
	assert_int_equal(r.mask, 63);
	assert_int_equal(r.fd, -1);
	assert_null(r.base);
	assert_int_equal(r.bytes_read, 0);
	ring__munmap(&r); /* no mapping: must not touch caller memory */
	assert_int_equal(ring__init_mem(&r, &pc, data, 1), 0);
}

static void test_empty(void **state)
{
	struct ring_span sp;
	struct sim s;

	(void)state;
	sim_init(&s, 256);
	assert_int_equal(ring__read_init(&s.r, &sp), 0);
	assert_int_equal(sp.nr_iov, 0);
	assert_int_equal(sp.len, 0);
	assert_int_equal(ring__pending(&s.r), 0);
	/* empty at a non-zero position, and exactly at the wrap */
	sim_set(&s, 256 * 7 + 40, 256 * 7 + 40);
	assert_int_equal(ring__read_init(&s.r, &sp), 0);
	assert_int_equal(sp.nr_iov, 0);
	sim_set(&s, 512, 512);
	assert_int_equal(ring__read_init(&s.r, &sp), 0);
	sim_release(&s);
}

/* The high-water mark keeps the fullest read and its time; backward rings have none. */
static void test_fill_max(void **state)
{
	struct ring_span sp;
	struct sim s;

	(void)state;
	sim_init(&s, 256);
	assert_int_equal(s.r.fill_max, 0);
	sim_set(&s, 0, 64);
	ring__note_fill(&s.r, ring__read_init(&s.r, &sp), 10);
	ring__read_done(&s.r, &sp);
	sim_set(&s, 64, 64 + 256); /* full, across the wrap */
	ring__note_fill(&s.r, ring__read_init(&s.r, &sp), 20);
	ring__read_done(&s.r, &sp);
	sim_set(&s, 320, 320 + 100);
	ring__note_fill(&s.r, ring__read_init(&s.r, &sp), 30);
	assert_int_equal(s.r.fill_max, 256);
	assert_int_equal(s.r.fill_max_time, 20);
	ring__note_fill(&s.r, 256, 40); /* as full again: the first time stays */
	assert_int_equal(s.r.fill_max_time, 20);
	/* A few bytes fuller, within the same 64th: the mark moves, its time does not. */
	s.r.fill_max = 254;
	s.r.fill_max_time = 60;
	ring__note_fill(&s.r, 255, 70);
	assert_int_equal(s.r.fill_max, 255);
	assert_int_equal(s.r.fill_max_time, 60);
	s.r.backward = true;
	s.r.fill_max = 0;
	ring__note_fill(&s.r, 128, 50);
	assert_int_equal(s.r.fill_max, 0);
	sim_release(&s);
}

/*
 * A ring that fills while its reader writes a span out: the read found 64
 * bytes, the kernel then filled the ring against the old tail. Noted before
 * the release, the mark is full; a read after it would find 192.
 */
static void test_fill_pending(void **state)
{
	struct ring_span sp;
	struct sim s;

	(void)state;
	sim_init(&s, 256);
	sim_set(&s, 1000, 1064);
	ring__note_fill(&s.r, ring__read_init(&s.r, &sp), 10);
	assert_int_equal(s.r.fill_max, 64);
	s.pc->data_head = 1000 + 256;
	ring__note_pending(&s.r, 20);
	ring__read_done(&s.r, &sp);
	assert_int_equal(s.r.fill_max, 256);
	assert_int_equal(s.r.fill_max_time, 20);
	assert_int_equal(ring__read_init(&s.r, &sp), 192);
	/* A head more than a ring ahead is the corrupt page read_init reports, not a fill. */
	s.pc->data_head = 1064 + 257;
	s.r.fill_max = 0;
	ring__note_pending(&s.r, 30);
	assert_int_equal(s.r.fill_max, 0);
	/* Backward rings note nothing. */
	s.pc->data_head = 1064 + 100;
	s.r.backward = true;
	ring__note_pending(&s.r, 40);
	assert_int_equal(s.r.fill_max, 0);
	sim_release(&s);
}

static void test_span_no_wrap(void **state)
{
	struct ring_span sp;
	struct sim s;

	(void)state;
	sim_init(&s, 256);
	sim_set(&s, 0, 96);
	assert_int_equal(ring__pending(&s.r), 96);
	assert_int_equal(ring__read_init(&s.r, &sp), 96);
	assert_int_equal(sp.nr_iov, 1);
	assert_int_equal(sp.len, 96);
	assert_int_equal(sp.tail, 0);
	assert_int_equal(sp.head, 96);
	assert_ptr_equal(sp.iov[0].iov_base, s.data);
	assert_int_equal(sp.iov[0].iov_len, 96);

	/* ends exactly at the end of the data area: still one iovec */
	sim_set(&s, 3 * 256 + 160, 4 * 256);
	assert_int_equal(ring__read_init(&s.r, &sp), 96);
	assert_int_equal(sp.nr_iov, 1);
	assert_ptr_equal(sp.iov[0].iov_base, s.data + 160);
	assert_int_equal(sp.iov[0].iov_len, 96);

	/* starts exactly at the wrap */
	sim_set(&s, 4 * 256, 4 * 256 + 8);
	assert_int_equal(ring__read_init(&s.r, &sp), 8);
	assert_int_equal(sp.nr_iov, 1);
	assert_ptr_equal(sp.iov[0].iov_base, s.data);
	sim_release(&s);
}

static void test_span_wrap(void **state)
{
	struct ring_span sp;
	struct sim s;

	(void)state;
	sim_init(&s, 256);
	sim_set(&s, 256 - 16, 256 + 24);
	assert_int_equal(ring__read_init(&s.r, &sp), 40);
	assert_int_equal(sp.nr_iov, 2);
	assert_int_equal(sp.len, 40);
	assert_ptr_equal(sp.iov[0].iov_base, s.data + 240);
	assert_int_equal(sp.iov[0].iov_len, 16);
	assert_ptr_equal(sp.iov[1].iov_base, s.data);
	assert_int_equal(sp.iov[1].iov_len, 24);

	/* a full ring that wraps: both iovecs, whole data area */
	sim_set(&s, 1000 * 256 + 8, 1001 * 256 + 8);
	assert_int_equal(ring__read_init(&s.r, &sp), 256);
	assert_int_equal(sp.nr_iov, 2);
	assert_int_equal(sp.iov[0].iov_len + sp.iov[1].iov_len, 256);
	assert_ptr_equal(sp.iov[0].iov_base, s.data + 8);
	assert_int_equal(sp.iov[1].iov_len, 8);

	/* a full ring aligned on the start: one iovec */
	sim_set(&s, 512, 768);
	assert_int_equal(ring__read_init(&s.r, &sp), 256);
	assert_int_equal(sp.nr_iov, 1);

	/* the 64-bit counters themselves wrap */
	sim_set(&s, UINT64_MAX - 7, 8);
	assert_int_equal(ring__read_init(&s.r, &sp), 16);
	assert_int_equal(sp.nr_iov, 2);
	assert_ptr_equal(sp.iov[0].iov_base, s.data + 248);
	assert_int_equal(sp.iov[0].iov_len, 8);
	assert_ptr_equal(sp.iov[1].iov_base, s.data);
	assert_int_equal(sp.iov[1].iov_len, 8);
	ring__read_done(&s.r, &sp);
	assert_int_equal(s.pc->data_tail, 8);
	sim_release(&s);
}

static void test_read_done(void **state)
{
	struct ring_span sp;
	struct sim s;

	(void)state;
	sim_init(&s, 256);
	sim_set(&s, 200, 300);
	assert_int_equal(ring__read_init(&s.r, &sp), 100);
	/* nothing moves until read_done */
	assert_int_equal(s.pc->data_tail, 200);
	assert_int_equal(s.r.bytes_read, 0);
	/* the kernel publishes more meanwhile: read_done releases only the span */
	s.pc->data_head = 340;
	ring__read_done(&s.r, &sp);
	assert_int_equal(s.pc->data_tail, 300);
	assert_int_equal(s.r.bytes_read, 100);
	assert_int_equal(ring__pending(&s.r), 40);
	assert_int_equal(ring__read_init(&s.r, &sp), 40);
	assert_int_equal(sp.tail, 300);
	assert_ptr_equal(sp.iov[0].iov_base, s.data + 300 - 256);
	ring__read_done(&s.r, &sp);
	assert_int_equal(s.pc->data_tail, 340);
	assert_int_equal(s.r.bytes_read, 140);
	assert_int_equal(ring__read_init(&s.r, &sp), 0);
	/* releasing an empty span changes nothing */
	ring__read_done(&s.r, &sp);
	assert_int_equal(s.pc->data_tail, 340);
	assert_int_equal(s.r.bytes_read, 140);
	sim_release(&s);
}

static void test_overrun(void **state)
{
	struct ring_span sp;
	struct sim s;

	(void)state;
	sim_init(&s, 256);
	sim_set(&s, 0, 256 + 8);
	assert_int_equal(ring__read_init(&s.r, &sp), -EIO);
	sim_set(&s, 4096, 4096 + 257);
	assert_int_equal(ring__read_init(&s.r, &sp), -EIO);
	/* head behind tail: a corrupt control page as well */
	sim_set(&s, 4096, 4000);
	assert_int_equal(ring__read_init(&s.r, &sp), -EIO);
	/* the failed reads moved nothing */
	assert_int_equal(s.pc->data_tail, 4096);
	assert_int_equal(s.r.bytes_read, 0);
	sim_release(&s);
}

/* ---- threaded producer/consumer ---- */

struct pc_test {
	struct sim s;
	unsigned long nr_records;   /* wanted */
	atomic_ulong total;	    /* produced, ULONG_MAX while producing */
	atomic_bool stop;	    /* consumer gave up: producer must leave */
	atomic_ulong producer_errs; /* producer saw tail beyond head */
	uint64_t produced_bytes;    /* written by the producer, read after join */
};

static uint32_t xorshift(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

static unsigned char pattern(uint64_t seq, size_t i)
{
	return (unsigned char)(seq * 131 + i * 7 + (seq >> 8));
}

/* Builds record @seq of @size bytes: header.type carries the sequence number. */
static void make_record(unsigned char *buf, uint64_t seq, uint16_t size)
{
	struct perf_event_header h = {
	    .type = (uint32_t)seq, .misc = (uint16_t)(seq >> 32), .size = size};

	memcpy(buf, &h, sizeof(h));
	for (size_t i = sizeof(h); i < size; i++)
		buf[i] = pattern(seq, i);
}

static void *producer(void *arg)
{
	struct pc_test *t = arg;
	struct sim *s = &t->s;
	unsigned char rec[REC_MAX];
	uint64_t head = 0, deadline = unit_now_ns() + TIME_BUDGET_NS;
	uint32_t rnd = 0x12345678;
	uint64_t seq;

	for (seq = 0; seq < t->nr_records; seq++) {
		uint16_t size = 8 * (1 + xorshift(&rnd) % (REC_MAX / 8));

		if (seq >= MIN_RECORDS && !(seq & 1023) && unit_now_ns() > deadline)
			break;

		make_record(rec, seq, size);
		for (;;) {
			uint64_t tail = ring_order__load_tail(&s->pc->data_tail);

			if (tail > head)
				atomic_fetch_add(&t->producer_errs, 1);
			if (s->r.size - (head - tail) >= size)
				break;
			if (atomic_load(&t->stop))
				goto out;
			/* never wait on the reader with records it cannot see */
			ring_order__store_head(&s->pc->data_head, head);
			sched_yield();
		}
		/* byte by byte, wrapping like the kernel's perf_output_copy */
		for (size_t i = 0; i < size; i++)
			s->data[(head + i) & s->r.mask] = rec[i];
		head += size;
		/* publish every record, sometimes several at once */
		if (rnd & 3)
			ring_order__store_head(&s->pc->data_head, head);
	}
	ring_order__store_head(&s->pc->data_head, head);
out:
	t->produced_bytes = head;
	atomic_store(&t->total, seq);
	return NULL;
}

struct consumer {
	unsigned char buf[2 * REC_MAX]; /* partial record carried over */
	size_t have;
	uint64_t next_seq, bytes;
	char why[160];
};

/* Checks one whole record; false with a reason on mismatch. */
static bool check_record(struct consumer *c, const unsigned char *p, size_t size)
{
	struct perf_event_header h;
	uint64_t seq;

	memcpy(&h, p, sizeof(h));
	seq = h.type | (uint64_t)h.misc << 32;
	if (seq != c->next_seq) {
		snprintf(c->why, sizeof(c->why), "record %llu where %llu was due",
			 (unsigned long long)seq, (unsigned long long)c->next_seq);
		return false;
	}
	for (size_t i = sizeof(h); i < size; i++) {
		if (p[i] != pattern(seq, i)) {
			snprintf(c->why, sizeof(c->why), "record %llu byte %zu corrupt",
				 (unsigned long long)seq, i);
			return false;
		}
	}
	c->next_seq++;
	return true;
}

/* Feeds span bytes; records may straddle iovecs (the wrap). */
static bool consume(struct consumer *c, const unsigned char *p, size_t len)
{
	while (len) {
		struct perf_event_header h;
		size_t need = sizeof(h);
		size_t take;

		if (c->have >= sizeof(h)) {
			memcpy(&h, c->buf, sizeof(h));
			if (h.size < 8 || (h.size & 7) || h.size > REC_MAX) {
				snprintf(c->why, sizeof(c->why), "bad record size %u", h.size);
				return false;
			}
			need = h.size;
		}
		take = need - c->have < len ? need - c->have : len;
		memcpy(c->buf + c->have, p, take);
		c->have += take;
		p += take;
		len -= take;
		c->bytes += take;
		if (c->have == need && need > sizeof(h)) {
			if (!check_record(c, c->buf, need))
				return false;
			c->have = 0;
		} else if (c->have == sizeof(h)) {
			memcpy(&h, c->buf, sizeof(h));
			if (h.size == sizeof(h)) {
				if (!check_record(c, c->buf, sizeof(h)))
					return false;
				c->have = 0;
			}
		}
	}
	return true;
}

/* One span: sanity of the span itself, then its bytes. */
static bool consume_span(struct pc_test *t, struct consumer *c, const struct ring_span *sp,
			 uint64_t prev_head)
{
	struct sim *s = &t->s;
	size_t sum = 0;

	if (sp->tail != prev_head || sp->head < sp->tail || sp->len != sp->head - sp->tail ||
	    sp->len > s->r.size) {
		snprintf(c->why, sizeof(c->why), "bad span [%llu, %llu) len %zu after head %llu",
			 (unsigned long long)sp->tail, (unsigned long long)sp->head, sp->len,
			 (unsigned long long)prev_head);
		return false;
	}
	if (sp->iov[0].iov_base != s->data + (sp->tail & s->r.mask) ||
	    (sp->nr_iov == 2 && sp->iov[1].iov_base != s->data)) {
		snprintf(c->why, sizeof(c->why), "iovec not at the ring position");
		return false;
	}
	for (int i = 0; i < sp->nr_iov; i++) {
		sum += sp->iov[i].iov_len;
		if (!consume(c, sp->iov[i].iov_base, sp->iov[i].iov_len))
			return false;
	}
	if (sum != sp->len) {
		snprintf(c->why, sizeof(c->why), "iovecs hold %zu bytes, span %zu", sum, sp->len);
		return false;
	}
	return true;
}

static unsigned long nr_records_wanted(void)
{
	const char *env = getenv("SHARDREC_RING_RECORDS");

	return env ? strtoul(env, NULL, 0) : RING_TEST_RECORDS;
}

static void test_producer_consumer(void **state)
{
	struct pc_test *t = calloc(1, sizeof(*t));
	struct consumer *c = calloc(1, sizeof(*c));
	struct ring_span sp;
	uint64_t prev_head = 0;
	unsigned long spans = 0, wraps = 0;
	pthread_t th;
	bool ok = true;

	(void)state;
	assert_non_null(t);
	assert_non_null(c);
	sim_init(&t->s, RING_SIZE);
	t->nr_records = nr_records_wanted();
	atomic_init(&t->stop, false);
	atomic_init(&t->total, ULONG_MAX);
	atomic_init(&t->producer_errs, 0);
	assert_int_equal(pthread_create(&th, NULL, producer, t), 0);

	while (ok && c->next_seq < atomic_load(&t->total)) {
		long n = ring__read_init(&t->s.r, &sp);

		if (n < 0) {
			snprintf(c->why, sizeof(c->why), "read_init: %ld", n);
			ok = false;
			break;
		}
		if (!n) {
			sched_yield();
			continue;
		}
		ok = consume_span(t, c, &sp, prev_head);
		spans++;
		wraps += sp.nr_iov == 2;
		prev_head = sp.head;
		ring__read_done(&t->s.r, &sp);
		if (t->s.pc->data_tail != sp.head || t->s.r.bytes_read != sp.head) {
			snprintf(
			    c->why, sizeof(c->why), "tail %llu / bytes_read %llu after head %llu",
			    (unsigned long long)t->s.pc->data_tail,
			    (unsigned long long)t->s.r.bytes_read, (unsigned long long)sp.head);
			ok = false;
		}
	}
	atomic_store(&t->stop, true);
	pthread_join(th, NULL);
	if (!ok)
		fail_msg("consumer: %s (record %llu)", c->why, (unsigned long long)c->next_seq);
	assert_int_equal(atomic_load(&t->producer_errs), 0);
	assert_int_equal(c->next_seq, atomic_load(&t->total));
	assert_true(c->next_seq >= MIN_RECORDS || c->next_seq == t->nr_records);
	assert_int_equal(c->have, 0);
	assert_int_equal(c->bytes, t->produced_bytes);
	assert_int_equal(t->s.r.bytes_read, t->produced_bytes);
	assert_int_equal(ring__read_init(&t->s.r, &sp), 0);
	/* the ring really wrapped, many times, and spans really split */
	assert_true(t->produced_bytes > 100 * RING_SIZE || t->nr_records < MIN_RECORDS);
	assert_true(wraps > 0 || t->nr_records < MIN_RECORDS);
	if (getenv("TEST_RING_SHOW"))
		fprintf(stderr, "%llu records, %llu bytes, %lu spans, %lu wrapped\n",
			(unsigned long long)c->next_seq, (unsigned long long)t->produced_bytes,
			spans, wraps);
	sim_release(&t->s);
	free(t);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_init_mem),	      cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_span_no_wrap),      cmocka_unit_test(test_span_wrap),
	    cmocka_unit_test(test_read_done),	      cmocka_unit_test(test_overrun),
	    cmocka_unit_test(test_producer_consumer), cmocka_unit_test(test_fill_max),
	    cmocka_unit_test(test_fill_pending),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
