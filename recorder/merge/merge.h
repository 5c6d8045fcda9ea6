/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Merge: stitches a shard directory into one perf.data.
 *
 * DIR/header.data  a perf.data written before recording: attrs, ids,
 *                  features, and the synthesized records as its data
 * DIR/shard.N      one per writer (recorder/perfdata/shard_format.h)
 * DIR/tail.raw     records for the end (LOST_SAMPLES), reserved when recording
 *                  starts and marked complete when it ends (perfdata/shard_tail.h);
 *                  without the mark the run is incomplete, said in merge_stats
 *                  and as the output's last CMDLINE word
 * DIR/tail.synth   the tasks described again at the end (--overwrite,
 *                  --tail-synthesize), if any
 * All of them carry one run id: a file of another recording is refused.
 *
 * Output data: header.data's records (time 0, processed as read) and
 * tail.synth's, then every shard record in global time order with
 * FINISHED_ROUND records, then tail.raw. Memory is bounded by the data
 * inside the merge window, not by the recording's size.
 *
 * Compressed shards (-z) hold whole zstd frames per pass. The merge copies
 * frames without recompressing: frames are ordered by their first
 * timestamp and FINISHED_ROUND records are placed only where perf's round
 * rule holds, so readers see every event in time order after their
 * one-round sort; `decompress` writes plain, globally sorted records instead.
 *
 * Just over ~150 lines: this format comment, merge_opts and merge_stats
 * (every figure a summary prints), and the calls.
 */
#ifndef SHARDREC_MERGE_H
#define SHARDREC_MERGE_H

#include "recorder/perfdata/pdecode.h"
#include "recorder/perfdata/phits.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The shards of a recording still being written (record -o -): the merge
 * reads each shard up to what its writer has committed and waits for more,
 * so a record goes out once every writer's watermark has passed it. Called
 * from the merging thread; the recorder implements them.
 */
struct merge_live {
	/* Bytes of whole passes shard.@idx holds now; *@ended once no more will come. */
	uint64_t (*committed)(void *arg, unsigned idx, bool *ended);
	/* True once the recording is over and the tail files are written. */
	bool (*finished)(void *arg);
	/* Nothing to merge until a writer writes more: sleeps a little. 0, or -errno to give up. */
	int (*wait)(void *arg);
	/* shard.@idx is loaded up to @off: the bytes before may leave the disk. NULL: kept. */
	void (*consumed)(void *arg, unsigned idx, uint64_t off);
	void *arg;
};

struct merge_opts {
	const char *dir;  /* for messages, and opened unless have_dirfd */
	bool have_dirfd;  /* dirfd is the shard directory, opened by the caller (dup'ed) */
	int dirfd;
	const char *output;
	bool build_ids; /* BUILD_ID of hit DSOs (perf record's default), through @hits */
	/* codec/'s zunpass__ops; NULL: compressed shards fail with -ENOTSUP */
	const struct pdecode_ops *dec;
	/* header/'s dso_hits__ops; NULL: no BUILD_ID feature even with build_ids */
	const struct phits_ops *hits;
	/*
	 * NULL, or called with the output's features before they are written:
	 * the caller replaces sections it knows better than header.data (the
	 * recorder: BPF programs loaded while it recorded). 0 / -errno.
	 */
	int (*features)(struct pfile_featset *fs, void *arg);
	void *features_arg;
	bool recover;   /* accept shards cut by a kill or damaged: keep what precedes */
	bool decompress; /* compressed shards: write plain, time-sorted records */
	uint64_t slack_ns; /* 0 = default */
	/*
	 * Pipe mode (-o -): perf's pipe format, written to @pipe_fd (not
	 * closed here) as the merge goes, instead of the file @output (which
	 * then only names it in messages). Features go first as HEADER_FEATURE
	 * records and no BUILD_ID is collected, as perf 6.1's pipe mode does.
	 * Compressed shards are written plain: perf 6.1 cannot decompress
	 * COMPRESSED records from a pipe, not even its own.
	 */
	bool pipe;
	int pipe_fd;
	const struct merge_live *live; /* NULL: the shards are finished files */
	/* Called about every 4 MiB with bytes done and total; NULL = none. */
	void (*progress)(uint64_t done, uint64_t total, void *arg);
	void *progress_arg;
};

struct merge_stats {
	uint64_t records, samples, bytes_out, bytes_in;
	uint64_t bytes_raw;    /* ring bytes the shards hold, decompressed */
	bool compressed;       /* the output carries COMPRESSED records */
	uint64_t lost_records; /* PERF_RECORD_LOST: sum of lost */
	uint64_t lost_events;  /* number of PERF_RECORD_LOST records */
	uint64_t lost_samples; /* PERF_RECORD_LOST_SAMPLES: sum of lost */
	uint64_t late;         /* records older than one already written */
	/* a file merged again with a wider window, for records a stalled CPU published late */
	uint64_t window_ns, lag_ns;
	uint64_t aux_records;  /* PERF_RECORD_AUX */
	/* PERF_RECORD_AUX records flagged: each marks a hole or doubt in the AUX trace */
	uint64_t aux_truncated, aux_overwrite, aux_partial, aux_collision;
	uint64_t auxtrace_records, auxtrace_bytes; /* AUXTRACE records, their trace bytes */
	uint64_t rounds;
	uint64_t first_time, last_time; /* first and last sample time */
	uint64_t truncated_shards;
	uint64_t damaged_shards; /* shards with a corrupt pass or a damaged record */
	/* --recover: passes dropped for a record perf would reject; header.data and
	 * tail records, and header.data features, dropped likewise */
	uint64_t dropped_passes, dropped_records, dropped_features;
	bool incomplete; /* the recorder did not finish (killed, or still recording) */
	/* samples carrying another recording's id, given back their CPU's event's (merge.c) */
	uint64_t relabeled;
	uint64_t peak_held; /* most bytes of passes loaded and not yet written out */
	size_t nr_build_ids;
	double seconds;
	uint64_t *samples_per_event; /* malloc'ed, nr_events entries */
	size_t nr_events;
};

/*
 * 0 / -errno with one line in @err. The output is complete or absent, never
 * half-written; in pipe mode what was written stays written (-EPIPE: the
 * reader is gone).
 */
int merge__run(const struct merge_opts *o, struct merge_stats *st, char *err, size_t errlen);
void merge_stats__release(struct merge_stats *st);
/*
 * One line on late records for the user: out of order (st->late, a pipe
 * or the last try), or placed by a wider window. False: nothing to say.
 */
bool merge_stats__late_note(const struct merge_stats *st, char *buf, size_t len);

/*
 * Replaces @path by a finished file @tmp: an existing file at @path, or a
 * symbolic link there, becomes @path.old, like perf's check_backup.
 */
int merge__publish(const char *tmp, const char *path);

/*
 * Where perf record would write @path, into @out: a symbolic link to
 * nothing, or to an empty file, is written through (perf opens the name
 * with O_CREAT, after a backup that skips empty and missing files), so
 * perf.data -> /scratch/x.data fills /scratch; any other @path is itself.
 * 0 / -errno (-ENAMETOOLONG).
 */
int merge__resolve_output(const char *path, char *out, size_t len);

/*
 * Before recording into @path, what the merge at the end cannot do is
 * said now: a device, FIFO or socket at @path, or a name in /dev, /proc or
 * /sys (-EINVAL: no place for FILE.partial and its rename), another user's
 * file in a sticky directory (-EPERM: it cannot become @path.old). Then
 * perf's check_backup where it matters: a directory at @path (what perf
 * record --threads leaves) becomes @path.old now, an old @path.old going
 * first when it is perf's (a file, or a directory of data and data.N
 * files); for a file at @path, which merge__publish moves at the end, a
 * @path.old that could not go then is said now. 0 / -errno with one line
 * in @err.
 */
int merge__prepare_output(const char *path, char *err, size_t errlen);

#endif
