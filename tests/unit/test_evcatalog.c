// SPDX-License-Identifier: GPL-2.0
/*
 * `shardrec list` (evcatalog) against a fake sysfs/tracefs tree: what it
 * lists, in perf list's layout, and that every event name it lists is one
 * the -e parser accepts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unit_util.h"

#include "recorder/events/evcatalog.h"
#include "recorder/events/evparse.h"

static char tmp_root[64];
static char sys_root[128];
static char tracefs[128];
static struct evcatalog_opts fake;

#define DEV "sys/bus/event_source/devices/"

static int setup(void **state)
{
	(void)state;
	strcpy(tmp_root, "/tmp/test_evcatalog.XXXXXX");
	if (!mkdtemp(tmp_root))
		return -1;
	snprintf(sys_root, sizeof(sys_root), "%s/sys", tmp_root);
	snprintf(tracefs, sizeof(tracefs), "%s/tracing", tmp_root);
	unit_put_file(sys_root, DEV "software/type", "1\n");
	unit_put_file(sys_root, DEV "cpu/type", "4\n");
	unit_put_file(sys_root, DEV "cpu/format/event", "config:0-7\n");
	unit_put_file(sys_root, DEV "cpu/format/umask", "config:8-15\n");
	unit_put_file(sys_root, DEV "cpu/events/cycles-t", "event=0x3c\n");
	unit_put_file(sys_root, DEV "cpu/events/cycles-t.scale", "1\n");
	unit_put_file(tracefs, "events/sched/sched_switch/id", "316\n");
	unit_put_file(tracefs, "events/sched/sched_wakeup/id", "317\n");
	unit_put_file(tracefs, "events/sched/enable", "0\n");
	unit_put_file(tracefs, "events/irq/irq_handler_entry/id", "50\n");
	unit_put_file(tracefs, "events/enable", "0\n");
	fake.sysfs_root = sys_root;
	fake.tracefs_root = tracefs;
	fake.no_probe = true;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return unit_rmtree(tmp_root);
}

/* What evcatalog__fprint() prints; the caller frees it. */
static char *listing(unsigned kinds, const char *glob, bool raw, int *n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*n = evcatalog__fprint(f, &fake, kinds, glob, raw);
	fclose(f);
	return buf;
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

static void test_raw_dump(void **state)
{
	int n;
	char *s = listing(EVCAT_ALL, NULL, true, &n);

	(void)state;
	assert_true(n > 0);
	assert_true(has_line(s, "cpu-clock"));
	assert_true(has_line(s, "context-switches"));
	assert_true(has_line(s, "cs"));
	assert_true(has_line(s, "cgroup-switches"));
	assert_true(has_line(s, "cycles"));
	assert_true(has_line(s, "L1-dcache-load-misses"));
	assert_true(has_line(s, "LLC-loads"));
	assert_true(has_line(s, "sched:sched_switch"));
	assert_true(has_line(s, "irq:irq_handler_entry"));
	assert_false(has_line(s, "sched:enable"));
	assert_true(has_line(s, "cpu//"));
	assert_true(has_line(s, "cpu/event="));
	assert_true(has_line(s, "cpu/umask="));
	assert_true(has_line(s, "cpu/cycles-t/"));
	assert_false(strstr(s, "cycles-t.scale"));
	assert_true(has_line(s, "software//"));
	free(s);
}

/* Every name listed, but a bare term (PMU/TERM=), is one -e accepts. */
static void test_names_parse(void **state)
{
	const struct evparse_opts po = {.sysfs_root = sys_root, .tracefs_root = tracefs};
	int n, checked = 0;
	char *s = listing(EVCAT_ALL, NULL, true, &n), *save = NULL, *line;
	char err[256];

	(void)state;
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct evparse_event *ev = NULL;
		size_t nr = 0;

		if (line[strlen(line) - 1] == '=')
			continue;
		if (evparse__parse(line, &po, &ev, &nr, err, sizeof(err)))
			fail_msg("listed '%s' does not parse: %s", line, err);
		free(ev);
		checked++;
	}
	assert_true(checked > 40 && n > 40);
	free(s);
}

static void test_layout(void **state)
{
	int n;
	char *s = listing(EVCAT_ALL, NULL, false, &n);
	char want[160];

	(void)state;
	snprintf(want, sizeof(want), "  %-50s [Software event]", "context-switches OR cs");
	assert_true(has_line(s, want));
	snprintf(want, sizeof(want), "  %-50s [Tracepoint event]", "sched:sched_switch");
	assert_true(has_line(s, want));
	snprintf(want, sizeof(want), "  %-50s [Kernel PMU event: event=0x3c]", "cpu/cycles-t/");
	assert_true(has_line(s, want));
	/* A PMU, then its terms right below it. */
	snprintf(want, sizeof(want),
		 "  %-50s [PMU: type 4]\n  %-50s [PMU format term: config:0-7]\n"
		 "  %-50s [PMU format term: config:8-15]\n",
		 "cpu//", "cpu/event=", "cpu/umask=");
	assert_non_null(strstr(s, want));
	assert_non_null(strstr(s, "[Hardware breakpoint]"));
	free(s);
}

static void test_selectors(void **state)
{
	int n;
	char *s;

	(void)state;
	assert_int_equal(evcatalog__kinds("sw"), EVCAT_SW);
	assert_int_equal(evcatalog__kinds("tracepoint"), EVCAT_TRACEPOINT);
	assert_int_equal(evcatalog__kinds("pmu"), EVCAT_PMU | EVCAT_PMU_TERM | EVCAT_PMU_EVENT);
	assert_int_equal(evcatalog__kinds("sched:*"), 0);

	s = listing(EVCAT_SW, NULL, true, &n);
	assert_true(has_line(s, "cpu-clock"));
	assert_false(has_line(s, "cycles"));
	assert_false(has_line(s, "sched:sched_switch"));
	free(s);

	s = listing(EVCAT_ALL, "sched:sched_s*", true, &n);
	assert_int_equal(n, 1);
	assert_string_equal(s, "sched:sched_switch\n");
	free(s);

	/* No wildcard: part of a name, aliases included. */
	s = listing(EVCAT_ALL, "switch", true, &n);
	assert_true(has_line(s, "sched:sched_switch"));
	assert_true(has_line(s, "context-switches"));
	assert_true(has_line(s, "cs"));
	assert_true(has_line(s, "cgroup-switches"));
	free(s);

	s = listing(EVCAT_ALL, "no-such-event", false, &n);
	assert_int_equal(n, 0);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_raw_dump),
		cmocka_unit_test(test_names_parse),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_selectors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
