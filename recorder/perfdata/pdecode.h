/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The decoder of compressed records, as ops (libperf's
 * perf_evlist_mmap_ops habit): codec/ implements it with zstd
 * (zunpass__ops), merge/ and loss/ call it. The type lives here, in the
 * format layer both sides include, so codec/ includes nothing of its
 * callers and merge/ and loss/ link without libzstd.
 */
#ifndef SHARDREC_PDECODE_H
#define SHARDREC_PDECODE_H

#include <linux/perf_event.h>
#include <stddef.h>

/* Called for each decompressed record; a non-zero return stops the feed and is returned. */
typedef int (*pdecode_cb)(const struct perf_event_header *h, void *arg);

/*
 * ZPASS payloads (whole frames, one pass at a time: merge) and the
 * COMPRESSED records of one perf.data as one stream (perf's way: loss).
 */
struct pdecode_ops {
	/* A decoder, NULL on ENOMEM; freed by delete (which accepts NULL). */
	void *(*new)(void);
	void (*delete)(void *dec);
	/* zunpass__run: bytes produced or -EBADMSG with the bad offset. */
	long (*pass_run)(void *dec, const unsigned char *in, size_t len, unsigned char *out,
			 size_t cap, size_t *bad_off, size_t *produced);
	/* zunpass__bound: most bytes a payload can decompress to. */
	size_t (*pass_bound)(const unsigned char *in, size_t len);
	/* pdecomp__feed: 0, the callback's return, -EINVAL. */
	int (*stream_feed)(void *dec, const void *src, size_t len, pdecode_cb cb, void *arg);
};

#endif
