// SPDX-License-Identifier: GPL-2.0
#include "recorder/capture/rotate.h"
#include "recorder/codec/zunpass.h"
#include "recorder/header/dso_hits.h"
#include "recorder/perfdata/shard.h"
#include "recorder/util/log.h"
#include "recorder/util/progress.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* A finished generation waiting for its merge. */
struct rotate_job {
	struct rotate_job *next;
	char name[32];        /* its directory in the top one */
	char dir[PATH_MAX];   /* FILE.shards/N, for messages and merge_opts */
	char output[PATH_MAX];
	int dirfd;
	uint64_t lost_samples;
};

struct rotate_files {
	struct rotate_files_opts o;
	pthread_mutex_t lock; /* the queue and closing */
	pthread_cond_t cond;
	struct rotate_job *head, **tailp;
	bool closing;
	pthread_t thread;
	bool started;
	unsigned not_queued;  /* the caller's: generations the thread never got */
	/* The merging thread's alone until rotate_files__finish has joined it. */
	char **kept;          /* --switch-max-files: the newest files, a ring */
	unsigned next_kept;
	unsigned written, failed;
	uint64_t failed_lost; /* the kernel's lost samples in the generations not merged */
	char *last;           /* the newest file written */
	struct merge_stats total;
};

struct rotate_files *rotate_files__new(const struct rotate_files_opts *o)
{
	struct rotate_files *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->o = *o;
	f->tailp = &f->head;
	if (o->max_files && !(f->kept = calloc(o->max_files, sizeof(*f->kept)))) {
		free(f);
		return NULL;
	}
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
	return f;
}

/* The counters the summary adds up over every file (no per-event arrays). */
static const size_t stats_sums[] = {
	offsetof(struct merge_stats, records), offsetof(struct merge_stats, samples),
	offsetof(struct merge_stats, bytes_out), offsetof(struct merge_stats, bytes_in),
	offsetof(struct merge_stats, bytes_raw), offsetof(struct merge_stats, lost_records),
	offsetof(struct merge_stats, lost_events), offsetof(struct merge_stats, lost_samples),
	offsetof(struct merge_stats, late), offsetof(struct merge_stats, aux_records),
	offsetof(struct merge_stats, aux_truncated), offsetof(struct merge_stats, aux_overwrite),
	offsetof(struct merge_stats, aux_partial), offsetof(struct merge_stats, aux_collision),
	offsetof(struct merge_stats, auxtrace_records), offsetof(struct merge_stats, auxtrace_bytes),
	offsetof(struct merge_stats, rounds), offsetof(struct merge_stats, truncated_shards),
	offsetof(struct merge_stats, damaged_shards),
};

static void stats_add(struct merge_stats *t, const struct merge_stats *s)
{
	for (size_t i = 0; i < sizeof(stats_sums) / sizeof(stats_sums[0]); i++)
		*(uint64_t *)((char *)t + stats_sums[i]) +=
			*(const uint64_t *)((const char *)s + stats_sums[i]);
	t->compressed |= s->compressed;
	t->incomplete |= s->incomplete;
	t->nr_build_ids += s->nr_build_ids;
	t->seconds += s->seconds;
}

/* --switch-max-files: @output takes the oldest one's place, which is removed. */
static void rotate_files__keep(struct rotate_files *f, const char *output)
{
	char **slot;

	if (!f->o.max_files)
		return;
	slot = &f->kept[f->next_kept];
	f->next_kept = (f->next_kept + 1) % f->o.max_files;
	if (*slot && unlink(*slot) && errno != ENOENT)
		pr_warn("--switch-max-files: %s not removed: %s", *slot, strerror(errno));
	free(*slot);
	*slot = strdup(output);
}

static void rotate_files__merge(struct rotate_files *f, struct rotate_job *j, bool progress)
{
	struct merge_opts mo = {
		.dir = j->dir, .have_dirfd = true, .dirfd = j->dirfd, .output = j->output,
		.build_ids = f->o.build_ids, .dec = &zunpass__ops,
		.hits = f->o.buildid_all ? &dso_hits__all_ops : &dso_hits__ops,
		.features = f->o.features, .features_arg = f->o.features_arg,
	};
	struct merge_stats ms;
	struct progress prog;
	char err[1024];

	if (progress) {
		progress__init(&prog, "merging", stderr);
		mo.progress = progress__cb;
		mo.progress_arg = &prog;
	}
	if (merge__run(&mo, &ms, err, sizeof(err))) {
		pr_err("merge failed: %s; shards kept in %s (retry: shardrec merge %s -o %s)", err,
		       j->dir, j->dir, j->output);
		f->failed++;
		f->failed_lost += j->lost_samples;
	} else {
		if (progress)
			progress__finish(&prog, ms.bytes_in, ms.bytes_in);
		if (err[0])
			pr_warn("%s", err);
		if (!f->o.quiet)
			pr_info("[ shardrec record: Dump %s ]", j->output);
		stats_add(&f->total, &ms);
		f->written++;
		free(f->last);
		f->last = strdup(j->output);
		rotate_files__keep(f, j->output);
		if (!f->o.keep_shards) {
			shard_dir__unlink(j->dirfd, f->o.nr_shards);
			unlinkat(f->o.topfd, j->name, AT_REMOVEDIR);
		}
	}
	merge_stats__release(&ms);
	close(j->dirfd);
	free(j);
}

static struct rotate_job *rotate_files__next(struct rotate_files *f)
{
	struct rotate_job *j;

	pthread_mutex_lock(&f->lock);
	while (!f->head && !f->closing)
		pthread_cond_wait(&f->cond, &f->lock);
	j = f->head;
	if (j && !(f->head = j->next))
		f->tailp = &f->head;
	pthread_mutex_unlock(&f->lock);
	return j;
}

/* The background merger: one file after the other, until closed and drained. */
static void *rotate_files__thread(void *arg)
{
	struct rotate_files *f = arg;
	struct rotate_job *j;

	pthread_setname_np(pthread_self(), "shardrec-merge");
	while ((j = rotate_files__next(f)))
		rotate_files__merge(f, j, false);
	return NULL;
}

static struct rotate_job *rotate_job__new(const struct rotate_gen_done *g)
{
	struct rotate_job *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	snprintf(j->name, sizeof(j->name), "%s", g->name);
	snprintf(j->dir, sizeof(j->dir), "%s", g->dir);
	snprintf(j->output, sizeof(j->output), "%s", g->output);
	j->dirfd = g->dirfd;
	j->lost_samples = g->lost_samples;
	return j;
}

/*
 * Started from the session's thread, whose mask (session__signals) holds
 * back every signal it handles: they stay with its signalfd.
 */
static int rotate_files__start(struct rotate_files *f)
{
	int err = -pthread_create(&f->thread, NULL, rotate_files__thread, f);

	f->started = !err;
	return err;
}

int rotate_files__add(struct rotate_files *f, const struct rotate_gen_done *g)
{
	struct rotate_job *j = rotate_job__new(g);
	int err = j ? 0 : -ENOMEM;

	if (!err && !f->started)
		err = rotate_files__start(f);
	if (err) {
		free(j);
		close(g->dirfd);
		f->not_queued++;
		f->failed_lost += g->lost_samples;
		return err;
	}
	pthread_mutex_lock(&f->lock);
	*f->tailp = j;
	f->tailp = &j->next;
	pthread_cond_signal(&f->cond);
	pthread_mutex_unlock(&f->lock);
	return 0;
}

static void rotate_files__join(struct rotate_files *f)
{
	if (!f->started)
		return;
	pthread_mutex_lock(&f->lock);
	f->closing = true;
	pthread_cond_signal(&f->cond);
	pthread_mutex_unlock(&f->lock);
	pthread_join(f->thread, NULL);
	f->started = false;
}

unsigned rotate_files__finish(struct rotate_files *f, const struct rotate_gen_done *g,
			      struct merge_stats *total)
{
	struct rotate_job *j = rotate_job__new(g);

	rotate_files__join(f);
	if (j) {
		rotate_files__merge(f, j, !f->o.quiet);
	} else {
		pr_err("merge of %s: %s; shards kept", g->dir, strerror(ENOMEM));
		close(g->dirfd);
		f->failed++;
		f->failed_lost += g->lost_samples;
	}
	*total = f->total;
	return f->failed + f->not_queued;
}

unsigned rotate_files__written(const struct rotate_files *f)
{
	return f->written;
}

const char *rotate_files__last(const struct rotate_files *f)
{
	return f->last;
}

unsigned rotate_files__unmerged(const struct rotate_files *f, uint64_t *lost_samples)
{
	*lost_samples = f->failed_lost;
	return f->failed + f->not_queued;
}

void rotate_files__delete(struct rotate_files *f)
{
	if (!f)
		return;
	rotate_files__join(f);
	for (unsigned i = 0; i < f->o.max_files; i++)
		free(f->kept[i]);
	free(f->kept);
	free(f->last);
	pthread_cond_destroy(&f->cond);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

int rotate__timestamp(char *buf, size_t len)
{
	struct timeval tv;
	struct tm tm;
	char dt[32];

	if (gettimeofday(&tv, NULL) || !localtime_r(&tv.tv_sec, &tm) ||
	    !strftime(dt, sizeof(dt), "%Y%m%d%H%M%S", &tm))
		return -EINVAL;
	snprintf(buf, len, "%s%02u", dt, (unsigned)tv.tv_usec / 10000);
	return 0;
}
