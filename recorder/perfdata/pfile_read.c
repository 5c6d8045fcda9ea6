// SPDX-License-Identifier: GPL-2.0
/*
 * Reading perf.data files: pfile__open() validates the header, attrs, id
 * arrays and feature table and loads them; pfile_reader walks the records of
 * a range with buffered pread().
 *
 * Nothing read from the file is trusted: every offset and size is checked
 * against the file size with overflow-safe arithmetic before use, because
 * this code also runs under a fuzzer and on files of killed recorders.
 */
#include "recorder/perfdata/pfile.h"
#include "recorder/perfdata/pfile_feat.h"
#include "recorder/perfdata/pcursor.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PFILE_FEAT_MAX_SIZE (256ULL << 20) /* sanity bound for one feature */
#define PFILE_READER_DEFAULT_BUF (1U << 20)
#define PFILE_MIN_ATTR_SIZE 64
#define PFILE_MAX_ATTR_SIZE 4096
#define PFILE_MAGIC_SWAPPED 0x50455246494c4532ULL
#define PFILE_AUXTRACE_HDR_MIN 16 /* header + the u64 payload size */

__attribute__((format(printf, 4, 5))) static void set_err(char *err, size_t errlen,
							  const char *path, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err || !errlen)
		return;
	n = snprintf(err, errlen, "%s: ", path);
	if (n < 0 || (size_t)n >= errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - n, fmt, ap);
	va_end(ap);
}

int pfile__pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	unsigned char *p = buf;

	if (off > (uint64_t)INT64_MAX || len > (uint64_t)INT64_MAX - off)
		return -EINVAL;
	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EINVAL;
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

/* [off, off + size) lies inside [0, limit), without overflow. */
static bool range_ok(uint64_t off, uint64_t size, uint64_t limit)
{
	return off <= limit && size <= limit - off;
}

/* ---- header ---- */

/*
 * 0, or -EINVAL with one line. A file of the other byte order is
 * -ENOEXEC: not damaged, and nothing else to say (the merge's header.data
 * gets no "killed recorder" guess).
 */
static int header__check_magic(const struct pfile_header *h, char *err, size_t errlen,
			       const char *path)
{
	if (h->magic == PFILE_MAGIC)
		return 0;
	if (h->magic == PFILE_MAGIC_SWAPPED) {
		set_err(err, errlen, path,
			"perf.data written on a machine of the other byte order (%s); shardrec "
			"reads it only there",
			__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? "little-endian" : "big-endian");
		return -ENOEXEC;
	}
	if (!memcmp(&h->magic, "PERFFILE", 8))
		set_err(err, errlen, path, "legacy PERFFILE format is not supported");
	else
		set_err(err, errlen, path, "bad magic");
	return -EINVAL;
}

/* @s lies after the file header and inside the file; else says which section, where. */
static bool section__in_file(const struct pfile *pf, const struct pfile_section *s,
			     const char *what, char *err, size_t errlen, const char *path)
{
	if (s->offset >= PFILE_HEADER_SIZE && range_ok(s->offset, s->size, pf->file_size))
		return true;
	set_err(err, errlen, path, "%s section %llu+%llu outside the file (%llu bytes)", what,
		(unsigned long long)s->offset, (unsigned long long)s->size,
		(unsigned long long)pf->file_size);
	return false;
}

static int header__check_attrs(const struct pfile *pf, char *err, size_t errlen, const char *path)
{
	const struct pfile_header *h = &pf->hdr;

	if (h->attr_size < PFILE_MIN_ATTR_SIZE || h->attr_size > PFILE_MAX_ATTR_SIZE ||
	    h->attr_size % 8) {
		set_err(err, errlen, path, "attr_size %llu out of range",
			(unsigned long long)h->attr_size);
		return -EINVAL;
	}
	if (!section__in_file(pf, &h->attrs, "attr", err, errlen, path))
		return -EINVAL;
	if (!h->attrs.size) {
		set_err(err, errlen, path, "no attrs");
		return -EINVAL;
	}
	if (h->attrs.size % h->attr_size) {
		set_err(err, errlen, path, "attr section size %llu is not a multiple of %llu",
			(unsigned long long)h->attrs.size, (unsigned long long)h->attr_size);
		return -EINVAL;
	}
	return 0;
}

static bool sections_overlap(const struct pfile_section *a, const struct pfile_section *b)
{
	return a->offset < b->offset + b->size && b->offset < a->offset + a->size;
}

static int header__check_data(const struct pfile *pf, char *err, size_t errlen, const char *path)
{
	const struct pfile_header *h = &pf->hdr;

	if (!section__in_file(pf, &h->data, "data", err, errlen, path))
		return -EINVAL;
	if (sections_overlap(&h->attrs, &h->data)) {
		set_err(err, errlen, path, "attr and data sections overlap");
		return -EINVAL;
	}
	if (!h->data.size && pf->file_size > h->data.offset) {
		set_err(err, errlen, path,
			"data size is 0 but %llu bytes follow the data offset (killed recorder?)",
			(unsigned long long)(pf->file_size - h->data.offset));
		return -ENODATA;
	}
	return 0;
}

static int header__read(struct pfile *pf, char *err, size_t errlen, const char *path)
{
	struct pfile_header *h = &pf->hdr;
	int ret;

	if (pf->file_size < sizeof(h->magic)) {
		set_err(err, errlen, path, "truncated header (%llu bytes)",
			(unsigned long long)pf->file_size);
		return -EINVAL;
	}
	ret = pfile__pread_full(pf->fd, h, pf->file_size < sizeof(*h) ? sizeof(h->magic) : sizeof(*h), 0);
	if (ret) {
		set_err(err, errlen, path, "cannot read header: %s", strerror(-ret));
		return ret;
	}
	ret = header__check_magic(h, err, errlen, path);
	if (ret)
		return ret;
	if (pf->file_size < sizeof(*h)) {
		set_err(err, errlen, path, "truncated header (%llu bytes)",
			(unsigned long long)pf->file_size);
		return -EINVAL;
	}
	if (h->size != PFILE_HEADER_SIZE) {
		set_err(err, errlen, path, "header size %llu unsupported",
			(unsigned long long)h->size);
		return -EINVAL;
	}
	ret = header__check_attrs(pf, err, errlen, path);
	if (!ret)
		ret = header__check_data(pf, err, errlen, path);
	return ret;
}

/* ---- attrs and ids ---- */

static int event__load_ids(struct pfile *pf, struct pfile_event *ev,
			   const struct pfile_section *ids, size_t idx, char *err, size_t errlen,
			   const char *path)
{
	int ret;

	if (ids->size % sizeof(uint64_t) || ids->size / sizeof(uint64_t) > UINT32_MAX ||
	    !range_ok(ids->offset, ids->size, pf->file_size)) {
		set_err(err, errlen, path, "attr %zu: ids %llu+%llu outside the file", idx,
			(unsigned long long)ids->offset, (unsigned long long)ids->size);
		return -EINVAL;
	}
	ev->nr_ids = ids->size / sizeof(uint64_t);
	if (!ev->nr_ids)
		return 0;
	ev->ids = malloc(ids->size);
	if (!ev->ids)
		return -ENOMEM;
	ret = pfile__pread_full(pf->fd, ev->ids, ids->size, ids->offset);
	if (ret)
		set_err(err, errlen, path, "attr %zu: cannot read ids", idx);
	return ret;
}

/*
 * perf's read_attr() reads attr.size bytes (64 if 0) and then the ids
 * section, so a file is only parsed the same way by perf and by readers that
 * step by attr_size when the two agree.
 */
static int event__check_attr_size(const struct pfile *pf, const struct pfile_event *ev, size_t idx,
				  char *err, size_t errlen, const char *path)
{
	uint64_t sz = ev->attr.size ? ev->attr.size : PERF_ATTR_SIZE_VER0;

	if (sz + sizeof(struct pfile_section) == pf->hdr.attr_size)
		return 0;
	set_err(err, errlen, path, "attr %zu: attr.size %llu does not match attr_size %llu", idx,
		(unsigned long long)sz, (unsigned long long)pf->hdr.attr_size);
	return -EINVAL;
}

static int event__load(struct pfile *pf, size_t idx, unsigned char *buf, char *err, size_t errlen,
		       const char *path)
{
	struct pfile_event *ev = &pf->events[idx];
	uint64_t off = pf->hdr.attrs.offset + idx * pf->hdr.attr_size;
	size_t attr_bytes = pf->hdr.attr_size - sizeof(struct pfile_section);
	struct pfile_section ids;
	int ret;

	ret = pfile__pread_full(pf->fd, buf, pf->hdr.attr_size, off);
	if (ret) {
		set_err(err, errlen, path, "attr %zu: cannot read", idx);
		return ret;
	}
	memcpy(&ev->attr, buf, attr_bytes < sizeof(ev->attr) ? attr_bytes : sizeof(ev->attr));
	memcpy(&ids, buf + attr_bytes, sizeof(ids));
	ret = event__check_attr_size(pf, ev, idx, err, errlen, path);
	if (!ret)
		ret = event__load_ids(pf, ev, &ids, idx, err, errlen, path);
	return ret;
}

static int events__load(struct pfile *pf, char *err, size_t errlen, const char *path)
{
	size_t nr = pf->hdr.attrs.size / pf->hdr.attr_size;
	unsigned char *buf;
	size_t i;
	int ret = 0;

	pf->events = calloc(nr, sizeof(*pf->events));
	buf = malloc(pf->hdr.attr_size);
	if (!pf->events || !buf) {
		free(buf);
		return -ENOMEM;
	}
	pf->nr_events = nr;
	for (i = 0; i < nr && !ret; i++)
		ret = event__load(pf, i, buf, err, errlen, path);
	free(buf);
	return ret;
}

/* Adds @id -> @ev; false when @id is there already. */
static bool id_hash__add(struct pfile *pf, uint64_t id, size_t ev)
{
	size_t i = pfile__id_slot(id, pf->id_hash_mask);

	for (; pf->id_hash[i].ev != SIZE_MAX; i = (i + 1) & pf->id_hash_mask)
		if (pf->id_hash[i].id == id)
			return false;
	pf->id_hash[i] = (struct pfile_id_ent){id, ev};
	return true;
}

/* The id -> event table; an id in two events makes samples ambiguous. */
static int id_index__build(struct pfile *pf, char *err, size_t errlen, const char *path)
{
	size_t i, j, n = 0, cap = 2;

	for (i = 0; i < pf->nr_events; i++)
		n += pf->events[i].nr_ids; /* bounded by file size / 8 */
	while (cap < 2 * n)
		cap *= 2;
	pf->id_hash = malloc(cap * sizeof(*pf->id_hash));
	if (!pf->id_hash)
		return -ENOMEM;
	pf->id_hash_mask = cap - 1;
	for (i = 0; i < cap; i++)
		pf->id_hash[i].ev = SIZE_MAX;
	for (i = 0; i < pf->nr_events; i++) {
		for (j = 0; j < pf->events[i].nr_ids; j++) {
			if (id_hash__add(pf, pf->events[i].ids[j], i))
				continue;
			set_err(err, errlen, path, "sample id %llu appears twice",
				(unsigned long long)pf->events[i].ids[j]);
			return -EINVAL;
		}
	}
	return 0;
}

/* ---- features ---- */

static int feat__load(struct pfile *pf, int feat, const struct pfile_section *sec, char *err,
		      size_t errlen, const char *path)
{
	void *data;
	int ret;

	if (!range_ok(sec->offset, sec->size, pf->file_size)) {
		set_err(err, errlen, path, "feature %d section %llu+%llu outside the file", feat,
			(unsigned long long)sec->offset, (unsigned long long)sec->size);
		return -EINVAL;
	}
	if (sec->size > PFILE_FEAT_MAX_SIZE) {
		set_err(err, errlen, path, "feature %d section of %llu bytes is implausibly large",
			feat, (unsigned long long)sec->size);
		return -EINVAL;
	}
	data = malloc(sec->size ? sec->size : 1);
	if (!data)
		return -ENOMEM;
	ret = pfile__pread_full(pf->fd, data, sec->size, sec->offset);
	if (ret) {
		free(data);
		set_err(err, errlen, path, "feature %d: cannot read", feat);
		return ret;
	}
	pf->feats.sec[feat].data = data;
	pf->feats.sec[feat].size = sec->size;
	return 0;
}

static size_t features__count(const uint64_t *bits)
{
	size_t n = 0;
	int i;

	for (i = 0; i < PFILE_FEAT_BITS / 64; i++)
		n += __builtin_popcountll(bits[i]);
	return n;
}

static int features__load(struct pfile *pf, char *err, size_t errlen, const char *path)
{
	uint64_t off = pf->hdr.data.offset + pf->hdr.data.size; /* checked in range */
	size_t nr = features__count(pf->hdr.features), n = 0;
	struct pfile_section tab[PFILE_FEAT_BITS];
	int feat, ret;

	if (!nr)
		return 0;
	if (!range_ok(off, nr * sizeof(tab[0]), pf->file_size)) {
		set_err(err, errlen, path, "feature table %llu+%zu outside the file (%llu bytes)",
			(unsigned long long)off, nr * sizeof(tab[0]),
			(unsigned long long)pf->file_size);
		return -EINVAL;
	}
	ret = pfile__pread_full(pf->fd, tab, nr * sizeof(tab[0]), off);
	if (ret) {
		set_err(err, errlen, path, "cannot read the feature table");
		return ret;
	}
	for (feat = 0; feat < PFILE_FEAT_BITS && !ret; feat++) {
		if (pf->hdr.features[feat / 64] & (1ULL << (feat % 64)))
			ret = feat__load(pf, feat, &tab[n++], err, errlen, path);
	}
	return ret;
}

/* ---- event names from EVENT_DESC ---- */


/* One EVENT_DESC entry (see write_event_desc()); its name if @name. */
static bool event_desc__entry(struct pcursor *c, uint32_t attr_sz, char **name)
{
	uint32_t nr_ids, len;
	const char *s;

	if (!pcursor__take(c, NULL, attr_sz) || !pcursor__take(c, &nr_ids, 4) ||
	    !pcursor__take(c, &len, 4))
		return false;
	s = (const char *)c->p;
	if (!len || !pcursor__take(c, NULL, len) || !memchr(s, '\0', len))
		return false;
	if (!pcursor__take(c, NULL, (uint64_t)nr_ids * sizeof(uint64_t)))
		return false;
	if (name && !*name)
		*name = strdup(s);
	return true;
}

/* Best effort: a malformed EVENT_DESC just leaves the default names. */
static void events__names_from_desc(struct pfile *pf)
{
	struct pcursor c = {pf->feats.sec[PFILE_FEAT_EVENT_DESC].data,
			   pf->feats.sec[PFILE_FEAT_EVENT_DESC].size};
	uint32_t nr, attr_sz, i;

	if (!c.p || !pcursor__take(&c, &nr, 4) || !pcursor__take(&c, &attr_sz, 4))
		return;
	for (i = 0; i < nr; i++) {
		char **name = i < pf->nr_events ? &pf->events[i].name : NULL;

		if (!event_desc__entry(&c, attr_sz, name))
			return;
	}
}

static int events__name(struct pfile *pf)
{
	char buf[32];
	size_t i;

	events__names_from_desc(pf);
	for (i = 0; i < pf->nr_events; i++) {
		if (pf->events[i].name)
			continue;
		snprintf(buf, sizeof(buf), "event%zu", i);
		pf->events[i].name = strdup(buf);
		if (!pf->events[i].name)
			return -ENOMEM;
	}
	return 0;
}

/* ---- open / close ---- */

static int pfile__load(struct pfile *pf, char *err, size_t errlen, const char *path)
{
	int ret;

	ret = header__read(pf, err, errlen, path);
	if (!ret)
		ret = events__load(pf, err, errlen, path);
	if (!ret)
		ret = id_index__build(pf, err, errlen, path);
	if (!ret)
		ret = features__load(pf, err, errlen, path);
	if (!ret)
		ret = events__name(pf);
	if (ret == -ENOMEM)
		set_err(err, errlen, path, "out of memory");
	return ret;
}

int pfile__open_input(int dirfd, const char *path, int flags)
{
	int fd = openat(dirfd, path,
			O_RDONLY | O_CLOEXEC | O_NONBLOCK |
				(flags & PFILE_IN_NOFOLLOW ? O_NOFOLLOW : 0));
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -ENODEV;
	}
	/* A regular file never blocks: the flag only kept open() from waiting on a FIFO. */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

const char *pfile__strerror(int ret)
{
	return ret == -ENODEV ? "not a regular file" : strerror(-ret);
}

int pfile__open(struct pfile *pf, const char *path, char *err, size_t errlen)
{
	return pfile__openat(pf, AT_FDCWD, path, 0, path, err, errlen);
}

int pfile__openat(struct pfile *pf, int dirfd, const char *name, int flags, const char *path,
		  char *err, size_t errlen)
{
	struct stat st;
	int ret;

	memset(pf, 0, sizeof(*pf));
	if (err && errlen)
		err[0] = '\0';
	pf->fd = pfile__open_input(dirfd, name, flags);
	if (pf->fd < 0) {
		ret = pf->fd;
		pf->fd = -1;
		set_err(err, errlen, path, "%s", pfile__strerror(ret));
		return ret;
	}
	if (fstat(pf->fd, &st) < 0) {
		ret = -errno;
		set_err(err, errlen, path, "%s", strerror(-ret));
		goto out_close;
	}
	pf->file_size = st.st_size;
	ret = pfile__load(pf, err, errlen, path);
	if (!ret)
		return 0;
out_close:
	pfile__close(pf);
	return ret;
}

void pfile__close(struct pfile *pf)
{
	size_t i;

	if (!pf)
		return;
	for (i = 0; i < pf->nr_events; i++) {
		free(pf->events[i].name);
		free(pf->events[i].ids);
	}
	free(pf->events);
	free(pf->id_hash);
	pfile_featset__release(&pf->feats);
	if (pf->fd >= 0)
		close(pf->fd);
	memset(pf, 0, sizeof(*pf));
	pf->fd = -1;
}

/* ---- record reader ---- */

int pfile_reader__init(struct pfile_reader *r, int fd, uint64_t start, uint64_t len, size_t bufsize)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	if (start > (uint64_t)INT64_MAX || len > (uint64_t)INT64_MAX - start)
		return -EINVAL;
	if (!bufsize)
		bufsize = PFILE_READER_DEFAULT_BUF;
	if (bufsize < sizeof(struct perf_event_header))
		bufsize = sizeof(struct perf_event_header);
	r->buf = malloc(bufsize);
	if (!r->buf)
		return -ENOMEM;
	r->buf_cap = bufsize;
	r->start = r->pos = r->buf_off = start;
	r->end = start + len;
	return 0;
}

void pfile_reader__release(struct pfile_reader *r)
{
	if (!r)
		return;
	free(r->buf);
	r->buf = NULL;
	r->buf_cap = r->buf_len = 0;
}

/* Makes room for @need bytes at buf[0]; grows the buffer if needed. */
static int reader__reserve(struct pfile_reader *r, size_t need)
{
	unsigned char *p;

	if (need <= r->buf_cap)
		return 0;
	p = realloc(r->buf, need);
	if (!p)
		return -ENOMEM;
	r->buf = p;
	r->buf_cap = need;
	return 0;
}

/*
 * Ensures [off, off + need) is buffered and starts 8-byte aligned in buf
 * (records are handed out as struct pointers; a malformed file could
 * otherwise leave them misaligned). Caller checked the range is in
 * [pos, end).
 */
static int reader__fill(struct pfile_reader *r, uint64_t off, size_t need)
{
	uint64_t have_end = r->buf_off + r->buf_len;
	size_t keep = 0, want;
	int ret;

	if (off >= r->buf_off && (off - r->buf_off) % 8 == 0 && off + need <= have_end)
		return 0;
	if (off >= r->buf_off && off < have_end)
		keep = have_end - off;
	if (keep)
		memmove(r->buf, r->buf + (off - r->buf_off), keep);
	r->buf_off = off;
	r->buf_len = keep;
	ret = reader__reserve(r, need);
	if (ret)
		return ret;
	want = r->end - off < r->buf_cap ? r->end - off : r->buf_cap;
	while (r->buf_len < need) {
		ssize_t n =
		    pread(r->fd, r->buf + r->buf_len, want - r->buf_len, (off_t)(off + r->buf_len));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EINVAL; /* the file ends inside the range */
		r->buf_len += n;
	}
	return 0;
}

/* Bytes the record at r->pos occupies: header.size plus an AUXTRACE payload. */
static int reader__rec_len(struct pfile_reader *r, const struct perf_event_header *h, uint64_t *len)
{
	uint64_t avail = r->end - r->pos, payload;
	int ret;

	if (h->size < sizeof(*h) || h->size > avail)
		return -EINVAL;
	*len = h->size;
	if (h->type != PFILE_REC_AUXTRACE)
		return 0;
	if (h->size < PFILE_AUXTRACE_HDR_MIN)
		return -EINVAL;
	ret = reader__fill(r, r->pos, PFILE_AUXTRACE_HDR_MIN);
	if (ret)
		return ret;
	memcpy(&payload, r->buf + (r->pos - r->buf_off) + sizeof(*h), sizeof(payload));
	if (payload > PFILE_AUXTRACE_MAX || payload > avail - h->size)
		return -EINVAL;
	*len += payload;
	return 0;
}

int pfile_reader__next(struct pfile_reader *r, const struct perf_event_header **rec,
		       size_t *rec_len, uint64_t *file_off)
{
	struct perf_event_header h;
	uint64_t len;
	int ret;

	if (r->pos >= r->end)
		return 0;
	if (r->end - r->pos < sizeof(h))
		return -EINVAL;
	ret = reader__fill(r, r->pos, sizeof(h));
	if (ret)
		return ret;
	memcpy(&h, r->buf + (r->pos - r->buf_off), sizeof(h));
	ret = reader__rec_len(r, &h, &len);
	if (!ret)
		ret = reader__fill(r, r->pos, len);
	if (ret)
		return ret;
	*rec = (const struct perf_event_header *)(r->buf + (r->pos - r->buf_off));
	*rec_len = len;
	*file_off = r->pos;
	r->pos += len;
	return 1;
}
