// SPDX-License-Identifier: GPL-2.0
/* -z: compressed frames ordered by their first timestamp, rounds placed by perf's rule. */
#include "recorder/merge/merge_internal.h"

#include <limits.h>

/* ---- compressed frames ---- */

/*
 * Stats, build-id hits and the time span of a pass's plain records. True
 * if a sample was relabeled (merge.c, cpu_sw_relabel) in @buf: the frame
 * must then go out plain, its records as patched (so must one whose
 * side-band records merger__check_pass mended).
 */
static bool frame_scan(struct merger *m, unsigned char *buf, size_t len, struct mframe *f)
{
	bool relabeled = false;
	uint64_t t;

	f->min = UINT64_MAX;
	f->max = 0;
	for (size_t pos = 0; pos < len;) {
		struct perf_event_header *h = (void *)(buf + pos);

		m->relabel_id = 0;
		merger__account(m, h); /* an unknown id cannot be cut out of a frame: counted */
		if (m->relabel_id) {
			pfile_idlayout__set_sample_id(&m->layout, h, m->relabel_id);
			relabeled = true;
		}
		if (pfile_idlayout__time(&m->layout, h, &t)) {
			f->min = t < f->min ? t : f->min;
			f->max = t > f->max ? t : f->max;
		}
		pos += pfile__rec_len(h);
	}
	if (f->min == UINT64_MAX)
		f->min = f->max = m->emitted_max;
	return relabeled;
}

/* Plain passes (and compressed ones cut by a kill) go out as plain records. */
static int frame_plain(struct mpass *mp, const unsigned char *buf, size_t len)
{
	int err = pass_own_copy(mp, buf, len);

	if (!err)
		mp->p.compressed = false;
	return err;
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
	bool relabeled;
	int err = 0;

	if (n <= 0)
		return n;
	m->st->bytes_raw += n;
	/* A frame is copied whole: its records, and the payload around them, all checked. */
	if (mp->p.compressed && !mp->p.truncated && !*damaged &&
	    merger__check_pass(m, s, mp, mp->p.buf, mp->p.len,
			       mp->p.file_off + sizeof(struct shard_pass_rec), true, NULL, NULL,
			       m->err, m->errlen))
		return mp->dropped ? 0 : -EBADMSG;
	if (merger__check_pass(m, s, mp, m->scratch, n, UINT64_MAX, true, NULL, NULL, m->err,
			       m->errlen))
		return mp->dropped ? 0 : -EBADMSG;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	relabeled = frame_scan(m, m->scratch, n, f);
	if (f->min < m->load_min)
		m->load_min = f->min;
	/* An incomplete frame would derail the reader's one zstd stream: write it plain. */
	if (!mp->p.compressed || mp->p.truncated || *damaged || relabeled || mp->mended)
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
	int err;

	if (f->min < m->prev_round_max)
		m->st->late++;
	err = merger__round_before(m, f->min, 0);
	if (!err)
		err = auxidx_scan(m, f->pass->p.buf, f->pass->p.len);
	if (!err)
		err = merger__out_put(m, f->pass->p.buf, f->pass->p.len);
	if (f->max > m->emitted_max)
		m->emitted_max = f->max;
	pass_put(f->pass);
	free(f);
	return err;
}

static int load_next(struct merger *m);

int merge_frames(struct merger *m)
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

/* Reads the next pass of @s in place into *@mp. */
static int read_next(struct merger *m, struct mshard *s, struct mpass **mp)
{
	*mp = calloc(1, sizeof(**mp));
	if (!*mp)
		return -ENOMEM;
	(*mp)->refs = 1;
	return merger__read_pass(m, s, *mp);
}

/*
 * A pass whose oldest record is older than its shard's watermark at the
 * previous pass: its CPU published late (a descheduled vCPU, a stalled
 * CPU), and the merge may have written newer records already. The widest
 * such lag is what a merge's window must cover (merge__run merges a file
 * again with it); the rest of this merge waits that long already, which is
 * all a live pipe gets.
 */
static void note_lag(struct merger *m, struct mshard *s, uint64_t wtime)
{
	if (s->wtime && m->load_min != UINT64_MAX && m->load_min + m->slack < s->wtime) {
		uint64_t lag = s->wtime - m->load_min;

		if (lag > m->need_slack)
			m->need_slack = lag;
		if (lag + lag / 2 > m->slack)
			m->slack = lag + lag / 2;
	}
	if (wtime > s->wtime)
		s->wtime = wtime;
}

/* Loads the next pass of the heap's top shard and moves its watermark. */
static int load_next(struct merger *m)
{
	struct mshard *s = pheap__top(&m->sheap);
	const struct mchunks *chunks = NULL;
	struct mpass *mp = NULL;
	bool done = false, damaged = false, corrupt = false;
	int checked = INT_MIN;
	int ret = m->o->live ? merge_live__poll(m, s) : 1;

	if (ret == 0)
		shard_done(m);
	if (ret <= 0)
		return ret == -EAGAIN ? 0 : ret;
	ret = s->ahead ? merge_ahead__take(m, s, &mp, &chunks, &checked, &corrupt)
		       : read_next(m, s, &mp);
	if (!mp)
		return ret;
	if (ret > 0) {
		m->st->bytes_in += mp->p.len;
		m->load_min = UINT64_MAX;
		ret = check_truncated(m, s, mp);
		if (!ret && m->frames)
			ret = frame_add(m, s, mp, &damaged);
		else if (!ret)
			ret = checked != INT_MIN
				      ? pass_add_checked(m, s, mp, chunks, checked, corrupt, &damaged)
				      : pass_add_runs(m, s, mp, &damaged);
		if (damaged || mp->dropped) {
			m->st->damaged_shards += !s->damaged;
			s->damaged = true;
		}
		if (mp->dropped)
			m->st->dropped_passes++;
		if (!ret) {
			merger__hold(m, mp);
			note_lag(m, s, mp->p.wtime);
		}
		/* A live shard is done when its writer says so (merge_live__poll). */
		if (damaged)
			done = true;
		else if (m->o->live || shard_reader__more(&s->r))
			s->safe = mp->p.wtime > m->slack ? mp->p.wtime - m->slack : 0;
		else
			done = true;
	} else if (ret == 0) {
		done = true;
	} else if (ret == -EBADMSG && m->o->recover) {
		/* A corrupt PASS record: nothing after it can be framed, keep what came before. */
		m->st->damaged_shards += !s->damaged;
		s->damaged = true;
		done = true;
		ret = 0;
	}
	pass_put(mp);
	merge_ahead__done(s);
	if (ret < 0)
		return ret;
	if (m->o->live)
		merge_live__loaded(m, s);
	merger__progress(m, m->st->bytes_in);
	if (done)
		shard_done(m);
	else
		pheap__sift_down(&m->sheap, 0);
	merge_ahead__top_up(m);
	return 0;
}

int merge_shards(struct merger *m)
{
	int err = m->o->live ? 0 : merge_ahead__start(m);

	merge_ahead__top_up(m);
	while (!err && (m->nr_rheap || m->sheap.n)) {
		uint64_t limit = m->sheap.n ? ((struct mshard *)pheap__top(&m->sheap))->safe
					    : UINT64_MAX;

		err = merger__emit_until(m, limit);
		if (err || !m->sheap.n)
			continue; /* with no shard left to read, everything went out */
		/* Whole runs overlap in time: emit_whole_run places their rounds. */
		if (!m->whole_runs && m->since_round >= ROUND_BYTES)
			err = merger__out_round(m);
		if (!err)
			err = load_next(m);
	}
	merge_ahead__stop(m);
	if (!err && m->since_round)
		err = merger__out_round(m);
	return err;
}
