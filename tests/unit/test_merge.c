// SPDX-License-Identifier: GPL-2.0
/*
 * Merge: shard directories built by hand (header.data with a synthesized
 * prologue, shards of SAMPLE and LOST records with consistent PASS
 * watermarks, tail.raw) merged and read back record by record. perf itself
 * is the oracle on one output when /usr/bin/perf exists.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "recorder/codec/zunpass.h"
#include "recorder/header/dso_hits.h"
#include "recorder/merge/merge.h"
#include "recorder/perfdata/pfile.h"
#include "recorder/perfdata/pfile_feat.h"
#include "recorder/perfdata/pfile_sample.h"
#include "recorder/perfdata/pfile_write.h"
#include "recorder/perfdata/shard.h"
#include "recorder/perfdata/shard_reader.h"
#include "recorder/perfdata/shard_tail.h"
#include "unit_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PERF_BIN "/usr/bin/perf"
#define ST                                                                                         \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_PERIOD)
#define PID 4242
#define T0 5000000000ULL
#define STEP 4000000ULL /* ns between passes */
/* Shard s runs s/3 of a pass late: runs straddle the other shards' watermarks. */
#define PHASE(s) ((s)*STEP / 3)
#define MAP_START 0x400000ULL
#define MAP_LEN 0x10000ULL
#define MAP_FILE "/usr/bin/true"
#define REC_MAX 128
#define MAX_SHARDS 8

static uint64_t ev0_ids[2] = {101, 102};
static uint64_t ev1_ids[2] = {201, 202};

/* One record of the scenario, where it goes and what the merge must do with it. */
struct trec {
	unsigned char b[REC_MAX];
	uint16_t size;
	uint64_t time;
	int shard, pass, cpu;
	bool drop; /* the merge must not output it */
};

struct scen {
	char dir[64];
	char out[128];
	int dirfd;
	struct pfile_idlayout l;
	struct trec *r;
	size_t nr, cap;
	/* header.data records and tail.raw records, in file order */
	unsigned char pro[512], tail[256];
	size_t pro_len, nr_pro, tail_len, nr_tail;
	int nr_shards, nr_passes;
	int idle_shard;			     /* empty passes only, -1 = none */
	int swap_shard, swap_pass, swap_cpu; /* out-of-order chunk, swap_shard -1 = none */
	uint64_t samples, lost, lost_events, lost_samples;
	uint64_t per_event[2];
	uint64_t wtime[MAX_SHARDS][4]; /* hand-made scenarios: wtime of each pass */
};

static int setup(void **state)
{
	struct scen *sc = calloc(1, sizeof(*sc));

	if (!sc)
		return -1;
	snprintf(sc->dir, sizeof(sc->dir), "/tmp/test_merge.XXXXXX");
	if (!mkdtemp(sc->dir))
		return -1;
	sc->dirfd = open(sc->dir, O_RDONLY | O_DIRECTORY);
	if (sc->dirfd < 0)
		return -1;
	snprintf(sc->out, sizeof(sc->out), "%s/out.data", sc->dir);
	pfile_idlayout__init(&sc->l, ST, true);
	sc->idle_shard = -1;
	sc->swap_shard = -1;
	*state = sc;
	return 0;
}

static int teardown(void **state)
{
	struct scen *sc = *state;

	close(sc->dirfd);
	unit_rmtree(sc->dir);
	free(sc->r);
	free(sc);
	return 0;
}

/* ---- records ---- */

static struct trec *trec_new(struct scen *sc, int shard, int pass, int cpu, uint64_t time)
{
	struct trec *t;

	if (sc->nr == sc->cap) {
		sc->cap = sc->cap ? 2 * sc->cap : 256;
		sc->r = realloc(sc->r, sc->cap * sizeof(*sc->r));
		assert_non_null(sc->r);
	}
	t = &sc->r[sc->nr++];
	memset(t, 0, sizeof(*t));
	t->shard = shard;
	t->pass = pass;
	t->cpu = cpu;
	t->time = time;
	return t;
}

static void put_hdr(unsigned char *b, uint32_t type, uint16_t misc, uint16_t size)
{
	struct perf_event_header h = {.type = type, .misc = misc, .size = size};

	memcpy(b, &h, sizeof(h));
}

static void put_u64(unsigned char *b, uint64_t v) { memcpy(b, &v, 8); }

static void put_pid(unsigned char *b, uint32_t pid, uint32_t tid)
{
	memcpy(b, &pid, 4);
	memcpy(b + 4, &tid, 4);
}

/* SAMPLE {IDENTIFIER, IP, pid/tid, TIME, PERIOD}: 48 bytes; @tag in the period. */
static size_t make_sample(unsigned char *b, uint64_t id, uint64_t time, uint64_t tag)
{
	put_hdr(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 48);
	put_u64(b + 8, id);
	put_u64(b + 16, MAP_START + 0x100 + (tag % 512) * 8);
	put_pid(b + 24, PID, PID);
	put_u64(b + 32, time);
	put_u64(b + 40, 1000 + tag);
	return 48;
}

static struct trec *add_sample(struct scen *sc, int shard, int pass, int cpu, uint64_t time,
			       uint64_t id)
{
	struct trec *t = trec_new(sc, shard, pass, cpu, time);

	t->size = make_sample(t->b, id, time, sc->nr);
	if (id / 100 == 1 || id / 100 == 2) {
		sc->samples++;
		sc->per_event[id / 100 - 1]++;
	}
	return t;
}

/* LOST {id, lost} + sample_id trailer */
static struct trec *add_lost(struct scen *sc, int shard, int pass, int cpu, uint64_t time,
			     uint64_t id, uint64_t lost)
{
	struct trec *t = trec_new(sc, shard, pass, cpu, time);
	size_t n;

	put_u64(t->b + 8, id);
	put_u64(t->b + 16, lost);
	n = 24 + pfile_idlayout__write_trailer(&sc->l, t->b + 24, PID, PID, time, id, cpu);
	put_hdr(t->b, PERF_RECORD_LOST, 0, n);
	t->size = n;
	sc->lost += lost;
	sc->lost_events++;
	return t;
}

/* The synthesized prologue: COMM and MMAP2 of the test process, time 0. */
static void make_prologue(struct scen *sc)
{
	unsigned char *b = sc->pro;
	size_t n, off = 0;

	put_pid(b + 8, PID, PID);
	memcpy(b + 16, "testprg\0", 8);
	n = 24 + pfile_idlayout__write_trailer(&sc->l, b + 24, PID, PID, 0, ev0_ids[0], 0);
	put_hdr(b, PERF_RECORD_COMM, 0, n);
	off += n;

	b = sc->pro + off;
	memset(b, 0, 128);
	put_pid(b + 8, PID, PID);
	put_u64(b + 16, MAP_START);
	put_u64(b + 24, MAP_LEN);
	put_u64(b + 32, 0);
	/* maj, min, ino, ino_generation stay 0 */
	b[64] = 5; /* prot: r-x */
	b[68] = 2; /* flags: MAP_PRIVATE */
	memcpy(b + 72, MAP_FILE, strlen(MAP_FILE) + 1);
	n = 72 + 16;
	n += pfile_idlayout__write_trailer(&sc->l, b + n, PID, PID, 0, ev0_ids[0], 0);
	put_hdr(b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, n);
	off += n;
	sc->pro_len = off;
	sc->nr_pro = 2;
}

/* tail.raw: one LOST_SAMPLES, as the session writes after recording. */
static void make_tail(struct scen *sc)
{
	unsigned char *b = sc->tail;
	size_t n;

	put_u64(b + 8, 3);
	n = 16 + pfile_idlayout__write_trailer(&sc->l, b + 16, 0, 0, 0, ev0_ids[0], 0);
	put_hdr(b, PERF_RECORD_LOST_SAMPLES, 0, n);
	sc->tail_len = n;
	sc->nr_tail = 1;
	sc->lost_samples = 3;
}

/*
 * The usual scenario: @nr_shards shards of @nr_passes passes, 2 CPUs each,
 * @per_chunk (< 250) samples per ring per pass. Pass k of shard s holds
 * times in [T0 + PHASE(s) + k*STEP, T0 + PHASE(s) + (k+1)*STEP) and its
 * wtime is the end of that window, so the watermarks hold with any slack.
 * Times interleave across shards and are unique. One LOST record in
 * shard 0, pass 1.
 */
static void gen(struct scen *sc, int nr_shards, int nr_passes, int per_chunk)
{
	sc->nr_shards = nr_shards;
	sc->nr_passes = nr_passes;
	make_prologue(sc);
	make_tail(sc);
	for (int s = 0; s < nr_shards; s++) {
		if (s == sc->idle_shard)
			continue;
		for (int k = 0; k < nr_passes; k++)
			for (int c = 0; c < 2; c++)
				for (int j = 0; j < per_chunk; j++) {
					uint64_t t = T0 + PHASE(s) + k * STEP +
						     (j * 16 + s * 2 + c) * 1000 + 1;
					uint64_t *ids = (s + c) % 2 ? ev1_ids : ev0_ids;

					add_sample(sc, s, k, c, t, ids[c]);
				}
	}
	if (nr_passes > 1 && sc->idle_shard != 0)
		add_lost(sc, 0, 1, 0, T0 + STEP + 500, ev0_ids[0], 7);
}

/* ---- writing the directory ---- */

static void write_header(struct scen *sc, bool write_data)
{
	struct pfile_event ev[2] = {
	    {.name = "cpu-clock", .ids = ev0_ids, .nr_ids = 2},
	    {.name = "task-clock", .ids = ev1_ids, .nr_ids = 2},
	};
	struct pfile_featset fs = {0};
	struct pfile_header h;
	uint64_t data_off, end;
	int fd;

	for (int i = 0; i < 2; i++) {
		struct perf_event_attr *a = &ev[i].attr;

		a->type = PERF_TYPE_SOFTWARE;
		a->config = i ? PERF_COUNT_SW_TASK_CLOCK : PERF_COUNT_SW_CPU_CLOCK;
		a->size = sizeof(*a);
		a->sample_period = 100000;
		a->sample_type = ST;
		a->sample_id_all = 1;
		a->exclude_kernel = 1;
	}
	fd = openat(sc->dirfd, "header.data", O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	pfile_header__init(&h);
	assert_int_equal(pfile__write_attrs(fd, PFILE_HEADER_SIZE, ev, 2, &h.attrs, &data_off), 0);
	h.data.offset = data_off;
	h.data.size = write_data ? sc->pro_len : 0;
	assert_int_equal(pwrite(fd, sc->pro, h.data.size, data_off), (ssize_t)h.data.size);
	assert_int_equal(pfile_feat__string(&fs, PFILE_FEAT_HOSTNAME, "testhost"), 0);
	assert_int_equal(pfile_feat__event_desc(&fs, ev, 2), 0);
	assert_int_equal(pfile_feat__nrcpus(&fs, 2, 2), 0);
	assert_int_equal(pfile__write_features(fd, data_off + h.data.size, &fs, h.features, &end),
			 0);
	assert_int_equal(pfile__write_header(fd, &h), 0);
	close(fd);
	pfile_featset__release(&fs);
}

static int time_cmp(const void *a, const void *b)
{
	const struct trec *const *x = a, *const *y = b;

	if ((*x)->time != (*y)->time)
		return (*x)->time < (*y)->time ? -1 : 1;
	return *x < *y ? -1 : *x > *y;
}

/* Appends one ring's records for pass @k of shard @s: returns bytes. */
static size_t chunk_bytes(struct scen *sc, int s, int k, int c, unsigned char *buf)
{
	struct trec **v = calloc(sc->nr ? sc->nr : 1, sizeof(*v));
	size_t n = 0, len = 0;

	assert_non_null(v);
	for (size_t i = 0; i < sc->nr; i++)
		if (sc->r[i].shard == s && sc->r[i].pass == k && sc->r[i].cpu == c)
			v[n++] = &sc->r[i];
	qsort(v, n, sizeof(*v), time_cmp);
	if (s == sc->swap_shard && k == sc->swap_pass && c == sc->swap_cpu && n >= 3) {
		/* an NMI sample published inside an interrupted, older record */
		struct trec *t = v[1];

		v[1] = v[2];
		v[2] = t;
	}
	for (size_t i = 0; i < n; i++) {
		memcpy(buf + len, v[i]->b, v[i]->size);
		len += v[i]->size;
	}
	free(v);
	return len;
}

static void write_shard(struct scen *sc, int s)
{
	size_t cap = (sc->nr + 1) * REC_MAX;
	unsigned char *data[2];
	struct shard_chunk_rec ch[2];
	struct shard sh;

	data[0] = malloc(cap);
	data[1] = malloc(cap);
	assert_non_null(data[0]);
	assert_non_null(data[1]);
	assert_int_equal(shard__create(&sh, sc->dirfd, s, 0, 0, NULL), 0);
	for (int k = 0; k < sc->nr_passes; k++) {
		struct iovec iov[8];
		uint64_t payload = 0;
		int nr_iov = 1;

		for (int c = 0; c < 2; c++) {
			size_t len = chunk_bytes(sc, s, k, c, data[c]);

			if (!len)
				continue;
			shard_chunk__init(&ch[c], c, len);
			iov[nr_iov++] = (struct iovec){&ch[c], sizeof(ch[c])};
			if (len > 64) {
				/* the ring wrapped in the middle of a record */
				iov[nr_iov++] = (struct iovec){data[c], 60};
				iov[nr_iov++] = (struct iovec){data[c] + 60, len - 60};
			} else {
				iov[nr_iov++] = (struct iovec){data[c], len};
			}
			payload += sizeof(ch[c]) + len;
		}
		uint64_t wtime =
		    k < 4 && sc->wtime[s][k] ? sc->wtime[s][k] : T0 + PHASE(s) + (k + 1) * STEP;

		assert_int_equal(shard__write_pass(&sh, wtime, iov, nr_iov, payload), 0);
	}
	shard__close(&sh);
	free(data[0]);
	free(data[1]);
}

static void write_tail(struct scen *sc)
{
	struct shard_tail t;

	assert_int_equal(shard_tail__create(&t, sc->dirfd, "tail.raw", NULL, sc->tail_len), 0);
	assert_int_equal(shard_tail__finish(&t, sc->tail, sc->tail_len), 0);
	shard_tail__close(&t);
}

static void write_dir(struct scen *sc)
{
	write_header(sc, true);
	for (int s = 0; s < sc->nr_shards; s++)
		write_shard(sc, s);
	if (sc->tail_len)
		write_tail(sc);
}

/* ---- running and checking ---- */

static int run_merge(struct scen *sc, bool recover, bool build_ids, uint64_t slack,
		     struct merge_stats *st, char *err, size_t errlen)
{
	struct merge_opts o = {
	    .dir = sc->dir,
	    .output = sc->out,
	    .build_ids = build_ids,
	    .dec = &zunpass__ops,
	    .hits = &dso_hits__ops,
	    .recover = recover,
	    .slack_ns = slack,
	};

	return merge__run(&o, st, err, errlen);
}

/* Next record of @r, FINISHED_ROUNDs counted and skipped. */
static int next_rec(struct pfile_reader *r, const struct perf_event_header **h, unsigned *rounds)
{
	size_t len;
	uint64_t off;
	int ret;

	while ((ret = pfile_reader__next(r, h, &len, &off)) > 0) {
		assert_int_equal(len, (*h)->size);
		if ((*h)->type != PFILE_REC_FINISHED_ROUND)
			break;
		assert_int_equal((*h)->size, 8);
		(*rounds)++;
	}
	return ret;
}

/* @n records of @buf must come next, byte for byte. */
static void expect_raw(struct pfile_reader *r, const unsigned char *buf, size_t n, unsigned *rounds,
		       const char *what)
{
	const struct perf_event_header *h;
	size_t off = 0;

	for (size_t i = 0; i < n; i++) {
		struct perf_event_header want;

		memcpy(&want, buf + off, sizeof(want));
		if (next_rec(r, &h, rounds) != 1)
			fail_msg("%s record %zu missing", what, i);
		if (h->size != want.size || memcmp(h, buf + off, want.size))
			fail_msg("%s record %zu differs (type %u, want %u)", what, i, h->type,
				 want.type);
		off += want.size;
	}
}

/* A record as a round-rule reader holds it: its time, bytes and arrival. */
struct qrec {
	uint64_t time;
	size_t seq;
	const struct perf_event_header *h;
};

static int qrec_cmp(const void *a, const void *b)
{
	const struct qrec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Same time, then same bytes: the order a multiset comparison needs. */
static int qrec_bytes_cmp(const void *a, const void *b)
{
	const struct qrec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->h->size != y->h->size)
		return x->h->size < y->h->size ? -1 : 1;
	return memcmp(x->h, y->h, x->h->size);
}

/*
 * Reads @n shard records (with their FINISHED_ROUNDs) as perf's ordered
 * events and the linux-perf-data sorter do: at each round, what is not
 * newer than the newest record seen before the previous round is
 * delivered in time order; a record older than one delivered is out of
 * order (perf warns). Copies of the headers go to @got, in delivery order.
 */
static void read_rounds(struct pfile_reader *r, struct scen *sc, size_t n, struct qrec *got,
			unsigned *rounds)
{
	struct qrec *q = calloc(n ? n : 1, sizeof(*q));
	uint64_t prev_max = 0, cur_max = 0, flushed = 0;
	size_t nq = 0, ngot = 0, len;
	const struct perf_event_header *h;
	uint64_t off;

	assert_non_null(q);
	for (size_t seen = 0; seen < n;) {
		if (pfile_reader__next(r, &h, &len, &off) != 1)
			fail_msg("shard record %zu of %zu missing", seen, n);
		if (h->type == PFILE_REC_FINISHED_ROUND) {
			size_t k = 0;

			(*rounds)++;
			qsort(q, nq, sizeof(*q), qrec_cmp);
			while (k < nq && q[k].time <= prev_max)
				got[ngot++] = q[k++];
			if (k)
				flushed = q[k - 1].time;
			memmove(q, q + k, (nq - k) * sizeof(*q));
			nq -= k;
			prev_max = cur_max;
			continue;
		}
		struct perf_event_header *c = malloc(h->size);

		assert_non_null(c);
		memcpy(c, h, h->size);
		q[nq] = (struct qrec){.seq = seen++, .h = c};
		assert_true(pfile_idlayout__time(&sc->l, c, &q[nq].time));
		if (q[nq].time < flushed)
			fail_msg("record at time %llu comes after the round that delivered %llu",
				 (unsigned long long)q[nq].time, (unsigned long long)flushed);
		cur_max = q[nq].time > cur_max ? q[nq].time : cur_max;
		nq++;
	}
	qsort(q, nq, sizeof(*q), qrec_cmp);
	memcpy(got + ngot, q, nq * sizeof(*q));
	free(q);
}

/*
 * The output must be: prologue, every kept shard record once, delivered in
 * time order by a reader of rounds (equal to the sorted input as a set:
 * records of one time have no order), tail; the shard records end with a
 * round.
 */
static void check_output(struct scen *sc, unsigned *rounds_out)
{
	struct qrec *want = calloc(sc->nr ? sc->nr : 1, sizeof(*want));
	struct qrec *got = calloc(sc->nr ? sc->nr : 1, sizeof(*got));
	const struct perf_event_header *h;
	struct pfile_reader r;
	struct pfile pf;
	unsigned rounds = 0;
	size_t n = 0;
	char err[256];

	assert_non_null(want);
	assert_non_null(got);
	for (size_t i = 0; i < sc->nr; i++)
		if (!sc->r[i].drop)
			want[n++] = (struct qrec){sc->r[i].time, i, (const void *)sc->r[i].b};

	if (pfile__open(&pf, sc->out, err, sizeof(err)))
		fail_msg("pfile__open: %s", err);
	assert_int_equal(pf.nr_events, 2);
	assert_true(pfile_featset__has(&pf.feats, PFILE_FEAT_HOSTNAME));
	assert_int_equal(pfile_reader__init(&r, pf.fd, pf.hdr.data.offset, pf.hdr.data.size, 0), 0);
	expect_raw(&r, sc->pro, sc->nr_pro, &rounds, "prologue");
	read_rounds(&r, sc, n, got, &rounds);
	for (size_t i = 1; i < n; i++)
		if (got[i].time < got[i - 1].time)
			fail_msg("delivered record %zu: time %llu after %llu", i,
				 (unsigned long long)got[i].time, (unsigned long long)got[i - 1].time);
	qsort(want, n, sizeof(*want), qrec_bytes_cmp);
	qsort(got, n, sizeof(*got), qrec_bytes_cmp);
	for (size_t i = 0; i < n; i++)
		if (qrec_bytes_cmp(&want[i], &got[i]))
			fail_msg("record %zu (time %llu) is not the expected one (time %llu)", i,
				 (unsigned long long)got[i].time, (unsigned long long)want[i].time);
	/* the shard records end with a round, before the tail */
	{
		size_t len;
		uint64_t off;

		assert_int_equal(pfile_reader__next(&r, &h, &len, &off), 1);
		assert_int_equal(h->type, PFILE_REC_FINISHED_ROUND);
		rounds++;
	}
	expect_raw(&r, sc->tail, sc->nr_tail, &rounds, "tail");
	assert_int_equal(next_rec(&r, &h, &rounds), 0);
	pfile_reader__release(&r);
	pfile__close(&pf);
	for (size_t i = 0; i < n; i++)
		free((void *)got[i].h);
	free(want);
	free(got);
	if (rounds_out)
		*rounds_out = rounds;
}

static void check_stats(struct scen *sc, const struct merge_stats *st)
{
	uint64_t first = UINT64_MAX, last = 0;

	for (size_t i = 0; i < sc->nr; i++) {
		const struct trec *t = &sc->r[i];

		if (t->drop || ((struct perf_event_header *)t->b)->type != PERF_RECORD_SAMPLE)
			continue;
		first = t->time < first ? t->time : first;
		last = t->time > last ? t->time : last;
	}
	assert_int_equal(st->samples, sc->samples);
	assert_int_equal(st->lost_records, sc->lost);
	assert_int_equal(st->lost_events, sc->lost_events);
	assert_int_equal(st->lost_samples, sc->lost_samples);
	assert_int_equal(st->nr_events, 2);
	assert_non_null(st->samples_per_event);
	assert_int_equal(st->samples_per_event[0], sc->per_event[0]);
	assert_int_equal(st->samples_per_event[1], sc->per_event[1]);
	if (sc->samples) {
		assert_int_equal(st->first_time, first);
		assert_int_equal(st->last_time, last);
	}
	assert_int_equal(st->late, 0);
}

/* Bytes of the shards' passes after their PASS records: what the merge reads in. */
static uint64_t shard_payload(struct scen *sc)
{
	uint64_t sum = 0;

	for (int s = 0; s < sc->nr_shards; s++) {
		char name[32];
		struct stat sb;

		snprintf(name, sizeof(name), "shard.%d", s);
		assert_int_equal(fstatat(sc->dirfd, name, &sb, 0), 0);
		sum +=
		    sb.st_size - SHARD_HEADER_SIZE - sc->nr_passes * sizeof(struct shard_pass_rec);
	}
	return sum;
}

static bool exists(const char *path)
{
	struct stat sb;

	return !lstat(path, &sb);
}

/* Runs perf with stdout and stderr captured; returns stdout, *err_out stderr. */
static char *run_perf(struct scen *sc, const char *args, char **err_out)
{
	char *out;

	if (unit_run(sc->dir, &out, err_out, PERF_BIN " %s -i %s", args, sc->out) != 0)
		fail_msg(PERF_BIN " %s -i %s failed: %s", args, sc->out, *err_out);
	unit_run_unlink(sc->dir);
	return out;
}

/*
 * perf script reports PERF_RECORD_LOST records on stderr ("Processed N
 * events and lost M chunks!") and LOST_SAMPLES over 5% ("Processed N
 * samples and lost X%!"): those warnings are expected, nothing else.
 */
static bool only_lost_warning(const char *err, uint64_t lost_events, uint64_t lost_samples)
{
	static const char *const lines[] = {"Warning:", "Check IO/CPU overload!"};
	unsigned long long n, m;
	const char *p = err;
	double pct;
	int used;

	if (!lost_events && !lost_samples)
		return !err[0];
	while (*p) {
		size_t i;

		while (*p == '\n')
			p++;
		if (!*p)
			break;
		for (i = 0; i < 2; i++)
			if (!strncmp(p, lines[i], strlen(lines[i])))
				break;
		if (i < 2) {
			p += strlen(lines[i]);
		} else if (sscanf(p, "Processed %llu events and lost %llu chunks!%n", &n, &m,
				  &used) == 2 &&
			   m == lost_events) {
			p += used;
		} else if (sscanf(p, "Processed %llu samples and lost %lf%%!%n", &n, &pct, &used) ==
			       2 &&
			   lost_samples && pct > 0) {
			p += used;
		} else {
			return false;
		}
		if (*p && *p != '\n')
			return false;
	}
	return true;
}

static void perf_oracle(struct scen *sc)
{
	char *out, *err;

	if (access(PERF_BIN, X_OK))
		return;
	out = run_perf(sc, "report --stats", &err);
	if (err[0])
		fail_msg("perf report --stats wrote to stderr:\n%s", err);
	{
		/* perf aligns the count: compare without the spaces */
		char *p = strstr(out, "SAMPLE events:");

		assert_non_null(p);
		p += strlen("SAMPLE events:");
		while (*p == ' ')
			p++;
		assert_int_equal(strtoull(p, NULL, 10), sc->samples);
		p = strstr(out, "LOST events:");
		assert_non_null(p);
		p += strlen("LOST events:");
		assert_int_equal(strtoull(p, NULL, 10), sc->lost_events);
	}
	assert_null(strstr(out, "out of order"));
	free(out);
	free(err);

	out = run_perf(sc, "script -F comm,pid,time,event", &err);
	if (!only_lost_warning(err, sc->lost_events, sc->lost_samples))
		fail_msg("perf script wrote to stderr:\n%s", err);
	assert_int_equal(unit_count(out, "\n"), sc->samples);
	assert_non_null(strstr(out, "testprg"));
	free(out);
	free(err);
}

/* ---- tests ---- */

/* 3 shards, 20 passes, 2 CPUs: enough data for several rounds and buffer flushes. */
static void test_three_shards(void **state)
{
	struct scen *sc = *state;
	struct merge_stats st;
	unsigned rounds;
	char err[256], partial[160];
	struct pfile pf;

	gen(sc, 3, 20, 200);
	write_dir(sc);
	if (run_merge(sc, false, true, 1000, &st, err, sizeof(err)))
		fail_msg("merge: %s", err);
	assert_string_equal(err, "");
	check_output(sc, &rounds);
	check_stats(sc, &st);
	assert_int_equal(st.records, sc->nr + sc->nr_pro + sc->nr_tail);
	assert_int_equal(st.truncated_shards, 0);
	assert_true(rounds >= 4); /* ~1.2 MB of records at 256 KiB per round */
	assert_int_equal(st.rounds, rounds);
	assert_int_equal(st.bytes_in, shard_payload(sc));
	assert_int_equal(st.nr_build_ids, 1);
	snprintf(partial, sizeof(partial), "%s.partial", sc->out);
	assert_false(exists(partial));
	assert_int_equal(pfile__open(&pf, sc->out, err, sizeof(err)), 0);
	assert_true(pfile_featset__has(&pf.feats, PFILE_FEAT_SAMPLE_TIME));
	assert_true(pfile_featset__has(&pf.feats, PFILE_FEAT_BUILD_ID));
	assert_int_equal(pf.hdr.data.offset + pf.hdr.data.size, st.bytes_out);
	pfile__close(&pf);
	perf_oracle(sc);
	merge_stats__release(&st);

	/* the default slack (10 ms, 2.5 passes) holds more in memory, same output */
	unlink(sc->out);
	if (run_merge(sc, false, true, 0, &st, err, sizeof(err)))
		fail_msg("merge: %s", err);
	check_output(sc, NULL);
	check_stats(sc, &st);
	merge_stats__release(&st);
}

static void test_out_of_order_chunk(void **state)
{
	struct scen *sc = *state;
	struct merge_stats st;
	char err[256];

	sc->swap_shard = 1;
	sc->swap_pass = 2;
	sc->swap_cpu = 1;
	gen(sc, 3, 4, 6);
	write_dir(sc);
	if (run_merge(sc, false, false, 1000, &st, err, sizeof(err)))
		fail_msg("merge: %s", err);
	check_output(sc, NULL);
	check_stats(sc, &st);
	merge_stats__release(&st);
}

/* A shard with only empty passes, and one with no pass at all, never hold others back. */
static void test_idle_shard(void **state)
{
	struct scen *sc = *state;
	struct merge_stats st;
	struct shard sh;
	char err[256];

	sc->idle_shard = 1;
	gen(sc, 3, 6, 4);
	write_dir(sc);
	assert_int_equal(shard__create(&sh, sc->dirfd, 3, 0, 0, NULL), 0);
	shard__close(&sh);
	if (run_merge(sc, false, false, 1000, &st, err, sizeof(err)))
		fail_msg("merge: %s", err);
	check_output(sc, NULL);
	check_stats(sc, &st);
	merge_stats__release(&st);
}

/* Only header.data: the prologue, one round, the tail. */
static void test_no_shards(void **state)
{
	struct scen *sc = *state;
	struct merge_stats st;
	char err[256];

	gen(sc, 0, 0, 0);
	write_dir(sc);
	if (run_merge(sc, false, true, 0, &st, err, sizeof(err)))
		fail_msg("merge: %s", err);
	check_output(sc, NULL);
	assert_int_equal(st.samples, 0);
	assert_int_equal(st.first_time, 0);
	merge_stats__release(&st);
}

static void test_truncated_shard(void **state)
{
	struct scen *sc = *state;
	struct merge_stats st;
	char err[256], path[128];
	char *before, *after;
	size_t len, len2;
	int fd;

	gen(sc, 3, 4, 5);
	write_dir(sc);
	/* cut shard.2 inside its very last record (ring 1 of the last pass) */
	snprintf(path, sizeof(path), "%s/shard.2", sc->dir);
	before = unit_slurp(path, &len);
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, len - 48 + 12), 0);
	close(fd);
	free(before);
	before = unit_slurp(path, &len);
	{
		/* the lost record: the latest of shard 2, pass 3, cpu 1 */
		struct trec *last = NULL;

		for (size_t i = 0; i < sc->nr; i++) {
			struct trec *t = &sc->r[i];

			if (t->shard == 2 && t->pass == 3 && t->cpu == 1 &&
			    (!last || t->time > last->time))
				last = t;
		}
		assert_non_null(last);
		last->drop = true;
		sc->samples--;
		sc->per_event[(2 + 1) % 2]--;
	}

	assert_int_equal(run_merge(sc, false, false, 1000, &st, err, sizeof(err)), -EBADMSG);
	if (!strstr(err, "--recover") || !strstr(err, "shard.2"))
		fail_msg("error does not point at shard.2 and --recover: \"%s\"", err);
	assert_false(exists(sc->out));
	{
		char partial[160];

		snprintf(partial, sizeof(partial), "%s.partial", sc->out);
		assert_false(exists(partial));
	}
	after = unit_slurp(path, &len2);
	assert_int_equal(len2, len);
	assert_memory_equal(before, after, len);
	free(after);
	merge_stats__release(&st);

	err[0] = 0;
	if (run_merge(sc, true, false, 1000, &st, err, sizeof(err)))
		fail_msg("merge --recover: %s", err);
	assert_int_equal(st.truncated_shards, 1);
	check_output(sc, NULL);
	check_stats(sc, &st);
	after = unit_slurp(path, &len2);
	assert_int_equal(len2, len);
	assert_memory_equal(before, after, len);
	free(after);
	free(before);
	merge_stats__release(&st);
}

/* File offset in shard @s of the records of chunk @c of pass @k. */
static uint64_t chunk_off(struct scen *sc, int s, int k, int c)
{
	struct shard_reader r;
	struct shard_pass p;
	const unsigned char *data;
	size_t pos = 0, len;
	uint32_t cpu;
	char name[32], err[128];
	uint64_t off;

	snprintf(name, sizeof(name), "shard.%d", s);
	assert_int_equal(shard_reader__open(&r, sc->dirfd, name, err, sizeof(err)), 0);
	for (int i = 0; i <= k; i++) {
		if (i)
			shard_pass__release(&p);
		assert_int_equal(shard_reader__next_pass(&r, &p, err, sizeof(err)), 1);
	}
	for (int i = 0; i <= c; i++)
		assert_int_equal(shard_pass__next_chunk(&p, &pos, &cpu, &data, &len), 1);
	off = p.file_off + sizeof(struct shard_pass_rec) + (data - p.buf);
	shard_pass__release(&p);
	shard_reader__close(&r);
	return off;
}

/* Overwrites @len bytes at @off of shard @s. */
static void poke(struct scen *sc, int s, uint64_t off, const void *v, size_t len)
{
	char path[160];
	int fd;

	snprintf(path, sizeof(path), "%s/shard.%d", sc->dir, s);
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, v, len, off), (ssize_t)len);
	close(fd);
}

/* Marks the samples of shard @s, pass @k (ring @cpu; -1 all) as dropped, and uncounts them. */
static void drop_samples(struct scen *sc, int s, int k, int cpu)
{
	for (size_t i = 0; i < sc->nr; i++) {
		struct trec *t = &sc->r[i];
		uint64_t id;

		if (t->shard != s || t->pass != k || (cpu >= 0 && t->cpu != cpu) || t->drop)
			continue;
		memcpy(&id, t->b + 8, 8);
		t->drop = true;
		sc->samples--;
		sc->per_event[id / 100 - 1]--;
	}
}

/*
 * Damage in a chunk of shard.1's pass 1 (ring 1; 4 records of 48 bytes).
 * Malformed framing (a record length no walk can follow) makes a corrupt
 * chunk: the records before it are kept and the shard ends there. Only a
 * damaged record (unknown type, framing sound) drops its pass alone. The
 * framing's verdict wins when a chunk has both, whichever comes first: the
 * merge's one walk (check and framing together) must decide as the two
 * walks did. So does a pair of COMPRESSED records of 44 and 52 bytes in
 * place of the first two: the checker takes COMPRESSED sizes unaligned,
 * the walk does not.
 */
enum damage { BAD_FRAME, BAD_TYPE, TYPE_THEN_FRAME, FRAME_THEN_TYPE, ODD_COMPRESSED };

static void corrupt_chunk_case(struct scen *sc, enum damage d)
{
	struct merge_stats st;
	char err[256];
	uint64_t off;
	uint16_t size = 44; /* not 8-aligned */
	uint32_t type = 100;
	bool bad_frame = d != BAD_TYPE;

	gen(sc, 3, 3, 4);
	write_dir(sc);
	off = chunk_off(sc, 1, 1, 1);
	if (d == BAD_TYPE || d == TYPE_THEN_FRAME || d == FRAME_THEN_TYPE)
		poke(sc, 1, off + (d == TYPE_THEN_FRAME ? 0 : 2 * 48), &type, sizeof(type));
	if (d == BAD_FRAME || d == TYPE_THEN_FRAME || d == FRAME_THEN_TYPE)
		poke(sc, 1, off + (d == TYPE_THEN_FRAME ? 2 * 48 : 0) + 6, &size, sizeof(size));
	if (d == ODD_COMPRESSED) {
		struct perf_event_header h[2] = {{PFILE_REC_COMPRESSED, 0, 44},
						 {PFILE_REC_COMPRESSED, 0, 52}};

		poke(sc, 1, off, &h[0], sizeof(h[0]));
		poke(sc, 1, off + 44, &h[1], sizeof(h[1]));
	}
	assert_int_equal(run_merge(sc, false, false, 1000, &st, err, sizeof(err)), -EBADMSG);
	if (!strstr(err, "shard.1") ||
	    !strstr(err, bad_frame ? "corrupt chunk in pass" : "damaged record at offset"))
		fail_msg("merge of damage %d: \"%s\"", d, err);
	merge_stats__release(&st);
	if (bad_frame) {
		drop_samples(sc, 1, 1, 1);
		drop_samples(sc, 1, 2, -1);
	} else {
		drop_samples(sc, 1, 1, -1);
	}
	if (run_merge(sc, true, false, 1000, &st, err, sizeof(err)))
		fail_msg("merge --recover: %s", err);
	assert_int_equal(st.damaged_shards, 1);
	assert_int_equal(st.dropped_passes, bad_frame ? 0 : 1);
	check_output(sc, NULL);
	check_stats(sc, &st);
	merge_stats__release(&st);
}

static void test_corrupt_chunk(void **state)
{
	corrupt_chunk_case(*state, BAD_FRAME);
}

static void test_damaged_record(void **state)
{
	corrupt_chunk_case(*state, BAD_TYPE);
}

static void test_corrupt_chunk_after_damage(void **state)
{
	corrupt_chunk_case(*state, TYPE_THEN_FRAME);
}

static void test_damage_after_corrupt_frame(void **state)
{
	corrupt_chunk_case(*state, FRAME_THEN_TYPE);
}

static void test_odd_compressed_in_chunk(void **state)
{
	corrupt_chunk_case(*state, ODD_COMPRESSED);
}

/* More shards than passes read ahead (AHEAD_PASSES): the loader picks by watermark. */
static void test_many_shards(void **state)
{
	struct scen *sc = *state;
	struct merge_stats st;
	char err[256];

	gen(sc, MAX_SHARDS, 4, 5);
	write_dir(sc);
	if (run_merge(sc, false, true, 1000, &st, err, sizeof(err)))
		fail_msg("merge: %s", err);
	check_output(sc, NULL);
	check_stats(sc, &st);
	assert_int_equal(st.bytes_in, shard_payload(sc));
	merge_stats__release(&st);
	perf_oracle(sc);
}

/*
 * Records whose id matches no attr make perf 6.1 abort ("Can't parse
 * sample"): samples and, with sample_id_all, every other kernel record.
 * Dropped, counted, reported; id 0 (synthesized) passes.
 */
static void test_unknown_id(void **state)
{
	struct scen *sc = *state;
	struct merge_stats st;
	struct trec *t;
	char err[256];

	gen(sc, 2, 3, 4);
	t = add_sample(sc, 1, 1, 0, T0 + PHASE(1) + STEP + 777, 999);
	t->drop = true;
	t = add_lost(sc, 1, 2, 1, T0 + PHASE(1) + 2 * STEP + 777, 998, 5);
	t->drop = true;
	sc->lost -= 5;
	sc->lost_events--;
	add_lost(sc, 0, 2, 1, T0 + 2 * STEP + 778, 0, 2); /* id 0: kept */
	write_dir(sc);
	assert_int_equal(run_merge(sc, false, false, 1000, &st, err, sizeof(err)), 0);
	if (!strstr(err, "dropped 2 "))
		fail_msg("no word of the dropped records: \"%s\"", err);
	check_output(sc, NULL);
	check_stats(sc, &st);
	merge_stats__release(&st);
	perf_oracle(sc);
}

/* When publishing fails, the error says so (not the dropped-records note). */
static void test_publish_error(void **state)
{
	struct scen *sc = *state;
	struct merge_stats st;
	char err[256], path[200];
	struct trec *t;
	int fd;

	gen(sc, 1, 2, 2);
	t = add_sample(sc, 0, 1, 0, T0 + STEP + 777, 999);
	t->drop = true;
	write_dir(sc);
	/* out.data exists and out.data.old is a non-empty directory: rename fails */
	fd = open(sc->out, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
	snprintf(path, sizeof(path), "%s.old", sc->out);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s.old/keep", sc->out);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_true(run_merge(sc, false, false, 0, &st, err, sizeof(err)) < 0);
	merge_stats__release(&st);
	if (strstr(err, "dropped") || !strstr(err, sc->out))
		fail_msg("publish failure reported as \"%s\"", err);
	snprintf(path, sizeof(path), "%s.partial", sc->out);
	assert_false(exists(path));
}

/*
 * Runs of 64 KiB and more (SPAN_REF_MIN) are written from the pass's
 * buffer by the writer thread while the next run is checked: the buffer
 * must live until written (TSan runs this too).
 */
static void test_long_runs(void **state)
{
	struct scen *sc = *state;
	struct merge_stats st;
	unsigned rounds;
	char err[256];

	/* as gen(), 1500 records of 48 bytes per ring and pass (72 KB), 2 us apart */
	sc->nr_shards = 2;
	sc->nr_passes = 4;
	make_prologue(sc);
	make_tail(sc);
	for (int s = 0; s < 2; s++)
		for (int k = 0; k < 4; k++)
			for (int c = 0; c < 2; c++)
				for (int j = 0; j < 1500; j++)
					add_sample(sc, s, k, c,
						   T0 + PHASE(s) + k * STEP + j * 2000 + s * 2 + c + 1,
						   ((s + c) % 2 ? ev1_ids : ev0_ids)[c]);
	write_dir(sc);
	if (run_merge(sc, false, true, 1000, &st, err, sizeof(err)))
		fail_msg("merge: %s", err);
	check_output(sc, &rounds);
	check_stats(sc, &st);
	assert_true(rounds >= 3);
	assert_int_equal(st.late, 0);
	merge_stats__release(&st);
}

/* A record older than its pass's watermark promised: a reader of rounds still sees it in order. */
static void test_late_record(void **state)
{
	struct scen *sc = *state;
	struct merge_stats st;
	char err[256];

	gen(sc, 2, 4, 3);
	/* in pass 3, but older than pass 1's wtime: shard 1 was already merged past it */
	add_sample(sc, 0, 3, 0, T0 + STEP / 2 + 3, ev0_ids[0]);
	write_dir(sc);
	assert_int_equal(run_merge(sc, false, false, 1000, &st, err, sizeof(err)), 0);
	/*
	 * A file goes out in whole runs by round, and these few records fill
	 * less than one (ROUND_MIN_BYTES): a reader sorts the late one in
	 * place, so it is not late for perf (check_output reads it so).
	 */
	assert_int_equal(st.late, 0);
	assert_int_equal(st.samples, sc->samples);
	merge_stats__release(&st);
	check_output(sc, NULL);
}

/*
 * A run may go on being written only up to the watermark: shard 1's next
 * pass (published after its wtime T0 + 300) may still hold anything from
 * T0 + 300 on, even when no loaded run competes with shard 0's.
 */
static void test_watermark_limit(void **state)
{
	struct scen *sc = *state;
	struct merge_stats st;
	char err[256];

	sc->nr_shards = 2;
	sc->nr_passes = 2;
	make_prologue(sc);
	for (int i = 1; i <= 9; i++)
		add_sample(sc, 0, 0, 0, T0 + i * 100, ev0_ids[0]);
	for (int i = 11; i <= 19; i++)
		add_sample(sc, 0, 1, 0, T0 + i * 100, ev0_ids[0]);
	add_sample(sc, 1, 0, 0, T0 + 150, ev1_ids[0]);
	for (int i = 3; i <= 19; i++)
		add_sample(sc, 1, 1, 0, T0 + i * 100 + 50, ev1_ids[0]);
	sc->wtime[0][0] = T0 + 1000;
	sc->wtime[0][1] = T0 + 2000;
	sc->wtime[1][0] = T0 + 300;
	sc->wtime[1][1] = T0 + 2000;
	write_dir(sc);
	if (run_merge(sc, false, false, 1, &st, err, sizeof(err)))
		fail_msg("merge: %s", err);
	check_output(sc, NULL);
	check_stats(sc, &st);
	merge_stats__release(&st);
}

static void test_rotate_output(void **state)
{
	struct scen *sc = *state;
	struct merge_stats st;
	char err[256], old[160], *buf;
	size_t len;
	int fd;

	gen(sc, 2, 2, 3);
	write_dir(sc);
	fd = open(sc->out, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "previous", 8), 8);
	close(fd);
	assert_int_equal(run_merge(sc, false, false, 0, &st, err, sizeof(err)), 0);
	merge_stats__release(&st);
	check_output(sc, NULL);
	snprintf(old, sizeof(old), "%s.old", sc->out);
	buf = unit_slurp(old, &len);
	assert_int_equal(len, 8);
	assert_memory_equal(buf, "previous", 8);
	free(buf);

	/* a failed merge touches neither the output nor its .old */
	unlinkat(sc->dirfd, "header.data", 0);
	assert_true(run_merge(sc, false, false, 0, &st, err, sizeof(err)) < 0);
	assert_true(err[0]);
	merge_stats__release(&st);
	check_output(sc, NULL);
	buf = unit_slurp(old, &len);
	assert_int_equal(len, 8);
	free(buf);
}

static void test_no_build_ids(void **state)
{
	struct scen *sc = *state;
	struct merge_stats st;
	struct pfile pf;
	char err[256];

	gen(sc, 2, 2, 3);
	write_dir(sc);
	assert_int_equal(run_merge(sc, false, false, 0, &st, err, sizeof(err)), 0);
	assert_int_equal(st.nr_build_ids, 0);
	merge_stats__release(&st);
	check_output(sc, NULL);
	assert_int_equal(pfile__open(&pf, sc->out, err, sizeof(err)), 0);
	assert_false(pfile_featset__has(&pf.feats, PFILE_FEAT_BUILD_ID));
	assert_true(pfile_featset__has(&pf.feats, PFILE_FEAT_EVENT_DESC));
	assert_true(pfile_featset__has(&pf.feats, PFILE_FEAT_NRCPUS));
	pfile__close(&pf);
}

/* merge_opts.features: the caller's sections replace header.data's; an error fails the merge. */
static int set_bpf_btf(struct pfile_featset *fs, void *arg)
{
	static const unsigned char btf[4] = {9, 8, 7, 6};
	const struct pfile_bpf_btf b = {.id = 42, .size = sizeof(btf), .data = btf};

	return arg ? -EIO : pfile_feat__bpf(fs, NULL, 0, &b, 1);
}

static void test_features_hook(void **state)
{
	struct scen *sc = *state;
	struct merge_opts o = {.dir = sc->dir, .output = sc->out, .dec = &zunpass__ops,
			       .features = set_bpf_btf};
	const unsigned char *d;
	struct merge_stats st;
	struct pfile pf;
	char err[256];

	gen(sc, 2, 2, 3);
	write_dir(sc);
	assert_int_equal(merge__run(&o, &st, err, sizeof(err)), 0);
	merge_stats__release(&st);
	assert_int_equal(pfile__open(&pf, sc->out, err, sizeof(err)), 0);
	assert_true(pfile_featset__has(&pf.feats, PFILE_FEAT_BPF_BTF));
	d = pf.feats.sec[PFILE_FEAT_BPF_BTF].data;
	assert_int_equal(pf.feats.sec[PFILE_FEAT_BPF_BTF].size, 16);
	assert_int_equal(d[0], 1);  /* one object */
	assert_int_equal(d[4], 42); /* its id */
	assert_int_equal(d[15], 6); /* its last byte */
	pfile__close(&pf);
	o.features_arg = &o; /* the hook fails: so does the merge */
	assert_int_not_equal(merge__run(&o, &st, err, sizeof(err)), 0);
	merge_stats__release(&st);
}

static void test_bad_dir(void **state)
{
	struct scen *sc = *state;
	struct merge_stats st;
	char err[256];
	int fd;

	/* no header.data */
	assert_true(run_merge(sc, false, false, 0, &st, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "header.data"));
	merge_stats__release(&st);
	/* a shard with a bad magic */
	gen(sc, 1, 2, 2);
	write_dir(sc);
	fd = openat(sc->dirfd, "shard.0", O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "XXXXXXXX", 8, 0), 8);
	close(fd);
	assert_int_equal(run_merge(sc, false, false, 0, &st, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "shard.0"));
	assert_false(exists(sc->out));
	merge_stats__release(&st);
}

/* ---- pipe mode ---- */

/* Appends the records of @p (@len bytes) but FINISHED_ROUNDs to @out; returns bytes appended. */
static size_t strip_rounds(const unsigned char *p, size_t len, unsigned char *out)
{
	size_t n = 0;

	for (size_t off = 0; off < len;) {
		struct perf_event_header h;

		assert_true(len - off >= sizeof(h));
		memcpy(&h, p + off, sizeof(h));
		assert_true(h.size >= sizeof(h) && h.size <= len - off);
		if (h.type != PFILE_REC_FINISHED_ROUND) {
			/* @out may be @p: stripped in place */
			memmove(out + n, p + off, h.size);
			n += h.size;
		}
		off += h.size;
	}
	return n;
}

static int rec_bytes_cmp(const void *a, const void *b)
{
	const struct perf_event_header *x = *(const void *const *)a, *y = *(const void *const *)b;

	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return memcmp(x, y, x->size);
}

/*
 * The @len bytes of whole records at @p, rewritten in one canonical order:
 * a file is written in whole runs by round, a live pipe in time order, so
 * the two hold the same records in different orders.
 */
static void sort_records(unsigned char *p, size_t len)
{
	size_t nr = 0, n = 0;
	const struct perf_event_header **v;
	unsigned char *copy = malloc(len ? len : 1);

	assert_non_null(copy);
	memcpy(copy, p, len);
	for (size_t off = 0; off < len; nr++)
		off += ((const struct perf_event_header *)(copy + off))->size;
	v = calloc(nr ? nr : 1, sizeof(*v));
	assert_non_null(v);
	for (size_t off = 0, i = 0; off < len; i++) {
		v[i] = (const void *)(copy + off);
		off += v[i]->size;
	}
	qsort(v, nr, sizeof(*v), rec_bytes_cmp);
	for (size_t i = 0; i < nr; i++) {
		memcpy(p + n, v[i], v[i]->size);
		n += v[i]->size;
	}
	free(v);
	free(copy);
}

static int run_pipe(struct scen *sc, const struct merge_live *live, struct merge_stats *st,
		    char *err, size_t errlen)
{
	struct merge_opts o = {
	    .dir = sc->dir, .output = "-", .dec = &zunpass__ops, .pipe = true, .live = live,
	};
	char path[160];
	int ret;

	snprintf(path, sizeof(path), "%s/out.pipe", sc->dir);
	o.pipe_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(o.pipe_fd >= 0);
	ret = merge__run(&o, st, err, errlen);
	close(o.pipe_fd);
	return ret;
}

/* The next record of the pipe at *@off must be of @type: returns it, *@off moved past it. */
static const unsigned char *pipe_rec(const unsigned char *p, size_t len, size_t *off,
				     uint32_t type)
{
	struct perf_event_header h;
	const unsigned char *r = p + *off;

	assert_true(len - *off >= sizeof(h));
	memcpy(&h, r, sizeof(h));
	if (h.type != type)
		fail_msg("record at %zu: type %u, want %u", *off, h.type, type);
	*off += h.size;
	return r;
}

/* EVENT_UPDATE @type of event id @id with payload @want (@n bytes) at *@off. */
static void expect_update(const unsigned char *p, size_t len, size_t *off, uint64_t type,
			  uint64_t id, const void *want, size_t n)
{
	const unsigned char *r = pipe_rec(p, len, off, PFILE_REC_EVENT_UPDATE);
	uint64_t v[2];

	memcpy(v, r + 8, sizeof(v));
	assert_int_equal(v[0], type);
	assert_int_equal(v[1], id);
	assert_memory_equal(r + 24, want, n);
}

/*
 * perf's pipe layout: the pipe header, HEADER_ATTR per event with its ids,
 * HEADER_FEATUREs in bit order (no BUILD_ID) ending with the LAST_FEATURE
 * mark, EVENT_UPDATEs (unit, scale, name per clock event), then exactly
 * the file merge's data section, rounds aside.
 */
static void check_pipe(struct scen *sc)
{
	static const char *const names[2] = {"cpu-clock", "task-clock"};
	const uint64_t *ids[2] = {ev0_ids, ev1_ids};
	char path[160], err[256];
	unsigned char *p, *a, *b;
	size_t len, off = 16, na, nb;
	uint64_t feat, prev = 0, hdr[2];
	struct pfile pf;
	double scale = 1e-6;

	snprintf(path, sizeof(path), "%s/out.pipe", sc->dir);
	p = (unsigned char *)unit_slurp(path, &len);
	memcpy(hdr, p, sizeof(hdr));
	assert_int_equal(hdr[0], PFILE_MAGIC);
	assert_int_equal(hdr[1], 16);
	for (int e = 0; e < 2; e++) {
		const unsigned char *r = pipe_rec(p, len, &off, PFILE_REC_HEADER_ATTR);

		assert_int_equal(((const struct perf_event_header *)r)->size, 8 + 128 + 16);
		assert_memory_equal(r + 8 + 128, ids[e], 16);
	}
	do {
		const unsigned char *r = pipe_rec(p, len, &off, PFILE_REC_HEADER_FEATURE);

		memcpy(&feat, r + 8, sizeof(feat));
		assert_true(feat > prev && feat != PFILE_FEAT_BUILD_ID);
		prev = feat;
	} while (feat != 32);
	for (int e = 0; e < 2; e++) {
		expect_update(p, len, &off, 0, ids[e][0], "msec", 5);
		expect_update(p, len, &off, 1, ids[e][0], &scale, sizeof(scale));
		expect_update(p, len, &off, 2, ids[e][0], names[e], strlen(names[e]) + 1);
	}
	if (pfile__open(&pf, sc->out, err, sizeof(err)))
		fail_msg("pfile__open: %s", err);
	a = malloc(len);
	b = malloc(pf.hdr.data.size);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(pread(pf.fd, b, pf.hdr.data.size, pf.hdr.data.offset),
			 (ssize_t)pf.hdr.data.size);
	na = strip_rounds(p + off, len - off, a);
	nb = strip_rounds(b, pf.hdr.data.size, b);
	assert_int_equal(na, nb);
	sort_records(a, na);
	sort_records(b, nb);
	assert_memory_equal(a, b, na);
	pfile__close(&pf);
	free(a);
	free(b);
	free(p);
}

/* perf reads the stream: every sample, from stdin. */
static void perf_pipe_oracle(struct scen *sc)
{
	char *out, *err;

	if (access(PERF_BIN, X_OK))
		return;
	/* In parentheses: unit_run's stdin redirection is for the whole pipeline. */
	if (unit_run(sc->dir, &out, &err, "(cat %s/out.pipe | " PERF_BIN
		     " script -F comm,pid,time,event -i -)", sc->dir))
		fail_msg("perf script -i - failed: %s", err);
	if (!only_lost_warning(err, sc->lost_events, sc->lost_samples))
		fail_msg("perf script -i - wrote to stderr:\n%s", err);
	assert_int_equal(unit_count(out, "\n"), sc->samples);
	unit_run_unlink(sc->dir);
	free(out);
	free(err);
}

/* 3 shards of 6 passes, and their file merge: what the pipe must hold. */
static void pipe_scenario(struct scen *sc)
{
	struct merge_stats st;
	char err[256];

	gen(sc, 3, 6, 20);
	write_dir(sc);
	if (run_merge(sc, false, false, 1000, &st, err, sizeof(err)))
		fail_msg("merge: %s", err);
	merge_stats__release(&st);
}

static void test_pipe(void **state)
{
	struct scen *sc = *state;
	struct merge_stats st;
	char err[256];

	pipe_scenario(sc);
	if (run_pipe(sc, NULL, &st, err, sizeof(err)))
		fail_msg("merge -o -: %s", err);
	check_pipe(sc);
	check_stats(sc, &st);
	assert_int_equal(st.nr_build_ids, 0);
	perf_pipe_oracle(sc);
	merge_stats__release(&st);
}

/*
 * A recording still being written, played back: each wait reveals one more
 * pass of every shard, as writers would write them; the tails are there
 * once every shard has ended.
 */
struct fake_live {
	struct scen *sc;
	uint64_t ends[MAX_SHARDS][32]; /* offset after each pass */
	int shown[MAX_SHARDS];
	unsigned waits;
	uint64_t consumed[MAX_SHARDS];
};

static uint64_t fake_committed(void *arg, unsigned idx, bool *ended)
{
	struct fake_live *f = arg;

	assert_true(idx < (unsigned)f->sc->nr_shards);
	*ended = f->shown[idx] == f->sc->nr_passes;
	return f->shown[idx] ? f->ends[idx][f->shown[idx] - 1] : SHARD_HEADER_SIZE;
}

static bool fake_finished(void *arg)
{
	struct fake_live *f = arg;

	for (int s = 0; s < f->sc->nr_shards; s++)
		if (f->shown[s] < f->sc->nr_passes)
			return false;
	return true;
}

static int fake_wait(void *arg)
{
	struct fake_live *f = arg;

	f->waits++;
	for (int s = 0; s < f->sc->nr_shards; s++)
		if (f->shown[s] < f->sc->nr_passes)
			f->shown[s]++;
	return 0;
}

static void fake_consumed(void *arg, unsigned idx, uint64_t off)
{
	struct fake_live *f = arg;

	assert_true(off > f->consumed[idx] && off <= fake_committed(arg, idx, &(bool){0}));
	f->consumed[idx] = off;
}

static void fake_live_init(struct fake_live *f, struct scen *sc)
{
	memset(f, 0, sizeof(*f));
	f->sc = sc;
	for (int s = 0; s < sc->nr_shards; s++) {
		char name[32];
		int fd;
		uint64_t off = SHARD_HEADER_SIZE;

		snprintf(name, sizeof(name), "shard.%d", s);
		fd = openat(sc->dirfd, name, O_RDONLY);
		assert_true(fd >= 0);
		for (int k = 0; k < sc->nr_passes; k++) {
			struct shard_pass_rec r;

			assert_int_equal(pread(fd, &r, sizeof(r), off), (ssize_t)sizeof(r));
			off += sizeof(r) + r.bytes;
			f->ends[s][k] = off;
		}
		close(fd);
	}
}

static void test_pipe_live(void **state)
{
	struct scen *sc = *state;
	struct fake_live f;
	struct merge_live live = {fake_committed, fake_finished, fake_wait, fake_consumed, &f};
	struct merge_stats st;
	char err[256];

	pipe_scenario(sc);
	fake_live_init(&f, sc);
	if (run_pipe(sc, &live, &st, err, sizeof(err)))
		fail_msg("live merge -o -: %s", err);
	check_pipe(sc);
	check_stats(sc, &st);
	/* it waited for every pass, and held about a pass per shard, not the recording */
	assert_true(f.waits >= (unsigned)sc->nr_passes);
	assert_true(st.rounds >= (unsigned)sc->nr_passes - 1);
	for (int s = 0; s < sc->nr_shards; s++)
		assert_int_equal(f.consumed[s], f.ends[s][sc->nr_passes - 1]);
	assert_true(st.peak_held > 0 && st.peak_held < st.bytes_in / 2);
	perf_pipe_oracle(sc);
	merge_stats__release(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_three_shards, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_out_of_order_chunk, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_idle_shard, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_shards, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_truncated_shard, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unknown_id, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_corrupt_chunk, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_damaged_record, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_corrupt_chunk_after_damage, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_damage_after_corrupt_frame, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_odd_compressed_in_chunk, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_many_shards, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_publish_error, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_late_record, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_long_runs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_watermark_limit, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rotate_output, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_build_ids, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_features_hook, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_dir, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pipe, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pipe_live, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
