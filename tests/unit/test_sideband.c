// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF side band (recorder/capture/sideband.c), as perf's side-band
 * thread: opened on every CPU, its thread reads a program loaded while it
 * runs into the env (perf's info of it: perf 6.1's info size, the program's
 * id and name) before the program is gone; stopped, it reads no more.
 * Needs root: it skips where programs cannot be read or loaded.
 */
#include "recorder/capture/sideband.h"

#include "unit_bpf.h"
#include "unit_util.h"

#include <sched.h>

#define WAIT_NS 5000000000ULL /* the thread wakes at every record: 5 s is a hang */

/* The CPUs this test may run on, as the recording's list. */
static size_t online_cpus(int *cpus, size_t max)
{
	cpu_set_t set;
	size_t n = 0;

	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}

/* The env's entry of program @id, NULL if none (taken under @lock). */
static const struct synth_bpf_prog *find(struct synth_bpf_env *e, pthread_mutex_t *lock,
					 uint32_t id)
{
	const struct synth_bpf_prog *p = NULL;

	pthread_mutex_lock(lock);
	for (size_t i = 0; i < e->nr_progs; i++)
		if (e->progs[i].id == id)
			p = &e->progs[i];
	pthread_mutex_unlock(lock);
	return p;
}

static void test_program_loaded_while_running(void **state)
{
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct synth_bpf_env env = {0};
	const struct synth_bpf_prog *p;
	const struct bpf_prog_info *info;
	struct sideband sb;
	int cpus[1024], fd, fd2, ret;
	uint32_t id = 0, id2 = 0, len;
	uint64_t deadline;
	char name[16];
	size_t n = online_cpus(cpus, 1024);

	(void)state;
	if (!synth__bpf_readable())
		skip();
	ret = sideband__open(&sb, cpus, n);
	if (ret == -EACCES || ret == -EPERM)
		skip();
	assert_int_equal(ret, 0);
	assert_int_equal(sideband__start(&sb, &env, &lock), 0);
	snprintf(name, sizeof(name), "srsb%d", (int)getpid() % 100000);
	fd = unit_bpf_load(name, &id);
	assert_true(fd >= 0);
	deadline = unit_now_ns() + WAIT_NS;
	while (!(p = find(&env, &lock, id)) && unit_now_ns() < deadline)
		usleep(1000);
	assert_non_null(p);
	sideband__stop(&sb);
	assert_true(sb.loads >= 1);
	p = find(&env, &lock, id); /* the array may have moved since (other programs) */
	memcpy(&len, p->bpil, sizeof(len));
	assert_int_equal(len, 232);
	info = (const void *)((const char *)p->bpil + 16);
	assert_int_equal(info->id, id);
	assert_string_equal(info->name, name);
	/* Stopped: a program loaded now is not read. */
	fd2 = unit_bpf_load(name, &id2);
	assert_true(fd2 >= 0);
	usleep(20000);
	assert_null(find(&env, &lock, id2));
	close(fd2);
	close(fd);
	sideband__close(&sb);
	synth_bpf_env__release(&env);
}

/* A zeroed side band (never opened) is closed and stopped without harm. */
static void test_close_unopened(void **state)
{
	struct sideband sb;

	(void)state;
	memset(&sb, 0, sizeof(sb));
	sideband__stop(&sb);
	sideband__close(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_program_loaded_while_running),
	    cmocka_unit_test(test_close_unopened),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
