// SPDX-License-Identifier: GPL-2.0
/*
 * The merge's output stream (recorder/merge/merge_out.c): what is put, by
 * copy or by reference, lands in the file in order, and each span put by
 * reference is released once, after it is written and before sync returns,
 * however the writes wrap the queue and the buffers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "recorder/merge/merge_internal.h"
#include "unit_util.h"

#define SPAN (70U << 10) /* above SPAN_REF_MIN: put by reference */

struct span {
	unsigned char *data;
	size_t len;
	int released;
};

static void span_release(void *arg)
{
	((struct span *)arg)->released++;
}

/* Byte @i of the stream: a pattern a misplaced write cannot match. */
static unsigned char pat(uint64_t i)
{
	return (unsigned char)(i * 131 + (i >> 9) * 7 + 1);
}

static void fill(unsigned char *p, size_t len, uint64_t at)
{
	for (size_t k = 0; k < len; k++)
		p[k] = pat(at + k);
}

/*
 * @nr_spans spans by reference among records put by copy (small ones, and
 * some as large as a whole buffer), from offset @base; checks the file.
 */
static void stream_check(int nr_spans, uint64_t base)
{
	char path[] = "/tmp/test_merge_out.XXXXXX";
	int fd = mkstemp(path);
	struct merge_out o;
	struct span *spans = calloc(nr_spans + 1, sizeof(*spans));
	static unsigned char rec[OUT_BUF_SIZE];
	uint64_t pos = base;
	size_t len;
	unsigned char *got;

	assert_true(fd >= 0);
	assert_non_null(spans);
	assert_int_equal(merge_out__init(&o, fd, base, false), 0);
	for (int i = 0; i < nr_spans; i++) {
		/* records by copy: a few small ones, every fifth time one that fills a buffer */
		for (int k = 0; k < 3; k++) {
			size_t n = i % 5 == 4 && k == 0 ? OUT_BUF_SIZE - 8
							: 8 * (1 + (size_t)(i * 7 + k) % 40);

			fill(rec, n, pos);
			assert_int_equal(merge_out__put(&o, rec, n), 0);
			pos += n;
		}
		spans[i].len = SPAN + 8 * (i % 3);
		spans[i].data = malloc(spans[i].len);
		assert_non_null(spans[i].data);
		fill(spans[i].data, spans[i].len, pos);
		assert_int_equal(merge_out__put_ref(&o, spans[i].data, spans[i].len, span_release,
						    &spans[i]),
				 0);
		pos += spans[i].len;
		assert_int_equal(merge_out__pos(&o), pos);
	}
	assert_int_equal(merge_out__sync(&o), 0);
	for (int i = 0; i < nr_spans; i++)
		assert_int_equal(spans[i].released, 1);
	merge_out__release(&o);
	for (int i = 0; i < nr_spans; i++) {
		assert_int_equal(spans[i].released, 1); /* not again */
		free(spans[i].data);
	}
	got = (unsigned char *)unit_slurp(path, &len);
	assert_int_equal(len, pos > base ? pos : 0); /* nothing put: nothing written */
	for (uint64_t i = base; i < pos; i++)
		if (got[i] != pat(i))
			fail_msg("byte %llu of %llu is wrong", (unsigned long long)i,
				 (unsigned long long)pos);
	free(got);
	free(spans);
	close(fd);
	unlink(path);
}

/* Many more writes than the queue holds: slots and buffers are reused. */
static void test_queue_wraps(void **state)
{
	(void)state;
	stream_check(5 * OUT_QUEUE + 3, 4096);
}

/* One span, and none: a short queue, and an empty stream. */
static void test_short_streams(void **state)
{
	(void)state;
	stream_check(1, 0);
	stream_check(0, 100);
}

/* Spans put and the stream released without a sync (an error path): each released once. */
static void test_release_without_sync(void **state)
{
	char path[] = "/tmp/test_merge_out.XXXXXX";
	int fd = mkstemp(path);
	struct merge_out o;
	static unsigned char data[SPAN];
	struct span spans[2 * OUT_QUEUE] = {0};

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(merge_out__init(&o, fd, 0, false), 0);
	for (int i = 0; i < 2 * OUT_QUEUE; i++)
		assert_int_equal(merge_out__put_ref(&o, data, sizeof(data), span_release, &spans[i]),
				 0);
	merge_out__release(&o);
	for (int i = 0; i < 2 * OUT_QUEUE; i++)
		assert_int_equal(spans[i].released, 1);
	close(fd);
	unlink(path);
}

/* A write that fails (a read-only fd) is reported by sync, and spans are still released. */
static void test_write_error(void **state)
{
	char path[] = "/tmp/test_merge_out.XXXXXX";
	int fd = mkstemp(path), ro;
	struct merge_out o;
	static unsigned char data[SPAN];
	struct span spans[3] = {0};
	int err = 0;

	(void)state;
	assert_true(fd >= 0);
	ro = open(path, O_RDONLY);
	assert_true(ro >= 0);
	assert_int_equal(merge_out__init(&o, ro, 0, false), 0);
	for (int i = 0; i < 3; i++)
		err = err ? err : merge_out__put_ref(&o, data, sizeof(data), span_release, &spans[i]);
	if (!err)
		err = merge_out__sync(&o);
	assert_int_equal(err, -EBADF);
	merge_out__release(&o);
	for (int i = 0; i < 3; i++)
		assert_int_equal(spans[i].released, 1);
	close(ro);
	close(fd);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_queue_wraps),
	    cmocka_unit_test(test_short_streams),
	    cmocka_unit_test(test_release_without_sync),
	    cmocka_unit_test(test_write_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
