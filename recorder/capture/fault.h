/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault injection for tests: makes chosen writers behave as if their disk
 * were full, failing or slow, where a real fault cannot single one writer
 * out (all shards share one directory). Inert unless the environment
 * variable SHARDREC_FAULT is set when the first writer writes:
 *
 *   SHARDREC_FAULT=SPEC[,SPEC...]   SPEC = writer:IDX:KIND:ARG
 *     IDX   a writer index, or * for every writer
 *     KIND  enospc_after  the write that would take the shard past ARG
 *                         bytes fails with ENOSPC (nothing of it written)
 *           eio_after     the same with EIO
 *           slow          every write first sleeps ARG milliseconds
 *
 * e.g. SHARDREC_FAULT=writer:1:enospc_after:200000. A set variable is
 * announced with a warning so it is never active unnoticed. It is a testing
 * aid, not an interface: tests/e2e/85-faults.sh uses it.
 */
#ifndef SHARDREC_FAULT_H
#define SHARDREC_FAULT_H

#include <stdint.h>

/*
 * Called by writer @idx before it writes @len bytes at offset @off of its
 * shard: 0, or the -errno the write must fail with. May sleep (slow).
 * Thread-safe; the spec is parsed once.
 */
int fault__shard_write(unsigned idx, uint64_t off, uint64_t len);

/* Parses @spec (the SHARDREC_FAULT syntax) for tests. 0 / -EINVAL. */
int fault__set(const char *spec);

#endif
