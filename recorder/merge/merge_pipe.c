// SPDX-License-Identifier: GPL-2.0
/*
 * Output in perf's pipe format (merge_opts.pipe): what perf 6.1's
 * `perf record -o -` writes, in its order (perfdata/pfile_pipe.h): the
 * pipe header, HEADER_ATTR per event, HEADER_FEATURE per feature perf
 * synthesizes and the end mark, HEADER_TRACING_DATA with tracepoints; then
 * header.data's records with the EVENT_UPDATE records perf adds for a pipe
 * after the kernel's maps; then the shards, merged as for a file, and
 * tail.raw. Nothing is written back: no sections, no BUILD_ID (perf's pipe
 * mode has none; `perf inject -b` adds them).
 */
#include "recorder/merge/merge_internal.h"
#include "recorder/perfdata/pfile_pipe.h"
#include "recorder/perfdata/pfile_feat.h"

/* The features a pipe carries: header.data's, as perf's pipe mode sends them. */
static int pipe_features(struct merger *m, struct pfile_featset *fs)
{
	int err = 0;

	/* Written before any sample: perf's pipe says 0 and 0 too. */
	if (!pfile_featset__has(fs, PFILE_FEAT_SAMPLE_TIME))
		err = pfile_feat__sample_time(fs, 0, 0);
	/* Frames copied as they are need it; plain records must not claim it. */
	if (!m->frames)
		pfile_featset__unset(fs, PFILE_FEAT_COMPRESSED);
	/*
	 * A kept run's incompleteness is known now, a live one's only at its
	 * end (its run id is checked then). The run id is no feature perf
	 * synthesizes: it never reaches the pipe.
	 */
	if (!err && !m->o->live)
		err = merge_run__features(m, fs);
	return err;
}

/* The HEADER_ATTRs; an event with more ids than a record holds is named. */
static int pipe_attrs(struct merger *m, struct recbuf *b)
{
	for (size_t e = 0; e < m->hdr.nr_events; e++) {
		const struct pfile_event *ev = &m->hdr.events[e];
		int err = pfile_pipe__attr(b, ev);

		if (err == -E2BIG)
			snprintf(m->err, m->errlen,
				 "%s: event %s has %u ids, more than a pipe's HEADER_ATTR record "
				 "holds (perf's limit too): record fewer CPUs or threads",
				 m->o->output, ev->name ? ev->name : "?", ev->nr_ids);
		if (err)
			return err;
	}
	return 0;
}

/* Pipe header, HEADER_ATTRs, HEADER_FEATUREs, HEADER_TRACING_DATA. */
static int pipe_head(struct merger *m)
{
	struct pfile_featset *fs = &m->hdr.feats;
	struct recbuf b = {0};
	int err;

	err = pipe_features(m, fs);
	if (!err)
		err = pfile_pipe__header(&b);
	if (!err)
		err = pipe_attrs(m, &b);
	if (!err)
		err = pfile_pipe__features(&b, fs, &m->pipe_skipped_feat);
	if (!err && pfile_featset__has(fs, PFILE_FEAT_TRACING_DATA))
		err = pfile_pipe__tracing_data(&b, fs->sec[PFILE_FEAT_TRACING_DATA].data,
					       fs->sec[PFILE_FEAT_TRACING_DATA].size);
	if (!err)
		err = merger__out_put(m, b.data, b.len);
	m->since_round = 0;
	recbuf__release(&b);
	return err;
}

/* perf gives the clock events a unit and a scale (evsel__new_idx: msec, 1e-6). */
static bool is_clock(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK);
}

/* perf_event__synthesize_extra_attr() for a pipe: unit, scale, then name, per event. */
static int event_updates(struct merger *m)
{
	struct recbuf b = {0};
	int err = 0;

	for (size_t e = 0; !err && e < m->hdr.nr_events; e++) {
		const struct pfile_event *ev = &m->hdr.events[e];

		if (!ev->nr_ids)
			continue;
		if (is_clock(&ev->attr))
			err = pfile_pipe__event_update(&b, PFILE_EVENT_UPDATE_UNIT, ev->ids[0],
						       "msec", 0);
		if (!err && is_clock(&ev->attr))
			err = pfile_pipe__event_update(&b, PFILE_EVENT_UPDATE_SCALE, ev->ids[0],
						       NULL, 1e-6);
		if (!err && ev->name)
			err = pfile_pipe__event_update(&b, PFILE_EVENT_UPDATE_NAME, ev->ids[0],
						       ev->name, 0);
	}
	if (!err)
		err = merger__out_put(m, b.data, b.len);
	recbuf__release(&b);
	return err;
}

/* Records perf synthesizes before the EVENT_UPDATEs: time, ids, AUX info, kernel maps. */
static bool before_updates(const struct perf_event_header *h)
{
	switch (h->type) {
	case PFILE_REC_TIME_CONV:
	case PFILE_REC_ID_INDEX:
	case PFILE_REC_AUXTRACE_INFO:
		return true;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
	default:
		return false;
	}
}

/* The prologue hook: EVENT_UPDATEs go before the first record that follows them in perf. */
static int prologue_hook(struct merger *m, const struct perf_event_header *h)
{
	if (m->updates_done || (h && before_updates(h)))
		return 0;
	m->updates_done = true;
	return event_updates(m);
}

/*
 * A live recording: tail.raw exists once the recorder says it is over.
 * A live one has no tail.synth: --overwrite and --tail-synthesize stream
 * at the end, not live (session.c, session__start_pipe).
 */
static int live_tails(struct merger *m)
{
	const struct merge_live *l = m->o->live;
	int err = 0;

	while (!err && !l->finished(l->arg))
		err = l->wait(l->arg);
	if (err) {
		snprintf(m->err, m->errlen, "merging while recording: %s", strerror(-err));
		return err;
	}
	return merge_run__check(m);
}

int merge_pipe__write(struct merger *m)
{
	int err = merge_out__init(&m->out, m->o->pipe_fd, 0, true);

	if (!err)
		err = pipe_head(m);

	m->prologue_hook = prologue_hook;
	if (!err)
		err = merger__copy_prologue(m);
	if (!err && !m->o->live)
		err = merger__copy_tail(m, &m->tail_synth, "tail.synth");
	if (!err)
		err = m->frames ? merge_frames(m) : merge_shards(m);
	if (!err && m->o->live)
		err = live_tails(m);
	if (!err)
		err = merger__copy_tail(m, &m->tail_raw, "tail.raw");
	if (!err)
		err = merger__out_flush(m);
	m->st->bytes_out = merge_out__pos(&m->out);
	/* perf 6.1 would send it cut short; said as a note on success. */
	if (!err && m->pipe_skipped_feat >= 0)
		snprintf(m->err, m->errlen,
			 "feature section %d is too large for a pipe's "
			 "HEADER_FEATURE record: left out of the stream",
			 m->pipe_skipped_feat);
	return err;
}
