// SPDX-License-Identifier: GPL-2.0
/* record -o -: the stream of perf's pipe format while recording (pipe_out.h). */
#include "recorder/capture/pipe_out.h"
#include "recorder/codec/zunpass.h"
#include "recorder/util/log.h"
#include "recorder/util/thread.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WAIT_NS (10 * 1000 * 1000) /* 10 ms: well under a writer pass, which comes at least every 100 ms */
#define PUNCH_STEP (4ULL << 20)	   /* free a shard's read bytes this many at a time */
#define PUNCH_ALIGN 4096ULL	   /* whole blocks; the first one keeps the shard header */

int pipe_out__open(struct pipe_out *p)
{
	int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);

	if (fd < 0)
		return -errno;
	if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	signal(SIGPIPE, SIG_IGN);
	p->fd = fd;
	return 0;
}

int pipe_out__mkdtemp(char *dir, size_t len, const char *parent)
{
	/* secure_getenv: a shardrec installed with capabilities ignores the caller's TMPDIR. */
	const char *tmp = parent ? parent : secure_getenv("TMPDIR");

	if (snprintf(dir, len, "%s/shardrec-pipe.XXXXXX", tmp && *tmp ? tmp : "/tmp") >= (int)len)
		return -ENAMETOOLONG;
	return mkdtemp(dir) ? 0 : -errno;
}

static uint64_t live_committed(void *arg, unsigned idx, bool *ended)
{
	struct pipe_out *p = arg;

	if (idx >= p->p.nr_writers) {
		*ended = true;
		return 0;
	}
	return shard__committed(writer__shard(p->p.writers[idx]), ended);
}

static bool live_finished(void *arg)
{
	struct pipe_out *p = arg;

	return atomic_load_explicit(&p->finished, memory_order_acquire);
}

static int live_wait(void *arg)
{
	struct pipe_out *p = arg;
	struct timespec ts = {0, WAIT_NS};

	if (atomic_load_explicit(&p->cancel, memory_order_acquire))
		return -ECANCELED;
	nanosleep(&ts, NULL);
	return 0;
}

/*
 * Frees the disk space of what the merge has read of shard.@idx, in
 * PUNCH_STEP steps, through a descriptor of our own (the writer owns its
 * shard's). A file system that cannot punch keeps the bytes, as a file
 * recording does.
 */
static void live_consumed(void *arg, unsigned idx, uint64_t off)
{
	struct pipe_out *p = arg;
	uint64_t end = off & ~(PUNCH_ALIGN - 1), start;
	char name[32];

	if (!p->punch || idx >= p->p.nr_writers || end < p->punched[idx] + PUNCH_STEP)
		return;
	if (p->punch_fd[idx] < 0) {
		snprintf(name, sizeof(name), "shard.%u", idx);
		p->punch_fd[idx] = openat(p->p.dirfd, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	}
	start = p->punched[idx] > PUNCH_ALIGN ? p->punched[idx] : PUNCH_ALIGN;
	if (end <= start)
		return;
	if (p->punch_fd[idx] >= 0 &&
	    !fallocate(p->punch_fd[idx], FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, start,
		       end - start))
		p->punched[idx] = end;
	else
		p->punch = false;
}

static void *pipe_out__thread(void *arg)
{
	struct pipe_out *p = arg;

	pthread_setname_np(pthread_self(), "shardrec-pipe");
	p->ret = merge__run(&p->mo, &p->st, p->err, sizeof(p->err));
	if (p->ret)
		atomic_store_explicit(&p->failed, true, memory_order_release);
	return NULL;
}

static int punch_alloc(struct pipe_out *p)
{
	p->punch_fd = malloc(p->p.nr_writers * sizeof(*p->punch_fd) + 1);
	p->punched = calloc(p->p.nr_writers + 1, sizeof(*p->punched));
	if (!p->punch_fd || !p->punched)
		return -ENOMEM;
	for (size_t i = 0; i < p->p.nr_writers; i++)
		p->punch_fd[i] = -1;
	p->punch = !p->p.keep;
	return 0;
}

int pipe_out__start(struct pipe_out *p, const struct pipe_out_params *pp)
{
	int err;

	p->p = *pp;
	p->ops = (struct merge_live){live_committed, live_finished, live_wait, live_consumed, p};
	p->mo = (struct merge_opts){
	    .dir = pp->dir,
	    .have_dirfd = true,
	    .dirfd = pp->dirfd,
	    .output = "-",
	    .dec = &zunpass__ops,
	    .pipe = true,
	    .pipe_fd = p->fd,
	    .live = pp->live ? &p->ops : NULL,
	};
	if (!pp->live)
		return 0;
	err = punch_alloc(p);
	if (err)
		return err;
	/* Signals belong to the session's signalfd, as for the writers. */
	err = thread__start_quiet(&p->thread, pipe_out__thread, p);
	p->started = !err;
	return err;
}

bool pipe_out__failed(struct pipe_out *p)
{
	return atomic_load_explicit(&p->failed, memory_order_acquire);
}

int pipe_out__finish(struct pipe_out *p, struct merge_stats *st, char *err, size_t errlen)
{
	if (!p->started)
		return merge__run(&p->mo, st, err, errlen);
	/* Release pairs with live_finished: the tail files are written. */
	atomic_store_explicit(&p->finished, true, memory_order_release);
	pthread_join(p->thread, NULL);
	p->started = false;
	*st = p->st;
	snprintf(err, errlen, "%s", p->err);
	return p->ret;
}

void pipe_out__report(const struct pipe_out *p, const struct merge_stats *st)
{
	pr_info("[ shardrec record: streamed %.3f MB to the pipe, at most %.3f MB of passes held "
		"in memory%s ]",
		st->bytes_out / 1e6, st->peak_held / 1e6,
		p->p.live ? "" : " (written at the end: --overwrite or --tail-synthesize)");
}

void pipe_out__close(struct pipe_out *p)
{
	if (p->started) {
		atomic_store_explicit(&p->cancel, true, memory_order_release);
		pthread_join(p->thread, NULL);
		p->started = false;
		merge_stats__release(&p->st);
	}
	for (size_t i = 0; p->punch_fd && i < p->p.nr_writers; i++)
		if (p->punch_fd[i] >= 0)
			close(p->punch_fd[i]);
	free(p->punch_fd);
	free(p->punched);
	p->punch_fd = NULL;
	p->punched = NULL;
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}
