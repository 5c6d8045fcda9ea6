// SPDX-License-Identifier: GPL-2.0
/*
 * The merge's output stream. Records are gathered into OUT_BUFS buffers in
 * turn; a filled buffer, or a long span put by reference, is a job in a
 * queue a writer thread works through in order with pwrite(). The merge's
 * work per record and the kernel's copy into the page cache then run on
 * two CPUs where there are two, one after the other where there is one (or
 * no thread could be started: the writes are then made in place).
 *
 * The queue is what lets them overlap. With one write in flight, a span
 * put by reference (every whole run in a file) first waited for the buffer
 * before it to be written, and the merge and the writer took turns: on the
 * merge benchmark's shards the main thread waited 1.1-2.9 s of 3.3-5.8 s
 * merges (measured beside other jobs), 0.5-1.8 s with the queue. Now it
 * waits only when the buffer it is about to fill is still queued or the
 * queue is full.
 *
 * The writer also drives the write-behind: every WRITEBACK_STEP bytes go
 * to the disk as soon as they are written, and the step WRITEBACK_LAG steps
 * back is waited for. The disk works while the merge does (a final fsync
 * alone would run them one after the other), its queue stays deep, and the
 * dirty page cache, which a job's memory cgroup pays for, stays bounded.
 * Errors are left to the final fdatasync: the kernel keeps a writeback
 * error for it.
 */
#include "recorder/merge/merge_internal.h"
#include "recorder/perfdata/pfile_write.h"

#include <pthread.h>
#include <signal.h>

static void out_writeback(struct merge_out *o, uint64_t end)
{
	const unsigned wait = SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
			      SYNC_FILE_RANGE_WAIT_AFTER;
	const uint64_t behind = WRITEBACK_LAG * WRITEBACK_STEP;

	while (end - o->wb_off >= WRITEBACK_STEP) {
		if (o->wb_off >= behind)
			sync_file_range(o->fd, o->wb_off - behind, WRITEBACK_STEP, wait);
		sync_file_range(o->fd, o->wb_off, WRITEBACK_STEP, SYNC_FILE_RANGE_WRITE);
		o->wb_off += WRITEBACK_STEP;
	}
}

/* One write and its write-behind; in the writer thread, or in place without one. */
static int out_write(struct merge_out *o, const void *p, size_t len, uint64_t off)
{
	int err;

	if (o->stream)
		return pfile__pwrite_full(o->fd, p, len, PFILE_STREAM);
	err = pfile__pwrite_full(o->fd, p, len, off);
	if (!err)
		out_writeback(o, off + len);
	return err;
}

static void *out_thread(void *arg)
{
	struct merge_out *o = arg;

	pthread_setname_np(pthread_self(), "shardrec-merge");
	pthread_mutex_lock(&o->lock);
	for (;;) {
		while (o->written == o->queued && !o->stop)
			pthread_cond_wait(&o->cond, &o->lock);
		if (o->written == o->queued)
			break; /* stopped, and nothing is left to write */
		/* A copy: the slot is reused once the caller has reaped the job. */
		struct out_job j = o->q[o->written % OUT_QUEUE];

		pthread_mutex_unlock(&o->lock);
		int err = out_write(o, j.p, j.len, j.off);
		pthread_mutex_lock(&o->lock);
		o->err = o->err ? o->err : err;
		o->written++;
		pthread_cond_broadcast(&o->cond);
	}
	pthread_mutex_unlock(&o->lock);
	return NULL;
}

/* The releases of the jobs before @written, in order: their spans are written. */
static void out_reap(struct merge_out *o, uint64_t written)
{
	while (o->reaped < written) {
		struct out_job *j = &o->q[o->reaped++ % OUT_QUEUE];

		if (j->release)
			j->release(j->arg);
	}
}

/* Waits until the writer finished the first @n jobs; its first error, or 0. */
static int out_wait(struct merge_out *o, uint64_t n)
{
	uint64_t written;
	int err;

	if (!o->have_thread)
		return o->err;
	pthread_mutex_lock(&o->lock);
	while (o->written < n)
		pthread_cond_wait(&o->cond, &o->lock);
	written = o->written;
	err = o->err;
	pthread_mutex_unlock(&o->lock);
	out_reap(o, written);
	return err;
}

/*
 * Queues a write of @len bytes at @p at the stream's position (@release:
 * a span's, run once it is written). A full queue waits for its oldest
 * job, whose slot this one takes. The first error of any write, or 0.
 */
static int out_queue(struct merge_out *o, const void *p, size_t len, void (*release)(void *),
		     void *arg)
{
	int err = o->queued - o->reaped == OUT_QUEUE ? out_wait(o, o->reaped + 1) : 0;

	/* Not read by the writer before queued counts it (the lock orders the two). */
	o->q[o->queued % OUT_QUEUE] = (struct out_job){p, len, o->off, release, arg};
	pthread_mutex_lock(&o->lock);
	o->queued++;
	pthread_cond_broadcast(&o->cond);
	pthread_mutex_unlock(&o->lock);
	return err;
}

int merge_out__init(struct merge_out *o, int fd, uint64_t off, bool stream)
{
	sigset_t all, old;

	memset(o, 0, sizeof(*o));
	o->fd = fd;
	o->off = off;
	o->stream = stream;
	for (int i = 0; i < OUT_BUFS; i++) {
		o->buf[i] = malloc(OUT_BUF_SIZE);
		if (!o->buf[i])
			return -ENOMEM;
	}
	pthread_mutex_init(&o->lock, NULL);
	pthread_cond_init(&o->cond, NULL);
	o->have_lock = true;
	/* The caller's signals (SIGTERM in a job) stay with the caller's thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	o->have_thread = !pthread_create(&o->thread, NULL, out_thread, o);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return 0;
}

/*
 * Queues the filled buffer (or writes it in place) and takes the next,
 * once the write that last held that one is done.
 */
static int out_handoff(struct merge_out *o)
{
	int err, werr;

	if (!o->len)
		return 0;
	if (!o->have_thread) {
		err = out_write(o, o->buf[o->cur], o->len, o->off);
	} else {
		err = out_queue(o, o->buf[o->cur], o->len, NULL, NULL);
		o->buf_job[o->cur] = o->queued;
	}
	o->off += o->len;
	o->len = 0;
	o->cur = (o->cur + 1) % OUT_BUFS;
	werr = out_wait(o, o->buf_job[o->cur]);
	return err ? err : werr;
}

int merge_out__put_slow(struct merge_out *o, const void *p, size_t len)
{
	int err = out_handoff(o);

	if (err)
		return err;
	if (len > OUT_BUF_SIZE) {
		/* A whole compressed pass: written from where it is, no copy, before we return. */
		err = out_wait(o, o->queued);
		if (!err)
			err = out_write(o, p, len, o->off);
		o->off += len;
		return err;
	}
	memcpy(o->buf[o->cur] + o->len, p, len);
	o->len += len;
	return 0;
}

int merge_out__put_ref(struct merge_out *o, const void *p, size_t len, void (*release)(void *),
		       void *arg)
{
	int err = out_handoff(o), qerr;

	if (!o->have_thread) {
		if (!err)
			err = out_write(o, p, len, o->off);
		release(arg);
	} else {
		qerr = out_queue(o, p, len, release, arg);
		err = err ? err : qerr;
	}
	o->off += len;
	return err;
}

int merge_out__sync(struct merge_out *o)
{
	int err = out_handoff(o), werr = out_wait(o, o->queued);

	return err ? err : werr;
}

void merge_out__release(struct merge_out *o)
{
	if (o->have_thread) {
		pthread_mutex_lock(&o->lock);
		o->stop = true;
		pthread_cond_broadcast(&o->cond);
		pthread_mutex_unlock(&o->lock);
		pthread_join(o->thread, NULL); /* it stops once all it was given is written */
		o->have_thread = false;
	}
	out_reap(o, o->queued);
	if (o->have_lock) {
		pthread_mutex_destroy(&o->lock);
		pthread_cond_destroy(&o->cond);
		o->have_lock = false;
	}
	for (int i = 0; i < OUT_BUFS; i++) {
		free(o->buf[i]);
		o->buf[i] = NULL;
	}
}
