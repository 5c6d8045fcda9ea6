/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Synthesized records: what existed before recording started, so perf can
 * name threads and resolve symbols (perf's synthetic-events.c). Records are
 * appended to a recbuf with a sample_id trailer (time 0, id 0: perf maps
 * id 0 to the first event) laid out by the pfile_idlayout.
 */
#ifndef SHARDREC_SYNTH_H
#define SHARDREC_SYNTH_H

#include "recorder/pfile.h"
#include "recorder/recbuf.h"

#include <sys/types.h>

struct synth {
	const struct pfile_idlayout *layout;
	struct recbuf *out;
	const char *proc_root; /* NULL = "/proc"; tests use a fake tree */
	const char *sys_root;  /* NULL = "" (real /sys) */
};

/* Kernel map: MMAP, misc KERNEL, pid -1, "[kernel.kallsyms]_text", pgoff = &_text. 0 / -errno. */
int synth__kernel_mmap(struct synth *s);
/*
 * One MMAP per loaded module (/proc/modules + its path from
 * @sys_root/lib/modules/$(uname -r)/modules.dep, "[name]" if not found).
 * 0 if there is no /proc/modules; -EPERM if kptr_restrict hides addresses.
 */
int synth__modules(struct synth *s);
/*
 * FORK then COMM for every thread of @pid (perf 6.1 emits FORK for the
 * leader too, parent = PPid, misc FORK_EXEC), and MMAP2 for every executable
 * mapping of the process (as perf's __event__synthesize_thread). -ESRCH if
 * the process vanished; -EACCES if its maps are unreadable (FORK/COMM are
 * then already appended).
 */
int synth__process(struct synth *s, pid_t pid);
/* synth__process for every process in /proc. Vanishing processes are skipped. 0 / -errno. */
int synth__all_processes(struct synth *s);
/* THREAD_MAP (73) for @tids (nr may be 1 with tid -1 for system-wide) */
int synth__thread_map(struct synth *s, const pid_t *tids, size_t nr);
/* CPU_MAP (74) for @cpus */
int synth__cpu_map(struct synth *s, const int *cpus, size_t nr);
/* FINISHED_INIT (82): end of the synthesized prologue */
int synth__finished_init(struct synth *s);

#endif
