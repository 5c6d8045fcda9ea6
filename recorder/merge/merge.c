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
 * final.
 *
 * Into a file, a final run goes out whole (emit_whole_run), with rounds
 * where perf's FINISHED_ROUND rule allows them: the shape perf record's own
 * files have, and no heap step or copy per record when shards interleave.
 * A live pipe gets records one by one in time order (emit_top_run), which
 * satisfies the rule wherever its rounds fall.
 */
#include "recorder/merge/merge_internal.h"

#define PROGRESS_STEP (4ULL << 20) /* the callback rate-limits itself by time */
#define RUNS_MAX 64 /* runs per decompressed pass before it is sorted whole */

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
	struct mrun **n = array__grow(m->rheap, &m->cap_rheap, m->nr_rheap + 1, sizeof(*n), 64);
	size_t i;

	if (!n)
		return -ENOMEM;
	m->rheap = n;
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

bool shard_less(const void *a, const void *b)
{
	return ((const struct mshard *)a)->safe < ((const struct mshard *)b)->safe;
}

bool frame_less(const void *a, const void *b)
{
	const struct mframe *x = a, *y = b;

	return x->min < y->min || (x->min == y->min && x->seq < y->seq);
}

/* ---- output ---- */

/* A write's error, said once: a reader gone from the pipe in its own words. */
static int out_error(struct merger *m, int err)
{
	if (err == -EPIPE && m->o->pipe)
		snprintf(m->err, m->errlen, "the output pipe was closed by its reader");
	else if (err)
		snprintf(m->err, m->errlen, "%s: write failed: %s", m->o->output, strerror(-err));
	return err;
}

int merger__out_flush(struct merger *m)
{
	return out_error(m, merge_out__sync(&m->out));
}

int merger__out_put(struct merger *m, const void *p, size_t len)
{
	int err = merge_out__put(&m->out, p, len);

	m->since_round += len;
	return out_error(m, err);
}

static void pass_put_ref(void *arg)
{
	pass_put(arg);
}

int merger__out_put_pass(struct merger *m, struct mpass *mp, const void *p, size_t len)
{
	int err;

	if (len < SPAN_REF_MIN)
		return merger__out_put(m, p, len);
	mp->refs++;
	err = merge_out__put_ref(&m->out, p, len, pass_put_ref, mp);
	m->since_round += len;
	return out_error(m, err);
}

int merger__out_round(struct merger *m)
{
	struct perf_event_header h = {.type = PFILE_REC_FINISHED_ROUND, .size = sizeof(h)};
	int err;

	m->st->rounds++;
	err = merger__out_put(m, &h, sizeof(h));
	/* Bytes since the round: the round itself is not news for a reader. */
	m->since_round = 0;
	return err;
}

/*
 * Concurrent recordings of one software event or tracepoint (two `-a -e cs
 * -c 1`, say) get samples in their own rings that carry the other
 * recording's id: the kernel (seen on 6.18) prepares one sample for all the
 * events a switch or tracepoint hits, and its id is the first event's. perf
 * aborts on them ("failed to process type: 9"). In our ring, on a CPU where
 * we have one such event, the sample is that event's: relabel it. A dummy
 * (-a's tracking event) never samples: it is not one of them.
 */
static bool cpu_sw_event(const struct merger *m, uint64_t id)
{
	long ev = pfile__event_index(&m->hdr, id);
	const struct perf_event_attr *a;

	if (ev < 0)
		return false;
	a = &m->hdr.events[ev].attr;
	if (pfile_attr__is_dummy(a))
		return false;
	return a->type == PERF_TYPE_SOFTWARE || a->type == PERF_TYPE_TRACEPOINT;
}

/* Notes the CPU of each software or tracepoint id of an ID_INDEX record. 0 / -ENOMEM. */
static int cpu_sw_learn(struct merger *m, const struct perf_event_header *h)
{
	long nr = pfile_id_index__nr(h, h->size);
	struct pfile_id_index_entry e;

	for (long i = 0; i < nr; i++) {
		pfile_id_index__entry(h, i, &e);
		if (e.cpu >= 65536 || !cpu_sw_event(m, e.id))
			continue;
		if (e.cpu >= m->nr_cpu_sw_id) {
			uint64_t *n = realloc(m->cpu_sw_id, (e.cpu + 1) * sizeof(*n));

			if (!n)
				return -ENOMEM;
			memset(n + m->nr_cpu_sw_id, 0, (e.cpu + 1 - m->nr_cpu_sw_id) * sizeof(*n));
			m->cpu_sw_id = n;
			m->nr_cpu_sw_id = e.cpu + 1;
		}
		/* Another id of the same event (one per thread) is as good; another event is not. */
		if (!m->cpu_sw_id[e.cpu])
			m->cpu_sw_id[e.cpu] = e.id;
		else if (pfile__event_index(&m->hdr, m->cpu_sw_id[e.cpu]) != pfile__event_index(&m->hdr, e.id))
			m->cpu_sw_id[e.cpu] = UINT64_MAX;
	}
	return 0;
}

/* The id SAMPLE @h, whose id is no event's, gets from its CPU; 0: none. */
static uint64_t cpu_sw_relabel(const struct merger *m, const struct perf_event_header *h)
{
	uint16_t size;
	uint32_t cpu;
	uint64_t id;

	memcpy(&size, (const char *)h + offsetof(struct perf_event_header, size), sizeof(size));
	if (m->layout.sample_cpu_off < 0 || (size_t)m->layout.sample_cpu_off + 4 > size)
		return 0;
	memcpy(&cpu, (const char *)h + m->layout.sample_cpu_off, sizeof(cpu));
	id = cpu < m->nr_cpu_sw_id ? m->cpu_sw_id[cpu] : 0;
	return id == UINT64_MAX ? 0 : id;
}

/* ---- checking what is written ---- */

/* How a damaged record's message ends: what --recover does, or did, with it. */
static const char *drop_note(const struct merger *m, bool pass)
{
	if (m->o->recover)
		return pass ? "dropped its pass" : "dropped it";
	return pass ? "run with --recover to drop its pass" : "run with --recover to drop it";
}

/*
 * One record of header.data or a tail file, at @off in @name. 0: write it
 * (one whose id is no event's too: merger__account drops and counts it);
 * 1: drop it (--recover; counted, the message kept as a warning); -EBADMSG.
 */
int merger__check_file_rec(struct merger *m, const char *name, const struct perf_event_header *h,
			   size_t len, uint64_t off)
{
	const char *why;

	if (pfile_check__record(&m->chk, h, len, &why) != PFILE_CHECK_BAD)
		return 0;
	snprintf(m->err, m->errlen, "%s: damaged record at offset %llu (type %u, %s): %s", name,
		 (unsigned long long)off, h->type, why, drop_note(m, false));
	if (!m->o->recover)
		return -EBADMSG;
	m->st->dropped_records++;
	return 1;
}

/* A record's time, or @prev for one without (runs keep their order around it). */
static inline uint64_t rec_time(const struct merger *m, const struct perf_event_header *h,
				uint64_t prev)
{
	uint64_t t;

	return pfile_idlayout__time(&m->layout, h, &t) ? t : prev;
}

/*
 * The records of a pass about to be merged, @len bytes of whole records at
 * @buf: at shard offset @base, or (UINT64_MAX) decompressed or gathered
 * from its chunks. A damaged one damages the pass: 0 all fine, 1 the pass
 * is dropped (--recover, mp->dropped), -EBADMSG. In a frame (@frame), a
 * record of unknown id cannot be cut out either. *@sorted (unless NULL):
 * whether the records are in time order; *@framed (unless NULL): whether
 * every record's whole length is 8-aligned (what pfile__walk_records asks
 * beyond the checker), found on the same walk.
 */
int merger__check_pass(const struct merger *m, const struct mshard *s, struct mpass *mp,
		       unsigned char *buf, size_t len, uint64_t base, bool frame,
		       bool *sorted, bool *framed, char *err, size_t errlen)
{
	struct pfile_check_memo memo = {0};
	uint64_t prev = 0, lens = 0;
	bool in_order = true;

	for (size_t pos = 0; pos < len;) {
		struct perf_event_header h = {0};
		const char *why;
		int r;

		/* before its time is read: the kernel's over-long side-band records */
		mp->mended |= pfile_idlayout__mend_sideband(&m->layout, buf + pos, len - pos);
		r = pfile_check__record_memo(&m->chk, &memo, buf + pos, len - pos, &why);

		/*
		 * A record of no event is dropped and counted when written, or
		 * relabeled; a frame cannot drop one, so there it must relabel.
		 */
		if (r == PFILE_CHECK_OK ||
		    (r == PFILE_CHECK_UNKNOWN_ID &&
		     (!frame || cpu_sw_relabel(m, (const void *)(buf + pos))))) {
			uint64_t t = rec_time(m, (const void *)(buf + pos), prev);
			uint64_t full = pfile__rec_len((const void *)(buf + pos));

			in_order &= t >= prev;
			prev = t;
			lens |= full;
			pos += full;
			continue;
		}
		memcpy(&h, buf + pos, len - pos < sizeof(h) ? len - pos : sizeof(h));
		if (base == UINT64_MAX)
			snprintf(err, errlen,
				 "%s: damaged record in the pass at offset %llu (+%zu bytes into its "
				 "records, type %u, %s): %s",
				 s->r.name, (unsigned long long)mp->p.file_off, pos, h.type, why,
				 drop_note(m, true));
		else
			snprintf(err, errlen, "%s: damaged record at offset %llu (type %u, %s): %s",
				 s->r.name, (unsigned long long)(base + pos), h.type, why,
				 drop_note(m, true));
		if (!m->o->recover)
			return -EBADMSG;
		mp->dropped = true;
		return 1;
	}
	if (sorted)
		*sorted = in_order;
	if (framed)
		*framed = !(lens & 7);
	return 0;
}

/* ---- emitting ---- */

struct lost_rec {
	struct perf_event_header h;
	uint64_t id, lost;
};
_Static_assert(sizeof(struct lost_rec) == 24, "perf_record_lost layout");

/*
 * Accounts for one record. Returns false for a kernel record whose id
 * matches no attr: perf aborts on those, so they are dropped and counted.
 */
bool merger__account(struct merger *m, const struct perf_event_header *h)
{
	struct merge_stats *st = m->st;
	uint64_t id, t, v;
	long ev;

	st->records++;
	/* perf also rejects other kernel records with an unknown id; 0 = synthesized */
	if (h->type != PERF_RECORD_SAMPLE && pfile_idlayout__id(&m->layout, h, &id) && id &&
	    pfile__event_index(&m->hdr, id) < 0) {
		m->unknown_ids++;
		return false;
	}
	if (h->type == PERF_RECORD_SAMPLE) {
		if (!pfile_idlayout__id(&m->layout, h, &id) || (ev = pfile__event_index(&m->hdr, id)) < 0) {
			/* merger__emit writes it with relabel_id */
			m->relabel_id = cpu_sw_relabel(m, h);
			ev = m->relabel_id ? pfile__event_index(&m->hdr, m->relabel_id) : -1;
			if (ev < 0) {
				m->unknown_ids++;
				return false;
			}
			st->relabeled++;
		}
		st->samples++;
		st->samples_per_event[ev]++;
		/* Min and max: in whole-run mode the output is sorted within rounds only. */
		if (pfile_idlayout__time(&m->layout, h, &t)) {
			if (!st->first_time || t < st->first_time)
				st->first_time = t;
			if (t > st->last_time)
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

/* Notes where an AUXTRACE record lands in the output: merge_out__pos before it is put. */
static int auxidx_add(struct merger *m, const struct perf_event_header *h, uint64_t off)
{
	struct pfile_section *n =
		array__grow(m->auxidx, &m->cap_auxidx, m->nr_auxidx + 1, sizeof(*n), 256);

	if (!n)
		return -ENOMEM;
	m->auxidx = n;
	m->auxidx[m->nr_auxidx++] = (struct pfile_section){off, h->size};
	m->st->auxtrace_bytes += pfile__rec_len(h) - h->size;
	return 0;
}

/* The AUXTRACE records among the top-level records of @buf, about to be put whole. */
int auxidx_scan(struct merger *m, const unsigned char *buf, size_t len)
{
	uint64_t base = merge_out__pos(&m->out);
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

/* A SAMPLE (at most 64 KiB: put copies it into the buffer) with m->relabel_id as its id. */
static int out_put_relabeled(struct merger *m, const void *rec, size_t len)
{
	int err = merger__out_put(m, rec, len);

	if (!err)
		pfile_idlayout__set_sample_id(&m->layout, merge_out__last(&m->out, len),
					      m->relabel_id);
	return err;
}

int merger__emit(struct merger *m, const struct perf_event_header *h, size_t len)
{
	int err;

	m->relabel_id = 0;
	if (!merger__account(m, h))
		return 0;
	if (h->type == PFILE_REC_ID_INDEX && (err = cpu_sw_learn(m, h)))
		return err;
	if (h->type == PFILE_REC_AUXTRACE) {
		err = auxidx_add(m, h, merge_out__pos(&m->out));
		if (err)
			return err;
	}
	return m->relabel_id ? out_put_relabeled(m, h, len) : merger__out_put(m, h, len);
}

/*
 * Keeps the buffer of a pass done with for the next pass read: a fresh
 * malloc per pass came back as page faults, which cost the merge's main
 * thread about a third of its system time (more in a VM, where each goes
 * through the hypervisor). The last one in is the first out: the most
 * likely still in the CPU's cache. SPARE_BYTES bounds what is kept, so
 * passes of many MB (big rings) keep one or two, not sixteen.
 */
static void merger__spare_put(struct merger *m, struct shard_pass *p)
{
	if (m->nr_spare == SPARE_BUFS || !p->buf || m->spare_bytes + p->cap > SPARE_BYTES)
		return;
	m->spare[m->nr_spare].buf = p->buf;
	m->spare[m->nr_spare++].cap = p->cap;
	m->spare_bytes += p->cap;
	p->buf = NULL;
}

void *merger__spare_take(struct merger *m, size_t *cap)
{
	*cap = 0;
	if (!m->nr_spare)
		return NULL;
	*cap = m->spare[--m->nr_spare].cap;
	m->spare_bytes -= *cap;
	return m->spare[m->nr_spare].buf;
}

int merger__read_pass(struct merger *m, struct mshard *s, struct mpass *mp)
{
	size_t cap;
	void *buf = merger__spare_take(m, &cap);

	return shard_reader__next_pass_reuse(&s->r, &mp->p, buf, cap, m->err, m->errlen);
}

void merger__spare_release(struct merger *m)
{
	while (m->nr_spare)
		free(m->spare[--m->nr_spare].buf);
	m->spare_bytes = 0;
}

void pass_put(struct mpass *p)
{
	if (--p->refs)
		return;
	if (p->owner) {
		p->owner->held -= p->charged;
		merger__spare_put(p->owner, &p->p);
	}
	shard_pass__release(&p->p);
	free(p);
}

void merger__hold(struct merger *m, struct mpass *mp)
{
	mp->owner = m;
	mp->charged = mp->p.len;
	m->held += mp->charged;
	if (m->held + m->held_ahead > m->st->peak_held)
		m->st->peak_held = m->held + m->held_ahead;
}

void run_free(struct mrun *r)
{
	pass_put(r->pass);
	free(r->own);
	free(r);
}

/* The heap's second-best run, which bounds how long its best stays first; NULL if none. */
static const struct mrun *rheap_runner_up(const struct merger *m)
{
	if (m->nr_rheap < 2)
		return NULL;
	if (m->nr_rheap > 2 && run_less(m->rheap[2], m->rheap[1]))
		return m->rheap[2];
	return m->rheap[1];
}

/*
 * One record of the best run, about to go out in the span that starts at
 * @span: counted, and noted in the AUXTRACE index. A record dropped for an
 * unknown id ends the span: 1 then; 2: it goes out alone, relabeled
 * (m->relabel_id); 0 kept, -errno.
 */
static int emit_one(struct merger *m, const struct mrun *r, const unsigned char *span)
{
	const struct perf_event_header *h = (const void *)r->pos;

	/* Older than what a reader flushed at the last round; sorted output: than the last record. */
	if (m->whole_runs ? r->time < m->prev_round_max : r->time < m->last_time)
		m->st->late++;
	else
		m->last_time = r->time;
	m->relabel_id = 0;
	if (!merger__account(m, h))
		return 1;
	if (m->relabel_id)
		return 2;
	if (h->type != PFILE_REC_AUXTRACE)
		return 0;
	/* Where it lands: the output position the span starts at, plus. */
	return auxidx_add(m, h, merge_out__pos(&m->out) + (r->pos - span));
}

/*
 * The best run's record at r->pos (@len bytes) joins the span at *@span;
 * one dropped or relabeled ends the span, which is put, and the next
 * starts after it. 0 / -errno.
 */
static int emit_rec(struct merger *m, const struct mrun *r, const unsigned char **span,
		    size_t len)
{
	int err = emit_one(m, r, *span);

	if (err <= 0)
		return err;
	bool relabel = err == 2;

	err = merger__out_put(m, *span, r->pos - *span);
	if (!err && relabel)
		err = out_put_relabeled(m, r->pos, len);
	*span = r->pos + len;
	return err;
}

/*
 * Writes the heap's best run's records while they stay first and final.
 * Each is counted, but they go out as one span: a run that leads for long
 * costs one copy, and none into the buffer when the span outgrows it.
 */
static int emit_top_run(struct merger *m, uint64_t limit)
{
	struct mrun *r = m->rheap[0];
	const struct mrun *next = rheap_runner_up(m);
	const unsigned char *span = r->pos;
	bool done;
	int err;

	for (;;) {
		size_t len = pfile__rec_len((const void *)r->pos);

		err = emit_rec(m, r, &span, len);
		if (err < 0)
			return err;
		r->pos += len;
		done = r->pos >= r->end;
		if (done)
			break;
		r->time = rec_time(m, (const void *)r->pos, r->time);
		if (r->time > limit || (next && run_less(next, r)))
			break;
	}
	err = merger__out_put(m, span, r->pos - span);
	if (done) {
		m->rheap[0] = m->rheap[--m->nr_rheap];
		run_free(r);
	}
	if (m->nr_rheap)
		rheap_sift_down(m, 0);
	return err;
}

/*
 * Whole-run mode: a round goes before the best run when perf's rule allows
 * it. At each FINISHED_ROUND a reader (perf's ordered events, the
 * linux-perf-data crate's sorter) flushes what is not newer than the newest
 * record it had seen at the round before; runs leave in order of their
 * first record, so all that follows is no older than this run's start. A
 * round may go here when that start is not older than what was written
 * before the last round (round_max). Leaving a round out is always safe.
 * merge_frames places the rounds between frames with it too.
 */
int merger__round_before(struct merger *m, uint64_t start, uint64_t min_bytes)
{
	int err;

	if (start < m->round_max || m->since_round < min_bytes)
		return 0;
	/*
	 * A flight recorder's dumps: perf writes one dump as one round. Its
	 * CPUs' buffers cover one window, and a round between them satisfies
	 * perf's rule but not readers that flush by file position (hotspot's
	 * perfparser saw hundreds of samples out of order): a round only
	 * where nothing older than what was written follows.
	 */
	if (m->dumps && start < m->emitted_max)
		return 0;
	err = merger__out_round(m);
	m->prev_round_max = m->round_max;
	m->round_max = m->emitted_max;
	return err;
}

/*
 * Whole-run mode (a file; write_file sets it): the best run goes
 * out whole, its records checked and counted one by one but written as
 * spans, a long one from the pass's buffer without a copy. The output is
 * what perf record writes: time-sorted per ring and pass, rounds between
 * (records of one round in any order), where the sorted merge paid a heap
 * step and a copy per record whenever shards interleave.
 */
static int emit_whole_run(struct merger *m)
{
	struct mrun *r = m->rheap[0];
	const unsigned char *span = r->pos;
	int err = merger__round_before(m, r->time, ROUND_MIN_BYTES);

	while (!err && r->pos < r->end) {
		size_t len = pfile__rec_len((const void *)r->pos);

		r->time = rec_time(m, (const void *)r->pos, r->time);
		if (r->time > m->emitted_max)
			m->emitted_max = r->time;
		err = emit_rec(m, r, &span, len);
		r->pos += len;
	}
	if (!err)
		err = r->own ? merger__out_put(m, span, r->pos - span)
			     : merger__out_put_pass(m, r->pass, span, r->pos - span);
	m->rheap[0] = m->rheap[--m->nr_rheap];
	run_free(r);
	if (m->nr_rheap)
		rheap_sift_down(m, 0);
	return err;
}

/*
 * Writes records while the heap's best is final (not after @limit), run
 * after run: with interleaved shards each run leads for one record, and
 * one call for them all saves a call and a limit per record. In whole-run
 * mode, a run whose first record is final goes out whole.
 */
int merger__emit_until(struct merger *m, uint64_t limit)
{
	int err = 0;

	while (!err && m->nr_rheap && m->rheap[0]->time <= limit)
		err = m->whole_runs ? emit_whole_run(m) : emit_top_run(m, limit);
	return err;
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
static int run_sort(struct merger *m, struct mrun *r)
{
	size_t len = r->end - r->pos, i = 0, nr = 0;
	struct recidx *idx;
	uint64_t prev = 0;
	unsigned char *own;

	for (const unsigned char *p = r->pos; p < r->end; nr++)
		p += pfile__rec_len((const void *)p);
	idx = malloc(nr * sizeof(*idx));
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

/* A run of @len bytes at @data, @sorted in time order or not (then sorted here). */
static int run_add(struct merger *m, struct mpass *mp, const unsigned char *data, size_t len,
		   bool sorted)
{
	struct mrun *r = calloc(1, sizeof(*r));
	int err;

	if (!r)
		return -ENOMEM;
	r->pass = mp;
	mp->refs++;
	r->pos = data;
	r->end = data + len;
	r->seq = m->run_seq++;
	err = sorted ? 0 : run_sort(m, r);
	if (!err) {
		/* A run opening with an untimed AUXTRACE (AUX bytes, no ring record) sits at its pass. */
		r->time = rec_time(m, (const void *)r->pos, mp->p.wtime);
		if (r->time < m->load_min)
			m->load_min = r->time;
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
		return run_add(m, mp, buf, len, false);
	cut[nr++] = len;
	for (size_t i = 0; !err && i < nr; start = cut[i++])
		if (cut[i] > start)
			err = run_add(m, mp, buf + start, cut[i] - start, true);
	return err;
}

/*
 * Decompresses a ZPASS into m->scratch. A pass cut by a kill decompresses
 * up to its last whole COMPRESSED record: flushes end on event boundaries.
 */
long pass_decompress(struct merger *m, struct mshard *s, const struct mpass *mp,
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

int pass_own_copy(struct mpass *mp, const void *data, size_t len)
{
	unsigned char *copy = malloc(len ? len : 1);

	if (!copy)
		return -ENOMEM;
	memcpy(copy, data, len);
	free(mp->p.buf);
	mp->p.buf = copy;
	mp->p.len = len;
	mp->p.cap = len ? len : 1;
	return 0;
}

/* Record mode: a compressed pass becomes plain records owned by the pass. */
static int pass_add_decompressed(struct merger *m, struct mshard *s, struct mpass *mp,
				 bool *damaged)
{
	long n = pass_decompress(m, s, mp, damaged);
	int err;

	if (n < 0)
		return n;
	m->st->bytes_raw += n;
	if (merger__check_pass(m, s, mp, m->scratch, n, UINT64_MAX, false, NULL, NULL, m->err,
			       m->errlen))
		return mp->dropped ? 0 : -EBADMSG;
	err = pass_own_copy(mp, m->scratch, n);
	return err ? err : runs_natural(m, mp, mp->p.buf, n);
}

/* Notes a chunk's records, checked, for pass_add_runs to make runs of. 0 / -ENOMEM. */
static int chunk_keep(struct mchunks *c, const unsigned char *data, size_t len, bool sorted)
{
	struct mchunk *n;

	if (!len)
		return 0;
	n = array__grow(c->v, &c->cap, c->nr + 1, sizeof(*n), 64);
	if (!n)
		return -ENOMEM;
	c->v = n;
	c->v[c->nr++] = (struct mchunk){data, len, sorted};
	return 0;
}

int pass_check_chunks(const struct merger *m, const struct mshard *s, struct mpass *mp,
		      struct mchunks *c, bool *corrupt, char *err, size_t errlen)
{
	const unsigned char *data;
	size_t pos = 0, len;
	uint32_t cpu;
	int ret;

	c->nr = 0;
	*corrupt = false;
	/* One walk over the records, the check's (shard_pass__next_chunk's walk folded in). */
	while ((ret = shard_pass__next_chunk_unwalked(&mp->p, &pos, &cpu, &data, &len)) > 0) {
		uint64_t base = mp->p.file_off + sizeof(struct shard_pass_rec) + (data - mp->p.buf);
		bool sorted, framed;
		int st;

		/* data is in mp->p.buf, the pass's own: a mend may patch it */
		ret = merger__check_pass(m, s, mp, (unsigned char *)data, len, base, false, &sorted,
					 &framed, err, errlen);
		/* Malformed framing (the walk's verdict) makes a corrupt chunk, as before. */
		if ((ret && !mp->p.truncated && pfile__walk_records(data, len, true, &st) != len) ||
		    (!ret && !framed)) {
			mp->dropped = false;
			ret = -EBADMSG;
			break;
		}
		if (ret)
			return mp->dropped ? 1 : -EBADMSG;
		ret = chunk_keep(c, data, len, sorted);
		if (ret)
			return ret;
	}
	*corrupt = ret < 0;
	return 0;
}

int pass_add_checked(struct merger *m, struct mshard *s, struct mpass *mp,
		     const struct mchunks *c, int checked, bool corrupt, bool *damaged)
{
	int ret = checked;

	for (size_t i = 0; !ret && i < c->nr; i++) {
		m->st->bytes_raw += c->v[i].len;
		ret = run_add(m, mp, c->v[i].data, c->v[i].len, c->v[i].sorted);
	}
	if (ret)
		return ret > 0 ? 0 : ret;
	if (!corrupt)
		return 0;
	snprintf(m->err, m->errlen, "%s: corrupt chunk in pass at offset %llu%s", s->r.name,
		 (unsigned long long)mp->p.file_off,
		 m->o->recover ? ": kept the records before it" : ": merge with --recover");
	if (!m->o->recover)
		return -EBADMSG;
	*damaged = true;
	return 0;
}

int pass_add_runs(struct merger *m, struct mshard *s, struct mpass *mp, bool *damaged)
{
	bool corrupt;
	int ret;

	if (mp->p.compressed)
		return pass_add_decompressed(m, s, mp, damaged);
	/* Checked whole first: a damaged record drops the pass, not just what follows. */
	ret = pass_check_chunks(m, s, mp, &m->chunks, &corrupt, m->err, m->errlen);
	return pass_add_checked(m, s, mp, &m->chunks, ret, corrupt, damaged);
}

void merger__progress(struct merger *m, uint64_t done)
{
	if (m->o->progress && done >= m->next_progress) {
		m->o->progress(done, m->in_total, m->o->progress_arg);
		m->next_progress = done + PROGRESS_STEP;
	}
}

void shard_done(struct merger *m)
{
	struct mshard *s = pheap__pop(&m->sheap);

	s->eof = true;
}
