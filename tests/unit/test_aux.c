// SPDX-License-Identifier: GPL-2.0
/*
 * aux/: the AUX area reader over a simulated control page and AUX buffer
 * (caller memory). Single-threaded edge cases (wrap, padding, corrupt
 * head), then threaded tests where a producer thread plays the kernel:
 *   - normal mode: random-size chunks of a position-keyed byte stream,
 *     waiting for aux_tail like the kernel, against a reader that is slow
 *     now and then: every byte arrives once, in order, at the offset its
 *     AUXTRACE record claims, and the tail never passes the head;
 *   - overwrite mode: the producer never waits, the reader takes snapshots:
 *     every byte written out is the one the producer put at that offset,
 *     the rest is counted as lost.
 * Must stay TSan-clean and take seconds under TSan.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "aux/aux.h"
#include "ringbuf/ring_order.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Chunks through the threaded test; sanitizers make each byte far slower. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define AUX_TEST_CHUNKS 100000UL
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define AUX_TEST_CHUNKS 100000UL
#endif
#endif
#ifndef AUX_TEST_CHUNKS
#define AUX_TEST_CHUNKS 1000000UL
#endif

#define AUX_SIZE 65536 /* small: a wrap every ~500 chunks */
#define CHUNK_MAX 256

struct sim {
	struct perf_event_mmap_page *pc;
	unsigned char *data;
	struct aux_ring a;
};

/* The stream's byte at position @pos: period 65521 (prime) never lines up with the area. */
static unsigned char pat(uint64_t pos)
{
	uint64_t v = (pos % 65521) * 0x9E3779B97F4A7C15ULL;

	return v >> 56;
}

static void sim_init(struct sim *s, uint64_t size, bool overwrite)
{
	s->pc = calloc(1, 4096);
	s->data = aligned_alloc(64, size);
	assert_non_null(s->pc);
	assert_non_null(s->data);
	memset(s->data, 0, size);
	assert_int_equal(aux_ring__init_mem(&s->a, s->pc, s->data, size, overwrite), 0);
}

static void sim_release(struct sim *s)
{
	aux_ring__munmap(&s->a);
	free(s->pc);
	free(s->data);
}

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);

	return v ? strtoull(v, NULL, 0) : def;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* ---- single-threaded ---- */

static void test_init(void **state)
{
	struct perf_event_mmap_page pc = {0};
	unsigned char buf[64];
	struct aux_ring a;

	(void)state;
	assert_int_equal(aux_ring__init_mem(&a, &pc, buf, 48, false), -EINVAL);
	assert_int_equal(aux_ring__init_mem(&a, &pc, buf, 0, false), -EINVAL);
	assert_int_equal(aux_ring__init_mem(&a, &pc, buf, 64, false), 0);
	assert_int_equal(aux_ring__read_init(&a), 0);
	aux_ring__munmap(&a);
}

/* Checks the record a read produced: header, offset, size, padding. */
static void check_rec(const struct aux_ring *a, uint64_t off, uint64_t len)
{
	uint64_t pad = (8 - (len & 7)) & 7, sum = 0;

	assert_int_equal(a->rec.header.type, AUX_REC_AUXTRACE);
	assert_int_equal(a->rec.header.size, 48);
	assert_int_equal(sizeof(a->rec), 48);
	assert_int_equal(a->rec.offset, off);
	assert_int_equal(a->rec.size, len + pad);
	assert_int_equal(a->rec.tid, UINT32_MAX);
	for (int i = 0; i < a->nr_iov; i++)
		sum += a->iov[i].iov_len;
	assert_int_equal(sum, 48 + len + pad);
	assert_int_equal(a->rec_len, sum);
}

static void test_wrap_and_pad(void **state)
{
	struct sim s;

	(void)state;
	sim_init(&s, 4096, false);
	s.a.tail = 4000;
	s.pc->aux_tail = 4000;
	s.pc->aux_head = 4203;
	assert_int_equal(aux_ring__read_init(&s.a), 48 + 203 + 5);
	check_rec(&s.a, 4000, 203);
	assert_int_equal(s.a.nr_iov, 4); /* header, end of area, start of area, padding */
	assert_ptr_equal(s.a.iov[1].iov_base, s.data + 4000);
	assert_int_equal(s.a.iov[1].iov_len, 96);
	assert_ptr_equal(s.a.iov[2].iov_base, s.data);
	assert_int_equal(s.a.iov[2].iov_len, 107);
	assert_int_equal(s.a.iov[3].iov_len, 5);
	/* Nothing moves before read_done. */
	assert_int_equal(s.pc->aux_tail, 4000);
	aux_ring__read_done(&s.a);
	assert_int_equal(s.pc->aux_tail, 4203);
	assert_int_equal(s.a.bytes, 203);
	assert_int_equal(aux_ring__read_init(&s.a), 0);
	/* A head more than the area past the tail: corrupt, never read. */
	s.pc->aux_head = 4203 + 4097;
	assert_int_equal(aux_ring__read_init(&s.a), -EIO);
	assert_int_equal(s.pc->aux_tail, 4203);
	sim_release(&s);
}

/* Overwrite mode reads nothing until asked, then the newest snap_size bytes. */
static void test_snapshot_single(void **state)
{
	struct sim s;

	(void)state;
	sim_init(&s, 4096, true);
	s.a.snap_size = 1024;
	for (uint64_t p = 0; p < 10000; p++)
		s.data[p & 4095] = pat(p);
	s.pc->aux_head = 10000;
	assert_int_equal(aux_ring__read_init(&s.a), 0);
	aux_ring__request_snapshot(&s.a);
	assert_int_equal(aux_ring__read_init(&s.a), 48 + 1024);
	check_rec(&s.a, 10000 - 1024, 1024);
	assert_int_equal(s.a.lost, 10000 - 1024);
	for (uint64_t i = 0; i < 1024; i++)
		assert_int_equal(((unsigned char *)s.a.iov[1].iov_base)[i], pat(10000 - 1024 + i));
	aux_ring__read_done(&s.a);
	assert_int_equal(s.pc->aux_tail, 0); /* the kernel ignores it: left alone */
	assert_int_equal(aux_ring__read_init(&s.a), 0);
	sim_release(&s);
}

/*
 * Intel PT in snapshot mode publishes aux_head as the offset inside the
 * area (perf's intel_pt_find_snapshot). @n more stream bytes from *@pos.
 */
static void pt_write(struct sim *s, uint64_t *pos, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++, (*pos)++)
		s->data[*pos & s->a.mask] = pat(*pos) | 1; /* PT data is never all zero here */
	s->pc->aux_head = *pos & s->a.mask;
}

/* Takes a snapshot and checks it holds stream bytes [@stream, @stream + @len) at @off. */
static void pt_snap(struct sim *s, uint64_t off, uint64_t stream, uint64_t len)
{
	uint64_t i = 0;

	aux_ring__request_snapshot(&s->a);
	assert_int_equal(aux_ring__read_init(&s->a), len ? (long)(48 + len + ((8 - (len & 7)) & 7)) : 0);
	if (!len)
		return;
	check_rec(&s->a, off, len);
	for (int k = 1; k < s->a.nr_iov && i < len; k++)
		for (size_t j = 0; j < s->a.iov[k].iov_len && i < len; j++, i++)
			assert_int_equal(((unsigned char *)s->a.iov[k].iov_base)[j],
					 pat(stream + i) | 1);
	aux_ring__read_done(&s->a);
}

static void test_snapshot_offset_head(void **state)
{
	struct sim s;
	uint64_t pos = 0;

	(void)state;
	sim_init(&s, 4096, true);
	pt_write(&s, &pos, 1000);
	pt_snap(&s, 0, 0, 1000);
	pt_write(&s, &pos, 500);
	pt_snap(&s, 1000, 1000, 500);
	pt_snap(&s, 0, 0, 0); /* nothing new: no record */
	assert_int_equal(s.a.snap_done, s.a.snap_req);
	/* the head goes backwards: wrapped, the whole area is the newest trace */
	pt_write(&s, &pos, 3000);
	pt_snap(&s, 4500 - 4096, 4500 - 4096, 4096);
	/* several laps: the head moved 1808 mod 4096; the area is still the newest */
	pt_write(&s, &pos, 10000);
	pt_snap(&s, 4500 + 1808 - 4096, pos - 4096, 4096);
	assert_int_equal(s.a.lost, 0); /* unknowable once wrapped: never made up */
	sim_release(&s);

	/* one lap and then some, the head ends past the last one: the bytes after it tell */
	sim_init(&s, 4096, true);
	pos = 0;
	pt_write(&s, &pos, 1000);
	pt_snap(&s, 0, 0, 1000);
	pt_write(&s, &pos, 4096 + 500);
	pt_snap(&s, 1500 - 4096 + 4096, pos - 4096, 4096);
	sim_release(&s);

	/* a head near the end is not a wrap (perf's first-wrap check says it is) */
	sim_init(&s, 4096, true);
	s.a.snap_size = 1024;
	pos = 0;
	pt_write(&s, &pos, 4000);
	pt_snap(&s, 4000 - 1024, 4000 - 1024, 1024);
	assert_int_equal(s.a.lost, 4000 - 1024);
	assert_false(s.a.wrapped);
	sim_release(&s);
}

/* ---- threaded: normal mode ---- */

struct prod {
	struct sim *s;
	uint64_t chunks, seed;
	uint64_t written; /* bytes, read by the test after join */
	atomic_bool done;
	bool tail_passed_head;
	atomic_uint snaps; /* overwrite mode: snapshots the reader has taken */
};

static void *producer(void *arg)
{
	struct prod *p = arg;
	struct sim *s = p->s;
	uint64_t head = 0, seed = p->seed;

	for (uint64_t c = 0; c < p->chunks; c++) {
		uint64_t len = 1 + xorshift(&seed) % CHUNK_MAX, tail;

		/* The kernel writes only into space the reader released. */
		while (1) {
			tail = ring_order__load_tail(&s->pc->aux_tail);
			if (tail > head)
				p->tail_passed_head = true;
			if (AUX_SIZE - (head - tail) >= len)
				break;
			sched_yield();
		}
		for (uint64_t i = 0; i < len; i++)
			s->data[(head + i) & (AUX_SIZE - 1)] = pat(head + i);
		head += len;
		ring_order__store_head(&s->pc->aux_head, head);
	}
	p->written = head;
	atomic_store_explicit(&p->done, true, memory_order_release);
	return NULL;
}

/* Consumes one AUXTRACE record as a writer would: checks every byte of it. */
static uint64_t consume(const struct aux_ring *a, uint64_t expect_off)
{
	uint64_t len = a->head - a->rec.offset, pos = a->rec.offset, seen = 0;

	assert_int_equal(a->rec.offset, expect_off);
	check_rec(a, pos, len);
	for (int i = 1; i < a->nr_iov && seen < len; i++) {
		const unsigned char *b = a->iov[i].iov_base;

		for (size_t k = 0; k < a->iov[i].iov_len && seen < len; k++, seen++)
			if (b[k] != pat(pos + seen))
				fail_msg("byte at %llu: got %u want %u", (unsigned long long)(pos + seen),
					 b[k], pat(pos + seen));
	}
	assert_int_equal(seen, len);
	return len;
}

static void test_threaded_stream(void **state)
{
	struct sim s;
	struct prod p = {.s = &s, .seed = 0x1234567, .chunks = env_u64("AUX_TEST_CHUNKS",
									AUX_TEST_CHUNKS)};
	uint64_t got = 0, reads = 0, slow_seed = 99;
	pthread_t t;

	(void)state;
	sim_init(&s, AUX_SIZE, false);
	atomic_init(&p.done, false);
	assert_int_equal(pthread_create(&t, NULL, producer, &p), 0);
	for (;;) {
		bool done = atomic_load_explicit(&p.done, memory_order_acquire);
		long n = aux_ring__read_init(&s.a);

		assert_true(n >= 0);
		if (n) {
			got += consume(&s.a, got);
			aux_ring__read_done(&s.a);
			/* The tail we release never passes the head we saw. */
			assert_true(s.pc->aux_tail <= ring_order__load_head(&s.pc->aux_head));
			reads++;
		} else if (done) {
			break;
		}
		/* A slow reader now and then: the producer must wait, never overwrite. */
		if (xorshift(&slow_seed) % 512 == 0)
			usleep(50);
		else if (!n)
			sched_yield();
	}
	pthread_join(t, NULL);
	assert_false(p.tail_passed_head);
	assert_int_equal(got, p.written);
	assert_int_equal(s.a.bytes, p.written);
	assert_int_equal(s.a.records, reads);
	assert_true(p.written > AUX_SIZE * 4); /* it wrapped */
	sim_release(&s);
}

/* ---- threaded: overwrite mode ---- */

/* Word at 8-aligned position @pos: every byte of it is pat(pos + i). */
static uint64_t pat_word(uint64_t pos)
{
	uint64_t w = 0;

	for (int i = 0; i < 8; i++)
		w |= (uint64_t)pat(pos + i) << (8 * i);
	return w;
}

static void *producer_ow(void *arg)
{
	struct prod *p = arg;
	struct sim *s = p->s;
	uint64_t head = 0, seed = p->seed;

	/* Like hardware in overwrite mode: never looks at aux_tail. */
	for (uint64_t c = 0; c < p->chunks; c++) {
		uint64_t len = 8 * (1 + xorshift(&seed) % (CHUNK_MAX / 8));

		/*
		 * At each quarter, wait for the reader's next snapshot: on a loaded
		 * machine the producer could otherwise finish before the reader
		 * ran at all, and the test would see no interleaving.
		 */
		if (c && p->chunks >= 4 && c % (p->chunks / 4) == 0)
			while (atomic_load_explicit(&p->snaps, memory_order_acquire) <
			       c / (p->chunks / 4))
				sched_yield();

		for (uint64_t i = 0; i < len; i += 8)
			__atomic_store_n((uint64_t *)(s->data + ((head + i) & (AUX_SIZE - 1))),
					 pat_word(head + i), __ATOMIC_RELAXED);
		head += len;
		ring_order__store_head(&s->pc->aux_head, head);
	}
	p->written = head;
	atomic_store_explicit(&p->done, true, memory_order_release);
	return NULL;
}

static void test_threaded_overwrite(void **state)
{
	struct sim s;
	struct prod p = {.s = &s, .seed = 0xabcdef, .chunks = env_u64("AUX_TEST_CHUNKS",
								       AUX_TEST_CHUNKS) / 10};
	uint64_t got = 0, prev_end = 0, snaps = 0;
	pthread_t t;

	(void)state;
	sim_init(&s, AUX_SIZE, true);
	s.a.snap_size = AUX_SIZE / 2;
	s.a.guard = CHUNK_MAX; /* no event to disable: a chunk may be mid-write */
	atomic_init(&p.done, false);
	atomic_init(&p.snaps, 0);
	assert_int_equal(pthread_create(&t, NULL, producer_ow, &p), 0);
	for (bool done = false; !done;) {
		long n;

		done = atomic_load_explicit(&p.done, memory_order_acquire);
		aux_ring__request_snapshot(&s.a);
		n = aux_ring__read_init(&s.a);
		assert_true(n >= 0);
		if (n) {
			/* Snapshots never overlap and never run backwards. */
			assert_true(s.a.rec.offset >= prev_end);
			assert_true(s.a.head - s.a.rec.offset <= AUX_SIZE / 2);
			got += consume(&s.a, s.a.rec.offset);
			prev_end = s.a.head;
			aux_ring__read_done(&s.a);
			snaps++;
			atomic_store_explicit(&p.snaps, (unsigned)snaps, memory_order_release);
		}
		usleep(100);
	}
	pthread_join(t, NULL);
	/* Every byte is either written out or counted lost, once. */
	assert_int_equal(got + s.a.lost, prev_end);
	assert_true(snaps > 2);
	sim_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_wrap_and_pad),
		cmocka_unit_test(test_snapshot_single),
		cmocka_unit_test(test_snapshot_offset_head),
		cmocka_unit_test(test_threaded_stream),
		cmocka_unit_test(test_threaded_overwrite),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
