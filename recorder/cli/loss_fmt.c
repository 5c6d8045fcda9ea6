// SPDX-License-Identifier: GPL-2.0
/* Text and JSON renderings of loss_stats for `shardrec loss`. */
#include "recorder/cli/loss_print.h"
#include "recorder/loss/loss.h"
#include "recorder/util/json.h"

static const char loss_definition[] =
    "loss = lost_time / elapsed: lost_time is the union over CPUs of the intervals from the\n"
    "last record before each PERF_RECORD_LOST on its CPU's ring to the LOST record;\n"
    "elapsed = last - first timestamp. lost smp = LOST_SAMPLES sum (else LOST sum);\n"
    "share = lost smp / (samples + lost smp). total (several files, e.g. a job's one per node):\n"
    "the files added, elapsed too, so its loss is theirs weighted by elapsed time.\n";

static double ns_to_s(uint64_t ns) { return ns / 1e9; }

static uint64_t event_lost(const struct loss_stats *st, const struct loss_event *e)
{
	return st->lost_samples_recs ? e->lost_samples : e->lost_events;
}

static void table_row(FILE *f, const char *path, const struct loss_total *t)
{
	fprintf(f, "%-24s %12llu %10llu %12llu %12llu %7.3f%% %11.6f %11.6f %8.4f%%\n", path,
		(unsigned long long)t->samples, (unsigned long long)t->lost_records,
		(unsigned long long)t->lost_events, (unsigned long long)t->lost,
		100 * loss_total__lost_share(t), ns_to_s(t->lost_time), ns_to_s(t->elapsed),
		100 * loss_total__metric(t));
}

void loss__fprint_table(FILE *f, const char *const *paths, const struct loss_stats *st, size_t n)
{
	struct loss_total total = {0};

	fprintf(f, "%-24s %12s %10s %12s %12s %8s %11s %11s %9s\n", "file", "samples", "LOST recs",
		"LOST sum", "lost smp", "share", "lost_time/s", "elapsed/s", "loss");
	for (size_t i = 0; i < n; i++) {
		struct loss_total one = {0};

		loss_total__add(&one, &st[i]);
		loss_total__add(&total, &st[i]);
		table_row(f, paths[i], &one);
	}
	/* Several files, e.g. one per node of a job: the job as a whole. */
	if (n > 1)
		table_row(f, "total", &total);
	fprintf(f, "\n%-24s %-24s %12s %12s\n", "file", "event", "samples", "lost smp");
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < st[i].nr_events; j++)
			fprintf(f, "%-24s %-24s %12llu %12llu\n", paths[i], st[i].events[j].name,
				(unsigned long long)st[i].events[j].samples,
				(unsigned long long)event_lost(&st[i], &st[i].events[j]));
	for (size_t i = 0; i < n; i++)
		if (st[i].untimed_lost)
			fprintf(f, "%s: %llu LOST records without a timestamp\n", paths[i],
				(unsigned long long)st[i].untimed_lost);
	fprintf(f, "\n%s", loss_definition);
}

static void json_one(FILE *f, const char *path, const struct loss_stats *s)
{
	fputs("  {\"file\": ", f);
	json__fputs_str(f, path);
	fprintf(f,
		", \"files_read\": %u, \"records\": %llu, \"data_bytes\": %llu, "
		"\"compressed_records\": %llu, \"samples\": %llu, \"lost_records\": %llu, "
		"\"lost_events\": %llu, \"lost_samples_records\": %llu, \"lost_samples\": %llu, "
		"\"lost\": %llu, \"lost_share\": %.9g, \"untimed_lost\": %llu, "
		"\"first_time_ns\": %llu, \"last_time_ns\": %llu, \"elapsed_s\": %.9f, "
		"\"lost_time_s\": %.9f, \"loss_metric\": %.9g,\n   \"events\": [",
		s->nr_files, (unsigned long long)s->records, (unsigned long long)s->data_bytes,
		(unsigned long long)s->compressed, (unsigned long long)s->samples,
		(unsigned long long)s->lost_records, (unsigned long long)s->lost_events,
		(unsigned long long)s->lost_samples_recs, (unsigned long long)s->lost_samples,
		(unsigned long long)loss_stats__lost(s), loss_stats__lost_share(s),
		(unsigned long long)s->untimed_lost, (unsigned long long)s->first_time,
		(unsigned long long)s->last_time, ns_to_s(s->last_time - s->first_time),
		ns_to_s(s->lost_time), loss_stats__metric(s));
	for (size_t j = 0; j < s->nr_events; j++) {
		fputs(j ? ", {\"name\": " : "{\"name\": ", f);
		json__fputs_str(f, s->events[j].name);
		fprintf(f, ", \"samples\": %llu, \"lost\": %llu}",
			(unsigned long long)s->events[j].samples,
			(unsigned long long)event_lost(s, &s->events[j]));
	}
	fputs("]}", f);
}

void loss__fprint_json(FILE *f, const char *const *paths, const struct loss_stats *st, size_t n)
{
	fputs("[\n", f);
	for (size_t i = 0; i < n; i++) {
		json_one(f, paths[i], &st[i]);
		fputs(i + 1 < n ? ",\n" : "\n", f);
	}
	fputs("]\n", f);
}
