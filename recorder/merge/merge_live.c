// SPDX-License-Identifier: GPL-2.0
/*
 * Merging while recording (merge_opts.live, record -o -): a shard is read
 * up to what its writer has committed, whole passes only. When the shard
 * with the lowest watermark has nothing new, everything written so far is
 * final: it goes to the reader, closed by a round when the records are
 * globally sorted, before the merge waits for a writer. Memory stays what
 * the merge window holds: a pass is loaded only from the shard that is
 * furthest behind, so each shard has at most about one pass beyond the
 * common watermark in memory; what the writers add meanwhile waits on disk.
 */
#include "recorder/merge/merge_internal.h"

/* Hands the reader all that is final, then sleeps until a writer has more. */
static int live_wait(struct merger *m)
{
	int err = 0;

	/* Frames overlap in time: only merge_frames may place their rounds. */
	if (!m->frames && m->since_round)
		err = merger__out_round(m);
	if (!err)
		err = merger__out_flush(m);
	if (!err)
		err = m->o->live->wait(m->o->live->arg);
	if (err && !m->err[0])
		snprintf(m->err, m->errlen, "merging while recording: %s", strerror(-err));
	return err;
}

int merge_live__poll(struct merger *m, struct mshard *s)
{
	const struct merge_live *l = m->o->live;
	bool ended;
	uint64_t size = l->committed(l->arg, s->r.hdr.writer, &ended);
	int err;

	if (size > s->r.size)
		s->r.size = size;
	if (s->r.off < s->r.size)
		return 1;
	if (ended)
		return 0;
	err = live_wait(m);
	return err ? err : -EAGAIN;
}

void merge_live__loaded(struct merger *m, struct mshard *s)
{
	const struct merge_live *l = m->o->live;

	if (l->consumed)
		l->consumed(l->arg, s->r.hdr.writer, s->r.off);
}
