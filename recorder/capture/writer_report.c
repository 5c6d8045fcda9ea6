// SPDX-License-Identifier: GPL-2.0
#include "recorder/capture/writer_report.h"
#include "recorder/util/log.h"
/* Ring pressure is a ring statistic: the ring's layout. */
#include "ringbuf/ring_internal.h"

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
				int fd = l->fds[(e * l->nr_cpus + c) * l->nr_threads + t];
				uint64_t id, n;

				if (!evlist__read_fd(l, e, fd, &id, &n))
					lost += n;
			}
	}
	return lost;
}

void writer_report__stopped(size_t idx, const struct writer_stats *st,
			    const struct plan_group *grp, const struct evlist_mmap *maps,
			    const struct evlist *l)
{
	double after = writer_report__secs(st->err_time, st->start_time);
	uint64_t unread = 0;
	char cpus[256], unwritten[64] = "";

	for (size_t i = 0; i < grp->nr_cpus; i++)
		unread += ring__pending(&maps[i].core);
	cpulist__format(grp->cpus, grp->nr_cpus, cpus, sizeof(cpus));
	/* Copied out of the rings (writer__copy_out), then not written. */
	if (st->unwritten)
		snprintf(unwritten, sizeof(unwritten), ", %.3f MB of the failed write",
			 st->unwritten / 1e6);
	/*
	 * Nobody reads those rings any more: what the kernel could not put in
	 * them is in its lost count (saved as LOST_SAMPLES), what it did put
	 * there is left unread.
	 */
	pr_err("writer %zu (cpus %s) stopped %.2f s into the recording: %s; its shard keeps the "
	       "%llu passes (%.3f MB) written before; lost after it: %llu samples on cpus %s and "
	       "%.3f MB left unread in their rings%s",
	       idx, cpus, after, strerror(-st->err), (unsigned long long)st->passes,
	       st->zbytes / 1e6, (unsigned long long)writer_report__lost(l, grp->cpus, grp->nr_cpus),
	       cpus, unread / 1e6, unwritten);
}

bool ring_pressure__fuller(const struct ring_pressure *a, const struct ring_pressure *b)
{
	if (a->cpu < 0 || !a->size)
		return false;
	if (b->cpu < 0 || !b->size)
		return true;
	/* a->fill / a->size > b->fill / b->size, without division; sizes are < 2^40. */
	return (unsigned __int128)a->fill * b->size > (unsigned __int128)b->fill * a->size;
}

bool ring_pressure__worse(const struct ring_pressure *a, const struct ring_pressure *b)
{
	if (ring_pressure__fuller(a, b))
		return true;
	return a->cpu >= 0 && !ring_pressure__fuller(b, a) && a->time < b->time;
}

double ring_pressure__pct(const struct ring_pressure *hw)
{
	return hw->cpu >= 0 && hw->size ? 100.0 * hw->fill / hw->size : 0;
}

void writer_report__high_water(const struct evlist_mmap *maps, size_t n,
			       struct ring_pressure *hw)
{
	*hw = (struct ring_pressure){.cpu = -1};
	for (size_t i = 0; i < n; i++) {
		const struct ring *ring = &maps[i].core;
		struct ring_pressure r = {ring->cpu, ring->fill_max, ring->size,
					  ring->fill_max_time};

		if (r.fill && ring_pressure__worse(&r, hw))
			*hw = r;
	}
}

static double lost_share(const struct loss_advice *a)
{
	uint64_t all = a->samples + a->lost_samples;

	return all ? (double)a->lost_samples / all : 0;
}

bool writer_report__heavy_loss(const struct loss_advice *a)
{
	if (lost_share(a) >= 0.01)
		return true;
	return (a->lost_samples || a->lost_records) && ring_pressure__pct(&a->hw) >= 90;
}

/* "; ring of cpu 3 reached 100% full at 1.23 s", or the fullest seen if not near full. */
static void advice_ring(const struct loss_advice *a, char *buf, size_t len)
{
	const struct ring_pressure *hw = &a->hw;
	double at = writer_report__secs(hw->time, a->start);

	if (hw->cpu < 0)
		snprintf(buf, len, "; no ring read found data");
	else if (ring_pressure__pct(hw) >= 90)
		snprintf(buf, len, "; ring of cpu %d reached %.0f%% full at %.2f s", hw->cpu,
			 ring_pressure__pct(hw), at);
	else
		snprintf(buf, len, "; fullest ring seen: cpu %d, %.0f%% full at %.2f s", hw->cpu,
			 ring_pressure__pct(hw), at);
}

/* "heavy loss: 2.50% of samples lost (25 of 1000)", or the records when no sample was. */
static void advice_lost(const struct loss_advice *a, char *buf, size_t len)
{
	if (a->lost_samples)
		snprintf(buf, len, "heavy loss: %.2f%% of samples lost (%llu of %llu)",
			 100 * lost_share(a), (unsigned long long)a->lost_samples,
			 (unsigned long long)(a->samples + a->lost_samples));
	else
		snprintf(buf, len, "loss: %llu lost records", (unsigned long long)a->lost_records);
}

/* The -r remedy: none when the writers already ran real-time. */
static const char *advice_rt(const struct loss_advice *a)
{
	if (a->rt_prio > 0)
		return NULL;
	if (a->rt_err)
		return "-r 1 (writers at real-time priority: needs root, cap_sys_nice or "
		       "'ulimit -r 1')";
	return "-r 1 (writers at real-time priority; they ran at normal priority)";
}

char *writer_report__advice(const struct loss_advice *a, char *buf, size_t len)
{
	char lost[96], ring[128], mmap[64], disk[96], threads[96];
	const char *fix[4];
	size_t n = 0, off;

	advice_lost(a, lost, sizeof(lost));
	advice_ring(a, ring, sizeof(ring));
	snprintf(mmap, sizeof(mmap), "-m %zu (now %zu page%s)", a->mmap_pages * 4, a->mmap_pages,
		 a->mmap_pages == 1 ? "" : "s");
	fix[n++] = mmap;
	if (a->write_max_ns >= LOSS_ADVICE_SLOW_WRITE_NS) {
		snprintf(disk, sizeof(disk), "-o on a faster file system (a shard write took %.0f ms)",
			 a->write_max_ns / 1e6);
		fix[n++] = disk;
	}
	/* More writers help only where a writer reads several rings. */
	if (a->nr_writers < a->nr_cpus) {
		snprintf(threads, sizeof(threads), "--threads=cpu (now %zu writer%s for %zu CPUs)",
			 a->nr_writers, a->nr_writers == 1 ? "" : "s", a->nr_cpus);
		fix[n++] = threads;
	}
	if (advice_rt(a))
		fix[n++] = advice_rt(a);
	off = snprintf(buf, len, "%s%s: try %s", lost, ring, fix[0]);
	/* "A or B", "A, B, or C" */
	for (size_t i = 1; i < n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i + 1 < n ? ", " : n > 2 ? ", or " : " or ",
				fix[i]);
	return buf;
}
