/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record -o -: perf's pipe format on stdout while recording, as `perf
 * record -o -` writes it. The writers write their shards as always, into a
 * temporary directory ($TMPDIR, else /tmp); a merging thread reads each
 * shard up to what its writer has committed and streams the merged rounds
 * as the writers' watermarks pass them (merge/merge_pipe.c, merge_live.c).
 * Shard bytes it has read leave the disk as it goes (hole punching), unless
 * --keep-shards. With --overwrite or --tail-synthesize, whose records come
 * only at the end, the stream is written when recording ends.
 *
 * Memory: the merge holds about one pass per writer beyond the common
 * watermark, so at most about the rings' size (-m pages times CPUs, plus
 * AUX areas) and 10 ms of data, whatever the recording's length; a slow
 * reader makes the data wait on disk, not in memory.
 */
#ifndef SHARDREC_PIPE_OUT_H
#define SHARDREC_PIPE_OUT_H

#include "recorder/capture/writer.h"
#include "recorder/merge/merge.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

struct pipe_out_params {
	const char *dir; /* the shard directory, and its descriptor */
	int dirfd;
	struct writer **writers; /* writer i writes shard.i */
	size_t nr_writers;
	bool live; /* merge while recording; false: all at the end */
	bool keep; /* --keep-shards: read bytes stay on disk */
};

struct pipe_out {
	int fd; /* the stream (stdout moved off fd 1), -1 when not in pipe mode */
	struct pipe_out_params p;
	struct merge_live ops;
	struct merge_opts mo;
	struct merge_stats st;
	int ret;
	char err[1024];
	pthread_t thread;
	bool started;
	atomic_bool finished, cancel, failed;
	int *punch_fd;	   /* per shard: our own write descriptor for punching, -1 */
	uint64_t *punched; /* per shard: bytes already freed */
	bool punch;
};

/*
 * Takes stdout for the stream: a descriptor of its own (close-on-exec),
 * then fd 1 is pointed at stderr, so neither the command's output nor a
 * stray print can mix into the stream (perf sends the command's stdout to
 * stderr likewise); SIGPIPE is ignored, a gone reader is an EPIPE.
 * 0 / -errno.
 */
int pipe_out__open(struct pipe_out *p);
/*
 * A new private shard directory, @parent/shardrec-pipe.XXXXXX (@parent
 * NULL: $TMPDIR, else /tmp), named in @dir. 0 / -errno.
 */
int pipe_out__mkdtemp(char *dir, size_t len, const char *parent);
/* Streams from now on (a thread) when @pp->live, else at pipe_out__finish. 0 / -errno. */
int pipe_out__start(struct pipe_out *p, const struct pipe_out_params *pp);
/* True once the stream failed (the reader closed the pipe): the recording should stop. */
bool pipe_out__failed(struct pipe_out *p);
/*
 * The recording ended and its tail files are written: completes the
 * stream (or writes it all now when not live). @st and @err as
 * merge__run's; -EPIPE when the reader went away.
 */
int pipe_out__finish(struct pipe_out *p, struct merge_stats *st, char *err, size_t errlen);
/* -v: what the stream held in memory at most. */
void pipe_out__report(const struct pipe_out *p, const struct merge_stats *st);
/* Stops a stream still running (a failed start), closes everything. Accepts fd -1. */
void pipe_out__close(struct pipe_out *p);

#endif
