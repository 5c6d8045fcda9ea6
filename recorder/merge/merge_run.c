// SPDX-License-Identifier: GPL-2.0
/*
 * One recording, whole or not: every shard and tail file must carry
 * header.data's run id (perfdata/shard_format.h), each writer has one shard, and
 * tail.raw says whether the recorder finished (perfdata/shard_tail.h).
 */
#include "recorder/merge/merge_internal.h"
#include "recorder/perfdata/pfile_feat.h"

/* What the output's CMDLINE ends with when the recorder did not finish. */
#define MERGE_INCOMPLETE_NOTE "[shardrec: incomplete run]"

static bool same_id(const uint8_t *a, const uint8_t *b)
{
	return !memcmp(a, b, SHARD_RUN_ID_SIZE);
}

/* header.data's id: its private feature; a header without one has id zero. */
static void header_run_id(struct merger *m)
{
	const struct pfile_featset *fs = &m->hdr.feats;

	memset(m->run_id, 0, sizeof(m->run_id));
	if (fs->sec[SHARD_FEAT_RUN_ID].size == SHARD_RUN_ID_SIZE)
		memcpy(m->run_id, fs->sec[SHARD_FEAT_RUN_ID].data, SHARD_RUN_ID_SIZE);
}

/*
 * A shard of another run is refused by name. When no shard has header.data's
 * id and all share one, header.data is the stranger.
 */
static int check_shards(struct merger *m)
{
	const struct mshard *odd = NULL;
	bool one_other = true;
	char a[2 * SHARD_RUN_ID_SIZE + 1], b[2 * SHARD_RUN_ID_SIZE + 1];

	for (size_t i = 0; i < m->nr_shards; i++) {
		const struct mshard *s = &m->shards[i];

		if (same_id(s->r.hdr.run_id, m->run_id)) {
			one_other = false;
		} else if (!odd) {
			odd = s;
		} else if (!same_id(s->r.hdr.run_id, odd->r.hdr.run_id)) {
			one_other = false;
		}
	}
	if (!odd)
		return 0;
	if (one_other && m->nr_shards > 1)
		snprintf(m->err, m->errlen, "%s/header.data: from another recording than the shards "
			 "(run id %s, the shards' %s): refused", m->o->dir,
			 shard__run_id_str(m->run_id, a), shard__run_id_str(odd->r.hdr.run_id, b));
	else
		snprintf(m->err, m->errlen, "%s/%s: from another recording than header.data (run id "
			 "%s, header.data's %s): refused", m->o->dir, odd->r.name,
			 shard__run_id_str(odd->r.hdr.run_id, a), shard__run_id_str(m->run_id, b));
	return -EXDEV;
}

/* Opens tail file @name into @t if present and checks its id: 0 / -errno with m->err. */
static int open_tail(struct merger *m, struct shard_tail *t, const char *name)
{
	char a[2 * SHARD_RUN_ID_SIZE + 1], b[2 * SHARD_RUN_ID_SIZE + 1];
	int ret = shard_tail__open(t, m->dirfd, name, m->err, m->errlen);

	if (ret == -ENOENT)
		return 0;
	if (ret) {
		char msg[512];

		snprintf(msg, sizeof(msg), "%s", m->err);
		snprintf(m->err, m->errlen, "%s/%s", m->o->dir, msg);
		return ret;
	}
	if (same_id(t->hdr.run_id, m->run_id))
		return 0;
	snprintf(m->err, m->errlen, "%s/%s: from another recording than header.data (run id %s, "
		 "header.data's %s): refused", m->o->dir, name,
		 shard__run_id_str(t->hdr.run_id, a), shard__run_id_str(m->run_id, b));
	return -EXDEV;
}

static int by_writer(const void *a, const void *b)
{
	const struct mshard *x = *(const struct mshard *const *)a, *y = *(const struct mshard *const *)b;

	return (x->r.hdr.writer > y->r.hdr.writer) - (x->r.hdr.writer < y->r.hdr.writer);
}

/*
 * Each writer wrote one shard: two of one writer (cp shard.0 shard.00 in a
 * kept directory) would be merged twice, every sample doubled. Refused by
 * name, as a stranger is.
 */
static int check_writers(struct merger *m)
{
	const struct mshard **v;
	int ret = 0;

	if (m->nr_shards < 2)
		return 0;
	v = malloc(m->nr_shards * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < m->nr_shards; i++)
		v[i] = &m->shards[i];
	qsort(v, m->nr_shards, sizeof(*v), by_writer);
	for (size_t i = 1; i < m->nr_shards && !ret; i++)
		if (v[i]->r.hdr.writer == v[i - 1]->r.hdr.writer) {
			snprintf(m->err, m->errlen, "%s: %s and %s are both writer %u's shard (a "
				 "copy?): refused, their samples would count twice", m->o->dir,
				 v[i - 1]->r.name, v[i]->r.name, (unsigned)v[i]->r.hdr.writer);
			ret = -EEXIST;
		}
	free(v);
	return ret;
}

int merge_run__check(struct merger *m)
{
	int ret;

	header_run_id(m);
	ret = check_shards(m);
	if (!ret)
		ret = check_writers(m);
	if (!ret)
		ret = open_tail(m, &m->tail_raw, "tail.raw");
	if (!ret)
		ret = open_tail(m, &m->tail_synth, "tail.synth");
	if (!ret)
		m->st->incomplete = m->tail_raw.fd < 0 ||
				    !(m->tail_raw.hdr.flags & SHARD_TAIL_F_COMPLETE);
	return ret;
}

int merge_run__features(struct merger *m, struct pfile_featset *fs)
{
	pfile_featset__unset(fs, SHARD_FEAT_RUN_ID);
	return m->st->incomplete ? pfile_feat__cmdline_append(fs, MERGE_INCOMPLETE_NOTE) : 0;
}

void merge_run__release(struct merger *m)
{
	shard_tail__close(&m->tail_raw);
	shard_tail__close(&m->tail_synth);
}
