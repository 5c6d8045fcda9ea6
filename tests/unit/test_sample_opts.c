// SPDX-License-Identifier: GPL-2.0
/*
 * perf record's sample options: --call-graph and register parsing, the
 * option values of cli_sample.c, branch stack modes (-b, -j), perf's
 * per-event terms over the options (attrs as perf 6.1 sets them), and
 * HEADER_TRACING_DATA built from a fake tracefs tree, decoded back field by
 * field.
 */
#include "recorder/events/branch_filter.h"
#include "recorder/events/callchain.h"
#include "recorder/events/evlist.h"
#include "recorder/cli/cli_sample.h"
#include "recorder/cli/cli_record.h"
#include "recorder/events/record_opts.h"
#include "recorder/header/tracing_data.h"
#include "recorder/perfdata/pfile_feat.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "unit_util.h"
#include "recorder/util/clock.h"
#include "recorder/util/fs.h"

#include <sys/capability.h>
#include <sys/wait.h>

static char err[512];

static void test_call_graph(void **state)
{
	enum callchain_mode m;
	uint32_t size = 0;

	(void)state;
	assert_int_equal(callchain__parse("fp", &m, &size, err, sizeof(err)), 0);
	assert_int_equal(m, CALLCHAIN_FP);
	assert_int_equal(callchain__parse("dwarf", &m, &size, err, sizeof(err)), 0);
	assert_int_equal(m, CALLCHAIN_DWARF);
	assert_int_equal(size, 8192);
	assert_int_equal(callchain__parse("dwarf,1024", &m, &size, err, sizeof(err)), 0);
	assert_int_equal(size, 1024);
	/* perf rounds up to 8 bytes */
	assert_int_equal(callchain__parse("dwarf,1001", &m, &size, err, sizeof(err)), 0);
	assert_int_equal(size, 1008);
	assert_int_equal(callchain__parse("dwarf,65528", &m, &size, err, sizeof(err)), 0);
	assert_int_equal(callchain__parse("dwarf,65529", &m, &size, err, sizeof(err)), -EINVAL);
	assert_int_equal(callchain__parse("dwarf,0", &m, &size, err, sizeof(err)), -EINVAL);
	assert_int_equal(callchain__parse("dwarf,x", &m, &size, err, sizeof(err)), -EINVAL);
	assert_int_equal(callchain__parse("lbr", &m, &size, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "PMU"));
	assert_int_equal(callchain__parse("fpx", &m, &size, err, sizeof(err)), -EINVAL);
	/* fp,N: perf's max_stack (perf lock record passes it) */
	assert_int_equal(callchain__parse("fp,10", &m, &size, err, sizeof(err)), 0);
	assert_int_equal(m, CALLCHAIN_FP);
	assert_int_equal(size, 10);
	assert_int_equal(callchain__parse("fp", &m, &size, err, sizeof(err)), 0);
	assert_int_equal(size, 0);
	assert_int_equal(callchain__parse("fp,0x20", &m, &size, err, sizeof(err)), 0);
	assert_int_equal(size, 32);
	assert_int_equal(callchain__parse("fp,x", &m, &size, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "maximum stack depth"));
	assert_int_equal(callchain__parse("fp,", &m, &size, err, sizeof(err)), -EINVAL);
	assert_int_equal(callchain__parse("fp,-1", &m, &size, err, sizeof(err)), -EINVAL);
	assert_int_equal(callchain__parse("", &m, &size, err, sizeof(err)), -EINVAL);
}

static void test_regs(void **state)
{
	uint64_t mask;

	(void)state;
#if defined(__x86_64__)
	assert_int_equal(callchain__parse_regs("IP,SP,BP", &mask, err, sizeof(err)), 0);
	assert_int_equal(mask, 0x1c0); /* what perf 6.1 sets for --user-regs=IP,SP,BP */
	assert_int_equal(callchain__parse_regs("ip,r15", &mask, err, sizeof(err)), 0);
	assert_int_equal(mask, (1ULL << 8) | (1ULL << 23));
	assert_int_equal(callchain__parse_regs(NULL, &mask, err, sizeof(err)), 0);
	assert_int_equal(mask, 0xff0fff); /* perf's PERF_REGS_MASK: no segment registers */
	assert_int_equal(callchain__dwarf_min_regs(), 0x180);
	assert_int_equal(callchain__parse_regs("IP,XX", &mask, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "XX"));
	assert_int_equal(callchain__parse_regs("IP,,", &mask, err, sizeof(err)), -EINVAL);
#else
	assert_int_equal(callchain__parse_regs("IP", &mask, err, sizeof(err)), -EOPNOTSUPP);
#endif
}

static void test_cli_values(void **state)
{
	struct record_opts o = {0};

	(void)state;
	assert_int_equal(record_opts__sample(&o, "max-size", "2M", err, sizeof(err)), 0);
	assert_int_equal(o.max_size, 2 << 20);
	assert_int_equal(record_opts__sample(&o, "max-size", "300", err, sizeof(err)), 0);
	assert_int_equal(o.max_size, 300);
	assert_int_equal(record_opts__sample(&o, "max-size", "1k", err, sizeof(err)), 0);
	assert_int_equal(o.max_size, 1024);
	assert_int_equal(record_opts__sample(&o, "max-size", "1X", err, sizeof(err)), -EINVAL);
	assert_int_equal(record_opts__sample(&o, "max-size", "-1", err, sizeof(err)), -EINVAL);
	assert_int_equal(record_opts__sample(&o, "delay", "250", err, sizeof(err)), 0);
	assert_int_equal(o.delay_ms, 250);
	assert_false(o.start_disabled);
	assert_int_equal(record_opts__sample(&o, "delay", "-1", err, sizeof(err)), 0);
	assert_true(o.start_disabled);
	assert_int_equal(record_opts__sample(&o, "delay", "-2", err, sizeof(err)), -EINVAL);
	/* -S[e][SIZE], perf's auxtrace_parse_snapshot_options */
	assert_int_equal(record_opts__sample(&o, "snapshot", NULL, err, sizeof(err)), 0);
	assert_true(o.aux_snapshot);
	assert_false(o.aux_snapshot_on_exit);
	assert_int_equal(o.aux_snap_size, 0);
	assert_int_equal(record_opts__sample(&o, "snapshot", "e0x10000", err, sizeof(err)), 0);
	assert_true(o.aux_snapshot_on_exit);
	assert_int_equal(o.aux_snap_size, 0x10000);
	assert_int_equal(record_opts__sample(&o, "snapshot", "4096", err, sizeof(err)), 0);
	assert_int_equal(o.aux_snap_size, 4096);
	assert_int_equal(record_opts__sample(&o, "snapshot", "4k", err, sizeof(err)), -EINVAL);
	assert_int_equal(record_opts__sample(&o, "snapshot", "e-1", err, sizeof(err)), -EINVAL);
	assert_int_equal(record_opts__sample(&o, "delay", "1s", err, sizeof(err)), -EINVAL);
	/* --filter needs an -e before it */
	assert_int_equal(record_opts__sample(&o, "filter", "prev_pid > 0", err, sizeof(err)),
			 -EINVAL);
	o.events = strdup("cpu-clock,sched:sched_switch");
	o.last_event_off = 10;
	assert_int_equal(record_opts__sample(&o, "filter", "prev_pid > 0", err, sizeof(err)), 0);
	assert_int_equal(o.nr_filters, 1);
	assert_int_equal(o.filters[0].events_off, 10);
	assert_int_equal(o.filters[0].events_end, strlen(o.events));
	assert_int_equal(record_opts__sample(&o, "call-graph", "dwarf,512", err, sizeof(err)), 0);
	assert_true(o.callgraph_dwarf && !o.callgraph_fp && o.dwarf_size == 512);
	assert_int_equal(record_opts__sample(&o, "call-graph", "fp", err, sizeof(err)), 0);
	assert_true(!o.callgraph_dwarf && o.callgraph_fp);
	record_opts__release(&o);
}

/* record_opts__parse of @n words; 0, 1 (--help) or -errno. */
static int parse_argv(struct record_opts *o, int n, const char **words)
{
	char *argv[16];

	assert_true(n < 16);
	for (int i = 0; i < n; i++)
		argv[i] = (char *)words[i];
	argv[n] = NULL;
	return record_opts__parse(o, n, argv, err, sizeof(err));
}

#define PARSE(o, ...)                                                                              \
	parse_argv(o, sizeof((const char *[]){__VA_ARGS__}) / sizeof(char *),                      \
		   (const char *[]){__VA_ARGS__})

/* perf's spellings: -z3, --call-graph fp,N, -p/-t/-u with a command. */
static void test_perf_spellings(void **state)
{
	struct record_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "record", "-z3", "--", "true"), 0);
	assert_int_equal(o.zlevel, 3);
	assert_int_equal(PARSE(&o, "record", "--compression-level=5", "-a"), 0);
	assert_int_equal(o.zlevel, 5);
	/* an optional value is attached or absent: '-z 3' runs a command '3' */
	assert_int_equal(PARSE(&o, "record", "-z", "3"), 0);
	assert_int_equal(o.zlevel, 1);
	assert_int_equal(o.argc, 1);
	assert_string_equal(o.argv[0], "3");
	assert_int_equal(PARSE(&o, "record", "-z30", "--", "true"), -EINVAL);
	assert_non_null(strstr(err, "level from 1 to 22"));
	assert_int_equal(PARSE(&o, "record", "--call-graph", "fp,10", "--", "true"), 0);
	assert_true(o.callgraph_fp && !o.callgraph_dwarf);
	assert_int_equal(o.max_stack, 10);
	/* the last call-graph option wins, as in perf */
	assert_int_equal(PARSE(&o, "record", "--call-graph", "fp,10", "--call-graph", "dwarf",
			       "--", "true"), 0);
	assert_int_equal(o.max_stack, 0);
	assert_true(o.callgraph_dwarf && !o.callgraph_fp);

	assert_int_equal(PARSE(&o, "record", "--", "true"), 0);
	assert_true(record_opts__command_is_target(&o));
	assert_false(record_opts__cpu_wide(&o));
	assert_int_equal(PARSE(&o, "record", "-p", "1", "--", "sleep", "1"), 0);
	assert_false(record_opts__cpu_wide(&o));
	assert_string_equal(o.pid_list, "1");
	assert_int_equal(o.argc, 2);
	assert_false(record_opts__command_is_target(&o));
	assert_int_equal(PARSE(&o, "record", "-t", "1", "--", "true"), 0);
	assert_false(record_opts__command_is_target(&o));
	assert_int_equal(PARSE(&o, "record", "-u", "root", "--", "true"), 0);
	assert_false(record_opts__command_is_target(&o));
	assert_int_equal(PARSE(&o, "record", "-a", "--", "true"), 0);
	assert_false(record_opts__command_is_target(&o));
	assert_true(record_opts__cpu_wide(&o));
	assert_int_equal(PARSE(&o, "record", "-C", "0", "--", "true"), 0);
	assert_false(record_opts__command_is_target(&o));
	assert_true(record_opts__cpu_wide(&o));
	assert_int_equal(PARSE(&o, "record", "-p", "1"), 0);
	assert_false(record_opts__command_is_target(&o));
	assert_int_equal(PARSE(&o, "record", "-p", "1", "-a", "--", "true"), -EINVAL);
	record_opts__release(&o);
}

/*
 * perf's --switch-output: signal by default, a size with B/K/M/G, a time
 * with s/m/h/d (case tells 10M from 10m); it and --switch-output-event
 * imply --timestamp-filename; what rotation refuses.
 */
static void test_switch_output(void **state)
{
	struct record_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "record", "--switch-output", "-a"), 0);
	assert_true(o.switch_output && o.switch_signal && o.timestamp_filename);
	assert_int_equal(PARSE(&o, "record", "--switch-output=10M", "-a"), 0);
	assert_true(o.switch_size == 10ULL << 20 && !o.switch_signal && !o.switch_secs);
	assert_int_equal(PARSE(&o, "record", "--switch-output=10m", "-a"), 0);
	assert_int_equal(o.switch_secs, 600);
	assert_int_equal(PARSE(&o, "record", "--switch-output=2d", "-a"), 0);
	assert_int_equal(o.switch_secs, 2 * 86400);
	assert_int_equal(PARSE(&o, "record", "--switch-output=30", "-a"), -EINVAL);
	assert_int_equal(PARSE(&o, "record", "--switch-output=0K", "-a"), -EINVAL);
	assert_int_equal(PARSE(&o, "record", "--switch-output=1x", "-a"), -EINVAL);
	assert_int_equal(PARSE(&o, "record", "--switch-output-event", "cs", "--switch-output-event",
			       "sched:sched_process_exec", "-a"), 0);
	assert_string_equal(o.switch_event, "cs,sched:sched_process_exec");
	assert_true(o.switch_output && o.switch_signal && o.timestamp_filename);
	record_opts__release(&o);
	assert_int_equal(PARSE(&o, "record", "--switch-output=1s", "--switch-output-event", "cs",
			       "-a"), -EINVAL);
	record_opts__release(&o);
	assert_int_equal(PARSE(&o, "record", "--switch-max-files=3", "--timestamp-filename", "-a"), 0);
	assert_true(o.switch_max_files == 3 && o.timestamp_filename && !o.switch_output);
	assert_int_equal(PARSE(&o, "record", "--switch-max-files=-1", "-a"), -EINVAL);
	assert_int_equal(PARSE(&o, "record", "--switch-output", "--max-size=1M", "-a"), -EINVAL);
	assert_non_null(strstr(err, "--max-size"));
	assert_int_equal(PARSE(&o, "record", "--timestamp-filename", "-o", "-", "-a"), -EINVAL);
	record_opts__release(&o);
}

/* ---- branch stack modes: -b, -j and branch_type= ---- */

/* perf 6.1's parse-branch-options.c: every mode it knows, its rule, its refusals. */
static void test_branch_filter(void **state)
{
	static const struct {
		const char *name;
		uint64_t bit;
	} modes[] = {
		{"u", PERF_SAMPLE_BRANCH_USER}, {"k", PERF_SAMPLE_BRANCH_KERNEL},
		{"hv", PERF_SAMPLE_BRANCH_HV}, {"any", PERF_SAMPLE_BRANCH_ANY},
		{"any_call", PERF_SAMPLE_BRANCH_ANY_CALL},
		{"any_ret", PERF_SAMPLE_BRANCH_ANY_RETURN},
		{"ind_call", PERF_SAMPLE_BRANCH_IND_CALL}, {"abort_tx", PERF_SAMPLE_BRANCH_ABORT_TX},
		{"in_tx", PERF_SAMPLE_BRANCH_IN_TX}, {"no_tx", PERF_SAMPLE_BRANCH_NO_TX},
		{"cond", PERF_SAMPLE_BRANCH_COND}, {"ind_jmp", PERF_SAMPLE_BRANCH_IND_JUMP},
		{"call", PERF_SAMPLE_BRANCH_CALL}, {"save_type", PERF_SAMPLE_BRANCH_TYPE_SAVE},
		{"stack", PERF_SAMPLE_BRANCH_CALL_STACK}, {"priv", PERF_SAMPLE_BRANCH_PRIV_SAVE},
	};
	uint64_t m;

	(void)state;
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		bool plm = modes[i].bit & PERF_SAMPLE_BRANCH_PLM_ALL;

		assert_int_equal(branch_filter__mode(modes[i].name), modes[i].bit);
		assert_non_null(strstr(BRANCH_FILTER_MODES, modes[i].name));
		m = 0;
		assert_int_equal(branch_filter__parse(modes[i].name, &m, err, sizeof(err)), 0);
		/* a level alone means any, as perf (-j u records ANY, not USER) */
		assert_int_equal(m, plm ? PERF_SAMPLE_BRANCH_ANY : modes[i].bit);
	}
	/* strcasecmp, as perf */
	assert_int_equal(branch_filter__mode("ANY_Call"), PERF_SAMPLE_BRANCH_ANY_CALL);
	m = 0;
	assert_int_equal(branch_filter__parse("any,u", &m, err, sizeof(err)), 0);
	assert_int_equal(m, PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER);
	m = 0;
	assert_int_equal(branch_filter__parse("k,hv", &m, err, sizeof(err)), 0);
	assert_int_equal(m, PERF_SAMPLE_BRANCH_ANY);
	m = 0;
	assert_int_equal(branch_filter__parse("any_ret,u,k", &m, err, sizeof(err)), 0);
	assert_int_equal(m, PERF_SAMPLE_BRANCH_ANY_RETURN | PERF_SAMPLE_BRANCH_USER |
				    PERF_SAMPLE_BRANCH_KERNEL);
	/* ORed into what is there: a second level list keeps the first's type */
	m = PERF_SAMPLE_BRANCH_ANY;
	branch_filter__add(&m, PERF_SAMPLE_BRANCH_USER);
	assert_int_equal(m, PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER);
	/* unknown (hw_index is set by perf itself, not a mode of 6.1): one line, the valid ones */
	m = 7;
	assert_int_equal(branch_filter__parse("any,hw_index", &m, err, sizeof(err)), -EINVAL);
	assert_int_equal(m, 7);
	assert_string_equal(err, "unknown branch filter 'hw_index' (valid: u,k,hv,any,any_call,"
				 "any_ret,ind_call,abort_tx,in_tx,no_tx,cond,ind_jmp,call,save_type,"
				 "stack,priv)");
	assert_int_equal(branch_filter__parse("any,", &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "branch filter ''"));
	assert_int_equal(branch_filter__parse("", &m, err, sizeof(err)), -EINVAL);
}

/* -b and -j/--branch-filter: perf's parse_branch_stack(), one of them, once. */
static void test_branch_cli(void **state)
{
	struct record_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "record", "-b", "--", "true"), 0);
	assert_int_equal(o.branch_stack, PERF_SAMPLE_BRANCH_ANY);
	assert_int_equal(PARSE(&o, "record", "--branch-any", "--", "true"), 0);
	assert_int_equal(o.branch_stack, PERF_SAMPLE_BRANCH_ANY);
	assert_int_equal(PARSE(&o, "record", "-j", "any,u", "--", "true"), 0);
	assert_int_equal(o.branch_stack, PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER);
	assert_int_equal(PARSE(&o, "record", "--branch-filter=cond,k", "--", "true"), 0);
	assert_int_equal(o.branch_stack, PERF_SAMPLE_BRANCH_COND | PERF_SAMPLE_BRANCH_KERNEL);
	assert_int_equal(PARSE(&o, "record", "-j", "u", "--", "true"), 0);
	assert_int_equal(o.branch_stack, PERF_SAMPLE_BRANCH_ANY);
	assert_int_equal(PARSE(&o, "record", "--", "true"), 0);
	assert_int_equal(o.branch_stack, 0);
	assert_int_equal(PARSE(&o, "record", "-b", "-j", "any", "--", "true"), -EINVAL);
	assert_non_null(strstr(err, "Can't use --branch-any (-b) with --branch-filter (-j)"));
	assert_int_equal(PARSE(&o, "record", "-j", "any", "-j", "u", "--", "true"), -EINVAL);
	assert_int_equal(PARSE(&o, "record", "-j", "foo", "--", "true"), -EINVAL);
	assert_non_null(strstr(err, "-j/--branch-filter: unknown branch filter 'foo' (valid: u,"));
	assert_null(strchr(err, '\n'));
	assert_int_equal(PARSE(&o, "record", "-j"), -EINVAL);
	assert_non_null(strstr(err, "'-j' needs a value"));
	record_opts__release(&o);
}

/* ---- per-event terms over the record options (sample_terms.c) ---- */

/*
 * evlist__configure() of @events with options @o (a command is recorded):
 * 0 with the list in @l (release it), or -errno with the message in err.
 */
static int configure(struct evlist *l, struct record_opts *o, const char *events)
{
	char *argv[] = {"true", NULL};
	int ret;

	o->events = strdup(events);
	o->mmap_pages = 128;
	o->clockid = CLOCK_MONOTONIC;
	o->argc = 1;
	o->argv = argv;
	err[0] = '\0';
	ret = evlist__configure(l, o, err, sizeof(err));
	free(o->events);
	o->events = NULL;
	if (ret)
		evlist__release(l);
	return ret;
}

/* The attr of event @i of @events with @o, as one value. */
static struct perf_event_attr attr_of(struct record_opts *o, const char *events, size_t i)
{
	struct evlist l;
	struct perf_event_attr a;

	if (configure(&l, o, events))
		fail_msg("'%s': %s", events, err);
	assert_true(i < l.nr);
	a = l.evsel[i].ev.attr;
	evlist__release(&l);
	return a;
}

static void configure_fails(struct record_opts *o, const char *events, const char *needle)
{
	struct evlist l;

	if (!configure(&l, o, events)) {
		evlist__release(&l);
		fail_msg("'%s' configured but should fail", events);
	}
	if (!strstr(err, needle))
		fail_msg("'%s': message '%s' lacks '%s'", events, err, needle);
	assert_null(strchr(err, '\n'));
}

#define ST(x) PERF_SAMPLE_##x
#define BASE (ST(IDENTIFIER) | ST(IP) | ST(TID) | ST(TIME) | ST(PERIOD))
#define DWARF_ST (ST(CALLCHAIN) | ST(REGS_USER) | ST(STACK_USER) | ST(ADDR) | ST(DATA_SRC))

/*
 * The call graph terms, attr for attr what perf 6.1 sets for the same
 * command line (perf evlist -v of its recordings), its leftovers included.
 */
static void test_callgraph_terms(void **state)
{
	struct record_opts o = {0}, g = {.callgraph_fp = true};
	struct record_opts dw = {.callgraph_dwarf = true, .dwarf_size = 8192};
	struct record_opts fp7 = {.callgraph_fp = true, .max_stack = 7};
	struct perf_event_attr a;

	(void)state;
	a = attr_of(&o, "cpu-clock/max-stack=3/", 0);
	assert_int_equal(a.sample_type, BASE | ST(CALLCHAIN));
	assert_int_equal(a.sample_max_stack, 3);
	a = attr_of(&o, "cpu-clock/max-stack=3,call-graph=fp/", 0);
	assert_int_equal(a.sample_type, BASE | ST(CALLCHAIN));
	assert_int_equal(a.sample_max_stack, 3);
	/* the other event keeps the options' (none) */
	a = attr_of(&o, "cpu-clock/max-stack=3/,task-clock", 1);
	assert_int_equal(a.sample_type, BASE);
	assert_int_equal(a.sample_max_stack, 0);

	a = attr_of(&o, "cpu-clock/call-graph=dwarf/", 0);
	assert_int_equal(a.sample_type, BASE | DWARF_ST);
	assert_int_equal(a.sample_stack_user, 8192);
	assert_int_equal(a.exclude_callchain_user, 1);
	assert_int_equal(a.sample_regs_user, callchain__all_regs());
	assert_int_equal(a.mmap_data, 1); /* the tracking event */
	a = attr_of(&o, "task-clock,cpu-clock/call-graph=dwarf,stack-size=1001/", 1);
	assert_int_equal(a.sample_stack_user, 1008); /* rounded up to 8, as perf */
	assert_int_equal(a.mmap_data, 0);
	a = attr_of(&o, "cpu-clock/call-graph=dwarf,max-stack=4/", 0);
	assert_int_equal(a.sample_type, BASE | DWARF_ST);
	assert_int_equal(a.sample_max_stack, 4);

	/* stack-size= alone or call-graph=no: the global call graph goes */
	a = attr_of(&g, "cpu-clock/stack-size=4096/", 0);
	assert_int_equal(a.sample_type, BASE);
	a = attr_of(&g, "cpu-clock/call-graph=no/", 0);
	assert_int_equal(a.sample_type, BASE);
	a = attr_of(&o, "cpu-clock/call-graph=no,max-stack=4/", 0);
	assert_int_equal(a.sample_type, BASE);
	a = attr_of(&g, "cpu-clock/max-stack=5/", 0);
	assert_int_equal(a.sample_type, BASE | ST(CALLCHAIN));
	assert_int_equal(a.sample_max_stack, 5);
	a = attr_of(&g, "cpu-clock/stack-size=0/", 0); /* 0: as if not given */
	assert_int_equal(a.sample_type, BASE | ST(CALLCHAIN));

	/* over --call-graph dwarf: its bits go, its values stay (perf's evsel__reset_callgraph) */
	a = attr_of(&dw, "cpu-clock/call-graph=fp/", 0);
	assert_int_equal(a.sample_type, BASE | ST(CALLCHAIN) | ST(ADDR) | ST(DATA_SRC));
	assert_int_equal(a.exclude_callchain_user, 1);
	assert_int_equal(a.sample_stack_user, 8192);
	assert_int_equal(a.sample_regs_user, callchain__all_regs());
	a = attr_of(&dw, "cpu-clock/max-stack=5/", 0);
	assert_int_equal(a.sample_type, BASE | ST(CALLCHAIN) | ST(ADDR) | ST(DATA_SRC));
	assert_int_equal(a.sample_max_stack, 5);
	/* over --call-graph fp,7: dwarf, and no max stack of its own */
	a = attr_of(&fp7, "cpu-clock/call-graph=dwarf/", 0);
	assert_int_equal(a.sample_type, BASE | DWARF_ST);
	assert_int_equal(a.sample_max_stack, 0);
	a = attr_of(&fp7, "task-clock,cpu-clock/call-graph=fp/", 0);
	assert_int_equal(a.sample_max_stack, 7);

	/* --user-callchains and --user-regs reach the event's own call graph */
	o.user_callchains = true;
	a = attr_of(&o, "cpu-clock/max-stack=3/", 0);
	assert_int_equal(a.exclude_callchain_kernel, 1);
	o.user_callchains = false;
#if defined(__x86_64__)
	o.user_regs = 0x1c0;
	a = attr_of(&o, "cpu-clock/call-graph=dwarf/", 0);
	assert_int_equal(a.sample_regs_user, 0x1c0 | callchain__dwarf_min_regs());
	o.user_regs = 0;
#endif

	configure_fails(&o, "cpu-clock/max-stack=70000/",
			"cpu-clock/max-stack=70000/: max-stack=70000 is above "
			"kernel.perf_event_max_stack");
	configure_fails(&o, "cpu-clock/call-graph=dwarf,stack-size=70000/",
			"stack-size=70000: a dwarf stack copy is 8..65528 bytes");
	/* not a dwarf call graph: perf takes it and ignores the size */
	a = attr_of(&o, "cpu-clock/call-graph=fp,stack-size=70000/", 0);
	assert_int_equal(a.sample_stack_user, 0);
}

/* inherit, overwrite, time, aux-*, branch_type= and the terms without effect. */
static void test_other_terms(void **state)
{
	struct record_opts o = {0}, noinh = {.no_inherit = true}, ow = {.overwrite = true};
	struct record_opts br = {.branch_stack = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER};
	struct perf_event_attr a, plain;

	(void)state;
	assert_int_equal(attr_of(&o, "cpu-clock/no-inherit/", 0).inherit, 0);
	assert_int_equal(attr_of(&o, "cpu-clock/inherit=0/", 0).inherit, 0);
	assert_int_equal(attr_of(&o, "cpu-clock/no-inherit=0/", 0).inherit, 1);
	assert_int_equal(attr_of(&noinh, "cpu-clock", 0).inherit, 0);
	assert_int_equal(attr_of(&noinh, "cpu-clock/inherit/", 0).inherit, 1);
	assert_int_equal(attr_of(&noinh, "cpu-clock/inherit/,task-clock", 1).inherit, 0);

	/* one ring per CPU: overwrite only as --overwrite says */
	assert_int_equal(attr_of(&o, "cpu-clock/no-overwrite/", 0).write_backward, 0);
	assert_int_equal(attr_of(&ow, "cpu-clock/overwrite/", 0).write_backward, 1);
	configure_fails(&o, "cpu-clock/overwrite/",
			"cpu-clock/overwrite/: overwrite: not supported on some events only");
	configure_fails(&ow, "cpu-clock/no-overwrite/",
			"no-overwrite: not supported with --overwrite");

	/* time=1, percore, nr, metric-id: the attr of the plain event */
	plain = attr_of(&o, "cpu-clock", 0);
	a = attr_of(&o, "cpu-clock/time=1,percore,nr=3,metric-id=m/", 0);
	assert_memory_equal(&a, &plain, sizeof(a));
	configure_fails(&o, "cpu-clock/time=0/", "cpu-clock/time=0/: time=0: not supported");

	a = attr_of(&o, "cpu-clock/aux-output/", 0);
	assert_int_equal(a.aux_output, 1);
	configure_fails(&o, "cpu-clock/aux-sample-size=4096/",
			"aux-sample-size: No AUX area event to sample");

	/* branch_type=: perf ORs it twice (parse and apply), so u is USER|ANY */
	a = attr_of(&o, "cpu-clock/branch_type=u/", 0);
	assert_int_equal(a.sample_type, BASE | ST(BRANCH_STACK));
	assert_int_equal(a.branch_sample_type, PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER);
	a = attr_of(&o, "cpu-clock/branch_type=any,branch_type=no/", 0);
	assert_int_equal(a.sample_type, BASE);
	/* -j sets every event, a term adds to it */
	a = attr_of(&br, "cpu-clock,task-clock/branch_type=k/", 0);
	assert_int_equal(a.sample_type, BASE | ST(BRANCH_STACK));
	assert_int_equal(a.branch_sample_type, PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER);
	a = attr_of(&br, "cpu-clock,task-clock/branch_type=k/", 1);
	assert_int_equal(a.branch_sample_type, PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
						       PERF_SAMPLE_BRANCH_KERNEL);
	a = attr_of(&br, "cpu-clock/branch_type=no/", 0);
	assert_int_equal(a.sample_type, BASE);
	/* -D's tracking dummy (last, as perf's) never samples: no branch stack on it */
	br.delay_ms = 10;
	a = attr_of(&br, "cpu-clock", 1);
	assert_int_equal(a.config, PERF_COUNT_SW_DUMMY);
	assert_int_equal(a.sample_type & ST(BRANCH_STACK), 0);
	assert_int_equal(attr_of(&br, "cpu-clock", 0).sample_type & ST(BRANCH_STACK),
			 ST(BRANCH_STACK));
	/* the terms apply to the event, not to the dummy made from it */
	a = attr_of(&br, "cpu-clock/max-stack=3/", 1);
	assert_int_equal(a.sample_type & ST(CALLCHAIN), 0);
}

/*
 * -a and -C: as perf 6.1's record__open, a dummy:HG, enabled from its open,
 * takes the tracking bits (perf evlist -v of perf's -a recordings): what
 * starts while the tasks are described has records. -D on a task: on exec.
 * It comes last, as evlist__add_dummy() appends it.
 */
static void test_tracking_dummy(void **state)
{
	struct record_opts a = {.system_wide = true}, c = {.cpu_list = "0"};
	struct record_opts ad = {.system_wide = true, .delay_ms = 10, .switch_events = true};
	struct record_opts d = {.delay_ms = 10, .argv = (char *[]){"true", NULL}};
	struct record_opts t = {0};
	struct perf_event_attr x;

	(void)state;
	for (struct record_opts *o = &a; o; o = o == &a ? &c : o == &c ? &ad : NULL) {
		x = attr_of(o, "cpu-clock", 1);
		assert_int_equal(x.config, PERF_COUNT_SW_DUMMY);
		assert_int_equal(x.disabled, 0);
		assert_int_equal(x.enable_on_exec, 0);
		assert_int_equal(x.exclude_guest, 0);
		assert_int_equal(x.sample_type & ST(PERIOD), 0);
		assert_true(x.mmap && x.mmap2 && x.comm && x.comm_exec && x.task);
		assert_true(x.ksymbol && x.bpf_event && x.inherit);
		assert_int_equal(x.context_switch, o == &ad);
		x = attr_of(o, "cpu-clock", 0);
		assert_int_equal(x.config, PERF_COUNT_SW_CPU_CLOCK);
		assert_int_equal(x.disabled, 1);
		assert_false(x.mmap || x.mmap2 || x.comm || x.task || x.context_switch);
		/* perf's evsel__config: inherit on -a/-C events too */
		assert_false(x.ksymbol || x.bpf_event);
		assert_true(x.inherit);
	}
	x = attr_of(&d, "cpu-clock", 1);
	assert_int_equal(x.config, PERF_COUNT_SW_DUMMY);
	assert_int_equal(x.disabled, 1);
	assert_int_equal(x.enable_on_exec, 1);
	assert_int_equal(attr_of(&d, "cpu-clock", 0).enable_on_exec, 0);
	/* the command line's -F or -c, as evsel__config gives the dummy, not a term's */
	x = attr_of(&(struct record_opts){.system_wide = true, .freq = 999}, "cpu-clock", 1);
	assert_true(x.freq && x.sample_freq == 999 && (x.sample_type & ST(PERIOD)));
	x = attr_of(&(struct record_opts){.system_wide = true, .period = 5}, "cs", 1);
	assert_true(!x.freq && x.sample_period == 5 && !(x.sample_type & ST(PERIOD)));
	x = attr_of(&a, "cpu-clock/period=5000/", 1);
	assert_true(!x.freq && x.sample_period == 1);
	/* after every event given, a group's too */
	assert_int_equal(attr_of(&a, "{cpu-clock,task-clock},cs", 3).config, PERF_COUNT_SW_DUMMY);
	assert_int_equal(attr_of(&a, "{cpu-clock,task-clock},cs", 1).config,
			 PERF_COUNT_SW_TASK_CLOCK);
	/* A task without -D: the sampling event tracks, as in perf. */
	x = attr_of(&t, "cpu-clock", 0);
	assert_int_equal(x.config, PERF_COUNT_SW_CPU_CLOCK);
	assert_true(x.mmap && x.comm && x.task);
	assert_true(x.ksymbol && x.bpf_event && x.inherit);
	assert_false(attr_of(&t, "cpu-clock,cs", 1).ksymbol);
	t.no_bpf_event = true;
	x = attr_of(&t, "cpu-clock", 0);
	assert_true(x.ksymbol && !x.bpf_event);
	t.tid_list = "1";
	assert_false(attr_of(&t, "cpu-clock", 0).inherit);
}

/*
 * An AUX area event, attr for attr as perf 6.1 records it (perf record -vv
 * and perf evlist -v in tests/qemu/aux-oracle.sh's guest, with the fake
 * PMU of unit_put_intel_pt): Intel PT's default config, no PERIOD, a
 * quarter of the AUX area as aux_watermark, the perf clock, and the
 * tracking on a dummy:u appended last (switch records when the trace has
 * timestamps), the KSYMBOL and TEXT_POKE records on a second one where the
 * kernel is traced CPU-wide.
 */
static void test_aux_tracking(void **state)
{
	char root[] = "/tmp/test_sample_opts.XXXXXX";
	struct record_opts a = {.system_wide = true}, w = {0}, k = {.system_wide = true};
	struct perf_event_attr *pt, *d, *tp;
	struct evlist l;
	bool poke, perf_clock = clock__perf_readable();

	(void)state;
	assert_non_null(mkdtemp(root));
	unit_put_intel_pt(root);
	a.sysfs_root = w.sysfs_root = k.sysfs_root = root;
	assert_int_equal(configure(&l, &a, "intel_pt//"), 0);
	poke = l.nr == 3; /* a kernel before 5.9 has no TEXT_POKE records */
	assert_true(l.nr == 2 || l.nr == 3);
	pt = &l.evsel[0].ev.attr;
	d = &l.evsel[1].ev.attr;
	assert_int_equal(pt->config, 0x300e601);
	assert_int_equal(pt->sample_type & (ST(PERIOD) | ST(CPU)), ST(CPU));
	assert_int_equal(pt->aux_watermark, l.aux_pages * sysconf(_SC_PAGESIZE) / 4);
	assert_false(pt->mmap || pt->comm || pt->task || pt->context_switch || pt->ksymbol ||
		     pt->bpf_event);
	/* the perf clock where user space can read it (a TSC clocksource), else ours */
	assert_int_equal(l.clockid, perf_clock ? CLOCK_PERF : CLOCK_MONOTONIC);
	assert_int_equal(pt->use_clockid, !perf_clock);
	assert_string_equal(l.evsel[1].ev.name, "dummy:u");
	assert_int_equal(d->config, PERF_COUNT_SW_DUMMY);
	assert_true(d->exclude_kernel && d->exclude_hv && d->exclude_guest && !d->disabled);
	assert_true(d->mmap && d->mmap2 && d->comm && d->comm_exec && d->task && d->bpf_event);
	assert_true(d->context_switch);
	assert_int_equal(d->use_clockid, !perf_clock);
	assert_int_equal(d->ksymbol, !poke);
	assert_int_equal(d->sample_type, pt->sample_type);
	if (poke) {
		tp = &l.evsel[2].ev.attr;
		assert_string_equal(l.evsel[2].ev.name, "dummy:u");
		assert_true(tp->ksymbol && tp->text_poke && tp->exclude_kernel && !tp->disabled);
		assert_false(tp->mmap || tp->comm || tp->task || tp->context_switch || tp->bpf_event);
	}
	evlist__release(&l);
	/* user space only: no TEXT_POKE; tsc=0: no timestamps, no switch records */
	assert_int_equal(configure(&l, &a, "intel_pt//u"), 0);
	assert_int_equal(l.nr, 2);
	assert_true(l.evsel[1].ev.attr.ksymbol && l.evsel[1].ev.attr.context_switch);
	evlist__release(&l);
	assert_int_equal(configure(&l, &a, "intel_pt/tsc=0/u"), 0);
	assert_int_equal(l.evsel[0].ev.attr.config, 0x300e201);
	assert_false(l.evsel[1].ev.attr.context_switch);
	evlist__release(&l);
	/* a command: every event enabled on its exec, switch records per task */
	assert_int_equal(configure(&l, &w, "intel_pt//"), 0);
	assert_int_equal(l.nr, 2);
	assert_true(l.evsel[0].ev.attr.disabled && l.evsel[0].ev.attr.enable_on_exec);
	d = &l.evsel[1].ev.attr;
	assert_string_equal(l.evsel[1].ev.name, "dummy:u");
	assert_true(d->disabled && d->enable_on_exec && d->context_switch && d->mmap);
	evlist__release(&l);
	/* -S: the areas are read at a snapshot, no wake-up mark */
	a.aux_snapshot = true;
	assert_int_equal(configure(&l, &a, "intel_pt//"), 0);
	assert_int_equal(l.evsel[0].ev.attr.aux_watermark, 0);
	evlist__release(&l);
	/* ARM SPE: timestamps unless a term says no, switch records on the tracking dummy */
	unit_put_file(root, "sys/bus/event_source/devices/arm_spe_0/type", "9\n");
	unit_put_file(root, "sys/bus/event_source/devices/arm_spe_0/format/ts_enable", "config:0\n");
	unit_put_file(root, "sys/bus/event_source/devices/arm_spe_0/format/pa_enable", "config:1\n");
	assert_int_equal(configure(&l, &w, "arm_spe_0//"), 0);
	assert_int_equal(l.nr, 2);
	assert_int_equal(l.evsel[0].ev.attr.config, 0x1);
	assert_true(l.evsel[1].ev.attr.context_switch && l.evsel[1].ev.attr.mmap);
	evlist__release(&l);
	assert_int_equal(configure(&l, &w, "arm_spe_0/ts_enable=0,pa_enable=1/"), 0);
	assert_int_equal(l.evsel[0].ev.attr.config, 0x2);
	evlist__release(&l);
	/* -k: perf refuses it with Intel PT; other events keep it (and our default) */
	k.clockid_set = true;
	configure_fails(&k, "intel_pt//", "Cannot use clockid (-k option) with intel_pt");
	assert_int_equal(configure(&l, &k, "cpu-clock"), 0);
	assert_true(l.clockid == CLOCK_MONOTONIC && l.evsel[0].ev.attr.use_clockid);
	evlist__release(&l);
	unit_rmtree(root);
}

/*
 * The data and AUX sizes of an intel_pt// recording without -m, in a child
 * whose capabilities are all dropped when @unprivileged: {data, aux} pages
 * for no -m, -m 128 (DATA given) and -m ,16 (AUX given), through a pipe.
 */
static void aux_sizes(const char *sysfs_root, bool unprivileged, size_t out[6])
{
	struct record_opts o[3] = {{.aux_pages = 0}, {.mmap_pages_set = true}, {.aux_pages = 16}};
	int fds[2], status;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		cap_t none = cap_init();
		size_t v[6] = {0};
		struct evlist l;

		if (unprivileged && (!none || cap_set_proc(none)))
			_exit(2);
		for (int i = 0; i < 3; i++) {
			o[i].sysfs_root = sysfs_root;
			if (configure(&l, &o[i], "intel_pt//"))
				_exit(3);
			v[2 * i] = l.data_pages;
			v[2 * i + 1] = l.aux_pages;
			evlist__release(&l);
		}
		_exit(write(fds[1], v, sizeof(v)) == sizeof(v) ? 0 : 4);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], out, 6 * sizeof(size_t)), 6 * sizeof(size_t));
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(status, 0);
}

/*
 * perf 6.1's AUX sizes: 4 MiB areas beside -m's data rings with
 * CAP_PERFMON; without it 128 KiB areas and, unless -m gives a size,
 * 256 KiB data rings, so that both fit in perf_event_mlock_kb's 516 KiB.
 */
static void test_aux_sizes(void **state)
{
	char root[] = "/tmp/test_sample_opts.XXXXXX";
	size_t page = sysconf(_SC_PAGESIZE), v[6];

	(void)state;
	if (getuid() || sysctl__read_kernel("perf_event_paranoid", 2) < 0)
		skip(); /* root's capabilities to drop, and a paranoid that needs them */
	assert_non_null(mkdtemp(root));
	unit_put_intel_pt(root);
	aux_sizes(root, false, v);
	assert_int_equal(v[0], 128);
	assert_int_equal(v[1], (4 << 20) / page);
	assert_int_equal(v[5], 16);
	aux_sizes(root, true, v);
	assert_int_equal(v[0], (256 << 10) / page);
	assert_int_equal(v[1], (128 << 10) / page);
	/* -m 128: perf keeps the given data size */
	assert_int_equal(v[2], 128);
	assert_int_equal(v[3], (128 << 10) / page);
	/* -m ,16: an AUX size given, perf's 512 KiB default data ring */
	assert_int_equal(v[4], 128);
	assert_int_equal(v[5], 16);
	unit_rmtree(root);
}

/* -m DATA[,AUX]: which of the two the user gave. */
static void test_mmap_given(void **state)
{
	static const struct {
		const char *arg;
		size_t data, aux;
		bool set;
	} cases[] = {{"64", 64, 0, true}, {"64,16", 64, 16, true}, {",16", 128, 16, false},
		     {"1M,64K", 256, 16, true}};
	struct record_opts o;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[] = {"record", "-a", "-m", (char *)cases[i].arg, NULL};

		assert_int_equal(record_opts__parse_args(&o, 4, argv, err, sizeof(err)), 0);
		assert_int_equal(o.mmap_pages, cases[i].data);
		assert_int_equal(o.aux_pages, cases[i].aux);
		assert_int_equal(o.mmap_pages_set, cases[i].set);
	}
}

/* ---- tracing data from a fake tracefs ---- */

static char root[64];

static void put_file(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void mk(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(mkdir(path, 0700), 0);
}

static const char *fmt_switch = "name: sched_switch\nID: 42\nformat:\n\tfield:int a;\n";
static const char *fmt_wakeup = "name: sched_wakeup\nID: 43\nformat:\n\tfield:int b;\n";
static const char *fmt_irq = "name: irq_handler_entry\nID: 7\nformat:\n";

static int tracefs_setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/test-tracefs.XXXXXX");
	assert_non_null(mkdtemp(root));
	mk("events");
	mk("events/sched");
	mk("events/sched/sched_switch");
	mk("events/sched/sched_wakeup");
	mk("events/irq");
	mk("events/irq/irq_handler_entry");
	put_file("events/header_page", "HP");
	put_file("events/header_event", "HEV");
	put_file("events/sched/sched_switch/id", "42\n");
	put_file("events/sched/sched_switch/format", fmt_switch);
	put_file("events/sched/sched_wakeup/id", "43\n");
	put_file("events/sched/sched_wakeup/format", fmt_wakeup);
	put_file("events/irq/irq_handler_entry/id", "7\n");
	put_file("events/irq/irq_handler_entry/format", fmt_irq);
	put_file("printk_formats", "0x1 : \"x\"\n");
	return 0;
}

static int tracefs_teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd);
}

struct cursor {
	const unsigned char *p, *end;
};

static uint64_t take(struct cursor *c, size_t n)
{
	uint64_t v = 0;

	assert_true(c->p + n <= c->end);
	memcpy(&v, c->p, n);
	c->p += n;
	return v;
}

static void expect_bytes(struct cursor *c, const void *s, size_t n)
{
	assert_true(c->p + n <= c->end);
	assert_memory_equal(c->p, s, n);
	c->p += n;
}

static void expect_file(struct cursor *c, size_t hdr, const char *text)
{
	assert_int_equal(take(c, hdr), strlen(text));
	expect_bytes(c, text, strlen(text));
}

static void test_tracing_data(void **state)
{
	struct pfile_featset fs = {0};
	struct pfile_event ev[3] = {0};
	struct cursor c;

	(void)state;
	ev[0].attr.type = PERF_TYPE_SOFTWARE;
	ev[0].name = "cpu-clock";
	ev[1].attr.type = PERF_TYPE_TRACEPOINT;
	ev[1].attr.config = 43;
	ev[1].name = "renamed"; /* name= term: found by id */
	ev[2].attr.type = PERF_TYPE_TRACEPOINT;
	ev[2].attr.config = 42;
	ev[2].name = "sched:sched_switch";
	assert_int_equal(tracing_data__feature(&fs, ev, 3, root, err, sizeof(err)), 0);
	assert_true(pfile_featset__has(&fs, PFILE_FEAT_TRACING_DATA));
	c.p = fs.sec[PFILE_FEAT_TRACING_DATA].data;
	c.end = c.p + fs.sec[PFILE_FEAT_TRACING_DATA].size;
	expect_bytes(&c, "\027\010\104tracing", 10);
	expect_bytes(&c, "0.6", 4);
	assert_int_equal(take(&c, 1), 0);
	assert_int_equal(take(&c, 1), sizeof(long));
	assert_int_equal(take(&c, 4), sysconf(_SC_PAGESIZE));
	expect_bytes(&c, "header_page", 12);
	expect_file(&c, 8, "HP");
	expect_bytes(&c, "header_event", 13);
	expect_file(&c, 8, "HEV");
	assert_int_equal(take(&c, 4), 0); /* no ftrace events */
	assert_int_equal(take(&c, 4), 1); /* one system: sched, irq unused */
	expect_bytes(&c, "sched", 6);
	assert_int_equal(take(&c, 4), 2);
	expect_file(&c, 8, fmt_wakeup);
	expect_file(&c, 8, fmt_switch);
	assert_int_equal(take(&c, 4), 0); /* kallsyms: empty, as perf 6.1 */
	expect_file(&c, 4, "0x1 : \"x\"\n");
	assert_int_equal(take(&c, 8), 0); /* no saved_cmdlines file: empty */
	assert_ptr_equal(c.p, c.end);
	pfile_featset__release(&fs);

	/* no tracepoint: no feature */
	assert_int_equal(tracing_data__feature(&fs, ev, 1, root, err, sizeof(err)), 0);
	assert_false(pfile_featset__has(&fs, PFILE_FEAT_TRACING_DATA));
	/* an id nobody has */
	ev[2].attr.config = 99;
	assert_int_equal(tracing_data__feature(&fs, ev, 3, root, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "99"));
	pfile_featset__release(&fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_call_graph),
	    cmocka_unit_test(test_regs),
	    cmocka_unit_test(test_cli_values),
	    cmocka_unit_test(test_perf_spellings),
	    cmocka_unit_test(test_switch_output),
	    cmocka_unit_test(test_branch_filter),
	    cmocka_unit_test(test_branch_cli),
	    cmocka_unit_test(test_callgraph_terms),
	    cmocka_unit_test(test_other_terms),
	    cmocka_unit_test(test_tracking_dummy),
	    cmocka_unit_test(test_aux_tracking),
	    cmocka_unit_test(test_aux_sizes),
	    cmocka_unit_test(test_mmap_given),
	    cmocka_unit_test_setup_teardown(test_tracing_data, tracefs_setup, tracefs_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
