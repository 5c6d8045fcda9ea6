/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault injection for tests: makes chosen writers behave as if their disk
 * were full, failing or slow, where a real fault cannot single one writer
 * out (all shards share one directory). Inert unless the environment
 * variable SHARDREC_FAULT is set when the first writer writes:
 *
 *   SHARDREC_FAULT=SPEC[,SPEC...]
 *     SPEC = writer:IDX:KIND:ARG | ring:CPU:hold:MS | switch:GEN:kill:MS |
 *            synth:1:sleep:MS
 *     IDX   a writer index, or * for every writer
 *     KIND  enospc_after  the write that would take the shard past ARG
 *                         bytes fails with ENOSPC (nothing of it written)
 *           eio_after     the same with EIO
 *           slow          every write first sleeps ARG milliseconds
 *     ring:CPU:hold:MS    CPU's ring is left unread for MS milliseconds from
 *                         the first pass that finds data in it: its records reach the
 *                         shard after passes stamped later than them, as
 *                         those of a descheduled vCPU or a stalled CPU do
 *     switch:GEN:kill:MS  the recorder dies (SIGKILL) in the switch to
 *                         generation GEN of a rotated run: MS milliseconds
 *                         after the previous one was handed to the merge,
 *                         while the writers record into GEN, before its
 *                         header describes the tasks
 *     synth:1:sleep:MS    the recorder sleeps MS milliseconds once the
 *                         tasks are described (header.data written), before
 *                         the events are enabled: what starts meanwhile
 *                         must have its records all the same
 *
 * e.g. SHARDREC_FAULT=writer:1:enospc_after:200000. A set variable is
 * announced with a warning so it is never active unnoticed. It is a testing
 * aid, not an interface: tests/e2e/85-faults.sh uses it.
 */
#ifndef SHARDREC_FAULT_H
#define SHARDREC_FAULT_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Called by writer @idx before it writes @len bytes at offset @off of its
 * shard: 0, or the -errno the write must fail with. May sleep (slow).
 * Thread-safe; the spec is parsed once.
 */
int fault__shard_write(unsigned idx, uint64_t off, uint64_t len);

/*
 * Whether writer passes must leave CPU @cpu's ring unread now (ring:CPU:hold).
 * @now_ns: the caller's clock; the hold starts at the first call for @cpu
 * (made when the ring has data).
 * Called by the ring's one writer only.
 */
bool fault__ring_held(unsigned cpu, uint64_t now_ns);

/* The switch to @gen, before its header is replaced: dies there if switch:GEN:kill says so. */
void fault__switch_taken(unsigned gen);

/* The first generation's tasks were described: sleeps if synth:1:sleep says so. */
void fault__synth_done(void);

/* Parses @spec (the SHARDREC_FAULT syntax) for tests. 0 / -EINVAL. */
int fault__set(const char *spec);

#endif
