/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The files of a rotated recording (perf's --switch-output and
 * --timestamp-filename; session_rotate.c switches the generations): each
 * finished generation, a complete shard directory FILE.shards/N, is merged
 * by a background thread into FILE.<timestamp> while recording goes on,
 * one after the other in the order they ended; --switch-max-files removes
 * the oldest files beyond the limit. The last one is merged by the caller,
 * with the progress display, after the others.
 */
#ifndef SHARDREC_ROTATE_H
#define SHARDREC_ROTATE_H

#include "recorder/merge/merge.h"

#include <stdbool.h>
#include <stddef.h>

struct rotate_files_opts {
	int topfd;          /* FILE.shards, the generations' parent; not owned */
	size_t nr_shards;   /* shards per generation: one per writer */
	unsigned max_files; /* --switch-max-files, 0 = keep every file */
	bool keep_shards;   /* leave the generations' directories */
	bool build_ids;     /* as merge_opts */
	bool buildid_all;   /* --buildid-all */
	bool quiet;         /* no "Dump" line, no progress */
	/* as merge_opts (the recording's BPF programs); called from the merging thread */
	int (*features)(struct pfile_featset *fs, void *arg);
	void *features_arg;
};

struct rotate_files;

/* A finished generation to merge. */
struct rotate_gen_done {
	const char *name;      /* its directory in the top one */
	const char *dir;       /* the same path, for messages */
	int dirfd;             /* owned by rotate_files from the call on */
	const char *output;    /* FILE.<timestamp> */
	uint64_t lost_samples; /* the kernel's count in its tail.raw, for a summary without its file */
};

/* NULL on ENOMEM. The thread starts with the first file, to run without the capabilities. */
struct rotate_files *rotate_files__new(const struct rotate_files_opts *o);
/*
 * Queues @g to be merged in the background. 0 / -errno (the thread could
 * not start: the generation counts as not merged, its dirfd is closed).
 */
int rotate_files__add(struct rotate_files *f, const struct rotate_gen_done *g);
/*
 * Waits for the queued merges, then merges the last generation the same
 * way here. @total: the sum of every file's figures (its arrays NULL).
 * Returns how many merges failed (each said why, and kept its shards).
 */
unsigned rotate_files__finish(struct rotate_files *f, const struct rotate_gen_done *g,
			      struct merge_stats *total);
/* Files written so far (after finish: all). */
unsigned rotate_files__written(const struct rotate_files *f);
/* After finish: the newest file written, NULL if none. */
const char *rotate_files__last(const struct rotate_files *f);
/* After finish: generations left unmerged, and *@lost_samples the kernel counted in them. */
unsigned rotate_files__unmerged(const struct rotate_files *f, uint64_t *lost_samples);
/* Waits for the thread if it still runs, frees. Accepts NULL. */
void rotate_files__delete(struct rotate_files *f);

/* perf's fetch_current_timestamp: YYYYmmddHHMMSScc, local time, into @buf (>= 17 bytes). */
int rotate__timestamp(char *buf, size_t len);

#endif
