// SPDX-License-Identifier: GPL-2.0
/*
 * genshards: fills a shard directory with large synthetic shards for the
 * merge benchmark, deterministically and much faster than recording them.
 *
 * Usage: genshards DIR NSHARDS MB_PER_SHARD
 *
 * DIR must hold the header.data of a real run (shardrec record
 * --keep-shards); its first event's sample_type and ids are used. Shard k
 * gets CPU k's samples; sample i of shard k is stamped t0 + (i * NSHARDS + k)
 * * 100 ns, so the shards interleave record by record as per-CPU rings of a
 * busy machine do. Passes of 1 MiB carry, like the writer's, a wtime no
 * earlier than any record they hold and no later than the next pass's.
 */
#include "recorder/perfdata/pfile.h"
#include "recorder/perfdata/shard.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PASS_BYTES (1U << 20)
#define STEP_NS 100
#define SUPPORTED                                                                                  \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |             \
	 PERF_SAMPLE_PERIOD)

struct gen {
	uint64_t sample_type, id, t0;
	uint8_t run_id[SHARD_RUN_ID_SIZE]; /* header.data's: the merge refuses shards of another run */
	unsigned nshards;
	size_t rec_size;
};

static void put64(unsigned char **p, uint64_t v)
{
	memcpy(*p, &v, 8);
	*p += 8;
}

/* One SAMPLE in sample_type order (kernel perf_output_sample). */
static void gen_sample(const struct gen *g, unsigned char *p, uint64_t t, uint32_t cpu, uint64_t n)
{
	struct perf_event_header h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, g->rec_size};
	uint64_t st = g->sample_type;

	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	if (st & PERF_SAMPLE_IDENTIFIER)
		put64(&p, g->id);
	if (st & PERF_SAMPLE_IP)
		put64(&p, 0xffffffff81000000ULL + (n % 4096) * 16);
	if (st & PERF_SAMPLE_TID)
		put64(&p, (uint64_t)(1000 + cpu) << 32 | (1000 + cpu));
	if (st & PERF_SAMPLE_TIME)
		put64(&p, t);
	if (st & PERF_SAMPLE_ADDR)
		put64(&p, 0);
	if (st & PERF_SAMPLE_ID)
		put64(&p, g->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		put64(&p, g->id);
	if (st & PERF_SAMPLE_CPU)
		put64(&p, cpu);
	if (st & PERF_SAMPLE_PERIOD)
		put64(&p, 1);
}

static int gen_shard(const struct gen *g, int dirfd, unsigned k, uint64_t bytes)
{
	size_t per_pass = PASS_BYTES / g->rec_size;
	unsigned char *buf = malloc(per_pass * g->rec_size);
	struct shard_chunk_rec chunk;
	struct shard s = {.fd = -1};
	uint64_t n = 0, total = bytes / g->rec_size;
	int ret = -ENOMEM;

	if (!buf)
		return ret;
	ret = shard__create(&s, dirfd, k, 0, 0, g->run_id);
	while (!ret && n < total) {
		size_t cnt = total - n < per_pass ? total - n : per_pass;
		struct iovec iov[3];
		uint64_t t = 0;

		for (size_t i = 0; i < cnt; i++, n++) {
			t = g->t0 + (n * g->nshards + k) * STEP_NS;
			gen_sample(g, buf + i * g->rec_size, t, k, n);
		}
		shard_chunk__init(&chunk, k, cnt * g->rec_size);
		iov[1] = (struct iovec){&chunk, sizeof(chunk)};
		iov[2] = (struct iovec){buf, cnt * g->rec_size};
		ret = shard__write_pass(&s, t + 1, iov, 3, sizeof(chunk) + cnt * g->rec_size);
	}
	shard__close(&s);
	free(buf);
	return ret;
}

static int gen_init(struct gen *g, const char *dir, unsigned nshards)
{
	char path[4096], err[512];
	struct pfile pf = {.fd = -1};
	const struct pfile_event *ev;
	struct timespec ts;
	int ret;

	snprintf(path, sizeof(path), "%s/header.data", dir);
	ret = pfile__open(&pf, path, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "genshards: %s\n", err);
		return ret;
	}
	/* the first event that samples: perf's tracking dummy (-a) never does */
	ev = &pf.events[0];
	while (ev + 1 < pf.events + pf.nr_events && pfile_attr__is_dummy(&ev->attr))
		ev++;
	g->sample_type = ev->attr.sample_type;
	g->id = ev->nr_ids ? ev->ids[0] : 0;
	memset(g->run_id, 0, sizeof(g->run_id));
	if (pf.feats.sec[SHARD_FEAT_RUN_ID].size == SHARD_RUN_ID_SIZE)
		memcpy(g->run_id, pf.feats.sec[SHARD_FEAT_RUN_ID].data, SHARD_RUN_ID_SIZE);
	pfile__close(&pf);
	if (g->sample_type & ~(uint64_t)SUPPORTED) {
		fprintf(stderr, "genshards: sample_type %#llx: record without -g or raw data\n",
			(unsigned long long)g->sample_type);
		return -EINVAL;
	}
	g->rec_size = sizeof(struct perf_event_header) + 8 * __builtin_popcountll(g->sample_type);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	g->t0 = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	g->nshards = nshards;
	return 0;
}

int main(int argc, char **argv)
{
	struct gen g;
	unsigned n;
	uint64_t mb;
	int dirfd, ret;

	if (argc != 4 || !(n = atoi(argv[2])) || !(mb = strtoull(argv[3], NULL, 0))) {
		fprintf(stderr, "Usage: genshards DIR NSHARDS MB_PER_SHARD\n");
		return 2;
	}
	if (gen_init(&g, argv[1], n))
		return 1;
	dirfd = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (dirfd < 0) {
		perror(argv[1]);
		return 1;
	}
	for (unsigned k = 0; k < n; k++) {
		ret = gen_shard(&g, dirfd, k, mb << 20);
		if (ret) {
			fprintf(stderr, "genshards: shard.%u: %s\n", k, strerror(-ret));
			return 1;
		}
	}
	close(dirfd);
	return 0;
}
