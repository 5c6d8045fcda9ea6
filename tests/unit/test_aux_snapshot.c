// SPDX-License-Identifier: GPL-2.0
/*
 * AUX snapshot mode (-S) through the real writer thread and merge. Two
 * simulated CPUs, each with a forward data ring and an AUX area in overwrite
 * mode on caller memory; the test plays the kernel: it writes AUX bytes of a
 * known pattern without ever looking at aux_tail, a PERF_RECORD_AUX with
 * PERF_AUX_FLAG_OVERWRITE and a sample per write into the data ring.
 *
 * The recording runs in deterministic phases: produce a known amount on each
 * CPU (nothing, less than snap_size, several times the area), stop, and
 * either ask for a snapshot with writer__snapshot() and wait until the
 * writer has served it, or ask for nothing. A model of perf's snapshot
 * semantics follows along: a served request takes the newest
 * min(new bytes since the previous snapshot, snap_size) bytes (less the
 * producer's guard when that would reach past the area), and counts the
 * rest in a->lost.
 *
 * The merged perf.data is read back and must hold, per CPU and in order,
 * exactly the AUXTRACE records the model predicts: offset = head at the
 * snapshot - bytes taken, size = bytes taken padded to 8, the pattern's
 * bytes at those positions, zero padding. So a request with no new data
 * writes no (empty) record, bytes produced without a request appear only if
 * a later snapshot's window reaches them, and an ignored request fails the
 * test. a->lost, the served-request count and HEADER_AUXTRACE are checked
 * too, and perf (if installed) must list every record with its size and
 * offset, given an Intel PT AUXTRACE_INFO that says snapshot mode.
 *
 * Waiting for a request without touching the writer's own counters: after
 * writer__snapshot() the test puts a marker sample into each CPU's data ring
 * and waits until data_tail passes it. The writer reads a ring's data_head
 * before that ring's AUX area in every pass, so the pass that sees the
 * marker also sees the request (release/acquire on snap_req), and data_tail
 * moves only after that pass is written: once the tail has passed the
 * marker, the snapshot has been copied, which also orders the copy before
 * the next phase's AUX writes for TSan.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "aux/aux.h"
#include "aux_sim.h"
#include "recorder/merge/merge.h"
#include "recorder/perfdata/pfile_format.h"
#include "recorder/capture/writer.h"
#include "ringbuf/ring_order.h"
#include "unit_util.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NR_CPUS AUX_SIM_NR_CPUS
#define DATA_SIZE 16384
#define AUX_SIZE 8192
#define CHUNK_MAX 700 /* largest AUX write: the guard of the guarded case */
#define MAX_PHASES 16
#define MAX_SNAPS (NR_CPUS * MAX_PHASES)
#define WAIT_NS AUX_SIM_WAIT_NS /* a served request takes a pass: 10 s is a hang */
#define MARKER_IP 0xdead0000ULL

static const uint64_t ids[NR_CPUS] = {601, 602};

/* AUX bytes each CPU writes in a phase, and whether a snapshot follows. */
struct phase {
	uint64_t bytes[NR_CPUS];
	bool snap;
};

struct scenario {
	const char *name;
	uint64_t snap_size, guard;
	int zlevel;
	const struct phase *phases;
	size_t nr_phases;
};

/* One AUXTRACE record the model expects. */
struct snap {
	uint64_t offset, size, taken;
};

/* Per CPU, next to the simulation: the producer's write count and the model. */
struct model {
	uint64_t chunk; /* AUX writes so far: picks the next length */
	uint64_t snap_head; /* aux_head at the last served snapshot */
	uint64_t lost, taken, requests;
	struct snap want[MAX_PHASES];
	size_t nr_want;
};

struct t {
	struct aux_sim sim;
	struct model m[NR_CPUS];
	uint64_t aux_records, samples;
};

struct seen {
	struct aux_sim_seen aux;
	size_t nr_cpu[NR_CPUS];
};

static void sim_setup(struct t *t, const struct scenario *sc)
{
	aux_sim_setup(&t->sim, "auxs", ids, DATA_SIZE, AUX_SIZE, true);
	for (int c = 0; c < NR_CPUS; c++) {
		struct aux_ring *a = &t->sim.maps[c].aux;

		assert_int_equal(a->snap_size, AUX_SIZE);
		a->snap_size = sc->snap_size;
		a->guard = sc->guard;
	}
}

static void put_sample(struct t *t, int c, uint64_t ip)
{
	aux_sim_put_sample(&t->sim, c, ip);
	t->samples++;
}

/*
 * One AUX write of at most @left bytes on CPU @c, as the kernel does it in
 * overwrite mode: the bytes go over whatever the area held, aux_tail is
 * never looked at; then a PERF_RECORD_AUX (OVERWRITE) and a sample.
 * Returns the bytes written.
 */
static uint64_t produce(struct t *t, int c, uint64_t left)
{
	struct model *m = &t->m[c];
	uint64_t len = 1 + (m->chunk++ * 37 + c * 11) % CHUNK_MAX;

	len = len < left ? len : left;
	aux_sim_put_aux(&t->sim, c, len, PERF_AUX_FLAG_OVERWRITE);
	t->aux_records++;
	put_sample(t, c, 0x400000 + m->chunk);
	return len;
}

/* The phase's AUX bytes, the CPUs' writes interleaved. */
static void produce_phase(struct t *t, const struct phase *ph)
{
	uint64_t left[NR_CPUS];
	bool more = true;

	memcpy(left, ph->bytes, sizeof(left));
	while (more) {
		more = false;
		for (int c = 0; c < NR_CPUS; c++) {
			if (left[c])
				left[c] -= produce(t, c, left[c]);
			more |= left[c] != 0;
		}
	}
}

/* What a served request must take from @s: perf's snapshot of the newest bytes. */
static void model_snapshot(struct model *m, const struct aux_sim_cpu *s,
			   const struct scenario *sc)
{
	uint64_t fresh = s->aux_head - m->snap_head;
	uint64_t keep = fresh < sc->snap_size ? fresh : sc->snap_size;
	uint64_t drop = 0;

	/* Bytes the guard says the producer may be rewriting unannounced. */
	if (keep + sc->guard > AUX_SIZE)
		drop = keep + sc->guard - AUX_SIZE;
	keep -= drop < keep ? drop : keep;
	m->lost += fresh - keep;
	m->taken += keep;
	m->requests++;
	if (keep) {
		assert_true(m->nr_want < MAX_PHASES);
		m->want[m->nr_want++] = (struct snap){s->aux_head - keep, (keep + 7) & ~7ULL, keep};
	}
	m->snap_head = s->aux_head;
}

/*
 * Asks for a snapshot and waits until it is served: a marker sample after
 * the request, then data_tail past it (see the header comment).
 */
static void snapshot_and_wait(struct t *t, struct writer *w, const struct scenario *sc,
			      unsigned phase)
{
	uint64_t deadline = unit_now_ns() + WAIT_NS;

	assert_true(writer__snapshot(w));
	for (int c = 0; c < NR_CPUS; c++) {
		put_sample(t, c, MARKER_IP + phase);
		model_snapshot(&t->m[c], &t->sim.cpu[c], sc);
	}
	for (int c = 0; c < NR_CPUS; c++) {
		struct aux_sim_cpu *s = &t->sim.cpu[c];

		while (ring_order__load_tail(&s->pc->data_tail) != s->head) {
			if (unit_now_ns() > deadline)
				fail_msg("%s phase %u: cpu %d: snapshot not served", sc->name,
					 phase, c);
			sched_yield();
		}
	}
}

static void record(struct t *t, const struct scenario *sc)
{
	struct writer_params p = aux_sim_writer_params(&t->sim, sc->zlevel, 1);
	struct writer *w = writer__new(&p);

	assert_non_null(w);
	assert_int_equal(writer__start(w), 0);
	for (unsigned i = 0; i < sc->nr_phases; i++) {
		produce_phase(t, &sc->phases[i]);
		if (sc->phases[i].snap)
			snapshot_and_wait(t, w, sc, i);
	}
	writer__stop(w);
	assert_int_equal(writer__join(w), 0);
	assert_int_equal(writer__stats(w)->err, 0);
	writer__delete(w);
	for (int c = 0; c < NR_CPUS; c++) {
		struct aux_sim_cpu *s = &t->sim.cpu[c];
		const struct aux_ring *a = &t->sim.maps[c].aux;
		struct model *m = &t->m[c];

		/* Every request served, once; the kernel's aux_tail left alone. */
		assert_int_equal(a->snap_req, m->requests);
		assert_int_equal(a->snap_done, m->requests);
		assert_int_equal(a->tail, m->snap_head);
		assert_int_equal(a->lost, m->lost);
		assert_int_equal(a->bytes, m->taken);
		assert_int_equal(a->records, m->nr_want);
		assert_int_equal(s->pc->aux_tail, 0);
		assert_int_equal(s->pc->data_tail, s->head);
	}
}

/* An AUXTRACE record: the next one the model expects on its CPU, byte for byte. */
static void check_auxtrace(struct t *t, struct seen *sn, const unsigned char *rec, size_t len,
			   uint64_t off)
{
	struct aux_auxtrace a = aux_sim_auxtrace(rec, len);
	const struct snap *want;
	struct model *m;

	assert_int_equal(a.tid, (uint32_t)-1);
	assert_true(a.size > 0); /* a request with nothing new writes no record */
	m = &t->m[a.cpu];
	if (sn->nr_cpu[a.cpu] >= m->nr_want)
		fail_msg("cpu %u: unexpected AUXTRACE offset %#llx size %#llx", a.cpu,
			 (unsigned long long)a.offset, (unsigned long long)a.size);
	want = &m->want[sn->nr_cpu[a.cpu]++];
	assert_int_equal(a.offset, want->offset);
	assert_int_equal(a.size, want->size);
	for (uint64_t i = 0; i < want->taken; i++)
		assert_int_equal(rec[48 + i], aux_sim_pat(a.cpu, a.offset + i));
	for (uint64_t i = want->taken; i < a.size; i++)
		assert_int_equal(rec[48 + i], 0);
	/* Nothing produced after the last served request is ever written. */
	assert_true(a.offset + want->taken <= m->snap_head);
	aux_sim_seen_add(&sn->aux, &a, off);
}

static void read_back(struct t *t, struct seen *sn)
{
	struct aux_sim_reader rd;
	const struct perf_event_header *h;
	size_t len, total = 0;
	uint64_t off;

	aux_sim_read_open(&rd, &t->sim);
	while (aux_sim_read_next(&rd, &h, &len, &off))
		if (h->type == PFILE_REC_AUXTRACE)
			check_auxtrace(t, sn, (const void *)h, len, off);
	for (int c = 0; c < NR_CPUS; c++) {
		assert_int_equal(sn->nr_cpu[c], t->m[c].nr_want);
		total += t->m[c].nr_want;
	}
	assert_int_equal(sn->aux.nr, total);
	aux_sim_read_close(&rd, &sn->aux);
}

/*
 * perf -D prints every AUXTRACE record at its file offset with its size and
 * offset, no more, in snapshot mode. No PERF_AUX_FLAG_TRUNCATED: perf's
 * stderr may hold its "Warning:" lines only.
 */
static void perf_oracle(struct t *t, const struct seen *sn, const char *tool)
{
	char *out, *err;

	if (!aux_sim_perf(&t->sim, &sn->aux, tool, NULL, &out, &err))
		return;
	assert_int_equal(unit_count(out, ": PERF_RECORD_AUXTRACE size: "), sn->aux.nr);
	assert_non_null(strstr(out, "  Snapshot mode       1\n"));
	aux_sim_perf_done(&t->sim, out, err);
}

static void run(const struct scenario *sc)
{
	struct t t = {.sim.dirfd = -1};
	struct merge_stats st;
	struct seen sn = {0};
	uint64_t padded = 0;

	aux_sim_seen_init(&sn.aux, MAX_SNAPS);
	sim_setup(&t, sc);
	aux_sim_write_header(&t.sim, true);
	record(&t, sc);
	aux_sim_merge(&t.sim, &st);
	read_back(&t, &sn);
	for (size_t i = 0; i < sn.aux.nr; i++)
		padded += sn.aux.rec[i].size;
	assert_int_equal(st.aux_records, t.aux_records);
	assert_int_equal(st.aux_overwrite, t.aux_records);
	assert_int_equal(st.aux_truncated + st.aux_partial + st.aux_collision, 0);
	assert_int_equal(st.samples, t.samples);
	assert_int_equal(st.auxtrace_records, sn.aux.nr);
	assert_int_equal(st.auxtrace_bytes, padded);
	assert_int_equal(st.late, 0);
	perf_oracle(&t, &sn, "report");
	perf_oracle(&t, &sn, "script");
	merge_stats__release(&st);
	aux_sim_release(&t.sim);
	aux_sim_seen_release(&sn.aux);
}

/* snap_size below the area: each snapshot holds at most 3000 bytes. */
static const struct phase phases_part[] = {
	{{1000, 1200}, true},   /* less than snap_size: all of it */
	{{20000, 17000}, true}, /* several times the area: the newest 3000 */
	{{0, 0}, true},         /* nothing new: no record */
	{{0, 500}, true},       /* new bytes on one CPU only */
	{{2000, 2500}, false},  /* never requested... */
	{{3000, 4000}, true},   /* ...and out of this snapshot's window: lost */
	{{2999, 3001}, true},   /* either side of snap_size */
	{{1, 8}, true},         /* padding, and none */
	{{700, 9000}, false},   /* never requested: never written */
};

/* snap_size = the area. */
static const struct phase phases_whole[] = {
	{{5000, 8192}, true},
	{{8191, 30000}, true},
	{{0, 0}, true},
	{{0, 0}, true},         /* twice nothing */
	{{3000, 100}, false},   /* not requested: only what the next window reaches... */
	{{6000, 200}, true},    /* ...is written (cpu 0: 2192 of its 3000 bytes) */
	{{16384, 7}, true},
	{{900, 1000}, false},
};

#define NR_PART (sizeof(phases_part) / sizeof(phases_part[0]))
#define NR_WHOLE (sizeof(phases_whole) / sizeof(phases_whole[0]))

static const struct scenario sc_part = {.name = "part", .snap_size = 3000,
					 .phases = phases_part, .nr_phases = NR_PART};
static const struct scenario sc_part_z = {.name = "part-z", .snap_size = 3000, .zlevel = 1,
					   .phases = phases_part, .nr_phases = NR_PART};
static const struct scenario sc_whole = {.name = "whole", .snap_size = AUX_SIZE,
					  .phases = phases_whole, .nr_phases = NR_WHOLE};
/* A producer that may be writing CHUNK_MAX bytes unannounced: those are never taken. */
static const struct scenario sc_guard = {.name = "guard", .snap_size = AUX_SIZE,
					  .guard = CHUNK_MAX, .phases = phases_whole,
					  .nr_phases = NR_WHOLE};

static void test_snap_part(void **state)
{
	(void)state;
	run(&sc_part);
}

static void test_snap_part_zstd(void **state)
{
	(void)state;
	run(&sc_part_z);
}

static void test_snap_whole(void **state)
{
	(void)state;
	run(&sc_whole);
}

static void test_snap_guard(void **state)
{
	(void)state;
	run(&sc_guard);
}

/*
 * writer__snapshot() is true only for a writer with something to snapshot:
 * an AUX area in overwrite mode (whose request it counts) or --overwrite
 * rings. The writers are never started: the request just stays pending.
 */
static void test_snapshot_ret(void **state)
{
	struct t t = {.sim.dirfd = -1};
	struct writer_params p;
	struct aux_ring fwd, snap[AUX_SIM_NR_CPUS];
	unsigned char fwd_data[64];
	struct perf_event_mmap_page fwd_pc = {0};
	struct writer *w;

	(void)state;
	sim_setup(&t, &sc_part);
	p = aux_sim_writer_params(&t.sim, 0, 1);
	assert_int_equal(aux_ring__init_mem(&fwd, &fwd_pc, fwd_data, sizeof(fwd_data), false), 0);

	/* No AUX area, no --overwrite. The snapshot-mode areas wait aside. */
	for (int c = 0; c < AUX_SIM_NR_CPUS; c++) {
		snap[c] = t.sim.maps[c].aux;
		t.sim.maps[c].aux = (struct aux_ring){0};
	}
	p.idx = 0;
	w = writer__new(&p);
	assert_non_null(w);
	assert_false(writer__snapshot(w));
	writer__delete(w);

	/* A normal-mode AUX area has nothing to snapshot: no request is counted. */
	t.sim.maps[0].aux = fwd;
	p.idx = 1;
	w = writer__new(&p);
	assert_non_null(w);
	assert_false(writer__snapshot(w));
	assert_int_equal(t.sim.maps[0].aux.snap_req, 0);
	writer__delete(w);

	/* --overwrite rings, no AUX area in snapshot mode. */
	p.overwrite = true;
	p.idx = 2;
	w = writer__new(&p);
	assert_non_null(w);
	assert_true(writer__snapshot(w));
	assert_int_equal(t.sim.maps[0].aux.snap_req, 0);
	writer__delete(w);

	/* One AUX area in overwrite mode among the rings: only it is asked. */
	p.overwrite = false;
	t.sim.maps[1].aux = snap[1];
	p.idx = 3;
	w = writer__new(&p);
	assert_non_null(w);
	assert_true(writer__snapshot(w));
	assert_true(writer__snapshot(w));
	assert_int_equal(t.sim.maps[1].aux.snap_req, 2);
	assert_int_equal(snap[0].snap_req, 0);
	assert_int_equal(t.sim.maps[0].aux.snap_req, 0);
	writer__delete(w);

	/* Back in place, for aux_sim_release to free. */
	t.sim.maps[0].aux = snap[0];
	aux_ring__munmap(&fwd);
	aux_sim_release(&t.sim);
}

static off_t shard_size(struct t *t)
{
	struct stat sb;

	assert_int_equal(fstatat(t->sim.dirfd, "shard.0", &sb, 0), 0);
	return sb.st_size;
}

/* Waits until the shard holds at least @size bytes: what the writer wrote is on file. */
static void wait_shard(struct t *t, off_t size, const char *what)
{
	uint64_t deadline = unit_now_ns() + WAIT_NS;

	while (shard_size(t) < size) {
		if (unit_now_ns() > deadline)
			fail_msg("%s: the shard stays at %lld bytes", what,
				 (long long)shard_size(t));
		sched_yield();
	}
}

/*
 * writer__snapshot() wakes the writer: with a one-minute idle timeout and
 * no ring fd to poll, only its eventfd can start the pass that serves the
 * request before the stop. That pass is watched on the shard file.
 */
static void test_snapshot_wakes(void **state)
{
	static const struct phase ph = {{1000, 0}, true};
	struct t t = {.sim.dirfd = -1};
	struct writer_params p;
	struct writer *w;
	off_t size;

	(void)state;
	sim_setup(&t, &sc_part);
	p = aux_sim_writer_params(&t.sim, 0, 60000);
	w = writer__new(&p);
	assert_non_null(w);
	size = shard_size(&t);
	assert_int_equal(writer__start(w), 0);
	wait_shard(&t, size + 1, "first pass");
	/* The writer sleeps in poll now; nothing it reads changes before the request. */
	produce_phase(&t, &ph);
	size = shard_size(&t);
	assert_true(writer__snapshot(w));
	wait_shard(&t, size + 48 + 1000, "snapshot pass");
	writer__stop(w);
	assert_int_equal(writer__join(w), 0);
	writer__delete(w);
	assert_int_equal(t.sim.maps[0].aux.snap_done, 1);
	assert_int_equal(t.sim.maps[0].aux.records, 1);
	assert_int_equal(t.sim.maps[0].aux.bytes, 1000);
	assert_int_equal(t.sim.maps[0].aux.lost, 0);
	assert_int_equal(t.sim.maps[1].aux.snap_done, 1);
	assert_int_equal(t.sim.maps[1].aux.records, 0);
	aux_sim_release(&t.sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snapshot_ret),
		cmocka_unit_test(test_snapshot_wakes),
		cmocka_unit_test(test_snap_part),
		cmocka_unit_test(test_snap_part_zstd),
		cmocka_unit_test(test_snap_whole),
		cmocka_unit_test(test_snap_guard),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
