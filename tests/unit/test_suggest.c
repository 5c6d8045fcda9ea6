// SPDX-License-Identifier: GPL-2.0
/*
 * util/suggest: the "did you mean" of unknown commands, options and
 * events: typos of one or two edits (a swap counts one) find their word,
 * an exact word or a far one finds nothing.
 */
#include "unit_util.h"

#include "recorder/util/suggest.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_typos(void **state)
{
	static const char *const cmds[] = {"record", "job", "jobview", "merge", "loss", "list"};
	static const char *const opts[] = {"event", "output", "freq", "call-graph", "shard-dir"};
	static const char *const evs[] = {"cycles", "cpu-clock", "task-clock", "cs"};

	(void)state;
	assert_string_equal(suggest__closest("recrod", cmds, N(cmds)), "record");
	assert_string_equal(suggest__closest("reocrd", cmds, N(cmds)), "record");
	assert_string_equal(suggest__closest("jobveiw", cmds, N(cmds)), "jobview");
	assert_string_equal(suggest__closest("evnt", opts, N(opts)), "event");
	assert_string_equal(suggest__closest("shard-dri", opts, N(opts)), "shard-dir");
	assert_string_equal(suggest__closest("cyclse", evs, N(evs)), "cycles");
	assert_string_equal(suggest__closest("cpu-clok", evs, N(evs)), "cpu-clock");
}

static void test_nothing(void **state)
{
	static const char *const cmds[] = {"record", "job", "merge", "loss", "list"};

	(void)state;
	/* Exact: nothing to suggest. */
	assert_null(suggest__closest("record", cmds, N(cmds)));
	/* Too far, or too short for its edits to mean anything. */
	assert_null(suggest__closest("frobnicate", cmds, N(cmds)));
	assert_null(suggest__closest("ab", cmds, N(cmds)));
	assert_null(suggest__closest("", cmds, N(cmds)));
	assert_null(suggest__closest("recrod", cmds, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_typos),
		cmocka_unit_test(test_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
