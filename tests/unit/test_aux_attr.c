// SPDX-License-Identifier: GPL-2.0
/*
 * aux/aux_attr.c: the AUX event's attr bits, as perf 6.1's recording
 * options set them, against fake sysfs trees: Intel PT (period 1, no
 * frequency, exclude_guest from KVM's pt_mode), ARM SPE (caps/min_interval
 * or 4096), CoreSight (context ID from the user or the PMU format, and
 * timestamps, refused with one line when an ETMv4 tracer lacks them).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "aux/aux.h"
#include "unit_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CTXTID (1ULL << 14)
#define CTXTID2 (1ULL << 15)
#define TS (1ULL << 28)
#define DEV "sys/bus/event_source/devices"

struct fake {
	char root[64];
};

static int fake_setup(void **state)
{
	struct fake *fk = calloc(1, sizeof(*fk));

	assert_non_null(fk);
	snprintf(fk->root, sizeof(fk->root), "/tmp/test_aux_attr.XXXXXX");
	assert_non_null(mkdtemp(fk->root));
	*state = fk;
	return 0;
}

static int fake_teardown(void **state)
{
	struct fake *fk = *state;

	unit_rmtree(fk->root);
	free(fk);
	return 0;
}

/* An ETMv4 tracer on @cpu with these ID registers. */
static void put_etmv4(struct fake *fk, int cpu, uint32_t idr0, uint32_t idr2)
{
	char rel[128];

	snprintf(rel, sizeof(rel), DEV "/cs_etm/cpu%d/trcidr/trcidr0", cpu);
	unit_put_file(fk->root, rel, "0x%x\n", idr0);
	snprintf(rel, sizeof(rel), DEV "/cs_etm/cpu%d/trcidr/trcidr2", cpu);
	unit_put_file(fk->root, rel, "0x%x\n", idr2);
}

static struct perf_event_attr sampling_attr(void)
{
	return (struct perf_event_attr){.freq = 1, .sample_freq = 4000, .config = 0x1};
}

static void test_intel_pt(void **state)
{
	struct fake *fk = *state;
	struct aux_attr_params p = {.sysfs_root = fk->root, .pmu = "intel_pt"};
	struct perf_event_attr a = sampling_attr();
	char err[256] = "";

	assert_int_equal(aux_attr__config(&p, &a, err, sizeof(err)), 0);
	assert_int_equal(a.freq, 0);
	assert_int_equal(a.sample_period, 1);
	assert_int_equal(a.exclude_guest, 0); /* no kvm_intel */
	assert_int_equal(a.config, 0x1);
	unit_put_file(fk->root, "sys/module/kvm_intel/parameters/pt_mode", "1\n");
	assert_int_equal(aux_attr__config(&p, &a, err, sizeof(err)), 0);
	assert_int_equal(a.exclude_guest, 1);
	unit_put_file(fk->root, "sys/module/kvm_intel/parameters/pt_mode", "0\n");
	assert_int_equal(aux_attr__config(&p, &a, err, sizeof(err)), 0);
	assert_int_equal(a.exclude_guest, 0);
}

/*
 * perf 6.1's intel_pt_default_config: tsc, then mtc with the MTC period
 * nearest 3 the PMU offers, the PSB period likewise (only with MTC
 * periods), pt,branch where both formats exist; caps/mtc and caps/psb_cyc
 * count as 1 when missing. ARM SPE's has ts_enable; CoreSight and BTS have
 * none.
 */
static void test_pt_default_config(void **state)
{
	struct fake *fk = *state;
	uint64_t c = 0;

	unit_put_intel_pt(fk->root);
	assert_true(aux_attr__default_config(fk->root, "intel_pt", &c));
	assert_int_equal(c, 0x300e601);
	/* periods offered: 0 and 6 of MTC (nearest below 3: 0), 4 and 5 of PSB (lowest above: 4) */
	unit_put_file(fk->root, DEV "/intel_pt/caps/mtc_periods", "41\n");
	unit_put_file(fk->root, DEV "/intel_pt/caps/psb_periods", "30\n");
	assert_true(aux_attr__default_config(fk->root, "intel_pt", &c));
	assert_int_equal(c, 0x4002601);
	/* no PSB cycles: no psb_period */
	unit_put_file(fk->root, DEV "/intel_pt/caps/psb_cyc", "0\n");
	assert_true(aux_attr__default_config(fk->root, "intel_pt", &c));
	assert_int_equal(c, 0x2601);
	/* no MTC periods: no mtc and no psb_period */
	unit_put_file(fk->root, DEV "/intel_pt/caps/psb_cyc", "1\n");
	unit_put_file(fk->root, DEV "/intel_pt/caps/mtc_periods", "0\n");
	assert_true(aux_attr__default_config(fk->root, "intel_pt", &c));
	assert_int_equal(c, 0x2401);
	/* an old kernel without the pt and branch formats: tsc alone */
	unit_rmtree(fk->root);
	assert_int_equal(mkdir(fk->root, 0700), 0);
	unit_put_file(fk->root, DEV "/intel_pt/format/tsc", "config:10\n");
	assert_true(aux_attr__default_config(fk->root, "intel_pt", &c));
	assert_int_equal(c, 0x400);
	assert_false(aux_attr__default_config(fk->root, "cs_etm", &c));
	assert_false(aux_attr__default_config(fk->root, "intel_bts", &c));
	/* ARM SPE: timestamps (arm_spe_set_timestamp), a term of 0 clearing them */
	unit_put_file(fk->root, DEV "/arm_spe_0/format/ts_enable", "config:0\n");
	assert_true(aux_attr__default_config(fk->root, "arm_spe_0", &c));
	assert_int_equal(c, 0x1);
}

static void test_arm_spe(void **state)
{
	struct fake *fk = *state;
	struct aux_attr_params p = {.sysfs_root = fk->root, .pmu = "arm_spe_0"};
	struct perf_event_attr a = sampling_attr();
	char err[256] = "";

	assert_int_equal(aux_attr__config(&p, &a, err, sizeof(err)), 0);
	assert_int_equal(a.freq, 0);
	assert_int_equal(a.sample_period, 4096);
	unit_put_file(fk->root, DEV "/arm_spe_0/caps/min_interval", "1024\n");
	assert_int_equal(aux_attr__config(&p, &a, err, sizeof(err)), 0);
	assert_int_equal(a.sample_period, 1024);
}

/* ETMv4 on CPUs 0 and 2, ETMv3 on 1 (left alone): context ID from the format, timestamps. */
static void test_cs_etm(void **state)
{
	struct fake *fk = *state;
	int cpus[] = {0, 1, 2};
	struct aux_attr_params p = {.sysfs_root = fk->root, .pmu = "cs_etm", .cpus = cpus,
				    .nr_cpus = 3};
	struct perf_event_attr a = sampling_attr();
	char err[256] = "";

	put_etmv4(fk, 0, 0x28000ea1, 0x488);
	put_etmv4(fk, 2, 0x28000ea1, 0x488);
	unit_put_file(fk->root, DEV "/cs_etm/format/contextid", "config:14\n");
	assert_int_equal(aux_attr__config(&p, &a, err, sizeof(err)), 0);
	assert_int_equal(a.freq, 0);
	assert_int_equal(a.sample_period, 1);
	assert_int_equal(a.config, 0x1 | CTXTID | TS);
	/* a VHE kernel's format asks for CONTEXTIDR_EL2: these tracers lack VMIDOPT */
	a = sampling_attr();
	unit_put_file(fk->root, DEV "/cs_etm/format/contextid", "config:15\n");
	assert_int_equal(aux_attr__config(&p, &a, err, sizeof(err)), -EOPNOTSUPP);
	assert_string_equal(err, "cs_etm: CONTEXTIDR_EL2 tracing not supported on CPU 0");
	/* the user's choice wins over the format */
	a = sampling_attr();
	a.config |= CTXTID;
	assert_int_equal(aux_attr__config(&p, &a, err, sizeof(err)), 0);
	assert_int_equal(a.config, 0x1 | CTXTID | TS);
	/* 64-bit VMID with VMIDOPT: EL2 context IDs work */
	put_etmv4(fk, 0, 0x28000ea1, 0x20000000 | 4 << 10);
	put_etmv4(fk, 2, 0x28000ea1, 0x20000000 | 4 << 10);
	a = sampling_attr();
	assert_int_equal(aux_attr__config(&p, &a, err, sizeof(err)), 0);
	assert_int_equal(a.config, 0x1 | CTXTID2 | TS);
}

static void test_cs_etm_refused(void **state)
{
	struct fake *fk = *state;
	int cpus[] = {0, 3};
	struct aux_attr_params p = {.sysfs_root = fk->root, .pmu = "cs_etm", .cpus = cpus,
				    .nr_cpus = 2};
	struct perf_event_attr a = sampling_attr();
	char err[256] = "";

	put_etmv4(fk, 0, 0x28000ea1, 0x488);
	put_etmv4(fk, 3, 0x00000ea1, 0x488); /* TSSIZE 0 */
	unit_put_file(fk->root, DEV "/cs_etm/format/contextid", "config:14\n");
	assert_int_equal(aux_attr__config(&p, &a, err, sizeof(err)), -EOPNOTSUPP);
	assert_string_equal(err, "cs_etm: global timestamps not supported on CPU 3");
	assert_int_equal(a.config & (CTXTID | TS), 0); /* nothing half-set */
	put_etmv4(fk, 3, 0x28000ea1, 0x408); /* CIDSIZE 0 */
	assert_int_equal(aux_attr__config(&p, &a, err, sizeof(err)), -EOPNOTSUPP);
	assert_string_equal(err, "cs_etm: CONTEXTIDR_EL1 tracing not supported on CPU 3");
}

/* Any other AUX PMU: period 1, no frequency, nothing else touched. */
static void test_other(void **state)
{
	struct fake *fk = *state;
	struct aux_attr_params p = {.sysfs_root = fk->root, .pmu = "intel_bts"};
	struct perf_event_attr a = sampling_attr();
	char err[256] = "";

	assert_int_equal(aux_attr__config(&p, &a, err, sizeof(err)), 0);
	assert_int_equal(a.freq, 0);
	assert_int_equal(a.sample_period, 1);
	assert_int_equal(a.config, 0x1);
	assert_int_equal(a.exclude_guest, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_intel_pt, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_pt_default_config, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_arm_spe, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_cs_etm, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_cs_etm_refused, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_other, fake_setup, fake_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
