// SPDX-License-Identifier: GPL-2.0
/*
 * AUX through the real writer and merge: two simulated rings, each with an
 * AUX area (caller memory), fed while a writer thread drains them into a
 * shard; header.data carries an Intel PT AUXTRACE_INFO built by aux/. The
 * merged file is read back: every AUXTRACE record follows a record of its
 * ring, its trace bytes are the producer's, byte for byte and in order per
 * CPU, HEADER_AUXTRACE lists exactly their file offsets, and PERF_RECORD_AUX
 * flags are counted as loss. perf (when installed) is the oracle: perf
 * report -D and perf script -D must print each AUXTRACE record with its
 * file offset, size and offset, and nothing on stderr but perf's own AUX
 * loss warning. Plain and -z shards.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "aux/aux.h"
#include "recorder/merge.h"
#include "recorder/pfile.h"
#include "recorder/writer.h"
#include "ringbuf/ring_order.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PERF_BIN "/usr/bin/perf"
#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)
#define NR_CPUS 2
#define DATA_SIZE 16384
#define AUX_SIZE 8192
#define STEPS 300
#define TRUNC_EVERY 50 /* every 50th AUX record says TRUNCATED */
#define MAX_AUXTRACE (NR_CPUS * STEPS)

static uint64_t ids[NR_CPUS] = {501, 502};

struct simcpu {
	struct perf_event_mmap_page *pc;
	unsigned char *data, *aux;
	struct aux_ring a;
	uint64_t head, aux_head;
};

struct t {
	char dir[64], out[96];
	int dirfd;
	struct simcpu cpu[NR_CPUS];
	struct ring rings[NR_CPUS];
	uint64_t truncated;
};

/* Trace byte at AUX position @pos of @cpu: never zero, so padding stands out. */
static unsigned char pat(int cpu, uint64_t pos)
{
	return (uint8_t)((pos * 131 + cpu * 77) ^ (pos >> 9)) | 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int rm_cb(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* header.data: one event, an Intel PT AUXTRACE_INFO as the prologue. */
static void write_header(struct t *t)
{
	struct pfile_event ev = {.name = "cpu-clock", .ids = ids, .nr_ids = NR_CPUS};
	struct aux_info_params ip = {.pmu = "intel_pt", .pmu_type = 1, .per_cpu = true,
				     .pc = t->cpu[0].pc};
	struct pfile_featset fs = {0};
	struct pfile_header h;
	unsigned char info[512];
	uint64_t data_off, end;
	long len;
	int fd;

	ev.attr.type = PERF_TYPE_SOFTWARE;
	ev.attr.config = PERF_COUNT_SW_CPU_CLOCK;
	ev.attr.size = sizeof(ev.attr);
	ev.attr.sample_period = 100000;
	ev.attr.sample_type = ST;
	ev.attr.sample_id_all = 1;
	ev.attr.exclude_kernel = 1; /* no kernel maps: perf would warn they are restricted */
	len = aux_info__build(&ip, info, sizeof(info));
	assert_int_equal(len, 16 + 17 * 8);
	fd = openat(t->dirfd, "header.data", O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	pfile_header__init(&h);
	assert_int_equal(pfile__write_attrs(fd, PFILE_HEADER_SIZE, &ev, 1, &h.attrs, &data_off), 0);
	h.data.offset = data_off;
	h.data.size = len;
	assert_int_equal(pwrite(fd, info, len, data_off), len);
	assert_int_equal(pfile_feat__string(&fs, PFILE_FEAT_HOSTNAME, "testhost"), 0);
	assert_int_equal(pfile_feat__event_desc(&fs, &ev, 1), 0);
	assert_int_equal(pfile_feat__nrcpus(&fs, NR_CPUS, NR_CPUS), 0);
	assert_int_equal(pfile__write_features(fd, data_off + len, &fs, h.features, &end), 0);
	assert_int_equal(pfile__write_header(fd, &h), 0);
	close(fd);
	pfile_featset__release(&fs);
}

static void sim_setup(struct t *t)
{
	for (int c = 0; c < NR_CPUS; c++) {
		struct simcpu *s = &t->cpu[c];

		s->pc = calloc(1, 4096);
		s->data = calloc(1, DATA_SIZE);
		s->aux = aligned_alloc(64, AUX_SIZE);
		assert_non_null(s->pc);
		assert_non_null(s->data);
		assert_non_null(s->aux);
		assert_int_equal(ring__init_mem(&t->rings[c], s->pc, s->data, DATA_SIZE), 0);
		assert_int_equal(aux_ring__init_mem(&s->a, s->pc, s->aux, AUX_SIZE, false), 0);
		/*
		 * The writer probes data[0] at start (writer__query_ring_nodes): start
		 * past it, so the producer reaches it only after the writer's first pass.
		 */
		s->head = s->pc->data_head = s->pc->data_tail = 64;
		s->a.idx = c;
		s->a.cpu = c;
		t->rings[c].cpu = c;
		t->rings[c].aux = &s->a;
	}
}

static void sim_release(struct t *t)
{
	for (int c = 0; c < NR_CPUS; c++) {
		aux_ring__munmap(&t->cpu[c].a);
		free(t->cpu[c].pc);
		free(t->cpu[c].data);
		free(t->cpu[c].aux);
	}
}

/* Copies @len bytes into the data ring at its head (wrapping); waits for room. */
static void ring_put(struct simcpu *s, const void *rec, size_t len)
{
	while (DATA_SIZE - (s->head - ring_order__load_tail(&s->pc->data_tail)) < len)
		sched_yield();
	for (size_t i = 0; i < len; i++)
		s->data[(s->head + i) & (DATA_SIZE - 1)] = ((const unsigned char *)rec)[i];
	s->head += len;
	ring_order__store_head(&s->pc->data_head, s->head);
}

/* The trailer of ST with sample_id_all: tid, time, identifier. */
static size_t put_trailer(unsigned char *p, int cpu, uint64_t time)
{
	uint32_t pid[2] = {100 + cpu, 100 + cpu};

	memcpy(p, pid, 8);
	memcpy(p + 8, &time, 8);
	memcpy(p + 16, &ids[cpu], 8);
	return 24;
}

/*
 * One step on a CPU, as the kernel does it: AUX bytes, then a
 * PERF_RECORD_AUX saying where they are, then a sample.
 */
static void produce(struct t *t, int c, unsigned step)
{
	struct simcpu *s = &t->cpu[c];
	uint64_t len = 1 + (step * 37 + c * 11) % 700, flags = 0;
	unsigned char rec[64];
	struct perf_event_header h = {PERF_RECORD_AUX, 0, 8 + 24 + 24};
	uint64_t f[3];
	size_t n;

	while (AUX_SIZE - (s->aux_head - ring_order__load_tail(&s->pc->aux_tail)) < len)
		sched_yield();
	for (uint64_t i = 0; i < len; i++)
		s->aux[(s->aux_head + i) & (AUX_SIZE - 1)] = pat(c, s->aux_head + i);
	if (step % TRUNC_EVERY == TRUNC_EVERY - 1) {
		flags = PERF_AUX_FLAG_TRUNCATED;
		t->truncated++;
	}
	f[0] = s->aux_head;
	f[1] = len;
	f[2] = flags;
	s->aux_head += len;
	ring_order__store_head(&s->pc->aux_head, s->aux_head);
	memcpy(rec, &h, 8);
	memcpy(rec + 8, f, 24);
	put_trailer(rec + 32, c, now_ns());
	ring_put(s, rec, h.size);
	/* SAMPLE: identifier, ip, pid/tid, time */
	h = (struct perf_event_header){PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 40};
	memcpy(rec, &h, 8);
	memcpy(rec + 8, &ids[c], 8);
	n = 0x400000 + step;
	memcpy(rec + 16, &n, 8);
	put_trailer(rec + 24, c, 0); /* pid/tid then time: overwritten next */
	n = now_ns();
	memcpy(rec + 32, &n, 8);
	ring_put(s, rec, h.size);
}

static void record(struct t *t, int zlevel)
{
	int cpus[NR_CPUS] = {0, 1};
	struct plan_group g = {.cpus = cpus, .nr_cpus = NR_CPUS, .node = -1};
	struct writer_params p = {.idx = 0, .group = &g, .rings = t->rings, .nr_rings = NR_CPUS,
				  .dirfd = t->dirfd, .clockid = CLOCK_MONOTONIC, .idle_ms = 1,
				  .zlevel = zlevel};
	struct writer *w = writer__new(&p);

	assert_non_null(w);
	assert_int_equal(writer__start(w), 0);
	for (unsigned step = 0; step < STEPS; step++)
		for (int c = 0; c < NR_CPUS; c++)
			produce(t, c, step);
	writer__stop(w);
	assert_int_equal(writer__join(w), 0);
	writer__delete(w);
	for (int c = 0; c < NR_CPUS; c++) {
		assert_int_equal(t->cpu[c].a.tail, t->cpu[c].aux_head);
		assert_int_equal(t->cpu[c].pc->aux_tail, t->cpu[c].aux_head);
	}
}

struct seen {
	uint64_t file_off[MAX_AUXTRACE], size[MAX_AUXTRACE], offset[MAX_AUXTRACE];
	size_t nr;
	uint64_t next[NR_CPUS]; /* AUX stream position expected next, per CPU */
};

/* An AUXTRACE record: continuous per CPU, bytes as produced, padding zero. */
static void check_auxtrace(struct seen *sn, const unsigned char *rec, size_t len, uint64_t off)
{
	struct aux_auxtrace a;
	uint64_t data;

	memcpy(&a, rec, sizeof(a));
	assert_int_equal(a.header.size, 48);
	assert_true(a.cpu < NR_CPUS);
	assert_int_equal(a.idx, a.cpu);
	assert_int_equal(len, 48 + a.size);
	assert_int_equal(a.offset, sn->next[a.cpu]);
	assert_int_equal(a.size % 8, 0);
	data = a.size;
	while (data && rec[48 + data - 1] == 0)
		data--; /* padding */
	assert_true(data && data + 8 > a.size);
	for (uint64_t i = 0; i < data; i++)
		assert_int_equal(rec[48 + i], pat(a.cpu, a.offset + i));
	sn->next[a.cpu] += data;
	assert_true(sn->nr < MAX_AUXTRACE);
	sn->file_off[sn->nr] = off;
	sn->size[sn->nr] = a.size;
	sn->offset[sn->nr++] = a.offset;
}

static void read_back(struct t *t, struct seen *sn)
{
	char err[256];
	struct pfile pf;
	struct pfile_reader r;
	const struct perf_event_header *h;
	size_t len;
	uint64_t off, nr, prev_type = 0;
	const uint64_t *idx;

	assert_int_equal(pfile__open(&pf, t->out, err, sizeof(err)), 0);
	assert_int_equal(pfile_reader__init(&r, pf.fd, pf.hdr.data.offset, pf.hdr.data.size, 0), 0);
	while (pfile_reader__next(&r, &h, &len, &off) > 0) {
		if (h->type == PFILE_REC_AUXTRACE) {
			/* Right behind its ring's records (or its frame's), never after a round */
			assert_true(prev_type == PERF_RECORD_AUX || prev_type == PERF_RECORD_SAMPLE ||
				    prev_type == PFILE_REC_COMPRESSED);
			check_auxtrace(sn, (const void *)h, len, off);
		}
		prev_type = h->type;
	}
	pfile_reader__release(&r);
	for (int c = 0; c < NR_CPUS; c++)
		assert_int_equal(sn->next[c], t->cpu[c].aux_head);
	/* HEADER_AUXTRACE: u64 nr, then {file offset, header size} in file order */
	assert_true(pfile_featset__has(&pf.feats, PFILE_FEAT_AUXTRACE));
	idx = pf.feats.sec[PFILE_FEAT_AUXTRACE].data;
	nr = idx[0];
	assert_int_equal(nr, sn->nr);
	assert_int_equal(pf.feats.sec[PFILE_FEAT_AUXTRACE].size, 8 + 16 * nr);
	for (uint64_t i = 0; i < nr; i++) {
		assert_int_equal(idx[1 + 2 * i], sn->file_off[i]);
		assert_int_equal(idx[2 + 2 * i], 48);
	}
	pfile__close(&pf);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, n, f), (size_t)n);
	fclose(f);
	return buf;
}

/* stderr may hold perf's AUX loss warning and nothing else. */
static void check_perf_err(const struct t *t, const char *err)
{
	char want[128];
	const char *p = err;

	snprintf(want, sizeof(want), "AUX data lost %llu times out of %u!",
		 (unsigned long long)t->truncated, NR_CPUS * STEPS);
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (n && strncmp(p, "Warning:", n) && strncmp(p, want, n))
			fail_msg("perf stderr: %.*s", (int)n, p);
		p += n + !!nl;
	}
	assert_non_null(strstr(err, want));
}

/* perf -D prints every AUXTRACE record at its file offset with its size and offset. */
static void perf_oracle(struct t *t, const struct seen *sn, const char *tool)
{
	char cmd[512], op[128], ep[128], line[160];
	char *out, *err;

	if (access(PERF_BIN, X_OK))
		return;
	snprintf(op, sizeof(op), "%s/perf.out", t->dir);
	snprintf(ep, sizeof(ep), "%s/perf.err", t->dir);
	snprintf(cmd, sizeof(cmd), PERF_BIN " %s -D -i %s >%s 2>%s </dev/null", tool, t->out, op,
		 ep);
	assert_int_equal(system(cmd), 0);
	out = slurp(op);
	err = slurp(ep);
	check_perf_err(t, err);
	for (size_t i = 0; i < sn->nr; i++) {
		snprintf(line, sizeof(line), "%#llx [0x30]: PERF_RECORD_AUXTRACE size: %#llx  offset: %#llx ",
			 (unsigned long long)sn->file_off[i], (unsigned long long)sn->size[i],
			 (unsigned long long)sn->offset[i]);
		if (!strstr(out, line))
			fail_msg("perf %s -D lacks '%s'", tool, line);
	}
	assert_non_null(strstr(out, "PERF_RECORD_AUXTRACE_INFO type: 1"));
	free(out);
	free(err);
	unlink(op);
	unlink(ep);
}

static void run(int zlevel)
{
	struct t t = {.dirfd = -1};
	struct merge_opts o = {0};
	struct merge_stats st;
	struct seen *sn = calloc(1, sizeof(*sn));
	char err[256];

	assert_non_null(sn);
	snprintf(t.dir, sizeof(t.dir), "/tmp/shardrec-auxm.XXXXXX");
	assert_non_null(mkdtemp(t.dir));
	snprintf(t.out, sizeof(t.out), "%s/perf.data", t.dir);
	t.dirfd = open(t.dir, O_RDONLY | O_DIRECTORY);
	assert_true(t.dirfd >= 0);
	sim_setup(&t);
	write_header(&t);
	record(&t, zlevel);
	o.dir = t.dir;
	o.output = t.out;
	if (merge__run(&o, &st, err, sizeof(err)))
		fail_msg("merge: %s", err);
	assert_int_equal(st.aux_records, NR_CPUS * STEPS);
	assert_int_equal(st.aux_truncated, t.truncated);
	assert_int_equal(st.late, 0);
	read_back(&t, sn);
	assert_int_equal(st.auxtrace_records, sn->nr);
	perf_oracle(&t, sn, "report");
	perf_oracle(&t, sn, "script");
	merge_stats__release(&st);
	sim_release(&t);
	close(t.dirfd);
	/* SHARDREC_AUX_KEEP=1 keeps the shard dir and perf.data for a look with perf. */
	if (getenv("SHARDREC_AUX_KEEP"))
		fprintf(stderr, "kept %s\n", t.dir);
	else
		nftw(t.dir, rm_cb, 8, FTW_DEPTH | FTW_PHYS);
	free(sn);
}

static void test_plain(void **state)
{
	(void)state;
	run(0);
}

static void test_zstd(void **state)
{
	(void)state;
	run(1);
}

/* Layouts of AUXTRACE_INFO: perf 6.1's sizes, types, and no record for unknown PMUs. */
static void test_info_layouts(void **state)
{
	unsigned char buf[512];
	struct aux_info_params p = {.pmu = "intel_pt", .pmu_type = 9, .filter = "filter main"};
	uint32_t type;
	uint64_t priv[18];

	(void)state;
	assert_int_equal(aux_info__build(&p, buf, sizeof(buf)), 16 + 17 * 8 + 16);
	memcpy(&type, buf + 8, 4);
	memcpy(priv, buf + 16, sizeof(priv));
	assert_int_equal(type, AUX_TYPE_INTEL_PT);
	assert_int_equal(priv[0], 9);
	assert_int_equal(priv[16], strlen("filter main"));
	assert_string_equal((char *)(buf + 16 + 17 * 8), "filter main");
	assert_int_equal(aux_info__build(&p, buf, 100), -ENOSPC);
	p.pmu = "intel_bts";
	assert_int_equal(aux_info__build(&p, buf, sizeof(buf)), 16 + 6 * 8);
	p.pmu = "arm_spe_0";
	assert_int_equal(aux_info__build(&p, buf, sizeof(buf)), 16 + 2 * 8);
	memcpy(&type, buf + 8, 4);
	assert_int_equal(type, AUX_TYPE_ARM_SPE);
	p.pmu = "cpu";
	assert_int_equal(aux_info__build(&p, buf, sizeof(buf)), -EOPNOTSUPP);
	assert_true(aux_pmu__is_aux(NULL, "intel_pt"));
	assert_true(aux_pmu__is_aux(NULL, "arm_spe_1"));
	assert_false(aux_pmu__is_aux(NULL, "arm_spexyz"));
	assert_false(aux_pmu__is_aux(NULL, "software"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_info_layouts),
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_zstd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
