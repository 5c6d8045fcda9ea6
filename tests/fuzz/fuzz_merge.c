// SPDX-License-Identifier: GPL-2.0
/*
 * The whole merge under fuzz: the input is a packed shard directory,
 *
 *   u8 flags (bit 0: --recover, bit 1: --decompress)
 *   then entries { u8 kind, u32 len, len bytes }, kind 0 = header.data,
 *   1..4 = shard.0..3, 5 = tail.raw (a later entry of a kind wins)
 *
 * unpacked into a directory on /dev/shm (tmpfs: merge's fsync is cheap)
 * and merged. tests/fuzz/mkcorpus.sh packs real recordings this way.
 *
 * The property (issue 20): a merge that returns 0 wrote a file perf 6.1
 * reads, i.e. its attrs, every feature section and every record (those
 * inside COMPRESSED records too) pass the pfile_check rules; anything else
 * aborts.
 */
#include "recorder/codec/zunpass.h"
#include "recorder/merge/merge.h"
#include "recorder/perfdata/pfile.h"
#include "recorder/perfdata/pfile_check.h"
#include "recorder/perfdata/pfile_feat.h"
#include "recorder/perfdata/pfile_sample.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NR_KINDS 6

static const char *const kind_name[NR_KINDS] = {
	"header.data", "shard.0", "shard.1", "shard.2", "shard.3", "tail.raw",
};

static char dir[64], out[128];

static void clear_dir(void);

static void remove_dir(void)
{
	clear_dir();
	rmdir(dir);
}

static int setup_dir(void)
{
	const char *base = access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm";

	snprintf(dir, sizeof(dir), "%s/fuzz_merge.XXXXXX", base);
	if (!mkdtemp(dir))
		return -errno;
	snprintf(out, sizeof(out), "%s.out", dir);
	atexit(remove_dir);
	return 0;
}

static void put_file(const char *name, const uint8_t *p, size_t len)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (write(fd, p, len) != (ssize_t)len) {
		/* tmpfs full: the merge sees a shorter file, which is fine too */
	}
	close(fd);
}

static void clear_dir(void)
{
	char path[160];

	for (int k = 0; k < NR_KINDS; k++) {
		snprintf(path, sizeof(path), "%s/%s", dir, kind_name[k]);
		unlink(path);
	}
	unlink(out);
	snprintf(path, sizeof(path), "%s.old", out);
	unlink(path);
	snprintf(path, sizeof(path), "%s.partial", out);
	unlink(path);
}

__attribute__((noreturn)) static void violation(const char *what, const char *why, uint64_t off,
						 unsigned type)
{
	fprintf(stderr, "fuzz_merge: merge returned 0 but wrote %s perf rejects (%s) at offset %llu, "
		"type %u\n", what, why ? why : "?", (unsigned long long)off, type);
	abort();
}

static int check_inner(const struct perf_event_header *h, void *arg)
{
	const char *why;

	if (pfile_check__record(arg, h, pfile__rec_len(h), &why) != PFILE_CHECK_OK)
		violation("a record inside a COMPRESSED record", why, 0, h->type);
	return 0;
}

static void check_records(struct pfile *pf, struct pfile_check *chk)
{
	const struct perf_event_header *h;
	struct pfile_reader r;
	void *dec = zunpass__ops.new();
	uint64_t off;
	size_t len;
	const char *why;
	int ret;

	if (!dec || pfile_reader__init(&r, pf->fd, pf->hdr.data.offset, pf->hdr.data.size, 0))
		abort(); /* out of memory */
	while ((ret = pfile_reader__next(&r, &h, &len, &off)) > 0) {
		if (pfile_check__record(chk, h, len, &why) != PFILE_CHECK_OK)
			violation("a record", why, off, h->type);
		if (h->type == PFILE_REC_COMPRESSED &&
		    zunpass__ops.stream_feed(dec, h + 1, h->size - sizeof(*h), check_inner, chk))
			violation("a COMPRESSED record", "does not decompress", off, h->type);
	}
	if (ret < 0)
		violation("a data section", "unreadable", r.pos, 0);
	pfile_reader__release(&r);
	zunpass__ops.delete(dec);
}

static void check_output(void)
{
	struct pfile pf = {.fd = -1};
	struct pfile_check chk;
	char err[1024];
	const char *why;

	if (pfile__open(&pf, out, err, sizeof(err)))
		violation("a header", err, 0, 0);
	if (!pfile_check__events(&pf, &why))
		violation("attrs", why, 0, 0);
	for (int feat = 0; feat < PFILE_FEAT_BITS; feat++)
		if (pfile_featset__has(&pf.feats, feat) &&
		    !pfile_check__feature(&pf, feat, pf.feats.sec[feat].data, pf.feats.sec[feat].size,
					  &why))
			violation("a feature section", why, 0, feat);
	if (pfile_check__init(&chk, &pf))
		abort();
	check_records(&pf, &chk);
	pfile_check__release(&chk);
	pfile__close(&pf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct merge_opts mo = {.dir = dir, .output = out, .dec = &zunpass__ops};
	struct merge_stats st;
	char err[1024];
	size_t pos = 1;

	if (!size || (!dir[0] && setup_dir()))
		return 0;
	mo.recover = data[0] & 1;
	mo.decompress = data[0] & 2;
	while (pos + 5 <= size) {
		uint32_t len;
		uint8_t kind = data[pos];

		memcpy(&len, data + pos + 1, 4);
		pos += 5;
		if (len > size - pos)
			len = size - pos;
		if (kind < NR_KINDS)
			put_file(kind_name[kind], data + pos, len);
		pos += len;
	}
	if (!merge__run(&mo, &st, err, sizeof(err)))
		check_output();
	else if (getenv("FUZZ_MERGE_VERBOSE"))
		fprintf(stderr, "merge: %s\n", err);
	merge_stats__release(&st);
	clear_dir();
	return 0;
}
