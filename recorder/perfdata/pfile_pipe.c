// SPDX-License-Identifier: GPL-2.0
/* perf's pipe format: the records that stand in for the file header (pfile_pipe.h). */
#include "recorder/perfdata/pfile_pipe.h"
#include "recorder/perfdata/pfile_feat.h"
#include "recorder/perfdata/pfile_write.h"

#include <errno.h>
#include <string.h>

#define REC_MAX UINT16_MAX
/* sizeof(struct perf_record_event_update) in perf 6.1: header, type, id, a 16-byte union */
#define EVENT_UPDATE_SIZE 40
#define TRACING_DATA_REC_SIZE 16 /* header, u32 size, and the struct's padding */

/*
 * Room for a record of @size bytes and @extra bytes after it that its
 * header.size does not count, zeroed, the header filled; NULL with *@err.
 */
static unsigned char *rec_new(struct recbuf *b, uint32_t type, size_t size, size_t extra, int *err)
{
	struct perf_event_header h = {.type = type, .size = (uint16_t)size};
	unsigned char *p;

	*err = size > REC_MAX ? -E2BIG : -ENOMEM;
	if (size > REC_MAX || !(p = recbuf__reserve(b, size + extra)))
		return NULL;
	memcpy(p, &h, sizeof(h));
	*err = 0;
	return p;
}

int pfile_pipe__header(struct recbuf *b)
{
	uint64_t h[2] = {PFILE_MAGIC, PFILE_PIPE_HEADER_SIZE};

	return recbuf__append(b, h, sizeof(h));
}

/* perf_event__synthesize_attr(): the attr, then the ids right after it. */
int pfile_pipe__attr(struct recbuf *b, const struct pfile_event *ev)
{
	size_t ids = (size_t)ev->nr_ids * sizeof(uint64_t);
	size_t size = sizeof(struct perf_event_header) + PFILE_ATTR_SIZE + ids;
	int err;
	unsigned char *p = rec_new(b, PFILE_REC_HEADER_ATTR, size, 0, &err);

	if (!p)
		return err;
	pfile_attr__fill(p + sizeof(struct perf_event_header), &ev->attr);
	if (ids)
		memcpy(p + sizeof(struct perf_event_header) + PFILE_ATTR_SIZE, ev->ids, ids);
	return 0;
}

bool pfile_pipe__feature_synthesized(int feat)
{
	switch (feat) {
	case PFILE_FEAT_TRACING_DATA:
	case PFILE_FEAT_BUILD_ID:
	case PFILE_FEAT_BRANCH_STACK:
	case PFILE_FEAT_AUXTRACE:
	case PFILE_FEAT_STAT:
	case PFILE_FEAT_CACHE:
	case PFILE_FEAT_DIR_FORMAT:
	case PFILE_FEAT_HYBRID_TOPOLOGY:
		return false;
	default:
		return feat > 0 && feat < PFILE_FEAT_LAST;
	}
}

static int feature_rec(struct recbuf *b, int feat, const void *data, size_t len)
{
	uint64_t id = feat;
	size_t size = sizeof(struct perf_event_header) + sizeof(id) + len;
	int err;
	unsigned char *p = rec_new(b, PFILE_REC_HEADER_FEATURE, size, 0, &err);

	if (!p)
		return err;
	memcpy(p + sizeof(struct perf_event_header), &id, sizeof(id));
	if (len)
		memcpy(p + sizeof(struct perf_event_header) + sizeof(id), data, len);
	return 0;
}

/* perf_event__synthesize_features(): an empty section is not sent at all. */
int pfile_pipe__features(struct recbuf *b, const struct pfile_featset *fs, int *skipped)
{
	int err = 0;

	*skipped = -1;
	for (int feat = 0; !err && feat < PFILE_FEAT_BITS; feat++) {
		if (!pfile_pipe__feature_synthesized(feat) || !pfile_featset__has(fs, feat) ||
		    !fs->sec[feat].size)
			continue;
		err = feature_rec(b, feat, fs->sec[feat].data, fs->sec[feat].size);
		if (err == -E2BIG) {
			*skipped = feat;
			err = 0;
		}
	}
	return err ? err : feature_rec(b, PFILE_FEAT_LAST, NULL, 0);
}

/* perf_event__synthesize_tracing_data(): the record says the padded size. */
int pfile_pipe__tracing_data(struct recbuf *b, const void *data, size_t len)
{
	size_t padded = (len + 7) & ~(size_t)7;
	uint32_t size = padded;
	unsigned char *p;
	int err;

	if (padded > UINT32_MAX)
		return -E2BIG;
	/* header.size counts the record only: the data follows it, outside. */
	p = rec_new(b, PFILE_REC_HEADER_TRACING_DATA, TRACING_DATA_REC_SIZE, padded, &err);
	if (!p)
		return err;
	memcpy(p + sizeof(struct perf_event_header), &size, sizeof(size));
	memcpy(p + TRACING_DATA_REC_SIZE, data, len);
	return 0;
}

/* event_update_event__new(): the payload after the 40 bytes, 8-aligned, zero-filled. */
int pfile_pipe__event_update(struct recbuf *b, enum pfile_event_update type, uint64_t id,
			     const char *s, double scale)
{
	size_t len = type == PFILE_EVENT_UPDATE_SCALE ? sizeof(scale) : strlen(s) + 1;
	size_t size = (EVENT_UPDATE_SIZE + len + 7) & ~(size_t)7;
	uint64_t t = type;
	int err;
	unsigned char *p = rec_new(b, PFILE_REC_EVENT_UPDATE, size, 0, &err);

	if (!p)
		return err;
	memcpy(p + 8, &t, sizeof(t));
	memcpy(p + 16, &id, sizeof(id));
	memcpy(p + 24, type == PFILE_EVENT_UPDATE_SCALE ? (const void *)&scale : s, len);
	return 0;
}
