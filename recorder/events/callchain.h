/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf record's call-graph and register options: --call-graph fp|dwarf[,size],
 * --user-regs=REGS and -I/--intr-regs=REGS, with perf 6.1's names, limits
 * and defaults (tools/perf/util/callchain.c, perf_regs.c).
 */
#ifndef SHARDREC_CALLCHAIN_H
#define SHARDREC_CALLCHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CALLCHAIN_DWARF_DEFAULT 8192
/* perf's limit: the kernel takes a u16 size, rounded down to a u64 multiple. */
#define CALLCHAIN_DWARF_MAX 65528

enum callchain_mode {
	CALLCHAIN_NONE,
	CALLCHAIN_FP,
	CALLCHAIN_DWARF,
};

/*
 * Parses a --call-graph value: "fp", "fp,N", "dwarf" or "dwarf,SIZE". Sets
 * *@mode and *@size: for dwarf the user stack bytes (SIZE rounded up to 8
 * bytes, 8..65528), for fp the maximum stack depth N (perf's max_stack,
 * 0 = the kernel's limit). 0 / -EINVAL with one line in @err.
 */
int callchain__parse(const char *spec, enum callchain_mode *mode, uint32_t *size, char *err,
		     size_t errlen);

/*
 * Parses a register list ("IP,SP,BP", case-insensitive) into a
 * PERF_SAMPLE_REGS mask; NULL or "" means every register the arch samples.
 * 0 / -EINVAL (unknown name) / -EOPNOTSUPP (no table for this arch) with
 * one line in @err.
 */
int callchain__parse_regs(const char *list, uint64_t *mask, char *err, size_t errlen);

/* Every user register this arch samples (perf's arch__user_reg_mask()). */
uint64_t callchain__all_regs(void);
/* The registers DWARF unwinding cannot do without: IP and SP. */
uint64_t callchain__dwarf_min_regs(void);

#endif
