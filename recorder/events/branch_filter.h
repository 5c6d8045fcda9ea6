/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Taken-branch stack sampling modes (attr.branch_sample_type), spelt as
 * perf 6.1's parse-branch-options.c takes them: record's -b and
 * -j/--branch-filter, and the branch_type= event term.
 */
#ifndef SHARDREC_BRANCH_FILTER_H
#define SHARDREC_BRANCH_FILTER_H

#include <stddef.h>
#include <stdint.h>

/* The modes perf 6.1 knows, comma-separated, for messages and --help. */
#define BRANCH_FILTER_MODES                                                                        \
	"u,k,hv,any,any_call,any_ret,ind_call,abort_tx,in_tx,no_tx,cond,ind_jmp,call,save_type,"   \
	"stack,priv"

/*
 * The PERF_SAMPLE_BRANCH_* bit of one mode name (case-insensitive, as
 * perf's strcasecmp), or 0 for a name perf does not know.
 */
uint64_t branch_filter__mode(const char *name);

/*
 * ORs @bits into *@mode; a result with no branch type, only the privilege
 * levels u, k, hv (or nothing), becomes PERF_SAMPLE_BRANCH_ANY alone, as
 * perf's parse_branch_str() does after each list.
 */
void branch_filter__add(uint64_t *mode, uint64_t bits);

/*
 * perf's parse_branch_str(): ORs the comma list @str of mode names into
 * *@mode, then branch_filter__add()'s rule. 0, or -EINVAL with one line in
 * @err naming the unknown mode and the valid ones (*@mode is then
 * unchanged).
 */
int branch_filter__parse(const char *str, uint64_t *mode, char *err, size_t errlen);

#endif
