// SPDX-License-Identifier: GPL-2.0
/*
 * shardrec loss on hand-built perf.data files: the loss metric's intervals
 * (per CPU, union across CPUs, a LOST with no earlier record on its CPU, an
 * untimed LOST), LOST / LOST_SAMPLES sums, and the same data read from a
 * -z style COMPRESSED file and a perf --threads style directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "recorder/codec/zunpass.h"
#include "recorder/cli/loss_print.h"
#include "recorder/loss/loss.h"
#include "recorder/perfdata/pfile_feat.h"
#include "recorder/perfdata/pfile_sample.h"
#include "recorder/perfdata/pfile_write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define ST                                                                                         \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_CPU)
#define ID 77

struct buf {
	unsigned char d[8192];
	size_t len;
};

static void put(struct buf *b, const void *p, size_t n)
{
	assert_true(b->len + n <= sizeof(b->d));
	memcpy(b->d + b->len, p, n);
	b->len += n;
}

static void put_u64(struct buf *b, uint64_t v) { put(b, &v, 8); }

static void hdr(struct buf *b, uint32_t type, uint16_t size)
{
	struct perf_event_header h = {.type = type, .size = size};

	put(b, &h, sizeof(h));
}

static void sample(struct buf *b, uint64_t t, uint32_t cpu)
{
	hdr(b, PERF_RECORD_SAMPLE, 48);
	put_u64(b, ID);
	put_u64(b, 0xffffffff81000000ULL);
	put_u64(b, 42 | (42ULL << 32));
	put_u64(b, t);
	put_u64(b, cpu);
}

static void trailer(struct buf *b, bool id_all, uint64_t t, uint32_t cpu)
{
	struct pfile_idlayout l;

	pfile_idlayout__init(&l, ST, id_all);
	b->len += pfile_idlayout__write_trailer(&l, b->d + b->len, 42, 42, t, ID, cpu);
}

static void lost(struct buf *b, bool id_all, uint64_t t, uint32_t cpu, uint64_t n)
{
	hdr(b, PERF_RECORD_LOST, id_all ? 56 : 24);
	put_u64(b, ID);
	put_u64(b, n);
	trailer(b, id_all, t, cpu);
}

static void lost_samples(struct buf *b, uint64_t n)
{
	hdr(b, PERF_RECORD_LOST_SAMPLES, 48);
	put_u64(b, n);
	trailer(b, true, 0, 0);
}

/* Writes a perf.data with @data as its data section. */
static void write_file(const char *path, const struct buf *data, bool id_all)
{
	uint64_t ids[1] = {ID}, end, fend;
	struct pfile_event ev = {.name = "cs", .ids = ids, .nr_ids = 1};
	struct pfile_featset fs = {0};
	struct pfile_header h;
	int fd;

	ev.attr.type = PERF_TYPE_SOFTWARE;
	ev.attr.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	ev.attr.sample_period = 1;
	ev.attr.sample_type = ST;
	ev.attr.sample_id_all = id_all;
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	pfile_header__init(&h);
	assert_int_equal(pfile__write_attrs(fd, PFILE_HEADER_SIZE, &ev, 1, &h.attrs, &end), 0);
	h.data.offset = end;
	h.data.size = data->len;
	assert_int_equal(pwrite(fd, data->d, data->len, end), (ssize_t)data->len);
	assert_int_equal(pfile_feat__string(&fs, PFILE_FEAT_HOSTNAME, "test"), 0);
	assert_int_equal(pfile_feat__event_desc(&fs, &ev, 1), 0);
	assert_int_equal(pfile__write_features(fd, end + data->len, &fs, h.features, &fend), 0);
	assert_int_equal(pfile__write_header(fd, &h), 0);
	pfile_featset__release(&fs);
	close(fd);
}

/*
 * CPU1 loses in [200, 250] and CPU0 in [100, 300] (union 200 ns), then CPU1
 * in [1100, 1150]: 250 ns of loss in 1250 ns (100..1350).
 */
static void build_cpu_data(struct buf *c0, struct buf *c1)
{
	sample(c0, 100, 0);
	sample(c1, 150, 1);
	sample(c1, 200, 1);
	lost(c1, true, 250, 1, 5);
	lost(c0, true, 300, 0, 7);
	sample(c0, 1000, 0);
	sample(c1, 1100, 1);
	lost(c1, true, 1150, 1, 3);
	sample(c0, 1350, 0);
}

static void check_main_stats(const struct loss_stats *st)
{
	assert_int_equal(st->samples, 6);
	assert_int_equal(st->lost_records, 3);
	assert_int_equal(st->lost_events, 15);
	assert_int_equal(st->lost_samples, 15);
	assert_int_equal(st->first_time, 100);
	assert_int_equal(st->last_time, 1350);
	assert_int_equal(st->lost_time, 200 + 50);
	assert_true(loss_stats__metric(st) > 0.1999 && loss_stats__metric(st) < 0.2001);
	assert_int_equal(loss_stats__lost(st), 15);
	assert_int_equal(st->nr_events, 1);
	assert_int_equal(st->events[0].samples, 6);
	assert_int_equal(st->events[0].lost_samples, 15);
	assert_string_equal(st->events[0].name, "cs");
	/* The plot's points: the 3 timed LOST, not the untimed LOST_SAMPLES. */
	assert_int_equal(st->nr_points, 3);
	for (size_t i = 0; i < st->nr_points; i++) {
		const struct loss_point *p = &st->points[i];

		assert_true((p->cpu == 0 && p->time == 300 && p->lost == 7) ||
			    (p->cpu == 1 && p->time == 250 && p->lost == 5) ||
			    (p->cpu == 1 && p->time == 1150 && p->lost == 3));
	}
}

/* loss --plot's bins: columns per CPU that lost, times from the first record. */
static void test_bins(void **state)
{
	struct loss_point pts[] = {{250, 1, 5}, {300, 0, 7}, {1150, 1, 3}, {1349, -1, 2}};
	struct loss_stats st = {.first_time = 100, .last_time = 1350, .points = pts,
				.nr_points = 4};
	struct loss_bins b;

	(void)state;
	assert_int_equal(loss_bins__build(&b, &st, 5), 0);
	assert_int_equal(b.nr_cpus, 3);
	assert_int_equal(b.cpus[0], -1);
	assert_int_equal(b.cpus[1], 0);
	assert_int_equal(b.cpus[2], 1);
	assert_int_equal(b.origin, 100);
	assert_int_equal(b.width, 251); /* 1250 ns / 5, +1 so the last time is in the last bin */
	assert_int_equal(b.count[0 * 3 + 2], 5);  /* 250: bin 0, cpu 1 */
	assert_int_equal(b.count[0 * 3 + 1], 7);  /* 300: bin 0, cpu 0 */
	assert_int_equal(b.count[4 * 3 + 2], 3);  /* 1150: bin 4 */
	assert_int_equal(b.count[4 * 3 + 0], 2);  /* 1349, no CPU */
	assert_int_equal(b.count[2 * 3 + 2], 0);
	loss_bins__release(&b);
	/* Nothing lost: no column, one bin still. */
	st.nr_points = 0;
	assert_int_equal(loss_bins__build(&b, &st, 0), 0);
	assert_int_equal(b.nr_cpus, 0);
	assert_int_equal(b.nr_bins, 1);
	loss_bins__release(&b);
}

/*
 * A job's files as one: counts added, each file's lost samples as it
 * defines them, elapsed added, so the metric is weighted by elapsed time;
 * the table ends with that total row.
 */
static void test_total(void **state)
{
	struct loss_stats st[2] = {
		{.samples = 90, .lost_records = 2, .lost_events = 10, .lost_samples_recs = 1,
		 .lost_samples = 10, .first_time = 1000, .last_time = 4000, .lost_time = 300},
		{.samples = 100, .lost_records = 1, .lost_events = 5, .first_time = 0,
		 .last_time = 1000, .lost_time = 700},
	};
	const char *paths[] = {"perf.7.n1.data", "perf.7.n2.data"};
	struct loss_total t = {0};
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	loss_total__add(&t, &st[0]);
	loss_total__add(&t, &st[1]);
	assert_int_equal(t.files, 2);
	assert_int_equal(t.samples, 190);
	assert_int_equal(t.lost_records, 3);
	assert_int_equal(t.lost, 15);
	assert_int_equal(t.elapsed, 4000);
	assert_true(loss_total__metric(&t) == 0.25);		/* 1000 ns lost of 4000 */
	assert_true(loss_total__lost_share(&t) == 15.0 / 205); /* lost / (samples + lost) */
	assert_true(loss_stats__metric(&st[0]) == 0.1);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	loss__fprint_table(f, paths, st, 2);
	fclose(f);
	assert_non_null(strstr(text, "\ntotal                             190          3           15           15"));
	free(text);
}

static void test_plain(void **state)
{
	char path[] = "/tmp/test_loss.XXXXXX", err[256];
	struct buf *d = calloc(1, sizeof(*d));
	struct loss_stats st;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	/* One file interleaving both CPUs' records in time order, like a merge. */
	sample(d, 100, 0);
	sample(d, 150, 1);
	sample(d, 200, 1);
	lost(d, true, 250, 1, 5);
	lost(d, true, 300, 0, 7);
	sample(d, 1000, 0);
	sample(d, 1100, 1);
	lost(d, true, 1150, 1, 3);
	sample(d, 1350, 0);
	lost_samples(d, 15);
	write_file(path, d, true);
	assert_int_equal(loss__analyze(path, &zunpass__ops, &st, err, sizeof(err)), 0);
	check_main_stats(&st);
	loss_stats__release(&st);
	unlink(path);
	free(d);
}

/* A LOST before any record of its CPU counts from the file's first timestamp. */
static void test_first_on_cpu(void **state)
{
	char path[] = "/tmp/test_loss.XXXXXX", err[256];
	struct buf *d = calloc(1, sizeof(*d));
	struct loss_stats st;
	int fd = mkstemp(path);

	(void)state;
	close(fd);
	sample(d, 1000, 0);
	lost(d, true, 1400, 1, 2);
	sample(d, 2000, 1);
	write_file(path, d, true);
	assert_int_equal(loss__analyze(path, &zunpass__ops, &st, err, sizeof(err)), 0);
	assert_int_equal(st.lost_time, 400);
	assert_int_equal(loss_stats__lost(&st), 2); /* no LOST_SAMPLES: the LOST sum */
	loss_stats__release(&st);
	unlink(path);
	free(d);
}

/* No sample_id_all: a LOST spans the previous to the next timed record. */
static void test_untimed(void **state)
{
	char path[] = "/tmp/test_loss.XXXXXX", err[256];
	struct buf *d = calloc(1, sizeof(*d));
	struct loss_stats st;
	int fd = mkstemp(path);

	(void)state;
	close(fd);
	sample(d, 1000, 0);
	sample(d, 1500, 1);
	lost(d, false, 0, 0, 4);
	sample(d, 1700, 0);
	sample(d, 3000, 0);
	write_file(path, d, false);
	assert_int_equal(loss__analyze(path, &zunpass__ops, &st, err, sizeof(err)), 0);
	assert_int_equal(st.untimed_lost, 1);
	assert_int_equal(st.lost_time, 200);
	assert_true(loss_stats__metric(&st) > 0.0999 && loss_stats__metric(&st) < 0.1001);
	loss_stats__release(&st);
	unlink(path);
	free(d);
}

/* Records as perf -z writes them: COMPRESSED (81) payloads of one zstd stream, cut mid-record. */
static void compress_into(struct buf *out, const struct buf *in)
{
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	size_t cut = in->len / 2 + 4; /* not on a record boundary */
	const struct {
		size_t off, len;
	} part[2] = {{0, cut}, {cut, in->len - cut}};

	for (int i = 0; i < 2; i++) {
		unsigned char z[4096];
		ZSTD_inBuffer ib = {in->d + part[i].off, part[i].len, 0};
		ZSTD_outBuffer ob = {z, sizeof(z), 0};
		size_t rec;

		assert_false(ZSTD_isError(ZSTD_compressStream2(cc, &ob, &ib, ZSTD_e_flush)));
		assert_int_equal(ib.pos, ib.size);
		rec = (8 + ob.pos + 7) & ~7UL;
		hdr(out, PFILE_REC_COMPRESSED, rec);
		put(out, z, ob.pos);
		out->len += rec - 8 - ob.pos; /* zero padding: zstd skips nothing, pad stays out */
	}
	ZSTD_freeCCtx(cc);
}

static void test_compressed(void **state)
{
	char path[] = "/tmp/test_loss.XXXXXX", err[256];
	struct buf *d = calloc(1, sizeof(*d)), *z = calloc(1, sizeof(*z));
	struct loss_stats st;
	int fd = mkstemp(path);

	(void)state;
	close(fd);
	sample(d, 100, 0);
	sample(d, 150, 1);
	sample(d, 200, 1);
	lost(d, true, 250, 1, 5);
	lost(d, true, 300, 0, 7);
	sample(d, 1000, 0);
	sample(d, 1100, 1);
	lost(d, true, 1150, 1, 3);
	sample(d, 1350, 0);
	lost_samples(d, 15);
	compress_into(z, d);
	write_file(path, z, true);
	assert_int_equal(loss__analyze(path, &zunpass__ops, &st, err, sizeof(err)), 0);
	assert_int_equal(st.compressed, 2);
	assert_int_equal(st.data_bytes, d->len);
	check_main_stats(&st);
	loss_stats__release(&st);
	unlink(path);
	free(d);
	free(z);
}

static void write_raw(const char *path, const struct buf *b)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, b->d, b->len), (ssize_t)b->len);
	close(fd);
}

/* perf record --threads: DIR/data (header, synthesized records) + DIR/data.N rings. */
static void test_dir(void **state)
{
	char dir[] = "/tmp/test_loss.XXXXXX", p[128], err[256];
	struct buf *h = calloc(1, sizeof(*h)), *c0 = calloc(1, sizeof(*c0)),
		   *c1 = calloc(1, sizeof(*c1));
	struct loss_stats st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	build_cpu_data(c0, c1);
	lost_samples(c1, 15);
	hdr(h, PFILE_REC_FINISHED_INIT, 8); /* perf's header file holds the synthesized records */
	snprintf(p, sizeof(p), "%s/data", dir);
	write_file(p, h, true);
	snprintf(p, sizeof(p), "%s/data.0", dir);
	write_raw(p, c0);
	snprintf(p, sizeof(p), "%s/data.1", dir);
	write_raw(p, c1);
	assert_int_equal(loss__analyze(dir, &zunpass__ops, &st, err, sizeof(err)), 0);
	assert_int_equal(st.nr_files, 3);
	check_main_stats(&st);
	loss_stats__release(&st);
	for (const char *n = "data\0data.0\0data.1\0"; *n; n += strlen(n) + 1) {
		snprintf(p, sizeof(p), "%s/%s", dir, n);
		unlink(p);
	}
	rmdir(dir);
	free(h);
	free(c0);
	free(c1);
}

static void test_errors(void **state)
{
	char err[256];
	struct loss_stats st;

	(void)state;
	assert_int_equal(loss__analyze("/nonexistent/perf.data", &zunpass__ops, &st, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/perf.data"));
	loss_stats__release(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plain),   cmocka_unit_test(test_first_on_cpu),
	    cmocka_unit_test(test_untimed), cmocka_unit_test(test_compressed),
	    cmocka_unit_test(test_dir),	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_bins),    cmocka_unit_test(test_total),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
