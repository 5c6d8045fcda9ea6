/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfile_sample: what records hold, read without parsing them whole
 * (pfile_sample.c): where a sample_type puts ids and times, a record's
 * length in a stream, ID_INDEX entries.
 */
#ifndef SHARDREC_PFILE_SAMPLE_H
#define SHARDREC_PFILE_SAMPLE_H

#include "recorder/perfdata/pfile_format.h"

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* How sample ids and times are laid out for a given sample_type. */
struct pfile_idlayout {
	uint64_t sample_type;
	bool sample_id_all;
	int sample_time_off;    /* byte offset of time in a SAMPLE, -1 if none */
	int sample_id_off;      /* byte offset of IDENTIFIER/ID in a SAMPLE, -1 */
	int trailer_time_back;  /* bytes from record end to the trailer time, -1 */
	int trailer_id_back;    /* bytes from record end to the trailer id, -1 */
	int sample_cpu_off;     /* byte offset of CPU in a SAMPLE, -1 */
	int sample_tid_off;     /* byte offset of pid/tid in a SAMPLE, -1 */
	int sample_ip_off;      /* byte offset of IP in a SAMPLE, -1 */
	int sample_id2_off;     /* ID when IDENTIFIER is there too, -1 */
	int sample_stream_off;  /* STREAM_ID in a SAMPLE, -1 */
	size_t id_hdr_size;     /* size of the sample_id trailer */
};

void pfile_idlayout__init(struct pfile_idlayout *l, uint64_t sample_type, bool sample_id_all);

/*
 * The field at @sample_off of a SAMPLE, or @trailer_back bytes before the
 * end of another kernel record. Inline with the two below: the merge reads
 * a time and an id from every record it writes.
 */
static inline bool pfile_idlayout__field(const struct pfile_idlayout *l,
					 const struct perf_event_header *h, int sample_off,
					 int trailer_back, uint64_t *v)
{
	struct perf_event_header hd;
	int off = sample_off;

	/* A copy: AUXTRACE payloads and COMPRESSED records leave records unaligned. */
	memcpy(&hd, h, sizeof(hd));
	if (hd.type >= PFILE_REC_HEADER_ATTR) /* perf's user records carry neither */
		return false;
	if (hd.type != PERF_RECORD_SAMPLE) {
		if (!l->sample_id_all || trailer_back < 0 || (size_t)trailer_back + 8 > hd.size)
			return false;
		off = hd.size - trailer_back;
	}
	if (off < 0 || (size_t)off + 8 > hd.size)
		return false;
	memcpy(v, (const char *)h + off, 8);
	return true;
}

/* Timestamp of a kernel record; false for user types and records without one. */
static inline bool pfile_idlayout__time(const struct pfile_idlayout *l,
					const struct perf_event_header *h, uint64_t *time)
{
	return pfile_idlayout__field(l, h, l->sample_time_off, l->trailer_time_back, time);
}

/* Sample id (IDENTIFIER or ID) of a kernel record; false if none. */
static inline bool pfile_idlayout__id(const struct pfile_idlayout *l,
				      const struct perf_event_header *h, uint64_t *id)
{
	return pfile_idlayout__field(l, h, l->sample_id_off, l->trailer_id_back, id);
}

/*
 * Sets every id field of SAMPLE @rec (IDENTIFIER, ID, STREAM_ID: the
 * kernel writes the same id in each) to @id; @rec holds the whole record.
 */
void pfile_idlayout__set_sample_id(const struct pfile_idlayout *l, void *rec, uint64_t id);
/*
 * Writes the sample_id trailer for a synthesized record (perf's
 * perf_event__synthesize_id_sample): fields in sample_type order, @time,
 * @id, @cpu, pid/tid. Returns bytes written (= l->id_hdr_size).
 */
size_t pfile_idlayout__write_trailer(const struct pfile_idlayout *l, void *dst, uint32_t pid,
				     uint32_t tid, uint64_t time, uint64_t id, uint32_t cpu);

/*
 * KSYMBOL and BPF_EVENT records the kernel made too long. Its
 * perf_event_ksymbol_output() and perf_event_bpf_output() add each
 * receiving event's trailer size to one shared header and, unlike the other
 * side-band outputs, never restore it: when several events take the record
 * (another recording on the machine with attr.ksymbol or attr.bpf_event),
 * each after the first gets a record longer by the trailers before it:
 * body, its own trailer, then stale ring bytes (seen on 6.18). Readers take
 * the trailer from the end, so its time and id would be those stale bytes.
 * Moves the trailer to the end and zeroes the gap: the length, and so the
 * stream around it, stays. True when it did; @len: bytes at @rec.
 */
bool pfile_idlayout__mend_sideband(const struct pfile_idlayout *l, void *rec, size_t len);

/*
 * Bytes a record occupies in a stream: header.size, plus for AUXTRACE the
 * trace payload that follows its 48-byte header (header.size does not count
 * it). UINT64_MAX for an AUXTRACE too short to hold its size or with a
 * payload above PFILE_AUXTRACE_MAX. Reads 16 bytes at @hp only for AUXTRACE
 * with header.size >= 16: callers check header.size fits first.
 */
static inline uint64_t pfile__rec_len(const struct perf_event_header *hp)
{
	struct perf_event_header h;
	uint64_t payload;

	/* Copied: records after a COMPRESSED one (unpadded size) need not be aligned. */
	memcpy(&h, hp, sizeof(h));
	if (h.type != PFILE_REC_AUXTRACE)
		return h.size;
	if (h.size < sizeof(h) + sizeof(payload))
		return UINT64_MAX;
	memcpy(&payload, (const char *)hp + sizeof(h), sizeof(payload));
	return payload > PFILE_AUXTRACE_MAX ? UINT64_MAX : h.size + payload;
}

/*
 * Walks the records of a stream: returns the bytes of whole records at its
 * start. *@status is 0 when all @len bytes are whole records, 1 when the last
 * record runs past @len (a cut stream), -1 on a malformed record at the
 * returned offset (size < 8, or with @aligned a size that is not a multiple
 * of 8: kernel records are, COMPRESSED ones are not).
 */
size_t pfile__walk_records(const void *buf, size_t len, bool aligned, int *status);

/* perf's struct id_index_entry: a sample id, its ring's index, CPU and thread. */
struct pfile_id_index_entry {
	uint64_t id, idx, cpu, tid;
};
_Static_assert(sizeof(struct pfile_id_index_entry) == 32, "id_index_entry layout");

/*
 * An ID_INDEX record @rec of @size bytes (header included): u64 nr, nr
 * entries, then optionally nr x {machine_pid, vcpu} (perf's
 * id_index_entry_2). Its number of entries, -1 when the size fits neither.
 */
static inline long pfile_id_index__nr(const void *rec, size_t size)
{
	const size_t ent = sizeof(struct pfile_id_index_entry), ent2 = ent + 16;
	uint64_t nr;

	if (size < 16)
		return -1;
	memcpy(&nr, (const char *)rec + 8, sizeof(nr));
	if (nr > (size - 16) / ent || (size - 16 != nr * ent && size - 16 != nr * ent2))
		return -1;
	return (long)nr;
}

/* Entry @i (below pfile_id_index__nr) of the ID_INDEX record @rec; copied, records need not be aligned. */
static inline void pfile_id_index__entry(const void *rec, uint64_t i,
					 struct pfile_id_index_entry *e)
{
	memcpy(e, (const char *)rec + 16 + i * sizeof(*e), sizeof(*e));
}

#endif
