// SPDX-License-Identifier: GPL-2.0
/*
 * shardrec jobview's parts without a recording: perf report's output
 * parsed from a stand-in perf (a shell script: sections, separators, names
 * with spaces, threads mapped to processes, perf's error line), the node
 * JSON of old and new writers and broken ones, paths that name one node
 * twice, and the job-wide gathering (order, top symbols, both imbalances,
 * ranks) with its text and JSON.
 */
#include "unit_util.h"

#include "recorder/jobview/jobview_internal.h"

#include <errno.h>
#include <math.h>

static char dir[] = "/tmp/test_jobview.XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return unit_rmtree(dir);
}

/* Writes @text to DIR/@name (mode @mode); the path in @path. */
static void put(const char *name, const char *text, mode_t mode, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

/* perf 6.1's output for two events, columns separated by \037 (US) and padded. */
static const char report[] =
	"# To display the perf.data header info, please use --header/--header-only options.\n"
	"#\n# Total Lost Samples: 0\n#\n"
	"# Samples: 10  of events 'cpu-clock'\n"
	"# Event count (approx.): 3000\n#\n"
	"#       Period\037     Samples\037    Pid:Command\037Shared Object    \037Symbol   \n"
	" 1000       \037 4          \037    100:app    \037app              \037[.] hot_loop\n"
	" 1000       \037 4          \037    101:app    \037app              \037[.] hot_loop\n"
	" 500        \037 1          \037    100:app    \037[kernel.kallsyms]\037[k] do_syscall_64\n"
	" 500        \037 1          \037    200:my app \037libc.so.6        \037[.] operator new(unsigned long)   \n"
	"\n\n"
	"# Samples: 5  of event 'task-clock'\n"
	"# Event count (approx.): 999\n#\n"
	" 999        \037 5          \037    100:app    \037app              \037[.] other\n"
	"\n#\n# (Tip: perf report --tasks)\n#\n";

static const char tasks[] = "#      pid      tid     ppid  comm\n"
			    "         0        0       -1 |swapper\n"
			    "       100      100        1 |app\n"
			    "       100      101      100 | app\n"
			    "       200      200        1 |my app\n";

/* A perf that prints @report, or @tasks for --tasks. */
static void fake_perf(char *perf, size_t len)
{
	char rep[PATH_MAX], tsk[PATH_MAX], script[3 * PATH_MAX];

	put("report.txt", report, 0644, rep, sizeof(rep));
	put("tasks.txt", tasks, 0644, tsk, sizeof(tsk));
	snprintf(script, sizeof(script),
		 "#!/bin/sh\nfor a; do [ \"$a\" = --tasks ] && exec cat %s; done\n"
		 "[ \"$LC_ALL\" = C ] || { echo 'Error:' >&2; echo 'no LC_ALL=C' >&2; exit 1; }\n"
		 "exec cat %s\n", tsk, rep);
	put("perf", script, 0755, perf, len);
}

static const struct jv_sym *find_sym(const struct jv_profile *p, const char *name)
{
	for (size_t i = 0; i < p->nr_syms; i++)
		if (!strcmp(p->syms[i].name, name))
			return &p->syms[i];
	return NULL;
}

static void test_profile(void **state)
{
	char perf[PATH_MAX], err[256];
	const struct jv_sym *s;
	struct jv_profile p;

	(void)state;
	fake_perf(perf, sizeof(perf));
	assert_int_equal(jv_profile__read(perf, "x.data", true, &p, err, sizeof(err)), 0);
	assert_string_equal(p.event, "cpu-clock");
	assert_int_equal(p.nr_events, 2);
	assert_int_equal(p.total_period, 3000);
	/* The first event only; hot_loop's two threads merged into one row. */
	assert_int_equal(p.nr_syms, 3);
	assert_null(find_sym(&p, "other"));
	s = find_sym(&p, "hot_loop");
	assert_non_null(s);
	assert_int_equal(s->period, 2000);
	assert_int_equal(s->samples, 8);
	assert_int_equal(s->level, '.');
	assert_string_equal(s->dso, "app");
	s = find_sym(&p, "operator new(unsigned long)");
	assert_non_null(s);
	assert_string_equal(s->dso, "libc.so.6");
	assert_int_equal(find_sym(&p, "do_syscall_64")->level, 'k');
	/* Thread 101 is process 100's (--tasks). */
	assert_int_equal(jv_profile__pid_samples(&p, 100), 9);
	assert_int_equal(jv_profile__pid_samples(&p, 200), 1);
	assert_int_equal(jv_profile__pid_samples(&p, 101), 0);
	jv_profile__release(&p);

	/* Without pids wanted, no --tasks: a thread is its own process. */
	assert_int_equal(jv_profile__read(perf, "x.data", false, &p, err, sizeof(err)), 0);
	assert_int_equal(jv_profile__pid_samples(&p, 101), 4);
	jv_profile__release(&p);
}

static void test_profile_errors(void **state)
{
	char perf[PATH_MAX], err[256];
	struct jv_profile p;

	(void)state;
	put("badperf",
	    "#!/bin/sh\necho 'Warning: something' >&2\necho 'Error:' >&2\n"
	    "echo 'failed to open x.data: Permission denied' >&2\nexit 255\n",
	    0755, perf, sizeof(perf));
	assert_int_equal(jv_profile__read(perf, "x.data", true, &p, err, sizeof(err)), -EIO);
	assert_string_equal(err, "perf report: failed to open x.data: Permission denied");
	jv_profile__release(&p);

	put("mute", "#!/bin/sh\nexit 3\n", 0755, perf, sizeof(perf));
	assert_int_equal(jv_profile__read(perf, "x.data", true, &p, err, sizeof(err)), -EIO);
	assert_string_equal(err, "perf report: exit status 3");
	jv_profile__release(&p);

	/* Rows before any section: not perf report's output. */
	put("odd", "#!/bin/sh\nprintf '1\\0372\\0373:a\\037b\\037c\\n'\n", 0755, perf, sizeof(perf));
	assert_int_equal(jv_profile__read(perf, "x.data", true, &p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "unexpected output"));
	jv_profile__release(&p);

	assert_int_equal(jv_profile__read("/nonexistent/perf", "x", true, &p, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "cannot run /nonexistent/perf"));
	jv_profile__release(&p);
}

static void add_json(struct jobview *jv, const char *name, const char *text)
{
	char path[PATH_MAX], err[PATH_MAX + 64];

	put(name, text, 0644, path, sizeof(path));
	assert_int_equal(jobview__add_path(jv, path, err, sizeof(err)), 0);
	assert_int_equal(jv_node__read_json(&jv->nodes[jv->nr_nodes - 1]), 0);
	assert_int_equal(jv_node__name(&jv->nodes[jv->nr_nodes - 1]), 0);
}

static void release(struct jobview *jv)
{
	jobview__release(jv);
	memset(jv, 0, sizeof(*jv));
}

static void test_json(void **state)
{
	struct jobview jv = {0};
	struct jv_node *n;

	(void)state;
	add_json(&jv, "a.data.json",
		 "{\"job_id\": 123, \"host\": \"node1\", \"rank\": 0, \"local_ranks\": 2,"
		 " \"status\": \"kept\", \"mode\": \"ranks\", \"merge_command\": \"shardrec merge X\","
		 " \"merge_seconds\": 0.5, \"exit_status\": 3, \"stop_signal\": \"SIGTERM\","
		 " \"ranks\": [{\"rank\": 0, \"local_rank\": 0, \"pid\": 42, \"exit_status\": 0},"
		 " {\"rank\": 1, \"local_rank\": 1, \"pid\": 43, \"exit_status\": null,"
		 " \"recorded\": false}, 7]}");
	n = &jv.nodes[0];
	assert_true(n->json_ok);
	assert_string_equal(n->name, "node1");
	assert_string_equal(n->job_id, "123");
	assert_int_equal(n->local_ranks, 2);
	assert_int_equal(n->exit_status, 3);
	assert_true(fabs(n->merge_seconds - 0.5) < 1e-9);
	assert_string_equal(jv_node__stop(n), "SIGTERM");
	/* Kept: no perf.data by design, none looked for. */
	assert_false(jv_node__has_data(n));
	assert_string_equal(jv_node__status(n), "kept");
	assert_int_equal(n->nr_ranks, 2);
	assert_int_equal(n->ranks[1].pid, 43);
	assert_false(n->ranks[1].has_exit);
	assert_false(n->ranks[1].recorded);
	assert_true(n->ranks[0].recorded);

	/* An older writer: no status, no host, no ranks. */
	add_json(&jv, "perf.9.b.data.json", "{\"exit_status\": 0}");
	n = &jv.nodes[1];
	assert_true(n->json_ok);
	assert_string_equal(n->name, "perf.9.b");
	assert_string_equal(jv_node__stop(n), "-");
	assert_int_equal(n->nr_ranks, 0);
	assert_true(jv_node__has_data(n)); /* recorded, so its missing .data is an error */

	add_json(&jv, "c.data.json", "{\"host\": \"x\", ");
	assert_false(jv.nodes[2].json_ok);
	assert_non_null(strstr(jv.nodes[2].json_err, "c.data.json: not JSON: cut short"));
	assert_string_equal(jv.nodes[2].name, "c");
	add_json(&jv, "d.data.json", "[1, 2]");
	assert_non_null(strstr(jv.nodes[3].json_err, "d.data.json: not a JSON object"));
	add_json(&jv, "e.data.json", "{} {}");
	assert_non_null(strstr(jv.nodes[4].json_err, "more after the value"));
	release(&jv);
}

static void test_paths(void **state)
{
	char sub[PATH_MAX], p[2 * PATH_MAX], err[PATH_MAX + 64];
	struct jobview jv = {0};

	(void)state;
	snprintf(sub, sizeof(sub), "%s/job", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	put("job/a.data", "", 0644, p, sizeof(p));
	put("job/a.data.json", "{}", 0644, p, sizeof(p));
	put("job/b.data", "", 0644, p, sizeof(p));
	put("job/c.data.json", "{}", 0644, p, sizeof(p));
	put("job/notes.txt", "", 0644, p, sizeof(p));
	snprintf(p, sizeof(p), "%s/", sub);
	assert_int_equal(jobview__add_path(&jv, p, err, sizeof(err)), 0);
	assert_int_equal(jv.nr_nodes, 3);
	assert_non_null(jv.nodes[0].json_path);
	assert_null(jv.nodes[1].json_path);
	assert_string_equal(jv.nodes[2].data_path + strlen(sub), "/c.data");
	/* The same files again, spelled otherwise: no new node. */
	snprintf(p, sizeof(p), "%s/../job/a.data.json", sub);
	assert_int_equal(jobview__add_path(&jv, p, err, sizeof(err)), 0);
	snprintf(p, sizeof(p), "%s//c.data.json", sub);
	assert_int_equal(jobview__add_path(&jv, p, err, sizeof(err)), 0);
	assert_int_equal(jv.nr_nodes, 3);
	/* c.data does not exist: its key is its directory's realpath and its name. */
	assert_int_equal(chdir(sub), 0);
	assert_int_equal(jobview__add_path(&jv, "c.data.json", err, sizeof(err)), 0);
	assert_int_equal(jobview__add_path(&jv, "./c.data.json", err, sizeof(err)), 0);
	assert_int_equal(chdir("/"), 0);
	assert_int_equal(jv.nr_nodes, 3);

	snprintf(p, sizeof(p), "%s/none.data", sub);
	assert_int_equal(jobview__add_path(&jv, p, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "none.data: No such file or directory"));
	snprintf(p, sizeof(p), "%s/empty", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(jobview__add_path(&jv, p, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no *.data.json or *.data file"));
	release(&jv);
}

/* A profiled node @name with the symbols A and B of periods @a and @b (0: absent). */
static void profiled(struct jobview *jv, const char *name, uint64_t a, uint64_t b)
{
	struct jv_node *n = &jv->nodes[jv->nr_nodes++];
	struct jv_profile *p = &n->prof;

	memset(n, 0, sizeof(*n));
	n->name = strdup(name);
	n->key = strdup(name);
	n->merge_seconds = n->elapsed_seconds = -1;
	n->profiled = n->data_ok = true;
	p->event = strdup("cpu-clock");
	p->total_period = a + b;
	p->syms = calloc(2, sizeof(*p->syms));
	if (a)
		p->syms[p->nr_syms++] = (struct jv_sym){strdup("app"), strdup("A"), '.', a, a, 0};
	if (b)
		p->syms[p->nr_syms++] = (struct jv_sym){strdup("app"), strdup("B"), '.', b, b, 0};
}

static void add_rank(struct jv_node *n, long rank, long pid)
{
	n->ranks = realloc(n->ranks, (n->nr_ranks + 1) * sizeof(*n->ranks));
	n->ranks[n->nr_ranks++] = (struct jv_rank){.rank = rank, .local_rank = 0, .pid = pid};
}

static void test_gather(void **state)
{
	struct jobview jv = {.top = 2, .nodes = calloc(4, sizeof(struct jv_node))};
	char *text = NULL;
	size_t len;
	FILE *f;

	(void)state;
	profiled(&jv, "node10", 0, 100); /* no A: a 0 in A's means */
	profiled(&jv, "node2", 180, 20);
	profiled(&jv, "node1", 50, 50);
	jv.nodes[jv.nr_nodes++] = (struct jv_node){.name = strdup("node3"), .key = strdup("3"),
						    .merge_seconds = -1, .elapsed_seconds = -1};
	add_rank(&jv.nodes[0], 2, 30);
	add_rank(&jv.nodes[1], -1, 31);
	add_rank(&jv.nodes[2], 1, 32);
	add_rank(&jv.nodes[2], 0, 33);
	for (size_t i = 0; i < jv.nr_nodes; i++)
		jv.nodes[i].local_ranks = -1;
	assert_int_equal(jobview__gather(&jv), 0);

	assert_string_equal(jv.nodes[0].name, "node1");
	assert_string_equal(jv.nodes[2].name, "node3");
	assert_string_equal(jv.nodes[3].name, "node10");
	assert_int_equal(jv.nr_profiled, 3);
	assert_int_equal(jv.total_period, 400);
	assert_int_equal(jv.nr_syms, 2);
	assert_string_equal(jv.syms[0].name, "A");
	assert_int_equal(jv.syms[0].all.period, 230);
	/* A: shares 50, 90, 0 %; periods 50, 180, 0. B: 50, 10, 100 %; 50, 20, 100. */
	assert_true(fabs(jv.syms[0].imbalance - 90 / (140 / 3.0)) < 1e-9);
	assert_true(fabs(jv.syms[0].load_imbalance - 180 / (230 / 3.0)) < 1e-9);
	assert_true(fabs(jv.syms[1].imbalance - 100 / (160 / 3.0)) < 1e-9);
	assert_true(fabs(jv.syms[1].load_imbalance - 100 / (170 / 3.0)) < 1e-9);
	assert_true(fabs(jv_jobsym__node_pct(&jv.syms[0], &jv.nodes[1], 1) - 90) < 1e-9);
	assert_int_equal(jv_jobsym__node_pct(&jv.syms[0], &jv.nodes[2], 2), 0);

	assert_int_equal(jv.nr_ranks, 4);
	for (long r = 0; r < 3; r++)
		assert_int_equal(jv.ranks[r]->rank, r);
	assert_int_equal(jv.ranks[3]->pid, 31); /* no rank number: last */
	assert_string_equal(jv.nodes[jv.rank_node[0]].name, "node1");

	f = open_memstream(&text, &len);
	jobview__fprint_text(f, &jv);
	fclose(f);
	assert_non_null(strstr(text, "\nnode1      2  -            recorded "));
	assert_non_null(strstr(text, "[.] A    57.50     50.00     90.00      0.00      1.93     2.35  app"));
	free(text);
	f = open_memstream(&text, &len);
	jobview__fprint_json(f, &jv);
	fclose(f);
	assert_non_null(strstr(text, "\"imbalance\": 1.928571, \"load_imbalance\": 2.347826"));
	assert_non_null(strstr(text, "\"min_node\": \"node10\", \"min_pct\": 0.000000"));
	free(text);
	release(&jv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profile),
		cmocka_unit_test(test_profile_errors),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_gather),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
