// SPDX-License-Identifier: GPL-2.0
/*
 * `shardrec loss` under fuzz: loss__analyze on a perf.data, which also walks
 * COMPRESSED records through the decoder (zunpass__ops' stream). Seeds and
 * saved crashers: fuzz_pfile's.
 */
#include "recorder/codec/zunpass.h"
#include "recorder/loss/loss.h"
#include "tests/fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct loss_stats st;
	char path[64], err[512];
	int fd = fuzz_memfd(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	if (!loss__analyze(path, &zunpass__ops, &st, err, sizeof(err)))
		loss_stats__metric(&st);
	loss_stats__release(&st);
	close(fd);
	return 0;
}
