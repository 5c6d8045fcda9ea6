// SPDX-License-Identifier: GPL-2.0
/*
 * Compressed shards under fuzz: shard_reader__open on the input, then every
 * ZPASS pass decompressed through zunpass__run into a buffer of the pass's
 * stated raw size, bounded as merge bounds it. Seeds: fuzz_shard's. The
 * plain reader alone is fuzz_shard (libperfdata.a only).
 */
#include "recorder/perfdata/shard_reader.h"
#include "recorder/codec/zunpass.h"
#include "tests/fuzz/fuzz_util.h"

#include <fcntl.h>
#include <stdlib.h>

static void walk_zpass(struct zunpass *u, const struct shard_pass *p)
{
	size_t bound = zunpass__bound(p->buf, p->len), bad, got;
	size_t cap = p->raw < bound ? p->raw : bound;
	unsigned char *out = malloc(cap ? cap : 1);

	if (!out)
		return;
	zunpass__run(u, p->buf, p->len, out, cap, &bad, &got);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct shard_reader r;
	struct shard_pass p;
	struct zunpass u;
	char path[64], err[256];
	int fd = fuzz_memfd(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	if (zunpass__init(&u))
		goto out_close;
	if (shard_reader__open(&r, AT_FDCWD, path, err, sizeof(err)))
		goto out_unpass;
	while (shard_reader__next_pass(&r, &p, err, sizeof(err)) > 0) {
		if (p.compressed)
			walk_zpass(&u, &p);
		shard_pass__release(&p);
	}
	shard_reader__close(&r);
out_unpass:
	zunpass__release(&u);
out_close:
	close(fd);
	return 0;
}
