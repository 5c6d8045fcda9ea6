// SPDX-License-Identifier: GPL-2.0
/*
 * The writer's copy-out (writer_params.copy_div, $SHARDREC_COPY_DIV): a
 * ring found at least 1/N full is copied to the writer's buffer and handed
 * back before the write. A real writer thread reads simulated rings
 * (aux_sim.h, no AUX) filled before it starts, so every case is
 * deterministic: the first pass finds exactly what was put there, its span
 * wrapping the ring's end (the producer starts mid-ring).
 */
#include "aux_sim.h"

#include "recorder/capture/fault.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define RING (1 << 14)
#define SAMPLE 40 /* aux_sim_put_sample's record */

static const uint64_t ids[AUX_SIM_NR_CPUS] = {21, 22};

/*
 * Fills each ring with @n samples numbered from 0, before the writer runs,
 * from the middle of the ring: more than half a ring wraps its end.
 */
static void fill(struct aux_sim *sim, unsigned n)
{
	for (int c = 0; c < AUX_SIM_NR_CPUS; c++)
		sim->cpu[c].head = sim->cpu[c].pc->data_head = sim->cpu[c].pc->data_tail = RING / 2;
	for (unsigned k = 0; k < n; k++)
		for (int c = 0; c < AUX_SIM_NR_CPUS; c++)
			aux_sim_put_sample(sim, c, k);
}

/* Runs a writer with @copy_div over the filled rings until its stop; returns its stats. */
static struct writer_stats run_writer(struct aux_sim *sim, unsigned copy_div)
{
	struct writer_params p = aux_sim_writer_params(sim, 0, 1);
	struct writer_stats st;
	struct writer *w;

	p.copy_div = copy_div;
	w = writer__new(&p);
	assert_non_null(w);
	assert_int_equal(writer__start(w), 0);
	writer__stop(w);
	writer__join(w);
	st = *writer__stats(w);
	writer__delete(w);
	return st;
}

/* The shard's samples: per CPU, 0 to @n - 1 in order, each once. */
static void check_shard(struct aux_sim *sim, unsigned n)
{
	uint64_t next[AUX_SIM_NR_CPUS] = {0};

	aux_sim_read_numbered(sim->dirfd, NULL, next);
	for (int c = 0; c < AUX_SIM_NR_CPUS; c++)
		assert_int_equal(next[c], n);
}

static void assert_rings_empty(struct aux_sim *sim)
{
	for (int c = 0; c < AUX_SIM_NR_CPUS; c++)
		assert_int_equal(ring__pending(&sim->maps[c].core), 0);
}

/*
 * @n samples a CPU before a writer at copy_div 2 runs: all of them in the
 * shard, in order, and @copied of every byte taken through the copy.
 */
static void copy_case(unsigned n, bool copied)
{
	struct aux_sim sim;
	struct writer_stats st;

	aux_sim_setup(&sim, "copy", ids, RING, 4096, false);
	fill(&sim, n);
	st = run_writer(&sim, 2);
	assert_int_equal(st.err, 0);
	assert_int_equal(st.bytes, 2ULL * n * SAMPLE);
	assert_int_equal(st.copied, copied ? st.bytes : 0);
	assert_int_equal(st.unwritten, 0);
	assert_rings_empty(&sim);
	check_shard(&sim, n);
	aux_sim_release(&sim);
}

/* Full rings: every byte goes through the copy, wrapped spans whole. */
static void test_full_rings_copied(void **state)
{
	(void)state;
	copy_case(RING / SAMPLE, true);
}

/* Below 1/N nothing is copied: the pass writes from the rings, as without copy_div. */
static void test_below_mark_not_copied(void **state)
{
	(void)state;
	copy_case(RING / 4 / SAMPLE, false);
}

/*
 * A write that fails after the copy: the rings were handed back, so the
 * bytes are the writer's to account for. Every byte taken is written or
 * counted unwritten, none in both, none in neither.
 */
static void test_failed_write_counts_copy(void **state)
{
	const unsigned n = RING / 2 / SAMPLE + 1;
	struct aux_sim sim;
	struct writer_stats st;

	(void)state;
	aux_sim_setup(&sim, "copy", ids, RING, 4096, false);
	fill(&sim, n);
	/* Any pass past the shard's header fails: the first, with both rings in it. */
	assert_int_equal(fault__set("writer:0:enospc_after:1"), 0);
	st = run_writer(&sim, 2);
	assert_int_equal(fault__set(""), 0);
	assert_int_equal(st.err, -ENOSPC);
	assert_int_equal(st.copied, 2ULL * n * SAMPLE);
	assert_int_equal(st.unwritten, st.copied);
	assert_int_equal(st.zbytes, 0);
	assert_rings_empty(&sim);
	aux_sim_release(&sim);
}

/* The knob: unset is never, 2 to 64 taken, anything else one line naming it. */
static void test_copy_div_env(void **state)
{
	static const char *const bad[] = {"1", "65", "0", "x", "-2", "2k"};
	unsigned div = 99;
	char err[128];

	(void)state;
	unsetenv("SHARDREC_COPY_DIV");
	assert_int_equal(writer__copy_div(&div, err, sizeof(err)), 0);
	assert_int_equal(div, 0);
	setenv("SHARDREC_COPY_DIV", "64", 1);
	assert_int_equal(writer__copy_div(&div, err, sizeof(err)), 0);
	assert_int_equal(div, 64);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("SHARDREC_COPY_DIV", bad[i], 1);
		assert_int_equal(writer__copy_div(&div, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "SHARDREC_COPY_DIV="));
		assert_null(strchr(err, '\n'));
	}
	unsetenv("SHARDREC_COPY_DIV");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_full_rings_copied),
	    cmocka_unit_test(test_below_mark_not_copied),
	    cmocka_unit_test(test_failed_write_counts_copy),
	    cmocka_unit_test(test_copy_div_env),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
