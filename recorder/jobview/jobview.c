// SPDX-License-Identifier: GPL-2.0
/*
 * `shardrec jobview`: the command. Reads every node's JSON, then its
 * perf.data and perf report's view of it on -j worker threads (perf is the
 * slow part: one process per node, -j at a time), then prints the
 * job-wide tables (jobview_print.c, jobview_json.c).
 */
#include "recorder/jobview/jobview.h"
#include "recorder/jobview/jobview_internal.h"
#include "recorder/util/log.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOP_DEFAULT 10
#define JOBS_MAX 4096

static const char usage[] =
	"Usage: shardrec jobview [--json] [--top N] [--perf PATH] [-j N] PATH...\n"
	"\n"
	"One view of a batch job's per-node outputs (shardrec job's FILE.data and\n"
	"FILE.data.json): a node table (samples and lost samples of each perf.data,\n"
	"MB, merge seconds, stop, exit status), the job's hottest symbols with each\n"
	"node's share (perf report's Overhead) and their imbalance (max / mean), and\n"
	"the ranks with their samples. PATH: a node's .data or .json, or a directory\n"
	"holding them.\n"
	"      --json          all of it as one JSON object\n"
	"      --top N         the N hottest symbols (default 10)\n"
	"      --perf PATH     the perf that resolves symbols (default: perf)\n"
	"  -j, --jobs N        perf processes at once (default: online CPUs)\n";

const char *jobview__usage(void)
{
	return usage;
}

/* ---- options ---- */

/* @s as a number in 1..@max, else -1. */
static long count_arg(const char *s, long max)
{
	char *end;
	long v = strtol(s, &end, 10);

	return *s && !*end && v >= 1 && v <= max ? v : -1;
}

/* Fills @jv and @json from the options; returns optind, or -EINVAL with one line said. */
static int jobview__opts(struct jobview *jv, bool *json, int argc, char **argv)
{
	static const struct option lo[] = {
		{"json", no_argument, NULL, 'J'},      {"top", required_argument, NULL, 't'},
		{"perf", required_argument, NULL, 'p'}, {"jobs", required_argument, NULL, 'j'},
		{NULL, 0, NULL, 0},
	};
	long v;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "j:", lo, NULL)) != -1) {
		switch (c) {
		case 'J': *json = true; break;
		case 'p': jv->perf = optarg; break;
		case 't':
		case 'j':
			v = count_arg(optarg, c == 't' ? 100000 : JOBS_MAX);
			if (v < 0) {
				pr_err("jobview: %s takes a number (1..%d)", c == 't' ? "--top" : "-j",
				       c == 't' ? 100000 : JOBS_MAX);
				return -EINVAL;
			}
			*(c == 't' ? &jv->top : &jv->jobs) = v;
			break;
		default:
			pr_err("jobview: bad option '%s' (see shardrec jobview --help)", argv[optind - 1]);
			return -EINVAL;
		}
	}
	if (optind == argc) {
		pr_err("jobview: give the nodes' .data or .json files, or their directory (see "
		       "shardrec jobview --help)");
		return -EINVAL;
	}
	return optind;
}

/* ---- workers ---- */

struct jv_work {
	struct jobview *jv;
	atomic_size_t next;   /* the next node to take */
	atomic_bool stop;     /* perf cannot run, or out of memory: take no more */
	pthread_mutex_t lock; /* guards what follows */
	pthread_cond_t cond;  /* a node is done */
	size_t done;
	int ret;	/* the first fatal error */
	char err[1024]; /* its line */
};

/* The spawn's errors: perf itself cannot run, no node will do better. */
static bool perf_unrunnable(int ret)
{
	return ret == -ENOENT || ret == -EACCES || ret == -ENOEXEC || ret == -EPERM;
}

/* Rank samples: those of its pid's threads in the node's first event. */
static void jobview__rank_samples(struct jv_node *n)
{
	for (size_t i = 0; i < n->nr_ranks; i++) {
		struct jv_rank *r = &n->ranks[i];

		r->has_samples = r->pid >= 0;
		r->samples = r->has_samples ? jv_profile__pid_samples(&n->prof, r->pid) : 0;
	}
}

/*
 * Node @n's perf.data: loss counts and perf report's symbols. A node that
 * perf cannot read keeps its counts, with perf_err said. 0 / -errno (fatal:
 * -ENOMEM, or perf cannot run, with @err).
 */
static int jobview__node(const struct jobview *jv, struct jv_node *n, char *err, size_t errlen)
{
	bool pids = false;
	int ret;

	if (!jv_node__has_data(n))
		return 0;
	ret = jv_node__read_data(n);
	if (ret || !n->data_ok)
		return ret;
	for (size_t i = 0; i < n->nr_ranks; i++)
		pids |= n->ranks[i].pid >= 0;
	ret = jv_profile__read(jv->perf, n->data_path, pids, &n->prof, err, errlen);
	if (ret == -ENOMEM || perf_unrunnable(ret))
		return ret;
	if (ret) {
		jv_profile__release(&n->prof);
		n->perf_err = strdup(err);
		return n->perf_err ? 0 : -ENOMEM;
	}
	n->profiled = true;
	jobview__rank_samples(n);
	return 0;
}

static void *jobview__worker(void *arg)
{
	struct jv_work *w = arg;
	char err[1024];
	size_t i;
	int ret;

	while ((i = atomic_fetch_add(&w->next, 1)) < w->jv->nr_nodes) {
		ret = atomic_load(&w->stop) ? 0 : jobview__node(w->jv, &w->jv->nodes[i], err,
								sizeof(err));
		pthread_mutex_lock(&w->lock);
		if (ret && !w->ret) {
			w->ret = ret;
			snprintf(w->err, sizeof(w->err), "%s", ret == -ENOMEM ? strerror(ENOMEM) : err);
			atomic_store(&w->stop, true);
		}
		w->done++;
		pthread_cond_signal(&w->cond);
		pthread_mutex_unlock(&w->lock);
	}
	return NULL;
}

/* Waits for the workers' nodes; "jobview: read 37/100 nodes" on a terminal. */
static void jobview__wait(struct jv_work *w)
{
	bool tty = isatty(STDERR_FILENO);

	pthread_mutex_lock(&w->lock);
	while (w->done < w->jv->nr_nodes) {
		pthread_cond_wait(&w->cond, &w->lock);
		if (tty)
			fprintf(stderr, "\rjobview: read %zu/%zu nodes", w->done, w->jv->nr_nodes);
	}
	pthread_mutex_unlock(&w->lock);
	if (tty)
		fputs("\r\033[K", stderr);
}

/* Reads every node's perf.data on up to jv->jobs threads. 0 / -errno with one line said. */
static int jobview__read_all(struct jobview *jv)
{
	struct jv_work w = {.jv = jv, .lock = PTHREAD_MUTEX_INITIALIZER,
			    .cond = PTHREAD_COND_INITIALIZER};
	size_t nr = jv->jobs < jv->nr_nodes ? jv->jobs : jv->nr_nodes, started = 0;
	pthread_t *tids = calloc(nr ? nr : 1, sizeof(*tids));

	atomic_init(&w.next, 0);
	atomic_init(&w.stop, false);
	for (size_t i = 0; tids && i < nr; i++) {
		if (pthread_create(&tids[started], NULL, jobview__worker, &w))
			break;
		pthread_setname_np(tids[started++], "jobview");
	}
	/* No thread at all: this one does the work. */
	if (!started)
		jobview__worker(&w);
	jobview__wait(&w);
	for (size_t i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	free(tids);
	if (w.ret)
		pr_err("jobview: %s%s", w.err,
		       perf_unrunnable(w.ret) ? " (install perf, or give --perf PATH)" : "");
	return w.ret;
}

/* ---- main ---- */

/* Warnings for the nodes that could not be read; how many could (JSON or perf.data). */
static size_t jobview__warn(const struct jobview *jv)
{
	const struct jv_node *multi = NULL;
	size_t read = 0, nr_multi = 0;

	for (size_t i = 0; i < jv->nr_nodes; i++) {
		const struct jv_node *n = &jv->nodes[i];

		if (n->json_err)
			pr_warn("jobview: %s", n->json_err);
		if (n->data_err)
			pr_warn("jobview: %s: unreadable: %s", n->name, n->data_err);
		if (n->perf_err)
			pr_warn("jobview: %s: no symbols: %s", n->name, n->perf_err);
		if (n->profiled && n->prof.nr_events > 1) {
			multi = multi ? multi : n;
			nr_multi++;
		}
		read += n->json_ok || n->data_ok;
	}
	/* Once: shares of two events added would mix units (ns of cpu-clock, cycles). */
	if (multi)
		pr_warn("jobview: %zu file(s) have several sampling events (%s: %u): symbols and "
			"rank samples are of each file's first event, '%s'", nr_multi,
			multi->data_path, multi->prof.nr_events, multi->prof.event ?: "?");
	return read;
}

static int jobview__load(struct jobview *jv, int argc, char **argv, int first)
{
	char err[PATH_MAX + 128];
	int ret = 0;

	for (int i = first; i < argc && !ret; i++) {
		ret = jobview__add_path(jv, argv[i], err, sizeof(err));
		if (ret)
			pr_err("jobview: %s", err);
	}
	if (ret)
		return 2;
	for (size_t i = 0; i < jv->nr_nodes && !ret; i++) {
		ret = jv_node__read_json(&jv->nodes[i]);
		ret = ret ? ret : jv_node__name(&jv->nodes[i]);
	}
	if (!ret)
		ret = jobview__read_all(jv);
	if (!ret)
		ret = jobview__gather(jv);
	if (ret == -ENOMEM)
		pr_err("jobview: %s", strerror(ENOMEM));
	return ret ? 1 : 0;
}

void jobview__release(struct jobview *jv)
{
	for (size_t i = 0; i < jv->nr_syms; i++)
		free(jv->syms[i].node);
	free(jv->syms);
	free(jv->ranks);
	free(jv->rank_node);
	for (size_t i = 0; i < jv->nr_nodes; i++)
		jv_node__release(&jv->nodes[i]);
	free(jv->nodes);
}

int jobview__main(int argc, char **argv)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct jobview jv = {.perf = "perf", .top = TOP_DEFAULT, .jobs = cpus > 0 ? cpus : 1};
	bool json = false;
	int first, code;

	first = jobview__opts(&jv, &json, argc, argv);
	if (first < 0)
		return 2;
	code = jobview__load(&jv, argc, argv, first);
	if (code)
		goto out;
	if (!jobview__warn(&jv)) {
		pr_err("jobview: no node could be read");
		code = 1;
		goto out;
	}
	if (json)
		jobview__fprint_json(stdout, &jv);
	else
		jobview__fprint_text(stdout, &jv);
out:
	jobview__release(&jv);
	return code;
}
