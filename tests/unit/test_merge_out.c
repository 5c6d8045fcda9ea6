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

#include <sys/mman.h>

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

/* @path is @size bytes long, and its bytes from @from to @to are the pattern's. */
static void check_file(const char *path, uint64_t from, uint64_t to, size_t size)
{
	size_t len;
	unsigned char *got = (unsigned char *)unit_slurp(path, &len);

	assert_int_equal(len, size);
	for (uint64_t i = from; i < to; i++)
		if (got[i] != pat(i))
			fail_msg("byte %llu of %llu is wrong", (unsigned long long)i,
				 (unsigned long long)to);
	free(got);
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
	/* nothing put: nothing written */
	check_file(path, base, pos, pos > base ? pos : 0);
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

/* Whether the file system of @fd announces direct I/O that merge_out can use. */
static bool fs_direct(int fd)
{
	struct statx stx;

	return !statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) &&
	       (stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align &&
	       stx.stx_dio_offset_align <= 4096 && stx.stx_dio_mem_align &&
	       stx.stx_dio_mem_align <= 4096;
}

/* Pages of @fd's first @len bytes in the page cache. */
static size_t resident_pages(int fd, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = (len + page - 1) / page, r = 0;
	unsigned char *vec = malloc(n);
	void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);

	assert_non_null(vec);
	assert_true(map != MAP_FAILED);
	assert_int_equal(mincore(map, len, vec), 0);
	for (size_t i = 0; i < n; i++)
		r += vec[i] & 1;
	munmap(map, len);
	free(vec);
	return r;
}

/*
 * Direct mode (where the file system allows it): the stream starts inside
 * a block whose first bytes are the caller's (the attrs), syncs in the
 * middle of a block and goes on, takes a put longer than a buffer and
 * spans by reference. The caller's bytes stay, the stream's land in
 * order, the file ends where the stream does, and the stream's pages
 * bypassed the page cache: only the blocks written at the syncs are there.
 */
static void test_direct_mode(void **state)
{
	char path[] = "/tmp/test_merge_out.XXXXXX";
	int fd = mkstemp(path);
	const uint64_t base = 300;
	static unsigned char buf[3 * OUT_BUF_SIZE / 2];
	struct span sp = {.len = SPAN};
	struct merge_out o;
	uint64_t pos = base;

	(void)state;
	assert_true(fd >= 0);
	if (!fs_direct(fd)) {
		close(fd);
		unlink(path);
		skip();
	}
	fill(buf, base, 0);
	assert_int_equal(pwrite(fd, buf, base, 0), (ssize_t)base);
	assert_int_equal(merge_out__init(&o, fd, base, false), 0);
	assert_true(o.direct);
	for (int round = 0; round < 2; round++) {
		size_t n = round ? sizeof(buf) : 5000; /* a sync inside a block, then a put past a buffer */

		fill(buf, n, pos);
		assert_int_equal(merge_out__put(&o, buf, n), 0);
		pos += n;
		assert_int_equal(merge_out__sync(&o), 0);
		assert_int_equal(merge_out__pos(&o), pos);
	}
	sp.data = malloc(sp.len);
	assert_non_null(sp.data);
	fill(sp.data, sp.len, pos);
	assert_int_equal(merge_out__put_ref(&o, sp.data, sp.len, span_release, &sp), 0);
	assert_int_equal(sp.released, 1); /* copied: the span is free at once */
	pos += sp.len;
	fill(buf, 77, pos);
	assert_int_equal(merge_out__put(&o, buf, 77), 0);
	pos += 77;
	assert_int_equal(merge_out__sync(&o), 0);
	merge_out__release(&o);
	free(sp.data);
	assert_true(resident_pages(fd, pos) <= 4);
	check_file(path, 0, pos, pos);
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
	    cmocka_unit_test(test_direct_mode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
