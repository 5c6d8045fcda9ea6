// SPDX-License-Identifier: GPL-2.0
#include "recorder/capture/writer.h"
#include "recorder/util/clock.h"
#include "recorder/capture/fault.h"
#include "recorder/util/privs.h"
#include "recorder/util/thread.h"
#include "recorder/events/evlist.h"
/* The writer keeps its rings' pressure marks and reads their size, cpu and fd. */
#include "ringbuf/ring_internal.h"
#include "aux/aux.h"
#include "recorder/codec/zpass.h"
#include "recorder/util/num.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct writer {
	struct writer_params p;
	struct shard shard;
	int wake_fd;
	atomic_bool stop;
	atomic_uint_least64_t dump_req; /* writer__snapshot calls (--overwrite) */
	uint64_t dump_done;             /* requests served: the writer thread only */
	/* writer__switch: the next shard's place, published by sw_req's release */
	int sw_dirfd;
	uint8_t sw_run_id[SHARD_RUN_ID_SIZE];
	atomic_uint_least64_t sw_req;   /* switches asked */
	atomic_uint_least64_t sw_done;  /* switches done (stored by the thread only) */
	atomic_bool ended;              /* the thread has left its loop: no switch will come */
	pthread_t thread;
	sem_t ready; /* posted by the thread once its prologue is done */
	bool started;
	struct writer_stats stats;
	/* Hot-path arrays, allocated on the group's node by the thread itself. */
	struct iovec *iov;
	struct shard_chunk_rec *chunks;
	struct pollfd *pfd;
	size_t iov_bytes, chunk_bytes, pfd_bytes;
	struct zpass z; /* compressor and its output buffer, on the group's node */
	/* --overwrite: each ring's copy, a ring's size apiece, on the group's node */
	unsigned char *snap;
	size_t snap_bytes;
	/* copy_div: the rings' copies (a ring's size apiece) and each ring's first iovec */
	unsigned char *bounce;
	size_t bounce_bytes;
	int *ring_iov;
	size_t ring_iov_bytes;
};

struct writer *writer__new(const struct writer_params *p)
{
	struct writer *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return NULL;
	w->p = *p;
	w->wake_fd = -1;
	w->shard.fd = -1;
	atomic_init(&w->stop, false);
	atomic_init(&w->dump_req, 0);
	atomic_init(&w->sw_req, 0);
	atomic_init(&w->sw_done, 0);
	atomic_init(&w->ended, false);
	err = shard__create(&w->shard, p->dirfd, p->idx, p->group->node,
			    p->zlevel ? SHARD_F_ZSTD : 0, p->run_id);
	if (err)
		goto out_free;
	w->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->wake_fd < 0) {
		err = -errno;
		goto out_close_shard;
	}
	if (sem_init(&w->ready, 0, 0)) {
		err = -errno;
		goto out_close_wake;
	}
	return w;

out_close_wake:
	close(w->wake_fd);
out_close_shard:
	shard__close(&w->shard);
out_free:
	free(w);
	errno = -err;
	return NULL;
}

static int writer__alloc_local(struct writer *w)
{
	int node = w->p.group->node;

	/* Per ring: chunk header, 2 ring iovecs, and an AUXTRACE record's 4 (aux/aux.h). */
	w->iov_bytes = (1 + 7 * w->p.nr_maps) * sizeof(*w->iov);
	w->chunk_bytes = w->p.nr_maps * sizeof(*w->chunks);
	w->pfd_bytes = (w->p.nr_maps + 1) * sizeof(*w->pfd);
	w->iov = placement__alloc(w->iov_bytes, node);
	w->chunks = placement__alloc(w->chunk_bytes, node);
	w->pfd = placement__alloc(w->pfd_bytes, node);
	if (!w->iov || !w->chunks || !w->pfd)
		return -ENOMEM;
	for (size_t i = 0; w->p.overwrite && i < w->p.nr_maps; i++)
		w->snap_bytes += w->p.maps[i].core.size;
	w->snap = w->snap_bytes ? placement__alloc(w->snap_bytes, node) : NULL;
	if (w->snap_bytes && !w->snap)
		return -ENOMEM;
	if (w->p.copy_div && !w->p.overwrite && !w->p.zlevel) {
		for (size_t i = 0; i < w->p.nr_maps; i++)
			w->bounce_bytes += w->p.maps[i].core.size;
		w->ring_iov_bytes = w->p.nr_maps * sizeof(*w->ring_iov);
		w->bounce = placement__alloc(w->bounce_bytes, node);
		w->ring_iov = placement__alloc(w->ring_iov_bytes, node);
		if (!w->bounce || !w->ring_iov)
			return -ENOMEM;
	}
	w->stats.node_buf = placement__node_of(w->iov);
	return w->p.zlevel ? zpass__init(&w->z, w->p.zlevel, node) : 0;
}

/*
 * Maps @p's page: one read, its value unused. The kernel (a unit test's
 * simulated one, on another thread) may be writing that byte meanwhile; a
 * race by design, so TSan is told not to watch it.
 */
__attribute__((no_sanitize("thread"))) static void page_touch(const void *p)
{
	(void)*(const volatile unsigned char *)p;
}

/*
 * Where the kernel put each ring's first data page, so -v can show that
 * placement held. An untouched page has no node yet: read a byte first.
 */
static void writer__query_ring_nodes(struct writer *w)
{
	w->stats.node_ring = -ENOENT;
	for (size_t i = 0; i < w->p.nr_maps; i++) {
		int node;

		page_touch(w->p.maps[i].core.data);
		node = placement__node_of(w->p.maps[i].core.data);
		if (node < 0) {
			w->stats.node_ring = node;
			return;
		}
		if (node < 64)
			w->stats.ring_nodes |= 1ULL << node;
		w->stats.node_ring = i && node != w->stats.node_ring ? -EXDEV : node;
	}
}

static void writer__free_local(struct writer *w)
{
	placement__free(w->iov, w->iov_bytes);
	placement__free(w->chunks, w->chunk_bytes);
	placement__free(w->pfd, w->pfd_bytes);
	placement__free(w->snap, w->snap_bytes);
	placement__free(w->bounce, w->bounce_bytes);
	placement__free(w->ring_iov, w->ring_iov_bytes);
	w->bounce = NULL;
	w->ring_iov = NULL;
	w->iov = NULL;
	w->chunks = NULL;
	w->pfd = NULL;
	w->snap = NULL;
	if (w->p.zlevel)
		zpass__release(&w->z);
}

/*
 * A ring's AUX area, if any: the bytes of its AUXTRACE record (header,
 * trace, padding) this pass, or 0, or -errno. Read before the ring's head:
 * the kernel writes the PERF_RECORD_AUX announcing trace bytes into the
 * ring before it publishes aux_head (perf_aux_output_end), so every byte
 * taken here has its AUX record in the span read next, and an AUXTRACE
 * always follows a record of its ring, whose time places it in the merge.
 * perf reads the ring first, so its files can hold trace whose AUX record
 * comes a pass later; a lone AUXTRACE has no time of its own, and the merge
 * once put one after its ring's next trace. (The kernel has no barrier
 * between those two stores: on weakly ordered CPUs it stays possible.)
 */
static long writer__aux_init(struct evlist_mmap *m)
{
	struct aux_ring *a = evlist_mmap__aux(m);

	return a ? aux_ring__read_init(a) : 0;
}

/* The AUXTRACE record's iovecs, after the ring's in its chunk, as perf writes an AUX read. */
static void writer__aux_iov(struct evlist_mmap *m, long len, struct iovec *iov, int *nr_iov)
{
	const struct aux_ring *a = evlist_mmap__aux(m);

	if (len > 0) {
		memcpy(iov, a->iov, a->nr_iov * sizeof(*iov));
		*nr_iov += a->nr_iov;
	}
}

static uint64_t writer__aux_done(struct evlist_mmap *m)
{
	struct aux_ring *a = evlist_mmap__aux(m);
	uint64_t len = a ? a->rec_len : 0;

	if (len)
		aux_ring__read_done(a);
	return len;
}

/* Rotation's eventfd: a switch took effect, or the size mark is reached. */
static void writer__notify(struct writer *w)
{
	uint64_t one = 1;

	if (write(w->p.rotate->notify_fd, &one, sizeof(one)) < 0) {
		/* Saturated only if the session never reads it: nothing to add. */
	}
}

/*
 * --max-size and --switch-output=SIZE across all writers: one relaxed add
 * per pass (not per record; the total is only compared, nothing else is
 * published through it). The pass that would cross --max-size is not
 * written; the count starts at header.data's size, so header.data and the
 * shards end at or below it, and once one pass was refused every later one
 * is. -EDQUOT tells the loop to stop without an error. Past the size mark
 * the session is told, pass after pass until it has switched and moved the
 * mark.
 */
static int writer__budget(struct writer *w, uint64_t bytes)
{
	const atomic_uint_least64_t *mark = w->p.rotate ? w->p.rotate->size_mark : NULL;
	uint64_t used;

	if (!w->p.max_size && !mark)
		return 0;
	used = atomic_fetch_add_explicit(w->p.shard_bytes, bytes, memory_order_relaxed) + bytes;
	if (mark && used >= atomic_load_explicit(mark, memory_order_relaxed))
		writer__notify(w);
	return w->p.max_size && used > w->p.max_size ? -EDQUOT : 0;
}

/*
 * A ring's bytes for this pass: a forward ring's are spanned now, a
 * backward ring's were copied out by writer__dump.
 */
static long writer__ring_span(struct writer *w, size_t i, struct ring_span *s, uint64_t wtime)
{
	long len;

	if (w->p.overwrite)
		return (long)s->len;
	len = ring__read_init(&w->p.maps[i].core, s);
	/* Test-only (fault.h): a ring left unread, as a stalled CPU's is; its tail stays. */
	if (len > 0 && fault__ring_held(w->p.maps[i].core.cpu, wtime)) {
		*s = (struct ring_span){0};
		return 0;
	}
	return len;
}

/*
 * The rings' fill just before their tails move: the kernel fills a ring
 * while its writer compresses and writes, against the old tail. Noted at
 * reads only, the mark missed that: a writer stopped mid-pass in a storm
 * found its ring 90% full at the next read, where the kernel had found it
 * full (71-pressure -z, CI of 0c79633). Backward rings note nothing.
 */
static void writer__note_pending(struct writer *w, uint64_t now)
{
	if (w->p.overwrite)
		return;
	for (size_t i = 0; i < w->p.nr_maps; i++)
		ring__note_pending(&w->p.maps[i].core, now);
}

const uint64_t writer_slow_ns[WRITER_SLOW_N] = {1000000, 10000000, 50000000};

/*
 * Times a shard write that began at @t0 (fault.h's slow writes included):
 * a write that stalls (page reclaim, dirty-page throttling, a slow file
 * system) keeps the rings full as a late wake-up does; -v tells them apart.
 * Returns the clock it read, which the pending note after it shares.
 */
static uint64_t writer__note_write(struct writer *w, uint64_t t0)
{
	uint64_t now = clock__ns(w->p.clockid);
	/* -k realtime can step back: a write takes no time rather than ages. */
	uint64_t dt = now > t0 ? now - t0 : 0;

	w->stats.write_ns += dt;
	for (int i = 0; i < WRITER_SLOW_N && dt >= writer_slow_ns[i]; i++)
		w->stats.writes_over[i]++;
	if (dt > w->stats.write_max_ns) {
		w->stats.write_max_ns = dt;
		w->stats.write_max_at = t0;
	}
	return now;
}

/*
 * copy_div: each ring of the pass found at least 1/copy_div full is copied
 * to the writer's buffer and handed back now, before the write, as -z's
 * compressed pass hands its rings back. The write into the page cache
 * (allocating pages, dirty throttling) is slower than a copy into memory
 * the writer already touched, and the kernel fills a ring against its old
 * tail meanwhile; a copied ring has its whole size for that time. The
 * pass's iovecs then point at the copy (a wrapped span's second iovec left
 * empty). The cost: one more copy of those bytes, and a failed write loses
 * them where the kernel would have kept them (the writer stops either
 * way). Returns the bytes copied; the spans of copied rings read 0.
 */
static uint64_t writer__copy_out(struct writer *w, struct ring_span *spans)
{
	unsigned char *at = w->bounce;
	uint64_t copied = 0, now = 0;

	for (size_t i = 0; w->bounce && i < w->p.nr_maps; i++) {
		struct ring_span *s = &spans[i];
		struct ring *r = &w->p.maps[i].core;
		struct iovec *iov = &w->iov[w->ring_iov[i]];
		unsigned char *to = at;

		if (!s->len || s->len * w->p.copy_div < r->size)
			continue;
		for (int k = 0; k < s->nr_iov; k++) {
			memcpy(to, s->iov[k].iov_base, s->iov[k].iov_len);
			to += s->iov[k].iov_len;
			iov[k].iov_len = 0;
		}
		iov[0] = (struct iovec){.iov_base = at, .iov_len = s->len};
		at = to;
		if (!now)
			now = clock__ns(w->p.clockid);
		/* The fill just before the tail moves, as writer__note_pending notes it. */
		ring__note_pending(r, now);
		ring__read_done(r, s);
		copied += s->len;
		s->len = 0;
	}
	w->stats.copied += copied;
	return copied;
}

/*
 * One pass: take a span of every ring, write them all as one pass with one
 * pwritev, then hand the space back. Tails move only after the data is in
 * the page cache, so a failed write loses nothing the kernel still holds
 * (but what writer__copy_out handed back).
 * @wtime: the recording clock before the first ring's head was read.
 */
static int writer__pass(struct writer *w, struct ring_span *spans, uint64_t wtime)
{
	uint64_t payload = 0, copied = 0, t0, now;
	int nr_iov = 1;
	int err;

	for (size_t i = 0; i < w->p.nr_maps; i++) {
		struct ring_span *s = &spans[i];
		long alen = writer__aux_init(&w->p.maps[i]), len;
		int hdr = nr_iov++;

		if (alen < 0)
			return alen;
		len = writer__ring_span(w, i, s, wtime);
		if (len < 0)
			return len;
		ring__note_fill(&w->p.maps[i].core, len, wtime);
		for (int k = 0; k < s->nr_iov; k++)
			w->iov[nr_iov++] = s->iov[k];
		writer__aux_iov(&w->p.maps[i], alen, &w->iov[nr_iov], &nr_iov);
		if (!len && !alen) {
			nr_iov = hdr;
			continue;
		}
		if (w->ring_iov)
			w->ring_iov[i] = hdr + 1;
		shard_chunk__init(&w->chunks[i], w->p.maps[i].core.cpu, len + alen);
		w->iov[hdr].iov_base = &w->chunks[i];
		w->iov[hdr].iov_len = sizeof(w->chunks[i]);
		payload += sizeof(w->chunks[i]) + len + alen;
	}
	/* A pass --max-size refuses is not written: its rings keep their bytes. */
	err = writer__budget(w, sizeof(w->shard.pass) + payload);
	if (!err)
		copied = writer__copy_out(w, spans);
	t0 = clock__ns(w->p.clockid);
	/* Test-only fault injection (fault.h); inert unless SHARDREC_FAULT is set. */
	if (!err)
		err = fault__shard_write(w->p.idx, w->shard.off, sizeof(w->shard.pass) + payload);
	if (!err)
		err = shard__write_pass(&w->shard, wtime, w->iov, nr_iov, payload);
	now = writer__note_write(w, t0);
	w->stats.bytes += copied;
	if (err) {
		w->stats.unwritten += copied;
		return err;
	}
	writer__note_pending(w, now);
	for (size_t i = 0; i < w->p.nr_maps; i++) {
		if (spans[i].len) {
			ring__read_done(&w->p.maps[i].core, &spans[i]);
			w->stats.bytes += spans[i].len;
		}
		w->stats.bytes += writer__aux_done(&w->p.maps[i]);
	}
	w->stats.zbytes = w->stats.bytes;
	w->stats.passes++;
	return 0;
}

/*
 * The compressed pass: the rings' bytes go through zstd into a node-local
 * buffer; the ring space is handed back as soon as it is compressed, before
 * the write, which gives the kernel room earlier than the plain path can.
 */
static int writer__pass_z(struct writer *w, struct ring_span *spans, uint64_t wtime)
{
	uint64_t t0;
	size_t raw = 0;
	int nr_iov = 0, err;

	for (size_t i = 0; i < w->p.nr_maps; i++) {
		long alen = writer__aux_init(&w->p.maps[i]), len;

		if (alen < 0)
			return alen;
		len = writer__ring_span(w, i, &spans[i], wtime);
		if (len < 0)
			return len;
		ring__note_fill(&w->p.maps[i].core, len, wtime);
		for (int k = 0; k < spans[i].nr_iov; k++)
			w->iov[nr_iov++] = spans[i].iov[k];
		writer__aux_iov(&w->p.maps[i], alen, &w->iov[nr_iov], &nr_iov);
		raw += len + alen;
	}
	err = zpass__compress(&w->z, w->iov, nr_iov, raw);
	if (err)
		return err;
	/* One clock read: the pending note, then the write's start. */
	t0 = clock__ns(w->p.clockid);
	writer__note_pending(w, t0);
	for (size_t i = 0; i < w->p.nr_maps; i++) {
		if (spans[i].len)
			ring__read_done(&w->p.maps[i].core, &spans[i]);
		writer__aux_done(&w->p.maps[i]);
	}
	err = fault__shard_write(w->p.idx, w->shard.off, sizeof(w->shard.pass) + w->z.len);
	if (!err)
		err = writer__budget(w, sizeof(w->shard.pass) + w->z.len);
	if (!err)
		err = shard__write_zpass(&w->shard, wtime, w->z.out, w->z.len, raw);
	writer__note_write(w, t0);
	if (err)
		return err;
	w->stats.bytes += raw;
	w->stats.zbytes += w->z.len;
	w->stats.passes++;
	return 0;
}

static int writer__write(struct writer *w, struct ring_span *spans, uint64_t wtime)
{
	return w->p.zlevel ? writer__pass_z(w, spans, wtime) : writer__pass(w, spans, wtime);
}

/*
 * --overwrite: one pass of what the backward rings took since the last
 * dump. Each ring is paused only while it is copied to the writer's own
 * buffer (ring__take_backward), one ring after the other, so a CPU's
 * records are dropped (PERF_RECORD_LOST, by the kernel) for as long as its
 * copy takes, not for the whole dump; compressing and writing come after
 * every ring runs again. The pass time is read before the first copy:
 * whatever a later dump takes was published after it. Requests that
 * arrive during the dump are served by the next one.
 */
static int writer__dump(struct writer *w, struct ring_span *spans)
{
	uint64_t wtime = clock__ns(w->p.clockid);
	unsigned char *buf = w->snap;
	int err = 0;

	w->dump_done = atomic_load_explicit(&w->dump_req, memory_order_acquire);
	for (size_t i = 0; i < w->p.nr_maps && !err; i++) {
		long len = ring__take_backward(&w->p.maps[i].core, &spans[i], buf);

		err = len < 0 ? len : 0;
		buf += w->p.maps[i].core.size;
	}
	if (!err)
		err = writer__write(w, spans, wtime);
	w->stats.dumps += !err;
	return err;
}

static bool writer__dump_due(struct writer *w)
{
	return atomic_load_explicit(&w->dump_req, memory_order_acquire) != w->dump_done;
}

/* One pass; @flush (stop, switch): the backward rings are dumped too. */
static int writer__take(struct writer *w, struct ring_span *spans, bool flush)
{
	if (!w->p.overwrite)
		return writer__write(w, spans, clock__ns(w->p.clockid));
	return flush || writer__dump_due(w) ? writer__dump(w, spans) : 0;
}

/*
 * The shard is whole: its header gets its size, so a merge sees a cut at
 * any offset. Not a writer error if that fails: the passes are all there,
 * and an unsealed shard is read without the check.
 */
static void writer__seal(struct writer *w)
{
	(void)shard__seal(&w->shard);
}

/*
 * writer__switch, after the pass that took everything read so far into
 * the old shard: the new one takes over from the next pass. A shard that
 * cannot be created stops the writer, as a failed write does.
 */
static int writer__next_shard(struct writer *w, uint64_t req)
{
	struct shard next;
	int err = shard__create(&next, w->sw_dirfd, w->p.idx, w->p.group->node,
				w->p.zlevel ? SHARD_F_ZSTD : 0, w->sw_run_id);

	if (err)
		return err;
	writer__seal(w);
	shard__close(&w->shard);
	w->shard = next;
	/* Release pairs with writer__switched's acquire: the old shard is closed. */
	atomic_store_explicit(&w->sw_done, req, memory_order_release);
	writer__notify(w);
	return 0;
}

static void writer__setup_poll(struct writer *w)
{
	for (size_t i = 0; i < w->p.nr_maps; i++) {
		/* Backward rings wake nobody: only a request or the stop starts a pass. */
		w->pfd[i].fd = w->p.overwrite ? -1 : w->p.maps[i].core.fd;
		w->pfd[i].events = POLLIN;
	}
	w->pfd[w->p.nr_maps].fd = w->wake_fd;
	w->pfd[w->p.nr_maps].events = POLLIN;
}

/* A ring whose task is gone reports POLLHUP forever: stop polling it, keep draining it. */
static void writer__drop_hungup(struct writer *w)
{
	for (size_t i = 0; i < w->p.nr_maps; i++)
		if (w->pfd[i].revents & (POLLHUP | POLLERR))
			w->pfd[i].fd = -1;
}

/* A snapshot request left the eventfd readable: reset it, or poll would spin. */
static void writer__drain_wake(struct writer *w)
{
	uint64_t n;

	if (w->pfd[w->p.nr_maps].revents & POLLIN && read(w->wake_fd, &n, sizeof(n)) < 0) {
		/* EAGAIN: another wakeup already drained it. */
	}
}

static int writer__loop(struct writer *w, struct ring_span *spans)
{
	int err;

	for (;;) {
		/* Acquire pairs with writer__stop's release: see everything done before the stop. */
		bool stopping = atomic_load_explicit(&w->stop, memory_order_acquire);
		/* Acquire pairs with writer__switch's release: sw_dirfd and sw_run_id are set. */
		uint64_t sw = atomic_load_explicit(&w->sw_req, memory_order_acquire);
		bool switching = sw != atomic_load_explicit(&w->sw_done, memory_order_relaxed);

		err = writer__take(w, spans, stopping || switching);
		if (err == -EDQUOT) {
			w->stats.size_limited = true;
			return 0;
		}
		if (!err && switching)
			err = writer__next_shard(w, sw);
		if (err || stopping)
			return err;
		if (poll(w->pfd, w->p.nr_maps + 1, w->p.overwrite ? -1 : w->p.idle_ms) < 0 &&
		    errno != EINTR)
			return -errno;
		w->stats.polls++;
		writer__drain_wake(w);
		writer__drop_hungup(w);
	}
}

/*
 * -r: SCHED_FIFO for this thread only, CAP_SYS_NICE raised around the call
 * when the install grants it; then this thread drops every capability it
 * inherited, before it touches any data.
 */
static void writer__prologue(struct writer *w)
{
	struct sched_param sp = {.sched_priority = w->p.rt_prio};
	char name[16];

	snprintf(name, sizeof(name), "shardrec-w%u", w->p.idx);
	pthread_setname_np(pthread_self(), name);
	if (w->p.pin && w->p.pin_node && w->p.group->node >= 0)
		placement__pin_node(w->p.group->node);
	else if (w->p.pin)
		placement__pin_self(w->p.group);
	w->stats.nr_allowed = placement__nr_allowed();
	if (w->p.rt_prio) {
		privs__raise(PRIVS_F(PRIVS_SYS_NICE));
		w->stats.sched_err = -pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
		privs__lower();
	}
	privs__thread_drop();
}

bool writer__can_realtime(int prio)
{
	struct sched_param sp = {.sched_priority = prio}, old;
	int policy;
	bool ok;

	if (prio <= 0 || pthread_getschedparam(pthread_self(), &policy, &old))
		return false;
	privs__raise(PRIVS_F(PRIVS_SYS_NICE));
	ok = !pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	/* Back at once: the main thread has no business at a real-time priority. */
	if (ok)
		pthread_setschedparam(pthread_self(), policy, &old);
	privs__lower();
	return ok;
}

int writer__copy_div(unsigned *div, char *err, size_t errlen)
{
	*div = 0;
	return positive__env("SHARDREC_COPY_DIV", 2, 64, div,
			     "N from 2 to 64 (copy a ring out at 1/N full)", err, errlen);
}

static void *writer__thread(void *arg)
{
	struct writer *w = arg;
	struct ring_span *spans = NULL;
	int err;

	writer__prologue(w);
	sem_post(&w->ready);
	w->stats.start_time = clock__ns(w->p.clockid);
	writer__query_ring_nodes(w);
	err = writer__alloc_local(w);
	if (!err) {
		spans = placement__alloc(w->p.nr_maps * sizeof(*spans) + 1, w->p.group->node);
		if (!spans)
			err = -ENOMEM;
	}
	if (!err) {
		writer__setup_poll(w);
		err = writer__loop(w, spans);
	}
	if (err) {
		w->stats.err = err;
		w->stats.err_time = clock__ns(w->p.clockid);
	}
	placement__free(spans, w->p.nr_maps * sizeof(*spans) + 1);
	writer__free_local(w);
	writer__seal(w);
	/* A live reader of the shard (record -o -) now knows it has it all. */
	shard__end(&w->shard);
	/* Release pairs with writer__switched's acquire: stats and shard are final. */
	atomic_store_explicit(&w->ended, true, memory_order_release);
	return NULL;
}

int writer__start(struct writer *w)
{
	int err;

	/* Signals belong to the session's signalfd, never to a writer. */
	err = thread__start_quiet(&w->thread, writer__thread, w);
	if (!err) {
		w->started = true;
		while (sem_wait(&w->ready) && errno == EINTR)
			;
	}
	return err;
}

static void writer__wake(struct writer *w)
{
	uint64_t one = 1;

	if (write(w->wake_fd, &one, sizeof(one)) < 0) {
		/* The counter is saturated only if already signalled: nothing to do. */
	}
}

void writer__stop(struct writer *w)
{
	atomic_store_explicit(&w->stop, true, memory_order_release);
	writer__wake(w);
}

/* The AUX areas and aux->overwrite are set before the thread starts and never change. */
static bool writer__request_aux(struct writer *w)
{
	bool any = false;

	for (size_t i = 0; i < w->p.nr_maps; i++) {
		struct aux_ring *a = evlist_mmap__aux(&w->p.maps[i]);

		if (a && a->overwrite) {
			aux_ring__request_snapshot(a);
			any = true;
		}
	}
	return any;
}

bool writer__snapshot(struct writer *w)
{
	bool any = writer__request_aux(w);

	if (w->p.overwrite)
		/* Release pairs with writer__dump_due's acquire. */
		atomic_fetch_add_explicit(&w->dump_req, 1, memory_order_release);
	any |= w->p.overwrite;
	if (any)
		writer__wake(w);
	return any;
}

void writer__snapshot_aux(struct writer *w)
{
	if (writer__request_aux(w))
		writer__wake(w);
}

void writer__switch(struct writer *w, int dirfd, const uint8_t *run_id)
{
	w->sw_dirfd = dirfd;
	memcpy(w->sw_run_id, run_id, sizeof(w->sw_run_id));
	/* Release pairs with writer__loop's acquire. */
	atomic_fetch_add_explicit(&w->sw_req, 1, memory_order_release);
	writer__wake(w);
}

bool writer__switched(const struct writer *w)
{
	/* Only the caller of writer__switch moves sw_req: relaxed reads its own store. */
	return atomic_load_explicit(&w->sw_done, memory_order_acquire) ==
		       atomic_load_explicit(&w->sw_req, memory_order_relaxed) ||
	       atomic_load_explicit(&w->ended, memory_order_acquire) || !w->started;
}

int writer__join(struct writer *w)
{
	if (w->started) {
		pthread_join(w->thread, NULL);
		w->started = false;
	}
	return w->stats.err;
}

struct shard *writer__shard(struct writer *w)
{
	return &w->shard;
}

const struct writer_stats *writer__stats(const struct writer *w)
{
	return &w->stats;
}

void writer__delete(struct writer *w)
{
	if (!w)
		return;
	writer__join(w);
	sem_destroy(&w->ready);
	shard__close(&w->shard);
	if (w->wake_fd >= 0)
		close(w->wake_fd);
	free(w);
}
