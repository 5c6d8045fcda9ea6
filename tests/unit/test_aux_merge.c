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
#define STEPS 300
#define TRUNC_EVERY 50 /* every 50th AUX record says TRUNCATED */
#define MAX_AUXTRACE (NR_CPUS * STEPS)

static const uint64_t ids[NR_CPUS] = {501, 502};

struct t {
	struct aux_sim sim;
	uint64_t truncated;
};

/*
 * One step on a CPU, as the kernel does it: AUX bytes (once there is room),
 * then a PERF_RECORD_AUX saying where they are, then a sample.
 */
static void produce(struct t *t, int c, unsigned step)
{
	struct aux_sim_cpu *s = &t->sim.cpu[c];
	uint64_t len = 1 + (step * 37 + c * 11) % 700, flags = 0;

	while (AUX_SIZE - (s->aux_head - ring_order__load_tail(&s->pc->aux_tail)) < len)
		sched_yield();
	if (step % TRUNC_EVERY == TRUNC_EVERY - 1) {
		flags = PERF_AUX_FLAG_TRUNCATED;
		t->truncated++;
	}
	aux_sim_put_aux(&t->sim, c, len, flags);
	aux_sim_put_sample(&t->sim, c, 0x400000 + step);
}

static void record(struct t *t, int zlevel)
{
	struct writer_params p = aux_sim_writer_params(&t->sim, zlevel, 1);
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
		assert_int_equal(t->sim.maps[c].aux.tail, t->sim.cpu[c].aux_head);
		assert_int_equal(t->sim.cpu[c].pc->aux_tail, t->sim.cpu[c].aux_head);
	}
}

struct seen {
	struct aux_sim_seen aux;
	uint64_t next[NR_CPUS]; /* AUX stream position expected next, per CPU */
	uint64_t told[NR_CPUS]; /* AUX stream end the AUX records so far announced, per CPU */
	bool plain;             /* AUX records are top-level (with -z they are in COMPRESSED ones) */
};

/* A PERF_RECORD_AUX {offset, size, flags} + {pid, tid, time, id}: how far its CPU's trace goes. */
static void note_aux(struct seen *sn, const unsigned char *rec)
{
	uint64_t f[2], id;
	int c = 0;

	memcpy(f, rec + 8, sizeof(f));
	memcpy(&id, rec + 48, 8);
	while (c < NR_CPUS && ids[c] != id)
		c++;
	assert_true(c < NR_CPUS);
	if (f[0] + f[1] > sn->told[c])
		sn->told[c] = f[0] + f[1];
}

/* An AUXTRACE record: continuous per CPU, bytes as produced, padding zero. */
static void check_auxtrace(struct seen *sn, const unsigned char *rec, size_t len, uint64_t off)
{
	struct aux_auxtrace a = aux_sim_auxtrace(rec, len);
	uint64_t data;

	assert_int_equal(a.offset, sn->next[a.cpu]);
	assert_int_equal(a.size % 8, 0);
	data = a.size;
	while (data && rec[48 + data - 1] == 0)
		data--; /* padding */
	assert_true(data && data + 8 > a.size);
	/* After the AUX records that announce it: the writer reads aux_head before the ring's head */
	if (sn->plain)
		assert_true(a.offset + data <= sn->told[a.cpu]);
	for (uint64_t i = 0; i < data; i++)
		assert_int_equal(rec[48 + i], aux_sim_pat(a.cpu, a.offset + i));
	sn->next[a.cpu] += data;
	aux_sim_seen_add(&sn->aux, &a, off);
}

static void read_back(struct t *t, struct seen *sn)
{
	struct aux_sim_reader rd;
	const struct perf_event_header *h;
	size_t len;
	uint64_t off;

	aux_sim_read_open(&rd, &t->sim);
	while (aux_sim_read_next(&rd, &h, &len, &off)) {
		/*
		 * An AUXTRACE after the AUX records announcing its bytes,
		 * wherever the merge put them; what binds it is its CPU and
		 * offset, checked here, and HEADER_AUXTRACE. (The simulator
		 * used to publish aux_head before the AUX record, against the
		 * kernel's order: a pass then took trace with no record of its
		 * ring, and the merge put it after the ring's next trace.)
		 */
		if (h->type == PERF_RECORD_AUX)
			note_aux(sn, (const void *)h);
		if (h->type == PFILE_REC_AUXTRACE)
			check_auxtrace(sn, (const void *)h, len, off);
	}
	for (int c = 0; c < NR_CPUS; c++)
		assert_int_equal(sn->next[c], t->sim.cpu[c].aux_head);
	aux_sim_read_close(&rd, &sn->aux);
}

/* perf -D prints every AUXTRACE record; stderr holds perf's AUX loss warning and nothing else. */
static void perf_oracle(struct t *t, const struct seen *sn, const char *tool)
{
	char want[128];
	char *out, *err;

	snprintf(want, sizeof(want), "AUX data lost %llu times out of %u!",
		 (unsigned long long)t->truncated, NR_CPUS * STEPS);
	if (!aux_sim_perf(&t->sim, &sn->aux, tool, want, &out, &err))
		return;
	assert_non_null(strstr(err, want));
	aux_sim_perf_done(&t->sim, out, err);
}

static void run(int zlevel)
{
	struct t t = {.sim.dirfd = -1};
	struct merge_stats st;
	struct seen sn = {.plain = !zlevel};

	aux_sim_seen_init(&sn.aux, MAX_AUXTRACE);
	aux_sim_setup(&t.sim, "auxm", ids, DATA_SIZE, AUX_SIZE, false);
	aux_sim_write_header(&t.sim, false);
	record(&t, zlevel);
	aux_sim_merge(&t.sim, &st);
	assert_int_equal(st.aux_records, NR_CPUS * STEPS);
	assert_int_equal(st.aux_truncated, t.truncated);
	assert_int_equal(st.late, 0);
	read_back(&t, &sn);
	assert_int_equal(st.auxtrace_records, sn.aux.nr);
	perf_oracle(&t, &sn, "report");
	perf_oracle(&t, &sn, "script");
	merge_stats__release(&st);
	aux_sim_release(&t.sim);
	aux_sim_seen_release(&sn.aux);
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

/*
 * Layouts of AUXTRACE_INFO: perf 6.1's sizes, types, and no record for
 * unknown PMUs. Intel PT's caps/event_trace goes in one u64 after the
 * filter string (after priv[16] without one), where perf 6.1's
 * intel_pt_process_auxtrace_info reads "Cap Event Trace".
 */
static void test_info_layouts(void **state)
{
	char root[] = "/tmp/test_aux_merge.XXXXXX";
	unsigned char buf[512];
	struct aux_info_params p = {.pmu = "intel_pt", .pmu_type = 9, .filter = "filter main",
				    .have_sched_switch = 3, .snapshot = true, .per_cpu = true};
	uint32_t type;
	uint64_t priv[20];

	(void)state;
	assert_non_null(mkdtemp(root));
	unit_put_intel_pt(root);
	unit_put_file(root, "sys/bus/event_source/devices/intel_pt/caps/event_trace", "1\n");
	p.sysfs_root = root;
	assert_int_equal(aux_info__build(&p, buf, sizeof(buf)), 16 + 17 * 8 + 16 + 8);
	memcpy(&type, buf + 8, 4);
	memcpy(priv, buf + 16, sizeof(priv));
	assert_int_equal(type, AUX_TYPE_INTEL_PT);
	assert_int_equal(priv[0], 9);
	/* INTEL_PT_HAVE_SCHED_SWITCH is perf's 0..3, not a flag */
	assert_int_equal(priv[7], 3);
	assert_int_equal(priv[8], 1);
	assert_int_equal(priv[9], 1);
	assert_int_equal(priv[16], strlen("filter main"));
	assert_string_equal((char *)(buf + 16 + 17 * 8), "filter main");
	assert_int_equal(priv[17 + 2], 1);
	assert_int_equal(aux_info__build(&p, buf, 100), -ENOSPC);
	p.filter = NULL;
	assert_int_equal(aux_info__build(&p, buf, sizeof(buf)), 16 + 17 * 8 + 8);
	memcpy(priv, buf + 16, 18 * 8);
	assert_int_equal(priv[16], 0);
	assert_int_equal(priv[17], 1);
	unit_rmtree(root);
	p.sysfs_root = NULL;
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
