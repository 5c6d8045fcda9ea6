/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What merge/ and loss need from the layers above them, as ops their caller
 * passes in (libperf's perf_evlist_mmap_ops habit): the zstd decoder of
 * codec/ (zunpass__ops) and the DSO hit tracking of header/ (dso_hits__ops).
 * So merge/ links with the format library alone, without zstd or the
 * recorder.
 */
#ifndef SHARDREC_MERGE_OPS_H
#define SHARDREC_MERGE_OPS_H

#include <linux/perf_event.h>
#include <stddef.h>

struct pfile_idlayout;
struct pfile_featset;

/* Called for each decompressed record; a non-zero return stops the feed and is returned. */
typedef int (*merge_record_cb)(const struct perf_event_header *h, void *arg);

/*
 * The decoder: ZPASS payloads (whole frames, one pass at a time: merge) and
 * the COMPRESSED records of one perf.data as one stream (perf's way: loss).
 */
struct merge_decoder {
	/* A decoder, NULL on ENOMEM; freed by delete (which accepts NULL). */
	void *(*new)(void);
	void (*delete)(void *dec);
	/* zunpass__run: bytes produced or -EBADMSG with the bad offset. */
	long (*pass_run)(void *dec, const unsigned char *in, size_t len, unsigned char *out,
			 size_t cap, size_t *bad_off, size_t *produced);
	/* zunpass__bound: most bytes a payload can decompress to. */
	size_t (*pass_bound)(const unsigned char *in, size_t len);
	/* pdecomp__feed: 0, the callback's return, -EINVAL. */
	int (*stream_feed)(void *dec, const void *src, size_t len, merge_record_cb cb, void *arg);
};

/* BUILD_IDs of the DSOs samples hit (perf record's default). */
struct merge_hits {
	/* NULL on ENOMEM; delete accepts NULL. */
	void *(*new)(const struct pfile_idlayout *layout);
	void (*delete)(void *hits);
	void (*feed)(void *hits, const struct perf_event_header *rec);
	/* Adds HEADER_BUILD_ID to @fs; *@nr ids. 0 / -errno. */
	int (*encode)(void *hits, struct pfile_featset *fs, size_t *nr);
};

#endif
