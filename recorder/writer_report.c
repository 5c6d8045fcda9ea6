// SPDX-License-Identifier: GPL-2.0
#include "recorder/writer_report.h"
#include "recorder/log.h"

#include <string.h>
#include <unistd.h>

static bool has_cpu(const int *cpus, size_t nr, int cpu)
{
	for (size_t i = 0; i < nr; i++)
		if (cpus[i] == cpu)
			return true;
	return false;
}

uint64_t writer_report__lost(const struct evlist *l, const int *cpus, size_t nr_cpus)
{
	uint64_t lost = 0;

	for (size_t c = 0; c < l->nr_cpus; c++) {
		if (!has_cpu(cpus, nr_cpus, l->cpus[c]))
			continue;
		for (size_t e = 0; e < l->nr; e++)
			for (size_t t = 0; t < l->nr_threads; t++) {
				/* read_format ID|LOST (evlist.c): value, id, lost */
				int fd = l->fds[(e * l->nr_cpus + c) * l->nr_threads + t];
				uint64_t v[3];

				if (fd >= 0 && read(fd, v, sizeof(v)) == sizeof(v))
					lost += v[2];
			}
	}
	return lost;
}

void writer_report__stopped(size_t idx, const struct writer_stats *st,
			    const struct plan_group *grp, const struct ring *rings,
			    const struct evlist *l)
{
	double after = st->err_time > st->start_time ? (st->err_time - st->start_time) / 1e9 : 0;
	uint64_t unread = 0;
	char cpus[256];

	for (size_t i = 0; i < grp->nr_cpus; i++)
		unread += ring__pending(&rings[i]);
	cpulist__format(grp->cpus, grp->nr_cpus, cpus, sizeof(cpus));
	/*
	 * Nobody reads those rings any more: what the kernel could not put in
	 * them is in its lost count (saved as LOST_SAMPLES), what it did put
	 * there is left unread.
	 */
	pr_err("writer %zu (cpus %s) stopped %.2f s into the recording: %s; its shard keeps the "
	       "%llu passes (%.3f MB) written before; lost after it: %llu samples on cpus %s and "
	       "%.3f MB left unread in their rings",
	       idx, cpus, after, strerror(-st->err), (unsigned long long)st->passes,
	       st->zbytes / 1e6, (unsigned long long)writer_report__lost(l, grp->cpus, grp->nr_cpus),
	       cpus, unread / 1e6);
}
