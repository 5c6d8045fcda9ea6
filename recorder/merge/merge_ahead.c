// SPDX-License-Identifier: GPL-2.0
/*
 * Read-ahead for the merge of plain shards. The main thread's work per pass
 * was reading it (the kernel's copy out of the page cache), walking its
 * chunks, checking every record, and then accounting and emitting them:
 * on the merge benchmark's shards, reading and checking were about half
 * of it, and the main thread the merge's bottleneck (the writer thread
 * idled). A loader thread now reads and checks the next passes of the
 * shards with the lowest watermarks (those load_next takes soonest) while
 * the main thread emits, so the two halves run on two CPUs.
 *
 * What changes hands: a shard's reader (s->r) and its mahead belong to the
 * loader from queuing to taking; the main thread touches neither in
 * between. Queuing, finishing and taking go through one lock, which orders
 * the loader's writes before the main thread's reads. The loader reads the
 * merger only where it stays fixed while shards merge (merger__check_pass).
 * A pass read ahead is the one load_next would have read: the order of
 * passes, and so the output, is unchanged.
 */
#include "recorder/merge/merge_internal.h"
#include "recorder/util/thread.h"

#include <limits.h>

struct mahead {
	struct mpass *mp;
	int ret;     /* shard_reader__next_pass_reuse's */
	int checked; /* pass_check_chunks's, INT_MIN: not checked (a compressed pass) */
	bool corrupt;
	bool done;
	struct mchunks chunks;
	char err[512];
};

struct merge_ahead {
	struct merger *m;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct mshard *q[AHEAD_PASSES]; /* queued, not started: q[head], then on */
	unsigned head, nr_queued;
	unsigned nr_out; /* queued, being read or read, not yet taken */
	uint64_t ready_bytes; /* of the passes read and not yet taken */
	bool stop;
};

/* In the loader: reads (and checks) @s's next pass into s->ahead. */
static void ahead_load(const struct merger *m, struct mshard *s)
{
	struct mahead *h = s->ahead;
	struct mpass *mp = h->mp;

	h->ret = shard_reader__next_pass_reuse(&s->r, &mp->p, mp->p.buf, mp->p.cap, h->err,
					       sizeof(h->err));
	h->checked = INT_MIN;
	if (h->ret > 0 && !mp->p.compressed)
		h->checked = pass_check_chunks(m, s, mp, &h->chunks, &h->corrupt, h->err,
					       sizeof(h->err));
}

static void *ahead_thread(void *arg)
{
	struct merge_ahead *a = arg;

	pthread_setname_np(pthread_self(), "shardrec-load");
	pthread_mutex_lock(&a->lock);
	for (;;) {
		while (!a->nr_queued && !a->stop)
			pthread_cond_wait(&a->cond, &a->lock);
		if (a->stop)
			break;
		struct mshard *s = a->q[a->head];

		a->head = (a->head + 1) % AHEAD_PASSES;
		a->nr_queued--;
		pthread_mutex_unlock(&a->lock);
		ahead_load(a->m, s);
		pthread_mutex_lock(&a->lock);
		s->ahead->done = true;
		a->ready_bytes += s->ahead->mp->p.len;
		pthread_cond_broadcast(&a->cond);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

int merge_ahead__start(struct merger *m)
{
	struct merge_ahead *a = calloc(1, sizeof(*a));
	int err;

	if (!a)
		return -ENOMEM;
	a->m = m;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->cond, NULL);
	/* The caller's signals (SIGTERM in a job) stay with the caller's thread. */
	err = thread__start_quiet(&a->thread, ahead_thread, a);
	if (err) {
		/* No thread: passes are read in place, as before. */
		pthread_mutex_destroy(&a->lock);
		pthread_cond_destroy(&a->cond);
		free(a);
		return 0;
	}
	m->ahead = a;
	return 0;
}

/* The unread shard with the lowest watermark and nothing queued, or NULL. */
static struct mshard *ahead_pick(struct merger *m)
{
	struct mshard *best = NULL;

	for (size_t i = 0; i < m->sheap.n; i++) {
		struct mshard *s = m->sheap.v[i];

		if (!s->ahead && (!best || s->safe < best->safe))
			best = s;
	}
	return best;
}

/* Queues @s's next pass, into a spare buffer when there is one. 0 / -ENOMEM. */
static int ahead_queue(struct merger *m, struct mshard *s)
{
	struct merge_ahead *a = m->ahead;
	struct mahead *h = calloc(1, sizeof(*h));

	if (!h)
		return -ENOMEM;
	h->mp = calloc(1, sizeof(*h->mp));
	if (!h->mp) {
		free(h);
		return -ENOMEM;
	}
	h->mp->refs = 1;
	h->mp->p.buf = merger__spare_take(m, &h->mp->p.cap);
	s->ahead = h;
	pthread_mutex_lock(&a->lock);
	a->q[(a->head + a->nr_queued++) % AHEAD_PASSES] = s;
	a->nr_out++;
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->lock);
	return 0;
}

void merge_ahead__top_up(struct merger *m)
{
	struct merge_ahead *a = m->ahead;
	struct mshard *s;

	/* nr_out changes only in this thread: read without the lock. */
	while (a && a->nr_out < AHEAD_PASSES && (s = ahead_pick(m)))
		if (ahead_queue(m, s))
			break; /* out of memory: that shard is read in place */
}

int merge_ahead__take(struct merger *m, struct mshard *s, struct mpass **mp,
		      const struct mchunks **c, int *checked, bool *corrupt)
{
	struct merge_ahead *a = m->ahead;
	struct mahead *h = s->ahead;

	pthread_mutex_lock(&a->lock);
	while (!h->done)
		pthread_cond_wait(&a->cond, &a->lock);
	a->nr_out--;
	a->ready_bytes -= h->mp->p.len;
	m->held_ahead = a->ready_bytes;
	pthread_mutex_unlock(&a->lock);
	*mp = h->mp;
	h->mp = NULL;
	*c = &h->chunks;
	*checked = h->checked;
	*corrupt = h->corrupt;
	if (h->ret < 0 || (h->checked != INT_MIN && h->checked != 0))
		snprintf(m->err, m->errlen, "%s", h->err);
	return h->ret;
}

static void ahead_free(struct mahead *h)
{
	if (h->mp)
		pass_put(h->mp);
	free(h->chunks.v);
	free(h);
}

void merge_ahead__done(struct mshard *s)
{
	if (!s->ahead)
		return;
	ahead_free(s->ahead);
	s->ahead = NULL;
}

void merge_ahead__stop(struct merger *m)
{
	struct merge_ahead *a = m->ahead;

	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	a->stop = true;
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->thread, NULL); /* after the pass it was reading, if any */
	for (size_t i = 0; i < m->nr_shards; i++)
		merge_ahead__done(&m->shards[i]);
	pthread_mutex_destroy(&a->lock);
	pthread_cond_destroy(&a->cond);
	free(a);
	m->ahead = NULL;
}
