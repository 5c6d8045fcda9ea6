// SPDX-License-Identifier: GPL-2.0
#include "recorder/events/callchain.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#if defined(__x86_64__)
#include <asm/perf_regs.h>

static const struct {
	const char *name;
	int bit;
} regs[] = {
	{"AX", PERF_REG_X86_AX},   {"BX", PERF_REG_X86_BX},       {"CX", PERF_REG_X86_CX},
	{"DX", PERF_REG_X86_DX},   {"SI", PERF_REG_X86_SI},       {"DI", PERF_REG_X86_DI},
	{"BP", PERF_REG_X86_BP},   {"SP", PERF_REG_X86_SP},       {"IP", PERF_REG_X86_IP},
	{"FLAGS", PERF_REG_X86_FLAGS}, {"CS", PERF_REG_X86_CS},   {"SS", PERF_REG_X86_SS},
	{"R8", PERF_REG_X86_R8},   {"R9", PERF_REG_X86_R9},       {"R10", PERF_REG_X86_R10},
	{"R11", PERF_REG_X86_R11}, {"R12", PERF_REG_X86_R12},     {"R13", PERF_REG_X86_R13},
	{"R14", PERF_REG_X86_R14}, {"R15", PERF_REG_X86_R15},
};
#define NR_REGS (sizeof(regs) / sizeof(regs[0]))
#define REG_IP PERF_REG_X86_IP
#define REG_SP PERF_REG_X86_SP
#else
/* No table: register sampling is refused clearly rather than guessed. */
static const struct {
	const char *name;
	int bit;
} regs[1];
#define NR_REGS 0
#define REG_IP 0
#define REG_SP 0
#endif

uint64_t callchain__all_regs(void)
{
	uint64_t m = 0;

	for (size_t i = 0; i < NR_REGS; i++)
		m |= 1ULL << regs[i].bit;
	return m;
}

uint64_t callchain__dwarf_min_regs(void)
{
	return NR_REGS ? (1ULL << REG_IP) | (1ULL << REG_SP) : 0;
}

static int dwarf_size(const char *s, uint32_t *size, char *err, size_t errlen)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || !*s || *s == '-')
		v = 0;
	/* perf rounds up to a u64 multiple, then checks the range. */
	v = (v + 7) & ~7ULL;
	if (!v || v > CALLCHAIN_DWARF_MAX) {
		snprintf(err, errlen, "--call-graph dwarf,%s: stack dump size must be 8..%d bytes",
			 s, CALLCHAIN_DWARF_MAX);
		return -EINVAL;
	}
	*size = v;
	return 0;
}

/* perf's fp,N (parse_callchain_record): N frames at most, 0 = the kernel's limit. */
static int fp_max_stack(const char *s, uint32_t *max_stack, char *err, size_t errlen)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || !*s || *s == '-' || v > UINT32_MAX) {
		snprintf(err, errlen, "--call-graph fp,%s: the maximum stack depth must be a number",
			 s);
		return -EINVAL;
	}
	*max_stack = v;
	return 0;
}

int callchain__parse(const char *spec, enum callchain_mode *mode, uint32_t *size, char *err,
		     size_t errlen)
{
	const char *comma = strchr(spec, ',');
	size_t len = comma ? (size_t)(comma - spec) : strlen(spec);

	if (len == 2 && !strncmp(spec, "fp", 2)) {
		*mode = CALLCHAIN_FP;
		*size = 0;
		return comma ? fp_max_stack(comma + 1, size, err, errlen) : 0;
	}
	if (len == 5 && !strncmp(spec, "dwarf", 5)) {
		*mode = CALLCHAIN_DWARF;
		*size = CALLCHAIN_DWARF_DEFAULT;
		return comma ? dwarf_size(comma + 1, size, err, errlen) : 0;
	}
	snprintf(err, errlen, "--call-graph: '%s' is not supported (use fp[,N] or dwarf[,size]%s)",
		 spec, strncmp(spec, "lbr", 3) ? "" : "; lbr needs a hardware PMU");
	return -EINVAL;
}

static int reg_bit(const char *name, size_t len)
{
	for (size_t i = 0; i < NR_REGS; i++)
		if (strlen(regs[i].name) == len && !strncasecmp(name, regs[i].name, len))
			return regs[i].bit;
	return -1;
}

int callchain__parse_regs(const char *list, uint64_t *mask, char *err, size_t errlen)
{
	const char *p = list;

	if (!NR_REGS) {
		snprintf(err, errlen, "register sampling is not supported on this architecture");
		return -EOPNOTSUPP;
	}
	if (!list || !*list) {
		*mask = callchain__all_regs();
		return 0;
	}
	*mask = 0;
	while (*p) {
		size_t len = strcspn(p, ",");
		int bit = reg_bit(p, len);

		if (bit < 0) {
			snprintf(err, errlen, "unknown register '%.*s' (known: AX BX CX DX SI DI BP "
				 "SP IP FLAGS CS SS R8-R15)", (int)len, p);
			return -EINVAL;
		}
		*mask |= 1ULL << bit;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}
