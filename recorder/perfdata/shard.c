// SPDX-License-Identifier: GPL-2.0
#include "recorder/perfdata/shard.h"
#include "recorder/perfdata/shard_reader.h"
#include "recorder/perfdata/pfile.h"
#include "recorder/perfdata/pfile_sample.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A pass is at most the sum of a writer's rings; reject absurd sizes from corrupt files. */
#define SHARD_PASS_MAX (1ULL << 32)

int shard__create(struct shard *s, int dirfd, unsigned idx, int node, uint32_t flags,
		  const uint8_t *run_id)
{
	struct shard_file_header h = {
		.magic = SHARD_MAGIC, .version = SHARD_VERSION, .writer = idx, .node = node,
		.flags = flags,
	};
	char name[32];
	ssize_t n;

	memset(s, 0, sizeof(*s));
	snprintf(name, sizeof(name), "shard.%u", idx);
	s->fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (s->fd < 0)
		return -errno;
	if (run_id)
		memcpy(h.run_id, run_id, SHARD_RUN_ID_SIZE);
	s->hdr = h;
	n = pwrite(s->fd, &h, sizeof(h), 0);
	if (n != (ssize_t)sizeof(h)) {
		int err = n < 0 ? -errno : -ENOSPC;

		/*
		 * Nothing of it is ours yet: an empty or cut header (a full disk as
		 * a rotation opens the next generation) would make that
		 * generation's merge refuse the file as no shard at all.
		 */
		shard__close(s);
		unlinkat(dirfd, name, 0);
		return err;
	}
	s->off = sizeof(h);
	atomic_store_explicit(&s->committed, s->off, memory_order_release);
	return 0;
}

int shard__seal(struct shard *s)
{
	struct shard_file_header h = s->hdr;
	ssize_t n;

	if (s->fd < 0)
		return -EBADF;
	/*
	 * After the last pass: a failed pass was truncated away, so s->off is
	 * the file's size. The header is rewritten whole, not just `end`:
	 * one pwrite of 64 bytes inside one block.
	 */
	h.flags |= SHARD_F_SEALED;
	h.end = s->off;
	n = pwrite(s->fd, &h, sizeof(h), 0);
	if (n != (ssize_t)sizeof(h))
		return n < 0 ? -errno : -EIO;
	s->hdr = h;
	return 0;
}

void shard__end(struct shard *s)
{
	atomic_store_explicit(&s->ended, true, memory_order_release);
}

uint64_t shard__committed(struct shard *s, bool *ended)
{
	/* ended first: once it is seen, the committed size read after it is the last one. */
	*ended = atomic_load_explicit(&s->ended, memory_order_acquire);
	return atomic_load_explicit(&s->committed, memory_order_acquire);
}

void shard_chunk__init(struct shard_chunk_rec *c, uint32_t cpu, uint64_t len)
{
	c->header.type = SHARD_REC_CHUNK;
	c->header.misc = 0;
	c->header.size = sizeof(*c);
	c->cpu = cpu;
	c->flags = 0;
	c->len = len;
}

/* Advances @iov/@nr past @done bytes already written. */
static void iov_advance(struct iovec **iov, int *nr, size_t done)
{
	while (*nr && done >= (*iov)->iov_len) {
		done -= (*iov)->iov_len;
		(*iov)++;
		(*nr)--;
	}
	if (*nr && done) {
		(*iov)->iov_base = (char *)(*iov)->iov_base + done;
		(*iov)->iov_len -= done;
	}
}

static int pwritev_all(int fd, struct iovec *iov, int nr, uint64_t off)
{
	while (nr) {
		int batch = nr < IOV_MAX ? nr : IOV_MAX;
		ssize_t n = pwritev(fd, iov, batch, off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ENOSPC;
		off += n;
		iov_advance(&iov, &nr, n);
	}
	return 0;
}

static int shard__put(struct shard *s, uint32_t type, uint64_t wtime, struct iovec *iov,
		      int nr_iov, uint64_t payload, uint64_t raw)
{
	int err;

	s->pass.header.type = type;
	s->pass.header.misc = 0;
	s->pass.header.size = sizeof(s->pass);
	s->pass.seq = s->seq;
	s->pass.wtime = wtime;
	s->pass.bytes = payload;
	s->pass.raw = raw;
	iov[0].iov_base = &s->pass;
	iov[0].iov_len = sizeof(s->pass);
	err = pwritev_all(s->fd, iov, nr_iov, s->off);
	if (err) {
		/* Keep the shard a sequence of whole passes; the write error is what we report. */
		if (ftruncate(s->fd, s->off) < 0)
			return err;
		return err;
	}
	s->off += sizeof(s->pass) + payload;
	s->seq++;
	/* Pairs with shard__committed's acquire: the pass's bytes are in the file. */
	atomic_store_explicit(&s->committed, s->off, memory_order_release);
	return 0;
}

int shard__write_pass(struct shard *s, uint64_t wtime, struct iovec *iov, int nr_iov,
		      uint64_t payload)
{
	return shard__put(s, SHARD_REC_PASS, wtime, iov, nr_iov, payload, 0);
}

int shard__write_zpass(struct shard *s, uint64_t wtime, const void *buf, size_t len,
		       uint64_t raw)
{
	struct iovec iov[2] = {{NULL, 0}, {(void *)buf, len}};

	return shard__put(s, SHARD_REC_ZPASS, wtime, iov, 2, len, raw);
}

void shard__close(struct shard *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

void shard_dir__unlink(int dirfd, size_t nr_shards)
{
	char name[32];

	unlinkat(dirfd, "header.data", 0);
	unlinkat(dirfd, "tail.raw", 0);
	unlinkat(dirfd, "tail.synth", 0);
	for (size_t g = 0; g < nr_shards; g++) {
		snprintf(name, sizeof(name), "shard.%zu", g);
		unlinkat(dirfd, name, 0);
	}
}

char *shard__run_id_str(const uint8_t *id, char *buf)
{
	for (size_t i = 0; i < SHARD_RUN_ID_SIZE; i++)
		snprintf(buf + 2 * i, 3, "%02x", id[i]);
	return buf;
}

/*
 * Whether @h was written on a machine of the other byte order: its magic
 * reads swapped. Before the magic was a mark it was the bytes "SHRDSHD1",
 * which a big-endian machine reads swapped too: there, with the version
 * read natively, the shard is its own. A shard of that time and the other
 * byte order shows it by its version alone.
 */
static bool shard_header__foreign(const struct shard_file_header *h)
{
	const bool big = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

	if (h->magic == __builtin_bswap64(SHARD_MAGIC))
		return !(big && h->version == SHARD_VERSION);
	return h->magic == SHARD_MAGIC && h->version == __builtin_bswap32(SHARD_VERSION);
}

int shard_reader__open(struct shard_reader *r, int dirfd, const char *name, char *err,
		       size_t errlen)
{
	off_t size;
	int ret;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->fd = pfile__open_input(dirfd, name, PFILE_IN_NOFOLLOW);
	if (r->fd < 0) {
		ret = r->fd;
		r->fd = -1;
		snprintf(err, errlen, "%s: %s", name, pfile__strerror(ret));
		return ret;
	}
	size = lseek(r->fd, 0, SEEK_END);
	if (size < SHARD_HEADER_SIZE ||
	    pread(r->fd, &r->hdr, sizeof(r->hdr), 0) != (ssize_t)sizeof(r->hdr) ||
	    (r->hdr.magic != SHARD_MAGIC && r->hdr.magic != __builtin_bswap64(SHARD_MAGIC))) {
		snprintf(err, errlen, "%s: not a shardrec shard (bad header)", name);
		shard_reader__close(r);
		return -EBADMSG;
	}
	/* Its records are in the writer's byte order too: not one could be read here. */
	if (shard_header__foreign(&r->hdr)) {
		snprintf(err, errlen,
			 "%s: shard written on a machine of the other byte order (%s); merge it there",
			 name,
			 __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? "little-endian" : "big-endian");
		shard_reader__close(r);
		return -ENOEXEC;
	}
	if (r->hdr.version != SHARD_VERSION) {
		snprintf(err, errlen, "%s: shard format %u, this shardrec reads format %u only",
			 name, r->hdr.version, SHARD_VERSION);
		shard_reader__close(r);
		return -EBADMSG;
	}
	/*
	 * Bytes after a sealed shard's end are not its writer's: read up to the
	 * end, and the caller decides (the merge refuses them, --recover drops them).
	 */
	if ((r->hdr.flags & SHARD_F_SEALED) && (uint64_t)size > r->hdr.end) {
		r->trailing = size - r->hdr.end;
		size = r->hdr.end;
	}
	r->size = size;
	r->off = SHARD_HEADER_SIZE;
	r->cut = (r->hdr.flags & SHARD_F_SEALED) && r->size < r->hdr.end;
	return 0;
}

bool shard_reader__more(const struct shard_reader *r)
{
	return r->cut || r->size - r->off >= sizeof(struct shard_pass_rec);
}

void shard_reader__close(struct shard_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

void shard_pass__release(struct shard_pass *p)
{
	free(p->buf);
	p->buf = NULL;
	p->len = p->cap = 0;
}

/* Room for @len bytes at p->buf: the buffer it came with when that is large enough. */
static int shard_pass__alloc(struct shard_pass *p, size_t len)
{
	if (p->buf && p->cap >= len)
		return 0;
	free(p->buf);
	p->cap = len ? len : 1;
	p->buf = malloc(p->cap);
	if (!p->buf)
		p->cap = 0;
	return p->buf ? 0 : -ENOMEM;
}

/* pfile__pread_full: 0, -errno, or -EIO if the file ended early (it shrank under us). */
static int shard__pread(int fd, void *buf, size_t len, uint64_t off)
{
	int ret = pfile__pread_full(fd, buf, len, off);

	return ret == -EINVAL ? -EIO : ret;
}

int shard_reader__next_pass(struct shard_reader *r, struct shard_pass *p, char *err,
			    size_t errlen)
{
	return shard_reader__next_pass_reuse(r, p, NULL, 0, err, errlen);
}

int shard_reader__next_pass_reuse(struct shard_reader *r, struct shard_pass *p, void *buf,
				  size_t cap, char *err, size_t errlen)
{
	struct shard_pass_rec rec;
	uint64_t avail;
	int n;

	memset(p, 0, sizeof(*p));
	p->buf = buf;
	p->cap = buf ? cap : 0;
	if (r->size == r->off && !r->cut)
		return 0;
	if (r->size - r->off < sizeof(rec)) {
		/*
		 * A PASS record cut by a kill, or a sealed shard cut where a
		 * pass starts: an empty, truncated last pass.
		 */
		p->file_off = r->off;
		p->truncated = true;
		r->off = r->size;
		r->cut = false; /* said once */
		n = shard_pass__alloc(p, 0);
		return n ? n : 1;
	}
	n = shard__pread(r->fd, &rec, sizeof(rec), r->off);
	if (n < 0)
		return n;
	if ((rec.header.type != SHARD_REC_PASS && rec.header.type != SHARD_REC_ZPASS) ||
	    rec.header.size != sizeof(rec) || rec.bytes > SHARD_PASS_MAX ||
	    rec.raw > SHARD_PASS_MAX) {
		snprintf(err, errlen, "%s: corrupt pass record at offset %llu", r->name,
			 (unsigned long long)r->off);
		return -EBADMSG;
	}
	avail = r->size - r->off - sizeof(rec);
	p->seq = rec.seq;
	p->wtime = rec.wtime;
	p->file_off = r->off;
	p->len = rec.bytes <= avail ? rec.bytes : avail;
	p->truncated = rec.bytes > avail;
	r->cut = r->cut && !p->truncated;
	p->compressed = rec.header.type == SHARD_REC_ZPASS;
	p->raw = rec.raw;
	n = shard_pass__alloc(p, p->len);
	if (n < 0)
		return n;
	n = shard__pread(r->fd, p->buf, p->len, r->off + sizeof(rec));
	if (n < 0) {
		shard_pass__release(p);
		return n;
	}
	r->off += sizeof(rec) + p->len;
	return 1;
}

/* The chunk at *@pos, not walked: 1, 0 at the end, -EBADMSG. Moves *@pos past it. */
static int chunk_at(const struct shard_pass *p, size_t *pos, uint32_t *cpu,
		    const unsigned char **data, size_t *len)
{
	struct shard_chunk_rec c;
	size_t avail;

	if (*pos + sizeof(c) > p->len)
		return 0; /* end, or a chunk header cut by truncation */
	memcpy(&c, p->buf + *pos, sizeof(c));
	if (c.header.type != SHARD_REC_CHUNK || c.header.size != sizeof(c))
		return -EBADMSG;
	avail = p->len - *pos - sizeof(c);
	if (c.len > avail && !p->truncated)
		return -EBADMSG;
	*data = p->buf + *pos + sizeof(c);
	*len = c.len < avail ? c.len : avail;
	*cpu = c.cpu;
	*pos += sizeof(c) + *len;
	return 1;
}

int shard_pass__next_chunk_unwalked(const struct shard_pass *p, size_t *pos, uint32_t *cpu,
				    const unsigned char **data, size_t *len)
{
	return p->truncated ? shard_pass__next_chunk(p, pos, cpu, data, len)
			    : chunk_at(p, pos, cpu, data, len);
}

int shard_pass__next_chunk(const struct shard_pass *p, size_t *pos, uint32_t *cpu,
			   const unsigned char **data, size_t *len)
{
	size_t at = *pos;
	long whole;
	bool cut;
	int st = chunk_at(p, &at, cpu, data, len);

	if (st <= 0)
		return st;
	whole = pfile__walk_records(*data, *len, true, &st);
	cut = st > 0;
	if (st < 0)
		whole = -1;
	if (whole < 0 || (cut && !p->truncated))
		return -EBADMSG;
	*len = whole;
	*pos = at;
	return 1;
}
