// SPDX-License-Identifier: GPL-2.0
/*
 * Shard files: write passes the way a writer does (PASS + CHUNK headers and
 * ring bytes split over iovecs, like a wrapped ring), read them back; cut
 * the file at every offset of its last pass; corrupt headers and records;
 * make writes fail and check the file goes back to whole passes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "recorder/perfdata/shard.h"
#include "recorder/perfdata/shard_reader.h"
#include "recorder/perfdata/shard_tail.h"
#include "recorder/perfdata/pfile_format.h"
#include "unit_util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_IOV 8192
#define MAX_CHUNKS 8
#define PASS_REC ((uint64_t)sizeof(struct shard_pass_rec))
#define CHUNK_REC ((uint64_t)sizeof(struct shard_chunk_rec))

/* ---- pwritev fault injection ---- */

/*
 * The shard code's pwritev resolves to this one (the executable's symbol
 * wins over libc's): short writes, EINTR and zero returns on demand.
 */
static size_t fault_max; /* at most this many bytes per call, 0 = no cap */
static int fault_eintr;	 /* fail this many calls with EINTR */
static bool fault_zero;	 /* write nothing and return 0 */
static unsigned long pwritev_calls;

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
	struct iovec cap[IOV_MAX];
	size_t left = fault_max;
	int n = 0;

	pwritev_calls++;
	if (fault_eintr) {
		fault_eintr--;
		errno = EINTR;
		return -1;
	}
	if (fault_zero)
		return 0;
	if (fault_max && cnt <= IOV_MAX) {
		for (; n < cnt && left; n++) {
			cap[n] = iov[n];
			if (cap[n].iov_len > left)
				cap[n].iov_len = left;
			left -= cap[n].iov_len;
		}
		iov = cap;
		cnt = n;
	}
	return syscall(SYS_pwritev, fd, iov, cnt, (unsigned long)off, 0UL);
}

static void faults_off(void)
{
	fault_max = 0;
	fault_eintr = 0;
	fault_zero = false;
}

struct fixture {
	char dir[64];
	int dirfd;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/test_shard.XXXXXX");
	if (!mkdtemp(fx->dir))
		return -1;
	fx->dirfd = open(fx->dir, O_RDONLY | O_DIRECTORY);
	if (fx->dirfd < 0)
		return -1;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	char mnt[128];

	faults_off();
	close(fx->dirfd);
	/* test_write_enospc's tmpfs, if an assertion left it mounted */
	snprintf(mnt, sizeof(mnt), "%s/mnt", fx->dir);
	umount2(mnt, MNT_DETACH);
	unit_rmtree(fx->dir);
	free(fx);
	return 0;
}

/* ---- building passes ---- */

/* Chunk bytes as the reader should return them. */
struct tchunk {
	uint32_t cpu;
	unsigned char *data;
	size_t len;
};

struct tpass {
	struct iovec iov[MAX_IOV];
	int nr_iov;
	uint64_t payload;
	struct shard_chunk_rec hdr[MAX_CHUNKS];
	struct tchunk chunk[MAX_CHUNKS];
	int nr_chunks;
};

static uint64_t rec_seq;

/*
 * @n perf-style records (type = running sequence, sizes 8..64) into a new
 * buffer. Type 71 (AUXTRACE) is skipped: its length includes a payload.
 */
static unsigned char *make_records(int n, size_t *len)
{
	unsigned char *buf = malloc(n * 64);
	size_t off = 0;

	assert_non_null(buf);
	for (int i = 0; i < n; i++, rec_seq++) {
		rec_seq += (uint32_t)rec_seq == PFILE_REC_AUXTRACE;
		struct perf_event_header h = {.type = (uint32_t)rec_seq,
					      .size = 8 * (1 + (rec_seq * 5) % 8)};

		memcpy(buf + off, &h, sizeof(h));
		for (size_t k = sizeof(h); k < h.size; k++)
			buf[off + k] = (unsigned char)(rec_seq + k);
		off += h.size;
	}
	*len = off;
	return buf;
}

static void tpass_init(struct tpass *tp)
{
	memset(tp, 0, sizeof(*tp));
	tp->nr_iov = 1; /* iov[0] is the PASS record, filled by shard__write_pass */
}

static void tpass_release(struct tpass *tp)
{
	for (int i = 0; i < tp->nr_chunks; i++)
		free(tp->chunk[i].data);
	tp->nr_chunks = 0;
}

/*
 * Adds a chunk of @n records for @cpu. Its bytes go out as iovecs cut at
 * @cuts (ascending offsets, e.g. inside a record like a ring wrap), or in
 * fragments of 1..7 bytes when @frag is set.
 */
static void tpass_add(struct tpass *tp, uint32_t cpu, int n, const size_t *cuts, int nr_cuts,
		      bool frag)
{
	struct tchunk *c = &tp->chunk[tp->nr_chunks];
	size_t from = 0;

	assert_true(tp->nr_chunks < MAX_CHUNKS);
	c->cpu = cpu;
	c->data = make_records(n, &c->len);
	shard_chunk__init(&tp->hdr[tp->nr_chunks], cpu, c->len);
	tp->iov[tp->nr_iov++] = (struct iovec){&tp->hdr[tp->nr_chunks], CHUNK_REC};
	for (int i = 0; !frag && i <= nr_cuts; i++) {
		size_t to = i < nr_cuts ? cuts[i] : c->len;

		assert_true(to >= from && to <= c->len);
		tp->iov[tp->nr_iov++] = (struct iovec){c->data + from, to - from};
		from = to;
	}
	for (unsigned k = 0; frag && from < c->len; k++) {
		size_t step = 1 + k % 7;

		if (step > c->len - from)
			step = c->len - from;
		assert_true(tp->nr_iov < MAX_IOV);
		tp->iov[tp->nr_iov++] = (struct iovec){c->data + from, step};
		from += step;
	}
	tp->payload += CHUNK_REC + c->len;
	tp->nr_chunks++;
}

static int tpass_write(struct shard *s, struct tpass *tp, uint64_t wtime)
{
	return shard__write_pass(s, wtime, tp->iov, tp->nr_iov, tp->payload);
}

/* Reads the next pass and checks it holds exactly @tp's chunks. */
static void check_pass(struct shard_reader *r, const struct tpass *tp, uint64_t seq, uint64_t wtime)
{
	struct shard_pass p;
	const unsigned char *data;
	size_t pos = 0, len;
	uint32_t cpu;
	char err[256] = "";
	uint64_t off = r->off;

	assert_int_equal(shard_reader__next_pass(r, &p, err, sizeof(err)), 1);
	assert_int_equal(p.seq, seq);
	assert_int_equal(p.wtime, wtime);
	assert_int_equal(p.file_off, off);
	assert_false(p.truncated);
	assert_int_equal(p.len, tp->payload);
	for (int i = 0; i < tp->nr_chunks; i++) {
		assert_int_equal(shard_pass__next_chunk(&p, &pos, &cpu, &data, &len), 1);
		assert_int_equal(cpu, tp->chunk[i].cpu);
		assert_int_equal(len, tp->chunk[i].len);
		assert_memory_equal(data, tp->chunk[i].data, len);
	}
	assert_int_equal(shard_pass__next_chunk(&p, &pos, &cpu, &data, &len), 0);
	assert_int_equal(r->off, off + PASS_REC + tp->payload);
	shard_pass__release(&p);
}

static off_t file_size(int dirfd, const char *name)
{
	struct stat sb;

	assert_int_equal(fstatat(dirfd, name, &sb, 0), 0);
	return sb.st_size;
}

/* ---- round trip ---- */

static void test_create(void **state)
{
	struct fixture *fx = *state;
	struct shard_reader r;
	struct shard s;
	char err[256];

	assert_int_equal(shard__create(&s, fx->dirfd, 7, 1, SHARD_F_ZSTD, NULL), 0);
	assert_int_equal(s.off, SHARD_HEADER_SIZE);
	assert_int_equal(sizeof(struct shard_file_header), SHARD_HEADER_SIZE);
	shard__close(&s);
	shard__close(&s); /* twice is fine */
	assert_int_equal(file_size(fx->dirfd, "shard.7"), SHARD_HEADER_SIZE);
	/* O_EXCL: never reuse a shard */
	assert_int_equal(shard__create(&s, fx->dirfd, 7, 1, 0, NULL), -EEXIST);
	/* O_NOFOLLOW */
	assert_int_equal(symlinkat("/tmp/nonexistent-shard-target", fx->dirfd, "shard.8"), 0);
	assert_true(shard__create(&s, fx->dirfd, 8, 0, 0, NULL) < 0);

	assert_int_equal(shard_reader__open(&r, fx->dirfd, "shard.7", err, sizeof(err)), 0);
	assert_true(r.hdr.magic == SHARD_MAGIC);
	/* On a little-endian machine, the bytes every shard had before the mark. */
	if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
		assert_memory_equal(&r.hdr.magic, "SHRDSHD1", 8);
	assert_int_equal(r.hdr.version, SHARD_VERSION);
	assert_int_equal(r.hdr.writer, 7);
	assert_int_equal(r.hdr.node, 1);
	assert_int_equal(r.hdr.flags, SHARD_F_ZSTD);
	assert_string_equal(r.name, "shard.7");
	/* a header-only shard has no pass */
	{
		struct shard_pass p;

		assert_int_equal(shard_reader__next_pass(&r, &p, err, sizeof(err)), 0);
		shard_pass__release(&p);
	}
	shard_reader__close(&r);
	shard_reader__close(&r);
}

static void test_round_trip(void **state)
{
	struct fixture *fx = *state;
	static struct tpass tp[4];
	const size_t cuts_a[] = {13};	      /* inside the second record */
	const size_t cuts_b[] = {0, 4, 4, 9}; /* empty iovecs, a split header */
	struct shard_reader r;
	struct shard_pass p;
	struct shard s;
	char err[256];
	uint64_t end;

	assert_int_equal(shard__create(&s, fx->dirfd, 0, 0, 0, NULL), 0);

	tpass_init(&tp[0]);
	tpass_add(&tp[0], 0, 5, cuts_a, 1, false);
	tpass_add(&tp[0], 1, 3, cuts_b, 4, false);
	assert_int_equal(tpass_write(&s, &tp[0], 1000), 0);
	assert_int_equal(s.seq, 1);

	tpass_init(&tp[1]); /* nothing new in any ring */
	assert_int_equal(tpass_write(&s, &tp[1], 2000), 0);

	/* far more iovecs than IOV_MAX: one pwritev cannot take them */
	tpass_init(&tp[2]);
	tpass_add(&tp[2], 1, 200, NULL, 0, true);
	tpass_add(&tp[2], 0, 1, NULL, 0, false);
	tpass_add(&tp[2], 0, 150, NULL, 0, true);
	assert_true(tp[2].nr_iov > 2 * IOV_MAX + 1);
	assert_int_equal(tpass_write(&s, &tp[2], 3000), 0);

	tpass_init(&tp[3]); /* a chunk with no bytes at all */
	tpass_add(&tp[3], 3, 0, NULL, 0, false);
	assert_int_equal(tpass_write(&s, &tp[3], 4000), 0);

	end = SHARD_HEADER_SIZE;
	for (int i = 0; i < 4; i++)
		end += PASS_REC + tp[i].payload;
	assert_int_equal(s.off, end);
	assert_int_equal(s.seq, 4);
	shard__close(&s);
	assert_int_equal(file_size(fx->dirfd, "shard.0"), (off_t)end);

	assert_int_equal(shard_reader__open(&r, fx->dirfd, "shard.0", err, sizeof(err)), 0);
	assert_int_equal(r.size, end);
	for (int i = 0; i < 4; i++)
		check_pass(&r, &tp[i], i, 1000 * (i + 1));
	assert_int_equal(shard_reader__next_pass(&r, &p, err, sizeof(err)), 0);
	shard_pass__release(&p);
	shard_reader__close(&r);
	for (int i = 0; i < 4; i++)
		tpass_release(&tp[i]);
}

/* ---- truncation ---- */

/* Writes @len bytes of @buf as @name in @dirfd. */
static void put_file(int dirfd, const char *name, const void *buf, size_t len)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

static unsigned char *get_file(int dirfd, const char *name, size_t *len)
{
	int fd = openat(dirfd, name, O_RDONLY);
	off_t size;
	unsigned char *buf;

	assert_true(fd >= 0);
	size = lseek(fd, 0, SEEK_END);
	buf = malloc(size ? size : 1);
	assert_non_null(buf);
	assert_int_equal(pread(fd, buf, size, 0), size);
	close(fd);
	*len = size;
	return buf;
}

/* Records of @c whose last byte lies below @cut when the chunk data starts at @data_off. */
static size_t whole_below(const struct tchunk *c, uint64_t data_off, uint64_t cut)
{
	size_t pos = 0;

	while (pos < c->len) {
		struct perf_event_header h;

		memcpy(&h, c->data + pos, sizeof(h));
		if (data_off + pos + h.size > cut)
			break;
		pos += h.size;
	}
	return pos;
}

/* The last pass as a reader sees it when the file ends at @cut. */
static void check_cut_pass(struct shard_reader *r, const struct tpass *tp, uint64_t start,
			   uint64_t cut)
{
	uint64_t end = start + PASS_REC + tp->payload, off = start + PASS_REC;
	const unsigned char *data;
	struct shard_pass p;
	size_t pos = 0, len;
	uint32_t cpu;
	char err[256];
	int i;

	if (cut == start && r->hdr.flags & SHARD_F_SEALED) {
		/* sealed: a cut where a pass starts is seen, once, as an empty truncated pass */
		assert_true(shard_reader__more(r));
		assert_int_equal(shard_reader__next_pass(r, &p, err, sizeof(err)), 1);
		assert_true(p.truncated);
		assert_int_equal(p.len, 0);
		assert_int_equal(p.file_off, start);
		shard_pass__release(&p);
		assert_false(shard_reader__more(r));
		assert_int_equal(shard_reader__next_pass(r, &p, err, sizeof(err)), 0);
		shard_pass__release(&p);
		return;
	}
	if (cut == start) {
		/* unsealed (a killed writer): the shard ends cleanly before the pass */
		assert_false(shard_reader__more(r));
		assert_int_equal(shard_reader__next_pass(r, &p, err, sizeof(err)), 0);
		shard_pass__release(&p);
		return;
	}
	if (cut < start + PASS_REC) {
		/*
		 * a PASS record cut by a kill: an empty pass, marked truncated;
		 * the merge asks for it only when the shard is sealed (unsealed,
		 * a few bytes of a PASS record are what a kill leaves)
		 */
		assert_int_equal(shard_reader__more(r), !!(r->hdr.flags & SHARD_F_SEALED));
		assert_int_equal(shard_reader__next_pass(r, &p, err, sizeof(err)), 1);
		assert_true(p.truncated);
		assert_int_equal(p.len, 0);
		shard_pass__release(&p);
		assert_int_equal(shard_reader__next_pass(r, &p, err, sizeof(err)), 0);
		shard_pass__release(&p);
		return;
	}
	assert_int_equal(shard_reader__next_pass(r, &p, err, sizeof(err)), 1);
	assert_int_equal(p.truncated, cut < end);
	assert_int_equal(p.len, cut - start - PASS_REC);
	for (i = 0; i < tp->nr_chunks; i++) {
		const struct tchunk *c = &tp->chunk[i];

		if (off + CHUNK_REC > cut)
			break;
		if (shard_pass__next_chunk(&p, &pos, &cpu, &data, &len) != 1)
			fail_msg("cut %llu: chunk %d missing", (unsigned long long)cut, i);
		assert_int_equal(cpu, c->cpu);
		if (len != whole_below(c, off + CHUNK_REC, cut))
			fail_msg("cut %llu: chunk %d gives %zu bytes, %zu whole",
				 (unsigned long long)cut, i, len,
				 whole_below(c, off + CHUNK_REC, cut));
		assert_memory_equal(data, c->data, len);
		off += CHUNK_REC + c->len;
	}
	assert_int_equal(shard_pass__next_chunk(&p, &pos, &cpu, &data, &len), 0);
	shard_pass__release(&p);
	assert_int_equal(shard_reader__next_pass(r, &p, err, sizeof(err)), 0);
	shard_pass__release(&p);
}

/*
 * shard.1 with two passes, sealed or not, read back cut at every offset of
 * its last pass. Returns the whole file (*@size bytes), the caller frees.
 */
static unsigned char *cut_every_offset(struct fixture *fx, struct tpass *tp, uint32_t flags,
				       bool seal, size_t *size)
{
	const size_t cuts[] = {20};
	struct shard_reader r;
	struct shard s;
	unsigned char *file;
	uint64_t start;
	char err[256];

	assert_int_equal(shard__create(&s, fx->dirfd, 1, 0, flags, NULL), 0);
	tpass_init(&tp[0]);
	tpass_add(&tp[0], 0, 4, NULL, 0, false);
	assert_int_equal(tpass_write(&s, &tp[0], 10), 0);
	start = s.off;
	tpass_init(&tp[1]);
	tpass_add(&tp[1], 0, 6, cuts, 1, false);
	tpass_add(&tp[1], 1, 0, NULL, 0, false);
	tpass_add(&tp[1], 1, 5, NULL, 0, false);
	assert_int_equal(tpass_write(&s, &tp[1], 20), 0);
	if (seal)
		assert_int_equal(shard__seal(&s), 0);
	shard__close(&s);
	if (seal)
		assert_int_equal(shard__seal(&s), -EBADF);
	file = get_file(fx->dirfd, "shard.1", size);
	assert_int_equal(*size, start + PASS_REC + tp[1].payload);

	for (uint64_t cut = start; cut <= *size; cut++) {
		put_file(fx->dirfd, "shard.cut", file, cut);
		assert_int_equal(shard_reader__open(&r, fx->dirfd, "shard.cut", err, sizeof(err)),
				 0);
		assert_int_equal(r.hdr.flags, flags | (seal ? SHARD_F_SEALED : 0));
		assert_int_equal(r.hdr.end, seal ? *size : 0);
		check_pass(&r, &tp[0], 0, 10);
		check_cut_pass(&r, &tp[1], start, cut);
		shard_reader__close(&r);
	}
	return file;
}

/* An unsealed shard (killed writer) cut anywhere: whole records before the cut. */
static void test_truncated(void **state)
{
	static struct tpass tp[2];
	size_t size;

	free(cut_every_offset(*state, tp, 0, false, &size));
	tpass_release(&tp[0]);
	tpass_release(&tp[1]);
}

/*
 * A sealed shard (its writer finished) cut at any offset, a pass boundary
 * included (compressed passes end at any byte), reads as cut; one with
 * bytes after its end reads up to its end and counts them.
 */
static void test_sealed(void **state)
{
	struct fixture *fx = *state;
	static struct tpass tp[2];
	struct shard_reader r;
	unsigned char *file;
	size_t size;
	char err[256];

	file = cut_every_offset(fx, tp, SHARD_F_ZSTD, true, &size);
	/* bytes after the end: not the writer's */
	file = realloc(file, size + 8);
	assert_non_null(file);
	memset(file + size, 0, 8);
	put_file(fx->dirfd, "shard.long", file, size + 8);
	/* read up to its end, the rest counted for the merge to refuse or drop */
	assert_int_equal(shard_reader__open(&r, fx->dirfd, "shard.long", err, sizeof(err)), 0);
	assert_int_equal(r.trailing, 8);
	assert_int_equal(r.size, size);
	assert_false(r.cut);
	shard_reader__close(&r);
	free(file);
	tpass_release(&tp[0]);
	tpass_release(&tp[1]);
}

/* ---- corruption ---- */

/* A shard.2 with two passes of one chunk each; returns the offset of the second PASS. */
static uint64_t write_two_passes(struct fixture *fx, struct tpass *tp)
{
	struct shard s;
	uint64_t second;

	assert_int_equal(shard__create(&s, fx->dirfd, 2, 0, 0, NULL), 0);
	tpass_init(&tp[0]);
	tpass_add(&tp[0], 0, 3, NULL, 0, false);
	assert_int_equal(tpass_write(&s, &tp[0], 5), 0);
	second = s.off;
	tpass_init(&tp[1]);
	tpass_add(&tp[1], 1, 3, NULL, 0, false);
	assert_int_equal(tpass_write(&s, &tp[1], 6), 0);
	shard__close(&s);
	return second;
}

static void patch(struct fixture *fx, const char *name, uint64_t off, const void *p, size_t len)
{
	int fd = openat(fx->dirfd, name, O_WRONLY);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, p, len, off), (ssize_t)len);
	close(fd);
}

/* Applies @len bytes at @off to a fresh copy of shard.2 called shard.bad. */
static void make_bad(struct fixture *fx, const unsigned char *orig, size_t size, uint64_t off,
		     const void *p, size_t len)
{
	put_file(fx->dirfd, "shard.bad", orig, size);
	patch(fx, "shard.bad", off, p, len);
}

static void expect_bad_pass(struct fixture *fx, const struct tpass *tp, uint64_t at)
{
	struct shard_reader r;
	struct shard_pass p;
	char err[256] = "";

	assert_int_equal(shard_reader__open(&r, fx->dirfd, "shard.bad", err, sizeof(err)), 0);
	check_pass(&r, &tp[0], 0, 5);
	assert_int_equal(shard_reader__next_pass(&r, &p, err, sizeof(err)), -EBADMSG);
	shard_pass__release(&p);
	if (!strstr(err, "shard.bad") || !strstr(err, "corrupt"))
		fail_msg("unhelpful error: \"%s\"", err);
	{
		char want[32];

		snprintf(want, sizeof(want), "%llu", (unsigned long long)at);
		assert_non_null(strstr(err, want));
	}
	shard_reader__close(&r);
}

static void test_corrupt_pass(void **state)
{
	struct fixture *fx = *state;
	static struct tpass tp[2];
	uint64_t second = write_two_passes(fx, tp);
	unsigned char *orig;
	size_t size;
	uint32_t type = SHARD_REC_CHUNK;
	uint16_t hsize = 24;
	uint64_t bytes = 1ULL << 40;

	orig = get_file(fx->dirfd, "shard.2", &size);
	make_bad(fx, orig, size, second, &type, sizeof(type));
	expect_bad_pass(fx, tp, second);
	make_bad(fx, orig, size, second + 6, &hsize, sizeof(hsize));
	expect_bad_pass(fx, tp, second);
	make_bad(fx, orig, size, second + offsetof(struct shard_pass_rec, bytes), &bytes,
		 sizeof(bytes));
	expect_bad_pass(fx, tp, second);
	make_bad(fx, orig, size, second + offsetof(struct shard_pass_rec, raw), &bytes,
		 sizeof(bytes));
	expect_bad_pass(fx, tp, second);
	free(orig);
	tpass_release(&tp[0]);
	tpass_release(&tp[1]);
}

/* Second pass loads; its chunk iteration must fail with -EBADMSG. */
static void expect_bad_chunk(struct fixture *fx, const struct tpass *tp)
{
	const unsigned char *data;
	struct shard_reader r;
	struct shard_pass p;
	size_t pos = 0, len;
	uint32_t cpu;
	char err[256] = "";
	int ret;

	assert_int_equal(shard_reader__open(&r, fx->dirfd, "shard.bad", err, sizeof(err)), 0);
	check_pass(&r, &tp[0], 0, 5);
	assert_int_equal(shard_reader__next_pass(&r, &p, err, sizeof(err)), 1);
	assert_false(p.truncated);
	/* bounded: a malformed record must never loop forever */
	for (int i = 0; i < 16 && (ret = shard_pass__next_chunk(&p, &pos, &cpu, &data, &len)) > 0;
	     i++)
		;
	assert_int_equal(ret, -EBADMSG);
	shard_pass__release(&p);
	shard_reader__close(&r);
}

static void test_corrupt_chunk(void **state)
{
	struct fixture *fx = *state;
	static struct tpass tp[2];
	uint64_t second = write_two_passes(fx, tp);
	uint64_t chunk = second + PASS_REC, data = chunk + CHUNK_REC;
	struct perf_event_header h;
	unsigned char *orig;
	size_t size;
	uint32_t type = SHARD_REC_PASS;
	uint64_t len;

	orig = get_file(fx->dirfd, "shard.2", &size);
	/* not a CHUNK */
	make_bad(fx, orig, size, chunk, &type, sizeof(type));
	expect_bad_chunk(fx, tp);
	/* a chunk longer than its (complete) pass */
	len = tp[1].chunk[0].len + 8;
	make_bad(fx, orig, size, chunk + offsetof(struct shard_chunk_rec, len), &len, sizeof(len));
	expect_bad_chunk(fx, tp);
	/* a chunk shorter than its records: the last record cut in a complete pass */
	len = tp[1].chunk[0].len - 8;
	make_bad(fx, orig, size, chunk + offsetof(struct shard_chunk_rec, len), &len, sizeof(len));
	expect_bad_chunk(fx, tp);
	/* records of size 0 (would loop) and of a size not a multiple of 8 */
	memcpy(&h, tp[1].chunk[0].data, sizeof(h));
	h.size = 0;
	make_bad(fx, orig, size, data, &h, sizeof(h));
	expect_bad_chunk(fx, tp);
	h.size = 12;
	make_bad(fx, orig, size, data, &h, sizeof(h));
	expect_bad_chunk(fx, tp);
	h.size = 4;
	make_bad(fx, orig, size, data, &h, sizeof(h));
	expect_bad_chunk(fx, tp);
	free(orig);
	tpass_release(&tp[0]);
	tpass_release(&tp[1]);
}

static void expect_bad_open(struct fixture *fx, const char *name, int want)
{
	struct shard_reader r;
	char err[256] = "";

	assert_int_equal(shard_reader__open(&r, fx->dirfd, name, err, sizeof(err)), want);
	assert_non_null(strstr(err, name));
	assert_int_equal(r.fd, -1);
	shard_reader__close(&r);
}

static void test_bad_header(void **state)
{
	struct fixture *fx = *state;
	static struct tpass tp[2];
	unsigned char *orig;
	size_t size;
	uint32_t version = SHARD_VERSION + 1;

	write_two_passes(fx, tp);
	orig = get_file(fx->dirfd, "shard.2", &size);
	make_bad(fx, orig, size, 0, "PERFILE2", 8);
	expect_bad_open(fx, "shard.bad", -EBADMSG);
	make_bad(fx, orig, size, offsetof(struct shard_file_header, version), &version,
		 sizeof(version));
	expect_bad_open(fx, "shard.bad", -EBADMSG);
	put_file(fx->dirfd, "shard.bad", orig, SHARD_HEADER_SIZE - 1);
	expect_bad_open(fx, "shard.bad", -EBADMSG);
	put_file(fx->dirfd, "shard.bad", orig, 0);
	expect_bad_open(fx, "shard.bad", -EBADMSG);
	expect_bad_open(fx, "shard.none", -ENOENT);
	free(orig);
	tpass_release(&tp[0]);
	tpass_release(&tp[1]);
}

/* Reverses the @len bytes at @p: one number as a machine of the other byte order writes it. */
static void swap_field(unsigned char *p, size_t len)
{
	for (size_t i = 0; i < len / 2; i++) {
		unsigned char t = p[i];

		p[i] = p[len - 1 - i];
		p[len - 1 - i] = t;
	}
}

/* shard_reader__open of @name: its return, its message in @err. */
static int open_msg(struct fixture *fx, const char *name, char *err, size_t errlen)
{
	struct shard_reader r;
	int ret;

	err[0] = 0;
	ret = shard_reader__open(&r, fx->dirfd, name, err, errlen);
	shard_reader__close(&r);
	return ret;
}

/*
 * A shard of the other byte order (the header's numbers swapped, as that
 * machine writes them) is refused with -ENOEXEC and one line naming the
 * writer's byte order, not called damaged. Shards written before the magic
 * was a byte-order mark (the bytes "SHRDSHD1") read as they did: this
 * machine's with its version, the other's with the version swapped.
 */
static void test_byte_order(void **state)
{
	static const struct {
		size_t off, len;
	} nums[] = {
		{offsetof(struct shard_file_header, magic), 8},
		{offsetof(struct shard_file_header, version), 4},
		{offsetof(struct shard_file_header, writer), 4},
		{offsetof(struct shard_file_header, node), 4},
		{offsetof(struct shard_file_header, flags), 4},
		{offsetof(struct shard_file_header, end), 8},
	};
	const char *other = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? "(big-endian)"
								   : "(little-endian)";
	struct fixture *fx = *state;
	static struct tpass tp[2];
	unsigned char *orig, hdr[SHARD_HEADER_SIZE];
	uint32_t version;
	char err[256];
	size_t size;

	write_two_passes(fx, tp);
	orig = get_file(fx->dirfd, "shard.2", &size);
	memcpy(hdr, orig, sizeof(hdr));
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		swap_field(hdr + nums[i].off, nums[i].len);
	make_bad(fx, orig, size, 0, hdr, sizeof(hdr));
	assert_int_equal(open_msg(fx, "shard.bad", err, sizeof(err)), -ENOEXEC);
	if (!strstr(err, "shard.bad: shard written on a machine of the other byte order") ||
	    !strstr(err, other) || !strstr(err, "merge it there") || strchr(err, '\n'))
		fail_msg("unhelpful error: \"%s\"", err);
	/* Here the magic alone says it (big-endian, this is a pre-mark shard's header). */
	if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) {
		memcpy(hdr, orig, sizeof(hdr));
		swap_field(hdr, 8);
		make_bad(fx, orig, size, 0, hdr, 8);
		assert_int_equal(open_msg(fx, "shard.bad", err, sizeof(err)), -ENOEXEC);
	}
	/* Before the mark: the magic as bytes, the version this machine's. */
	make_bad(fx, orig, size, 0, "SHRDSHD1", 8);
	assert_int_equal(open_msg(fx, "shard.bad", err, sizeof(err)), 0);
	/* ... and the other machine's: its version gives it away. */
	memcpy(&version, orig + offsetof(struct shard_file_header, version), sizeof(version));
	version = __builtin_bswap32(version);
	patch(fx, "shard.bad", offsetof(struct shard_file_header, version), &version,
	      sizeof(version));
	assert_int_equal(open_msg(fx, "shard.bad", err, sizeof(err)), -ENOEXEC);
	assert_non_null(strstr(err, other));
	free(orig);
	tpass_release(&tp[0]);
	tpass_release(&tp[1]);
}

/* ---- write failures ---- */

/* Reads a shard written until a failure: whole passes only, none truncated. */
static void check_whole_passes(struct fixture *fx, const char *name, const struct tpass *tp,
			       uint64_t nr_ok)
{
	struct shard_reader r;
	struct shard_pass p;
	char err[256];

	assert_int_equal(shard_reader__open(&r, fx->dirfd, name, err, sizeof(err)), 0);
	for (uint64_t i = 0; i < nr_ok; i++)
		check_pass(&r, tp, i, i);
	assert_int_equal(shard_reader__next_pass(&r, &p, err, sizeof(err)), 0);
	shard_pass__release(&p);
	assert_int_equal(r.off, r.size);
	shard_reader__close(&r);
}

/*
 * Writes copies of @tp until shard__write_pass fails (at most @max passes);
 * the file must then end exactly at the failed pass's start.
 */
static uint64_t write_until_failure(struct fixture *fx, struct shard *s, struct tpass *tp,
				    const char *name, int max, int *ret)
{
	uint64_t start = 0;
	int i;

	*ret = 0;
	for (i = 0; i < max; i++) {
		static struct iovec saved[MAX_IOV];

		/* shard__write_pass may advance iovecs in place: write a fresh copy */
		memcpy(saved, tp->iov, tp->nr_iov * sizeof(saved[0]));
		start = s->off;
		*ret = shard__write_pass(s, i, saved, tp->nr_iov, tp->payload);
		if (*ret)
			break;
	}
	assert_true(i < max);
	assert_int_equal(s->off, start);
	assert_int_equal(s->seq, i);
	assert_int_equal(file_size(fx->dirfd, name), (off_t)start);
	return i;
}

/* RLIMIT_FSIZE and SIGXFSZ as they were before fsize_limit. */
struct fsize_saved {
	struct rlimit lim;
	struct sigaction sa;
};

/*
 * Files of this process end at @bytes: a write past it fails with EFBIG
 * (SIGXFSZ ignored, or it would kill the test) until fsize_restore.
 */
static void fsize_limit(struct fsize_saved *old, rlim_t bytes)
{
	struct sigaction ign = {.sa_handler = SIG_IGN};
	struct rlimit lim;

	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old->lim), 0);
	assert_int_equal(sigaction(SIGXFSZ, &ign, &old->sa), 0);
	lim = old->lim;
	lim.rlim_cur = bytes;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
}

static void fsize_restore(const struct fsize_saved *old)
{
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old->lim), 0);
	assert_int_equal(sigaction(SIGXFSZ, &old->sa, NULL), 0);
}

/*
 * A shard whose header cannot be written (a full disk as a rotation opens
 * the next generation) is not left behind: an empty shard.N would make
 * the generation's merge refuse it as a stranger ("bad header").
 */
static void test_create_fails(void **state)
{
	struct fixture *fx = *state;
	struct fsize_saved old;
	struct shard s;
	int ret;

	fsize_limit(&old, SHARD_HEADER_SIZE / 2);
	ret = shard__create(&s, fx->dirfd, 5, 0, 0, NULL);
	fsize_restore(&old);
	assert_true(ret == -ENOSPC || ret == -EFBIG);
	assert_int_equal(s.fd, -1);
	assert_int_equal(faccessat(fx->dirfd, "shard.5", F_OK, AT_SYMLINK_NOFOLLOW), -1);
	assert_int_equal(errno, ENOENT);
	/* and the writer's retry can create it */
	assert_int_equal(shard__create(&s, fx->dirfd, 5, 0, 0, NULL), 0);
	shard__close(&s);
}

/* RLIMIT_FSIZE: writes past the limit fail with EFBIG, after a partial pwritev. */
static void test_write_fsize(void **state)
{
	struct fixture *fx = *state;
	static struct tpass tp;
	struct fsize_saved old;
	struct shard s;
	uint64_t nr;
	int ret;

	assert_int_equal(shard__create(&s, fx->dirfd, 4, 0, 0, NULL), 0);
	tpass_init(&tp);
	tpass_add(&tp, 0, 40, NULL, 0, true);
	tpass_add(&tp, 1, 30, NULL, 0, false);
	/* the limit falls inside the fourth pass */
	fsize_limit(&old, SHARD_HEADER_SIZE + 3 * (PASS_REC + tp.payload) + tp.payload / 2);
	nr = write_until_failure(fx, &s, &tp, "shard.4", 100, &ret);
	fsize_restore(&old);
	assert_int_equal(ret, -EFBIG);
	assert_int_equal(nr, 3);
	/* the shard stays usable: the next pass lands where the failed one was */
	{
		static struct iovec saved[MAX_IOV];

		memcpy(saved, tp.iov, tp.nr_iov * sizeof(saved[0]));
		assert_int_equal(shard__write_pass(&s, 3, saved, tp.nr_iov, tp.payload), 0);
	}
	shard__close(&s);
	check_whole_passes(fx, "shard.4", &tp, 4);
	tpass_release(&tp);
}

/* A descriptor that cannot be written: error returned, nothing counted. */
static void test_write_badfd(void **state)
{
	struct fixture *fx = *state;
	static struct tpass tp;
	struct shard s;
	int ret;

	assert_int_equal(shard__create(&s, fx->dirfd, 5, 0, 0, NULL), 0);
	close(s.fd);
	s.fd = openat(fx->dirfd, "shard.5", O_RDONLY);
	assert_true(s.fd >= 0);
	tpass_init(&tp);
	tpass_add(&tp, 0, 4, NULL, 0, false);
	ret = tpass_write(&s, &tp, 1);
	assert_int_equal(ret, -EBADF);
	assert_int_equal(s.off, SHARD_HEADER_SIZE);
	assert_int_equal(s.seq, 0);
	shard__close(&s);
	tpass_release(&tp);
}

/* A full file system (a 64 KiB tmpfs): ENOSPC, file cut back. Root only. */
static void test_write_enospc(void **state)
{
	struct fixture *fx = *state;
	static struct tpass tp;
	char mnt[128];
	struct shard s;
	uint64_t nr;
	int mfd, ret;

	snprintf(mnt, sizeof(mnt), "%s/mnt", fx->dir);
	assert_int_equal(mkdir(mnt, 0700), 0);
	if (geteuid() != 0 || mount("shardtest", mnt, "tmpfs", 0, "size=64k")) {
		rmdir(mnt);
		skip();
	}
	mfd = open(mnt, O_RDONLY | O_DIRECTORY);
	assert_true(mfd >= 0);
	assert_int_equal(shard__create(&s, mfd, 6, 0, 0, NULL), 0);
	tpass_init(&tp);
	tpass_add(&tp, 0, 100, NULL, 0, true);
	tpass_add(&tp, 1, 60, NULL, 0, false);
	{
		struct fixture mf = {.dirfd = mfd};

		nr = write_until_failure(&mf, &s, &tp, "shard.6", 1000, &ret);
		assert_int_equal(ret, -ENOSPC);
		assert_true(nr > 0);
		shard__close(&s);
		check_whole_passes(&mf, "shard.6", &tp, nr);
	}
	close(mfd);
	assert_int_equal(umount(mnt), 0);
	rmdir(mnt);
	tpass_release(&tp);
}

/* Short writes at odd sizes and EINTR: every byte still lands once, in order. */
static void test_write_short(void **state)
{
	struct fixture *fx = *state;
	static struct tpass tp[3];
	const size_t cuts[] = {3, 11, 29};
	struct shard_reader r;
	struct shard_pass p;
	struct shard s;
	uint64_t start;
	char err[256];

	assert_int_equal(shard__create(&s, fx->dirfd, 9, 0, 0, NULL), 0);
	tpass_init(&tp[0]);
	tpass_add(&tp[0], 0, 300, NULL, 0, true);
	tpass_add(&tp[0], 1, 20, cuts, 3, false);
	assert_true(tp[0].nr_iov > IOV_MAX);
	pwritev_calls = 0;
	fault_max = 13;
	assert_int_equal(tpass_write(&s, &tp[0], 0), 0);
	faults_off();
	assert_true(pwritev_calls > tp[0].payload / 13);

	tpass_init(&tp[1]);
	tpass_add(&tp[1], 1, 10, cuts, 3, false);
	fault_eintr = 3;
	assert_int_equal(tpass_write(&s, &tp[1], 1), 0);
	assert_int_equal(fault_eintr, 0);

	/* an empty pass, then a write that makes no progress: ENOSPC, file cut back */
	assert_int_equal(shard__write_pass(&s, 2, tp[2].iov, 1, 0), 0);
	start = s.off;
	tpass_init(&tp[2]);
	tpass_add(&tp[2], 0, 10, NULL, 0, false);
	fault_zero = true;
	assert_int_equal(tpass_write(&s, &tp[2], 3), -ENOSPC);
	faults_off();
	assert_int_equal(s.off, start);
	assert_int_equal(s.seq, 3);
	assert_int_equal(file_size(fx->dirfd, "shard.9"), (off_t)start);
	shard__close(&s);

	assert_int_equal(shard_reader__open(&r, fx->dirfd, "shard.9", err, sizeof(err)), 0);
	check_pass(&r, &tp[0], 0, 0);
	check_pass(&r, &tp[1], 1, 1);
	{
		struct tpass empty;

		tpass_init(&empty);
		check_pass(&r, &empty, 2, 2);
	}
	assert_int_equal(shard_reader__next_pass(&r, &p, err, sizeof(err)), 0);
	shard_pass__release(&p);
	shard_reader__close(&r);
	for (int i = 0; i < 3; i++)
		tpass_release(&tp[i]);
}

/* ZPASS: one opaque blob per pass, flagged compressed, raw size kept. */
static void test_zpass(void **state)
{
	struct fixture *fx = *state;
	unsigned char blob[40];
	struct shard_reader r;
	struct shard_pass p;
	struct shard s;
	char err[256];

	for (size_t i = 0; i < sizeof(blob); i++)
		blob[i] = i * 3;
	assert_int_equal(shard__create(&s, fx->dirfd, 10, 0, SHARD_F_ZSTD, NULL), 0);
	assert_int_equal(shard__write_zpass(&s, 77, blob, sizeof(blob), 4096), 0);
	assert_int_equal(shard__write_zpass(&s, 78, blob, 0, 0), 0);
	shard__close(&s);
	assert_int_equal(shard_reader__open(&r, fx->dirfd, "shard.10", err, sizeof(err)), 0);
	assert_int_equal(r.hdr.flags, SHARD_F_ZSTD);
	assert_int_equal(shard_reader__next_pass(&r, &p, err, sizeof(err)), 1);
	assert_true(p.compressed);
	assert_int_equal(p.raw, 4096);
	assert_int_equal(p.wtime, 77);
	assert_int_equal(p.len, sizeof(blob));
	assert_memory_equal(p.buf, blob, sizeof(blob));
	shard_pass__release(&p);
	assert_int_equal(shard_reader__next_pass(&r, &p, err, sizeof(err)), 1);
	assert_true(p.compressed);
	assert_int_equal(p.seq, 1);
	assert_int_equal(p.len, 0);
	shard_pass__release(&p);
	assert_int_equal(shard_reader__next_pass(&r, &p, err, sizeof(err)), 0);
	shard_pass__release(&p);
	shard_reader__close(&r);
}

/* The run id goes into the header and comes back; zero without one; format 1 is named. */
static void test_run_id(void **state)
{
	static const uint8_t id[SHARD_RUN_ID_SIZE] = {0xde, 0xad, 1, 2, 3, 4, 5, 6,
						      7, 8, 9, 10, 11, 12, 13, 0xff};
	static const uint8_t zero[SHARD_RUN_ID_SIZE];
	struct fixture *fx = *state;
	struct shard_reader r;
	struct shard s;
	char err[256], hex[2 * SHARD_RUN_ID_SIZE + 1];
	unsigned char *orig;
	uint32_t v1 = 1;
	size_t size;

	assert_int_equal(shard__create(&s, fx->dirfd, 3, 0, 0, id), 0);
	shard__close(&s);
	assert_int_equal(shard__create(&s, fx->dirfd, 4, 0, 0, NULL), 0);
	shard__close(&s);
	assert_int_equal(shard_reader__open(&r, fx->dirfd, "shard.3", err, sizeof(err)), 0);
	assert_memory_equal(r.hdr.run_id, id, SHARD_RUN_ID_SIZE);
	assert_string_equal(shard__run_id_str(r.hdr.run_id, hex), "dead0102030405060708090a0b0c0dff");
	shard_reader__close(&r);
	assert_int_equal(shard_reader__open(&r, fx->dirfd, "shard.4", err, sizeof(err)), 0);
	assert_memory_equal(r.hdr.run_id, zero, SHARD_RUN_ID_SIZE);
	shard_reader__close(&r);
	/* A format 1 shard (no run id) is refused, saying which format it is. */
	orig = get_file(fx->dirfd, "shard.3", &size);
	make_bad(fx, orig, size, offsetof(struct shard_file_header, version), &v1, sizeof(v1));
	assert_int_equal(shard_reader__open(&r, fx->dirfd, "shard.bad", err, sizeof(err)),
			 -EBADMSG);
	assert_non_null(strstr(err, "shard format 1"));
	free(orig);
}

/* tail.raw: reserved when created, not complete until finished, records read back. */
static void test_tail(void **state)
{
	static const uint8_t id[SHARD_RUN_ID_SIZE] = {9, 8, 7};
	const unsigned char recs[48] = {1, 2, 3};
	struct fixture *fx = *state;
	struct shard_tail t, r;
	char err[256];
	struct stat st;

	assert_int_equal(shard_tail__create(&t, fx->dirfd, "tail.raw", id, 96), 0);
	assert_int_equal(fstatat(fx->dirfd, "tail.raw", &st, 0), 0);
	assert_int_equal(st.st_size, SHARD_TAIL_HEADER_SIZE + 96);
	/* Not finished: a killed recorder's tail. */
	assert_int_equal(shard_tail__open(&r, fx->dirfd, "tail.raw", err, sizeof(err)), 0);
	assert_memory_equal(r.hdr.run_id, id, SHARD_RUN_ID_SIZE);
	assert_int_equal(r.hdr.flags & SHARD_TAIL_F_COMPLETE, 0);
	assert_int_equal(r.hdr.used, 0);
	assert_int_equal(r.hdr.cap, 96);
	shard_tail__close(&r);
	assert_int_equal(shard_tail__finish(&t, recs, 200), -E2BIG);
	assert_int_equal(shard_tail__finish(&t, recs, sizeof(recs)), 0);
	shard_tail__close(&t);
	shard_tail__close(&t); /* twice is fine */
	assert_int_equal(shard_tail__open(&r, fx->dirfd, "tail.raw", err, sizeof(err)), 0);
	assert_int_equal(r.hdr.flags & SHARD_TAIL_F_COMPLETE, SHARD_TAIL_F_COMPLETE);
	assert_int_equal(r.hdr.used, sizeof(recs));
	{
		unsigned char back[48];

		assert_int_equal(pread(r.fd, back, sizeof(back), SHARD_TAIL_HEADER_SIZE),
				 (ssize_t)sizeof(back));
		assert_memory_equal(back, recs, sizeof(recs));
	}
	shard_tail__close(&r);
	/* O_EXCL; absent is -ENOENT without a message; a shard is not a tail. */
	assert_int_equal(shard_tail__create(&t, fx->dirfd, "tail.raw", id, 0), -EEXIST);
	err[0] = 0;
	assert_int_equal(shard_tail__open(&r, fx->dirfd, "tail.none", err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "");
	{
		struct shard s;

		assert_int_equal(shard__create(&s, fx->dirfd, 5, 0, 0, id), 0);
		shard__close(&s);
	}
	assert_int_equal(shard_tail__open(&r, fx->dirfd, "shard.5", err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "not a shardrec tail file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_create, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_run_id, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tail, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sealed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_corrupt_pass, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_corrupt_chunk, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_header, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_byte_order, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_create_fails, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_write_fsize, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_write_badfd, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_write_enospc, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_write_short, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_zpass, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
