// SPDX-License-Identifier: GPL-2.0
/*
 * `shardrec jobview --json`: the three tables as one JSON object, with the
 * exact counts the text rounds (periods, bytes) so that scripts can
 * recompute any share. Absent values are null.
 */
#include "recorder/jobview/jobview_internal.h"
#include "recorder/util/json.h"

#include <string.h>

/* Each writer puts @pre (", " or "") before its "key": value. */
static void j_str(FILE *f, const char *pre, const char *key, const char *v)
{
	fprintf(f, "%s\"%s\": ", pre, key);
	if (v)
		json__fputs_str(f, v);
	else
		fputs("null", f);
}

static void j_long(FILE *f, const char *pre, const char *key, bool ok, long v)
{
	if (ok)
		fprintf(f, "%s\"%s\": %ld", pre, key, v);
	else
		fprintf(f, "%s\"%s\": null", pre, key);
}

static void j_u64(FILE *f, const char *pre, const char *key, bool ok, uint64_t v)
{
	if (ok)
		fprintf(f, "%s\"%s\": %llu", pre, key, (unsigned long long)v);
	else
		fprintf(f, "%s\"%s\": null", pre, key);
}

static void j_dbl(FILE *f, const char *pre, const char *key, bool ok, double v)
{
	if (ok)
		fprintf(f, "%s\"%s\": %.6f", pre, key, v);
	else
		fprintf(f, "%s\"%s\": null", pre, key);
}

static void j_level(FILE *f, char level)
{
	char s[2] = {level, '\0'};

	j_str(f, ", ", "level", level ? s : NULL);
}

/* The node's own fields: the JSON's, and what its perf.data holds. */
static void node_fields(FILE *f, const struct jv_node *n)
{
	uint64_t samples;
	bool has_samples = jv_node__samples(n, &samples);
	const char *err = n->data_err ? n->data_err : n->json_err ? n->json_err : n->perf_err;

	j_str(f, "", "node", n->name);
	/* A path that was never there (an unrecorded node's) is no file of the node. */
	j_str(f, ", ", "data", n->data_ok || n->data_err ? n->data_path : NULL);
	j_str(f, ", ", "json", n->json_ok || n->json_err ? n->json_path : NULL);
	j_str(f, ", ", "job_id", n->job_id);
	j_str(f, ", ", "step", n->step);
	j_str(f, ", ", "launcher", n->launcher);
	j_long(f, ", ", "rank", n->rank >= 0, n->rank);
	j_long(f, ", ", "local_ranks", n->local_ranks >= 0, n->local_ranks);
	j_str(f, ", ", "mode", n->mode);
	j_str(f, ", ", "status", jv_node__status(n));
	j_str(f, ", ", "reason", n->reason);
	j_str(f, ", ", "output", n->output);
	j_str(f, ", ", "shard_dir", n->shard_dir);
	j_str(f, ", ", "merge_command", n->merge_command);
	fputs(",\n    ", f);
	j_u64(f, "", "samples", has_samples, samples);
	j_u64(f, ", ", "lost_samples", n->data_ok, n->loss.lost);
	j_u64(f, ", ", "lost_records", n->data_ok, n->loss.lost_records);
	j_dbl(f, ", ", "lost_pct", n->data_ok, 100 * loss_total__lost_share(&n->loss));
	j_dbl(f, ", ", "loss_metric", n->data_ok, loss_total__metric(&n->loss));
	j_u64(f, ", ", "bytes", n->data_ok, n->bytes);
	j_dbl(f, ", ", "mb", n->data_ok, n->bytes / 1e6);
	j_dbl(f, ", ", "merge_seconds", n->merge_seconds >= 0, n->merge_seconds);
	j_str(f, ", ", "stop", jv_node__stop(n));
	j_long(f, ", ", "exit_status", n->has_exit, n->exit_status);
	j_dbl(f, ", ", "elapsed_seconds", n->elapsed_seconds >= 0, n->elapsed_seconds);
	j_str(f, ", ", "error", err);
	fputs(",\n    ", f);
	j_str(f, "", "event", n->profiled ? n->prof.event : NULL);
	j_long(f, ", ", "events", n->profiled, n->prof.nr_events);
	j_u64(f, ", ", "total_period", n->profiled, n->prof.total_period);
}

/* The node's shares of the job's top symbols, in the order of "symbols". */
static void node_syms(FILE *f, const struct jobview *jv, size_t i)
{
	const struct jv_node *n = &jv->nodes[i];

	fputs(",\n    \"symbols\": [", f);
	for (size_t k = 0; n->profiled && k < jv->nr_syms; k++) {
		const struct jv_jobsym *s = &jv->syms[k];

		fputs(k ? ",\n      {" : "\n      {", f);
		j_str(f, "", "symbol", s->name);
		j_str(f, ", ", "dso", s->dso);
		j_u64(f, ", ", "period", true, s->node[i].period);
		j_u64(f, ", ", "samples", true, s->node[i].samples);
		j_dbl(f, ", ", "pct", true, jv_jobsym__node_pct(s, n, i));
		fputc('}', f);
	}
	fputc(']', f);
}

static void print_nodes(FILE *f, const struct jobview *jv)
{
	struct loss_total t = {0};
	uint64_t bytes = 0;

	fputs("  \"nodes\": [", f);
	for (size_t i = 0; i < jv->nr_nodes; i++) {
		fputs(i ? ",\n   {" : "\n   {", f);
		node_fields(f, &jv->nodes[i]);
		node_syms(f, jv, i);
		fputc('}', f);
		t.samples += jv->nodes[i].loss.samples;
		t.lost += jv->nodes[i].loss.lost;
		bytes += jv->nodes[i].bytes;
	}
	fputs("],\n  \"total\": {", f);
	j_u64(f, "", "nodes", true, jv->nr_nodes);
	j_u64(f, ", ", "profiled_nodes", true, jv->nr_profiled);
	j_u64(f, ", ", "samples", true, t.samples);
	j_u64(f, ", ", "lost_samples", true, t.lost);
	j_dbl(f, ", ", "lost_pct", true, 100 * loss_total__lost_share(&t));
	j_u64(f, ", ", "bytes", true, bytes);
	j_dbl(f, ", ", "mb", true, bytes / 1e6);
	j_u64(f, ", ", "total_period", true, jv->total_period);
	fputs("},\n", f);
}

/* Each profiled node's share of @s, and the least and the most. */
static void sym_nodes(FILE *f, const struct jobview *jv, const struct jv_jobsym *s)
{
	size_t lo = 0, hi = 0, k = 0;
	double pct, min = 1e9, max = -1;

	fputs("\"nodes\": [", f);
	for (size_t i = 0; i < jv->nr_nodes; i++) {
		if (!jv->nodes[i].profiled)
			continue;
		pct = jv_jobsym__node_pct(s, &jv->nodes[i], i);
		lo = pct < min ? (min = pct, i) : lo;
		hi = pct > max ? (max = pct, i) : hi;
		fputs(k++ ? ", {" : "{", f);
		j_str(f, "", "node", jv->nodes[i].name);
		j_dbl(f, ", ", "pct", true, pct);
		j_u64(f, ", ", "period", true, s->node[i].period);
		fputc('}', f);
	}
	fputc(']', f);
	j_str(f, ", ", "min_node", k ? jv->nodes[lo].name : NULL);
	j_dbl(f, ", ", "min_pct", k, min);
	j_str(f, ", ", "max_node", k ? jv->nodes[hi].name : NULL);
	j_dbl(f, ", ", "max_pct", k, max);
}

static void print_syms(FILE *f, const struct jobview *jv)
{
	j_str(f, "  ", "event", jobview__event(jv));
	fputs(",\n  \"symbols\": [", f);
	for (size_t i = 0; i < jv->nr_syms; i++) {
		const struct jv_jobsym *s = &jv->syms[i];

		fputs(i ? ",\n   {" : "\n   {", f);
		j_str(f, "", "symbol", s->name);
		j_str(f, ", ", "dso", s->dso);
		j_level(f, s->level);
		j_u64(f, ", ", "period", true, s->all.period);
		j_u64(f, ", ", "samples", true, s->all.samples);
		j_dbl(f, ", ", "job_pct", true,
		      jv->total_period ? 100.0 * s->all.period / jv->total_period : 0);
		j_dbl(f, ", ", "imbalance", true, s->imbalance);
		j_dbl(f, ", ", "load_imbalance", true, s->load_imbalance);
		fputs(",\n    ", f);
		sym_nodes(f, jv, s);
		fputc('}', f);
	}
	fputs("],\n", f);
}

static void print_ranks(FILE *f, const struct jobview *jv)
{
	fputs("  \"ranks\": [", f);
	for (size_t i = 0; i < jv->nr_ranks; i++) {
		const struct jv_rank *r = jv->ranks[i];

		fputs(i ? ",\n   {" : "\n   {", f);
		j_str(f, "", "node", jv->nodes[jv->rank_node[i]].name);
		j_str(f, ", ", "host", r->host);
		j_long(f, ", ", "rank", r->rank >= 0, r->rank);
		j_long(f, ", ", "local_rank", r->local_rank >= 0, r->local_rank);
		j_long(f, ", ", "pid", r->pid >= 0, r->pid);
		j_u64(f, ", ", "samples", r->has_samples, r->samples);
		j_long(f, ", ", "exit_status", r->has_exit, r->exit_status);
		fprintf(f, ", \"recorded\": %s}", r->recorded ? "true" : "false");
	}
	fputs("]\n", f);
}

void jobview__fprint_json(FILE *f, const struct jobview *jv)
{
	fputs("{\n", f);
	print_nodes(f, jv);
	print_syms(f, jv);
	print_ranks(f, jv);
	fputs("}\n", f);
}
