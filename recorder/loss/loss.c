// SPDX-License-Identifier: GPL-2.0
/*
 * The data-loss metric of a perf.data (definitions in loss.h).
 *
 * One pass over the records in file order; each data file of a perf
 * --threads directory in turn (each holds whole rings, so "the previous
 * record of the same CPU" stays meaningful). Memory: one slot per CPU and
 * one interval per LOST record.
 */
#include "recorder/loss/loss.h"
#include "recorder/perfdata/pdecode.h"
#include "recorder/perfdata/pfile.h"
#include "recorder/perfdata/pfile_sample.h"
#include "recorder/perfdata/pfile_check.h"
#include "recorder/perfdata/recbuf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOSS_MAX_CPUS 65536
#define LOSS_NO_START UINT64_MAX /* interval from the file's first timestamp */

struct loss_iv {
	uint64_t start, end;
};

struct loss_ctx {
	struct loss_stats *st;
	struct pfile pf;
	struct pfile_idlayout *lay; /* per event */
	int *cpu_back;		    /* per event: trailer CPU offset from the end, -1 */
	uint64_t *cpu_last;	    /* per CPU: time of its last timed record, 0 = none */
	uint64_t any_last;	    /* last timed record of any CPU */
	bool pending;		    /* an untimed LOST waits for the next timestamp */
	uint64_t pending_start;
	struct loss_iv *iv;
	size_t nr_iv, cap_iv;
	const struct pdecode_ops *ops; /* NULL: COMPRESSED records fail */
	void *dec; /* the current file's zstd stream */
	struct recbuf points; /* struct loss_point each, for st->points */
	struct pfile_check chk; /* records perf would reject fail the analysis */
	const char *why;	/* the damaged record's, when on_record returns -EBADMSG */
	unsigned bad_type;
	bool bad_inner;		/* it was inside a COMPRESSED record */
	bool inner;		/* on_record is called for a COMPRESSED record's contents */
};

/* ---- per-record fields ---- */

static size_t rec_event(const struct loss_ctx *c, const struct perf_event_header *h)
{
	const struct pfile_event *ev;
	uint64_t id;

	/* perf requires one id position for all events: events[0]'s finds it. */
	if (c->pf.nr_events < 2 || !pfile_idlayout__id(&c->lay[0], h, &id))
		return 0;
	ev = pfile__event_by_id(&c->pf, id);
	return ev ? (size_t)(ev - c->pf.events) : 0;
}

/* The CPU of a kernel record, or -1 when its event does not record it. */
static long rec_cpu(const struct loss_ctx *c, size_t ev, const struct perf_event_header *h)
{
	const struct pfile_idlayout *l = &c->lay[ev];
	uint32_t cpu;
	int off;

	if (h->type == PERF_RECORD_SAMPLE)
		off = l->sample_cpu_off;
	else if (l->sample_id_all && c->cpu_back[ev] >= 0 && (size_t)c->cpu_back[ev] <= h->size)
		off = h->size - c->cpu_back[ev];
	else
		off = -1;
	if (off < 0 || (size_t)off + 4 > h->size)
		return -1;
	memcpy(&cpu, (const char *)h + off, 4);
	return cpu < LOSS_MAX_CPUS ? (long)cpu : -1;
}

static int trailer_cpu_back(uint64_t st)
{
	if (!(st & PERF_SAMPLE_CPU))
		return -1;
	return (st & PERF_SAMPLE_IDENTIFIER) ? 16 : 8;
}

static uint64_t rec_u64(const struct perf_event_header *h, size_t off)
{
	uint64_t v = 0;

	if (off + 8 <= h->size)
		memcpy(&v, (const char *)h + off, 8);
	return v;
}

/* ---- loss intervals ---- */

static int iv_add(struct loss_ctx *c, uint64_t start, uint64_t end)
{
	struct loss_iv *p = array__grow(c->iv, &c->cap_iv, c->nr_iv + 1, sizeof(*p), 256);

	if (!p)
		return -ENOMEM;
	c->iv = p;
	if (start != LOSS_NO_START && start > end)
		start = end; /* the ring's clock went backwards: an empty interval */
	c->iv[c->nr_iv++] = (struct loss_iv){start, end};
	return 0;
}

static int iv_cmp(const void *a, const void *b)
{
	const struct loss_iv *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Length of the union of the intervals. */
static uint64_t iv_union(struct loss_ctx *c, uint64_t first)
{
	uint64_t total = 0, s = 0, e = 0;
	bool open = false;

	for (size_t i = 0; i < c->nr_iv; i++)
		if (c->iv[i].start == LOSS_NO_START)
			c->iv[i].start = first < c->iv[i].end ? first : c->iv[i].end;
	/* No loss: iv is NULL, which qsort may not be given even with 0 elements. */
	if (c->nr_iv)
		qsort(c->iv, c->nr_iv, sizeof(*c->iv), iv_cmp);
	for (size_t i = 0; i < c->nr_iv; i++) {
		if (open && c->iv[i].start <= e) {
			if (c->iv[i].end > e)
				e = c->iv[i].end;
			continue;
		}
		if (open)
			total += e - s;
		s = c->iv[i].start;
		e = c->iv[i].end;
		open = true;
	}
	return open ? total + e - s : total;
}

static int cpu_slot(struct loss_ctx *c, long cpu, uint64_t **slot)
{
	if (cpu < 0) {
		*slot = &c->any_last;
		return 0;
	}
	if (!c->cpu_last) {
		c->cpu_last = calloc(LOSS_MAX_CPUS, sizeof(*c->cpu_last));
		if (!c->cpu_last)
			return -ENOMEM;
	}
	*slot = &c->cpu_last[cpu];
	return 0;
}

/* A timed loss record, for the plot. */
static int point_add(struct loss_ctx *c, uint64_t t, long cpu, uint64_t lost)
{
	struct loss_point p = {t, cpu, lost};

	return recbuf__append(&c->points, &p, sizeof(p));
}

/* A LOST record: count it and open its interval, ending at its own time. */
static int on_lost(struct loss_ctx *c, const struct perf_event_header *h, bool timed, uint64_t t,
		   long cpu)
{
	const struct pfile_event *ev = pfile__event_by_id(&c->pf, rec_u64(h, 8));
	uint64_t *last, lost = rec_u64(h, 16); /* {header, id, lost} */
	int ret;

	c->st->lost_records++;
	c->st->lost_events += lost;
	c->st->events[ev ? ev - c->pf.events : 0].lost_events += lost;
	if (!timed) {
		c->st->untimed_lost++;
		if (!c->pending) {
			c->pending = true;
			c->pending_start = c->any_last ? c->any_last : LOSS_NO_START;
		}
		return 0;
	}
	ret = cpu_slot(c, cpu, &last);
	if (!ret)
		ret = point_add(c, t, cpu, lost);
	if (ret)
		return ret;
	return iv_add(c, *last ? *last : LOSS_NO_START, t);
}

/* A timed record: it ends any untimed loss and becomes its ring's last. */
static int on_time(struct loss_ctx *c, uint64_t t, long cpu)
{
	struct loss_stats *st = c->st;
	uint64_t *last;
	int ret;

	if (c->pending) {
		c->pending = false;
		ret = iv_add(c, c->pending_start, t);
		if (ret)
			return ret;
	}
	if (!st->first_time || t < st->first_time)
		st->first_time = t;
	if (t > st->last_time)
		st->last_time = t;
	c->any_last = t;
	ret = cpu_slot(c, cpu, &last);
	if (!ret)
		*last = t;
	return ret;
}

static int on_kernel_record(struct loss_ctx *c, const struct perf_event_header *h)
{
	size_t ev = rec_event(c, h);
	long cpu = rec_cpu(c, ev, h);
	uint64_t t = 0;
	bool timed = pfile_idlayout__time(&c->lay[ev], h, &t) && t;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		c->st->samples++;
		c->st->events[ev].samples++;
		break;
	case PERF_RECORD_LOST: {
		/* Then it is its ring's last record: the ring had room again. */
		int ret = on_lost(c, h, timed, t, cpu);

		if (ret)
			return ret;
		break;
	}
	case PERF_RECORD_LOST_SAMPLES:
		/* Written at the end from counters: its time says nothing. */
		c->st->lost_samples_recs++;
		c->st->lost_samples += rec_u64(h, 8);
		c->st->events[ev].lost_samples += rec_u64(h, 8);
		return timed ? point_add(c, t, cpu, rec_u64(h, 8)) : 0;
	}
	return timed ? on_time(c, t, cpu) : 0;
}

static int on_record(const struct perf_event_header *h, void *arg)
{
	struct loss_ctx *c = arg;
	int ret;

	/* Not counted as fine: a record perf rejects, or whose id is no event's. */
	if (pfile_check__record(&c->chk, h, pfile__rec_len(h), &c->why) != PFILE_CHECK_OK) {
		c->bad_type = h->type;
		c->bad_inner = c->inner;
		return -EBADMSG;
	}
	if (h->type == PFILE_REC_COMPRESSED) {
		if (!c->ops)
			return -ENOTSUP;
		if (!c->dec && !(c->dec = c->ops->new()))
			return -ENOMEM;
		c->st->compressed++;
		c->inner = true;
		ret = c->ops->stream_feed(c->dec, h + 1, h->size - sizeof(*h), on_record, c);
		c->inner = false;
		return ret;
	}
	c->st->records++;
	c->st->data_bytes += h->size;
	if (h->type >= PFILE_REC_HEADER_ATTR)
		return 0;
	return on_kernel_record(c, h);
}

/* ---- files ---- */

/* Walks [start, start+len) of @fd: its own zstd stream, as perf does per file. */
static int loss__file_range(struct loss_ctx *c, int fd, uint64_t start, uint64_t len,
			    const char *name, char *err, size_t errlen)
{
	const struct perf_event_header *h;
	struct pfile_reader r;
	uint64_t off, bad = UINT64_MAX;
	size_t rec_len;
	int ret;

	ret = pfile_reader__init(&r, fd, start, len, 0);
	if (ret)
		return ret;
	while ((ret = pfile_reader__next(&r, &h, &rec_len, &off)) == 1) {
		ret = on_record(h, c);
		if (ret) {
			bad = off; /* the record just read, e.g. a corrupt COMPRESSED payload */
			break;
		}
	}
	if (bad == UINT64_MAX)
		bad = r.pos; /* the reader stops at a malformed record */
	if (ret == -EBADMSG && c->why)
		snprintf(err, errlen, "%s: damaged record at offset %llu (%stype %u, %s)", name,
			 (unsigned long long)bad, c->bad_inner ? "inside this COMPRESSED record, " : "",
			 c->bad_type, c->why ? c->why : "?");
	else if (ret == -EINVAL || ret == -EBADMSG)
		snprintf(err, errlen, "%s: malformed or corrupt record at offset %llu", name,
			 (unsigned long long)bad);
	else if (ret < 0)
		snprintf(err, errlen, "%s: %s", name, strerror(-ret));
	pfile_reader__release(&r);
	if (c->dec)
		c->ops->delete(c->dec);
	c->dec = NULL;
	c->st->nr_files++;
	return ret < 0 ? ret : 0;
}

static int loss__events(struct loss_ctx *c)
{
	size_t n = c->pf.nr_events;

	c->lay = calloc(n, sizeof(*c->lay));
	c->cpu_back = calloc(n, sizeof(*c->cpu_back));
	c->st->events = calloc(n, sizeof(*c->st->events));
	if (!c->lay || !c->cpu_back || !c->st->events)
		return -ENOMEM;
	c->st->nr_events = n;
	for (size_t i = 0; i < n; i++) {
		const struct perf_event_attr *a = &c->pf.events[i].attr;

		pfile_idlayout__init(&c->lay[i], a->sample_type, a->sample_id_all);
		c->cpu_back[i] = trailer_cpu_back(a->sample_type);
		c->st->events[i].name = strdup(c->pf.events[i].name ? c->pf.events[i].name : "?");
		if (!c->st->events[i].name)
			return -ENOMEM;
	}
	return 0;
}

static int data_n_filter(const struct dirent *d)
{
	const char *p = d->d_name;

	if (strncmp(p, "data.", 5) || !p[5])
		return 0;
	for (p += 5; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return 1;
}

static int data_n_cmp(const struct dirent **a, const struct dirent **b)
{
	long x = atol((*a)->d_name + 5), y = atol((*b)->d_name + 5);

	return x < y ? -1 : x > y;
}

/* perf record --threads: DIR/data holds the header, DIR/data.N the rings. */
static int loss__dir_files(struct loss_ctx *c, const char *dir, char *err, size_t errlen)
{
	struct dirent **names = NULL;
	char path[4096];
	int n, ret = 0;

	n = scandir(dir, &names, data_n_filter, data_n_cmp);
	if (n < 0)
		return -errno;
	for (int i = 0; i < n && !ret; i++) {
		struct stat sb;
		int fd;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		fd = pfile__open_input(AT_FDCWD, path, 0);
		if (fd < 0 || fstat(fd, &sb)) {
			ret = fd < 0 ? fd : -errno;
			snprintf(err, errlen, "%s: %s", path, pfile__strerror(ret));
		} else {
			ret = loss__file_range(c, fd, 0, sb.st_size, path, err, errlen);
		}
		if (fd >= 0)
			close(fd);
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return ret;
}

static void loss_ctx__release(struct loss_ctx *c)
{
	pfile_check__release(&c->chk);
	pfile__close(&c->pf);
	if (c->dec)
		c->ops->delete(c->dec);
	free(c->lay);
	free(c->cpu_back);
	free(c->cpu_last);
	free(c->iv);
	recbuf__release(&c->points);
}

int loss__analyze(const char *path, const struct pdecode_ops *dec, struct loss_stats *st,
		  char *err, size_t errlen)
{
	struct loss_ctx c = {.st = st, .pf = {.fd = -1}, .ops = dec};
	char hdr[4096];
	struct stat sb;
	bool dir;
	int ret;

	memset(st, 0, sizeof(*st));
	err[0] = 0;
	if (stat(path, &sb)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	dir = S_ISDIR(sb.st_mode);
	snprintf(hdr, sizeof(hdr), dir ? "%s/data" : "%s", path);
	ret = pfile__open(&c.pf, hdr, err, errlen);
	if (ret)
		return ret;
	if (!pfile_check__events(&c.pf, &c.why)) {
		snprintf(err, errlen, "%s: damaged attrs (%s)", hdr, c.why);
		ret = -EINVAL;
		goto out;
	}
	c.why = NULL;
	ret = pfile_check__init(&c.chk, &c.pf);
	if (!ret)
		ret = loss__events(&c);
	if (!ret)
		ret = loss__file_range(&c, c.pf.fd, c.pf.hdr.data.offset, c.pf.hdr.data.size, hdr,
				       err, errlen);
	if (!ret && dir)
		ret = loss__dir_files(&c, path, err, errlen);
	if (!ret) {
		st->lost_time = iv_union(&c, st->first_time);
		/* Handed over: st owns them now. */
		st->points = (struct loss_point *)c.points.data;
		st->nr_points = c.points.len / sizeof(*st->points);
		c.points = (struct recbuf){0};
	}
out:
	if (ret && !err[0])
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
	loss_ctx__release(&c);
	return ret;
}

void loss_stats__release(struct loss_stats *st)
{
	for (size_t i = 0; i < st->nr_events; i++)
		free(st->events[i].name);
	free(st->events);
	st->events = NULL;
	st->nr_events = 0;
	free(st->points);
	st->points = NULL;
	st->nr_points = 0;
}

/* One file as a total of one: the formulas live in loss_total__*. */
static struct loss_total total_of(const struct loss_stats *st)
{
	struct loss_total t = {0};

	loss_total__add(&t, st);
	return t;
}

double loss_stats__metric(const struct loss_stats *st)
{
	struct loss_total t = total_of(st);

	return loss_total__metric(&t);
}

uint64_t loss_stats__lost(const struct loss_stats *st)
{
	return st->lost_samples_recs ? st->lost_samples : st->lost_events;
}

double loss_stats__lost_share(const struct loss_stats *st)
{
	struct loss_total t = total_of(st);

	return loss_total__lost_share(&t);
}

void loss_total__add(struct loss_total *t, const struct loss_stats *st)
{
	t->files++;
	t->samples += st->samples;
	t->lost_records += st->lost_records;
	t->lost_events += st->lost_events;
	t->lost += loss_stats__lost(st);
	t->lost_time += st->lost_time;
	if (st->last_time > st->first_time)
		t->elapsed += st->last_time - st->first_time;
}

double loss_total__metric(const struct loss_total *t)
{
	return t->elapsed ? (double)t->lost_time / (double)t->elapsed : 0;
}

double loss_total__lost_share(const struct loss_total *t)
{
	return t->samples + t->lost ? (double)t->lost / (double)(t->samples + t->lost) : 0;
}
