// SPDX-License-Identifier: GPL-2.0
/*
 * Where ids and timestamps sit inside records, for a given sample_type.
 *
 * SAMPLE records start { IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID,
 * CPU, ... } (each only if its bit is set). Every other kernel record, when
 * sample_id_all is set, ends with the trailer { TID, TIME, ID, STREAM_ID,
 * CPU, IDENTIFIER }: IDENTIFIER is last so a reader can find the id without
 * knowing which event wrote the record (kernel perf_event_header__init_id).
 */
#include "recorder/perfdata/pfile_sample.h"

#include <string.h>

void pfile_idlayout__init(struct pfile_idlayout *l, uint64_t st, bool sample_id_all)
{
	int off = sizeof(struct perf_event_header);
	int back = 0;

	memset(l, 0, sizeof(*l));
	l->sample_type = st;
	l->sample_id_all = sample_id_all;
	l->sample_time_off = l->sample_id_off = l->sample_cpu_off = -1;
	l->sample_tid_off = l->sample_ip_off = -1;
	l->sample_id2_off = l->sample_stream_off = -1;
	l->trailer_time_back = l->trailer_id_back = -1;

	if (st & PERF_SAMPLE_IDENTIFIER) {
		l->sample_id_off = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_IP) {
		l->sample_ip_off = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_TID) {
		l->sample_tid_off = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		l->sample_time_off = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_ADDR)
		off += 8;
	if ((st & PERF_SAMPLE_ID) && l->sample_id_off < 0)
		l->sample_id_off = off;
	else if (st & PERF_SAMPLE_ID)
		l->sample_id2_off = off;
	if (st & PERF_SAMPLE_ID)
		off += 8;
	if (st & PERF_SAMPLE_STREAM_ID) {
		l->sample_stream_off = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_CPU)
		l->sample_cpu_off = off;

	if (!sample_id_all)
		return;
	/* Walk the trailer from its end backwards. */
	if (st & PERF_SAMPLE_IDENTIFIER) {
		back += 8;
		l->trailer_id_back = back;
	}
	if (st & PERF_SAMPLE_CPU)
		back += 8;
	if (st & PERF_SAMPLE_STREAM_ID)
		back += 8;
	if (st & PERF_SAMPLE_ID) {
		back += 8;
		if (l->trailer_id_back < 0)
			l->trailer_id_back = back;
	}
	if (st & PERF_SAMPLE_TIME) {
		back += 8;
		l->trailer_time_back = back;
	}
	if (st & PERF_SAMPLE_TID)
		back += 8;
	l->id_hdr_size = back;
}

bool pfile_idlayout__mend_sideband(const struct pfile_idlayout *l, void *rec, size_t len)
{
	struct perf_event_header h;
	size_t body = 24; /* header, then addr/len/type/flags or type/flags/id/tag */
	char *p = rec;

	if (len < sizeof(h))
		return false;
	memcpy(&h, rec, sizeof(h));
	if ((h.type != PERF_RECORD_KSYMBOL && h.type != PERF_RECORD_BPF_EVENT) ||
	    !l->sample_id_all || h.size > len || h.size < body)
		return false;
	if (h.type == PERF_RECORD_KSYMBOL) {
		size_t n = strnlen(p + body, h.size - body);

		if (n == h.size - body)
			return false; /* no name: damaged, which the checker says */
		body += (n + 1 + 7) & ~(size_t)7; /* the kernel's ALIGN(len + 1, 8) */
	}
	if (body + l->id_hdr_size >= h.size || (h.size - body - l->id_hdr_size) % 8)
		return false;
	/*
	 * A kernel trailer is never all zero (its time is not): a zero one is
	 * the gap of a record mended already, which a second check of the
	 * same bytes (merge_ahead's, then a frame's) must leave alone.
	 */
	for (size_t i = 0; i < l->id_hdr_size && !p[body + i]; i++)
		if (i + 1 == l->id_hdr_size)
			return false;
	memmove(p + h.size - l->id_hdr_size, p + body, l->id_hdr_size);
	memset(p + body, 0, h.size - l->id_hdr_size - body);
	return true;
}

void pfile_idlayout__set_sample_id(const struct pfile_idlayout *l, void *rec, uint64_t id)
{
	const int offs[] = {l->sample_id_off, l->sample_id2_off, l->sample_stream_off};
	uint16_t size;

	memcpy(&size, (char *)rec + 6, sizeof(size));
	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
		if (offs[i] >= 0 && (size_t)offs[i] + 8 <= size)
			memcpy((char *)rec + offs[i], &id, 8);
}

size_t pfile_idlayout__write_trailer(const struct pfile_idlayout *l, void *dst, uint32_t pid,
				     uint32_t tid, uint64_t time, uint64_t id, uint32_t cpu)
{
	uint64_t st = l->sample_type;
	unsigned char *p = dst;
	uint32_t pair[2];
	uint64_t zero = 0;

	if (!l->sample_id_all)
		return 0;
	if (st & PERF_SAMPLE_TID) {
		pair[0] = pid;
		pair[1] = tid;
		memcpy(p, pair, 8);
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		memcpy(p, &time, 8);
		p += 8;
	}
	if (st & PERF_SAMPLE_ID) {
		memcpy(p, &id, 8);
		p += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		memcpy(p, &zero, 8);
		p += 8;
	}
	if (st & PERF_SAMPLE_CPU) {
		pair[0] = cpu;
		pair[1] = 0;
		memcpy(p, pair, 8);
		p += 8;
	}
	if (st & PERF_SAMPLE_IDENTIFIER) {
		memcpy(p, &id, 8);
		p += 8;
	}
	return p - (unsigned char *)dst;
}

size_t pfile__walk_records(const void *buf, size_t len, bool aligned, int *status)
{
	const unsigned char *p = buf;
	size_t pos = 0;

	*status = 0;
	while (pos < len) {
		struct perf_event_header h;
		uint64_t full;

		if (len - pos < sizeof(h)) {
			*status = 1;
			break;
		}
		memcpy(&h, p + pos, sizeof(h));
		if (h.size < sizeof(h) || (aligned && (h.size & 7))) {
			*status = -1;
			break;
		}
		if (h.size > len - pos) {
			*status = 1;
			break;
		}
		full = pfile__rec_len((const void *)(p + pos));
		if (full == UINT64_MAX || (aligned && (full & 7))) {
			*status = -1;
			break;
		}
		if (full > len - pos) {
			*status = 1;
			break;
		}
		pos += full;
	}
	return pos;
}
