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
 *
 * Where the file system allows, the output bypasses the page cache
 * (direct mode, out_direct_open): see there.
 */
#include "recorder/merge/merge_internal.h"
#include "recorder/perfdata/pfile_write.h"
#include "recorder/util/thread.h"

#include <pthread.h>
#include <sys/stat.h>

#define OUT_ALIGN 4096 /* the buffers' alignment: direct mode takes file systems asking at most this */

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

static bool out_aligned(const struct merge_out *o, const void *p, size_t len, uint64_t off)
{
	return !(((uintptr_t)p | len | off) & (o->align - 1));
}

/*
 * One write and its write-behind; in the writer thread, or in place without
 * one. Direct mode writes its aligned buffers past the page cache.
 */
static int out_write(struct merge_out *o, const void *p, size_t len, uint64_t off)
{
	int err;

	if (o->stream)
		return pfile__pwrite_full(o->fd, p, len, PFILE_STREAM);
	if (o->direct && !o->direct_failed && out_aligned(o, p, len, off)) {
		err = pfile__pwrite_full(o->dfd, p, len, off);
		if (err != -EINVAL)
			return err;
		/* Announced by statx, refused by the write (a stacked file system): buffered now. */
		o->direct_failed = true;
	}
	err = pfile__pwrite_full(o->fd, p, len, off);
	if (!err && (!o->direct || o->direct_failed))
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

/*
 * Direct mode. The merge makes its output durable (fdatasync) before the
 * shards go, so the page cache would hold each output page only until it
 * is flushed, at the cost of a copy and a fresh page per 4 KiB that no
 * reader of the run needs: on this project's VM, writing 256 MB took
 * 0.365 s of system time through the page cache (with the write-behind
 * below) and 0.033 s with O_DIRECT, and the merge's write into the page
 * cache was 27% of the recorder's CPU on the bench's seed row (bench/README).
 * Bytes of a shard are then in the page cache once, as perf's are.
 *
 * Only where the file system says how (statx STATX_DIOALIGN, Linux 6.1:
 * ext4, XFS, btrfs, block devices; not tmpfs, nor NFS or Lustre clients,
 * which stay buffered), at most OUT_ALIGN, on a descriptor open for
 * writing. The stream then starts at @off rounded down: the bytes before
 * @off in that block (the attrs) are read back and go out again with the
 * first buffer. A second descriptor of the same file carries O_DIRECT;
 * writes that are not aligned (the last block, at each sync) take the
 * first, and the kernel keeps the two coherent.
 */
static void out_direct_open(struct merge_out *o, uint64_t off)
{
	struct statx stx;
	char path[64];
	uint64_t at;
	int fl = fcntl(o->fd, F_GETFL), dfd;

	if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY || (fl & O_APPEND))
		return;
	if (statx(o->fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) ||
	    !(stx.stx_mask & STATX_DIOALIGN) || !stx.stx_dio_offset_align ||
	    stx.stx_dio_offset_align > OUT_ALIGN || !stx.stx_dio_mem_align ||
	    stx.stx_dio_mem_align > OUT_ALIGN)
		return;
	at = off & ~(uint64_t)(stx.stx_dio_offset_align - 1);
	if (off > at && pfile__pread_full(o->fd, o->buf[0], off - at, at))
		return;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", o->fd);
	dfd = open(path, O_WRONLY | O_DIRECT | O_CLOEXEC);
	if (dfd < 0)
		return;
	o->direct = true;
	o->dfd = dfd;
	o->align = stx.stx_dio_offset_align;
	o->off = at;
	o->len = off - at;
}

int merge_out__init(struct merge_out *o, int fd, uint64_t off, bool stream)
{

	memset(o, 0, sizeof(*o));
	o->fd = fd;
	o->off = off;
	o->start = off;
	o->stream = stream;
	for (int i = 0; i < OUT_BUFS; i++) {
		o->buf[i] = aligned_alloc(OUT_ALIGN, OUT_BUF_SIZE);
		if (!o->buf[i])
			return -ENOMEM;
	}
	if (!stream)
		out_direct_open(o, off);
	pthread_mutex_init(&o->lock, NULL);
	pthread_cond_init(&o->cond, NULL);
	o->have_lock = true;
	/* The caller's signals (SIGTERM in a job) stay with the caller's thread. */
	o->have_thread = !thread__start_quiet(&o->thread, out_thread, o);
	return 0;
}

/*
 * Queues the filled buffer (or writes it in place) and takes the next,
 * once the write that last held that one is done. Direct mode writes the
 * whole blocks only: the start of the last one moves to the next buffer.
 */
static int out_handoff(struct merge_out *o)
{
	size_t keep = o->direct ? o->len & (o->align - 1) : 0, wlen = o->len - keep;
	int next = (o->cur + 1) % OUT_BUFS, err, werr;

	if (!wlen)
		return 0;
	if (!o->have_thread) {
		err = out_write(o, o->buf[o->cur], wlen, o->off);
	} else {
		err = out_queue(o, o->buf[o->cur], wlen, NULL, NULL);
		o->buf_job[o->cur] = o->queued;
	}
	werr = out_wait(o, o->buf_job[next]);
	/* The writer reads only the first wlen bytes of buf[cur]. */
	memcpy(o->buf[next], o->buf[o->cur] + wlen, keep);
	o->off += wlen;
	o->len = keep;
	o->cur = next;
	return err ? err : werr;
}

/* Direct mode: @len bytes copied through the buffers, each handed off once full. */
static int out_copy(struct merge_out *o, const void *p, size_t len)
{
	const unsigned char *from = p;
	int err = 0;

	while (len && !err) {
		size_t n = OUT_BUF_SIZE - o->len < len ? OUT_BUF_SIZE - o->len : len;

		memcpy(o->buf[o->cur] + o->len, from, n);
		o->len += n;
		from += n;
		len -= n;
		if (o->len == OUT_BUF_SIZE)
			err = out_handoff(o);
	}
	return err;
}

int merge_out__put_slow(struct merge_out *o, const void *p, size_t len)
{
	int err = out_handoff(o);

	if (err)
		return err;
	if (len > OUT_BUF_SIZE - o->len) {
		if (o->direct)
			return out_copy(o, p, len);
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
	int err, qerr;

	if (o->direct) {
		/* Only the aligned buffers go out directly: the span is copied, then done with. */
		err = out_copy(o, p, len);
		release(arg);
		return err;
	}
	err = out_handoff(o);
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

/*
 * Direct mode, at a sync: the bytes of the block not yet whole, through the
 * page cache; they stay in the buffer, and the block's direct write, if
 * more comes, writes them again. Not the bytes before the stream's start.
 */
static int out_write_tail(struct merge_out *o)
{
	uint64_t from = o->off > o->start ? o->off : o->start, end = o->off + o->len;

	if (end <= from)
		return 0;
	return pfile__pwrite_full(o->fd, o->buf[o->cur] + (from - o->off), end - from, from);
}

int merge_out__sync(struct merge_out *o)
{
	int err = out_handoff(o), werr = out_wait(o, o->queued);

	err = err ? err : werr;
	if (!err && o->direct)
		err = out_write_tail(o);
	return err;
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
	if (o->direct)
		close(o->dfd);
	o->direct = false;
}
