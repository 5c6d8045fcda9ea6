/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the merge*.c parts: the merger state, its shards, passes,
 * runs and frames, and the steps more than one part calls.
 */
#ifndef SHARDREC_MERGE_INTERNAL_H
#define SHARDREC_MERGE_INTERNAL_H

#include "recorder/merge/merge.h"
#include "recorder/util/clock.h"
#include "recorder/perfdata/pfile.h"
#include "recorder/perfdata/pfile_sample.h"
#include "recorder/perfdata/pfile_check.h"
#include "recorder/perfdata/shard_reader.h"
#include "recorder/perfdata/shard_tail.h"
#include "recorder/perfdata/recbuf.h"
#include "recorder/merge/pheap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MERGE_SLACK_NS (10ULL * 1000 * 1000)
#define OUT_BUF_SIZE (1U << 20)
#define OUT_BUFS 4 /* merge_out.c: buffers in turn, so filling one never waits on the write of the last */
#define OUT_QUEUE 8 /* merge_out.c: writes queued for the writer thread */
#define ROUND_BYTES (256U << 10)
#define ROUND_MIN_BYTES (64U << 10) /* whole-run mode: a round no closer than this to the last */
#define SPAN_REF_MIN (64U << 10) /* a span this long is written from where it is, not copied */
#define WRITEBACK_STEP (16ULL << 20) /* merge_out.c */
#define WRITEBACK_LAG 4
#define MAX_SHARDS 65536
#define SPARE_BUFS 16 /* pass buffers kept for the next passes (merger__spare_put) */
#define SPARE_BYTES (16U << 20) /* and bytes at most in them: the rest are freed */
#define AHEAD_PASSES 4 /* merge_ahead.c: passes read ahead, queued or waiting to be taken */
struct mpass {
	struct shard_pass p;
	unsigned refs;
	bool dropped; /* a damaged record: none of the pass is written (--recover) */
	bool mended;  /* a side-band record's trailer moved (merger__check_pass): patched */
	struct merger *owner; /* merger__hold's: counts the bytes held, takes the buffer back */
	uint64_t charged;     /* this pass's share of owner->held */
};
struct mrun {
	struct mpass *pass;
	unsigned char *own; /* sorted copy, when the chunk was out of order */
	const unsigned char *pos, *end;
	uint64_t time;
	uint64_t seq;
};
struct mahead;
struct mshard {
	struct shard_reader r;
	uint64_t safe;
	uint64_t wtime; /* the last loaded pass's: no later pass should hold older records */
	bool eof;
	bool damaged; /* counted in damaged_shards */
	struct mahead *ahead; /* merge_ahead.c: its next pass, queued or read; r is the loader's till taken */
};
/* A checked chunk of a pass, before it becomes runs. */
struct mchunk {
	const unsigned char *data;
	size_t len;
	bool sorted; /* in time order (a ring's records but for nested NMIs) */
};
/* A pass's checked chunks. */
struct mchunks {
	struct mchunk *v;
	size_t nr, cap;
};
/* A compressed pass kept whole: its frame is copied as is. */
struct mframe {
	struct mpass *pass;
	uint64_t min, max, seq;
};
/* One write the output's writer thread makes: a filled buffer or a span put by reference. */
struct out_job {
	const void *p;
	size_t len;
	uint64_t off;
	void (*release)(void *arg); /* a span's: run in the caller's thread once written */
	void *arg;
};
/*
 * The output stream (merge_out.c): OUT_BUFS buffers filled in turn, and a
 * queue of OUT_QUEUE writes a writer thread makes in order.
 */
struct merge_out {
	int fd;
	bool stream;            /* a pipe: write(), no offsets, no write-behind */
	/*
	 * Direct mode: a second, O_DIRECT descriptor of the file (-1 without);
	 * buffers then start at offsets of @align and are written in multiples
	 * of it, what is left over carried to the next buffer.
	 */
	bool direct;
	int dfd;
	size_t align;
	bool direct_failed;     /* the fs refused a direct write: the writer's, buffered from then */
	uint64_t start;         /* the offset merge_out__init was given */
	uint64_t off;           /* file offset of buf[cur]'s first byte */
	unsigned char *buf[OUT_BUFS];
	uint64_t buf_job[OUT_BUFS]; /* the job writing buf[i] is done when written passes it */
	size_t len;             /* bytes in buf[cur] */
	int cur;
	uint64_t wb_off;        /* output below it handed to the disk (the writer's) */
	pthread_t thread;
	bool have_thread, have_lock;
	struct out_job q[OUT_QUEUE]; /* job n at q[n % OUT_QUEUE] from its queuing to its reaping */
	uint64_t reaped;        /* jobs whose release ran (caller's thread only) */
	pthread_mutex_t lock;   /* guards what follows, shared with the writer */
	pthread_cond_t cond;
	uint64_t queued;        /* jobs given to the writer (changed by the caller only) */
	uint64_t written;       /* jobs the writer finished */
	bool stop;
	int err;                /* the writer's first error */
};

struct merger {
	const struct merge_opts *o;
	struct merge_stats *st;
	struct pfile hdr;
	struct pfile_check chk; /* every record written is checked against hdr first */
	struct pfile_idlayout layout;
	struct mshard *shards;
	size_t nr_shards;
	struct pheap sheap; /* shards with unread passes, by watermark */
	struct mrun **rheap;
	size_t nr_rheap, cap_rheap;
	struct mchunks chunks; /* the pass being loaded (pass_add_runs) */
	struct merge_ahead *ahead; /* merge_ahead.c's loader, NULL: passes are read in place */
	struct pheap fheap; /* compressed frames, by first timestamp */
	bool frames;           /* compressed shards merged frame by frame */
	bool whole_runs;       /* runs go out whole, in rounds (merge.c emit_whole_run) */
	uint64_t round_max, prev_round_max, emitted_max;
	/*
	 * Backward (--overwrite) rings: each CPU's dump spans the same window,
	 * so a round goes only where no older record follows (merger__round_before).
	 */
	bool dumps;
	void *dec; /* o->dec's decoder, NULL without one */
	unsigned char *scratch; /* decompressed pass */
	size_t scratch_cap;
	uint64_t run_seq, slack;
	/*
	 * Late records (load_next): the oldest run or frame of the pass being
	 * loaded, and the most a pass's records lagged behind their shard's
	 * previous pass time: the window a merge needs to place them in order.
	 */
	uint64_t load_min, need_slack;
	int dirfd, out_fd;
	struct merge_out out;
	uint64_t data_start, since_round, last_time;
	uint64_t unknown_ids;
	/*
	 * From header.data's ID_INDEX: per CPU, the id of the one software or
	 * tracepoint event there (0: none, UINT64_MAX: several). relabel_id:
	 * what merger__account found for the record merger__emit writes.
	 */
	uint64_t *cpu_sw_id;
	size_t nr_cpu_sw_id;
	uint64_t relabel_id;
	struct pfile_section *auxidx; /* HEADER_AUXTRACE: {file offset, header.size} per AUXTRACE */
	size_t nr_auxidx, cap_auxidx;
	void *hits; /* o->hits's tracker, NULL without build ids */
	uint64_t in_total, next_progress;
	uint64_t held; /* bytes of loaded passes not yet written out */
	/* Bytes of passes the loader had read and not handed over, at the last take. */
	uint64_t held_ahead;
	/* Buffers of passes done with, the last one freed on top: the next passes are read into them. */
	struct {
		void *buf;
		size_t cap;
	} spare[SPARE_BUFS];
	size_t nr_spare, spare_bytes;
	/* Pipe mode: called before each prologue record and once after the last (NULL). */
	int (*prologue_hook)(struct merger *m, const struct perf_event_header *h);
	bool updates_done; /* pipe mode: the EVENT_UPDATE records are out */
	int pipe_skipped_feat; /* pipe mode: a feature too large for its record, -1 none */
	uint8_t run_id[SHARD_RUN_ID_SIZE]; /* header.data's */
	struct shard_tail tail_raw, tail_synth; /* fd -1 when absent */
	char *err;
	size_t errlen;
};

/*
 * merge_out.c: 0 / -ENOMEM; writes at @off of @fd, in a writer thread when
 * one starts; @stream (pipe mode): at the fd's position, @off counting only.
 */
int merge_out__init(struct merge_out *o, int fd, uint64_t off, bool stream);
/* merge_out__put past the buffer's end: hands it off first. */
int merge_out__put_slow(struct merge_out *o, const void *p, size_t len);
/* Appends @len bytes. 0 / -errno of this or an earlier write. Inline: once per record or span. */
static inline int merge_out__put(struct merge_out *o, const void *p, size_t len)
{
	if (o->len + len > OUT_BUF_SIZE)
		return merge_out__put_slow(o, p, len);
	memcpy(o->buf[o->cur] + o->len, p, len);
	o->len += len;
	return 0;
}
/*
 * Appends @len bytes at @p without copying them: the writer writes them
 * from where they are. @release(@arg) runs in the caller's thread once
 * they are written (at the latest in merge_out__sync or __release); until
 * then @p must stay. 0 / -errno of this or an earlier write.
 */
int merge_out__put_ref(struct merge_out *o, const void *p, size_t len, void (*release)(void *),
		       void *arg);
/* Everything put is written (not yet synced). 0 / -errno of any write. */
int merge_out__sync(struct merge_out *o);
/* Stops the writer (after its last write) and frees the buffers; accepts a zeroed @o. */
void merge_out__release(struct merge_out *o);
/* Where the next byte put lands in the file. */
static inline uint64_t merge_out__pos(const struct merge_out *o)
{
	return o->off + o->len;
}

/* The last @len bytes put, still in the buffer (@len at most OUT_BUF_SIZE). */
static inline void *merge_out__last(struct merge_out *o, size_t len)
{
	return o->buf[o->cur] + o->len - len;
}

bool shard_less(const void *a, const void *b);
bool frame_less(const void *a, const void *b);
int merger__out_flush(struct merger *m);
int merger__out_put(struct merger *m, const void *p, size_t len);
/* A span of pass @mp's buffer: written from there when long (a reference held meanwhile). */
int merger__out_put_pass(struct merger *m, struct mpass *mp, const void *p, size_t len);
int merger__out_round(struct merger *m);
/* A FINISHED_ROUND before a span starting at @start, where perf's rule allows it and @min_bytes came since the last. */
int merger__round_before(struct merger *m, uint64_t start, uint64_t min_bytes);
bool merger__account(struct merger *m, const struct perf_event_header *h);
int auxidx_scan(struct merger *m, const unsigned char *buf, size_t len);
int merger__emit(struct merger *m, const struct perf_event_header *h, size_t len);
int merger__check_file_rec(struct merger *m, const char *name, const struct perf_event_header *h,
			   size_t len, uint64_t off);
/*
 * Checks a pass's records; a damaged one's message goes to @err. Called by
 * merge_ahead.c's loader too: it reads only what stays fixed while shards
 * are merged (the header, its checker, cpu_sw_id, the options).
 */
int merger__check_pass(const struct merger *m, const struct mshard *s, struct mpass *mp,
		       unsigned char *buf, size_t len, uint64_t base, bool frame,
		       bool *sorted, bool *framed, char *err, size_t errlen);
void pass_put(struct mpass *p);
/* Makes a copy of @len bytes at @data (decompressed records) the pass's buffer. 0 / -ENOMEM. */
int pass_own_copy(struct mpass *mp, const void *data, size_t len);
void run_free(struct mrun *r);
int merger__emit_until(struct merger *m, uint64_t limit);
long pass_decompress(struct merger *m, struct mshard *s, const struct mpass *mp,
			    bool *damaged);
int pass_add_runs(struct merger *m, struct mshard *s, struct mpass *mp, bool *damaged);
/*
 * The checking half of pass_add_runs for a plain pass (the loader's too):
 * its chunks, each checked, into @c up to a corrupt one (*@corrupt). 0, 1
 * when a damaged record drops the pass (its message in @err), -errno.
 */
int pass_check_chunks(const struct merger *m, const struct mshard *s, struct mpass *mp,
		      struct mchunks *c, bool *corrupt, char *err, size_t errlen);
/* The other half: runs of the chunks pass_check_chunks returned @checked for. */
int pass_add_checked(struct merger *m, struct mshard *s, struct mpass *mp,
		     const struct mchunks *c, int checked, bool corrupt, bool *damaged);
void merger__progress(struct merger *m, uint64_t done);
void shard_done(struct merger *m);
int merge_frames(struct merger *m);
int merge_shards(struct merger *m);
/* merge_file.c: header.data's records, and a tail file's (absent: nothing). */
int merger__copy_prologue(struct merger *m);
int merger__copy_tail(struct merger *m, const struct shard_tail *t, const char *name);
/* merge_pipe.c: the whole output in perf's pipe format (o->pipe). */
int merge_pipe__write(struct merger *m);
/*
 * merge_ahead.c: a loader thread reads (and checks, when plain) the next
 * passes of the shards the merge needs soonest while the main thread
 * merges. Not for live merges, nor compressed frames. No thread: m->ahead
 * stays NULL and passes are read in place. 0 / -ENOMEM.
 */
int merge_ahead__start(struct merger *m);
/* Queues the next passes of the shards with the lowest watermarks, up to AHEAD_PASSES. */
void merge_ahead__top_up(struct merger *m);
/*
 * Shard @s's pass read ahead, waiting for it (s->ahead set): 1 a pass in
 * *@mp, checked (*@checked: pass_check_chunks's result, @c its chunks) or
 * not (*@checked INT_MIN); 0 none left; -errno with m->err. Then done with
 * through merge_ahead__done(s). Sets m->held_ahead: the passes read
 * ahead still waiting, which merger__hold counts as held too.
 */
int merge_ahead__take(struct merger *m, struct mshard *s, struct mpass **mp,
		      const struct mchunks **c, int *checked, bool *corrupt);
void merge_ahead__done(struct mshard *s);
/* Stops the loader; passes read and not taken are freed. Accepts m->ahead NULL. */
void merge_ahead__stop(struct merger *m);
/*
 * merge_live.c (o->live): brings shard @s up to what its writer committed.
 * 1: a whole pass is unread; 0: all read and the writer ended; -EAGAIN:
 * nothing yet, after a round and a flush for the reader and a wait.
 * -errno when the wait gives up.
 */
int merge_live__poll(struct merger *m, struct mshard *s);
/* A pass of @s was loaded: the recorder may free the disk space it took. */
void merge_live__loaded(struct merger *m, struct mshard *s);
/* Reads @s's next pass into @mp, into a spare buffer when there is one: as shard_reader__next_pass. */
int merger__read_pass(struct merger *m, struct mshard *s, struct mpass *mp);
/* A spare pass buffer (its size in *@cap), or NULL (*@cap 0): the caller owns it. */
void *merger__spare_take(struct merger *m, size_t *cap);
void merger__spare_release(struct merger *m);
/* Counts a loaded pass's buffer as held until its last reference goes (pass_put). */
void merger__hold(struct merger *m, struct mpass *mp);
/*
 * merge_run.c: checks every shard's and tail file's run id against
 * header.data's (-EXDEV naming the stranger) and that no writer has two
 * shards (-EEXIST: a copy), and opens the tails; sets st->incomplete when
 * tail.raw lacks the recorder's final mark.
 */
int merge_run__check(struct merger *m);
/* Drops the run id feature; an incomplete run's CMDLINE says so. */
int merge_run__features(struct merger *m, struct pfile_featset *fs);
void merge_run__release(struct merger *m);

#endif
