// SPDX-License-Identifier: GPL-2.0
/*
 * Shard reader under fuzz: shard_reader__open on the input, then every
 * pass and, per plain pass, every chunk. Links libperfdata.a alone; ZPASS
 * payloads are fuzz_zshard's.
 */
#include "recorder/perfdata/shard_reader.h"
#include "tests/fuzz/fuzz_util.h"

#include <fcntl.h>
#include <stdlib.h>

static void walk_chunks(const struct shard_pass *p)
{
	const unsigned char *data;
	size_t pos = 0, len;
	uint32_t cpu;

	while (shard_pass__next_chunk(p, &pos, &cpu, &data, &len) > 0)
		;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct shard_reader r;
	struct shard_pass p;
	char path[64], err[256];
	int fd = fuzz_memfd(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	if (shard_reader__open(&r, AT_FDCWD, path, err, sizeof(err)))
		goto out_close;
	while (shard_reader__next_pass(&r, &p, err, sizeof(err)) > 0) {
		if (!p.compressed)
			walk_chunks(&p);
		shard_pass__release(&p);
	}
	shard_reader__close(&r);
out_close:
	close(fd);
	return 0;
}
