/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Synthesized records: what existed before recording started, so perf can
 * name threads and resolve symbols (perf's synthetic-events.c). Records are
 * appended to a recbuf with a sample_id trailer (time 0, id 0: perf maps
 * id 0 to the first event) laid out by the pfile_idlayout.
 */
#ifndef SHARDREC_SYNTH_H
#define SHARDREC_SYNTH_H

#include "recorder/perfdata/pfile_feat.h"
#include "recorder/perfdata/pfile_sample.h"
#include "recorder/perfdata/recbuf.h"

#include <sys/types.h>

struct synth {
	const struct pfile_idlayout *layout;
	struct recbuf *out;
	const char *proc_root; /* NULL = "/proc"; tests use a fake tree */
	const char *sys_root;  /* NULL = "": the real root, for lib/modules */
	/*
	 * perf's opts->sample_address (-d, or DWARF call graphs): readable
	 * non-executable mappings too, with misc MMAP_DATA.
	 */
	bool mmap_data;
	/* --synth=task: FORK/COMM only, no MMAP2 of the tasks' maps. */
	bool no_mmap;
	/* --namespaces: a NAMESPACES record after each synthesized COMM. */
	bool namespaces;
	/*
	 * --proc-map-timeout (with has_map_timeout): stop reading one
	 * process's maps after this many ms, as perf does (0 = after the first
	 * mapping); counted in nr_map_timeouts.
	 */
	bool has_map_timeout;
	unsigned proc_map_timeout_ms;
	unsigned int nr_map_timeouts;
	/* synth__threads: skip tasks whose maps are unreadable, as for -a (-u). */
	bool skip_unreadable;
	/* Out: the /proc file that failed, for the caller's one-line error. */
	char err_path[64];
	/* Out: processes skipped for unreadable maps (err_path: the first one's file). */
	unsigned int nr_unreadable;
	int unreadable_err; /* the first one's -errno */
	/*
	 * synth__bpf_programs keeps what perf's perf_env keeps of the programs
	 * it describes here, for BPF_PROG_INFO and BPF_BTF (NULL: nothing).
	 */
	struct synth_bpf_env *bpf_env;
	/*
	 * Out of synth__bpf_programs: the whole list was read, and no program
	 * in it can have a trampoline or dispatcher image (no tracing, LSM,
	 * extension, struct_ops or XDP program), so synth__bpf_images need not
	 * read all of kallsyms for them (120,000 lines, ~40 ms of system time
	 * on the development VM, for nothing). False: read it, as perf does.
	 */
	bool no_bpf_images;
	/* Private: hugetlbfs mount point, looked up on first use (1 = done). */
	int hugetlbfs_known;
	char hugetlbfs[128];
};

/* Kernel map: MMAP, misc KERNEL, pid -1, "[kernel.kallsyms]_text", pgoff = &_text. 0 / -errno. */
int synth__kernel_mmap(struct synth *s);
/*
 * One MMAP per loaded module (/proc/modules + its path from
 * s->sys_root/lib/modules/$(uname -r)/modules.dep, "[name]" if not found).
 * 0 if there is no /proc/modules; -EPERM if kptr_restrict hides addresses.
 */
int synth__modules(struct synth *s);
/*
 * System-wide form (perf's __event__synthesize_thread with full=1): FORK
 * then COMM for every thread of @pid (FORK for the leader too, parent =
 * PPid, misc FORK_EXEC), and MMAP2s of the leader's mappings (executable
 * ones; readable data ones too with s->mmap_data). -ESRCH if the process
 * vanished; -EACCES etc. if its maps are unreadable (err_path says which;
 * FORK/COMM are then already appended).
 */
int synth__process(struct synth *s, pid_t pid);
/*
 * synth__process for every process in /proc (-a, -C). Vanishing processes
 * are skipped, so are those whose maps cannot be read, as perf skips them:
 * counted in nr_unreadable, the first one's file in err_path. 0 / -errno.
 */
int synth__all_processes(struct synth *s);
/*
 * synth__process for @pid and, through /proc/PID/task/TID/children, every
 * process descended from it: a running workload described again at the
 * start of a rotated file. Vanished and unreadable processes are skipped
 * as by synth__all_processes. 0 / -errno.
 */
int synth__tree(struct synth *s, pid_t pid);
/*
 * Task-list form for -p/-t/-u (perf_event__synthesize_thread_map): for each
 * of @tids a COMM and no FORK, the MMAP2s of thread-group leaders, and the
 * leader's records too when a listed thread's leader is not in the list.
 * Threads gone since the list was made are skipped; unreadable maps fail
 * (-errno, err_path set), as they fail perf record, unless skip_unreadable
 * (then counted as by synth__all_processes).
 */
int synth__threads(struct synth *s, const pid_t *tids, size_t nr);
/*
 * NAMESPACES (28) of thread @tid of process @pid: dev and inode of its
 * /proc/PID/task/TID/ns links in perf's order (net, uts, ipc, pid, user,
 * mnt, cgroup; zero where unreadable). 0 / -errno.
 */
int synth__namespaces(struct synth *s, pid_t pid, pid_t tid);
/*
 * CGROUP (19) for every directory of the cgroup v2 hierarchy mounted at
 * @root: its id (the file handle the kernel's cgroup ids are) and its path
 * from the root, as perf_event__synthesize_cgroups. 0 / -errno.
 */
int synth__cgroups(struct synth *s, const char *root);
/*
 * What perf 6.1's perf_env keeps of the BPF programs its synthesis
 * describes: with bpf_event, each program's info as perf_bpil (the info
 * perf's get_bpf_prog_info_linear() reads, with its seven arrays, their
 * addresses made offsets as write_bpf_prog_info() writes them), and the
 * BTF of each program with BTF function records. Ascending ids, one entry
 * per id (perf's rb-trees). Owns its buffers.
 */
struct synth_bpf_env {
	struct synth_bpf_prog {
		uint32_t id;
		size_t len;
		void *bpil;
	} *progs;
	struct synth_bpf_btf {
		uint32_t id;
		uint32_t size;
		void *data;
	} *btfs;
	size_t nr_progs, cap_progs, nr_btfs, cap_btfs;
};
/* BPF_PROG_INFO and BPF_BTF of @e (each a count of 0 when empty). 0 / -errno. */
int synth_bpf_env__features(const struct synth_bpf_env *e, struct pfile_featset *fs);
/*
 * perf_env__add_bpf_info(), what perf's side-band thread does for each
 * program loaded while it records: program @id read as perf reads it (no
 * sub-program checks here) and kept, then its BTF whenever it has one. A
 * program already gone or unreadable is skipped. 0 / -ENOMEM.
 */
int synth_bpf_env__add_loaded(struct synth_bpf_env *e, uint32_t id);
void synth_bpf_env__release(struct synth_bpf_env *e);
/*
 * Whether this process may read BPF programs (BPF_PROG_GET_NEXT_ID: root,
 * CAP_SYS_ADMIN): without it neither the synthesis nor a side-band reader
 * learns anything of them.
 */
bool synth__bpf_readable(void);

/*
 * BPF programs loaded before the recording, as perf synthesizes them: a
 * KSYMBOL (17) per JITed sub-program named bpf_prog_<tag>[_<name>] (the
 * name from the program's BTF, else its own) and a BPF_EVENT (18) load per
 * program when @bpf_event (not --no-bpf-event); s->bpf_env, if set, keeps
 * what perf's env keeps of them. Without CAP_SYS_ADMIN the kernel lists no
 * program: nothing is described, as by perf. 0 / -errno.
 */
int synth__bpf_programs(struct synth *s, bool bpf_event);
/*
 * After the programs, perf's KSYMBOL (length: a page) for each BPF
 * trampoline and dispatcher image in kallsyms ("bpf_trampoline_N" and
 * "bpf_dispatcher_NAME" of "[bpf]"). No kallsyms, or s->no_bpf_images:
 * nothing. 0 / -errno.
 */
int synth__bpf_images(struct synth *s);
/*
 * The name of type @type_id in the raw BTF @btf (ids from 1, in order),
 * or NULL when @btf is malformed or has no such type.
 */
const char *synth__btf_name(const void *btf, size_t size, uint32_t type_id);
/* THREAD_MAP (73) for @tids (nr may be 1 with tid -1 for system-wide) */
int synth__thread_map(struct synth *s, const pid_t *tids, size_t nr);
/* CPU_MAP (74) for @cpus */
int synth__cpu_map(struct synth *s, const int *cpus, size_t nr);
/* FINISHED_INIT (82): end of the synthesized prologue */
int synth__finished_init(struct synth *s);

#endif
