// SPDX-License-Identifier: GPL-2.0
/*
 * Synthesized records, following perf 6.1's util/synthetic-events.c and the
 * records perf 6.1 itself writes (checked with `perf report -D`):
 *
 *  - kernel map: MMAP, misc KERNEL, pid -1 (HOST_KERNEL_ID), tid 0,
 *    start = pgoff = address of "_text" (else "_stext"), len = _etext - start
 *    (machine__get_running_kernel_start), else up to the first module, else
 *    up to ~0ULL; filename "[kernel.kallsyms]_text".
 *  - modules: MMAP, misc KERNEL, pid -1, tid 0, pgoff 0, len = size from
 *    /proc/modules, filename = the dso's long name (the .ko path).
 *  - system-wide (-a, -C), every process in /proc: per thread FORK (misc
 *    FORK_EXEC, leader's parent = PPid, other threads' parent = the
 *    leader), then COMM; for the leader of a user process its MMAP2s.
 *  - a task list (-p, -t, -u): per listed thread COMM only (no FORK: perf
 *    6.1 writes none, and readers that see a time-0 FORK start the task
 *    afresh, without its maps); MMAP2s for leaders.
 *  - a workload alone: nothing; the kernel reports its exec and mmaps.
 *    Rotated files describe it as a task list of its pid (perf's
 *    record__synthesize_workload); the end of a flight recording
 *    (synth__tree) describes its children too.
 *  - MMAP2s: executable mappings; with mmap_data (perf's sample_address:
 *    -d, DWARF) readable data mappings too, misc MMAP_DATA. hugetlbfs files
 *    become "//anon" with MAP_HUGETLB.
 *
 * perf zeroes the sample_id trailer of synthesized records: we write it
 * with time 0, id 0, cpu 0, pid/tid 0, which is the same bytes.
 */
#include "recorder/header/synth_internal.h"
#include "recorder/util/fs.h"

#include <time.h>

#define ALIGN8(x) (((x) + 7) & ~(size_t)7)
#define COMM_LEN 16

struct mmap2_head {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
};
_Static_assert(sizeof(struct mmap2_head) == 72, "perf_record_mmap2 head layout");

struct fork_rec {
	struct perf_event_header header;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};
_Static_assert(sizeof(struct fork_rec) == 32, "perf_record_fork layout");

struct comm_head {
	struct perf_event_header header;
	uint32_t pid, tid;
};
_Static_assert(sizeof(struct comm_head) == 16, "perf_record_comm head layout");

const char *synth__proc(const struct synth *s)
{
	return s->proc_root ? s->proc_root : "/proc";
}

const char *synth__root(const struct synth *s) { return s->sys_root ? s->sys_root : ""; }

/*
 * Appends a kernel-type record: @head_len bytes of @head, @name NUL-padded
 * to 8 bytes (if non-NULL), then the zeroed sample_id trailer. header.size
 * is filled in here. 0 / -errno.
 */
int synth__emit(struct synth *s, const void *head, size_t head_len, const char *name)
{
	size_t name_len = name ? ALIGN8(strlen(name) + 1) : 0;
	size_t body = head_len + name_len;
	size_t size = body + s->layout->id_hdr_size;
	struct perf_event_header *h;

	if (size > UINT16_MAX)
		return -E2BIG;
	h = recbuf__reserve(s->out, size);
	if (!h)
		return -ENOMEM;
	memcpy(h, head, head_len);
	h->size = size;
	if (name)
		memcpy((char *)h + head_len, name, strlen(name));
	pfile_idlayout__write_trailer(s->layout, (char *)h + body, 0, 0, 0, 0, 0);
	return 0;
}

/* ---- threads ---- */

struct task_info {
	char comm[COMM_LEN];
	pid_t tgid, ppid;
	bool kernel_thread;
};

/* perf_event__get_comm_ids(): Name/Tgid/PPid; no VmPeak but Threads = kernel thread. */
static void task_info__parse(struct task_info *t, char *bf)
{
	char *name = strstr(bf, "Name:");
	char *tgid = strstr(name ? name : bf, "Tgid:");
	char *ppid = strstr(tgid ? tgid : bf, "PPid:");
	char *vmpeak = strstr(ppid ? ppid : bf, "VmPeak:");
	char *threads = vmpeak ? NULL : strstr(ppid ? ppid : bf, "Threads:");

	memset(t->comm, 0, sizeof(t->comm));
	t->tgid = tgid ? atoi(tgid + 5) : -1;
	t->ppid = ppid ? atoi(ppid + 5) : -1;
	t->kernel_thread = !vmpeak && threads;
	if (name) {
		size_t len;

		name += 5;
		while (*name == ' ' || *name == '\t')
			name++;
		len = strcspn(name, "\n");
		if (len >= sizeof(t->comm))
			len = sizeof(t->comm) - 1;
		memcpy(t->comm, name, len);
	}
}

/* Reads the first 4 KiB of status, as perf does. -errno if the thread is gone. */
static int task_info__read(const struct synth *s, pid_t pid, pid_t tid, struct task_info *t)
{
	char bf[4096];
	ssize_t n;
	FILE *f;

	if (snprintf(bf, sizeof(bf), "%s/%d/task/%d/status", synth__proc(s), pid, tid) >=
	    (int)sizeof(bf))
		return -ENAMETOOLONG;
	f = fopen(bf, "re");
	if (!f)
		return -errno;
	n = fread(bf, 1, sizeof(bf) - 1, f);
	fclose(f);
	if (n <= 0)
		return -ESRCH;
	bf[n] = '\0';
	task_info__parse(t, bf);
	return t->tgid < 0 ? -ESRCH : 0;
}

static int synth__fork(struct synth *s, pid_t tid, const struct task_info *t)
{
	struct fork_rec rec = {
	    .header = {.type = PERF_RECORD_FORK, .misc = PERF_RECORD_MISC_FORK_EXEC}};
	/* The leader's parent is PPid; perf assumes the leader spawned the other threads. */
	pid_t parent = t->tgid == tid ? t->ppid : t->tgid;

	rec.pid = t->tgid;
	rec.tid = tid;
	rec.ppid = rec.ptid = parent;
	return synth__emit(s, &rec, sizeof(rec), NULL);
}

static int synth__comm(struct synth *s, pid_t tid, const struct task_info *t)
{
	struct comm_head head = {.header = {.type = PERF_RECORD_COMM}};

	head.pid = t->tgid;
	head.tid = tid;
	return synth__emit(s, &head, sizeof(head), t->comm);
}

/* One parsed /proc/PID/maps line; path points into the line buffer. */
struct maps_line {
	unsigned long long start, end, pgoff, ino;
	unsigned int maj, min;
	uint32_t prot, flags;
	char *path;
};

static bool maps_line__parse(struct maps_line *m, char *line)
{
	char perms[5];
	int off = 0;
	size_t len;

	if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu%n", &m->start, &m->end, perms, &m->pgoff,
		   &m->maj, &m->min, &m->ino, &off) != 7 ||
	    strlen(perms) != 4 || m->end < m->start)
		return false;
	m->prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
		  (perms[2] == 'x' ? PROT_EXEC : 0);
	if (perms[3] == 's')
		m->flags = MAP_SHARED;
	else if (perms[3] == 'p')
		m->flags = MAP_PRIVATE;
	else
		return false;
	m->path = line + off;
	while (*m->path == ' ' || *m->path == '\t')
		m->path++;
	len = strcspn(m->path, "\n");
	m->path[len] = '\0';
	return true;
}

/* perf's hugetlbfs__mountpoint(): its files are shown as //anon. "" if none. */
static const char *synth__hugetlbfs(struct synth *s)
{
	char path[PATH_MAX];
	struct mntent *me;
	FILE *f;

	if (s->hugetlbfs_known)
		return s->hugetlbfs;
	s->hugetlbfs_known = 1;
	s->hugetlbfs[0] = '\0';
	snprintf(path, sizeof(path), "%s/mounts", synth__proc(s));
	f = setmntent(path, "re");
	if (!f)
		return s->hugetlbfs;
	while ((me = getmntent(f)))
		if (!strcmp(me->mnt_type, "hugetlbfs")) {
			snprintf(s->hugetlbfs, sizeof(s->hugetlbfs), "%s", me->mnt_dir);
			break;
		}
	endmntent(f);
	return s->hugetlbfs;
}

/* perf_event__synthesize_mmap_events(): which mappings, and with what misc. */
static bool synth__mmap_wanted(const struct synth *s, const struct maps_line *m, uint16_t *misc)
{
	*misc = PERF_RECORD_MISC_USER;
	if (m->prot & PROT_EXEC)
		return true;
	if (!s->mmap_data || !(m->prot & PROT_READ))
		return false;
	*misc |= PERF_RECORD_MISC_MMAP_DATA;
	return true;
}

static int synth__mmap2(struct synth *s, pid_t pid, const struct maps_line *m, uint16_t misc)
{
	struct mmap2_head head = {.header = {.type = PERF_RECORD_MMAP2, .misc = misc}};
	const char *name = m->path, *huge = synth__hugetlbfs(s);

	head.flags = m->flags;
	/* perf reads paths into PATH_MAX - id_hdr_size bytes, "//toolong" beyond */
	if (!*name) {
		name = "//anon";
	} else if (*huge && !strncmp(name, huge, strlen(huge))) {
		name = "//anon";
		head.flags |= MAP_HUGETLB;
	} else if (strlen(name) >= PATH_MAX - s->layout->id_hdr_size) {
		name = "//toolong";
	}
	head.pid = head.tid = pid;
	head.start = m->start;
	head.len = m->end - m->start;
	head.pgoff = m->pgoff;
	head.maj = m->maj;
	head.min = m->min;
	head.ino = m->ino;
	head.ino_generation = 0;
	head.prot = m->prot;
	return synth__emit(s, &head, sizeof(head), name);
}

/* Records @path as the file that failed, for the caller's message. */
static int synth__fail(struct synth *s, const char *path, int err)
{
	snprintf(s->err_path, sizeof(s->err_path), "%s", path);
	return err;
}

/* perf's proc_map_timeout check: elapsed time strictly above the limit. */
static bool synth__maps_timed_out(const struct synth *s, const struct timespec *t0)
{
	struct timespec t;
	uint64_t ns;

	if (!s->has_map_timeout)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &t);
	ns = (uint64_t)(t.tv_sec - t0->tv_sec) * 1000000000ULL + t.tv_nsec - t0->tv_nsec;
	return ns > (uint64_t)s->proc_map_timeout_ms * 1000000ULL;
}

/* MMAP2 for each wanted mapping of process @pid (leader's view, as perf reads it). */
static int synth__mmaps(struct synth *s, pid_t pid)
{
	struct timespec t0;
	char path[PATH_MAX];
	struct maps_line m;
	char *line = NULL;
	size_t cap = 0;
	uint16_t misc;
	int err = 0;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/%d/task/%d/maps", synth__proc(s), pid, pid) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : synth__fail(s, path, -errno);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!err && getline(&line, &cap, f) > 0) {
		if (!maps_line__parse(&m, line) || !synth__mmap_wanted(s, &m, &misc))
			continue;
		err = synth__mmap2(s, pid, &m, misc);
		if (!err && synth__maps_timed_out(s, &t0)) {
			s->nr_map_timeouts++;
			break;
		}
	}
	/* A read error (EACCES for another user's task under ptrace rules) shows here. */
	if (!err && ferror(f))
		err = synth__fail(s, path, errno ? -errno : -EIO);
	free(line);
	fclose(f);
	return err;
}

static bool is_number(const char *s, long *v)
{
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return false;
	errno = 0;
	*v = strtol(s, &end, 10);
	return !*end && !errno && *v <= INT_MAX;
}

/* FORK + COMM for @tid, and the maps if it is the leader. 1 if skipped (gone). */
static int synth__task(struct synth *s, pid_t pid, pid_t tid)
{
	struct task_info t;
	int err;

	if (task_info__read(s, pid, tid, &t) < 0)
		return 1; /* some threads exit just after the scan */
	err = synth__fork(s, tid, &t);
	if (!err)
		err = synth__comm(s, tid, &t);
	if (!err && s->namespaces)
		err = synth__namespaces(s, pid, tid);
	if (!err && tid == pid && !t.kernel_thread && !s->no_mmap) {
		err = synth__mmaps(s, pid);
		/* the process exited while we read it: what we have is still right */
		if (err == -ESRCH)
			err = 0;
	}
	return err;
}

int synth__process(struct synth *s, pid_t pid)
{
	char path[PATH_MAX];
	struct dirent *de;
	bool any = false;
	int err = 0;
	DIR *d;

	if (snprintf(path, sizeof(path), "%s/%d/task", synth__proc(s), pid) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ESRCH : synth__fail(s, path, -errno);
	while (!err && (de = readdir(d))) {
		long tid;

		if (!is_number(de->d_name, &tid))
			continue;
		err = synth__task(s, pid, tid);
		if (!err)
			any = true;
		else if (err == 1)
			err = 0;
	}
	closedir(d);
	if (!err && !any)
		err = -ESRCH;
	return err;
}

/*
 * A process whose maps could not be read, when skipping: counted, the first
 * one's file kept. 0 if @err was that (or a vanished task), else @err.
 */
static int synth__skip(struct synth *s, int err, char *first)
{
	if (err == -ESRCH)
		return 0;
	if (!err || !s->err_path[0])
		return err;
	if (!s->nr_unreadable++) {
		memcpy(first, s->err_path, sizeof(s->err_path));
		s->unreadable_err = err;
	}
	return 0;
}

int synth__all_processes(struct synth *s)
{
	char first[sizeof(s->err_path)] = "";
	struct dirent *de;
	int err = 0;
	DIR *d;

	d = opendir(synth__proc(s));
	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		long pid;

		if (!is_number(de->d_name, &pid))
			continue;
		s->err_path[0] = '\0';
		err = synth__process(s, pid);
		/* Processes come and go, or hide their maps: like perf, carry on. */
		if (err != -ENOMEM && err != -E2BIG)
			err = synth__skip(s, err, first);
	}
	closedir(d);
	memcpy(s->err_path, first, sizeof(first));
	return err;
}

/* Deeper than any real process tree: a loop in a fake /proc ends here. */
#define SYNTH_TREE_DEPTH 256

static int synth__subtree(struct synth *s, pid_t pid, unsigned depth, char *first);

/* The processes /proc/PID/task/TID/children lists, each with its own tree. */
static int synth__children(struct synth *s, pid_t pid, pid_t tid, unsigned depth, char *first)
{
	char path[PATH_MAX], *list, *p, *end;
	int err = 0;

	if (snprintf(path, sizeof(path), "%s/%d/task/%d/children", synth__proc(s), pid, tid) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	/* Gone, or a kernel without CONFIG_PROC_CHILDREN: the process alone, as perf. */
	if (filename__read_str(path, &list))
		return 0;
	for (p = list; !err; p = end) {
		long child = strtol(p, &end, 10);

		if (end == p || child <= 0 || child > INT_MAX)
			break;
		err = synth__subtree(s, child, depth + 1, first);
	}
	free(list);
	return err;
}

static int synth__subtree(struct synth *s, pid_t pid, unsigned depth, char *first)
{
	char path[PATH_MAX];
	struct dirent *de;
	int err;
	DIR *d;

	if (depth > SYNTH_TREE_DEPTH)
		return 0;
	s->err_path[0] = '\0';
	err = synth__process(s, pid);
	/* A child that hides its maps (setuid) is skipped, as by synth__all_processes. */
	if (err != -ENOMEM && err != -E2BIG)
		err = synth__skip(s, err, first);
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/%d/task", synth__proc(s), pid);
	d = opendir(path);
	if (!d)
		return 0;
	while (!err && (de = readdir(d))) {
		long tid;

		if (is_number(de->d_name, &tid))
			err = synth__children(s, pid, tid, depth, first);
	}
	closedir(d);
	return err;
}

int synth__tree(struct synth *s, pid_t pid)
{
	char first[sizeof(s->err_path)] = "";
	int err = synth__subtree(s, pid, 0, first);

	memcpy(s->err_path, first, sizeof(first));
	return err;
}

/* One listed thread (perf's __event__synthesize_thread, full=0). *@tgid out. */
static int synth__listed(struct synth *s, pid_t tid, pid_t *tgid)
{
	struct task_info t;
	int err;

	if (task_info__read(s, tid, tid, &t) < 0)
		return -ESRCH;
	*tgid = t.tgid;
	err = synth__comm(s, tid, &t);
	if (!err && s->namespaces)
		err = synth__namespaces(s, t.tgid, tid);
	if (err || tid != t.tgid || s->no_mmap)
		return err;
	err = synth__mmaps(s, tid);
	return err == -ESRCH ? 0 : err;
}

static bool tids__has(const pid_t *tids, size_t nr, pid_t tid)
{
	for (size_t i = 0; i < nr; i++)
		if (tids[i] == tid)
			return true;
	return false;
}

/* perf_event__synthesize_thread_map() for one entry: it, and its leader if not listed. */
static int synth__thread_entry(struct synth *s, const pid_t *tids, size_t nr, size_t i)
{
	pid_t tgid = -1, lead;
	int err = synth__listed(s, tids[i], &tgid);

	if (err || tgid == tids[i] || tids__has(tids, nr, tgid))
		return err;
	return synth__listed(s, tgid, &lead);
}

int synth__threads(struct synth *s, const pid_t *tids, size_t nr)
{
	char first[sizeof(s->err_path)] = "";
	int err = 0;

	for (size_t i = 0; i < nr && !err; i++) {
		s->err_path[0] = '\0';
		err = synth__thread_entry(s, tids, nr, i);
		/* gone since the list was made: nothing of it to describe */
		if (err == -ESRCH || (s->skip_unreadable && err != -ENOMEM && err != -E2BIG))
			err = synth__skip(s, err, first);
	}
	if (!err)
		memcpy(s->err_path, first, sizeof(first));
	return err;
}

/* ---- user records (no sample_id trailer) ---- */

int synth__thread_map(struct synth *s, const pid_t *tids, size_t nr)
{
	struct thread_map_entry {
		uint64_t pid;
		char comm[COMM_LEN];
	} e;
	_Static_assert(sizeof(e) == 24, "perf_record_thread_map_entry layout");
	size_t size = sizeof(struct perf_event_header) + 8 + nr * sizeof(e);
	struct perf_event_header *h;
	unsigned char *p;
	uint64_t nr64 = nr;

	if (size > UINT16_MAX)
		return -E2BIG;
	h = recbuf__reserve(s->out, size);
	if (!h)
		return -ENOMEM;
	h->type = PFILE_REC_THREAD_MAP;
	h->size = size;
	p = (unsigned char *)(h + 1);
	memcpy(p, &nr64, 8);
	p += 8;
	for (size_t i = 0; i < nr; i++, p += sizeof(e)) {
		memset(&e, 0, sizeof(e));
		e.pid = (uint64_t)(int64_t)tids[i]; /* -1 stays all ones */
		memcpy(p, &e, sizeof(e));
	}
	return 0;
}

/*
 * perf 6.1 perf_record_cpu_map_data, PERF_CPU_MAP__CPUS form:
 * { u16 type = 0; u16 nr; u16 cpu[nr]; } padded to 8 bytes. (perf itself
 * writes the RANGE form for contiguous maps; every reader handles CPUS.)
 */
int synth__cpu_map(struct synth *s, const int *cpus, size_t nr)
{
	size_t size = sizeof(struct perf_event_header) + ALIGN8(4 + 2 * nr);
	struct perf_event_header *h;
	uint16_t v[2] = {0 /* PERF_CPU_MAP__CPUS */, nr};
	unsigned char *p;

	if (size > UINT16_MAX || nr > UINT16_MAX)
		return -E2BIG;
	for (size_t i = 0; i < nr; i++)
		if (cpus[i] >= UINT16_MAX)
			return -ERANGE;
	h = recbuf__reserve(s->out, size);
	if (!h)
		return -ENOMEM;
	h->type = PFILE_REC_CPU_MAP;
	h->size = size;
	p = (unsigned char *)(h + 1);
	memcpy(p, v, 4);
	for (size_t i = 0; i < nr; i++) {
		uint16_t cpu = cpus[i] < 0 ? (uint16_t)-1 : (uint16_t)cpus[i];

		memcpy(p + 4 + 2 * i, &cpu, 2);
	}
	return 0;
}

int synth__finished_init(struct synth *s)
{
	struct perf_event_header h = {.type = PFILE_REC_FINISHED_INIT, .size = sizeof(h)};

	return recbuf__append(s->out, &h, sizeof(h));
}
