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
#include "recorder/merge/merge.h"
#include "recorder/util/clock.h"
#include "recorder/perfdata/pfile.h"
#include "recorder/perfdata/pheap.h"
#include "recorder/perfdata/shard.h"

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
#define RUNS_MAX 64 /* runs per decompressed pass before it is sorted whole */

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

/* A compressed pass kept whole: its frame is copied as is. */
struct mframe {
	struct mpass *pass;
	uint64_t min, max, seq;
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
	struct pheap sheap; /* shards with unread passes, by watermark */
	struct mrun **rheap;
	size_t nr_rheap, cap_rheap;
	struct pheap fheap; /* compressed frames, by first timestamp */
	bool frames;           /* compressed shards merged frame by frame */
	uint64_t round_max, prev_round_max, emitted_max;
	void *dec; /* o->dec's decoder, NULL without one */
	unsigned char *scratch; /* decompressed pass */
	size_t scratch_cap;
	uint64_t run_seq, slack;
	int dirfd, out_fd;
	unsigned char *obuf;
	size_t olen;
	uint64_t ooff, data_start, since_round, last_time;
	uint64_t unknown_ids;
	struct pfile_section *auxidx; /* HEADER_AUXTRACE: {file offset, header.size} per AUXTRACE */
	size_t nr_auxidx, cap_auxidx;
	void *hits; /* o->hits's tracker, NULL without build ids */
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

static bool shard_less(const void *a, const void *b)
{
	return ((const struct mshard *)a)->safe < ((const struct mshard *)b)->safe;
}

static bool frame_less(const void *a, const void *b)
{
	const struct mframe *x = a, *y = b;

	return x->min < y->min || (x->min == y->min && x->seq < y->seq);
}

/* ---- output ---- */

/* Writes @len bytes at the output position, bypassing the (empty) buffer. */
static int out_direct(struct merger *m, const void *p, size_t len)
{
	int err = pfile__pwrite_full(m->out_fd, p, len, m->ooff);

	if (err) {
		snprintf(m->err, m->errlen, "%s: write failed: %s", m->o->output, strerror(-err));
		return err;
	}
	m->ooff += len;
	return 0;
}

static int out_flush(struct merger *m)
{
	int err = out_direct(m, m->obuf, m->olen);

	if (!err)
		m->olen = 0;
	return err;
}

static int out_put(struct merger *m, const void *p, size_t len)
{
	int err;

	if (m->olen + len > OUT_BUF_SIZE) {
		err = out_flush(m);
		if (err)
			return err;
	}
	m->since_round += len;
	if (len > OUT_BUF_SIZE)
		return out_direct(m, p, len); /* a whole compressed pass: no copy */
	memcpy(m->obuf + m->olen, p, len);
	m->olen += len;
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
	/* perf also rejects other kernel records with an unknown id; 0 = synthesized */
	if (h->type != PERF_RECORD_SAMPLE && pfile_idlayout__id(&m->layout, h, &id) && id &&
	    idmap_find(m, id) < 0) {
		m->unknown_ids++;
		return false;
	}
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
	} else if (h->type == PERF_RECORD_AUX && h->size >= 32) {
		/* { aux_offset, aux_size, flags }: a flagged record is a hole in the trace */
		memcpy(&v, (const char *)h + 24, 8);
		st->aux_records++;
		st->aux_truncated += !!(v & PERF_AUX_FLAG_TRUNCATED);
		st->aux_overwrite += !!(v & PERF_AUX_FLAG_OVERWRITE);
		st->aux_partial += !!(v & PERF_AUX_FLAG_PARTIAL);
		st->aux_collision += !!(v & PERF_AUX_FLAG_COLLISION);
	} else if (h->type == PFILE_REC_AUXTRACE) {
		st->auxtrace_records++;
	}
	if (m->hits)
		m->o->hits->feed(m->hits, h);
	return true;
}

/* Notes where an AUXTRACE record lands in the output: m->ooff + m->olen before it is put. */
static int auxidx_add(struct merger *m, const struct perf_event_header *h, uint64_t off)
{
	if (m->nr_auxidx == m->cap_auxidx) {
		size_t cap = m->cap_auxidx ? 2 * m->cap_auxidx : 256;
		struct pfile_section *n = realloc(m->auxidx, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		m->auxidx = n;
		m->cap_auxidx = cap;
	}
	m->auxidx[m->nr_auxidx++] = (struct pfile_section){off, h->size};
	m->st->auxtrace_bytes += pfile__rec_len(h) - h->size;
	return 0;
}

/* The AUXTRACE records among the top-level records of @buf, about to be put whole. */
static int auxidx_scan(struct merger *m, const unsigned char *buf, size_t len)
{
	uint64_t base = m->ooff + m->olen;
	int err = 0;

	for (size_t pos = 0; !err && pos < len;) {
		/* A copy: COMPRESSED records leave the next ones unaligned. */
		uint64_t hb[2] = {0};
		const struct perf_event_header *h = (const void *)hb;

		memcpy(hb, buf + pos, len - pos < sizeof(hb) ? len - pos : sizeof(hb));
		if (h->type == PFILE_REC_AUXTRACE)
			err = auxidx_add(m, h, base + pos);
		pos += pfile__rec_len(h);
	}
	return err;
}

static int emit(struct merger *m, const struct perf_event_header *h, size_t len)
{
	int err;

	if (!account(m, h))
		return 0;
	if (h->type == PFILE_REC_AUXTRACE) {
		err = auxidx_add(m, h, m->ooff + m->olen);
		if (err)
			return err;
	}
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
		err = emit(m, h, pfile__rec_len(h));
		if (err)
			return err;
		r->pos += pfile__rec_len(h);
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
		idx[i] = (struct recidx){prev, p - r->pos, pfile__rec_len(h)};
		p += pfile__rec_len(h);
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
		p += pfile__rec_len(h);
	}
	err = sorted ? 0 : run_sort(m, r, nr);
	if (!err) {
		/* A run opening with an untimed AUXTRACE (AUX bytes, no ring record) sits at its pass. */
		r->time = rec_time(m, (const void *)r->pos, mp->p.wtime);
		err = rheap_push(m, r);
	}
	if (err)
		run_free(r);
	return err;
}

/*
 * Splits plain records into maximal time-ordered runs (one per ring,
 * mostly). A pass of backward (--overwrite) rings is newest first: every
 * record would be a run of its own, so a pass with RUNS_MAX places where
 * time goes backwards is sorted as one run.
 */
static int runs_natural(struct merger *m, struct mpass *mp, const unsigned char *buf, size_t len)
{
	size_t cut[RUNS_MAX + 1], nr = 0, start = 0;
	uint64_t prev = 0;
	int err = 0;

	for (size_t off = 0; off < len && nr < RUNS_MAX;) {
		const struct perf_event_header *h = (const void *)(buf + off);
		uint64_t t = rec_time(m, h, prev);

		if (t < prev)
			cut[nr++] = off;
		prev = t;
		off += pfile__rec_len(h);
	}
	if (nr == RUNS_MAX)
		return run_add(m, mp, buf, len);
	cut[nr++] = len;
	for (size_t i = 0; !err && i < nr; start = cut[i++])
		if (cut[i] > start)
			err = run_add(m, mp, buf + start, cut[i] - start);
	return err;
}

/*
 * Decompresses a ZPASS into m->scratch. A pass cut by a kill decompresses
 * up to its last whole COMPRESSED record: flushes end on event boundaries.
 */
static long pass_decompress(struct merger *m, struct mshard *s, const struct mpass *mp,
			    bool *damaged)
{
	int st;
	size_t len = mp->p.truncated ? pfile__walk_records(mp->p.buf, mp->p.len, false, &st)
				     : mp->p.len;
	size_t bad = 0, got, cap;
	long n;

	if (!m->dec) {
		snprintf(m->err, m->errlen, "%s: compressed shard, and no decoder to read it",
			 s->r.name);
		return -ENOTSUP;
	}
	cap = m->o->dec->pass_bound(mp->p.buf, len);

	/*
	 * Sized from the payload: a corrupt PASS record may state up to 4 GiB.
	 * A pass stating more than its payload can yield fails the check below.
	 * Never NULL, even for an empty pass, so it can be memcpy'd.
	 */
	cap = mp->p.raw < cap ? mp->p.raw : cap;
	if (cap > m->scratch_cap || !m->scratch) {
		unsigned char *b = realloc(m->scratch, cap ? cap : 1);

		if (!b)
			return -ENOMEM;
		m->scratch = b;
		m->scratch_cap = cap;
	}
	n = m->o->dec->pass_run(m->dec, mp->p.buf, len, m->scratch, cap, &bad, &got);
	if (n >= 0 && (mp->p.truncated || (uint64_t)n == mp->p.raw) &&
	    pfile__walk_records(m->scratch, n, true, &st) == (size_t)n && st == 0)
		return n;
	snprintf(m->err, m->errlen, "%s: corrupt compressed pass at offset %llu (+%zu)%s",
		 s->r.name, (unsigned long long)mp->p.file_off, bad,
		 m->o->recover ? ": kept the passes before it" : ": merge with --recover");
	if (!m->o->recover)
		return -EBADMSG;
	/* Nothing a damaged frame decoded can be trusted: the pass is dropped whole. */
	*damaged = true;
	return 0;
}

/* Record mode: a compressed pass becomes plain records owned by the pass. */
static int pass_add_decompressed(struct merger *m, struct mshard *s, struct mpass *mp,
				 bool *damaged)
{
	long n = pass_decompress(m, s, mp, damaged);
	unsigned char *copy;

	if (n < 0)
		return n;
	m->st->bytes_raw += n;
	copy = malloc(n ? n : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, m->scratch, n);
	free(mp->p.buf);
	mp->p.buf = copy;
	mp->p.len = n;
	return runs_natural(m, mp, copy, n);
}

static int pass_add_runs(struct merger *m, struct mshard *s, struct mpass *mp, bool *damaged)
{
	const unsigned char *data;
	size_t pos = 0, len;
	uint32_t cpu;
	int ret;

	if (mp->p.compressed)
		return pass_add_decompressed(m, s, mp, damaged);
	while ((ret = shard_pass__next_chunk(&mp->p, &pos, &cpu, &data, &len)) > 0) {
		m->st->bytes_raw += len;
		if (!len)
			continue;
		ret = run_add(m, mp, data, len);
		if (ret)
			return ret;
	}
	if (ret < 0) {
		snprintf(m->err, m->errlen, "%s: corrupt chunk in pass at offset %llu%s", s->r.name,
			 (unsigned long long)mp->p.file_off,
			 m->o->recover ? ": kept the records before it" : ": merge with --recover");
		if (m->o->recover) {
			*damaged = true;
			ret = 0;
		}
	}
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
	struct mshard *s = pheap__pop(&m->sheap);

	s->eof = true;
}

/* ---- compressed frames ---- */

/* Stats, build-id hits and the time span of a pass's plain records. */
static void frame_scan(struct merger *m, const unsigned char *buf, size_t len, struct mframe *f)
{
	uint64_t t;

	f->min = UINT64_MAX;
	f->max = 0;
	for (size_t pos = 0; pos < len;) {
		const struct perf_event_header *h = (const void *)(buf + pos);

		account(m, h); /* an unknown id cannot be cut out of a frame: counted */
		if (pfile_idlayout__time(&m->layout, h, &t)) {
			f->min = t < f->min ? t : f->min;
			f->max = t > f->max ? t : f->max;
		}
		pos += pfile__rec_len(h);
	}
	if (f->min == UINT64_MAX)
		f->min = f->max = m->emitted_max;
}

/* Plain passes (and compressed ones cut by a kill) go out as plain records. */
static int frame_plain(struct mpass *mp, const unsigned char *buf, size_t len)
{
	unsigned char *copy = malloc(len);

	if (!copy)
		return -ENOMEM;
	memcpy(copy, buf, len);
	free(mp->p.buf);
	mp->p.buf = copy;
	mp->p.len = len;
	mp->p.compressed = false;
	return 0;
}

static long frame_gather(struct merger *m, struct mpass *mp)
{
	const unsigned char *data;
	size_t pos = 0, len, n = 0;
	uint32_t cpu;
	int ret;

	if (mp->p.len > m->scratch_cap) {
		unsigned char *b = realloc(m->scratch, mp->p.len);

		if (!b)
			return -ENOMEM;
		m->scratch = b;
		m->scratch_cap = mp->p.len;
	}
	while ((ret = shard_pass__next_chunk(&mp->p, &pos, &cpu, &data, &len)) > 0) {
		memcpy(m->scratch + n, data, len);
		n += len;
	}
	return ret < 0 ? ret : (long)n;
}

static int frame_add(struct merger *m, struct mshard *s, struct mpass *mp, bool *damaged)
{
	struct mframe *f;
	long n = mp->p.compressed ? pass_decompress(m, s, mp, damaged) : frame_gather(m, mp);
	int err = 0;

	if (n <= 0)
		return n;
	m->st->bytes_raw += n;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	frame_scan(m, m->scratch, n, f);
	/* An incomplete frame would derail the reader's one zstd stream: write it plain. */
	if (!mp->p.compressed || mp->p.truncated || *damaged)
		err = frame_plain(mp, m->scratch, n);
	f->pass = mp;
	f->seq = m->run_seq++;
	mp->refs++;
	if (!err)
		err = pheap__push(&m->fheap, f);
	if (err) {
		pass_put(mp);
		free(f);
	}
	return err;
}

/*
 * Writes the earliest frame. perf flushes, at each FINISHED_ROUND, what is
 * not newer than the largest timestamp seen before the previous round, so a
 * round goes before this frame only when the frame starts no earlier than
 * what was already written at the last round.
 */
static int emit_frame(struct merger *m)
{
	struct mframe *f = pheap__pop(&m->fheap);
	int err = 0;

	if (f->min < m->prev_round_max)
		m->st->late++;
	if (f->min >= m->round_max) {
		err = out_round(m);
		m->prev_round_max = m->round_max;
		m->round_max = m->emitted_max;
	}
	if (!err)
		err = auxidx_scan(m, f->pass->p.buf, f->pass->p.len);
	if (!err)
		err = out_put(m, f->pass->p.buf, f->pass->p.len);
	if (f->max > m->emitted_max)
		m->emitted_max = f->max;
	pass_put(f->pass);
	free(f);
	return err;
}

static int load_next(struct merger *m);

static int merge_frames(struct merger *m)
{
	int err = 0;

	while (!err && (m->fheap.n || m->sheap.n)) {
		struct mframe *f = pheap__top(&m->fheap);
		uint64_t limit = m->sheap.n ? ((struct mshard *)pheap__top(&m->sheap))->safe
					    : UINT64_MAX;

		if (f && f->min <= limit)
			err = emit_frame(m);
		else
			err = load_next(m);
	}
	return err;
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
	struct mshard *s = pheap__top(&m->sheap);
	struct mpass *mp = calloc(1, sizeof(*mp));
	bool done = false, damaged = false;
	int ret;

	if (!mp)
		return -ENOMEM;
	mp->refs = 1;
	ret = shard_reader__next_pass(&s->r, &mp->p, m->err, m->errlen);
	if (ret > 0) {
		m->st->bytes_in += mp->p.len;
		ret = check_truncated(m, s, mp);
		if (!ret)
			ret = m->frames ? frame_add(m, s, mp, &damaged)
					: pass_add_runs(m, s, mp, &damaged);
		if (damaged) {
			m->st->damaged_shards++;
			done = true;
		} else if (s->r.size - s->r.off >= sizeof(struct shard_pass_rec))
			s->safe = mp->p.wtime > m->slack ? mp->p.wtime - m->slack : 0;
		else
			done = true;
	} else if (ret == 0) {
		done = true;
	} else if (ret == -EBADMSG && m->o->recover) {
		/* A corrupt PASS record: nothing after it can be framed, keep what came before. */
		m->st->damaged_shards++;
		done = true;
		ret = 0;
	}
	pass_put(mp);
	if (ret < 0)
		return ret;
	progress(m, m->st->bytes_in);
	if (done)
		shard_done(m);
	else
		pheap__sift_down(&m->sheap, 0);
	return 0;
}

static int merge_shards(struct merger *m)
{
	int err = 0;

	while (!err && (m->nr_rheap || m->sheap.n)) {
		uint64_t limit = m->sheap.n ? ((struct mshard *)pheap__top(&m->sheap))->safe
					    : UINT64_MAX;

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
	m->sheap.less = shard_less;
	m->fheap.less = frame_less;
	if (!m->shards) {
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
		m->frames |= (s->r.hdr.flags & SHARD_F_ZSTD) && !m->o->decompress;
		err = pheap__push(&m->sheap, s);
		if (err)
			goto out;
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

/*
 * Copies the records of @name, if it exists: tail.raw (lost counts the
 * session wrote after recording, appended) or tail.synth (--overwrite's
 * task records written at the end, placed after the prologue).
 */
static int copy_file(struct merger *m, const char *name)
{
	int fd = openat(m->dirfd, name, O_RDONLY | O_CLOEXEC);
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
	/* A kill can cut the file: whole records are kept, the rest dropped. */
	if (ret == -EINVAL)
		ret = 0;
	pfile_reader__release(&r);
out_close:
	close(fd);
	return ret;
}

/*
 * HEADER_COMPRESSED: kept, with the achieved ratio, when frames were copied;
 * dropped when the output holds plain records only.
 */
static int finish_compressed(struct merger *m, struct pfile_featset *fs)
{
	uint32_t v[5] = {0, 1, 1, 0, 0}; /* version, type, level, ratio, mmap_len */
	uint64_t zbytes = m->st->bytes_in;

	if (!m->frames) {
		pfile_featset__unset(fs, PFILE_FEAT_COMPRESSED);
		return 0;
	}
	m->st->compressed = true;
	/* The level is the recording's: session wrote it into header.data. */
	if (fs->sec[PFILE_FEAT_COMPRESSED].size >= sizeof(v))
		memcpy(v, fs->sec[PFILE_FEAT_COMPRESSED].data, sizeof(v));
	return pfile_feat__compressed(fs, v[2], zbytes ? m->st->bytes_raw / zbytes : 0,
				      ZPASS_MMAP_LEN);
}

/*
 * HEADER_AUXTRACE as perf's auxtrace_index__write: u64 count, then {file
 * offset, header.size} per AUXTRACE record, pointing into this output.
 * Whatever header.data said is stale: shards moved every record.
 */
static int finish_auxtrace(struct merger *m, struct pfile_featset *fs)
{
	uint64_t nr = m->nr_auxidx;
	size_t len = sizeof(nr) + nr * sizeof(*m->auxidx);
	unsigned char *buf;
	int err;

	pfile_featset__unset(fs, PFILE_FEAT_AUXTRACE);
	if (!nr)
		return 0;
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, &nr, sizeof(nr));
	memcpy(buf + sizeof(nr), m->auxidx, nr * sizeof(*m->auxidx));
	err = pfile_featset__set(fs, PFILE_FEAT_AUXTRACE, buf, len);
	free(buf);
	return err;
}

static int finish_features(struct merger *m, struct pfile_header *fh)
{
	struct pfile_featset *fs = &m->hdr.feats;
	uint64_t end;
	int err = 0;

	if (m->st->first_time)
		err = pfile_feat__sample_time(fs, m->st->first_time, m->st->last_time);
	if (!err)
		err = finish_compressed(m, fs);
	if (!err)
		err = finish_auxtrace(m, fs);
	if (!err && m->hits)
		err = m->o->hits->encode(m->hits, fs, &m->st->nr_build_ids);
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
		err = copy_file(m, "tail.synth");
	if (!err)
		err = m->frames ? merge_frames(m) : merge_shards(m);
	if (!err)
		err = copy_file(m, "tail.raw");
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
	/*
	 * The session completes header.data before any writer starts, and a
	 * finished run removes it first: either way no shard can be merged.
	 */
	if (err == -ENOENT || err == -EINVAL) {
		size_t n = strlen(m->err);

		snprintf(m->err + n, m->errlen - n, " (%s; nothing to merge)",
			 err == -ENOENT ? "the recorder stopped before recording began, or a "
					  "finished run already removed the directory"
					: "incomplete or damaged: a recorder killed this early had "
					  "recorded nothing yet");
	}
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
	pheap__release(&m->sheap);
	while (m->fheap.n) {
		struct mframe *f = pheap__pop(&m->fheap);

		pass_put(f->pass);
		free(f);
	}
	pheap__release(&m->fheap);
	if (m->dec)
		m->o->dec->delete(m->dec);
	free(m->scratch);
	free(m->auxidx);
	free(m->ids);
	free(m->obuf);
	if (m->hits)
		m->o->hits->delete(m->hits);
	pfile__close(&m->hdr);
	if (m->dirfd >= 0)
		close(m->dirfd);
	if (m->out_fd >= 0)
		close(m->out_fd);
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
	if (m->o->dec) {
		m->dec = m->o->dec->new();
		if (!m->dec)
			return -ENOMEM;
	}
	if (m->o->build_ids && m->o->hits) {
		m->hits = m->o->hits->new(&m->layout);
		if (!m->hits)
			return -ENOMEM;
	}
	return 0;
}

int merge__run(const struct merge_opts *o, struct merge_stats *st, char *err, size_t errlen)
{
	struct merger m = {.o = o, .st = st, .err = err, .errlen = errlen, .dirfd = -1, .out_fd = -1};
	char tmp[4096];
	double t0 = clock__now_s();
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
	/* Complete or absent: on disk before it takes the output's name. */
	if (!ret && fsync(m.out_fd))
		ret = -errno;
	if (close(m.out_fd) && !ret)
		ret = -errno;
	m.out_fd = -1;
	if (!ret)
		ret = merge__publish(tmp, o->output);
	/* A note on success only: a failure's message must win. */
	if (!ret && m.unknown_ids)
		snprintf(err, errlen,
			 "dropped %llu records whose sample id belongs to no event of this "
			 "recording (perf would abort on them)",
			 (unsigned long long)m.unknown_ids);
	if (ret) {
		if (!err[0])
			snprintf(err, errlen, "%s: %s", o->output, strerror(-ret));
		unlink(tmp);
	}
out:
	st->seconds = clock__now_s() - t0;
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
