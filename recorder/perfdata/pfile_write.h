/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfile_write: writing a perf.data file (pfile_write.c): the file header,
 * the attr section and the feature section around a data section the
 * caller writes, and the one full-write loop every writer uses.
 */
#ifndef SHARDREC_PFILE_WRITE_H
#define SHARDREC_PFILE_WRITE_H

#include "recorder/perfdata/pfile_format.h"

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Writes the attr section at @offset: N entries of (attr at PFILE_ATTR_SIZE,
 * ids section), followed by the id arrays. Sets @attrs to the attr entries'
 * section and *@end to the first byte after everything written.
 * 0 / -errno.
 */
int pfile__write_attrs(int fd, uint64_t offset, const struct pfile_event *ev, size_t nr,
		       struct pfile_section *attrs, uint64_t *end);

/*
 * Writes the feature table at @offset (one {offset,size} per set feature,
 * ascending bit order) then the payloads; fills @features (the header's
 * bitmap) and *@end. 0 / -errno.
 */
int pfile__write_features(int fd, uint64_t offset, const struct pfile_featset *fs,
			  uint64_t features[PFILE_FEAT_BITS / 64], uint64_t *end);

/*
 * pwrite()s all @len bytes at @off, retrying EINTR and short writes.
 * 0 / -errno (-ENOSPC when a write makes no progress, -EFBIG past the
 * largest offset). Every writer of perf.data, shard side files included.
 * @off PFILE_STREAM: write()s at the fd's position instead, for an output
 * that cannot seek (perf's pipe format); -EPIPE when its reader is gone
 * (SIGPIPE ignored). Its reading twin, pfile__pread_full, is in pfile.h.
 */
#define PFILE_STREAM UINT64_MAX
int pfile__pwrite_full(int fd, const void *buf, size_t len, uint64_t off);

/* @attr at PFILE_ATTR_SIZE bytes into @dst, attr.size set to it. */
void pfile_attr__fill(void *dst, const struct perf_event_attr *attr);

/* Writes the 104-byte file header at offset 0. 0 / -errno. */
int pfile__write_header(int fd, const struct pfile_header *h);

/* Fills a header's constant fields (magic, size, attr_size). */
void pfile_header__init(struct pfile_header *h);

#endif
