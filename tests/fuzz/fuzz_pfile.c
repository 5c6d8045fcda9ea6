// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data reader under fuzz: pfile__open (header, attrs, ids, feature
 * table), then every record of the data section through pfile_reader with
 * a small buffer (so refills and realignment are exercised) and the id and
 * time lookups merge uses. Links libperfdata.a alone; `shardrec loss` on
 * the same seeds is fuzz_loss.
 */
#include "recorder/perfdata/pfile.h"
#include "recorder/perfdata/pfile_sample.h"
#include "tests/fuzz/fuzz_util.h"

#include <stdlib.h>

static void walk_records(struct pfile *pf)
{
	struct pfile_idlayout l;
	struct pfile_reader r;
	const struct perf_event_header *h;
	size_t len;
	uint64_t off, v;

	pfile_idlayout__init(&l, pf->events[0].attr.sample_type, pf->events[0].attr.sample_id_all);
	if (pfile_reader__init(&r, pf->fd, pf->hdr.data.offset, pf->hdr.data.size, 64))
		return;
	while (pfile_reader__next(&r, &h, &len, &off) > 0) {
		pfile_idlayout__time(&l, h, &v);
		if (pfile_idlayout__id(&l, h, &v))
			pfile__event_by_id(pf, v);
	}
	pfile_reader__release(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pfile pf;
	char path[64], err[512];
	int fd = fuzz_memfd(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	if (!pfile__open(&pf, path, err, sizeof(err))) {
		walk_records(&pf);
		pfile__close(&pf);
	}
	close(fd);
	return 0;
}
