// SPDX-License-Identifier: GPL-2.0
/*
 * Writing the fixed parts of a perf.data file: the 104-byte header, the attr
 * section with its id arrays, and the feature table with the payloads.
 * Everything goes through pwrite() at explicit offsets so the recorder can
 * rewrite the header while data is still being appended.
 */
#include "recorder/perfdata/pfile_write.h"
#include "recorder/perfdata/pfile_feat.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PFILE_FILE_ATTR_SIZE (PFILE_ATTR_SIZE + sizeof(struct pfile_section))

int pfile__pwrite_full(int fd, const void *buf, size_t len, uint64_t off)
{
	const unsigned char *p = buf;
	bool stream = off == PFILE_STREAM;

	if (!stream && (off > (uint64_t)INT64_MAX || len > (uint64_t)INT64_MAX - off))
		return -EFBIG;
	while (len) {
		ssize_t n = stream ? write(fd, p, len) : pwrite(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENOSPC; /* nothing written at all: no room was made */
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

void pfile_header__init(struct pfile_header *h)
{
	memset(h, 0, sizeof(*h));
	h->magic = PFILE_MAGIC;
	h->size = PFILE_HEADER_SIZE;
	h->attr_size = PFILE_FILE_ATTR_SIZE;
}

/*
 * The attr cut (or zero-extended) to PFILE_ATTR_SIZE with attr.size saying
 * so, because perf's read_attr() steps by attr.size, not by the header's
 * attr_size, and rejects anything larger than it knows; a pipe's
 * HEADER_ATTR finds its ids at perf's own sizeof(attr) likewise.
 */
void pfile_attr__fill(void *dst, const struct perf_event_attr *attr)
{
	size_t n = sizeof(*attr) < PFILE_ATTR_SIZE ? sizeof(*attr) : PFILE_ATTR_SIZE;
	uint32_t sz = PFILE_ATTR_SIZE;

	memset(dst, 0, PFILE_ATTR_SIZE);
	memcpy(dst, attr, n);
	memcpy((unsigned char *)dst + offsetof(struct perf_event_attr, size), &sz, sizeof(sz));
}

/* One perf_file_attr: the attr, then its ids section. */
static void file_attr__fill(unsigned char *dst, const struct pfile_event *ev,
			    const struct pfile_section *ids)
{
	pfile_attr__fill(dst, &ev->attr);
	memcpy(dst + PFILE_ATTR_SIZE, ids, sizeof(*ids));
}

/* Fills the attr entries in @buf; returns the end of the id arrays. */
static int file_attrs__build(unsigned char *buf, uint64_t ids_off, const struct pfile_event *ev,
			     size_t nr, uint64_t *end)
{
	struct pfile_section ids;
	size_t i;

	for (i = 0; i < nr; i++) {
		if (ev[i].nr_ids && !ev[i].ids)
			return -EINVAL;
		ids.offset = ids_off;
		ids.size = (uint64_t)ev[i].nr_ids * sizeof(uint64_t);
		if (ids.size > UINT64_MAX - ids_off)
			return -EFBIG;
		file_attr__fill(buf + i * PFILE_FILE_ATTR_SIZE, &ev[i], &ids);
		ids_off += ids.size;
	}
	*end = ids_off;
	return 0;
}

int pfile__write_attrs(int fd, uint64_t offset, const struct pfile_event *ev, size_t nr,
		       struct pfile_section *attrs, uint64_t *end)
{
	unsigned char *buf;
	uint64_t ids_off, ids_end, pos;
	size_t i, len;
	int err;

	if (nr && !ev)
		return -EINVAL;
	if (nr > SIZE_MAX / PFILE_FILE_ATTR_SIZE)
		return -E2BIG;
	len = nr * PFILE_FILE_ATTR_SIZE;
	if (len > UINT64_MAX - offset)
		return -EFBIG;
	ids_off = offset + len;
	buf = calloc(1, len ? len : 1);
	if (!buf)
		return -ENOMEM;
	err = file_attrs__build(buf, ids_off, ev, nr, &ids_end);
	if (!err)
		err = pfile__pwrite_full(fd, buf, len, offset);
	free(buf);
	if (err)
		return err;

	pos = ids_off;
	for (i = 0; i < nr; i++) {
		size_t sz = (size_t)ev[i].nr_ids * sizeof(uint64_t);

		err = pfile__pwrite_full(fd, ev[i].ids, sz, pos);
		if (err)
			return err;
		pos += sz;
	}
	attrs->offset = offset;
	attrs->size = len;
	*end = ids_end;
	return 0;
}

/* Payloads first, right after the table's slot; returns the table in @tab. */
static int features__write_payloads(int fd, uint64_t pos, const struct pfile_featset *fs,
				    struct pfile_section *tab, uint64_t *end)
{
	size_t n = 0;
	int feat, err;

	for (feat = 0; feat < PFILE_FEAT_BITS; feat++) {
		if (!pfile_featset__has(fs, feat))
			continue;
		if (fs->sec[feat].size > UINT64_MAX - pos)
			return -EFBIG;
		err = pfile__pwrite_full(fd, fs->sec[feat].data, fs->sec[feat].size, pos);
		if (err)
			return err;
		tab[n].offset = pos;
		tab[n].size = fs->sec[feat].size;
		pos += fs->sec[feat].size;
		n++;
	}
	*end = pos;
	return 0;
}

int pfile__write_features(int fd, uint64_t offset, const struct pfile_featset *fs,
			  uint64_t features[PFILE_FEAT_BITS / 64], uint64_t *end)
{
	struct pfile_section *tab;
	size_t nr = 0, len;
	int feat, err;

	memset(features, 0, PFILE_FEAT_BITS / 8);
	for (feat = 0; feat < PFILE_FEAT_BITS; feat++) {
		if (!pfile_featset__has(fs, feat))
			continue;
		features[feat / 64] |= 1ULL << (feat % 64);
		nr++;
	}
	len = nr * sizeof(*tab);
	if (len > UINT64_MAX - offset)
		return -EFBIG;
	tab = calloc(nr ? nr : 1, sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	err = features__write_payloads(fd, offset + len, fs, tab, end);
	if (!err)
		err = pfile__pwrite_full(fd, tab, len, offset);
	free(tab);
	return err;
}

int pfile__write_header(int fd, const struct pfile_header *h)
{
	return pfile__pwrite_full(fd, h, sizeof(*h), 0);
}
