// SPDX-License-Identifier: GPL-2.0
/*
 * The merge's output stream. Records are gathered into one of two buffers
 * while a writer thread pwrite()s the other: the merge's work per record
 * and the kernel's copy into the page cache then run on two CPUs where
 * there are two, one after the other where there is one (or no thread
 * could be started: the writes are then made in place).
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
		while (!o->job && !o->stop)
			pthread_cond_wait(&o->cond, &o->lock);
		if (!o->job)
			break;
		pthread_mutex_unlock(&o->lock);
		int err = out_write(o, o->job, o->job_len, o->job_off);
		pthread_mutex_lock(&o->lock);
		o->err = o->err ? o->err : err;
		o->job = NULL;
		pthread_cond_broadcast(&o->cond);
	}
	pthread_mutex_unlock(&o->lock);
	return NULL;
}

/* A merge_out__put_ref span is written: its owner may let it go. */
static void out_ref_done(struct merge_out *o)
{
	void (*release)(void *) = o->ref_release;

	o->ref_release = NULL;
	if (release)
		release(o->ref_arg);
}

/* Waits until the writer holds no buffer; its first error, or 0. */
static int out_idle(struct merge_out *o)
{
	int err;

	if (!o->have_thread)
		return o->err;
	pthread_mutex_lock(&o->lock);
	while (o->job)
		pthread_cond_wait(&o->cond, &o->lock);
	err = o->err;
	pthread_mutex_unlock(&o->lock);
	out_ref_done(o);
	return err;
}

/* Gives @len bytes at @p to the idle writer, at the stream's position. */
static void out_submit(struct merge_out *o, const void *p, size_t len)
{
	pthread_mutex_lock(&o->lock);
	o->job = p;
	o->job_len = len;
	o->job_off = o->off;
	pthread_cond_broadcast(&o->cond);
	pthread_mutex_unlock(&o->lock);
}

int merge_out__init(struct merge_out *o, int fd, uint64_t off, bool stream)
{
	sigset_t all, old;

	memset(o, 0, sizeof(*o));
	o->fd = fd;
	o->off = off;
	o->stream = stream;
	o->buf[0] = malloc(OUT_BUF_SIZE);
	o->buf[1] = malloc(OUT_BUF_SIZE);
	if (!o->buf[0] || !o->buf[1])
		return -ENOMEM;
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

/* Hands the filled buffer to the writer (or writes it in place) and takes the other. */
static int out_handoff(struct merge_out *o)
{
	int err;

	if (!o->len)
		return 0;
	if (!o->have_thread) {
		err = out_write(o, o->buf[o->cur], o->len, o->off);
	} else {
		err = out_idle(o);
		out_submit(o, o->buf[o->cur], o->len);
	}
	o->off += o->len;
	o->len = 0;
	o->cur ^= 1;
	return err;
}

int merge_out__put_slow(struct merge_out *o, const void *p, size_t len)
{
	int err = out_handoff(o);

	if (err)
		return err;
	if (len > OUT_BUF_SIZE) {
		/* A whole compressed pass: written from where it is, no copy. */
		err = out_idle(o);
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
	int err = out_handoff(o);

	if (!err)
		err = out_idle(o);
	if (err || !o->have_thread) {
		if (!err)
			err = out_write(o, p, len, o->off);
		release(arg);
	} else {
		o->ref_release = release;
		o->ref_arg = arg;
		out_submit(o, p, len);
	}
	o->off += len;
	return err;
}

int merge_out__sync(struct merge_out *o)
{
	int err = out_handoff(o);

	return err ? err : out_idle(o);
}

void merge_out__release(struct merge_out *o)
{
	if (o->have_thread) {
		pthread_mutex_lock(&o->lock);
		o->stop = true;
		pthread_cond_broadcast(&o->cond);
		pthread_mutex_unlock(&o->lock);
		pthread_join(o->thread, NULL);
		o->have_thread = false;
	}
	out_ref_done(o);
	if (o->have_lock) {
		pthread_mutex_destroy(&o->lock);
		pthread_cond_destroy(&o->cond);
		o->have_lock = false;
	}
	free(o->buf[0]);
	free(o->buf[1]);
	o->buf[0] = o->buf[1] = NULL;
}
