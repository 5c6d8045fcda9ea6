// SPDX-License-Identifier: GPL-2.0
/*
 * jobview's job-wide tables: the nodes gathered into the job's symbols and
 * ranks, printed as text or as one JSON object.
 */
#include "recorder/jobview/jobview_internal.h"
#include "recorder/util/json.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SYM_WIDTH 40	 /* longer names are cut in the text table (not in JSON) */
#define NODE_COLUMNS 8	 /* more nodes: min and max instead of a column each */
#define NODE_COL_WIDTH 9 /* a node's column; longer names are cut */

/* ---- gathering ---- */

static int node_cmp(const void *a, const void *b)
{
	const struct jv_node *x = a, *y = b;
	int d = strverscmp(x->name, y->name); /* node2 before node10 */

	return d ? d : strcmp(x->key, y->key);
}

static int symp_cmp(const void *a, const void *b)
{
	return jv_sym__cmp(*(struct jv_sym *const *)a, *(struct jv_sym *const *)b);
}

/* One job-wide symbol: @count of the sorted node symbols from @first. */
struct sym_group {
	struct jv_sym **first;
	size_t count;
	uint64_t period;
};

static int group_cmp(const void *a, const void *b)
{
	const struct sym_group *x = a, *y = b;

	if (x->period != y->period)
		return x->period < y->period ? 1 : -1;
	return jv_sym__cmp(x->first[0], y->first[0]);
}

double jv_jobsym__node_pct(const struct jv_jobsym *s, const struct jv_node *n, size_t i)
{
	if (!n->profiled || !n->prof.total_period)
		return 0;
	return 100.0 * s->node[i].period / n->prof.total_period;
}

/*
 * max / mean over the profiled nodes, a node without the symbol counting 0:
 * of the shares (where each node spends its time), and of the periods (how
 * much time, the load imbalance of Scalasca or TAU: a node that runs the
 * same code three times as long has equal shares and a period 3 / 2 of the
 * mean).
 */
static void jobsym__imbalance(struct jv_jobsym *s, const struct jobview *jv)
{
	double sum = 0, max = 0, pct;
	uint64_t max_period = 0;

	for (size_t i = 0; i < jv->nr_nodes; i++) {
		if (!jv->nodes[i].profiled)
			continue;
		pct = jv_jobsym__node_pct(s, &jv->nodes[i], i);
		sum += pct;
		max = pct > max ? pct : max;
		max_period = s->node[i].period > max_period ? s->node[i].period : max_period;
	}
	s->imbalance = sum > 0 ? max / (sum / jv->nr_profiled) : 0;
	s->load_imbalance =
		s->all.period ? (double)max_period / ((double)s->all.period / jv->nr_profiled) : 0;
}

static int jobsym__init(struct jv_jobsym *s, const struct sym_group *g, const struct jobview *jv)
{
	s->node = calloc(jv->nr_nodes, sizeof(*s->node));
	if (!s->node)
		return -ENOMEM;
	s->dso = g->first[0]->dso;
	s->name = g->first[0]->name;
	s->level = g->first[0]->level;
	for (size_t k = 0; k < g->count; k++) {
		const struct jv_sym *m = g->first[k];

		s->node[m->node].period += m->period;
		s->node[m->node].samples += m->samples;
		s->all.period += m->period;
		s->all.samples += m->samples;
	}
	jobsym__imbalance(s, jv);
	return 0;
}

/* Every profiled node's symbols, sorted so that one symbol's rows are adjacent. */
static struct jv_sym **all_syms(struct jobview *jv, size_t *n)
{
	struct jv_sym **all;
	size_t k = 0;

	*n = 0;
	for (size_t i = 0; i < jv->nr_nodes; i++)
		*n += jv->nodes[i].profiled ? jv->nodes[i].prof.nr_syms : 0;
	all = calloc(*n ? *n : 1, sizeof(*all));
	if (!all)
		return NULL;
	for (size_t i = 0; i < jv->nr_nodes; i++) {
		struct jv_profile *p = &jv->nodes[i].prof;

		for (size_t j = 0; jv->nodes[i].profiled && j < p->nr_syms; j++) {
			p->syms[j].node = i;
			all[k++] = &p->syms[j];
		}
	}
	if (*n)
		qsort(all, *n, sizeof(*all), symp_cmp);
	return all;
}

static int jobview__gather_syms(struct jobview *jv)
{
	struct sym_group *groups = NULL;
	size_t n, nr_groups = 0;
	struct jv_sym **all = all_syms(jv, &n);
	int ret = -ENOMEM;

	groups = all ? calloc(n ? n : 1, sizeof(*groups)) : NULL;
	if (!groups)
		goto out_free;
	for (size_t i = 0; i < n; i++) {
		if (!nr_groups || jv_sym__cmp(groups[nr_groups - 1].first[0], all[i]))
			groups[nr_groups++].first = &all[i];
		groups[nr_groups - 1].count++;
		groups[nr_groups - 1].period += all[i]->period;
	}
	if (nr_groups)
		qsort(groups, nr_groups, sizeof(*groups), group_cmp);
	jv->nr_syms = nr_groups < jv->top ? nr_groups : jv->top;
	jv->syms = calloc(jv->nr_syms ? jv->nr_syms : 1, sizeof(*jv->syms));
	ret = jv->syms ? 0 : -ENOMEM;
	for (size_t i = 0; i < jv->nr_syms && !ret; i++)
		ret = jobsym__init(&jv->syms[i], &groups[i], jv);
out_free:
	free(groups);
	free(all);
	return ret;
}

/* Indexes into @arg's ranks: by rank, node, local rank. */
static int rank_cmp(const void *a, const void *b, void *arg)
{
	const struct jobview *jv = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	const struct jv_rank *rx = jv->ranks[x], *ry = jv->ranks[y];

	/* Ranks the JSON did not number (-1) go last. */
	if (rx->rank != ry->rank)
		return (unsigned long)rx->rank < (unsigned long)ry->rank ? -1 : 1;
	if (jv->rank_node[x] != jv->rank_node[y])
		return jv->rank_node[x] < jv->rank_node[y] ? -1 : 1;
	return (rx->local_rank > ry->local_rank) - (rx->local_rank < ry->local_rank);
}

/* Every node's ranks, by rank (then node, local rank). */
static int jobview__gather_ranks(struct jobview *jv)
{
	struct jv_rank **ranks;
	size_t n = 0, *order, *node;

	for (size_t i = 0; i < jv->nr_nodes; i++)
		n += jv->nodes[i].nr_ranks;
	jv->ranks = calloc(n + 1, sizeof(*jv->ranks));
	jv->rank_node = calloc(n + 1, sizeof(*jv->rank_node));
	order = calloc(n + 1, sizeof(*order));
	if (!jv->ranks || !jv->rank_node || !order) {
		free(order);
		return -ENOMEM;
	}
	for (size_t i = 0; i < jv->nr_nodes; i++)
		for (size_t j = 0; j < jv->nodes[i].nr_ranks; j++) {
			order[jv->nr_ranks] = jv->nr_ranks;
			jv->rank_node[jv->nr_ranks] = i;
			jv->ranks[jv->nr_ranks++] = &jv->nodes[i].ranks[j];
		}
	qsort_r(order, n, sizeof(*order), rank_cmp, jv);
	/* Apply the order to both arrays through copies. */
	ranks = calloc(n + 1, sizeof(*ranks));
	node = calloc(n + 1, sizeof(*node));
	for (size_t i = 0; ranks && node && i < n; i++) {
		ranks[i] = jv->ranks[order[i]];
		node[i] = jv->rank_node[order[i]];
	}
	free(order);
	if (!ranks || !node) {
		free(ranks);
		free(node);
		return -ENOMEM;
	}
	free(jv->ranks);
	free(jv->rank_node);
	jv->ranks = ranks;
	jv->rank_node = node;
	return 0;
}

int jobview__gather(struct jobview *jv)
{
	int ret;

	if (jv->nr_nodes)
		qsort(jv->nodes, jv->nr_nodes, sizeof(*jv->nodes), node_cmp);
	jv->nr_profiled = 0;
	jv->total_period = 0;
	for (size_t i = 0; i < jv->nr_nodes; i++) {
		jv->nr_profiled += jv->nodes[i].profiled;
		jv->total_period += jv->nodes[i].profiled ? jv->nodes[i].prof.total_period : 0;
	}
	ret = jobview__gather_syms(jv);
	return ret ? ret : jobview__gather_ranks(jv);
}

/* ---- text ---- */

static const char *str_or(const char *s, const char *dflt)
{
	return s && s[0] ? s : dflt;
}

static void node_row(FILE *f, int w, const char *name, const struct jv_node *n,
		     const struct loss_total *t, long ranks, uint64_t bytes)
{
	char rk[24] = "-", smp[24] = "-", lost[24] = "-", mb[24] = "-", ms[24] = "-", ex[24] = "-";
	char line[1024];
	uint64_t samples;
	size_t len;

	if (!n)
		ms[0] = '\0'; /* merges ran side by side: no total */

	if (ranks >= 0)
		snprintf(rk, sizeof(rk), "%ld", ranks);
	if (!n || jv_node__samples(n, &samples))
		snprintf(smp, sizeof(smp), "%llu",
			 (unsigned long long)(n ? samples : t->samples));
	if (!n || n->data_ok) {
		snprintf(lost, sizeof(lost), "%.3f%%", 100 * loss_total__lost_share(t));
		snprintf(mb, sizeof(mb), "%.3f", bytes / 1e6);
	}
	if (n && n->merge_seconds >= 0)
		snprintf(ms, sizeof(ms), "%.2f", n->merge_seconds);
	if (n && n->has_exit)
		snprintf(ex, sizeof(ex), "%ld", n->exit_status);
	snprintf(line, sizeof(line), "%-*s %5s  %-12s %-11s %10s %8s %9s %8s  %-8s %4s", w, name,
		 rk, n ? str_or(n->mode, "-") : "", n ? jv_node__status(n) : "", smp, lost, mb, ms,
		 n ? jv_node__stop(n) : "", n ? ex : "");
	len = strlen(line);
	while (len && line[len - 1] == ' ') /* the total row's empty columns */
		line[--len] = '\0';
	fprintf(f, "%s\n", line);
}

/* What the table cannot say. Unreadable files are warned about on stderr, not here. */
static void node_note(FILE *f, const struct jv_node *n)
{
	const char *st = jv_node__status(n);

	if (!strcmp(st, "unrecorded"))
		fprintf(f, "%s: unrecorded: %s\n", n->name, str_or(n->reason, "(no reason given)"));
	if (!n->data_ok && (!strcmp(st, "kept") || !strcmp(st, "recording"))) {
		fprintf(f, "%s: %s: %s", n->name, st,
			!strcmp(st, "kept") ? "shards not merged; merge with"
					    : "the recorder did not finish (killed?); merge what it "
					      "wrote with");
		if (n->merge_command)
			fprintf(f, ": %s\n", n->merge_command);
		else if (n->shard_dir)
			fprintf(f, ": shardrec merge --recover '%s'\n", n->shard_dir);
		else
			fprintf(f, " shardrec merge --recover (its JSON names no shard directory)\n");
	}
}

static int name_width(const struct jobview *jv)
{
	int w = 5; /* "total" */

	for (size_t i = 0; i < jv->nr_nodes; i++)
		w = (int)strlen(jv->nodes[i].name) > w ? (int)strlen(jv->nodes[i].name) : w;
	return w;
}

static void print_nodes(FILE *f, const struct jobview *jv)
{
	struct loss_total total = {0};
	uint64_t bytes = 0;
	long ranks = 0;
	int w = name_width(jv);

	fprintf(f, "%-*s %5s  %-12s %-11s %10s %8s %9s %8s  %-8s %4s\n", w, "node", "ranks", "mode",
		"status", "samples", "lost %", "MB", "merge s", "stop", "exit");
	for (size_t i = 0; i < jv->nr_nodes; i++) {
		const struct jv_node *n = &jv->nodes[i];
		/* A recorder's node has at least its own rank: 0 is no count. */
		long r = n->local_ranks > 0 ? n->local_ranks : n->nr_ranks ? (long)n->nr_ranks : -1;

		node_row(f, w, n->name, n, &n->loss, r, n->bytes);
		total.samples += n->loss.samples;
		total.lost += n->loss.lost;
		bytes += n->bytes;
		ranks += r > 0 ? r : 0;
	}
	node_row(f, w, "total", NULL, &total, ranks, bytes);
	for (size_t i = 0; i < jv->nr_nodes; i++)
		node_note(f, &jv->nodes[i]);
}

/* "[.] hot_loop", as perf report --sort sym prints it, cut to SYM_WIDTH. */
static void sym_label(const struct jv_jobsym *s, char *buf, size_t len)
{
	if (s->level)
		snprintf(buf, len, "[%c] %.*s", s->level, SYM_WIDTH, s->name);
	else
		snprintf(buf, len, "%.*s", SYM_WIDTH, s->name);
}

/* The profiled nodes with the least and the most of @s. */
static void sym_min_max(const struct jobview *jv, const struct jv_jobsym *s, size_t *lo,
			size_t *hi)
{
	double min = 1e9, max = -1, pct;

	*lo = *hi = 0;
	for (size_t i = 0; i < jv->nr_nodes; i++) {
		if (!jv->nodes[i].profiled)
			continue;
		pct = jv_jobsym__node_pct(s, &jv->nodes[i], i);
		if (pct < min) {
			min = pct;
			*lo = i;
		}
		if (pct > max) {
			max = pct;
			*hi = i;
		}
	}
}

static void sym_header(FILE *f, const struct jobview *jv, int sw)
{
	fprintf(f, "%-*s %7s", sw, "symbol", "job %");
	if (jv->nr_profiled > NODE_COLUMNS)
		fprintf(f, " %7s %-*s %7s %-*s", "min %", NODE_COL_WIDTH, "(node)", "max %",
			NODE_COL_WIDTH, "(node)");
	for (size_t i = 0; jv->nr_profiled <= NODE_COLUMNS && i < jv->nr_nodes; i++)
		if (jv->nodes[i].profiled)
			fprintf(f, " %*.*s", NODE_COL_WIDTH, NODE_COL_WIDTH, jv->nodes[i].name);
	fprintf(f, " %9s %8s  %s\n", "imbalance", "load imb", "object");
}

static void sym_row(FILE *f, const struct jobview *jv, const struct jv_jobsym *s, int sw)
{
	char label[SYM_WIDTH + 8];
	size_t lo, hi;

	sym_label(s, label, sizeof(label));
	fprintf(f, "%-*s %7.2f", sw, label,
		jv->total_period ? 100.0 * s->all.period / jv->total_period : 0.0);
	if (jv->nr_profiled > NODE_COLUMNS) {
		sym_min_max(jv, s, &lo, &hi);
		fprintf(f, " %7.2f %-*.*s %7.2f %-*.*s", jv_jobsym__node_pct(s, &jv->nodes[lo], lo),
			NODE_COL_WIDTH, NODE_COL_WIDTH, jv->nodes[lo].name,
			jv_jobsym__node_pct(s, &jv->nodes[hi], hi), NODE_COL_WIDTH,
			NODE_COL_WIDTH, jv->nodes[hi].name);
	}
	for (size_t i = 0; jv->nr_profiled <= NODE_COLUMNS && i < jv->nr_nodes; i++)
		if (jv->nodes[i].profiled)
			fprintf(f, " %*.2f", NODE_COL_WIDTH, jv_jobsym__node_pct(s, &jv->nodes[i], i));
	fprintf(f, " %9.2f %8.2f  %s\n", s->imbalance, s->load_imbalance, s->dso);
}

const char *jobview__event(const struct jobview *jv)
{
	for (size_t i = 0; i < jv->nr_nodes; i++)
		if (jv->nodes[i].profiled && jv->nodes[i].prof.event)
			return jv->nodes[i].prof.event;
	return NULL;
}

static void print_syms(FILE *f, const struct jobview *jv)
{
	char label[SYM_WIDTH + 8];
	int sw = 6;

	if (!jv->nr_profiled) {
		fprintf(f, "\nno symbols: no node's perf.data could be read by perf report\n");
		return;
	}
	for (size_t i = 0; i < jv->nr_syms; i++) {
		sym_label(&jv->syms[i], label, sizeof(label));
		sw = (int)strlen(label) > sw ? (int)strlen(label) : sw;
	}
	fputc('\n', f);
	sym_header(f, jv, sw);
	for (size_t i = 0; i < jv->nr_syms; i++)
		sym_row(f, jv, &jv->syms[i], sw);
	fprintf(f, "(%% of the sample period of event '%s', the first of each file: a node's %% is\n"
		"perf report --sort sym's Overhead of its file. Over the %zu profiled nodes, 0 where\n"
		"one lacks the symbol: imbalance = max / mean of the nodes' %%; load imb = max / mean\n"
		"of their periods, the time in the symbol for a clock event)\n",
		str_or(jobview__event(jv), "?"), jv->nr_profiled);
}

static void print_ranks(FILE *f, const struct jobview *jv)
{
	int w = name_width(jv);

	if (!jv->nr_ranks)
		return;
	fprintf(f, "\n%-*s %6s %6s %8s %10s %5s\n", w, "node", "rank", "local", "pid", "samples",
		"exit");
	for (size_t i = 0; i < jv->nr_ranks; i++) {
		const struct jv_rank *r = jv->ranks[i];
		const struct jv_node *n = &jv->nodes[jv->rank_node[i]];
		char rk[24] = "-", lr[24] = "-", pid[24] = "-", smp[24] = "-", ex[24] = "-";

		if (r->rank >= 0)
			snprintf(rk, sizeof(rk), "%ld", r->rank);
		if (r->local_rank >= 0)
			snprintf(lr, sizeof(lr), "%ld", r->local_rank);
		if (r->pid >= 0)
			snprintf(pid, sizeof(pid), "%ld", r->pid);
		if (r->has_samples)
			snprintf(smp, sizeof(smp), "%llu", (unsigned long long)r->samples);
		if (r->has_exit)
			snprintf(ex, sizeof(ex), "%ld", r->exit_status);
		fprintf(f, "%-*s %6s %6s %8s %10s %5s\n", w, n->name, rk, lr, pid, smp, ex);
	}
}

void jobview__fprint_text(FILE *f, const struct jobview *jv)
{
	print_nodes(f, jv);
	print_syms(f, jv);
	print_ranks(f, jv);
}
