/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's side of a perf ring and AUX area, simulated on caller memory
 * for the unit tests that drive the real writer thread over AUX
 * (test_aux_merge.c, test_aux_snapshot.c): per simulated CPU a control
 * page, a data ring and an AUX area composed in a struct evlist_mmap,
 * a producer that writes trace bytes of a known pattern, PERF_RECORD_AUX
 * and samples the way the kernel does, the shard directory with a
 * header.data whose prologue is an Intel PT AUXTRACE_INFO, and the checks
 * of the merged perf.data that do not depend on the test: the AUXTRACE
 * record header, HEADER_AUXTRACE against the records read, and perf -D
 * printing each of them. Shared so that the tests differ only in what they
 * produce and what they expect (normal vs overwrite mode, the model).
 *
 * Header only, like unit_util.h; failures are cmocka assertions. Each CPU's
 * events have sample type AUX_SIM_SAMPLE_TYPE with sample_id_all and the
 * sample id the test passes to aux_sim_setup().
 */
#ifndef SHARDREC_AUX_SIM_H
#define SHARDREC_AUX_SIM_H

#include "unit_util.h"

#include "aux/aux.h"
#include "recorder/codec/zunpass.h"
#include "recorder/merge/merge.h"
#include "recorder/perfdata/pfile.h"
#include "recorder/perfdata/pfile_feat.h"
#include "recorder/perfdata/pfile_write.h"
#include "recorder/capture/writer.h"
#include "recorder/events/evlist.h"
#include "recorder/perfdata/shard_reader.h"
#include "ringbuf/ring_order.h"
/* The simulation sets up rings on caller memory (ring__init_mem): internals. */
#include "ringbuf/ring_internal.h"

#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <time.h>

#define AUX_SIM_PERF "/usr/bin/perf"
#define AUX_SIM_NR_CPUS 2
#define AUX_SIM_SAMPLE_TYPE \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)
#define AUX_SIM_WAIT_NS 10000000000ULL /* the writer drains within a pass: 10 s is a hang */

/*
 * One simulated CPU: the memory of its control page, data ring and AUX
 * area (read through sim->maps), and the producer's heads.
 */
struct aux_sim_cpu {
	struct perf_event_mmap_page *pc;
	unsigned char *data, *aux;
	uint64_t data_size, aux_size; /* powers of two */
	uint64_t head, aux_head;
};

struct aux_sim {
	char dir[64], out[96]; /* the shard directory, and the merged perf.data in it */
	int dirfd;
	uint64_t ids[AUX_SIM_NR_CPUS]; /* each CPU's sample id */
	int cpus[AUX_SIM_NR_CPUS];
	struct plan_group group; /* all the CPUs, one writer */
	struct aux_sim_cpu cpu[AUX_SIM_NR_CPUS];
	struct evlist_mmap maps[AUX_SIM_NR_CPUS]; /* what the writer reads */
};

/* Trace byte at AUX position @pos of @cpu: never zero, so padding stands out. */
static inline unsigned char aux_sim_pat(int cpu, uint64_t pos)
{
	return (uint8_t)((pos * 131 + cpu * 77) ^ (pos >> 9)) | 1;
}

/*
 * A fresh shard directory /tmp/shardrec-@tag.XXXXXX, opened; each CPU's
 * control page, data ring (@data_size) and zeroed AUX area (@aux_size,
 * overwrite mode if @overwrite), in sim->maps: CPU c, AUX index c,
 * sample id @ids[c]. aux_sim_release() undoes it all.
 */
static inline void aux_sim_setup(struct aux_sim *sim, const char *tag,
				 const uint64_t ids[AUX_SIM_NR_CPUS], uint64_t data_size,
				 uint64_t aux_size, bool overwrite)
{
	snprintf(sim->dir, sizeof(sim->dir), "/tmp/shardrec-%s.XXXXXX", tag);
	assert_non_null(mkdtemp(sim->dir));
	snprintf(sim->out, sizeof(sim->out), "%s/perf.data", sim->dir);
	sim->dirfd = open(sim->dir, O_RDONLY | O_DIRECTORY);
	assert_true(sim->dirfd >= 0);
	sim->group = (struct plan_group){.cpus = sim->cpus, .nr_cpus = AUX_SIM_NR_CPUS, .node = -1};
	for (int c = 0; c < AUX_SIM_NR_CPUS; c++) {
		struct aux_sim_cpu *s = &sim->cpu[c];
		struct evlist_mmap *m = &sim->maps[c];

		sim->ids[c] = ids[c];
		sim->cpus[c] = c;
		s->pc = calloc(1, 4096);
		s->data = calloc(1, data_size);
		s->aux = aligned_alloc(64, aux_size);
		assert_non_null(s->pc);
		assert_non_null(s->data);
		assert_non_null(s->aux);
		memset(s->aux, 0, aux_size);
		s->data_size = data_size;
		s->aux_size = aux_size;
		assert_int_equal(ring__init_mem(&m->core, s->pc, s->data, data_size), 0);
		assert_int_equal(aux_ring__init_mem(&m->aux, s->pc, s->aux, aux_size, overwrite), 0);
		/*
		 * The writer probes data[0] at start (writer__query_ring_nodes): start
		 * past it, so the producer reaches it only after the writer's first pass.
		 */
		s->head = s->pc->data_head = s->pc->data_tail = 64;
		m->aux.idx = c;
		m->aux.cpu = c;
		m->core.cpu = c;
	}
}

static inline void aux_sim_release(struct aux_sim *sim)
{
	for (int c = 0; c < AUX_SIM_NR_CPUS; c++) {
		aux_ring__munmap(&sim->maps[c].aux);
		free(sim->cpu[c].pc);
		free(sim->cpu[c].data);
		free(sim->cpu[c].aux);
	}
	close(sim->dirfd);
	/* SHARDREC_AUX_KEEP=1 keeps the shard dir and perf.data for a look with perf. */
	if (getenv("SHARDREC_AUX_KEEP"))
		fprintf(stderr, "kept %s\n", sim->dir);
	else
		unit_rmtree(sim->dir);
}

/* Writer parameters for all the simulated rings, writer 0, CLOCK_MONOTONIC. */
static inline struct writer_params aux_sim_writer_params(struct aux_sim *sim, int zlevel,
							  int idle_ms)
{
	return (struct writer_params){.idx = 0, .group = &sim->group, .maps = sim->maps,
				      .nr_maps = AUX_SIM_NR_CPUS, .dirfd = sim->dirfd,
				      .clockid = CLOCK_MONOTONIC, .idle_ms = idle_ms,
				      .zlevel = zlevel};
}

/* Merges the shard directory into sim->out; @st is the caller's to release. */
static inline void aux_sim_merge(const struct aux_sim *sim, struct merge_stats *st)
{
	struct merge_opts o = {.dir = sim->dir, .output = sim->out, .dec = &zunpass__ops};
	char err[256];

	if (merge__run(&o, st, err, sizeof(err)))
		fail_msg("merge: %s", err);
}

/*
 * header.data: one cpu-clock event with every CPU's id, an Intel PT
 * AUXTRACE_INFO (in snapshot mode if @snapshot) as the prologue.
 */
static inline void aux_sim_write_header(struct aux_sim *sim, bool snapshot)
{
	struct pfile_event ev = {.name = "cpu-clock", .ids = sim->ids, .nr_ids = AUX_SIM_NR_CPUS};
	struct aux_info_params ip = {.pmu = "intel_pt", .pmu_type = 1, .per_cpu = true,
				     .pc = sim->cpu[0].pc, .snapshot = snapshot};
	struct pfile_featset fs = {0};
	struct pfile_header h;
	unsigned char info[512];
	uint64_t data_off, end, priv[17];
	long len;
	int fd;

	ev.attr.type = PERF_TYPE_SOFTWARE;
	ev.attr.config = PERF_COUNT_SW_CPU_CLOCK;
	ev.attr.size = sizeof(ev.attr);
	ev.attr.sample_period = 100000;
	ev.attr.sample_type = AUX_SIM_SAMPLE_TYPE;
	ev.attr.sample_id_all = 1;
	ev.attr.exclude_kernel = 1; /* no kernel maps: perf would warn they are restricted */
	len = aux_info__build(&ip, info, sizeof(info));
	assert_int_equal(len, 16 + 17 * 8 + 8); /* + caps/event_trace */
	if (snapshot) {
		memcpy(priv, info + 16, sizeof(priv));
		assert_int_equal(priv[8], 1); /* perf's INTEL_PT_SNAPSHOT_MODE */
	}
	fd = openat(sim->dirfd, "header.data", O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	pfile_header__init(&h);
	assert_int_equal(pfile__write_attrs(fd, PFILE_HEADER_SIZE, &ev, 1, &h.attrs, &data_off), 0);
	h.data.offset = data_off;
	h.data.size = len;
	assert_int_equal(pwrite(fd, info, len, data_off), len);
	assert_int_equal(pfile_feat__string(&fs, PFILE_FEAT_HOSTNAME, "testhost"), 0);
	assert_int_equal(pfile_feat__event_desc(&fs, &ev, 1), 0);
	assert_int_equal(pfile_feat__nrcpus(&fs, AUX_SIM_NR_CPUS, AUX_SIM_NR_CPUS), 0);
	assert_int_equal(pfile__write_features(fd, data_off + len, &fs, h.features, &end), 0);
	assert_int_equal(pfile__write_header(fd, &h), 0);
	close(fd);
	pfile_featset__release(&fs);
}

/* Copies @len bytes into the data ring at its head (wrapping); waits for room. */
static inline void aux_sim_ring_put(struct aux_sim_cpu *s, const void *rec, size_t len)
{
	uint64_t deadline = unit_now_ns() + AUX_SIM_WAIT_NS;

	while (s->data_size - (s->head - ring_order__load_tail(&s->pc->data_tail)) < len) {
		if (unit_now_ns() > deadline)
			fail_msg("data ring full: the writer does not drain it");
		sched_yield();
	}
	for (size_t i = 0; i < len; i++)
		s->data[(s->head + i) & (s->data_size - 1)] = ((const unsigned char *)rec)[i];
	s->head += len;
	ring_order__store_head(&s->pc->data_head, s->head);
}

/* The sample_id_all trailer of AUX_SIM_SAMPLE_TYPE: tid, time, identifier. */
static inline size_t aux_sim_put_trailer(const struct aux_sim *sim, unsigned char *p, int cpu,
					 uint64_t time)
{
	uint32_t pid[2] = {100 + cpu, 100 + cpu};

	memcpy(p, pid, 8);
	memcpy(p + 8, &time, 8);
	memcpy(p + 16, &sim->ids[cpu], 8);
	return 24;
}

/* A PERF_RECORD_SAMPLE at @ip on CPU @c, timed now: identifier, ip, pid/tid, time. */
static inline void aux_sim_put_sample(struct aux_sim *sim, int c, uint64_t ip)
{
	struct perf_event_header h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 40};
	uint32_t pid[2] = {100 + c, 100 + c};
	unsigned char rec[40];
	uint64_t n = unit_now_ns();

	memcpy(rec, &h, 8);
	memcpy(rec + 8, &sim->ids[c], 8);
	memcpy(rec + 16, &ip, 8);
	memcpy(rec + 24, pid, 8);
	memcpy(rec + 32, &n, 8);
	aux_sim_ring_put(&sim->cpu[c], rec, h.size);
}

/*
 * The samples of shard.0 in @dirfd, numbered by aux_sim_put_sample's @ip
 * (tests without AUX): per CPU each must be @next[cpu], which advances.
 * @run_id: the shard's, checked unless NULL. Returns the samples read.
 */
static inline uint64_t aux_sim_read_numbered(int dirfd, const uint8_t *run_id,
					     uint64_t next[AUX_SIM_NR_CPUS])
{
	struct shard_reader r;
	struct shard_pass p;
	uint64_t got = 0;
	char err[256];

	assert_int_equal(shard_reader__open(&r, dirfd, "shard.0", err, sizeof(err)), 0);
	if (run_id)
		assert_memory_equal(r.hdr.run_id, run_id, SHARD_RUN_ID_SIZE);
	while (shard_reader__next_pass(&r, &p, err, sizeof(err)) == 1) {
		const unsigned char *data;
		size_t pos = 0, len;
		uint32_t cpu;

		while (shard_pass__next_chunk(&p, &pos, &cpu, &data, &len) == 1) {
			for (size_t off = 0; off < len; got++) {
				const struct perf_event_header *h = (const void *)(data + off);
				uint64_t ip;

				assert_int_equal(h->type, PERF_RECORD_SAMPLE);
				memcpy(&ip, data + off + 16, 8);
				assert_int_equal(ip, next[cpu]++);
				off += h->size;
			}
		}
		shard_pass__release(&p);
	}
	shard_reader__close(&r);
	return got;
}

/*
 * @len trace bytes at CPU @c's aux_head, as the kernel writes them: the
 * pattern over whatever the area held (room, if wanted, is the caller's
 * business), then a PERF_RECORD_AUX with @flags saying where they are,
 * then aux_head published (perf_aux_output_end's order).
 */
static inline void aux_sim_put_aux(struct aux_sim *sim, int c, uint64_t len, uint64_t flags)
{
	struct aux_sim_cpu *s = &sim->cpu[c];
	struct perf_event_header h = {PERF_RECORD_AUX, 0, 8 + 24 + 24};
	unsigned char rec[56];
	uint64_t f[3];

	for (uint64_t i = 0; i < len; i++)
		s->aux[(s->aux_head + i) & (s->aux_size - 1)] = aux_sim_pat(c, s->aux_head + i);
	f[0] = s->aux_head;
	f[1] = len;
	f[2] = flags;
	memcpy(rec, &h, 8);
	memcpy(rec + 8, f, 24);
	aux_sim_put_trailer(sim, rec + 32, c, unit_now_ns());
	aux_sim_ring_put(s, rec, h.size);
	s->aux_head += len;
	ring_order__store_head(&s->pc->aux_head, s->aux_head);
}

/* An AUXTRACE record read back: where it is in the file, its size and offset. */
struct aux_sim_rec {
	uint64_t file_off, size, offset;
};

/* The AUXTRACE records read back, in file order: at most max. */
struct aux_sim_seen {
	struct aux_sim_rec *rec;
	size_t nr, max;
};

static inline void aux_sim_seen_init(struct aux_sim_seen *sn, size_t max)
{
	sn->rec = calloc(max, sizeof(*sn->rec));
	assert_non_null(sn->rec);
	sn->nr = 0;
	sn->max = max;
}

static inline void aux_sim_seen_release(struct aux_sim_seen *sn)
{
	free(sn->rec);
}

/*
 * The AUXTRACE record @rec of @len bytes: a 48-byte header, a simulated CPU,
 * idx = cpu, @len = 48 + size. Returns its header.
 */
static inline struct aux_auxtrace aux_sim_auxtrace(const unsigned char *rec, size_t len)
{
	struct aux_auxtrace a;

	memcpy(&a, rec, sizeof(a));
	assert_int_equal(a.header.size, 48);
	assert_true(a.cpu < AUX_SIM_NR_CPUS);
	assert_int_equal(a.idx, a.cpu);
	assert_int_equal(len, 48 + a.size);
	return a;
}

/* Notes the AUXTRACE record @a at file offset @off. */
static inline void aux_sim_seen_add(struct aux_sim_seen *sn, const struct aux_auxtrace *a,
				    uint64_t off)
{
	assert_true(sn->nr < sn->max);
	sn->rec[sn->nr++] = (struct aux_sim_rec){off, a->size, a->offset};
}

/* The merged perf.data's records in file order: aux_sim_read_next(). */
struct aux_sim_reader {
	struct pfile pf;
	struct pfile_reader r;
};

static inline void aux_sim_read_open(struct aux_sim_reader *rd, const struct aux_sim *sim)
{
	char err[256];

	assert_int_equal(pfile__open(&rd->pf, sim->out, err, sizeof(err)), 0);
	assert_int_equal(pfile_reader__init(&rd->r, rd->pf.fd, rd->pf.hdr.data.offset,
					    rd->pf.hdr.data.size, 0),
			 0);
}

/* The next record, its length and file offset; false at the end. */
static inline bool aux_sim_read_next(struct aux_sim_reader *rd, const struct perf_event_header **h,
				     size_t *len, uint64_t *off)
{
	return pfile_reader__next(&rd->r, h, len, off) > 0;
}

/* Closes @rd, whose AUXTRACE records are @sn: HEADER_AUXTRACE must list exactly them. */
static inline void aux_sim_read_close(struct aux_sim_reader *rd, const struct aux_sim_seen *sn)
{
	const uint64_t *idx;
	uint64_t nr;

	pfile_reader__release(&rd->r);
	/* HEADER_AUXTRACE: u64 nr, then {file offset, header size} in file order */
	assert_true(pfile_featset__has(&rd->pf.feats, PFILE_FEAT_AUXTRACE));
	idx = rd->pf.feats.sec[PFILE_FEAT_AUXTRACE].data;
	nr = idx[0];
	assert_int_equal(nr, sn->nr);
	assert_int_equal(rd->pf.feats.sec[PFILE_FEAT_AUXTRACE].size, 8 + 16 * nr);
	for (uint64_t i = 0; i < nr; i++) {
		assert_int_equal(idx[1 + 2 * i], sn->rec[i].file_off);
		assert_int_equal(idx[2 + 2 * i], 48);
	}
	pfile__close(&rd->pf);
}

/*
 * perf @tool -D on the merged perf.data, if perf is installed (else false,
 * nothing checked). Its stderr may hold "Warning:" lines and the line @also
 * (if not NULL), nothing else; its stdout must print every AUXTRACE record
 * of @sn at its file offset with its size and offset, and the Intel PT
 * AUXTRACE_INFO. *@out and *@err are left for the test's own checks:
 * aux_sim_perf_done() then.
 */
static inline bool aux_sim_perf(const struct aux_sim *sim, const struct aux_sim_seen *sn,
				const char *tool, const char *also, char **out, char **err)
{
	char line[160];
	const char *p;

	if (access(AUX_SIM_PERF, X_OK))
		return false;
	assert_int_equal(unit_run(sim->dir, out, err, AUX_SIM_PERF " %s -D -i %s", tool, sim->out),
			 0);
	for (p = *err; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (n && strncmp(p, "Warning:", n) && (!also || strncmp(p, also, n)))
			fail_msg("perf %s stderr: %.*s", tool, (int)n, p);
		p += n + !!nl;
	}
	for (size_t i = 0; i < sn->nr; i++) {
		snprintf(line, sizeof(line),
			 "%#llx [0x30]: PERF_RECORD_AUXTRACE size: %#llx  offset: %#llx ",
			 (unsigned long long)sn->rec[i].file_off, (unsigned long long)sn->rec[i].size,
			 (unsigned long long)sn->rec[i].offset);
		if (!strstr(*out, line))
			fail_msg("perf %s -D lacks '%s'", tool, line);
	}
	assert_non_null(strstr(*out, "PERF_RECORD_AUXTRACE_INFO type: 1"));
	return true;
}

static inline void aux_sim_perf_done(const struct aux_sim *sim, char *out, char *err)
{
	free(out);
	free(err);
	unit_run_unlink(sim->dir);
}

#endif /* SHARDREC_AUX_SIM_H */
