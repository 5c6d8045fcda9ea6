// SPDX-License-Identifier: GPL-2.0
/*
 * The merge is a k-way merge of sorted runs. A run is the records one ring
 * delivered in one pass: the kernel writes a CPU's ring in time order except
 * for nested contexts (an NMI sample inside an interrupted writer), so a run
 * is checked and, in that rare case, sorted on load.
 *
 * A record may be written only when no unread pass can still hold an older
 * one. Each shard's PASS records carry the clock read before the pass's ring
 * heads were read: anything in a later pass was published after that moment
 * and so stamped no earlier than wtime minus the kernel's publish delay
 * (slack). The shard's "safe" time is the last loaded wtime minus slack;
 * records up to the minimum safe time over shards with unread passes are
 * final. The output is globally time-sorted, which satisfies perf's
 * FINISHED_ROUND rule wherever the rounds fall.
 */
#include "recorder/merge.h"
#include "recorder/buildid.h"
#include "recorder/pfile.h"
#include "recorder/shard.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MERGE_SLACK_NS (10ULL * 1000 * 1000)
#define OUT_BUF_SIZE (1U << 20)
#define ROUND_BYTES (256U << 10)
#define PROGRESS_STEP (64ULL << 20)
#define MAX_SHARDS 65536

struct mpass {
	struct shard_pass p;
	unsigned refs;
};

struct mrun {
	struct mpass *pass;
	unsigned char *own; /* sorted copy, when the chunk was out of order */
	const unsigned char *pos, *end;
	uint64_t time;
	uint64_t seq;
};

struct mshard {
	struct shard_reader r;
	uint64_t safe;
	bool eof;
};

struct idmap {
	uint64_t id;
	uint32_t ev;
};

struct merger {
	const struct merge_opts *o;
	struct merge_stats *st;
	struct pfile hdr;
	struct pfile_idlayout layout;
	struct idmap *ids;
	size_t nr_ids;
	struct mshard *shards;
	size_t nr_shards;
	struct mshard **sheap;
	size_t nr_sheap;
	struct mrun **rheap;
	size_t nr_rheap, cap_rheap;
	uint64_t run_seq, slack;
	int dirfd, out_fd;
	unsigned char *obuf;
	size_t olen;
	uint64_t ooff, data_start, since_round, last_time;
	uint64_t unknown_ids;
	struct dso_hits *hits;
	uint64_t in_total, next_progress;
	char *err;
	size_t errlen;
};

/* ---- heaps ---- */

static bool run_less(const struct mrun *a, const struct mrun *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void rheap_sift_down(struct merger *m, size_t i)
{
	struct mrun **h = m->rheap;

	for (;;) {
		size_t l = 2 * i + 1, best = i;

		if (l < m->nr_rheap && run_less(h[l], h[best]))
			best = l;
		if (l + 1 < m->nr_rheap && run_less(h[l + 1], h[best]))
			best = l + 1;
		if (best == i)
			return;
		struct mrun *t = h[i];
		h[i] = h[best];
		h[best] = t;
		i = best;
	}
}

static int rheap_push(struct merger *m, struct mrun *r)
{
	size_t i;

	if (m->nr_rheap == m->cap_rheap) {
		size_t cap = m->cap_rheap ? 2 * m->cap_rheap : 64;
		struct mrun **n = realloc(m->rheap, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		m->rheap = n;
		m->cap_rheap = cap;
	}
	i = m->nr_rheap++;
	m->rheap[i] = r;
	while (i && run_less(m->rheap[i], m->rheap[(i - 1) / 2])) {
		struct mrun *t = m->rheap[i];

		m->rheap[i] = m->rheap[(i - 1) / 2];
		m->rheap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
	return 0;
}

static void sheap_sift_down(struct merger *m, size_t i)
{
	struct mshard **h = m->sheap;

	for (;;) {
		size_t l = 2 * i + 1, best = i;

		if (l < m->nr_sheap && h[l]->safe < h[best]->safe)
			best = l;
		if (l + 1 < m->nr_sheap && h[l + 1]->safe < h[best]->safe)
			best = l + 1;
		if (best == i)
			return;
		struct mshard *t = h[i];
		h[i] = h[best];
		h[best] = t;
		i = best;
	}
}

/* ---- output ---- */

static int out_flush(struct merger *m)
{
	size_t done = 0;

	while (done < m->olen) {
		ssize_t n = pwrite(m->out_fd, m->obuf + done, m->olen - done, m->ooff + done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = n < 0 ? -errno : -ENOSPC;

			snprintf(m->err, m->errlen, "%s: write failed: %s", m->o->output,
				 strerror(-err));
			return err;
		}
		done += n;
	}
	m->ooff += m->olen;
	m->olen = 0;
	return 0;
}

static int out_put(struct merger *m, const void *p, size_t len)
{
	int err;

	if (m->olen + len > OUT_BUF_SIZE) {
		err = out_flush(m);
		if (err)
			return err;
	}
	memcpy(m->obuf + m->olen, p, len);
	m->olen += len;
	m->since_round += len;
	return 0;
}

static int out_round(struct merger *m)
{
	struct perf_event_header h = {.type = PFILE_REC_FINISHED_ROUND, .size = sizeof(h)};

	m->st->rounds++;
	m->since_round = 0;
	return out_put(m, &h, sizeof(h));
}

/* ---- ids ---- */

static int idmap_cmp(const void *a, const void *b)
{
	const struct idmap *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int idmap_build(struct merger *m)
{
	size_t n = 0;

	for (size_t e = 0; e < m->hdr.nr_events; e++)
		n += m->hdr.events[e].nr_ids;
	m->ids = calloc(n ? n : 1, sizeof(*m->ids));
	if (!m->ids)
		return -ENOMEM;
	for (size_t e = 0; e < m->hdr.nr_events; e++)
		for (uint32_t i = 0; i < m->hdr.events[e].nr_ids; i++)
			m->ids[m->nr_ids++] = (struct idmap){m->hdr.events[e].ids[i], e};
	qsort(m->ids, m->nr_ids, sizeof(*m->ids), idmap_cmp);
	return 0;
}

static int idmap_find(const struct merger *m, uint64_t id)
{
	size_t lo = 0, hi = m->nr_ids;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->ids[mid].id == id)
			return m->ids[mid].ev;
		if (m->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* ---- emitting ---- */

struct lost_rec {
	struct perf_event_header h;
	uint64_t id, lost;
};

/*
 * Accounts for one record. Returns false for a kernel record whose id
 * matches no attr: perf aborts on those, so they are dropped and counted.
 */
static bool account(struct merger *m, const struct perf_event_header *h)
{
	struct merge_stats *st = m->st;
	uint64_t id, t, v;
	int ev;

	st->records++;
	if (h->type == PERF_RECORD_SAMPLE) {
		if (!pfile_idlayout__id(&m->layout, h, &id) || (ev = idmap_find(m, id)) < 0) {
			m->unknown_ids++;
			return false;
		}
		st->samples++;
		st->samples_per_event[ev]++;
		if (pfile_idlayout__time(&m->layout, h, &t)) {
			if (!st->first_time)
				st->first_time = t;
			st->last_time = t;
		}
	} else if (h->type == PERF_RECORD_LOST && h->size >= sizeof(struct lost_rec)) {
		memcpy(&v, (const char *)h + 16, 8);
		st->lost_records += v;
		st->lost_events++;
	} else if (h->type == PERF_RECORD_LOST_SAMPLES && h->size >= 16) {
		memcpy(&v, (const char *)h + 8, 8);
		st->lost_samples += v;
	}
	if (m->hits)
		dso_hits__feed(m->hits, h);
	return true;
}

static int emit(struct merger *m, const struct perf_event_header *h, size_t len)
{
	if (!account(m, h))
		return 0;
	return out_put(m, h, len);
}

static uint64_t rec_time(const struct merger *m, const struct perf_event_header *h, uint64_t prev)
{
	uint64_t t;

	return pfile_idlayout__time(&m->layout, h, &t) ? t : prev;
}

static void pass_put(struct mpass *p)
{
	if (--p->refs)
		return;
	shard_pass__release(&p->p);
	free(p);
}

static void run_free(struct mrun *r)
{
	pass_put(r->pass);
	free(r->own);
	free(r);
}

/* Writes the heap's best run's records while they stay first and final. */
static int emit_from_top(struct merger *m, uint64_t limit)
{
	struct mrun *r = m->rheap[0];
	int err;

	for (;;) {
		const struct perf_event_header *h = (const void *)r->pos;

		if (r->time < m->last_time)
			m->st->late++;
		else
			m->last_time = r->time;
		err = emit(m, h, h->size);
		if (err)
			return err;
		r->pos += h->size;
		if (r->pos >= r->end) {
			m->rheap[0] = m->rheap[--m->nr_rheap];
			run_free(r);
			break;
		}
		r->time = rec_time(m, (const void *)r->pos, r->time);
		if (r->time > limit)
			break;
		/* Still the smallest? Compare with both children before sifting. */
		if ((m->nr_rheap > 1 && run_less(m->rheap[1], r)) ||
		    (m->nr_rheap > 2 && run_less(m->rheap[2], r)))
			break;
	}
	if (m->nr_rheap)
		rheap_sift_down(m, 0);
	return 0;
}

/* ---- loading ---- */

struct recidx {
	uint64_t time;
	uint32_t off, size;
};

static int recidx_cmp(const void *a, const void *b)
{
	const struct recidx *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* The rare out-of-order chunk: copy its records into time order. */
static int run_sort(struct merger *m, struct mrun *r, size_t nr)
{
	struct recidx *idx = malloc(nr * sizeof(*idx));
	size_t len = r->end - r->pos, i = 0;
	uint64_t prev = 0;
	unsigned char *own;

	if (!idx)
		return -ENOMEM;
	for (const unsigned char *p = r->pos; p < r->end; i++) {
		const struct perf_event_header *h = (const void *)p;

		prev = rec_time(m, h, prev);
		idx[i] = (struct recidx){prev, p - r->pos, h->size};
		p += h->size;
	}
	qsort(idx, nr, sizeof(*idx), recidx_cmp);
	own = malloc(len);
	if (!own) {
		free(idx);
		return -ENOMEM;
	}
	for (size_t k = 0, o = 0; k < nr; o += idx[k].size, k++)
		memcpy(own + o, r->pos + idx[k].off, idx[k].size);
	free(idx);
	r->own = own;
	r->pos = own;
	r->end = own + len;
	return 0;
}

static int run_add(struct merger *m, struct mpass *mp, const unsigned char *data, size_t len)
{
	struct mrun *r = calloc(1, sizeof(*r));
	uint64_t prev = 0;
	size_t nr = 0;
	bool sorted = true;
	int err;

	if (!r)
		return -ENOMEM;
	r->pass = mp;
	mp->refs++;
	r->pos = data;
	r->end = data + len;
	r->seq = m->run_seq++;
	for (const unsigned char *p = data; p < r->end; nr++) {
		const struct perf_event_header *h = (const void *)p;
		uint64_t t = rec_time(m, h, prev);

		sorted &= t >= prev;
		prev = t;
		p += h->size;
	}
	err = sorted ? 0 : run_sort(m, r, nr);
	if (!err) {
		r->time = rec_time(m, (const void *)r->pos, 0);
		err = rheap_push(m, r);
	}
	if (err)
		run_free(r);
	return err;
}

static int pass_add_runs(struct merger *m, struct mshard *s, struct mpass *mp)
{
	const unsigned char *data;
	size_t pos = 0, len;
	uint32_t cpu;
	int ret;

	while ((ret = shard_pass__next_chunk(&mp->p, &pos, &cpu, &data, &len)) > 0) {
		if (!len)
			continue;
		ret = run_add(m, mp, data, len);
		if (ret)
			return ret;
	}
	if (ret < 0)
		snprintf(m->err, m->errlen, "%s: corrupt chunk in pass at offset %llu", s->r.name,
			 (unsigned long long)mp->p.file_off);
	return ret;
}

static void progress(struct merger *m, uint64_t done)
{
	if (m->o->progress && done >= m->next_progress) {
		m->o->progress(done, m->in_total, m->o->progress_arg);
		m->next_progress = done + PROGRESS_STEP;
	}
}

static void shard_done(struct merger *m)
{
	m->sheap[0]->eof = true;
	m->sheap[0] = m->sheap[--m->nr_sheap];
}

static int check_truncated(struct merger *m, struct mshard *s, const struct mpass *mp)
{
	if (!mp->p.truncated)
		return 0;
	m->st->truncated_shards++;
	if (m->o->recover)
		return 0;
	snprintf(m->err, m->errlen, "%s: cut at offset %llu (killed recorder?): merge with --recover",
		 s->r.name, (unsigned long long)mp->p.file_off);
	return -EBADMSG;
}

/* Loads the next pass of the heap's top shard and moves its watermark. */
static int load_next(struct merger *m)
{
	struct mshard *s = m->sheap[0];
	struct mpass *mp = calloc(1, sizeof(*mp));
	int ret;

	if (!mp)
		return -ENOMEM;
	mp->refs = 1;
	ret = shard_reader__next_pass(&s->r, &mp->p, m->err, m->errlen);
	if (ret > 0) {
		ret = check_truncated(m, s, mp);
		if (!ret)
			ret = pass_add_runs(m, s, mp);
		m->st->bytes_in += mp->p.len;
		if (s->r.size - s->r.off >= sizeof(struct shard_pass_rec))
			s->safe = mp->p.wtime > m->slack ? mp->p.wtime - m->slack : 0;
		else
			shard_done(m);
	} else if (ret == 0) {
		shard_done(m);
	}
	pass_put(mp);
	if (ret < 0)
		return ret;
	progress(m, m->st->bytes_in);
	if (m->nr_sheap)
		sheap_sift_down(m, 0);
	return 0;
}

static int merge_shards(struct merger *m)
{
	int err = 0;

	while (!err && (m->nr_rheap || m->nr_sheap)) {
		uint64_t limit = m->nr_sheap ? m->sheap[0]->safe : UINT64_MAX;

		if (m->nr_rheap && m->rheap[0]->time <= limit) {
			err = emit_from_top(m, limit);
			continue;
		}
		if (m->since_round >= ROUND_BYTES)
			err = out_round(m);
		if (!err)
			err = load_next(m);
	}
	if (!err && m->since_round)
		err = out_round(m);
	return err;
}

/* ---- setup and the rest of the file ---- */

static int shard_name_cmp(const void *a, const void *b)
{
	unsigned x = strtoul(*(char *const *)a + 6, NULL, 10);
	unsigned y = strtoul(*(char *const *)b + 6, NULL, 10);

	return x < y ? -1 : x > y;
}

/* Lists "shard.N" entries of the directory, sorted by N. */
static int list_shards(struct merger *m, char ***names, size_t *nr)
{
	DIR *d = fdopendir(dup(m->dirfd));
	struct dirent *de;
	char **v = NULL;
	size_t n = 0;
	int err = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char **nv;

		if (strncmp(de->d_name, "shard.", 6) || !de->d_name[6] ||
		    strspn(de->d_name + 6, "0123456789") != strlen(de->d_name + 6))
			continue;
		if (n >= MAX_SHARDS) {
			err = -E2BIG;
			break;
		}
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv || !(nv[n] = strdup(de->d_name))) {
			v = nv ? nv : v;
			err = -ENOMEM;
			break;
		}
		v = nv;
		n++;
	}
	closedir(d);
	if (v)
		qsort(v, n, sizeof(*v), shard_name_cmp);
	*names = v;
	*nr = n;
	return err;
}

static void free_names(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int open_shards(struct merger *m)
{
	char **names = NULL;
	size_t n = 0;
	int err = list_shards(m, &names, &n);

	if (err) {
		snprintf(m->err, m->errlen, "%s: cannot list shards: %s", m->o->dir, strerror(-err));
		goto out;
	}
	m->shards = calloc(n ? n : 1, sizeof(*m->shards));
	m->sheap = calloc(n ? n : 1, sizeof(*m->sheap));
	if (!m->shards || !m->sheap) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct mshard *s = &m->shards[i];

		err = shard_reader__open(&s->r, m->dirfd, names[i], m->err, m->errlen);
		if (err)
			goto out;
		m->nr_shards++;
		m->in_total += s->r.size;
		m->sheap[m->nr_sheap++] = s;
	}
out:
	free_names(names, n);
	return err;
}

/* Copies header.data's data section: the synthesized prologue. */
static int copy_prologue(struct merger *m)
{
	struct pfile_reader r;
	const struct perf_event_header *h;
	size_t len;
	uint64_t off;
	int ret = pfile_reader__init(&r, m->hdr.fd, m->hdr.hdr.data.offset, m->hdr.hdr.data.size, 0);

	if (ret)
		return ret;
	while ((ret = pfile_reader__next(&r, &h, &len, &off)) > 0) {
		ret = emit(m, h, len);
		if (ret)
			break;
	}
	if (ret < 0 && !m->err[0])
		snprintf(m->err, m->errlen, "header.data: corrupt record at offset %llu",
			 (unsigned long long)r.pos);
	pfile_reader__release(&r);
	return ret;
}

/* Appends tail.raw (records the session wrote after recording), if any. */
static int copy_tail(struct merger *m)
{
	int fd = openat(m->dirfd, "tail.raw", O_RDONLY | O_CLOEXEC);
	struct pfile_reader r;
	const struct perf_event_header *h;
	size_t len;
	uint64_t off;
	off_t size;
	int ret;

	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	size = lseek(fd, 0, SEEK_END);
	ret = pfile_reader__init(&r, fd, 0, size > 0 ? size : 0, 0);
	if (ret)
		goto out_close;
	while ((ret = pfile_reader__next(&r, &h, &len, &off)) > 0) {
		ret = emit(m, h, len);
		if (ret)
			break;
	}
	/* A kill can cut tail.raw: whole records are kept, the rest dropped. */
	if (ret == -EINVAL)
		ret = 0;
	pfile_reader__release(&r);
out_close:
	close(fd);
	return ret;
}

static int finish_features(struct merger *m, struct pfile_header *fh)
{
	struct pfile_featset *fs = &m->hdr.feats;
	uint64_t end;
	int err = 0;

	if (m->st->first_time)
		err = pfile_feat__sample_time(fs, m->st->first_time, m->st->last_time);
	if (!err && m->hits)
		err = dso_hits__encode(m->hits, NULL, fs, &m->st->nr_build_ids);
	if (!err)
		err = pfile__write_features(m->out_fd, m->ooff, fs, fh->features, &end);
	return err;
}

static int write_file(struct merger *m)
{
	struct pfile_header fh;
	int err;

	pfile_header__init(&fh);
	err = pfile__write_attrs(m->out_fd, PFILE_HEADER_SIZE, m->hdr.events, m->hdr.nr_events,
				 &fh.attrs, &m->data_start);
	if (err)
		return err;
	m->ooff = m->data_start;
	err = copy_prologue(m);
	if (!err)
		err = merge_shards(m);
	if (!err)
		err = copy_tail(m);
	if (!err)
		err = out_flush(m);
	if (err)
		return err;
	fh.data.offset = m->data_start;
	fh.data.size = m->ooff - m->data_start;
	m->st->bytes_out = m->ooff;
	err = finish_features(m, &fh);
	if (!err)
		err = pfile__write_header(m->out_fd, &fh);
	return err;
}

static int open_header(struct merger *m)
{
	char path[4096];
	int err;

	snprintf(path, sizeof(path), "%s/header.data", m->o->dir);
	err = pfile__open(&m->hdr, path, m->err, m->errlen);
	if (err)
		return err;
	if (!m->hdr.nr_events) {
		snprintf(m->err, m->errlen, "%s: no events", path);
		return -EINVAL;
	}
	pfile_idlayout__init(&m->layout, m->hdr.events[0].attr.sample_type,
			     m->hdr.events[0].attr.sample_id_all);
	m->st->nr_events = m->hdr.nr_events;
	m->st->samples_per_event = calloc(m->hdr.nr_events, sizeof(uint64_t));
	if (!m->st->samples_per_event)
		return -ENOMEM;
	return idmap_build(m);
}

static int open_output(struct merger *m, char *tmp, size_t len)
{
	snprintf(tmp, len, "%s.partial", m->o->output);
	/* A stale .partial is a dead merge's: ours by name, never valid data. */
	unlink(tmp);
	m->out_fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (m->out_fd < 0) {
		int err = -errno;

		snprintf(m->err, m->errlen, "%s: %s", tmp, strerror(errno));
		return err;
	}
	return 0;
}

static void merger_release(struct merger *m)
{
	while (m->nr_rheap)
		run_free(m->rheap[--m->nr_rheap]);
	free(m->rheap);
	for (size_t i = 0; i < m->nr_shards; i++)
		shard_reader__close(&m->shards[i].r);
	free(m->shards);
	free(m->sheap);
	free(m->ids);
	free(m->obuf);
	dso_hits__delete(m->hits);
	pfile__close(&m->hdr);
	if (m->dirfd >= 0)
		close(m->dirfd);
	if (m->out_fd >= 0)
		close(m->out_fd);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int merger_init(struct merger *m)
{
	int err;

	m->dirfd = open(m->o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (m->dirfd < 0) {
		err = -errno;
		snprintf(m->err, m->errlen, "%s: %s", m->o->dir, strerror(errno));
		return err;
	}
	err = open_header(m);
	if (!err)
		err = open_shards(m);
	if (err)
		return err;
	m->obuf = malloc(OUT_BUF_SIZE);
	if (!m->obuf)
		return -ENOMEM;
	if (m->o->build_ids) {
		m->hits = dso_hits__new(&m->layout);
		if (!m->hits)
			return -ENOMEM;
	}
	return 0;
}

int merge__run(const struct merge_opts *o, struct merge_stats *st, char *err, size_t errlen)
{
	struct merger m = {.o = o, .st = st, .err = err, .errlen = errlen, .dirfd = -1, .out_fd = -1};
	char tmp[4096];
	double t0 = now_s();
	int ret;

	memset(st, 0, sizeof(*st));
	m.hdr.fd = -1;
	err[0] = 0;
	m.slack = o->slack_ns ? o->slack_ns : MERGE_SLACK_NS;
	ret = merger_init(&m);
	if (!ret)
		ret = open_output(&m, tmp, sizeof(tmp));
	if (ret)
		goto out;
	ret = write_file(&m);
	if (!ret && m.unknown_ids)
		snprintf(err, errlen, "dropped %llu records whose id matches no event",
			 (unsigned long long)m.unknown_ids);
	close(m.out_fd);
	m.out_fd = -1;
	if (!ret)
		ret = merge__publish(tmp, o->output);
	if (ret) {
		if (!err[0])
			snprintf(err, errlen, "%s: %s", o->output, strerror(-ret));
		unlink(tmp);
	}
out:
	st->seconds = now_s() - t0;
	merger_release(&m);
	return ret;
}

void merge_stats__release(struct merge_stats *st)
{
	free(st->samples_per_event);
	st->samples_per_event = NULL;
}

int merge__publish(const char *tmp, const char *path)
{
	char old[4096];
	struct stat sb;

	if (!lstat(path, &sb) && S_ISREG(sb.st_mode)) {
		snprintf(old, sizeof(old), "%s.old", path);
		if (rename(path, old))
			return -errno;
	}
	if (rename(tmp, path))
		return -errno;
	return 0;
}
