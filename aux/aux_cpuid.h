/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPUID leaf 0x15 (TSC / core crystal clock ratio) for Intel PT's
 * AUXTRACE_INFO; zeros where there is no such leaf (other architectures),
 * as perf writes when CPUID reports none. Private to aux/.
 */
#ifndef SHARDREC_AUX_CPUID_H
#define SHARDREC_AUX_CPUID_H

#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static inline void aux_cpuid__tsc_ctc(uint32_t *n, uint32_t *d)
{
	unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;

	__get_cpuid(0x15, &eax, &ebx, &ecx, &edx);
	*n = ebx;
	*d = eax;
}
#else
static inline void aux_cpuid__tsc_ctc(uint32_t *n, uint32_t *d)
{
	*n = 0;
	*d = 0;
}
#endif

#endif
