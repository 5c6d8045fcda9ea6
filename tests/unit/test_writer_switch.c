// SPDX-License-Identifier: GPL-2.0
/*
 * writer__switch, the writer's half of rotation: a real writer thread reads
 * simulated rings (aux_sim.h, no AUX) while the producer writes numbered
 * samples, and is switched twice into fresh shard directories. Every sample
 * must be in exactly one of the three shards, in order, each shard with the
 * run id it was asked for; the eventfd says when a switch took effect.
 */
#include "aux_sim.h"

#include <sys/eventfd.h>

#define NR_DIRS 3
#define STEPS 20000 /* samples per CPU: many passes, and each switch falls inside */

struct t {
	struct aux_sim sim;
	char dir[NR_DIRS][64];
	int dirfd[NR_DIRS];
	uint8_t run_id[NR_DIRS][SHARD_RUN_ID_SIZE];
	uint64_t got[NR_DIRS]; /* samples found in each shard */
};

static void setup_dirs(struct t *t)
{
	static const uint64_t ids[AUX_SIM_NR_CPUS] = {11, 12};

	aux_sim_setup(&t->sim, "switch", ids, 1 << 14, 4096, false);
	for (int c = 0; c < AUX_SIM_NR_CPUS; c++)
		aux_ring__munmap(&t->sim.maps[c].aux); /* data rings only: no AUX area */
	t->dirfd[0] = t->sim.dirfd;
	for (int d = 1; d < NR_DIRS; d++) {
		snprintf(t->dir[d], sizeof(t->dir[d]), "/tmp/shardrec-switch%d.XXXXXX", d);
		assert_non_null(mkdtemp(t->dir[d]));
		t->dirfd[d] = open(t->dir[d], O_RDONLY | O_DIRECTORY);
		assert_true(t->dirfd[d] >= 0);
	}
	for (int d = 0; d < NR_DIRS; d++)
		memset(t->run_id[d], 0x40 + d, SHARD_RUN_ID_SIZE);
}

/* Writes the samples, asking for a switch at each third; waits for each to take effect. */
static void produce(struct t *t, struct writer *w, int efd)
{
	int d = 1;

	for (unsigned step = 0; step < STEPS; step++) {
		for (int c = 0; c < AUX_SIM_NR_CPUS; c++)
			aux_sim_put_sample(&t->sim, c, step);
		if (d < NR_DIRS && step == (unsigned)d * STEPS / NR_DIRS) {
			uint64_t n;

			writer__switch(w, t->dirfd[d], t->run_id[d]);
			/* the eventfd is bumped once the switch took effect */
			assert_int_equal(read(efd, &n, sizeof(n)), sizeof(n));
			assert_true(writer__switched(w));
			d++;
		}
	}
}

/* The samples of one shard: per CPU, each the next number expected. */
static void read_shard(struct t *t, int d, uint64_t next[AUX_SIM_NR_CPUS])
{
	t->got[d] += aux_sim_read_numbered(t->dirfd[d], t->run_id[d], next);
}

static void test_switch_splits_exactly(void **state)
{
	struct t t = {0};
	uint64_t next[AUX_SIM_NR_CPUS] = {0};
	int efd = eventfd(0, EFD_CLOEXEC);
	struct writer_rotate rot = {.notify_fd = efd};
	struct writer_params p;
	struct writer *w;

	(void)state;
	assert_true(efd >= 0);
	setup_dirs(&t);
	p = aux_sim_writer_params(&t.sim, 0, 1);
	p.run_id = t.run_id[0];
	p.rotate = &rot;
	w = writer__new(&p);
	assert_non_null(w);
	assert_int_equal(writer__start(w), 0);
	produce(&t, w, efd);
	writer__stop(w);
	assert_int_equal(writer__join(w), 0);
	writer__delete(w);
	for (int d = 0; d < NR_DIRS; d++) {
		read_shard(&t, d, next);
		assert_true(t.got[d] > 0); /* each shard took its share */
	}
	for (int c = 0; c < AUX_SIM_NR_CPUS; c++)
		assert_int_equal(next[c], STEPS); /* none lost, none twice */
	close(efd);
	for (int d = 1; d < NR_DIRS; d++) {
		close(t.dirfd[d]);
		unit_rmtree(t.dir[d]);
	}
	aux_sim_release(&t.sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_switch_splits_exactly),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
