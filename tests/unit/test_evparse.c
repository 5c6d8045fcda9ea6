// SPDX-License-Identifier: GPL-2.0
/*
 * evparse unit tests against a fake sysfs/tracefs tree in a temp dir, plus
 * two checks against this machine's real /sys (skipped when unavailable).
 */
#include <errno.h>
#include <limits.h>
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
#include <linux/hw_breakpoint.h>

#include "unit_util.h"

#include "recorder/events/callchain.h"
#include "recorder/events/evparse.h"

static char tmp_root[64];
static char hw_root[128];   /* sysfs with a cpu PMU */
static char nohw_root[128]; /* sysfs without one, like a VM */
static char tracefs[128];

#define DEV "sys/bus/event_source/devices/"

static int setup(void **state)
{
	(void)state;
	strcpy(tmp_root, "/tmp/test_evparse.XXXXXX");
	if (!mkdtemp(tmp_root))
		return -1;
	snprintf(hw_root, sizeof(hw_root), "%s/hw", tmp_root);
	snprintf(nohw_root, sizeof(nohw_root), "%s/nohw", tmp_root);
	snprintf(tracefs, sizeof(tracefs), "%s/tracing", tmp_root);

	unit_put_file(hw_root, DEV "software/type", "1\n");
	unit_put_file(hw_root, DEV "tracepoint/type", "2\n");
	unit_put_file(hw_root, DEV "cpu/type", "4\n");
	unit_put_file(hw_root, DEV "cpu/format/event", "config:0-7\n");
	unit_put_file(hw_root, DEV "cpu/format/umask", "config:8-15\n");
	unit_put_file(hw_root, DEV "cpu/format/cmask", "config:24-31\n");
	unit_put_file(hw_root, DEV "cpu/format/in_tx", "config:32\n");
	unit_put_file(hw_root, DEV "cpu/format/ldlat", "config1:0-15\n");
	unit_put_file(hw_root, DEV "cpu/format/split", "config:0-3,60-63\n");
	unit_put_file(hw_root, DEV "cpu/events/cycles-t", "event=0x3c,in_tx=1\n");
	unit_put_file(hw_root, "proc/sys/kernel/perf_event_paranoid", "2\n");

	unit_put_file(nohw_root, DEV "software/type", "1\n");
	unit_put_file(nohw_root, DEV "breakpoint/type", "5\n");
	unit_put_file(nohw_root, "proc/sys/kernel/perf_event_paranoid", "-1\n");

	unit_put_file(tracefs, "events/sched/sched_switch/id", "316\n");
	unit_put_file(tracefs, "events/sched/sched_wakeup/id", "317\n");
	unit_put_file(tracefs, "events/sched/enable", "0\n");
	unit_put_file(tracefs, "events/sched/filter", "none\n");
	unit_put_file(tracefs, "events/irq/irq_handler_entry/id", "50\n");
	unit_put_file(tracefs, "events/enable", "0\n");
	unit_put_file(tracefs, "events/header_page", "x\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return unit_rmtree(tmp_root);
}

static const struct evparse_opts fake = { .sysfs_root = hw_root, .tracefs_root = tracefs };

struct parsed {
	struct evparse_event *ev;
	size_t nr;
	char err[512];
	int ret;
};

static struct parsed parse_with(const char *list, const struct evparse_opts *o)
{
	struct parsed p = { 0 };

	p.ret = evparse__parse(list, o, &p.ev, &p.nr, p.err, sizeof(p.err));
	return p;
}

/* Parses @list expecting success and exactly @nr events. */
static struct parsed parse_ok(const char *list, size_t nr)
{
	struct parsed p = parse_with(list, &fake);

	if (p.ret)
		fail_msg("'%s' failed: %d %s", list, p.ret, p.err);
	assert_int_equal(p.nr, nr);
	assert_string_equal(p.err, "");
	return p;
}

/* Parses @list expecting failure with @needle in the message. */
static void parse_fails(const char *list, const char *needle)
{
	struct parsed p = parse_with(list, &fake);

	if (!p.ret)
		fail_msg("'%s' parsed but should fail", list);
	assert_true(p.ret < 0);
	assert_int_equal(p.nr, 0);
	if (!strstr(p.err, needle))
		fail_msg("'%s': message '%s' lacks '%s'", list, p.err, needle);
	free(p.ev);
}

static void test_generic_names(void **state)
{
	static const struct {
		const char *name;
		__u32 type;
		__u64 config;
	} t[] = {
		{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
		{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
		{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
		{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
		{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
		{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
		{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
		{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
		{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
		{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
		{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
		{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
		{ "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
		{ "bpf-output", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT },
		{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
		{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
		{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
		{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
		{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
		{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
		{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
		{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
		{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
		{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE,
		  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
		{ "idle-cycles-frontend", PERF_TYPE_HARDWARE,
		  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
		{ "stalled-cycles-backend", PERF_TYPE_HARDWARE,
		  PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
		{ "idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
		{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct parsed p = parse_ok(t[i].name, 1);

		assert_int_equal(p.ev[0].attr.type, t[i].type);
		assert_int_equal(p.ev[0].attr.config, t[i].config);
		assert_string_equal(p.ev[0].name, t[i].name);
		assert_string_equal(p.ev[0].pmu, "");
		assert_false(p.ev[0].period_set);
		assert_false(p.ev[0].tracepoint);
		assert_int_equal(p.ev[0].attr.size, 0);
		assert_int_equal(p.ev[0].attr.sample_period, 0);
		/* perf's event_attr_init() default when no modifier is given */
		assert_int_equal(p.ev[0].attr.exclude_guest, 1);
		assert_int_equal(p.ev[0].attr.exclude_user | p.ev[0].attr.exclude_kernel, 0);
		free(p.ev);
	}
}

static void test_hw_cache(void **state)
{
	static const struct {
		const char *name;
		__u64 config;
	} t[] = {
		{ "L1-dcache-load-misses", 0 | 0 << 8 | 1 << 16 },
		{ "L1-dcache-loads", 0 },
		{ "L1-dcache-stores", 0 | 1 << 8 },
		{ "l1d-store-miss", 0 | 1 << 8 | 1 << 16 },
		{ "L1-dcache-misses", 1 << 16 },
		{ "L1-dcache", 0 },
		{ "L1-icache-prefetches", 1 | 2 << 8 },
		{ "LLC-loads", 2 },
		{ "LLC-load-misses", 2 | 1 << 16 },
		{ "L2-misses-speculative-read", 2 | 2 << 8 | 1 << 16 },
		{ "dTLB-load-misses", 3 | 1 << 16 },
		{ "Data-TLB-stores", 3 | 1 << 8 },
		{ "iTLB-load-misses", 4 | 1 << 16 },
		{ "branch-loads", 5 },
		{ "branch-load-misses", 5 | 1 << 16 },
		{ "node-stores", 6 | 1 << 8 },
	};
	struct parsed p;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		p = parse_ok(t[i].name, 1);
		assert_int_equal(p.ev[0].attr.type, PERF_TYPE_HW_CACHE);
		assert_int_equal(p.ev[0].attr.config, t[i].config);
		assert_string_equal(p.ev[0].name, t[i].name);
		free(p.ev);
	}
	/* perf names cache events itself, without the modifiers */
	p = parse_ok("LLC-loads:u", 1);
	assert_string_equal(p.ev[0].name, "LLC-loads");
	assert_int_equal(p.ev[0].attr.exclude_kernel, 1);
	free(p.ev);
	parse_fails("iTLB-stores", "unknown event 'iTLB-stores'");
	parse_fails("L1-dcache-foo", "unknown event");
	parse_fails("L1-dcache-load-store", "unknown event");
}

static void check_mods(const char *list, int eu, int ek, int eh, int eG, int eH)
{
	struct parsed p = parse_ok(list, 1);
	struct perf_event_attr *a = &p.ev[0].attr;

	if (a->exclude_user != (unsigned)eu || a->exclude_kernel != (unsigned)ek ||
	    a->exclude_hv != (unsigned)eh || a->exclude_guest != (unsigned)eG ||
	    a->exclude_host != (unsigned)eH)
		fail_msg("%s: u%d k%d h%d G%d H%d", list, a->exclude_user, a->exclude_kernel,
			 a->exclude_hv, a->exclude_guest, a->exclude_host);
	assert_string_equal(p.ev[0].name, list);
	free(p.ev);
}

/* Expected bits are what perf 6.1 records (checked with perf evlist -v). */
static void test_modifiers(void **state)
{
	struct parsed p;

	(void)state;
	check_mods("cpu-clock:u", 0, 1, 1, 1, 0);
	check_mods("cpu-clock:k", 1, 0, 1, 0, 0);
	check_mods("cpu-clock:h", 1, 1, 0, 0, 0);
	check_mods("page-faults:uk", 0, 0, 1, 1, 0);
	check_mods("page-faults:ku", 0, 0, 1, 1, 0);
	check_mods("cs:ukh", 0, 0, 0, 1, 0);
	check_mods("cpu-clock:G", 0, 0, 0, 0, 1);
	check_mods("dummy:H", 0, 0, 0, 1, 0);
	check_mods("cpu-clock:GH", 0, 0, 0, 0, 0);
	check_mods("cpu-clock:S", 0, 0, 0, 0, 0);
	check_mods("cycles:Gu", 0, 1, 1, 0, 1);

	p = parse_ok("task-clock:p", 1);
	assert_int_equal(p.ev[0].attr.precise_ip, 1);
	assert_int_equal(p.ev[0].attr.exclude_guest, 1);
	free(p.ev);
	p = parse_ok("cycles:ppp", 1);
	assert_int_equal(p.ev[0].attr.precise_ip, 3);
	free(p.ev);
	p = parse_ok("cs:De", 1);
	assert_int_equal(p.ev[0].attr.pinned, 1);
	assert_int_equal(p.ev[0].attr.exclusive, 1);
	assert_int_equal(p.ev[0].attr.exclude_guest, 0);
	free(p.ev);
	p = parse_ok("cpu-clock:I", 1);
	assert_int_equal(p.ev[0].attr.exclude_idle, 1);
	free(p.ev);
	p = parse_ok("cpu-clock:", 1);
	assert_int_equal(p.ev[0].attr.exclude_guest, 1);
	free(p.ev);

	parse_fails("cpu-clock:Q", "bad modifier 'Q' in 'cpu-clock:Q'");
	parse_fails("cpu-clock:uu", "duplicate modifier 'u'");
	parse_fails("cpu-clock:pppp", "at most 3 'p'");
	parse_fails("cpu-clock:ukhGHpppPSDIWebx", "too many modifiers");
	parse_fails("software/config=1/x", "bad modifier 'x'");
}

static void test_software_pmu_terms(void **state)
{
	struct parsed p;
	struct perf_event_attr *a;

	(void)state;
	p = parse_ok("software/period=1,name=cs,config=0x3/Duk", 1);
	a = &p.ev[0].attr;
	assert_int_equal(a->type, PERF_TYPE_SOFTWARE);
	assert_int_equal(a->config, 3);
	assert_int_equal(a->sample_period, 1);
	assert_int_equal(a->freq, 0);
	assert_true(p.ev[0].period_set);
	assert_string_equal(p.ev[0].name, "cs");
	assert_string_equal(p.ev[0].pmu, "software");
	/* as perf evlist -v shows it: pinned, exclude_hv, exclude_guest */
	assert_int_equal(a->pinned, 1);
	assert_int_equal(a->exclude_kernel, 0);
	assert_int_equal(a->exclude_user, 0);
	assert_int_equal(a->exclude_hv, 1);
	assert_int_equal(a->exclude_guest, 1);
	free(p.ev);

	p = parse_ok("software/freq=100/", 1);
	assert_int_equal(p.ev[0].attr.freq, 1);
	assert_int_equal(p.ev[0].attr.sample_freq, 100);
	assert_true(p.ev[0].period_set);
	assert_string_equal(p.ev[0].name, "software/freq=100/");
	free(p.ev);

	/* a bare built-in term means 1; a quoted name keeps its ':' and ',' */
	p = parse_ok("software/config,name='a:b,c',config1=7,config2=0x10/", 1);
	assert_int_equal(p.ev[0].attr.config, 1);
	assert_int_equal(p.ev[0].attr.config1, 7);
	assert_int_equal(p.ev[0].attr.config2, 0x10);
	assert_string_equal(p.ev[0].name, "a:b,c");
	free(p.ev);

	/* built-in terms on a generic event */
	p = parse_ok("cpu-clock/period=100000/u", 1);
	assert_int_equal(p.ev[0].attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(p.ev[0].attr.sample_period, 100000);
	assert_int_equal(p.ev[0].attr.exclude_kernel, 1);
	assert_string_equal(p.ev[0].name, "cpu-clock/period=100000/u");
	free(p.ev);

	parse_fails("cpu-clock/event=1/", "unknown term 'event' in 'cpu-clock/event=1/'");
	parse_fails("software/period=abc/", "term 'period' needs a number");
	parse_fails("software/name/", "term 'name' needs a value");
}

static void test_cpu_pmu_formats(void **state)
{
	struct parsed p;

	(void)state;
	p = parse_ok("cpu/event=0x3c,umask=1/", 1);
	assert_int_equal(p.ev[0].attr.type, 4);
	assert_int_equal(p.ev[0].attr.config, 0x13c);
	assert_string_equal(p.ev[0].pmu, "cpu");
	assert_string_equal(p.ev[0].name, "cpu/event=0x3c,umask=1/");
	free(p.ev);

	p = parse_ok("cpu/event=0xc0,umask=0x01,cmask=2,in_tx,ldlat=0x30/u", 1);
	assert_int_equal(p.ev[0].attr.config, 0x1020001c0ULL);
	assert_int_equal(p.ev[0].attr.config1, 0x30);
	assert_int_equal(p.ev[0].attr.exclude_kernel, 1);
	free(p.ev);

	/* split fields scatter the low bits, then the high nibble */
	p = parse_ok("cpu/split=0xab/", 1);
	assert_int_equal(p.ev[0].attr.config, 0xa00000000000000bULL);
	free(p.ev);

	/* config= assigns first, format bits are ORed in after (as perf) */
	p = parse_ok("cpu/event=1,config=0x10000/", 1);
	assert_int_equal(p.ev[0].attr.config, 0x10001);
	free(p.ev);

	/* ':' before the modifiers is tolerated */
	p = parse_ok("cpu/event=1/:k", 1);
	assert_int_equal(p.ev[0].attr.exclude_user, 1);
	free(p.ev);

	parse_fails("cpu/event=0x100/", "value 0x100 too big for term 'event'");
	parse_fails("cpu/bogus=1/", "unknown term 'bogus' for PMU 'cpu' in 'cpu/bogus=1/'");
	parse_fails("cpu/bogus=1/",
		    "valid terms: cmask,event,in_tx,ldlat,split,umask,config,config1,config2,"
		    "name,period,freq");
	parse_fails("software/bogus=1/", "valid terms: config,config1");
	parse_fails("foo/config=1/", "unknown PMU 'foo' in 'foo/config=1/'");
	parse_fails("cpu/event=1", "missing closing '/'");
	parse_fails("cpu/../x=1/", "bad term '..'");
	parse_fails("../cpu/event=1/", "bad PMU name");
}

static void test_pmu_aliases(void **state)
{
	struct parsed p;

	(void)state;
	p = parse_ok("cpu/cycles-t/", 1);
	assert_int_equal(p.ev[0].attr.config, 0x3c | 1ULL << 32);
	free(p.ev);

	p = parse_ok("cpu/cycles-t,cmask=1/k", 1);
	assert_int_equal(p.ev[0].attr.config, 0x3c | 1ULL << 32 | 1 << 24);
	assert_int_equal(p.ev[0].attr.exclude_user, 1);
	free(p.ev);

	/* bare alias name: looked up in every PMU's events/ */
	p = parse_ok("cycles-t:u", 1);
	assert_int_equal(p.ev[0].attr.type, 4);
	assert_int_equal(p.ev[0].attr.config, 0x3c | 1ULL << 32);
	assert_string_equal(p.ev[0].pmu, "cpu");
	assert_string_equal(p.ev[0].name, "cycles-t:u");
	assert_int_equal(p.ev[0].attr.exclude_kernel, 1);
	free(p.ev);
}

/* Term @i of @ev is @type with @val. */
static void check_term(const struct evparse_event *ev, unsigned int i, enum evparse_term_type type,
		       __u64 val)
{
	assert_true(i < ev->nr_terms);
	assert_int_equal(ev->terms[i].type, type);
	assert_int_equal(ev->terms[i].val, val);
}

/*
 * perf 6.1's per-event config terms (config_term_common()): kept in the
 * order given, for sample_terms.c; values checked as perf's parser does.
 */
static void test_config_terms(void **state)
{
	struct parsed p;
	const struct evparse_event *ev;

	(void)state;
	p = parse_ok("cpu-clock/time=1,call-graph=dwarf,stack-size=4096,max-stack=3,inherit,"
		     "no-inherit,overwrite=0,no-overwrite=0,branch_type=any,aux-output,"
		     "aux-sample-size=0x40/u", 1);
	ev = &p.ev[0];
	assert_int_equal(ev->nr_terms, 11);
	check_term(ev, 0, EVPARSE_TERM_TIME, 1);
	check_term(ev, 1, EVPARSE_TERM_CALLGRAPH, CALLCHAIN_DWARF);
	check_term(ev, 2, EVPARSE_TERM_STACK_SIZE, 4096);
	check_term(ev, 3, EVPARSE_TERM_MAX_STACK, 3);
	check_term(ev, 4, EVPARSE_TERM_INHERIT, 1);
	check_term(ev, 5, EVPARSE_TERM_INHERIT, 0);
	check_term(ev, 6, EVPARSE_TERM_OVERWRITE, 0);
	check_term(ev, 7, EVPARSE_TERM_OVERWRITE, 1); /* no-overwrite=0: overwrite, as perf */
	check_term(ev, 8, EVPARSE_TERM_BRANCH, PERF_SAMPLE_BRANCH_ANY);
	check_term(ev, 9, EVPARSE_TERM_AUX_OUTPUT, 1);
	check_term(ev, 10, EVPARSE_TERM_AUX_SAMPLE_SIZE, 0x40);
	/* the name is the text; the modifier still applies */
	assert_string_equal(ev->name, "cpu-clock/time=1,call-graph=dwarf,stack-size=4096,"
				      "max-stack=3,inherit,no-inherit,overwrite=0,no-overwrite=0,"
				      "branch_type=any,aux-output,aux-sample-size=0x40/u");
	assert_int_equal(ev->attr.exclude_kernel, 1);
	free(p.ev);

	/* call-graph=fp and no; inherit=5 is inherit, max-stack alone is 1 */
	p = parse_ok("cpu-clock/call-graph=fp,call-graph=no,inherit=5,max-stack/", 1);
	check_term(&p.ev[0], 0, EVPARSE_TERM_CALLGRAPH, CALLCHAIN_FP);
	check_term(&p.ev[0], 1, EVPARSE_TERM_CALLGRAPH, CALLCHAIN_NONE);
	check_term(&p.ev[0], 2, EVPARSE_TERM_INHERIT, 1);
	check_term(&p.ev[0], 3, EVPARSE_TERM_MAX_STACK, 1);
	free(p.ev);

	/* perf stat's and perf trace's terms: taken, nothing kept, the attr unchanged */
	p = parse_ok("cpu-clock/percore,percore=0,nr=4,metric-id=m1/", 1);
	assert_int_equal(p.ev[0].nr_terms, 0);
	free(p.ev);

	/* branch_type= ORs into the attr while parsing, as config_term_common() (u: any) */
	p = parse_ok("cpu-clock/branch_type=u/", 1);
	assert_int_equal(p.ev[0].attr.branch_sample_type, PERF_SAMPLE_BRANCH_ANY);
	check_term(&p.ev[0], 0, EVPARSE_TERM_BRANCH, PERF_SAMPLE_BRANCH_USER);
	free(p.ev);
	p = parse_ok("cpu-clock/branch_type=any,branch_type=k,branch_type=no/", 1);
	assert_int_equal(p.ev[0].attr.branch_sample_type,
			 PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_KERNEL);
	check_term(&p.ev[0], 2, EVPARSE_TERM_BRANCH, 0);
	free(p.ev);

	/* on PMU events, hw cache and raw events too */
	p = parse_ok("software/config=0x3,max-stack=2/,L1-dcache-load-misses/no-inherit/,"
		     "r1a8/call-graph=fp/", 3);
	assert_int_equal(p.ev[0].attr.config, 3);
	check_term(&p.ev[0], 0, EVPARSE_TERM_MAX_STACK, 2);
	check_term(&p.ev[1], 0, EVPARSE_TERM_INHERIT, 0);
	check_term(&p.ev[2], 0, EVPARSE_TERM_CALLGRAPH, CALLCHAIN_FP);
	free(p.ev);

	parse_fails("cpu-clock/time=2/", "term 'time' takes 0 or 1");
	parse_fails("cpu-clock/percore=2/", "term 'percore' takes 0 or 1");
	parse_fails("cpu-clock/max-stack=abc/", "term 'max-stack' needs a number");
	parse_fails("cpu-clock/call-graph/", "term 'call-graph' needs a string value");
	parse_fails("cpu-clock/metric-id/", "term 'metric-id' needs a string value");
	parse_fails("cpu-clock/metric-id=1/", "term 'metric-id' needs a string value");
	parse_fails("cpu-clock/call-graph=bogus/", "call-graph=bogus in 'cpu-clock/call-graph=bogus/'"
						     ": not a call graph mode (fp, dwarf or no)");
	parse_fails("cpu-clock/call-graph=lbr/", "call-graph=lbr in 'cpu-clock/call-graph=lbr/': "
						 "not supported");
	parse_fails("cpu-clock/branch_type=hw_index/", "unknown branch filter (valid: no,u,k,hv,any");
	parse_fails("cpu-clock/aux-sample-size=0x100000000/", "aux-sample-size=0x100000000 too big");
	parse_fails("cpu-clock/driver-config=x/", "unknown term 'driver-config'");
	parse_fails("cpu-clock/event=1/",
		    "valid terms: config,config1,config2,name,period,freq,branch_type,time,"
		    "call-graph,stack-size,no-inherit,inherit,max-stack,nr,no-overwrite,overwrite,"
		    "percore,aux-output,aux-sample-size,metric-id");
	parse_fails("cpu-clock/nr,nr,inherit,inherit,inherit,inherit,inherit,inherit,inherit,inherit,"
		    "inherit,inherit,inherit,inherit,inherit,inherit,inherit,inherit,inherit/",
		    "too many terms");
}

/* Tracepoints take /TERMS/ too: the subset of perf's config_term_tracepoint(). */
static void test_tracepoint_terms(void **state)
{
	struct parsed p;

	(void)state;
	p = parse_ok("sched:sched_switch/max-stack=3/u", 1);
	assert_true(p.ev[0].tracepoint);
	assert_int_equal(p.ev[0].attr.config, 316);
	assert_string_equal(p.ev[0].name, "sched:sched_switch");
	assert_int_equal(p.ev[0].attr.exclude_kernel, 1);
	check_term(&p.ev[0], 0, EVPARSE_TERM_MAX_STACK, 3);
	free(p.ev);

	p = parse_ok("sched:sched_switch/call-graph=fp,no-inherit,stack-size=64,nr=2,overwrite,"
		     "aux-output=0,aux-sample-size=8/:k", 1);
	assert_int_equal(p.ev[0].nr_terms, 6);
	check_term(&p.ev[0], 1, EVPARSE_TERM_INHERIT, 0);
	assert_int_equal(p.ev[0].attr.exclude_user, 1);
	free(p.ev);

	/* a glob's every match gets the terms; a group member too */
	p = parse_ok("sched:*/max-stack=2/,{cs,sched:sched_wakeup/call-graph=dwarf/}", 4);
	check_term(&p.ev[0], 0, EVPARSE_TERM_MAX_STACK, 2);
	check_term(&p.ev[1], 0, EVPARSE_TERM_MAX_STACK, 2);
	assert_int_equal(p.ev[2].nr_terms, 0);
	check_term(&p.ev[3], 0, EVPARSE_TERM_CALLGRAPH, CALLCHAIN_DWARF);
	assert_int_equal(p.ev[3].group_idx, 1);
	free(p.ev);

	/* empty terms, as perf takes sched:sched_switch// */
	p = parse_ok("sched:sched_switch//", 1);
	assert_int_equal(p.ev[0].nr_terms, 0);
	free(p.ev);

	parse_fails("sched:sched_switch/period=2/",
		    "term 'period' does not apply to a tracepoint, in 'sched:sched_switch/period=2/'"
		    "; valid terms: call-graph,stack-size,no-inherit,inherit,max-stack,nr,"
		    "no-overwrite,overwrite,aux-output,aux-sample-size");
	parse_fails("sched:sched_switch/name=x/", "term 'name' does not apply to a tracepoint");
	parse_fails("sched:sched_switch/time/", "term 'time' does not apply to a tracepoint");
	parse_fails("sched:sched_switch/percore/", "term 'percore' does not apply");
	parse_fails("sched:sched_switch/branch_type=any/", "term 'branch_type' does not apply");
	parse_fails("sched:sched_switch/bogus=1/", "unknown term 'bogus'");
	parse_fails("sched:sched_switch/max-stack=3", "missing closing '/'");
	parse_fails("sched:nosuch/max-stack=3/", "unknown tracepoint 'sched:nosuch'");
	parse_fails("sched:sched_switch/max-stack=3/Z", "bad modifier 'Z'");
}

static void test_unknown(void **state)
{
	(void)state;
	parse_fails("nosuch", "unknown event 'nosuch' (shardrec list shows");
	/* a typo: git's "did you mean", and where the list is */
	parse_fails("cyclse", "unknown event 'cyclse': did you mean 'cycles'? (shardrec list");
	parse_fails("cpu-clok", "did you mean 'cpu-clock'?");
	parse_fails("cycles-x", "unknown event 'cycles-x'");
	parse_fails("cs,,cpu-clock", "empty event");
	parse_fails("", "empty event");
	parse_fails("cs,", "empty event");
}

static void test_tracepoints(void **state)
{
	struct parsed p;

	(void)state;
	p = parse_ok("sched:sched_switch", 1);
	assert_int_equal(p.ev[0].attr.type, PERF_TYPE_TRACEPOINT);
	assert_int_equal(p.ev[0].attr.config, 316);
	assert_true(p.ev[0].tracepoint);
	assert_false(p.ev[0].period_set);
	assert_int_equal(p.ev[0].attr.sample_period, 1);
	assert_string_equal(p.ev[0].name, "sched:sched_switch");
	free(p.ev);

	/* perf keeps the tracepoint's own name, modifiers are not in it */
	p = parse_ok("sched:sched_switch:u", 1);
	assert_string_equal(p.ev[0].name, "sched:sched_switch");
	assert_int_equal(p.ev[0].attr.exclude_kernel, 1);
	free(p.ev);

	p = parse_ok("sched:*", 2);
	assert_string_equal(p.ev[0].name, "sched:sched_switch");
	assert_string_equal(p.ev[1].name, "sched:sched_wakeup");
	assert_int_equal(p.ev[1].attr.config, 317);
	free(p.ev);

	p = parse_ok("sched:sched_w*:k", 1);
	assert_int_equal(p.ev[0].attr.config, 317);
	assert_int_equal(p.ev[0].attr.exclude_user, 1);
	free(p.ev);

	p = parse_ok("*:irq_*", 1);
	assert_string_equal(p.ev[0].name, "irq:irq_handler_entry");
	free(p.ev);

	p = parse_ok("*:*", 3);
	assert_string_equal(p.ev[0].name, "irq:irq_handler_entry");
	free(p.ev);

	parse_fails("sched:nosuch", "unknown tracepoint 'sched:nosuch'");
	parse_fails("nosys:*", "no tracepoint matches 'nosys:*'");
	parse_fails("sched:enable*", "no tracepoint matches");
	parse_fails("sched:sched_switch:Z", "bad modifier 'Z'");
}

static void test_raw_and_breakpoints(void **state)
{
	struct parsed p;

	(void)state;
	p = parse_ok("r1a8", 1);
	assert_int_equal(p.ev[0].attr.type, PERF_TYPE_RAW);
	assert_int_equal(p.ev[0].attr.config, 0x1a8);
	assert_string_equal(p.ev[0].name, "r1a8");
	free(p.ev);
	p = parse_ok("rC0:u", 1);
	assert_int_equal(p.ev[0].attr.config, 0xc0);
	assert_int_equal(p.ev[0].attr.exclude_kernel, 1);
	free(p.ev);

	p = parse_ok("mem:0x1000:rw", 1);
	assert_int_equal(p.ev[0].attr.type, PERF_TYPE_BREAKPOINT);
	assert_int_equal(p.ev[0].attr.bp_type, HW_BREAKPOINT_R | HW_BREAKPOINT_W);
	assert_int_equal(p.ev[0].attr.bp_addr, 0x1000);
	assert_int_equal(p.ev[0].attr.bp_len, HW_BREAKPOINT_LEN_4);
	assert_int_equal(p.ev[0].attr.sample_period, 1);
	assert_false(p.ev[0].period_set);
	assert_string_equal(p.ev[0].name, "mem:0x1000:rw");
	free(p.ev);

	p = parse_ok("mem:4096", 1);
	assert_int_equal(p.ev[0].attr.bp_addr, 4096);
	assert_int_equal(p.ev[0].attr.bp_type, HW_BREAKPOINT_RW);
	free(p.ev);

	p = parse_ok("mem:0x1000:x", 1);
	assert_int_equal(p.ev[0].attr.bp_type, HW_BREAKPOINT_X);
	assert_int_equal(p.ev[0].attr.bp_len, sizeof(long));
	free(p.ev);

	p = parse_ok("mem:0x2000/8:w:k", 1);
	assert_int_equal(p.ev[0].attr.bp_type, HW_BREAKPOINT_W);
	assert_int_equal(p.ev[0].attr.bp_len, 8);
	assert_int_equal(p.ev[0].attr.exclude_user, 1);
	free(p.ev);

	p = parse_ok("mem:0x1000:u", 1);
	assert_int_equal(p.ev[0].attr.bp_type, HW_BREAKPOINT_RW);
	assert_int_equal(p.ev[0].attr.exclude_kernel, 1);
	free(p.ev);

	parse_fails("mem:zz", "bad breakpoint address");
	parse_fails("mem:0x10/0", "bad breakpoint length");
	parse_fails("mem:0x10:rr", "bad modifier 'r'");
	parse_fails("mem:0x10junk", "bad breakpoint syntax");
}

static void test_list_splitting(void **state)
{
	struct parsed p;

	(void)state;
	p = parse_ok("cpu/event=0x3c,umask=1/u,cs, software/config=2,name=pf/ ,sched:*", 5);
	assert_string_equal(p.ev[0].name, "cpu/event=0x3c,umask=1/u");
	assert_int_equal(p.ev[0].attr.config, 0x13c);
	assert_string_equal(p.ev[1].name, "cs");
	assert_string_equal(p.ev[2].name, "pf");
	assert_int_equal(p.ev[2].attr.config, 2);
	assert_string_equal(p.ev[3].name, "sched:sched_switch");
	assert_string_equal(p.ev[4].name, "sched:sched_wakeup");
	free(p.ev);

	/* a mem: event's '/' is its length, not a term list */
	p = parse_ok("mem:0x10/8,cs", 2);
	assert_int_equal(p.ev[0].attr.bp_len, 8);
	assert_string_equal(p.ev[1].name, "cs");
	free(p.ev);

	/* ... nor inside a group, nor after whitespace */
	p = parse_ok("{mem:0x10/8,cs},faults, mem:0x20/2,cs", 5);
	assert_int_equal(p.ev[0].attr.bp_len, 8);
	assert_int_equal(p.ev[0].nr_members, 2);
	assert_int_equal(p.ev[3].attr.bp_len, 2);
	assert_string_equal(p.ev[4].name, "cs");
	free(p.ev);
}

/* Modifier bits of @ev: u k h G H as in check_mods. */
static void check_ev_mods(const struct evparse_event *ev, int eu, int ek, int eh, int eG, int eH)
{
	const struct perf_event_attr *a = &ev->attr;

	if (a->exclude_user != (unsigned)eu || a->exclude_kernel != (unsigned)ek ||
	    a->exclude_hv != (unsigned)eh || a->exclude_guest != (unsigned)eG ||
	    a->exclude_host != (unsigned)eH)
		fail_msg("%s: u%d k%d h%d G%d H%d", ev->name, a->exclude_user, a->exclude_kernel,
			 a->exclude_hv, a->exclude_guest, a->exclude_host);
}

static void check_group(const struct evparse_event *ev, size_t nr, const char *name)
{
	assert_true(evparse_event__is_group_leader(&ev[0]));
	assert_int_equal(ev[0].group_idx, 0);
	assert_int_equal(ev[0].nr_members, nr);
	assert_string_equal(ev[0].group_name, name);
	for (size_t i = 1; i < nr; i++) {
		assert_false(evparse_event__is_group_leader(&ev[i]));
		assert_int_equal(ev[i].group_idx, i);
	}
}

static void check_ungrouped(const struct evparse_event *ev)
{
	assert_false(evparse_event__is_group_leader(ev));
	assert_int_equal(ev->group_idx, 0);
}

static void test_groups(void **state)
{
	struct parsed p;

	(void)state;
	p = parse_ok("{cpu-clock,task-clock}", 2);
	check_group(p.ev, 2, "");
	assert_string_equal(p.ev[0].name, "cpu-clock");
	assert_string_equal(p.ev[1].name, "task-clock");
	check_ev_mods(&p.ev[1], 0, 0, 0, 1, 0);
	free(p.ev);

	/* mixed list; the group's name stays without its modifier, as perf's */
	p = parse_ok("cs,{cpu-clock,task-clock}:u,faults", 4);
	check_ungrouped(&p.ev[0]);
	check_ev_mods(&p.ev[0], 0, 0, 0, 1, 0);
	check_group(&p.ev[1], 2, "");
	assert_string_equal(p.ev[1].name, "cpu-clock");
	check_ev_mods(&p.ev[1], 0, 1, 1, 1, 0);
	check_ev_mods(&p.ev[2], 0, 1, 1, 1, 0);
	check_ungrouped(&p.ev[3]);
	check_ev_mods(&p.ev[3], 0, 0, 0, 1, 0);
	free(p.ev);

	/* several groups, named ones, whitespace as perf's lexer skips it */
	p = parse_ok("foo{cs,faults}, bar {cpu-clock, task-clock, dummy}", 5);
	check_group(p.ev, 2, "foo");
	check_group(&p.ev[2], 3, "bar");
	assert_string_equal(p.ev[3].name, "task-clock");
	free(p.ev);

	/* a tracepoint glob adds every match to the group */
	p = parse_ok("{sched:*,cs}", 3);
	check_group(p.ev, 3, "");
	assert_string_equal(p.ev[0].name, "sched:sched_switch");
	assert_string_equal(p.ev[2].name, "cs");
	free(p.ev);

	/* one event in braces is no group (perf counts no group for it) */
	p = parse_ok("{cs}:k", 1);
	check_ungrouped(&p.ev[0]);
	assert_int_equal(p.ev[0].nr_members, 1);
	/* seeded with event_attr_init()'s exclude_guest, which k leaves */
	check_ev_mods(&p.ev[0], 1, 0, 1, 1, 0);
	free(p.ev);
}

/*
 * The group modifier merges into each member's own as perf's
 * parse_events__modifier_group() does; bits checked against perf 6.1's
 * `perf evlist -v` for the same -e.
 */
static void test_group_modifiers(void **state)
{
	struct parsed p;
	char buf[256];

	(void)state;
	p = parse_ok("{cs:k,cpu-clock}:u", 2);
	check_ev_mods(&p.ev[0], 0, 0, 1, 1, 0);
	check_ev_mods(&p.ev[1], 0, 1, 1, 1, 0);
	free(p.ev);
	p = parse_ok("{cs:G,faults:H}:u", 2);
	check_ev_mods(&p.ev[0], 0, 1, 1, 0, 1);
	check_ev_mods(&p.ev[1], 0, 1, 1, 1, 0);
	free(p.ev);
	p = parse_ok("{cs:I,faults}:Ik", 2);
	check_ev_mods(&p.ev[0], 1, 0, 1, 0, 0);
	check_ev_mods(&p.ev[1], 1, 0, 1, 1, 0);
	assert_int_equal(p.ev[1].attr.exclude_idle, 1);
	free(p.ev);

	/* precise adds up; pinned and exclusive go to the leader only */
	p = parse_ok("{cycles:p,instructions}:pDe", 2);
	assert_int_equal(p.ev[0].attr.precise_ip, 2);
	assert_int_equal(p.ev[1].attr.precise_ip, 1);
	assert_int_equal(p.ev[0].attr.pinned, 1);
	assert_int_equal(p.ev[0].attr.exclusive, 1);
	assert_int_equal(p.ev[1].attr.pinned, 0);
	assert_int_equal(p.ev[1].attr.exclusive, 0);
	free(p.ev);
	/* a member's own D stays: the kernel refuses it, as it does perf's */
	p = parse_ok("{cs,faults:D}", 2);
	assert_int_equal(p.ev[1].attr.pinned, 1);
	evparse__strerror_opts(&p.ev[1], EINVAL, &fake, buf, sizeof(buf));
	assert_string_equal(buf, "faults:D: only a group leader can be pinned (D) or exclusive "
				 "(e); move the modifier to the group");
	free(p.ev);

	p = parse_ok("{cs,faults}:W", 2);
	assert_true(p.ev[0].weak_group);
	assert_true(p.ev[1].weak_group);
	free(p.ev);

	/* S: leader sampling is refused; perf drops a member's S under a group modifier */
	parse_fails("{cs,faults}:S", "leader sampling");
	parse_fails("{cs:S,faults}", "leader sampling (modifier 'S' on the group leader) is not "
				     "supported: '{cs:S,faults}'");
	p = parse_ok("{cs:S,faults}:u", 2);
	assert_false(p.ev[0].sample_read);
	free(p.ev);
	p = parse_ok("{cs,faults:S}", 2);
	assert_true(p.ev[1].sample_read);
	free(p.ev);

	parse_fails("{cs,faults}:uu", "duplicate modifier 'u' in '{cs,faults}:uu'");
	parse_fails("{cs,faults}:x", "bad modifier 'x'");
	parse_fails("{cycles:ppp,instructions}:p", "at most 3 'p' modifiers allowed in "
						   "'{cycles:ppp,instructions}:p'");
}

static void test_group_errors(void **state)
{
	(void)state;
	parse_fails("{cs,faults", "unbalanced '{' in '{cs,faults'");
	parse_fails("cs,{faults,dummy", "unbalanced '{'");
	parse_fails("cs,faults}", "unbalanced '}' in 'faults}'");
	parse_fails("{cs,faults}},dummy", "unbalanced '}' in '{cs,faults}}'");
	parse_fails("{cs,{faults}}", "nested event groups are not supported: '{cs,{faults}}'");
	parse_fails("{cs,{faults,dummy}}:u", "nested event groups");
	parse_fails("{}", "empty event group in '{}'");
	parse_fails("{ }:u", "empty event group");
	parse_fails("{cs,,faults}", "empty event");
	parse_fails("{cs,faults}u", "expected ':MODIFIERS' after the group in '{cs,faults}u'");
	parse_fails("{cs,faults}:", "expected ':MODIFIERS'");
	parse_fails("{cs}{faults}", "expected ':MODIFIERS'");
	parse_fails("1x{cs,faults}", "bad group name '1x' in '1x{cs,faults}'");
	parse_fails("a/b{cs,faults}", "bad group name");
	parse_fails("{cs,nosuch}", "unknown event 'nosuch'");
	/* all or nothing: cs is dropped with the group */
	parse_fails("cs,{cpu-clock,task-clock}:Q", "bad modifier 'Q'");
}

/* Group indexes are relative: appending and inserting before keep them right. */
static void test_group_append(void **state)
{
	struct evparse_event *ev = NULL;
	size_t nr = 0;
	char err[256];

	(void)state;
	assert_int_equal(evparse__parse("cs", &fake, &ev, &nr, err, sizeof(err)), 0);
	assert_int_equal(evparse__parse("{cpu-clock,task-clock}", &fake, &ev, &nr, err,
					sizeof(err)), 0);
	assert_int_equal(nr, 3);
	check_ungrouped(&ev[0]);
	check_group(&ev[1], 2, "");
	assert_true(evparse__parse("{faults,nosuch}", &fake, &ev, &nr, err, sizeof(err)) < 0);
	assert_int_equal(nr, 3);
	free(ev);
}

/* evparse__parse appends; a failure leaves the caller's entries as they were. */
static void test_append(void **state)
{
	struct evparse_event *ev = NULL;
	size_t nr = 0;
	char err[256];

	(void)state;
	assert_int_equal(evparse__parse("cs", &fake, &ev, &nr, err, sizeof(err)), 0);
	assert_int_equal(evparse__parse("cpu-clock,faults", &fake, &ev, &nr, err, sizeof(err)),
			 0);
	assert_int_equal(nr, 3);
	assert_true(evparse__parse("dummy,nosuch", &fake, &ev, &nr, err, sizeof(err)) < 0);
	assert_int_equal(nr, 3);
	assert_string_equal(ev[0].name, "cs");
	assert_string_equal(ev[2].name, "faults");
	assert_int_equal(evparse__parse(NULL, &fake, &ev, &nr, err, sizeof(err)), -EINVAL);
	/* a NULL err buffer is allowed */
	assert_true(evparse__parse("nosuch", &fake, &ev, &nr, NULL, 0) < 0);
	free(ev);
}

static struct evparse_event parse_one(const char *text)
{
	struct parsed p = parse_ok(text, 1);
	struct evparse_event ev = p.ev[0];

	free(p.ev);
	return ev;
}

static void check_strerror(const struct evparse_event *ev, int err, const char *root,
			   const char *needle)
{
	struct evparse_opts o = { .sysfs_root = root };
	char buf[512];

	assert_ptr_equal(evparse__strerror_opts(ev, err, &o, buf, sizeof(buf)), buf);
	if (!strstr(buf, needle))
		fail_msg("%s err %d: '%s' lacks '%s'", ev->name, err, buf, needle);
	assert_null(strchr(buf, '\n'));
}

static void test_strerror(void **state)
{
	struct evparse_event cycles = parse_one("cycles");
	struct evparse_event cache = parse_one("LLC-loads");
	struct evparse_event raw = parse_one("r1a8");
	struct evparse_event clock = parse_one("cpu-clock");
	struct evparse_event precise = parse_one("cpu-clock:pp");
	struct evparse_event tp = parse_one("sched:sched_switch");
	struct evparse_event user = parse_one("cpu-clock:u");
	char expect[PATH_MAX + 200], buf[256];

	(void)state;
	snprintf(expect, sizeof(expect),
		 "cycles: hardware event not supported: this machine has no hardware PMU (no "
		 "%s/sys/bus/event_source/devices/cpu); try cpu-clock",
		 nohw_root);
	check_strerror(&cycles, ENOENT, nohw_root, expect);
	check_strerror(&cycles, -EOPNOTSUPP, nohw_root, "no hardware PMU");
	check_strerror(&cache, ENODEV, nohw_root, "LLC-loads: hardware event not supported");
	check_strerror(&raw, ENOENT, nohw_root, "r1a8: hardware event not supported");
	check_strerror(&cycles, ENOENT, hw_root, "cycles: event not supported");

	check_strerror(&clock, EACCES, hw_root, "perf_event_paranoid is 2");
	check_strerror(&clock, EACCES, hw_root, "CAP_PERFMON");
	check_strerror(&clock, EPERM, hw_root, "add the :u modifier");
	check_strerror(&clock, EACCES, nohw_root, "perf_event_paranoid is -1");
	check_strerror(&user, EACCES, hw_root, "(or CAP_SYS_ADMIN)");
	/* already user-only: no point suggesting :u */
	evparse__strerror_opts(&user, EACCES, &fake, buf, sizeof(buf));
	assert_null(strstr(buf, ":u modifier"));

	check_strerror(&clock, EMFILE, hw_root, "ulimit -n");
	check_strerror(&precise, EINVAL, hw_root, "cpu-clock:pp: 'precise' modifier");
	check_strerror(&tp, ENOENT, hw_root, "sched:sched_switch: tracepoint not available");
	check_strerror(&clock, EBUSY, hw_root, "busy");
	check_strerror(&clock, ESRCH, hw_root, "no longer exists");
	check_strerror(&clock, E2BIG, hw_root,
		       "cpu-clock: perf_event_open failed: Argument list too long");

	/* the plain variant looks at the real /sys */
	assert_ptr_equal(evparse__strerror(&clock, EBUSY, buf, sizeof(buf)), buf);
	assert_non_null(strstr(buf, "cpu-clock: the PMU counters are busy"));
	evparse__strerror(&clock, EMFILE, buf, 8);
	assert_int_equal(strlen(buf), 7);
}

static void test_real_sys(void **state)
{
	struct evparse_event *ev = NULL;
	size_t nr = 0;
	char err[256];

	(void)state;
	assert_int_equal(evparse__parse("cpu-clock", NULL, &ev, &nr, err, sizeof(err)), 0);
	assert_int_equal(nr, 1);
	assert_int_equal(ev[0].attr.type, PERF_TYPE_SOFTWARE);
	free(ev);
	ev = NULL;
	nr = 0;
	if (access("/sys/bus/event_source/devices/software/type", R_OK)) {
		skip();
		return;
	}
	assert_int_equal(evparse__parse("software/config=3/u", NULL, &ev, &nr, err, sizeof(err)),
			 0);
	assert_int_equal(ev[0].attr.type, PERF_TYPE_SOFTWARE);
	free(ev);
}

static void test_real_tracefs(void **state)
{
	struct evparse_event *ev = NULL;
	size_t nr = 0;
	char err[256];

	(void)state;
	if (access("/sys/kernel/tracing/events/sched/sched_switch/id", R_OK) &&
	    access("/sys/kernel/debug/tracing/events/sched/sched_switch/id", R_OK)) {
		skip();
		return;
	}
	if (evparse__parse("sched:sched_switch", NULL, &ev, &nr, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(nr, 1);
	assert_true(ev[0].tracepoint);
	assert_true(ev[0].attr.config > 0);
	free(ev);
}

/* perf's evsel__fallback(): cycles without a PMU, names as perf 6.1 gives them. */
static void check_fallback(const char *list, int errnum, const char *name)
{
	struct parsed p = parse_ok(list, 1);
	char msg[256] = "";
	bool fell = evparse__fallback(&p.ev[0], errnum, msg, sizeof(msg));

	if (!name) {
		assert_false(fell);
		assert_string_equal(p.ev[0].name, list);
		assert_string_equal(msg, "");
		free(p.ev);
		return;
	}
	assert_true(fell);
	assert_int_equal(p.ev[0].attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(p.ev[0].attr.config, PERF_COUNT_SW_CPU_CLOCK);
	assert_string_equal(p.ev[0].name, name);
	assert_string_equal(msg, "The cycles event is not supported, trying to fall back to "
			    "cpu-clock-ticks");
	free(p.ev);
}

/* evsel__detect_missing_features(): bpf_event goes first, then ksymbol, on EINVAL only. */
static void test_drop_missing_feature(void **state)
{
	struct perf_event_attr a = {.ksymbol = 1, .bpf_event = 1, .mmap = 1};

	(void)state;
	assert_null(evparse__drop_missing_feature(&a, EACCES));
	assert_true(a.ksymbol && a.bpf_event);
	assert_string_equal(evparse__drop_missing_feature(&a, -EINVAL), "bpf_event");
	assert_true(a.ksymbol && !a.bpf_event);
	assert_string_equal(evparse__drop_missing_feature(&a, EINVAL), "ksymbol");
	assert_false(a.ksymbol || a.bpf_event);
	assert_null(evparse__drop_missing_feature(&a, EINVAL));
	assert_true(a.mmap);
}

static void test_fallback(void **state)
{
	(void)state;
	/* perf evlist of perf record -e EVENT on a machine without a PMU */
	check_fallback("cycles", ENOENT, "cpu-clock");
	check_fallback("cpu-cycles", ENOENT, "cpu-clock");
	check_fallback("cycles:u", -ENOENT, "cpu-clock:uH");
	check_fallback("cycles:k", ENODEV, "cpu-clock:k");
	check_fallback("cycles:p", ENXIO, "cpu-clock:pH");
	check_fallback("cycles", EACCES, NULL);
	check_fallback("cycles", EINVAL, NULL);
	check_fallback("instructions", ENOENT, NULL);
	check_fallback("cpu-clock", ENOENT, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generic_names),
		cmocka_unit_test(test_hw_cache),
		cmocka_unit_test(test_modifiers),
		cmocka_unit_test(test_software_pmu_terms),
		cmocka_unit_test(test_cpu_pmu_formats),
		cmocka_unit_test(test_pmu_aliases),
		cmocka_unit_test(test_config_terms),
		cmocka_unit_test(test_tracepoint_terms),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_tracepoints),
		cmocka_unit_test(test_raw_and_breakpoints),
		cmocka_unit_test(test_list_splitting),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_group_modifiers),
		cmocka_unit_test(test_group_errors),
		cmocka_unit_test(test_group_append),
		cmocka_unit_test(test_append),
		cmocka_unit_test(test_strerror),
		cmocka_unit_test(test_fallback),
		cmocka_unit_test(test_drop_missing_feature),
		cmocka_unit_test(test_real_sys),
		cmocka_unit_test(test_real_tracefs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
