// SPDX-License-Identifier: GPL-2.0
/*
 * privs unit tests: the capability/sysctl decision on made-up
 * environments (no privilege needed), and the output symlink refusal.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "recorder/events/privs_open.h"

#define PERFMON PRIVS_F(PRIVS_PERFMON)

static struct evsel evs[3];
static char err[512], warn[512];

static void set_event(size_t i, const char *name, bool excl_user, bool excl_kernel)
{
	memset(&evs[i], 0, sizeof(evs[i]));
	snprintf(evs[i].ev.name, sizeof(evs[i].ev.name), "%s", name);
	evs[i].ev.attr.exclude_user = excl_user;
	evs[i].ev.attr.exclude_kernel = excl_kernel;
}

static int check(int paranoid, unsigned int held, const char *cpu_wide, pid_t foreign,
		 size_t nr)
{
	struct privs_env env = {.paranoid = paranoid, .kptr_restrict = 0, .held = held};
	struct privs_req req = {.cpu_wide = cpu_wide, .foreign_tid = foreign};

	err[0] = 0;
	return privs__check(&env, &req, evs, nr, err, sizeof(err), warn, sizeof(warn));
}

static void test_system_wide_needs_perfmon(void **state)
{
	(void)state;
	set_event(0, "cpu-clock", false, false);
	assert_int_equal(check(2, 0, "-a", 0, 1), -EACCES);
	assert_non_null(strstr(err, "CAP_PERFMON"));
	assert_non_null(strstr(err, "kernel.perf_event_paranoid <= 0"));
	assert_non_null(strstr(err, "(it is 2)"));
	assert_non_null(strstr(err, "-a:"));
	assert_null(strchr(err, '\n'));
	assert_int_equal(check(1, 0, "-C", 0, 1), -EACCES);
	assert_non_null(strstr(err, "-C:"));
}

static void test_system_wide_allowed(void **state)
{
	(void)state;
	set_event(0, "cpu-clock", false, false);
	assert_int_equal(check(2, PERFMON, "-a", 0, 1), 0);
	assert_string_equal(warn, "");
	assert_int_equal(evs[0].ev.attr.exclude_kernel, 0);
	/* kernels before 5.8: CAP_SYS_ADMIN is the perfmon capability */
	assert_int_equal(check(2, PRIVS_F(PRIVS_SYS_ADMIN), "-a", 0, 1), 0);
	assert_int_equal(check(0, 0, "-a", 0, 1), 0);
	assert_int_equal(check(-1, 0, "-a", 0, 1), 0);
	assert_int_equal(evs[0].ev.attr.exclude_kernel, 0);
	/* other capabilities do not open CPU-wide events */
	assert_int_equal(check(2, PRIVS_F(PRIVS_IPC_LOCK) | PRIVS_F(PRIVS_SYSLOG), "-a", 0, 1),
			 -EACCES);
}

static void test_paranoid_3(void **state)
{
	(void)state;
	set_event(0, "cpu-clock", false, true);
	assert_int_equal(check(3, 0, NULL, 0, 1), -EACCES);
	assert_non_null(strstr(err, "CAP_PERFMON"));
	assert_non_null(strstr(err, "kernel.perf_event_paranoid <= 2"));
	assert_int_equal(check(3, PERFMON, NULL, 0, 1), 0);
}

/* perf's evsel__fallback(): exclude kernel and hypervisor, ":u" in the name. */
static void test_user_only_fallback(void **state)
{
	(void)state;
	set_event(0, "cpu-clock", false, false);
	set_event(1, "cpu/event=0x3c/", false, false);
	set_event(2, "page-faults:u", false, true);
	assert_int_equal(check(2, 0, NULL, 0, 3), 0);
	assert_int_equal(evs[0].ev.attr.exclude_kernel, 1);
	assert_int_equal(evs[0].ev.attr.exclude_hv, 1);
	assert_string_equal(evs[0].ev.name, "cpu-clock:u");
	assert_string_equal(evs[1].ev.name, "cpu/event=0x3c/u");
	assert_string_equal(evs[2].ev.name, "page-faults:u"); /* already user-only */
	assert_non_null(strstr(warn, "kernel.perf_event_paranoid=2"));
	assert_non_null(strstr(warn, "cpu-clock:u,cpu/event=0x3c/u"));
	assert_non_null(strstr(warn, "CAP_PERFMON"));

	set_event(0, "cycles:p", false, false);
	assert_int_equal(check(2, 0, NULL, 0, 1), 0);
	assert_string_equal(evs[0].ev.name, "cycles:pu");
}

static void test_no_fallback_when_allowed(void **state)
{
	(void)state;
	set_event(0, "cpu-clock", false, false);
	assert_int_equal(check(1, 0, NULL, 0, 1), 0);
	assert_string_equal(warn, "");
	assert_int_equal(evs[0].ev.attr.exclude_kernel, 0);
	assert_int_equal(check(2, PERFMON, NULL, 0, 1), 0);
	assert_string_equal(evs[0].ev.name, "cpu-clock");
	/* nothing to fall back: no warning */
	set_event(0, "cpu-clock:u", false, true);
	assert_int_equal(check(2, 0, NULL, 0, 1), 0);
	assert_string_equal(warn, "");
}

static void test_kernel_only_refused(void **state)
{
	(void)state;
	set_event(0, "cpu-clock:k", true, false);
	assert_int_equal(check(2, 0, NULL, 0, 1), -EACCES);
	assert_non_null(strstr(err, "cpu-clock:k"));
	assert_non_null(strstr(err, "kernel.perf_event_paranoid <= 1"));
	assert_int_equal(check(2, PERFMON, NULL, 0, 1), 0);
}

static void test_foreign_thread(void **state)
{
	(void)state;
	set_event(0, "cpu-clock:u", false, true);
	assert_int_equal(check(2, 0, NULL, 4242, 1), -EPERM);
	assert_non_null(strstr(err, "4242"));
	assert_non_null(strstr(err, "CAP_SYS_PTRACE"));
	assert_int_equal(check(2, PRIVS_F(PRIVS_SYS_PTRACE), NULL, 4242, 1), 0);
	assert_int_equal(check(2, PERFMON, NULL, 4242, 1), 0);
}

static void test_output_symlink(void **state)
{
	char dir[] = "/tmp/test_privs.XXXXXX", link[64], file[64];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(link, sizeof(link), "%s/l.data", dir);
	snprintf(file, sizeof(file), "%s/f.data", dir);
	/*
	 * A plain install (this test: no file capabilities) follows perf's
	 * rules; a privileged one refuses links, which 90-privs checks (the
	 * mode is the process's, set once by privs__init).
	 */
	assert_true(privs__mode() != PRIVS_CAPS);
	assert_int_equal(privs__check_output(file, err, sizeof(err)), 0); /* absent */
	assert_int_equal(symlink(file, link), 0);                      /* dangling */
	assert_int_equal(privs__check_output(link, err, sizeof(err)), 0);
	fclose(fopen(file, "w"));
	assert_int_equal(privs__check_output(file, err, sizeof(err)), 0);
	assert_int_equal(privs__check_output(link, err, sizeof(err)), 0);
	unlink(link);
	unlink(file);
	rmdir(dir);
}

/* Whoever runs the tests: root or a plain user, never a capability install. */
static void test_init_here(void **state)
{
	(void)state;
	assert_int_equal(privs__init(err, sizeof(err)), 0);
	if (!getuid())
		assert_int_equal(privs__mode(), PRIVS_ROOT);
	if (privs__mode() != PRIVS_CAPS) {
		assert_int_equal(privs__raise(PERFMON), 0);
		assert_int_equal(privs__drop(0, err, sizeof(err)), 0);
		assert_true(privs__workload_env() == environ);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_system_wide_needs_perfmon),
		cmocka_unit_test(test_system_wide_allowed),
		cmocka_unit_test(test_paranoid_3),
		cmocka_unit_test(test_user_only_fallback),
		cmocka_unit_test(test_no_fallback_when_allowed),
		cmocka_unit_test(test_kernel_only_refused),
		cmocka_unit_test(test_foreign_thread),
		cmocka_unit_test(test_output_symlink),
		cmocka_unit_test(test_init_here),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
