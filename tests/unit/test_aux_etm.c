// SPDX-License-Identifier: GPL-2.0
/*
 * CoreSight ETM's PERF_RECORD_AUXTRACE_INFO (aux/aux_info.c) against perf
 * 6.1. The words are checked one by one against what perf 6.1's
 * cs_etm_info_fill (tools/perf/arch/arm/util/cs-etm.c) writes for a fake
 * sysfs tree (cs_etm/cpuN/trcidr/..., mgmt/...): header version 1, pmu type
 * << 32 | nr cpus, snapshot, then per CPU {magic, cpu, nr params, registers}
 * for ETMv4, ETE and ETMv3. Then perf is the oracle: a perf.data holding
 * the record and a cs_etm event must go through perf report -D and perf
 * script -D (cs_etm__process_auxtrace_info) with the metadata dumped and
 * nothing on stderr, while the old generic {pmu type, per_cpu} layout must
 * make perf fail: perf reads its first word as the header version.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "aux/aux.h"
#include "recorder/perfdata/pfile_feat.h"
#include "recorder/perfdata/pfile_write.h"
#include "unit_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PERF_BIN "/usr/bin/perf"
#define PMU_TYPE 42 /* the fake cs_etm's attr.type */
#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_CPU)

/* coresight-pmu.h (6.1): ETM_OPT_* bits of attr.config */
#define OPT_BB (1ULL << 8)
#define OPT_CYCACC (1ULL << 12)
#define OPT_CTXTID (1ULL << 14)
#define OPT_CTXTID2 (1ULL << 15)
#define OPT_TS (1ULL << 28)
#define OPT_RETSTK (1ULL << 29)

#define MAGIC_V3 0x3030303030303030ULL
#define MAGIC_V4 0x4040404040404040ULL
#define MAGIC_ETE 0x5050505050505050ULL

/* A Cortex-A53's ETMv4 (Juno) and a Cortex-A710's ETE. */
static const struct regs {
	const char *idr0, *idr1, *idr2, *idr8, *auth, *devarch;
} etmv4_regs = {"0x28000ea1", "0x4100f403", "0x488", "0x0", "0xcc", "0x47704a13"},
  ete_regs = {"0x28c1c1eb", "0x4100fff0", "0xd0001088", "0x0", "0xcc", "0x47705a13"};

struct fake {
	char root[64];
};

static void put_reg(struct fake *fk, int cpu, const char *file, const char *val)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "sys/bus/event_source/devices/cs_etm/cpu%d/%s", cpu, file);
	unit_put_file(fk->root, rel, "%s\n", val);
}

static void put_etmv4(struct fake *fk, int cpu, const struct regs *r)
{
	put_reg(fk, cpu, "trcidr/trcidr0", r->idr0);
	put_reg(fk, cpu, "trcidr/trcidr1", r->idr1);
	put_reg(fk, cpu, "trcidr/trcidr2", r->idr2);
	put_reg(fk, cpu, "trcidr/trcidr8", r->idr8);
	put_reg(fk, cpu, "mgmt/trcauthstatus", r->auth);
	put_reg(fk, cpu, "mgmt/trcdevarch", r->devarch);
}

/* ETMv3/PTM (a Cortex-A9's PTM): mgmt/etmccer and mgmt/etmidr only. */
static void put_etmv3(struct fake *fk, int cpu)
{
	put_reg(fk, cpu, "mgmt/etmccer", "0x34c01ac2");
	put_reg(fk, cpu, "mgmt/etmidr", "0x411cf300");
}

static int fake_setup(void **state)
{
	struct fake *fk = calloc(1, sizeof(*fk));

	assert_non_null(fk);
	snprintf(fk->root, sizeof(fk->root), "/tmp/shardrec-etm.XXXXXX");
	assert_non_null(mkdtemp(fk->root));
	unit_put_file(fk->root, "sys/bus/event_source/devices/cs_etm/type", "42\n");
	*state = fk;
	return 0;
}

static int fake_teardown(void **state)
{
	struct fake *fk = *state;

	if (getenv("SHARDREC_AUX_KEEP"))
		fprintf(stderr, "kept %s\n", fk->root);
	else
		unit_rmtree(fk->root);
	free(fk);
	return 0;
}

static struct aux_info_params params(const struct fake *fk, const int *cpus, size_t nr,
				     uint64_t config)
{
	return (struct aux_info_params){.sysfs_root = fk->root, .pmu = "cs_etm",
					.pmu_type = PMU_TYPE, .per_cpu = true, .config = config,
					.cpus = cpus, .nr_cpus = nr};
}

/* The record's header, type and size; its priv words into @w. */
static void check_record(const unsigned char *buf, long len, size_t nr_words, uint64_t *w)
{
	struct perf_event_header h;
	uint32_t tr[2];

	assert_int_equal(len, 16 + 8 * nr_words);
	memcpy(&h, buf, sizeof(h));
	memcpy(tr, buf + 8, sizeof(tr));
	assert_int_equal(h.type, 70);
	assert_int_equal(h.misc, 0);
	assert_int_equal(h.size, len);
	assert_int_equal(tr[0], 3); /* PERF_AUXTRACE_CS_ETM */
	assert_int_equal(tr[1], 0);
	memcpy(w, buf + 16, 8 * nr_words);
}

static void check_words(const uint64_t *got, const uint64_t *want, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (got[i] != want[i])
			fail_msg("priv[%zu] = %#llx, perf writes %#llx", i,
				 (unsigned long long)got[i], (unsigned long long)want[i]);
}

/*
 * ETMv4 on CPUs 1 and 3 (given out of order: perf walks CPU numbers
 * upward). TRCCONFIGR is cs_etmv4_get_config's remap of the ETM_OPT bits,
 * TRCTRACEIDR coresight_get_trace_id(cpu) = 0x10 + 2 * cpu.
 */
static void test_etmv4_words(void **state)
{
	struct fake *fk = *state;
	int cpus[] = {3, 1};
	struct aux_info_params p = params(fk, cpus, 2, OPT_CYCACC | OPT_CTXTID | OPT_CTXTID2 |
						       OPT_TS | OPT_RETSTK | OPT_BB);
	/* cycacc 4, ctxtid 6, vmid 7 + vmid_opt 15, ts 11, retstk 12, bb 3 */
	uint64_t cfgr = 1 << 4 | 1 << 6 | 1 << 7 | 1 << 15 | 1 << 11 | 1 << 12 | 1 << 3;
	const uint64_t want[] = {
		1, (uint64_t)PMU_TYPE << 32 | 2, 1,
		MAGIC_V4, 1, 7, cfgr, 0x12, 0x28000ea1, 0x4100f403, 0x488, 0, 0xcc,
		MAGIC_V4, 3, 7, cfgr, 0x16, 0x28000ea1, 0x4100f403, 0x488, 0, 0xcc,
	};
	unsigned char buf[512];
	uint64_t w[23];
	long len;

	put_etmv4(fk, 1, &etmv4_regs);
	put_etmv4(fk, 3, &etmv4_regs);
	p.snapshot = true;
	len = aux_info__build(&p, buf, sizeof(buf));
	check_record(buf, len, 23, w);
	check_words(w, want, 23);
	/* Exactly the size fits; one byte less does not. */
	assert_int_equal(aux_info__build(&p, buf + 1, len), len);
	assert_int_equal(aux_info__build(&p, buf, len - 1), -ENOSPC);
	assert_int_equal(aux_info__build(&p, buf, 20), -ENOSPC);
}

/*
 * ETE (TRCDEVARCH ARCHVER 5, ARCHPART 0xA13): the ETMv4 block plus
 * TRCDEVARCH, 8 params. TRCIDR2 has bit 31 set: perf 6.1's cs_etm_get_ro
 * returns the register as an int, so the word is sign-extended.
 */
static void test_ete_words(void **state)
{
	struct fake *fk = *state;
	int cpus[] = {0, 1};
	struct aux_info_params p = params(fk, cpus, 2, OPT_TS | OPT_CTXTID);
	const uint64_t want[] = {
		1, (uint64_t)PMU_TYPE << 32 | 2, 0,
		MAGIC_ETE, 0, 8, 1 << 11 | 1 << 6, 0x10, 0x28c1c1eb, 0x4100fff0,
		0xffffffffd0001088ULL, 0, 0xcc, 0x47705a13,
		MAGIC_ETE, 1, 8, 1 << 11 | 1 << 6, 0x12, 0x28c1c1eb, 0x4100fff0,
		0xffffffffd0001088ULL, 0, 0xcc, 0x47705a13,
	};
	unsigned char buf[512];
	uint64_t w[25];

	put_etmv4(fk, 0, &ete_regs);
	put_etmv4(fk, 1, &ete_regs);
	check_record(buf, aux_info__build(&p, buf, sizeof(buf)), 25, w);
	check_words(w, want, 25);
}

/* ETMv3/PTM next to ETMv4. ETMCR is attr.config as is, 4 params. */
static void test_etmv3_mixed(void **state)
{
	struct fake *fk = *state;
	uint64_t config = OPT_TS | OPT_CYCACC | 0x3;
	int cpus[] = {3, 0, 2, 0};
	struct aux_info_params p = params(fk, cpus, 4, config);
	const uint64_t want[] = {
		1, (uint64_t)PMU_TYPE << 32 | 3, 0,
		MAGIC_V3, 0, 4, config, 0x10, 0x34c01ac2, 0x411cf300,
		MAGIC_V4, 2, 7, 1 << 11 | 1 << 4, 0x14, 0x28000ea1, 0x4100f403, 0x488, 0, 0xcc,
		MAGIC_V3, 3, 4, config, 0x16, 0x34c01ac2, 0x411cf300,
	};
	unsigned char buf[512];
	uint64_t w[27];

	put_etmv3(fk, 0);
	put_etmv4(fk, 2, &etmv4_regs);
	put_etmv3(fk, 3);
	check_record(buf, aux_info__build(&p, buf, sizeof(buf)), 27, w);
	check_words(w, want, 27);
}

/* Missing registers or CPUs fail rather than write a block perf cannot decode. */
static void test_errors(void **state)
{
	struct fake *fk = *state;
	int cpus[] = {0, 1}, neg[] = {-1, 0};
	struct aux_info_params p = params(fk, cpus, 2, 0);
	unsigned char buf[512];
	char path[256];

	put_etmv4(fk, 0, &etmv4_regs);
	put_etmv4(fk, 1, &etmv4_regs);
	assert_int_equal(aux_info__build(&p, buf, sizeof(buf)), 16 + 8 * (3 + 20));
	snprintf(path, sizeof(path), "%s/sys/bus/event_source/devices/cs_etm/cpu1/trcidr/trcidr8",
		 fk->root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(aux_info__build(&p, buf, sizeof(buf)), -ENOENT);
	/* The reader's errno comes through (EACCES for a user, here EISDIR). */
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(aux_info__build(&p, buf, sizeof(buf)), -EISDIR);
	assert_int_equal(rmdir(path), 0);
	put_reg(fk, 1, "trcidr/trcidr8", "junk");
	assert_int_equal(aux_info__build(&p, buf, sizeof(buf)), -EINVAL);
	cpus[1] = 7; /* no cs_etm/cpu7 at all */
	assert_int_equal(aux_info__build(&p, buf, sizeof(buf)), -ENOENT);
	p.cpus = neg;
	assert_int_equal(aux_info__build(&p, buf, sizeof(buf)), -EINVAL);
	p.nr_cpus = 0;
	assert_int_equal(aux_info__build(&p, buf, sizeof(buf)), -EINVAL);
	p.cpus = NULL;
	p.nr_cpus = 2;
	assert_int_equal(aux_info__build(&p, buf, sizeof(buf)), -EINVAL);
}

/* ---- perf as the oracle ---- */

/*
 * The trace data: one PERF_RECORD_AUX (aux_offset 0, size 16, flags 0:
 * formatted trace) with its sample_id trailer (ST: pid/tid, time, cpu,
 * identifier), then the PERF_RECORD_AUXTRACE holding those 16 bytes: a
 * CoreSight barrier packet (4 x 0x7fffffff, what the kernel's ETR driver
 * puts at a buffer's start), which the frame deformatter takes as a frame
 * sync and decodes to nothing. With the AUX record and the HEADER_AUXTRACE
 * index, perf queues the buffer and creates OpenCSD decoders from every
 * CPU's metadata (cs_etm__setup_queue); without them it warns that it
 * falls back to piped-mode decoding.
 */
static size_t put_trace(unsigned char *d, int cpu)
{
	struct perf_event_header ah = {PERF_RECORD_AUX, 0, 8 + 24 + 32};
	uint64_t aux[3] = {0, 16, 0}, trailer[4] = {100 | 100ULL << 32, 1000, cpu, 602};
	struct aux_auxtrace at = {{71, 0, 48}, 16, 0, 0x1234, 0, (uint32_t)-1, cpu, 0};
	uint32_t barrier[4] = {0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff};

	memcpy(d, &ah, 8);
	memcpy(d + 8, aux, 24);
	memcpy(d + 32, trailer, 32);
	memcpy(d + 64, &at, 48);
	memcpy(d + 112, barrier, 16);
	return 128;
}

/*
 * perf.data: one cs_etm event (attr.type PMU_TYPE: perf's decoder looks
 * for it, cs_etm__setup_timeless_decoding), a data section holding the
 * AUXTRACE_INFO record and, when @cpu >= 0, trace data of that CPU.
 */
static void write_perf_data(const char *path, const void *info, long len, uint64_t config,
			    int cpu)
{
	uint64_t ids[2] = {601, 602}, index[3] = {1, 0, 48};
	struct pfile_event ev = {.name = "cs_etm//", .ids = ids, .nr_ids = 2};
	struct pfile_featset fs = {0};
	struct pfile_header h;
	unsigned char data[1024];
	uint64_t data_off, end;
	size_t n = len;
	int fd;

	ev.attr.type = PMU_TYPE;
	ev.attr.config = config;
	ev.attr.size = sizeof(ev.attr);
	ev.attr.sample_period = 1;
	ev.attr.sample_type = ST;
	ev.attr.sample_id_all = 1;
	ev.attr.exclude_kernel = 1;
	assert_true(len + 128 <= (long)sizeof(data));
	memcpy(data, info, len);
	if (cpu >= 0)
		n += put_trace(data + len, cpu);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	pfile_header__init(&h);
	assert_int_equal(pfile__write_attrs(fd, PFILE_HEADER_SIZE, &ev, 1, &h.attrs, &data_off), 0);
	h.data.offset = data_off;
	h.data.size = n;
	assert_int_equal(pwrite(fd, data, n, data_off), n);
	assert_int_equal(pfile_feat__string(&fs, PFILE_FEAT_HOSTNAME, "testhost"), 0);
	assert_int_equal(pfile_feat__string(&fs, PFILE_FEAT_ARCH, "aarch64"), 0);
	assert_int_equal(pfile_feat__event_desc(&fs, &ev, 1), 0);
	assert_int_equal(pfile_feat__nrcpus(&fs, 4, 4), 0);
	if (cpu >= 0) { /* HEADER_AUXTRACE: {file offset, header size} of the AUXTRACE */
		index[1] = data_off + len + 64;
		assert_int_equal(pfile_featset__set(&fs, PFILE_FEAT_AUXTRACE, index,
						    sizeof(index)), 0);
	}
	assert_int_equal(pfile__write_features(fd, data_off + n, &fs, h.features, &end), 0);
	assert_int_equal(pfile__write_header(fd, &h), 0);
	close(fd);
	pfile_featset__release(&fs);
}

struct perf_run {
	int status;     /* system()'s */
	char *out, *err;
};

static void perf_run(const struct fake *fk, const char *tool, struct perf_run *r)
{
	r->status =
	    unit_run(fk->root, &r->out, &r->err, PERF_BIN " %s -D -i %s/perf.data", tool, fk->root);
}

static void perf_run__release(struct perf_run *r)
{
	free(r->out);
	free(r->err);
}

/* perf -D's dump line for one metadata word (cs_etm_priv_fmts: name, tabs, value). */
static void want_line(const struct perf_run *r, const char *tool, const char *line)
{
	if (!strstr(r->out, line))
		fail_msg("perf %s -D lacks '%s'", tool, line);
}

/* Builds the record for @p, runs perf report and script -D on it. */
static void perf_accepts(struct fake *fk, struct aux_info_params *p, const char *const *lines)
{
	static const char *const tools[] = {"report", "script"};
	unsigned char buf[1024];
	char path[128];
	long len = aux_info__build(p, buf, sizeof(buf));

	assert_true(len > 0);
	snprintf(path, sizeof(path), "%s/perf.data", fk->root);
	write_perf_data(path, buf, len, p->config, p->cpus[0]);
	for (int t = 0; t < 2; t++) {
		struct perf_run r;

		perf_run(fk, tools[t], &r);
		if (r.status || *r.err)
			fail_msg("perf %s -D: status %d, stderr: %s", tools[t], r.status, r.err);
		want_line(&r, tools[t], "PERF_RECORD_AUXTRACE_INFO type: 3");
		for (const char *const *l = lines; *l; l++)
			want_line(&r, tools[t], *l);
		perf_run__release(&r);
	}
}

static void test_perf_accepts_etmv4(void **state)
{
	struct fake *fk = *state;
	int cpus[] = {1, 3};
	struct aux_info_params p = params(fk, cpus, 2, OPT_TS | OPT_CTXTID);
	static const char *const lines[] = {
		"\tHeader version\t\t       1\n",
		"\tPMU type/num cpus\t       2a00000002\n",
		"\tMagic number\t\t       4040404040404040\n",
		"\tCPU\t\t\t       3\n",
		"\tNR_TRC_PARAMS\t\t       7\n",
		"\tTRCCONFIGR\t\t       840\n",
		"\tTRCTRACEIDR\t\t       16\n",
		"\tTRCIDR0\t\t\t       28000ea1\n",
		"\tTRCAUTHSTATUS\t\t       cc\n",
		/* OpenCSD decoders made from both blocks, keyed by trace ID */
		". ... CoreSight ETMV4I Trace data: size 0x10 bytes\n",
		"\tID:12\tRESET operation on trace decode path\n",
		"\tID:16\tRESET operation on trace decode path\n",
		NULL,
	};

	if (access(PERF_BIN, X_OK))
		skip();
	put_etmv4(fk, 1, &etmv4_regs);
	put_etmv4(fk, 3, &etmv4_regs);
	perf_accepts(fk, &p, lines);
}

static void test_perf_accepts_ete(void **state)
{
	struct fake *fk = *state;
	int cpus[] = {0, 1};
	struct aux_info_params p = params(fk, cpus, 2, OPT_TS);
	static const char *const lines[] = {
		"\tMagic number\t\t       5050505050505050\n",
		"\tNR_TRC_PARAMS\t\t       8\n",
		"\tTRCIDR2\t\t\t       ffffffffd0001088\n",
		"\tTRCDEVARCH                     47705a13\n",
		". ... CoreSight ETE Trace data: size 0x10 bytes\n",
		"\tID:10\tRESET operation on trace decode path\n",
		"\tID:12\tRESET operation on trace decode path\n",
		NULL,
	};

	if (access(PERF_BIN, X_OK))
		skip();
	put_etmv4(fk, 0, &ete_regs);
	put_etmv4(fk, 1, &ete_regs);
	perf_accepts(fk, &p, lines);
}

static void test_perf_accepts_etmv3(void **state)
{
	struct fake *fk = *state;
	int cpus[] = {0};
	struct aux_info_params p = params(fk, cpus, 1, OPT_TS);
	static const char *const lines[] = {
		"\tMagic number\t\t       3030303030303030\n",
		"\tETMCR\t\t\t       10000000\n",
		"\tETMIDR\t\t\t       411cf300\n",
		/* ETMIDR says PTM: cs-etm-decoder.c picks the PTM decoder */
		". ... CoreSight PTM Trace data: size 0x10 bytes\n",
		"\tID:10\tRESET operation on trace decode path\n",
		NULL,
	};

	if (access(PERF_BIN, X_OK))
		skip();
	put_etmv3(fk, 0);
	perf_accepts(fk, &p, lines);
}

/*
 * The layout aux_info.c wrote for cs_etm before: {pmu type, per_cpu}. perf
 * 6.1's cs_etm__process_auxtrace_info takes word 0 as the header version,
 * finds 42 > CS_HEADER_CURRENT_VERSION and returns -EINVAL: the session
 * fails on the record. perf script exits non-zero; perf report prints the
 * same error but exits 0 (6.1 does not propagate it), so stderr decides.
 */
static void test_perf_rejects_generic(void **state)
{
	static const char *const tools[] = {"report", "script"};
	struct fake *fk = *state;
	uint64_t info[4] = {0, 0, PMU_TYPE, 1};
	struct perf_event_header h = {.type = 70, .size = sizeof(info)};
	uint32_t type = 3;
	char path[128];

	if (access(PERF_BIN, X_OK))
		skip();
	memcpy(info, &h, sizeof(h));
	memcpy(&info[1], &type, sizeof(type));
	snprintf(path, sizeof(path), "%s/perf.data", fk->root);
	write_perf_data(path, info, sizeof(info), OPT_TS, -1);
	for (int t = 0; t < 2; t++) {
		struct perf_run r;

		perf_run(fk, tools[t], &r);
		if (!strstr(r.err, "failed to process type: 70 [Invalid argument]"))
			fail_msg("perf %s -D accepted the generic layout: %s", tools[t], r.err);
		want_line(&r, tools[t], "\tUnknown Header Version = 2a, Version supported <= 1\n");
		if (t == 1)
			assert_int_not_equal(r.status, 0);
		perf_run__release(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_etmv4_words, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_ete_words, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_etmv3_mixed, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_errors, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_perf_accepts_etmv4, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_perf_accepts_ete, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_perf_accepts_etmv3, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_perf_rejects_generic, fake_setup,
						fake_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
